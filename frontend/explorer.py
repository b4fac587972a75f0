"""The explorer page from Python: ``explore(f, *args)`` shows every stage of compiling
``f`` (its Python source, the graph of one example, the vmapped graph, the graph after the
passes, StableHLO, XLA's optimized HLO) as one self-contained HTML page, drawn and
cross-linked; ``vmaplab explore`` writes the same page from the command line. Graphs and
``Lowered`` objects show themselves this way in Jupyter (``_repr_html_``, installed here)."""
from __future__ import annotations

from .core.ir import Graph
from .device import seam as _backend
from .transforms.stages import Lowered


def explore(fun, *args, path=None, passes=None, title=None, **kwargs):
    """The explorer page of ``jit(fun, passes=passes).lower(*args, **kwargs)`` (``fun`` may
    be a ``vmap``, a ``grad``, a ``jit``...): an object with ``html`` (the page's text),
    ``data``, ``save(path)``, shown inline by Jupyter; written to ``path`` when given.
    Arguments may be arrays or ``ShapeDtypeStruct``s (nothing is run, only compiled).

    >>> import numpy as np
    >>> import frontend as fe, frontend.numpy as fnp
    >>> page = fe.explore(fe.vmap(lambda x: fnp.tanh(x).sum()), np.ones((8, 3), np.float32))
    >>> [s["name"] for s in page.data["stages"]]
    ['traced', 'vmapped', 'passes']
    """
    return _backend.get().explore_page(fun, args, kwargs, passes=passes, path=path, title=title)


def _graph_html(self) -> str:
    return _backend.get().graph_html(self)


def _lowered_html(self) -> str:
    return _backend.get().lowered_html(self)


Graph._repr_html_ = _graph_html
Lowered._repr_html_ = _lowered_html
