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
"""
from __future__ import annotations

import math

from .. import batching
from ..core import Aval, Graph, Primitive
from ..sharding import NamedSharding, PartitionSpec
from .control import batch_graph
from .shape import moveaxis

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


# ----------------------------------------------------------------------------- shard_map


shard_map_p = Primitive("shard_map", multiple_results=True)


@shard_map_p.def_abstract_eval
def _shard_map_abstract_eval(*avals, body: Graph, mesh, in_specs, out_specs):
    if not (len(avals) == len(body.invars) == len(in_specs)) or \
            len(out_specs) != len(body.outvars):
        raise TypeError(f"shard_map: {len(avals)} operands and {len(in_specs)} in_specs for a "
                        f"body of {len(body.invars)} inputs; {len(out_specs)} out_specs for "
                        f"{len(body.outvars)} outputs")
    for k, (a, v, dims) in enumerate(zip(avals, body.invars, in_specs)):
        if len(dims) != a.ndim:
            raise TypeError(f"shard_map operand {k} of shape {a.shape} has an in_spec of "
                            f"{len(dims)} dimensions")
        for n, t in zip(a.shape, tiling(mesh, dims)):
            if n % t:
                raise ValueError(f"shard_map operand {k} of shape {a.shape}: the mesh axes "
                                 f"{dims} do not divide it evenly")
        if local_shape(a.shape, dims, mesh) != v.aval.shape or a.dtype != v.aval.dtype:
            raise TypeError(f"shard_map operand {k} of type {a.str_short()} has per-device "
                            f"type {v.aval.str_short()} in the body, expected the shape "
                            f"{local_shape(a.shape, dims, mesh)} and dtype {a.dtype}")
    outs = []
    for v, dims in zip(body.outvars, out_specs):
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
                 for s, b in zip(out_specs, batched))
    res = shard_map_p.bind(*ops, body=g, mesh=mesh, in_specs=tuple(specs), out_specs=outs)
    return res, [0 if b else None for b in batched]
