"""Control-flow primitives (JAX's lax semantics; the wrappers are in frontend.lax):

- ``cond``  : ``cond(index, *operands; branches)`` runs ``branches[index]`` (stablehlo.if /
  stablehlo.case); ``index`` is an int32 scalar.
- ``while`` : ``while(*cond_consts, *body_consts, *carry; cond_graph, body_graph,
  cond_nconsts, body_nconsts)`` (stablehlo.while).
- ``scan``  : ``scan(*consts, *carry, *xs; body, num_consts, num_carry, length, reverse)``:
  body(consts, carry, x) -> (carry, y), ys stacked on a new leading axis (a stablehlo.while
  over a counter).

Sub-graphs are held in the params; what a user function closes over is passed as explicit
leading operands (closure conversion, frontend.core.tracing). Sub-graphs built by batching rules
may keep concrete constants as constvars.

Autodiff: the jvp rules of cond and scan split each sub-graph (frontend.interpreters.transpose.linearize_graph)
into a primal cond/scan, which also returns the residuals (a scan stacks them), and a
tangent cond/scan linear in the tangents; under reverse mode only the latter is recorded
and transposed (a scan backwards over the stacked residuals). while_loop is differentiated
in forward mode only (one loop carrying the tangents too), as in JAX.
"""
from __future__ import annotations

import builtins
import functools

import numpy as np

from ..core import dtypes
from ..core.config import config, on_vmap_cond_change
from ..core.graph_utils import closure_convert
from ..core.ir import (
    Aval,
    Graph,
    Primitive,
    Var,
    aval_of,
    eval_graph,
    inline_graph,
    literal,
    rule_replaced,
    subgraphs,
)
from ..core.params import intern_graph
from ..core.tracing import trace_graph
from ..interpreters import batching
from ..interpreters import transpose as _transpose  # (module: transpose imports primitives)
from ..interpreters.ad_util import Zero, is_undefined_primal, tangent_aval
from .conv import conv_general_dilated_p
from .elementwise import add_tangents, and_p, convert_element_type_p, eq_p, gt_p, select_p, stop_gradient_p
from .indexing import gather_p, scatter_p
from .linalg import dot_general_p
from .reductions import reduce_or_p
from .shape import (
    bdim_at,
    broadcast_in_dim_p,
    instantiate_zeros,
    moveaxis,
    reduce_sum_p,
    zero_jvp,
    zeros_like_aval,
)
from .sort import top_k_p

_I32 = np.dtype(np.int32)


def typematch(a: Aval, b: Aval) -> bool:
    """Same shape and dtype (weak types may differ)."""
    return a.shape == b.shape and a.dtype == b.dtype



# ----------------------------------------------------------------------------- batching helpers


def _batched_aval(a: Aval, d, size: int) -> Aval:
    if d is None:
        return a
    return Aval(a.shape[:d] + (size,) + a.shape[d:], a.dtype, a.weak_type)


def batch_graph(g: Graph, size: int, in_dims, force=None, mesh_axes=None, masked=False):
    """(graph, out_batched): ``g`` vectorized over ``size`` lanes. Input i carries its batch
    axis at ``in_dims[i]`` (None: unbatched); every batched output has it at 0; an output with
    ``force[i]`` is batched (broadcast) even when it depends on no batched input.
    ``mesh_axes``: ``g`` is the body of a shard_map over those mesh axes. ``masked``: ``g``
    runs for some lanes only; the batched graph then takes one more, trailing input, the
    bool[size] lane mask (``batching.lane_mask()`` inside), if something in it reads the
    mask (a while loop or cond), and has ``g``'s inputs only otherwise."""
    in_avals = [_batched_aval(v.aval, d, size) for v, d in zip(g.invars, in_dims, strict=True)]
    if masked:
        in_avals.append(Aval((size,), np.dtype(np.bool_)))
    box = []
    rule = batching.rule_axis()  # the vmap being batched: its axis names reach the body
    name = rule.axis_name if rule is not None else None
    spmd = rule.spmd_axis_name if rule is not None and mesh_axes is None else None

    def fn(*args):
        mask = args[-1] if masked else None
        args = args[:-1] if masked else args
        vals, dims = batching.batch_fun(lambda *a: inline_graph(g, a), size, args, in_dims, name,
                                        spmd, mask)
        res, flags = [], []
        for i, (o, d) in enumerate(zip(vals, dims, strict=True)):
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

    out = trace_graph(fn, in_avals, mesh_axes)
    if masked and not _reads(out, out.invars[-1]):
        out = Graph(out.invars[:-1], out.constvars, out.consts, out.eqns, out.outvars)
    return intern_graph(out), box[0]


def _reads(g: Graph, v: Var) -> bool:
    """Whether an equation or output of ``g`` reads ``v`` (sub-graphs are closed)."""
    return v in g.outvars or any(v in e.inputs for e in g.eqns)


def _with_mask(g: Graph, n_in: int, size: int, first=False) -> Graph:
    """``g`` (from ``batch_graph(masked=True)`` of a graph with ``n_in`` inputs) taking the
    lane mask as its last input (its first with ``first``) whether or not it reads it."""
    ins = tuple(g.invars)
    if len(ins) == n_in:
        ins = ins + (Var(Aval((size,), np.dtype(np.bool_))),)
    if first:
        ins = ins[-1:] + ins[:-1]
    return intern_graph(Graph(ins, g.constvars, g.consts, g.eqns, g.outvars))


def _inexact(x) -> bool:
    return dtypes.is_inexact(aval_of(x).dtype)


def _lane_select(pred, on_true, on_false):
    """select per lane: pred is bool[B], the values have the batch axis at 0."""
    shp = aval_of(on_true).shape
    if len(shp) > 1:
        pred = broadcast_in_dim_p.bind(pred, shape=tuple(shp), broadcast_dimensions=(0,))
    return select_p.bind(pred, on_true, on_false)


def close_branches(graphs) -> tuple:
    """(graphs taking everything any of them captures as leading inputs, those values): the
    branches of one cond must take the same operands."""
    consts, where = [], {}
    for g in graphs:
        for v, c in zip(g.constvars, g.consts, strict=True):
            if id(c) not in where:
                where[id(c)] = len(consts)
                consts.append((c, v.aval))
    closed = []
    for g in graphs:
        mine = {id(c): v for v, c in zip(g.constvars, g.consts, strict=True)}
        cv = tuple(mine.get(id(c)) or Var(a) for c, a in consts)
        closed.append(intern_graph(Graph(cv + tuple(g.invars), (), (), g.eqns, g.outvars)))
    return tuple(closed), [c for c, _ in consts]


def _nonzero(tangents) -> list:
    return [type(t) is not Zero for t in tangents]


def _tangents_out(vals, nonzero, avals) -> list:
    """Tangent outputs: the values where ``nonzero``, symbolic zeros elsewhere."""
    it = iter(vals)
    return [next(it) if nz else Zero(tangent_aval(a)) for nz, a in zip(nonzero, avals, strict=True)]


def _residual(r, computed, inputs):
    """The value of a residual descriptor of frontend.interpreters.transpose.LinearizedGraph."""
    kind, v = r
    return computed[v] if kind == "out" else inputs[v] if kind == "in" else v


# ----------------------------------------------------------------------------- cond


# platform_index(; platforms): the index of the tuple of ``platforms`` that holds the platform
# the program is lowered for (None: the default, for any other), an int32 scalar chosen at
# lowering (the rules are per platform, lowering/emit/control.py); what platform_dependent's
# cond takes.
platform_index_p = Primitive("platform_index")


@platform_index_p.def_abstract_eval
def _platform_index_abstract_eval(*, platforms):
    return Aval((), _I32)


platform_index_p.def_jvp(zero_jvp(platform_index_p))


def platform_branch(platforms: tuple, platform: str) -> int:
    """The branch of ``platform`` in platform_index's ``platforms``; ValueError without one."""
    default = None
    for k, ps in enumerate(platforms):
        if ps is None:
            default = k
        elif platform in ps:
            return k
    if default is None:
        raise ValueError(f"platform_dependent has no branch for platform {platform!r} (branches "
                         f"for {[p for ps in platforms if ps for p in ps]}) and no default")
    return default



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
                typematch(v.aval, a) for v, a in zip(g.invars, ops, strict=True)):
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
    mask = batching.lane_mask()  # the lanes running this cond (None: all)
    n_in = len(ops)
    if idx_dim is None:
        out_b = [False] * len(branches[0].outvars)
        for g in branches:
            out_b = [a or b for a, b in zip(out_b, batch_graph(g, axis_size, op_dims)[1], strict=True)]
        new = [batch_graph(g, axis_size, op_dims, out_b, masked=mask is not None)[0] for g in branches]
        if any(len(g.invars) > n_in for g in new):  # a branch reads the lane mask
            new = [_with_mask(g, n_in, axis_size) for g in new]
            ops = [*ops, mask]
        gs, consts = close_branches(new)
        outs = cond_p.bind(index, *consts, *ops, branches=gs)
        return outs, [0 if b else None for b in out_b]
    # batched predicate: each lane selects its branch's result. Branch k runs on the lanes
    # taking it (its lane mask, read by a while loop inside); an expensive branch (the cost
    # model, config.vmap_cond) is guarded by a cond on "some lane takes it", a cheap one runs
    # on every lane. Branch k sees its inexact operands only in its own lanes: elsewhere
    # behind a stop_gradient, so an untaken branch's nan derivative never reaches them (JAX).
    n_out = len(branches[0].outvars)
    index = moveaxis(index, idx_dim, 0)
    in_dims = [0 if _inexact(x) else d for x, d in zip(ops, op_dims, strict=True)]

    def run(bg, hit, lanes, *xs):
        # (inside the guard, so that XLA sees the broadcasts and selects with the branch)
        xs = [bdim_at(x, d, axis_size, 0) if _inexact(x) else x for x, d in zip(xs, op_dims, strict=True)]
        xs = [_lane_select(hit, x, stop_gradient_p.bind(x)) if _inexact(x) else x for x in xs]
        return inline_graph(bg, xs + ([lanes] if len(bg.invars) > n_in else []))

    results = []
    for k, g in enumerate(branches):
        hit = eq_p.bind(index, literal(k, _I32))
        lanes = hit if mask is None else and_p.bind(hit, mask)
        bg = batch_graph(g, axis_size, in_dims, [True] * n_out, masked=True)[0]
        if guard_branch(g, axis_size):
            results.append(_guarded(lanes, functools.partial(run, bg), [hit, lanes, *ops]))
        else:
            results.append(run(bg, hit, lanes, *ops))
    outs = list(results[-1])
    for k in range(len(branches) - 2, -1, -1):
        hit = eq_p.bind(index, literal(k, _I32))
        outs = [_lane_select(hit, r, o) for r, o in zip(results[k], outs, strict=True)]
    # an operand every branch returns as it is needs no select: it is returned as given, with
    # its own batch axis (or none)
    fwd = _forwarded(branches)
    return ([o if j is None else ops[j] for o, j in zip(outs, fwd, strict=True)],
            [0 if j is None else op_dims[j] for j in fwd])


def _guarded(lanes, fn, operands) -> list:
    """``fn(*operands)`` if any of ``lanes`` (bool[B]) is set, else zeros of its output types:
    an ordinary cond (so its jvp and transpose rules apply to the guarded form)."""
    taken = convert_element_type_p.bind(reduce_or_p.bind(lanes, axes=(0,)), new_dtype=_I32,
                                        weak_type=False)
    avals = [aval_of(x) for x in operands]
    run = trace_graph(fn, avals)
    skip = trace_graph(lambda *a: [zeros_like_aval(o) for o in run.out_avals], avals)
    gs, consts = close_branches([skip, run])
    return cond_p.bind(taken, *consts, *operands, branches=gs)


# programs batched under another vmap_cond are stale
on_vmap_cond_change(rule_replaced)

# A branch doing at least this many element operations over all lanes is guarded in "auto"
# mode (a guard costs a reduction and a conditional, and the branch no longer fuses with
# its neighbours: elementwise work below this runs faster as a select).
GUARD_WORK = 1 << 22
_UNBOUNDED = float("inf")


def guard_branch(g: Graph, size: int) -> bool:
    """Whether vmap guards this cond branch (batched over ``size`` lanes) by "some lane takes
    it": per ``config.vmap_cond``; in "auto" mode when it holds a loop, a dot, a convolution,
    a custom call, or at least GUARD_WORK element operations. A branch that reads none of its
    operands (constants, such as the zeros of a guard batched by an outer vmap) is never
    guarded: there is no work worth skipping."""
    mode = config.vmap_cond
    ins = set(g.invars)
    if mode == "select" or not any(not ins.isdisjoint(e.inputs) for e in g.eqns):
        return False
    return mode == "guarded" or graph_work(g) * size >= GUARD_WORK


def _size(a: Aval) -> int:
    return int(np.prod(a.shape, dtype=np.int64))


def graph_work(g: Graph) -> float:
    """A per-example estimate of the element operations of ``g``: output elements for most
    equations, the largest branch for a cond; unbounded for a loop, a dot, a convolution and a
    custom call (an equation naming a foreign target)."""
    work = 0.0
    for e in g.eqns:
        if e.prim in _HEAVY or "target_name" in e.params:
            return _UNBOUNDED
        if e.prim is cond_p:
            work += max(graph_work(b) for b in e.params["branches"])
        else:
            work += sum(_size(o.aval) for o in e.outs) + sum(graph_work(sub) for sub in subgraphs(e))
    return work


def _forwarded(branches) -> list:
    """Per output: the index of the operand that every branch returns unchanged, or None."""
    per_branch = []
    for g in branches:
        pos = {v: j for j, v in enumerate(g.invars)}
        per_branch.append([pos.get(o) if type(o) is Var else None for o in g.outvars])
    return [js[0] if len(set(js)) == 1 else None for js in zip(*per_branch, strict=True)]


@cond_p.def_jvp
def _cond_jvp(primals, tangents, *, branches):
    # a primal cond returning every branch's residuals (zeros for the other branches'), and a
    # tangent cond whose branches are the linear halves
    index, ops = primals[0], list(primals[1:])
    nz = _nonzero(tangents[1:])
    n_out = len(branches[0].outvars)
    out_nz = [False] * n_out
    for g in branches:
        out_nz = [a or b for a, b in zip(out_nz, _transpose.jvp_graph(g, nz, [False] * n_out)[1], strict=True)]
    lins = [_transpose.linearize_graph(g, nz, out_nz) for g in branches]
    slots = [(k, j, l.res_avals[i]) for k, l in enumerate(lins)
             for i, (kind, j) in enumerate(l.res) if kind == "out"]
    op_avals = [aval_of(o) for o in ops]

    def primal_branch(k):
        lin = lins[k]

        def fn(*xs):
            outs = eval_graph(lin.primal, (), list(lin.primal_consts) + list(xs))
            return outs[:n_out] + [outs[n_out + j] if kk == k else zeros_like_aval(a)
                                   for kk, j, a in slots]
        return trace_graph(fn, op_avals)

    gs, consts = close_branches([primal_branch(k) for k in range(len(branches))])
    outs = cond_p.bind(index, *consts, *ops, branches=gs)
    p_out, res = outs[:n_out], outs[n_out:]
    t_in = [t for t in tangents[1:] if type(t) is not Zero]

    def tangent_branch(k):
        lin = lins[k]

        def fn(*a):
            xs, slot_vals, ts = a[:len(ops)], a[len(ops):len(ops) + len(slots)], a[len(ops) + len(slots):]
            mine = [v for (kk, _, _), v in zip(slots, slot_vals, strict=True) if kk == k]
            rs = [_residual(r, mine, xs) for r in lin.res]
            return eval_graph(lin.linear, (), list(lin.linear_consts) + rs + list(ts))
        return trace_graph(fn, op_avals + [a for _, _, a in slots] + [aval_of(t) for t in t_in])

    gs, consts = close_branches([tangent_branch(k) for k in range(len(branches))])
    touts = cond_p.bind(index, *consts, *ops, *res, *t_in, branches=gs)
    return p_out, _tangents_out(touts, out_nz, [aval_of(o) for o in p_out])


def _reopen(g: Graph, consts) -> Graph:
    """A closed graph whose leading inputs are ``consts``, as a graph capturing them."""
    n = len(consts)
    return Graph(g.invars[n:], g.invars[:n], tuple(consts), g.eqns, g.outvars)


@cond_p.def_transpose
def _cond_transpose(cts, index, *ops, branches):
    # each branch transposed; the known operands (residuals) pass through
    if is_undefined_primal(index):
        raise TypeError("cond is not linear in its branch index")
    lin = [is_undefined_primal(o) for o in ops]
    known = [o for o, is_lin in zip(ops, lin, strict=True) if not is_lin]
    cts = [instantiate_zeros(c) for c in cts]
    gs, consts = close_branches([_reopen(*_transpose.transpose_graph(g, lin)) for g in branches])
    out = cond_p.bind(index, *consts, *known, *cts, branches=gs)
    it = iter(out)
    return [None] + [next(it) if is_lin else None for is_lin in lin]


# ----------------------------------------------------------------------------- while


def _passthrough(body: Graph, nconsts: int) -> list:
    """Carry entries the body returns unchanged (the output is the input variable)."""
    ins = body.invars[nconsts:]
    return [o is i for o, i in zip(body.outvars, ins, strict=True)]


# while(*cond_consts, *body_consts, *carry; cond_graph, body_graph, cond_nconsts,
# body_nconsts): carry = body(body_consts, carry) while cond(cond_consts, carry).
while_p = Primitive("while", multiple_results=True)
while_p.param_aliases = {"cond_jaxpr": "cond_graph", "body_jaxpr": "body_graph"}  # (JAX's names)


@while_p.def_abstract_eval
def _while_abstract_eval(*avals, cond_graph, body_graph, cond_nconsts, body_nconsts):
    cc = avals[:cond_nconsts]
    bc = avals[cond_nconsts:cond_nconsts + body_nconsts]
    carry = avals[cond_nconsts + body_nconsts:]
    for what, g, ins in (("cond", cond_graph, cc + carry), ("body", body_graph, bc + carry)):
        if len(g.invars) != len(ins) or not all(
                typematch(v.aval, a) for v, a in zip(g.invars, ins, strict=True)):
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
        pred_b = batch_graph(cond_graph, axis_size, list(ccd) + cd)[1][0]
        out_b = batch_graph(body_graph, axis_size, list(bcd) + cd)[1]
        new = [a or b or (pred_b and not p) for a, b, p in zip(carry_b, out_b, passthrough, strict=True)]
        if new == carry_b:
            break
        carry_b = new
    cd = [0 if b else None for b in carry_b]
    init = [bdim_at(x, d, axis_size, 0) if b else x for x, d, b in zip(init, initd, carry_b, strict=True)]
    out_dims = [0 if b else None for b in carry_b]
    mask = batching.lane_mask()  # the lanes running this loop (None: all)
    # the body runs for the lanes in the mask (all of them under an unbatched predicate), or
    # for the active ones: a loop or cond inside reads that mask
    if not pred_b:
        body_b = batch_graph(body_graph, axis_size, list(bcd) + cd, carry_b,
                             masked=mask is not None)[0]
        body_reads = len(body_b.invars) > len(body_graph.invars)
        cond_b = batch_graph(cond_graph, axis_size, list(ccd) + cd)[0]
        if body_reads:  # the mask is the body's first const
            body_b, bc, nb = _with_mask(body_b, len(body_graph.invars), axis_size, first=True), [mask, *bc], nb + 1
        outs = while_p.bind(*cc, *bc, *init, cond_graph=cond_b, body_graph=body_b,
                         cond_nconsts=nc, body_nconsts=nb)
        return outs, out_dims
    # batched predicate: loop while any lane is active (its predicate holds, and it is in the
    # lane mask); inactive lanes keep their carry
    loop = functools.partial(_lanes_loop, cond_graph, body_graph, carry_b)
    q = axis_size // 4
    rule = batching.rule_axis()
    if q < 2 or rule is None or rule.axis_name is not None or rule.spmd_axis_name is not None \
            or config.vmap_cond == "select" or graph_work(body_graph) * axis_size < COMPACT_WORK:
        return loop(axis_size, cc, ccd, bc, bcd, init, mask)[0], out_dims
    # an expensive body: once at most a quarter of the lanes are active, those lanes are
    # gathered into a batch of a quarter size that loops on, and scattered back
    outs, active = loop(axis_size, cc, ccd, bc, bcd, init, mask, more_than=q)
    on = convert_element_type_p.bind(active(outs), new_dtype=_I32, weak_type=False)
    idx = top_k_p.bind(on, k=q, axis=0)[1]
    cc = [x if d is None else _take_lanes(moveaxis(x, d, 0), idx) for x, d in zip(cc, ccd, strict=True)]
    bc = [x if d is None else _take_lanes(moveaxis(x, d, 0), idx) for x, d in zip(bc, bcd, strict=True)]
    part = [_take_lanes(x, idx) if b else x for x, b in zip(outs, carry_b, strict=True)]
    part = loop(q, cc, [None if d is None else 0 for d in ccd], bc,
                [None if d is None else 0 for d in bcd], part,
                None if mask is None else _take_lanes(mask, idx))[0]
    return [_put_lanes(x, idx, y) if b else y for x, y, b in zip(outs, part, carry_b, strict=True)], \
        out_dims


# A batched while loop whose body does at least this many element operations per step over
# all lanes (or holds a dot, a loop, ...) compacts its active lanes, unless vmap_cond is
# "select" (JAX's way); bench_cond.py: lanes finishing after 1-3 steps and 1 in 16 after 64
# run in 0.2-0.3x of the time of the loop stepping every lane to the end.
COMPACT_WORK = 1 << 22


def _take_lanes(x, idx):
    """x's lanes (axis 0) idx[0], idx[1], ... (one gather)."""
    shp = aval_of(x).shape
    return gather_p.bind(x, idx, offset_dims=tuple(range(1, len(shp))), collapsed_slice_dims=(0,),
                         start_index_map=(0,), operand_batching_dims=(),
                         start_indices_batching_dims=(), index_vector_dim=1,
                         slice_sizes=(1,) + tuple(shp[1:]), indices_are_sorted=False,
                         mode="promise_in_bounds")


def _put_lanes(x, idx, y):
    """x with lane idx[k] (axis 0) replaced by y's lane k (one scatter; idx distinct)."""
    r = aval_of(x).ndim
    return scatter_p.bind(x, idx, y, update_window_dims=tuple(range(1, r)),
                          inserted_window_dims=(0,), input_batching_dims=(),
                          scatter_indices_batching_dims=(), scatter_dims_to_operand_dims=(0,),
                          index_vector_dim=1, indices_are_sorted=False, unique_indices=True)


def _lanes_loop(cond_graph, body_graph, carry_b, size, cc, ccd, bc, bcd, init, mask, more_than=0):
    """(outputs, active): the while loop over ``size`` lanes with a batched predicate, run
    while more than ``more_than`` lanes are active (their predicate holds, and they are in
    ``mask``); inactive lanes keep their carry. ``active(carry)`` gives the active lanes of a
    carry. Batched carries (``carry_b``) are at axis 0, consts at ``ccd``/``bcd``."""
    nc, nb = len(cc), len(bc)
    cd = [0 if b else None for b in carry_b]
    cond_lanes = batch_graph(cond_graph, size, list(ccd) + cd, masked=mask is not None)[0]
    cond_reads = len(cond_lanes.invars) > len(cond_graph.invars)
    body_b = batch_graph(body_graph, size, list(bcd) + cd, carry_b, masked=True)[0]
    body_reads = len(body_b.invars) > len(body_graph.invars)
    if mask is not None:
        cc, nc = [*cc, mask], nc + 1
    cc_avals = [aval_of(x) for x in cc]
    bc_avals = [aval_of(x) for x in bc]
    carry_avals = [aval_of(x) for x in init]

    def active(c_in, carry):
        m = list(c_in[-1:]) if mask is not None else []
        (pred,) = inline_graph(cond_lanes, list(c_in[:len(c_in) - len(m)]) + list(carry)
                               + (m if cond_reads else []))
        return and_p.bind(pred, m[0]) if m else pred

    def keep_going(*a):
        on = active(a[:nc], a[nc:])
        if not more_than:
            return [reduce_or_p.bind(on, axes=(0,))]
        n = reduce_sum_p.bind(convert_element_type_p.bind(on, new_dtype=_I32, weak_type=False), axes=(0,))
        return [gt_p.bind(n, literal(more_than, _I32))]

    def step(*a):
        c_in, b_in, carry = a[:nc], a[nc:nc + nb], a[nc + nb:]
        pred = active(c_in, carry)
        new = inline_graph(body_b, list(b_in) + list(carry) + ([pred] if body_reads else []))
        return [_lane_select(pred, n, o) if b else n
                for n, o, b in zip(new, carry, carry_b, strict=True)]

    cond_g = intern_graph(trace_graph(keep_going, cc_avals + carry_avals))
    body_g = intern_graph(trace_graph(step, cc_avals + bc_avals + carry_avals))
    outs = while_p.bind(*cc, *cc, *bc, *init, cond_graph=cond_g, body_graph=body_g,
                        cond_nconsts=nc, body_nconsts=nc + nb)
    return outs, functools.partial(active, cc)


@while_p.def_jvp
def _while_jvp(primals, tangents, *, cond_graph, body_graph, cond_nconsts, body_nconsts):
    # the primal loop, and a loop carrying the tangents along (it recomputes the primal carry:
    # under reverse mode the primal results must not depend on tangents, and that loop, the
    # linear half, raises JAX's error when transposed: it would need the trip count)
    nc, nb = cond_nconsts, body_nconsts
    cc, bc, init = primals[:nc], primals[nc:nc + nb], primals[nc + nb:]
    nz_b, carry_nz = _nonzero(tangents[nc:nc + nb]), _nonzero(tangents[nc + nb:])
    nk = len(init)
    while True:
        out_nz = _transpose.jvp_graph(body_graph, nz_b + carry_nz, [False] * nk)[1]
        new = [a or b for a, b in zip(carry_nz, out_nz, strict=True)]
        if new == carry_nz:
            break
        carry_nz = new
    if not any(carry_nz):  # no tangent reaches the carry: no tangent loop (JAX's as well)
        outs = while_p.bind(*primals, cond_graph=cond_graph, body_graph=body_graph,
                            cond_nconsts=nc, body_nconsts=nb)
        return outs, _tangents_out([], carry_nz, [aval_of(x) for x in init])
    body, _, consts = _transpose.jvp_graph(body_graph, nz_b + carry_nz, carry_nz)
    # its inputs [consts, bc, carry, t_bc, t_carry] -> [consts, bc, t_bc, carry, t_carry]
    k, n_tb = len(consts) + nb, sum(nz_b)
    ins = body.invars
    body = intern_graph(Graph(ins[:k] + ins[k + nk:k + nk + n_tb] + ins[k:k + nk] + ins[k + nk + n_tb:],
                              (), (), body.eqns, body.outvars))
    t_init = [instantiate_zeros(t) for t, nz in zip(tangents[nc + nb:], carry_nz, strict=True) if nz]
    cond = intern_graph(Graph(tuple(cond_graph.invars) + tuple(Var(aval_of(t)) for t in t_init),
                              (), (), cond_graph.eqns, cond_graph.outvars))
    t_bc = [t for t in tangents[nc:nc + nb] if type(t) is not Zero]
    p_out = while_p.bind(*primals, cond_graph=cond_graph, body_graph=body_graph,
                         cond_nconsts=nc, body_nconsts=nb)
    outs = while_p.bind(*cc, *consts, *bc, *t_bc, *init, *t_init, cond_graph=cond, body_graph=body,
                        cond_nconsts=nc, body_nconsts=len(consts) + nb + len(t_bc))
    return p_out, _tangents_out(outs[nk:], carry_nz, [aval_of(x) for x in init])


@while_p.def_transpose
def _while_transpose(cts, *args, **params):
    raise ValueError("Reverse-mode differentiation does not work for lax.while_loop or "
                     "lax.fori_loop with dynamic start/stop values. Try using lax.scan, or "
                     "using fori_loop with static start/stop.")


# ----------------------------------------------------------------------------- scan


# scan(*consts, *carry, *xs; body, num_consts, num_carry, length, reverse): for each
# index of the leading axis of xs (last to first when reverse), (carry, y) = body(consts,
# carry, x); results: the final carry, then the ys stacked on a new leading axis.
scan_p = Primitive("scan", multiple_results=True)
scan_p.param_aliases = {"jaxpr": "body"}  # (JAX's name)


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
            typematch(v.aval, a) for v, a in zip(body.invars, ins, strict=True)):
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
        out_b = batch_graph(body, axis_size, list(cd) + [0 if b else None for b in carry_b] + x_in)[1]
        new = [a or b for a, b in zip(carry_b, out_b[:nk], strict=True)]
        if new == carry_b:
            break
        carry_b = new
    ny = len(body.outvars) - nk
    body_b, out_b = batch_graph(body, axis_size,
                                 list(cd) + [0 if b else None for b in carry_b] + x_in,
                                 carry_b + [False] * ny)
    init = [bdim_at(x, d, axis_size, 0) if b else x for x, d, b in zip(init, initd, carry_b, strict=True)]
    outs = scan_p.bind(*consts, *init, *xs, body=body_b, num_consts=nc, num_carry=nk,
                     length=length, reverse=reverse)
    return outs, [0 if b else None for b in carry_b] + [1 if b else None for b in out_b[nk:]]


def _split(xs, sizes) -> list:
    """xs cut into consecutive lists of the given sizes."""
    parts, k = [], 0
    for n in sizes:
        parts.append(list(xs[k:k + n]))
        k += n
    return parts


def _row(a: Aval) -> Aval:
    return Aval(a.shape[1:], a.dtype, a.weak_type)


@scan_p.def_jvp
def _scan_jvp(primals, tangents, *, body, num_consts, num_carry, length, reverse):
    # a primal scan that also stacks the residuals of each step, and a tangent scan over
    # them (consts and xs serve as residuals as they are: nothing is copied)
    nc, nk = num_consts, num_carry
    consts, init, xs = primals[:nc], primals[nc:nc + nk], primals[nc + nk:]
    nz = _nonzero(tangents)
    nz_c, carry_nz, nz_x = nz[:nc], nz[nc:nc + nk], nz[nc + nk:]
    ny = len(body.outvars) - nk
    while True:
        out_nz = _transpose.jvp_graph(body, nz_c + carry_nz + nz_x, [False] * (nk + ny))[1]
        new = [a or b for a, b in zip(carry_nz, out_nz[:nk], strict=True)]
        if new == carry_nz:
            break
        carry_nz = new
    lin = _transpose.linearize_graph(body, nz_c + carry_nz + nz_x, carry_nz + [False] * ny,
                          forward_inputs=[True] * nc + [False] * nk + [True] * len(xs))
    pc = list(lin.primal_consts)
    outs = scan_p.bind(*pc, *consts, *init, *xs, body=intern_graph(lin.primal),
                       num_consts=len(pc) + nc, num_carry=nk, length=length, reverse=reverse)
    p_out, stacked = outs[:nk + ny], outs[nk + ny:]
    # tangent scan: consts [linear consts, const-like residuals, const tangents], carry the
    # carry tangents, xs [row-like residuals, xs tangents]
    inputs = list(primals)
    c_res = [i for i, r in enumerate(lin.res) if r[0] == "const" or (r[0] == "in" and r[1] < nc)]
    x_res = [i for i in range(len(lin.res)) if i not in c_res]
    c_vals = [_residual(lin.res[i], stacked, inputs) for i in c_res]
    x_vals = [_residual(lin.res[i], stacked, inputs) for i in x_res]
    lc = list(lin.linear_consts)
    t_c = [t for t in tangents[:nc] if type(t) is not Zero]
    t_init = [instantiate_zeros(t) for t, z in zip(tangents[nc:nc + nk], carry_nz, strict=True) if z]
    t_x = [t for t in tangents[nc + nk:] if type(t) is not Zero]
    sizes = [len(g) for g in (lc, c_vals, t_c, t_init, x_vals, t_x)]

    def step(*a):
        lcs, cv, tc, tk, xv, tx = _split(a, sizes)
        rs = [None] * len(lin.res)
        for i, v in zip(c_res + x_res, cv + xv, strict=True):
            rs[i] = v
        return eval_graph(lin.linear, (), lcs + rs + tc + tk + tx)

    avals = ([aval_of(v) for v in lc + c_vals + t_c + t_init]
             + [_row(aval_of(v)) for v in x_vals + t_x])
    t_body, t_consts = closure_convert(trace_graph(step, avals))
    n_tc = len(t_consts) + len(lc) + len(c_vals) + len(t_c)
    touts = scan_p.bind(*t_consts, *lc, *c_vals, *t_c, *t_init, *x_vals, *t_x, body=t_body,
                        num_consts=n_tc, num_carry=len(t_init), length=length, reverse=reverse)
    y_nz = lin.out_nonzero[nk:]
    return p_out, _tangents_out(touts, carry_nz + list(y_nz), [aval_of(o) for o in p_out])


@scan_p.def_transpose
def _scan_transpose(cts, *args, body, num_consts, num_carry, length, reverse):
    # a scan backwards: carry the cotangents of the carry and accumulate those of the linear
    # consts; the linear xs get theirs stacked; residual consts and xs are read as they are
    nc, nk = num_consts, num_carry
    consts, init, xs = args[:nc], args[nc:nc + nk], args[nc + nk:]
    c_lin = [is_undefined_primal(c) for c in consts]
    x_lin = [is_undefined_primal(x) for x in xs]
    tb, tb_consts = _transpose.transpose_graph(body, c_lin + [True] * nk + x_lin)
    res_c = [c for c, lin in zip(consts, c_lin, strict=True) if not lin]
    res_x = [x for x, lin in zip(xs, x_lin, strict=True) if not lin]
    acc = [zeros_like_aval(tangent_aval(c.aval)) for c, lin in zip(consts, c_lin, strict=True) if lin]
    ct_carry = [instantiate_zeros(c) for c in cts[:nk]]
    ct_ys = [instantiate_zeros(c) for c in cts[nk:]]
    sizes = [len(tb_consts), len(res_c), len(acc), nk, len(res_x), len(ct_ys)]

    def step(*a):
        tbc, rc, ac, cc, rx, cy = _split(a, sizes)
        outs = eval_graph(tb, (), tbc + rc + rx + cc + cy)
        d_c, d_carry, d_x = outs[:len(ac)], outs[len(ac):len(ac) + nk], outs[len(ac) + nk:]
        return [add_tangents(a, d) for a, d in zip(ac, d_c, strict=True)] + d_carry + d_x

    avals = ([aval_of(v) for v in list(tb_consts) + res_c + acc + ct_carry]
             + [_row(aval_of(v)) for v in res_x + ct_ys])
    t_body, t_consts = closure_convert(trace_graph(step, avals))
    outs = scan_p.bind(*t_consts, *tb_consts, *res_c, *acc, *ct_carry, *res_x, *ct_ys,
                       body=t_body, num_consts=len(t_consts) + len(tb_consts) + len(res_c),
                       num_carry=len(acc) + nk, length=length, reverse=not reverse)
    ct_c, ct_init, ct_x = outs[:len(acc)], outs[len(acc):len(acc) + nk], outs[len(acc) + nk:]
    it_c, it_x = iter(ct_c), iter(ct_x)
    return ([next(it_c) if lin else None for lin in c_lin]
            + [c if is_undefined_primal(x) else None for c, x in zip(ct_init, init, strict=True)]
            + [next(it_x) if lin else None for lin in x_lin])


_HEAVY = (while_p, scan_p, dot_general_p, conv_general_dilated_p)


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
