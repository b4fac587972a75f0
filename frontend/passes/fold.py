"""Constant folding with XLA's numerics: the equations whose operands are all known are run
by XLA, as one compiled program, and their results become constants."""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.ir import Eqn, Graph, Literal
from ..device import seam as _backend
from ..device.array import Array
from ..primitives.shape import broadcast_in_dim_p
from .rewrite import dce, map_subgraphs

_PY = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def _as_literal(x: np.ndarray, aval) -> Literal:
    return Literal(_PY[dtypes._kind(aval.dtype)](np.asarray(x).reshape(())), aval)


def fold_constants(g: Graph, *, max_elements: int = 1 << 16) -> Graph:
    """Constant folding: every equation whose operands are Literals, constants or folded
    values is evaluated (also inside sub-graphs); the values the rest of the graph reads
    become constants (rank 0: Literals). The folded equations run on XLA as one compiled
    program, so folded values are what XLA computes. Not folded: results of more than
    ``max_elements`` elements (the equation stays; pass ``functools.partial(fold_constants,
    max_elements=...)`` to change it), equations of Literals only (a broadcast of a Literal,
    an iota), which a constant would not make cheaper, and broadcasts (their operand becomes
    the constant instead)."""
    eqns = [map_subgraphs(e, lambda s: fold_constants(s, max_elements=max_elements))
            for e in g.eqns]
    sub_changed = any(a is not b for a, b in zip(eqns, g.eqns, strict=True))
    base = Graph(g.invars, g.constvars, g.consts, tuple(eqns), g.outvars) if sub_changed else g

    known = {id(v) for v in g.constvars}
    producer: dict = {}
    for i, e in enumerate(eqns):
        # (not folded on this host: a primitive lowered per platform, e.g. platform_index)
        if e.prim.lowering_rule is not None and not e.prim.platform_lowering_rules and all(
                type(a) is Literal or id(a) in known for a in e.inputs):
            for o in e.outs:
                known.add(id(o))
                producer[id(o)] = i
    if not producer:
        return base
    foldable = set(producer.values())
    kept = set(range(len(eqns))) - foldable
    materialize: dict = {}  # id -> Var, in the order found
    work = [a for i in sorted(kept) for a in eqns[i].inputs] + list(g.outvars)
    while work:
        v = work.pop()
        if type(v) is Literal or id(v) not in producer or id(v) in materialize:
            continue
        i = producer[id(v)]
        e = eqns[i]
        # not materialized: a value of Literals only (an iota, a broadcast Literal), a
        # broadcast (its operand is the smaller constant), anything too large
        cheap = all(type(a) is Literal for a in e.inputs) or e.prim is broadcast_in_dim_p
        if v.aval.size > max_elements or cheap:
            if i not in kept:
                kept.add(i)
                work.extend(e.inputs)
        else:
            materialize[id(v)] = v
    for i in kept & foldable:  # a kept equation defines its outputs itself
        for o in eqns[i].outs:
            materialize.pop(id(o), None)
    if not materialize:
        return base

    outs = list(materialize.values())
    fold_graph = dce(Graph((), g.constvars, g.consts, tuple(eqns[i] for i in sorted(foldable)),
                           tuple(outs)))
    be = _backend.get()
    bufs = be.compile_graph(fold_graph)([])

    subst: dict = {}
    new_cv, new_c = list(g.constvars), list(g.consts)
    for v, b in zip(outs, bufs, strict=True):
        if v.aval.ndim == 0:
            subst[id(v)] = _as_literal(be.to_host(b), v.aval)
        else:
            new_cv.append(v)  # the Var itself becomes a constant: its type is kept exactly
            new_c.append(Array(b, v.aval))

    def get(a):
        return a if type(a) is Literal else subst.get(id(a), a)

    new_eqns = []
    for i in sorted(kept):
        e = eqns[i]
        ins = tuple(get(a) for a in e.inputs)
        new_eqns.append(e if all(a is b for a, b in zip(ins, e.inputs, strict=True))
                        else Eqn(e.prim, ins, e.params, e.outs, e.loc))
    out = Graph(g.invars, tuple(new_cv), tuple(new_c), tuple(new_eqns),
                tuple(get(v) for v in g.outvars))
    return dce(out)
