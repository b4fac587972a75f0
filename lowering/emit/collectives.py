"""Lowering rules of the named-axis collectives inside a shard_map (``ctx.manual``: its
mesh): XLA's collectives across the devices along the named mesh axes.

- psum/pmax/pmin -> ``stablehlo.all_reduce`` (the monoid as region)
- all_gather -> ``stablehlo.all_gather`` (untiled: the operand gets the new axis first)
- reduce_scatter (lax.psum_scatter) -> ``stablehlo.reduce_scatter`` (untiled: the scattered
  axis, of size 1 per device, is then dropped)
- all_to_all -> ``stablehlo.all_to_all``; ppermute -> ``stablehlo.collective_permute``
- axis_index -> ``stablehlo.partition_id`` arithmetic

Partition k runs on ``mesh.devices.flat[k]`` (the executable's device assignment), so the
replica groups are sets of partition ids (``use_global_device_ids``): the devices that differ
only in the named axes, in the order of those axes (the first major). Each collective has
its own channel.
"""
from __future__ import annotations

import math

import numpy as np

from frontend.core.ir import Aval
from frontend.primitives import collectives as co

from .reductions import monoid_region


def _mesh(ctx, what: str):
    mesh = ctx.manual
    if mesh is None:
        raise NotImplementedError(f"{what} over a named axis is lowered only inside a shard_map "
                                  "(under vmap, the vmap that names the axis resolves it)")
    return mesh


def groups(ctx, mesh, names) -> np.ndarray:
    """Partition ids of the devices that collectives over ``names`` combine: one row per
    group, ordered by the named axes (the first major)."""
    ids = ctx.partition_ids(mesh)
    axes = [mesh.axis_names.index(n) for n in names]
    rest = [k for k in range(ids.ndim) if k not in axes]
    n = math.prod(mesh.devices.shape[k] for k in axes)
    return ids.transpose(rest + axes).reshape(-1, n)


def _dense_i64(rows: np.ndarray) -> str:
    body = ", ".join("[" + ", ".join(map(str, r)) + "]" for r in rows.tolist())
    return f"dense<[{body}]> : tensor<{rows.shape[0]}x{rows.shape[1]}xi64>"


def _attrs(ctx, names, global_ids: bool = True, **extra) -> str:
    """The attribute dictionary of a collective over the mesh axes ``names``."""
    mesh = _mesh(ctx, ctx.primitive.name)
    parts = [f"{k} = {v}" for k, v in extra.items()]
    parts += [f"channel_handle = #stablehlo.channel_handle<handle = {ctx.channel()}, type = 1>",
              f"replica_groups = {_dense_i64(groups(ctx, mesh, names))}"]
    if global_ids:
        parts.append("use_global_device_ids")
    return "<{" + ", ".join(sorted(parts)) + "}>"


def _sig(ctx, ins, out: Aval) -> str:
    return f"({', '.join(ctx.type(a) for a in ins)}) -> {ctx.type(out)}"


def _reshape(ctx, x: str, a: Aval, shape) -> str:
    out = a.update(shape=tuple(shape))
    return ctx.op(f"stablehlo.reshape {x} : ({ctx.type(a)}) -> {ctx.type(out)}")


def _all_reduce(op: str):
    def rule(ctx, x, *, axes):
        (a,), (out,) = ctx.avals_in, ctx.avals_out
        region = monoid_region(ctx, op, Aval((), a.dtype))
        return [ctx.op(f'"stablehlo.all_reduce"({x}) {_attrs(ctx, axes)} ({region}) : '
                       f"{_sig(ctx, [a], out)}")]
    return rule


co.psum_p.def_lowering(_all_reduce("add"))
co.pmax_p.def_lowering(_all_reduce("maximum"))
co.pmin_p.def_lowering(_all_reduce("minimum"))


@co.all_gather_p.def_lowering
def _all_gather(ctx, x, *, all_gather_dimension, axis_name, axis_size, tiled):
    (a,), (out,) = ctx.avals_in, ctx.avals_out
    d = all_gather_dimension
    if not tiled:  # a new axis of size 1 at d, gathered
        shp = a.shape[:d] + (1,) + a.shape[d:]
        x, a = _reshape(ctx, x, a, shp), a.update(shape=shp)
    return [ctx.op(f'"stablehlo.all_gather"({x}) {_attrs(ctx, axis_name, all_gather_dim=f"{d} : i64")} '
                   f": {_sig(ctx, [a], out)}")]


@co.reduce_scatter_p.def_lowering
def _reduce_scatter(ctx, x, *, scatter_dimension, axis_name, axis_size, tiled):
    (a,), (out,) = ctx.avals_in, ctx.avals_out
    d = scatter_dimension
    piece = out if tiled else out.update(shape=out.shape[:d] + (1,) + out.shape[d:])
    region = monoid_region(ctx, "add", Aval((), a.dtype))
    y = ctx.op(f'"stablehlo.reduce_scatter"({x}) '
               f'{_attrs(ctx, axis_name, scatter_dimension=f"{d} : i64")} ({region}) : '
               f"{_sig(ctx, [a], piece)}")
    return [y if tiled else _reshape(ctx, y, piece, out.shape)]


@co.all_to_all_p.def_lowering
def _all_to_all(ctx, x, *, split_axis, concat_axis, axis_name, axis_size):
    (a,), (out,) = ctx.avals_in, ctx.avals_out
    attrs = _attrs(ctx, axis_name, global_ids=False, split_dimension=f"{split_axis} : i64",
                   concat_dimension=f"{concat_axis} : i64", split_count=f"{axis_size} : i64")
    return [ctx.op(f'"stablehlo.all_to_all"({x}) {attrs} : {_sig(ctx, [a], out)}')]


@co.ppermute_p.def_lowering
def _ppermute(ctx, x, *, axis_name, perm):
    (a,), (out,) = ctx.avals_in, ctx.avals_out
    mesh = _mesh(ctx, "ppermute")
    if not perm:  # no device receives anything
        zero = ctx.constant(0, Aval((), a.dtype))
        return [ctx.broadcast(zero, Aval((), a.dtype), a.shape)]
    co.check_perm(perm, mesh.shape[axis_name[0]], axis_name[0])
    pairs = np.array([(g[s], g[d]) for g in groups(ctx, mesh, axis_name) for s, d in perm])
    attrs = (f"<{{channel_handle = #stablehlo.channel_handle<handle = {ctx.channel()}, "
             f"type = 1>, source_target_pairs = {_dense_i64(pairs)}}}>")
    return [ctx.op(f'"stablehlo.collective_permute"({x}) {attrs} : {_sig(ctx, [a], out)}')]


@co.axis_index_p.def_lowering
def _axis_index(ctx, *, axis_name):
    # the partition id, divided by the stride of the axis, modulo its size (a table lookup
    # for a mesh whose devices are not in partition order)
    mesh = _mesh(ctx, "axis_index")
    k = mesh.axis_names.index(axis_name)
    ids = ctx.partition_ids(mesh)
    pid = ctx.op("stablehlo.partition_id : tensor<ui32>")
    u32 = Aval((), np.uint32)
    if (ids.ravel() == np.arange(ids.size)).all():
        stride = math.prod(mesh.devices.shape[k + 1:])
        q = ctx.op(f"stablehlo.divide {pid}, {ctx.constant(stride, u32)} : tensor<ui32>")
        r = ctx.op(f"stablehlo.remainder {q}, {ctx.constant(mesh.devices.shape[k], u32)} : "
                   "tensor<ui32>")
        return [ctx.op(f"stablehlo.convert {r} : (tensor<ui32>) -> tensor<i32>")]
    table = np.zeros(ids.size, np.int32)
    for pos, p in np.ndenumerate(ids):
        table[p] = pos[k]
    t = ctx.constant(table, Aval(table.shape, np.int32))
    one = Aval((1,), np.int32)
    v = ctx.op(f"stablehlo.dynamic_slice {t}, {pid}, sizes = [1] : "
               f"({ctx.type(Aval(table.shape, np.int32))}, tensor<ui32>) -> {ctx.type(one)}")
    return [ctx.op(f"stablehlo.reshape {v} : ({ctx.type(one)}) -> tensor<i32>")]
