"""The tracing entry points: ``trace_graph`` turns a function of flat values into a Graph
(on abstract inputs; what it closes over becomes constants), ``trace_pytree`` does it for a
function of pytrees and also gives the output treedef, and ``flatten_fun`` is the pytree
flattening they share with the transformations that trace differently (vmap's batching
trace, jvp, linearize).

Used by jit/make_graph, the control-flow primitives and wrappers (loop bodies and branches
are traced into sub-Graphs), vmap, autodiff and the custom_* rules.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..device.array import Array
from ..interpreters.named_axes import ManualTrace
from .ir import Aval, Graph, GraphTrace, Literal, Tracer, new_trace
from .pytree import TreeDef, tree_flatten, tree_unflatten

_SCALARS = (bool, int, float, complex)


def as_traceable(o: Any) -> Any:
    """A function output as something a trace can record (TypeError for anything else)."""
    if isinstance(o, (Tracer, Array, np.ndarray, Literal)) or isinstance(o, _SCALARS):
        return o
    if isinstance(o, np.generic):
        return np.asarray(o)
    raise TypeError(f"function returned a value of type {type(o).__name__}: outputs must be "
                    "arrays, scalars, or pytrees of them")


def trace_graph(fn: Callable[..., Sequence[Any]], in_avals: Sequence[Aval],
                mesh_axes: dict[Any, int] | None = None, check_vma: bool = False) -> Graph:
    """Trace ``fn`` (flat values in, flat list out) on abstract inputs into a Graph; what it
    closes over is in the graph's constvars/consts. ``mesh_axes`` (name -> size): trace the
    body of a shard_map, in which those names are bound for collectives (``check_vma``: the
    user's body of a shard_map with check_vma=True)."""
    tr: GraphTrace = new_trace(GraphTrace) if mesh_axes is None else \
        new_trace(ManualTrace, mesh_axes, check_vma)
    with tr:
        args = [tr.new_arg(a) for a in in_avals]
        outs = [as_traceable(o) for o in fn(*args)]
    return tr.to_graph(args, outs)


def flatten_fun(fun: Callable[..., Any], in_tree: TreeDef) \
        -> tuple[Callable[..., list[Any]], Callable[[], TreeDef]]:
    """``fun`` on pytrees as a function of flat leaves: ``(flat, out_tree)``, where
    ``flat(*leaves)`` calls ``fun(*tree_unflatten(in_tree, leaves))`` (``in_tree`` is the
    treedef of the tuple of positional arguments) and returns the output's leaves, and
    ``out_tree()`` is the output's treedef once ``flat`` has run. For keyword arguments,
    flatten ``(args, kwargs)`` and pass ``lambda a, kw: fun(*a, **kw)``."""
    out_trees: list[TreeDef] = []

    def flat(*leaves: Any) -> list[Any]:
        outs, td = tree_flatten(fun(*tree_unflatten(in_tree, leaves)))
        out_trees.append(td)
        return outs

    def out_tree() -> TreeDef:
        if not out_trees:
            raise RuntimeError("out_tree() asked for before the flattened function ran")
        return out_trees[-1]

    return flat, out_tree


def trace_pytree(fun: Callable[..., Any], in_tree: TreeDef, in_avals: Sequence[Aval],
                 mesh_axes: dict[Any, int] | None = None,
                 check_vma: bool = False) -> tuple[Graph, TreeDef]:
    """``(graph, out_tree)``: ``fun`` (a function of pytrees; ``in_tree`` is the treedef of
    its positional arguments, ``in_avals`` the avals of their leaves) traced into a Graph of
    the flat leaves, and the treedef of its output. ``mesh_axes``, ``check_vma``: as for
    ``trace_graph``."""
    flat, out_tree = flatten_fun(fun, in_tree)
    return trace_graph(flat, in_avals, mesh_axes, check_vma), out_tree()
