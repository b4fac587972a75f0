"""Graph upkeep shared by the graph passes (frontend.passes), the autodiff graph transforms
and the tracing entry points: closure conversion, rewriting the sub-graphs of an equation
(``map_subgraphs``), side-effect queries and dead-code elimination. (What a sub-graph is,
and the walk over an equation's sub-graphs, ``subgraphs``, are the IR's: frontend.core.ir.)"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .ir import Eqn, Graph, Literal, param_graphs, subgraphs
from .params import intern_graph


def closure_convert(g: Graph) -> tuple[Graph, list[Any]]:
    """(g with its captured values as leading invars, the captured values)."""
    return intern_graph(Graph(tuple(g.constvars) + tuple(g.invars), (), (), g.eqns, g.outvars)), \
        list(g.consts)


def _intern_unless_consts(g: Graph) -> Graph:
    return intern_graph(g) if not g.consts else g


def map_subgraphs(e: Eqn, fn: Callable[[Graph], Graph]) -> Eqn:
    """``e`` with ``fn`` (Graph -> Graph, keeping the signature) applied to every Graph in its
    params (cond branches, loop bodies); ``e`` itself when no sub-graph changed."""
    new: dict[str, Any] | None = None
    for k, v in e.params.items():
        gs = param_graphs(v)
        if not gs:
            continue
        ngs = tuple([fn(x) for x in gs])
        if all(a is b for a, b in zip(ngs, gs, strict=True)):
            continue
        ngs = tuple([_intern_unless_consts(x) for x in ngs])
        if new is None:
            new = dict(e.params)
        new[k] = ngs[0] if type(v) is Graph else ngs
    return e if new is None else Eqn(e.prim, e.inputs, new, e.outs, e.loc)


def has_side_effects(g: Graph) -> bool:
    """Whether an equation of ``g`` (or of a sub-graph) declares ``has_side_effect``."""
    return any(e.params.get("has_side_effect") for e in g.eqns) \
        or any(has_side_effects(s) for e in g.nested for s in subgraphs(e))


def dce(g: Graph) -> Graph:
    """Dead-code elimination: drop equations none of whose outputs are used (primitives are
    pure; a call declaring ``has_side_effect`` is kept, and so is an equation whose
    sub-graphs hold one, such as a loop calling the host) and constants nobody reads, also
    inside sub-graphs."""
    live = {v for v in g.outvars if type(v) is not Literal}  # Vars (identity hashed)
    nested = g.nested
    kept = []
    changed = False
    for e in reversed(g.eqns):
        outs = e.outs
        if (outs[0] in live if len(outs) == 1 else not live.isdisjoint(outs)) \
                or e.params.get("has_side_effect") \
                or nested and e in nested and any(has_side_effects(s) for s in subgraphs(e)):
            if nested and e.params:
                e2 = map_subgraphs(e, dce)
                if e2 is not e:
                    changed, e = True, e2
            kept.append(e)
            live.update(e.inputs)  # (Literals too: harmless, never looked up)
    if not changed and len(kept) == len(g.eqns) and live.issuperset(g.constvars):
        return g
    kept.reverse()
    cv = [(v, c) for v, c in zip(g.constvars, g.consts, strict=True) if v in live]
    return Graph(g.invars, tuple(v for v, _ in cv), tuple(c for _, c in cv), tuple(kept), g.outvars)
