"""Control-flow primitives (JAX's lax semantics; the wrappers are in frontend.lax):

- ``cond``  : ``cond(index, *operands; branches)`` runs ``branches[index]`` (stablehlo.if /
  stablehlo.case); ``index`` is an int32 scalar.
- ``while`` : ``while(*cond_consts, *body_consts, *carry; cond_graph, body_graph,
  cond_nconsts, body_nconsts)`` (stablehlo.while).
- ``scan``  : ``scan(*consts, *carry, *xs; body, num_consts, num_carry, length, reverse)``:
  body(consts, carry, x) -> (carry, y), ys stacked on a new leading axis (a stablehlo.while
  over a counter).

Sub-graphs are held in the params; what a user function closes over is passed as explicit
leading operands (closure conversion, frontend.tracing). Sub-graphs built by batching rules
may keep concrete constants as constvars.
"""
from __future__ import annotations

import builtins

import numpy as np

from .. import batching
from ..core import Aval, Graph, Primitive, aval_of, eval_graph, literal
from ..tracing import closure_convert, intern_graph, trace_graph
from .elementwise import eq_p, select_p
from .reductions import reduce_or_p
from .shape import bdim_at, broadcast_in_dim_p, moveaxis

_I32 = np.dtype(np.int32)


def typematch(a: Aval, b: Aval) -> bool:
    """Same shape and dtype (weak types may differ)."""
    return a.shape == b.shape and a.dtype == b.dtype


def _eval(g: Graph, args) -> list:
    """Bind every equation of ``g`` under the current trace (Literals stay typed)."""
    return eval_graph(g, g.consts, args)


# ----------------------------------------------------------------------------- batching helpers


def _batched_aval(a: Aval, d, size: int) -> Aval:
    if d is None:
        return a
    return Aval(a.shape[:d] + (size,) + a.shape[d:], a.dtype, a.weak_type)


def _batch_graph(g: Graph, size: int, in_dims, force=None, mesh_axes=None):
    """(graph, out_batched): ``g`` vectorized over ``size`` lanes. Input i carries its batch
    axis at ``in_dims[i]`` (None: unbatched); every batched output has it at 0; an output with
    ``force[i]`` is batched (broadcast) even when it depends on no batched input.
    ``mesh_axes``: ``g`` is the body of a shard_map over those mesh axes."""
    in_avals = [_batched_aval(v.aval, d, size) for v, d in zip(g.invars, in_dims, strict=True)]
    box = []
    rule = batching.rule_axis()  # the vmap being batched: its axis names reach the body
    name = rule.axis_name if rule is not None else None
    spmd = rule.spmd_axis_name if rule is not None and mesh_axes is None else None

    def fn(*args):
        vals, dims = batching.batch_fun(lambda *a: _eval(g, a), size, args, in_dims, name, spmd)
        res, flags = [], []
        for i, (o, d) in enumerate(zip(vals, dims)):
            if d is not None:
                res.append(moveaxis(o, d, 0))
                flags.append(True)
            elif force is not None and force[i]:
                res.append(bdim_at(o, None, size, 0))
                flags.append(True)
            else:
                res.append(o)
                flags.append(False)
        box.append(flags)
        return res

    return intern_graph(trace_graph(fn, in_avals, mesh_axes)), box[0]


def _lane_select(pred, on_true, on_false):
    """select per lane: pred is bool[B], the values have the batch axis at 0."""
    shp = on_true.aval.shape if hasattr(on_true, "aval") else np.shape(on_true)
    if len(shp) > 1:
        pred = broadcast_in_dim_p.bind(pred, shape=tuple(shp), broadcast_dimensions=(0,))
    return select_p.bind(pred, on_true, on_false)


# ----------------------------------------------------------------------------- cond


# cond(index, *operands; branches): branches[index](*operands). ``index`` is an int32
# scalar; every branch graph takes the operands and gives outputs of the same types.
cond_p = Primitive("cond", multiple_results=True)


@cond_p.def_abstract_eval
def _cond_abstract_eval(index, *ops, branches):
    if index.shape != () or index.dtype != _I32:
        raise TypeError(f"cond index must be an int32 scalar, got {index.str_short()}.")
    if not branches:
        raise ValueError("Empty branch sequence")
    for k, g in enumerate(branches):
        if len(g.invars) != len(ops) or not all(
                typematch(v.aval, a) for v, a in zip(g.invars, ops)):
            raise TypeError(f"cond branch {k} takes {[v.aval for v in g.invars]}, "
                            f"got operands {list(ops)}")
    outs0 = branches[0].out_avals
    for g in branches[1:]:
        if len(g.outvars) != len(outs0) or not all(builtins.map(typematch, g.out_avals, outs0)):
            raise TypeError("cond branches must have equal output types, got "
                            f"{list(outs0)} and {list(g.out_avals)}")
    return list(outs0)  # (JAX: the types of branch 0, weak types included)


@cond_p.def_batching
def _cond_batch(args, dims, *, branches):
    # outputs batched in any branch have the batch axis at 0 (others stay unbatched)
    axis_size = batching.axis_size(args, dims)
    index, ops = args[0], args[1:]
    idx_dim, op_dims = dims[0], dims[1:]
    if idx_dim is None:
        out_b = [False] * len(branches[0].outvars)
        for g in branches:
            out_b = [a or b for a, b in zip(out_b, _batch_graph(g, axis_size, op_dims)[1])]
        new = tuple(_batch_graph(g, axis_size, op_dims, out_b)[0] for g in branches)
        outs = cond_p.bind(index, *ops, branches=new)
        return outs, [0 if b else None for b in out_b]
    # batched predicate: every branch runs (batched), each lane selects its branch's result
    n_out = len(branches[0].outvars)
    results = [_eval(_batch_graph(g, axis_size, op_dims, [True] * n_out)[0], ops)
               for g in branches]
    index = moveaxis(index, idx_dim, 0)
    outs = list(results[-1])
    for k in range(len(branches) - 2, -1, -1):
        hit = eq_p.bind(index, literal(k, _I32))
        outs = [_lane_select(hit, r, o) for r, o in zip(results[k], outs)]
    return outs, [0] * n_out


# ----------------------------------------------------------------------------- while


def _passthrough(body: Graph, nconsts: int) -> list:
    """Carry entries the body returns unchanged (the output is the input variable)."""
    ins = body.invars[nconsts:]
    return [o is i for o, i in zip(body.outvars, ins)]


# while(*cond_consts, *body_consts, *carry; cond_graph, body_graph, cond_nconsts,
# body_nconsts): carry = body(body_consts, carry) while cond(cond_consts, carry).
while_p = Primitive("while", multiple_results=True)


@while_p.def_abstract_eval
def _while_abstract_eval(*avals, cond_graph, body_graph, cond_nconsts, body_nconsts):
    cc = avals[:cond_nconsts]
    bc = avals[cond_nconsts:cond_nconsts + body_nconsts]
    carry = avals[cond_nconsts + body_nconsts:]
    for what, g, ins in (("cond", cond_graph, cc + carry), ("body", body_graph, bc + carry)):
        if len(g.invars) != len(ins) or not all(
                typematch(v.aval, a) for v, a in zip(g.invars, ins)):
            raise TypeError(f"while {what}_graph takes {[v.aval for v in g.invars]}, got "
                            f"{list(ins)}")
    po = cond_graph.out_avals
    if len(po) != 1 or po[0].shape != () or po[0].dtype != np.bool_:
        raise TypeError(f"cond_fun must return a boolean scalar, but got output type(s) {list(po)}.")
    outs = body_graph.out_avals
    if len(outs) != len(carry) or not all(builtins.map(typematch, outs, carry)):
        raise TypeError("body_fun output and input must have identical types, got "
                        f"{list(outs)} and {list(carry)}")
    return list(outs)


@while_p.def_batching
def _while_batch(args, dims, *, cond_graph, body_graph, cond_nconsts, body_nconsts):
    # batched carries have the batch axis at 0
    axis_size = batching.axis_size(args, dims)
    nc, nb = cond_nconsts, body_nconsts
    cc, bc, init = args[:nc], args[nc:nc + nb], args[nc + nb:]
    ccd, bcd, initd = dims[:nc], dims[nc:nc + nb], dims[nc + nb:]
    passthrough = _passthrough(body_graph, nb)
    carry_b = [d is not None for d in initd]
    while True:  # fixpoint: which carries are batched
        cd = [0 if b else None for b in carry_b]
        pred_b = _batch_graph(cond_graph, axis_size, list(ccd) + cd)[1][0]
        out_b = _batch_graph(body_graph, axis_size, list(bcd) + cd)[1]
        new = [a or b or (pred_b and not p) for a, b, p in zip(carry_b, out_b, passthrough)]
        if new == carry_b:
            break
        carry_b = new
    cd = [0 if b else None for b in carry_b]
    init = [bdim_at(x, d, axis_size, 0) if b else x for x, d, b in zip(init, initd, carry_b)]
    out_dims = [0 if b else None for b in carry_b]
    body_b = _batch_graph(body_graph, axis_size, list(bcd) + cd, carry_b)[0]
    if not pred_b:
        cond_b = _batch_graph(cond_graph, axis_size, list(ccd) + cd)[0]
        outs = while_p.bind(*cc, *bc, *init, cond_graph=cond_b, body_graph=body_b,
                         cond_nconsts=nc, body_nconsts=nb)
        return outs, out_dims
    # batched predicate: loop while any lane is active; finished lanes keep their carry
    cond_lanes = _batch_graph(cond_graph, axis_size, list(ccd) + cd)[0]
    cc_avals = [aval_of(x) for x in cc]
    bc_avals = [aval_of(x) for x in bc]
    carry_avals = [aval_of(x) for x in init]

    def any_active(*a):
        (pred,) = _eval(cond_lanes, a)
        return [reduce_or_p.bind(pred, axes=(0,))]

    def step(*a):
        c_in, b_in, carry = a[:nc], a[nc:nc + nb], a[nc + nb:]
        (pred,) = _eval(cond_lanes, list(c_in) + list(carry))
        new = _eval(body_b, list(b_in) + list(carry))
        return [_lane_select(pred, n, o) if b else n
                for n, o, b in zip(new, carry, carry_b)]

    cond_g = intern_graph(trace_graph(any_active, cc_avals + carry_avals))
    body_g = intern_graph(trace_graph(step, cc_avals + bc_avals + carry_avals))
    outs = while_p.bind(*cc, *cc, *bc, *init, cond_graph=cond_g, body_graph=body_g,
                     cond_nconsts=nc, body_nconsts=nc + nb)
    return outs, out_dims


# ----------------------------------------------------------------------------- scan


# scan(*consts, *carry, *xs; body, num_consts, num_carry, length, reverse): for each
# index of the leading axis of xs (last to first when reverse), (carry, y) = body(consts,
# carry, x); results: the final carry, then the ys stacked on a new leading axis.
scan_p = Primitive("scan", multiple_results=True)


@scan_p.def_abstract_eval
def _scan_abstract_eval(*avals, body, num_consts, num_carry, length, reverse):
    consts = avals[:num_consts]
    carry = avals[num_consts:num_consts + num_carry]
    xs = avals[num_consts + num_carry:]
    for x in xs:
        if x.ndim == 0 or x.shape[0] != length:
            raise TypeError(f"scan xs must have leading axis {length}, got {x.str_short()}")
    ins = list(consts) + list(carry) + [Aval(x.shape[1:], x.dtype, x.weak_type) for x in xs]
    if len(body.invars) != len(ins) or not all(
            typematch(v.aval, a) for v, a in zip(body.invars, ins)):
        raise TypeError(f"scan body takes {[v.aval for v in body.invars]}, got {ins}")
    outs = body.out_avals
    if len(outs) < num_carry or not all(builtins.map(typematch, outs[:num_carry], carry)):
        raise TypeError("scan body carry output and input must have identical types, got "
                        f"{list(outs[:num_carry])} and {list(carry)}")
    return list(outs[:num_carry]) + [Aval((length,) + y.shape, y.dtype, y.weak_type)
                                     for y in outs[num_carry:]]


@scan_p.def_batching
def _scan_batch(args, dims, *, body, num_consts, num_carry, length, reverse):
    # batched carries: batch axis at 0; batched ys: at 1 (0 is the scanned axis)
    axis_size = batching.axis_size(args, dims)
    nc, nk = num_consts, num_carry
    consts, init, xs = args[:nc], args[nc:nc + nk], list(args[nc + nk:])
    cd, initd, xd = dims[:nc], dims[nc:nc + nk], list(dims[nc + nk:])
    for i, d in enumerate(xd):
        if d == 0:  # the batch axis must not be the scanned axis
            xs[i], xd[i] = moveaxis(xs[i], 0, 1), 1
    x_in = [None if d is None else d - 1 for d in xd]
    carry_b = [d is not None for d in initd]
    while True:
        out_b = _batch_graph(body, axis_size, list(cd) + [0 if b else None for b in carry_b] + x_in)[1]
        new = [a or b for a, b in zip(carry_b, out_b[:nk])]
        if new == carry_b:
            break
        carry_b = new
    ny = len(body.outvars) - nk
    body_b, out_b = _batch_graph(body, axis_size,
                                 list(cd) + [0 if b else None for b in carry_b] + x_in,
                                 carry_b + [False] * ny)
    init = [bdim_at(x, d, axis_size, 0) if b else x for x, d, b in zip(init, initd, carry_b)]
    outs = scan_p.bind(*consts, *init, *xs, body=body_b, num_consts=nc, num_carry=nk,
                     length=length, reverse=reverse)
    return outs, [0 if b else None for b in carry_b] + [1 if b else None for b in out_b[nk:]]


# ----------------------------------------------------------------------------- loops over lanes


def scan_lanes(fn, xs) -> list:
    """``fn`` applied to each row of the leading axis of every array in ``xs`` (a flat list),
    outputs stacked on a new leading axis: one scan with no carry. ``fn`` takes and returns
    flat lists. (The loop behind vmap's sequential fallback and its bounded-memory form.)"""
    length = batching.shape(xs[0])[0]
    row_avals = [Aval(a.shape[1:], a.dtype, a.weak_type) for a in map(aval_of, xs)]
    body, consts = closure_convert(trace_graph(lambda *rows: fn(*rows), row_avals))
    return scan_p.bind(*consts, *xs, body=body, num_consts=len(consts), num_carry=0,
                       length=length, reverse=False)
