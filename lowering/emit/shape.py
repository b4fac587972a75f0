"""Lowering rules of the shape family (and pad)."""
from __future__ import annotations

from frontend.primitives import padding as pd
from frontend.primitives import shape as sh
from frontend.primitives.padding import pad_p

from .dims import dim_value, dynamic_error, iota, is_static, shape_value


def ints(xs) -> str:
    return ", ".join(map(str, xs))


def i64_array(xs) -> str:
    """A dense i64 array attribute: ``array<i64: 1, 2>``, ``array<i64>`` when empty."""
    return f"array<i64: {ints(xs)}>" if len(xs) else "array<i64>"


def _io(ctx):
    return ctx.avals_in[0], ctx.avals_out[0]


@sh.broadcast_in_dim_p.def_lowering
def _broadcast_in_dim(ctx, x, *, shape, broadcast_dimensions):
    a, out = _io(ctx)
    return [ctx.broadcast(x, a, out.shape, tuple(broadcast_dimensions))]


def _reshape(ctx, x, **params):
    a, out = _io(ctx)
    if a.shape == out.shape:
        return [x]
    if not is_static(out.shape) or not is_static(a.shape):
        return [ctx.op(f"stablehlo.dynamic_reshape {x}, {shape_value(ctx.fn, out.shape)} : "
                       f"({ctx.type(a)}, tensor<{out.ndim}xi64>) -> {ctx.type(out)}")]
    return [ctx.op(f"stablehlo.reshape {x} : ({ctx.type(a)}) -> {ctx.type(out)}")]


sh.reshape_p.def_lowering(_reshape)
sh.squeeze_p.def_lowering(_reshape)


@sh.transpose_p.def_lowering
def _transpose(ctx, x, *, permutation):
    a, out = _io(ctx)
    return [ctx.op(f"stablehlo.transpose {x}, dims = [{ints(permutation)}] "
                   f": ({ctx.type(a)}) -> {ctx.type(out)}")]


@pd.slice_p.def_lowering
def _slice(ctx, x, *, start_indices, limit_indices, strides=None):
    a, out = _io(ctx)
    strides = strides or (1,) * a.ndim
    if not is_static(a.shape):
        vals = [shape_value(ctx.fn, v) for v in (start_indices, limit_indices, strides)]
        t = f"tensor<{a.ndim}xi64>"
        return [ctx.op(f"stablehlo.real_dynamic_slice {x}, {', '.join(vals)} : "
                       f"({ctx.type(a)}, {t}, {t}, {t}) -> {ctx.type(out)}")]
    rng = ", ".join(f"{s}:{lim}" + (f":{k}" if k != 1 else "")
                    for s, lim, k in zip(start_indices, limit_indices, strides, strict=True))
    return [ctx.op(f"stablehlo.slice {x} [{rng}] : ({ctx.type(a)}) -> {ctx.type(out)}")]


@pad_p.def_lowering
def _pad(ctx, x, pv, *, padding_config):
    a, out = _io(ctx)
    if not is_static(a.shape):
        raise dynamic_error("pad", a.shape)
    lo, hi, inner = ([c[k] for c in padding_config] for k in range(3))
    return [ctx.op(f"stablehlo.pad {x}, {pv}, low = [{ints(lo)}], high = [{ints(hi)}], "
                   f"interior = [{ints(inner)}] : ({ctx.type(a)}, {ctx.type(ctx.avals_in[1])}) "
                   f"-> {ctx.type(out)}")]


@pd.concatenate_p.def_lowering
def _concatenate(ctx, *xs, dimension):
    types = ", ".join(ctx.type(a) for a in ctx.avals_in)
    return [ctx.op(f"stablehlo.concatenate {', '.join(xs)}, dim = {dimension} "
                   f": ({types}) -> {ctx.type(ctx.avals_out[0])}")]


@sh.iota_p.def_lowering
def _iota(ctx, *, dtype, shape, dimension):
    return [iota(ctx, ctx.avals_out[0], dimension)]


@sh.dim_as_value_p.def_lowering
def _dim_as_value(ctx, *, dim):
    out = ctx.avals_out[0]
    v = dim_value(ctx.fn, dim)
    if out.dtype.itemsize == 8:
        return [v]
    return [ctx.op(f"stablehlo.convert {v} : (tensor<i64>) -> {ctx.type(out)}")]


@sh.rev_p.def_lowering
def _rev(ctx, x, *, dimensions):
    return [ctx.op(f"stablehlo.reverse {x}, dims = [{ints(dimensions)}] "
                   f": {ctx.type(ctx.avals_out[0])}")]
