"""Primitives for programs over a device mesh (XLA's SPMD partitioner, Shardy):

- ``sharding_constraint(x; sharding)``: x, constrained to be laid out as ``sharding`` (a
  NamedSharding) at that point of the program (``sdy.sharding_constraint``); the wrapper is
  ``lax.with_sharding_constraint``.
- ``shard_map(*xs; body, mesh, in_specs, out_specs)``: ``body`` (a Graph of one device's
  work, on local shapes) run on every device of ``mesh`` on its shard of each operand
  (``sdy.manual_computation``); its collectives (psum, all_gather, ...) work across the mesh
  axes. ``in_specs``/``out_specs`` give, per operand / result, the mesh axes of each
  dimension (a tuple of tuples of names, one per dimension). The wrapper is
  ``frontend.shard_map``.

Batching: a vmap with ``spmd_axis_name`` (mesh axes) shards the batch axis over them: the
constraint's spec and the shard_map's specs get those axes at the batch dimension (None
without it), as JAX's rules do.

Autodiff: the constraint is linear (its transpose constrains the cotangent the same way).
shard_map's jvp is a shard_map of the body's jvp (tangents sharded as their primals); its
transpose is a shard_map of the body's backward pass, where, as in JAX's shard_map without
replication checking, the collectives transpose as under vmap (psum to psum, all_gather to
psum_scatter, ...): the cotangent of a result replicated over some mesh axes is split evenly
between those devices, and that of an operand replicated over some is summed over them.
"""
from __future__ import annotations

import math

from ..core.dtypes import float0, is_inexact
from ..core.graph_utils import closure_convert
from ..core.ir import Aval, Graph, Literal, Primitive, aval_of, eval_graph, literal
from ..core.params import intern_graph
from ..core.tracing import trace_graph
from ..interpreters import batching, named_axes
from ..interpreters import transpose as _transpose  # (module: transpose imports primitives)
from ..interpreters.ad_util import Zero, is_undefined_primal, tangent_aval
from ..sharding import NamedSharding, PartitionSpec
from .collectives import (
    all_gather_p,
    all_to_all_p,
    axis_index_p,
    pmax_p,
    pmin_p,
    ppermute_p,
    psum_p,
    reduce_scatter_p,
)
from .control import _nonzero, _residual, _tangents_out, batch_graph
from .elementwise import div_p
from .shape import instantiate_zeros, linear_jvp, moveaxis, reshape_p

# ----------------------------------------------------------------------------- specs


def spec_entries(dims) -> tuple:
    """PartitionSpec entries of per-dimension axis tuples (() -> None, (a,) -> a)."""
    return tuple(None if not d else d[0] if len(d) == 1 else tuple(d) for d in dims)


def tiling(mesh, dims) -> list:
    """How many pieces each dimension is cut into by its mesh axes."""
    sizes = mesh.shape
    return [math.prod(sizes[n] for n in d) for d in dims]


def local_shape(shape, dims, mesh) -> tuple:
    return tuple(n // t for n, t in zip(shape, tiling(mesh, dims), strict=True))


def global_shape(shape, dims, mesh) -> tuple:
    return tuple(n * t for n, t in zip(shape, tiling(mesh, dims), strict=True))


def insert_axes(dims, d: int, names: tuple, what: str) -> tuple:
    """``dims`` with a dimension at ``d`` split over the mesh axes ``names`` (the batch axis
    of a vmap with spmd_axis_name)."""
    used = {n for e in dims for n in e}
    for n in names:
        if n in used:
            raise ValueError(f"vmap spmd_axis_name {n!r} is already used by {what} "
                             f"{PartitionSpec(*spec_entries(dims))!r}")
    return tuple(dims[:d]) + (tuple(names),) + tuple(dims[d:])


def _spmd_axes(mesh) -> tuple:
    """The spmd_axis_name of the vmap running a rule, checked against ``mesh``."""
    t = batching.rule_axis()
    names = t.spmd_axis_name or ()
    for n in names:
        if n not in mesh.axis_names:
            raise ValueError(f"vmap spmd_axis_name {n!r} is not an axis of the mesh "
                             f"{mesh.axis_names}")
    return names


# ----------------------------------------------------------------------------- varying axes
# (shard_map's check of out_specs, as JAX's check_vma, and the specs of its residuals)

_KEEP = (psum_p, pmax_p, pmin_p)
_VARY = (reduce_scatter_p, all_to_all_p, ppermute_p)


def varying_axes(g: Graph, in_vary: list, mesh_names: set) -> list:
    """For each output of the shard_map body ``g``: the mesh axes along which it may differ
    between devices, given those of its inputs (``in_vary``, one set per invar). An all-reduce
    or all_gather over an axis makes a value the same along it; axis_index and the collectives
    that hand devices different pieces make it differ; other primitives differ where their
    operands do (or where a sub-graph's collectives name an axis, conservatively)."""
    env = dict(zip(g.invars, in_vary, strict=True))
    none = frozenset()

    def read(a):
        return none if isinstance(a, Literal) else env.get(a, none)

    for e in g.eqns:
        ins = none.union(*(read(x) for x in e.inputs))
        p = e.prim
        if p in _KEEP:
            out = ins - set(e.params["axes"])
        elif p is all_gather_p:
            out = ins - set(e.params["axis_name"])
        elif p in _VARY:
            out = ins | set(e.params["axis_name"])
        elif p is axis_index_p:
            out = frozenset({e.params["axis_name"]})
        else:
            out = ins | (named_axes.names_in_params(e.params) & mesh_names)
        for o in e.outs:
            env[o] = out
    return [read(v) for v in g.outvars]


# ----------------------------------------------------------------------------- sharding_constraint


sharding_constraint_p = Primitive("sharding_constraint")


@sharding_constraint_p.def_abstract_eval
def _sharding_constraint_abstract_eval(x, *, sharding):
    if not isinstance(sharding, NamedSharding):
        raise TypeError(f"sharding_constraint takes a NamedSharding, got {sharding!r}")
    sharding.check_rank(x.ndim, "One of with_sharding_constraint arguments")
    return x


@sharding_constraint_p.def_batching
def _sharding_constraint_batch(args, dims, *, sharding):
    # the batch axis stays; the spec gets the vmap's spmd axes (or None) there
    (x,), (d,) = args, dims
    names = _spmd_axes(sharding.mesh)
    per_dim = sharding.dims(batching.ndim(x) - 1)
    new = insert_axes(per_dim, d, names, "the sharding constraint")
    return sharding_constraint_p.bind(x, sharding=sharding.with_spec(spec_entries(new))), d


sharding_constraint_p.def_jvp(linear_jvp(sharding_constraint_p))
sharding_constraint_p.def_transpose(
    lambda ct, x, *, sharding: [sharding_constraint_p.bind(ct, sharding=sharding)])


# ----------------------------------------------------------------------------- shard_map


shard_map_p = Primitive("shard_map", multiple_results=True)
shard_map_p.param_aliases = {"jaxpr": "body"}  # (JAX's name)


@shard_map_p.def_abstract_eval
def _shard_map_abstract_eval(*avals, body: Graph, mesh, in_specs, out_specs):
    if not (len(avals) == len(body.invars) == len(in_specs)) or \
            len(out_specs) != len(body.outvars):
        raise TypeError(f"shard_map: {len(avals)} operands and {len(in_specs)} in_specs for a "
                        f"body of {len(body.invars)} inputs; {len(out_specs)} out_specs for "
                        f"{len(body.outvars)} outputs")
    for k, (a, v, dims) in enumerate(zip(avals, body.invars, in_specs, strict=True)):
        if len(dims) != a.ndim:
            raise TypeError(f"shard_map operand {k} of shape {a.shape} has an in_spec of "
                            f"{len(dims)} dimensions")
        for n, t in zip(a.shape, tiling(mesh, dims), strict=True):
            if n % t:
                raise ValueError(f"shard_map operand {k} of shape {a.shape}: the mesh axes "
                                 f"{dims} do not divide it evenly")
        if local_shape(a.shape, dims, mesh) != v.aval.shape or a.dtype != v.aval.dtype:
            raise TypeError(f"shard_map operand {k} of type {a.str_short()} has per-device "
                            f"type {v.aval.str_short()} in the body, expected the shape "
                            f"{local_shape(a.shape, dims, mesh)} and dtype {a.dtype}")
    outs = []
    for v, dims in zip(body.outvars, out_specs, strict=True):
        if len(dims) != v.aval.ndim:
            raise TypeError(f"shard_map result of type {v.aval.str_short()} has an out_spec of "
                            f"{len(dims)} dimensions")
        outs.append(Aval(global_shape(v.aval.shape, dims, mesh), v.aval.dtype, v.aval.weak_type))
    return outs


@shard_map_p.def_batching
def _shard_map_batch(args, dims, *, body, mesh, in_specs, out_specs):
    # batched operands and results carry the batch axis at 0, split over the vmap's spmd
    # axes (unsplit without them); the body is vmapped over the per-device batch
    names = _spmd_axes(mesh)
    size = batching.axis_size(args, dims)
    split = math.prod(mesh.shape[n] for n in names)
    if size % split:
        raise ValueError(f"vmap spmd_axis_name {names}: the batch size {size} is not divisible "
                         f"by the size {split} of those mesh axes")
    ops, specs, in_dims = [], [], []
    for x, d, spec in zip(args, dims, in_specs, strict=True):
        if d is None:
            ops.append(x), specs.append(spec), in_dims.append(None)
        else:
            ops.append(moveaxis(x, d, 0))
            specs.append(insert_axes(spec, 0, names, "the shard_map in_specs entry"))
            in_dims.append(0)
    g, batched = batch_graph(body, size // split, in_dims, mesh_axes=mesh.shape)
    outs = tuple(insert_axes(s, 0, names, "the shard_map out_specs entry") if b else s
                 for s, b in zip(out_specs, batched, strict=True))
    res = shard_map_p.bind(*ops, body=g, mesh=mesh, in_specs=tuple(specs), out_specs=outs)
    return res, [0 if b else None for b in batched]


def _reshape(x, shape):
    return reshape_p.bind(x, new_sizes=tuple(shape), dimensions=None)


def _replicated(x) -> tuple:
    """The per-dimension axes of an operand every device holds whole."""
    return ((),) * aval_of(x).ndim


def axes_of(dims) -> frozenset:
    """The mesh axes of a spec (per-dimension tuples of names)."""
    return frozenset(n for d in dims for n in d)


def _unmentioned(axes, dims) -> tuple:
    """The mesh axes of ``axes`` a spec leaves out: the value is replicated along them."""
    used = axes_of(dims)
    return tuple(n for n in axes if n not in used)


@shard_map_p.def_jvp
def _shard_map_jvp(primals, tangents, *, body, mesh, in_specs, out_specs):
    # as JAX's partial evaluation: a primal shard_map computing the results and the
    # residuals, and a linear shard_map from the residuals and the tangents (tangents are
    # sharded as their primals). A residual that differs between devices along some mesh
    # axes leaves the primal one stacked over them on a new leading axis; one that does not
    # leaves it replicated; the linear one reads each device's own.
    nz = _nonzero(tangents)
    n = len(out_specs)
    lin = _transpose.linearize_graph(body, nz, [False] * n, mesh_axes=mesh.shape)
    pc = list(lin.primal_consts)
    vary = varying_axes(lin.primal, [frozenset()] * len(pc) + [axes_of(d) for d in in_specs],
                        set(mesh.axis_names))[n:]
    over = [tuple(a for a in mesh.axis_names if a in v) for v in vary]

    def primal(*a):
        outs = eval_graph(lin.primal, (), a)
        return outs[:n] + [_reshape(r, (1,) + aval_of(r).shape) if axes else r
                           for r, axes in zip(outs[n:], over, strict=True)]

    pg, pg_consts = closure_convert(trace_graph(primal, [v.aval for v in lin.primal.invars],
                                                mesh.shape))
    res_out_specs = tuple((axes,) + ((),) * (v.aval.ndim - 1) if axes else ((),) * v.aval.ndim
                          for v, axes in zip(pg.outvars[n:], over, strict=True))
    outs = shard_map_p.bind(*pg_consts, *pc, *primals, body=pg, mesh=mesh,
                            in_specs=tuple(_replicated(c) for c in pg_consts + pc) + in_specs,
                            out_specs=out_specs + res_out_specs)
    p_out, computed = outs[:n], outs[n:]
    res = [_residual(r, computed, primals) for r in lin.res]
    res_specs = [res_out_specs[r[1]] if r[0] == "out" else in_specs[r[1]] if r[0] == "in"
                 else _replicated(v) for r, v in zip(lin.res, res, strict=True)]
    unstack = [r[0] == "out" and bool(over[r[1]]) for r in lin.res]
    lc = list(lin.linear_consts)
    ts = [t for t in tangents if type(t) is not Zero]

    def linear(*a):
        rs = [_reshape(v, aval_of(v).shape[1:]) if u else v
              for u, v in zip(unstack, a[len(lc):len(lc) + len(res)], strict=True)]
        return eval_graph(lin.linear, (), list(a[:len(lc)]) + rs + list(a[len(lc) + len(res):]))

    avals = [aval_of(c) for c in lc] + [
        a.update(shape=local_shape(a.shape, s, mesh)) for a, s in
        zip(map(aval_of, res + ts), res_specs + [s for s, z in zip(in_specs, nz, strict=True) if z],
            strict=True)]
    tg, tg_consts = closure_convert(trace_graph(linear, avals, mesh.shape))
    touts = shard_map_p.bind(
        *tg_consts, *lc, *res, *ts, body=tg, mesh=mesh,
        in_specs=tuple(_replicated(c) for c in tg_consts + lc) + tuple(res_specs) +
        tuple(s for s, z in zip(in_specs, nz, strict=True) if z),
        out_specs=tuple(s for s, z in zip(out_specs, lin.out_nonzero, strict=True) if z))
    return p_out, _tangents_out(touts, lin.out_nonzero, [aval_of(o) for o in p_out])


@shard_map_p.def_transpose
def _shard_map_transpose(cts, *args, body, mesh, in_specs, out_specs):
    lin = [is_undefined_primal(a) for a in args]
    # results without a tangent space (integers) have no cotangent: leave them out
    keep = [tangent_aval(v.aval).dtype != float0 for v in body.outvars]
    body = Graph(body.invars, body.constvars, body.consts, body.eqns,
                 tuple(v for v, k in zip(body.outvars, keep, strict=True) if k))
    # the mesh axes the program depends on: along any other, every device computes the same
    # (its share of a result's cotangent and the sum of the shares cancel: both are left out,
    # so a vmap with that axis as spmd_axis_name can batch over it)
    used = named_axes.graph_axis_names(body).union(*map(axes_of, in_specs + out_specs))
    axes = tuple(n for n in mesh.axis_names if n in used)
    ct_in, ct_specs = [], []
    for c, dims, k in zip(cts, out_specs, keep, strict=True):
        if not k:
            continue
        c = instantiate_zeros(c)
        split = math.prod(mesh.shape[n] for n in _unmentioned(axes, dims))
        if split > 1 and is_inexact(aval_of(c).dtype):
            a = aval_of(c)  # each of the devices holding the result has its share of it
            c = div_p.bind(c, literal(split, a.dtype, a.weak_type))
        ct_in.append(c)
        ct_specs.append(dims)

    def summed(i, ct):
        over = _unmentioned(axes, in_specs[i])
        return psum_p.bind(ct, axes=over) if over else ct

    tg, consts = _transpose.transpose_graph(body, lin, mesh_axes=mesh.shape, post=summed)
    known = [a for a, is_lin in zip(args, lin, strict=True) if not is_lin]
    specs = tuple(_replicated(c) for c in consts) + \
        tuple(s for s, is_lin in zip(in_specs, lin, strict=True) if not is_lin) + tuple(ct_specs)
    outs = iter(shard_map_p.bind(*consts, *known, *ct_in, body=intern_graph(tg), mesh=mesh,
                                 in_specs=specs,
                                 out_specs=tuple(s for s, is_lin in zip(in_specs, lin, strict=True)
                                                 if is_lin)))
    return [next(outs) if is_lin else None for is_lin in lin]
