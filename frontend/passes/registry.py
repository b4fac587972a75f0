"""The built-in graph passes by name (for ``jit(passes=("cse", "dce"))`` and the command
line), and the default pipeline of ``jit``."""
from __future__ import annotations

from .cse import cse
from .fold import fold_constants
from .rewrite import dce
from .simplify import fold_dot_transposes, fold_transposes, simplify

GRAPH_PASSES = {p.__name__: p for p in (dce, cse, fold_constants, simplify, fold_transposes,
                                        fold_dot_transposes)}

# what jit runs after tracing when no ``passes=`` is given: batching rules and vmap's
# out_axes each move axes with a transpose (two in a row are one), then dead code goes
DEFAULT_PASSES = ("fold_transposes", "dce")


def register_pass(p, name: str | None = None):
    """Make the pass ``p`` (Graph -> Graph) known by ``name`` (default: its ``__name__``), for
    ``jit(passes=("name", ...))`` and the command line's ``--passes``. Returns ``p``."""
    if not callable(p):
        raise TypeError(f"a graph pass is a function Graph -> Graph, got {type(p).__name__}")
    GRAPH_PASSES[name or p.__name__] = p
    return p


def resolve(p):
    """A pass from a name of GRAPH_PASSES or a callable Graph -> Graph."""
    if isinstance(p, str):
        try:
            return GRAPH_PASSES[p]
        except KeyError:
            raise ValueError(f"unknown graph pass {p!r}; the known passes are "
                             f"{', '.join(GRAPH_PASSES)}") from None
    if not callable(p):
        raise TypeError(f"a graph pass is a function Graph -> Graph or the name of a built-in "
                        f"one, got {type(p).__name__}: {p!r}")
    return p
