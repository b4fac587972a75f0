"""Graph passes: functions Graph -> Graph whose result type-checks.

``simplify`` runs after tracing in jit/make_graph: it folds chains of transposes (batching
rules and vmap's out_axes each move axes with a transpose; two in a row are one) and removes
equations whose results are unused (every primitive is pure)."""
from __future__ import annotations

from .core import Eqn, Graph, Literal


def fold_transposes(g: Graph) -> Graph:
    """transpose(transpose(x, p1), p2) -> transpose(x, p1[p2]); identity transposes vanish."""
    if not any(e.prim.name == "transpose" for e in g.eqns):
        return g
    subst: dict = {}
    producer: dict = {}
    eqns = []
    changed = False
    for e in g.eqns:
        ins = tuple(subst.get(id(a), a) if type(a) is not Literal else a for a in e.inputs)
        if e.prim.name == "transpose":
            src, perm = ins[0], e.params["permutation"]
            inner = producer.get(id(src))
            if inner is not None:
                src = inner.inputs[0]
                perm = tuple(inner.params["permutation"][p] for p in perm)
            if perm == tuple(range(len(perm))) and src.aval.shape == e.outs[0].aval.shape:
                subst[id(e.outs[0])] = src
                changed = True
                continue
            if inner is not None:
                e = Eqn(e.prim, (src,), {**e.params, "permutation": perm}, e.outs)
                changed = True
            elif ins is not e.inputs and ins != e.inputs:
                e = Eqn(e.prim, ins, e.params, e.outs)
            producer[id(e.outs[0])] = e
        elif any(a is not b for a, b in zip(ins, e.inputs)):
            e = Eqn(e.prim, ins, e.params, e.outs)
        eqns.append(e)
    if not changed:
        return g
    outvars = tuple(subst.get(id(v), v) if type(v) is not Literal else v for v in g.outvars)
    return Graph(g.invars, g.constvars, g.consts, tuple(eqns), outvars)


def dce(g: Graph) -> Graph:
    """Drop equations none of whose outputs are used, and constants nobody reads."""
    live = {id(v) for v in g.outvars if type(v) is not Literal}
    kept = []
    for e in reversed(g.eqns):
        for o in e.outs:
            if id(o) in live:
                kept.append(e)
                live.update([id(a) for a in e.inputs if type(a) is not Literal])
                break
    if len(kept) == len(g.eqns) and all(id(v) in live for v in g.constvars):
        return g
    kept.reverse()
    cv = [(v, c) for v, c in zip(g.constvars, g.consts) if id(v) in live]
    return Graph(g.invars, tuple(v for v, _ in cv), tuple(c for _, c in cv), tuple(kept), g.outvars)


def simplify(g: Graph) -> Graph:
    return dce(fold_transposes(g))
