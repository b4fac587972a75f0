"""Lowering rules of the shape family (and pad)."""
from __future__ import annotations

from frontend.primitives import padding as pd
from frontend.primitives import shape as sh
from frontend.primitives.padding import pad_p


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
    return [ctx.op(f"stablehlo.broadcast_in_dim {x}, dims = [{ints(broadcast_dimensions)}] "
                   f": ({ctx.type(a)}) -> {ctx.type(out)}")]


def _reshape(ctx, x, **params):
    a, out = _io(ctx)
    if a.shape == out.shape:
        return [x]
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
    rng = ", ".join(f"{s}:{lim}" + (f":{k}" if k != 1 else "")
                    for s, lim, k in zip(start_indices, limit_indices, strides, strict=True))
    return [ctx.op(f"stablehlo.slice {x} [{rng}] : ({ctx.type(a)}) -> {ctx.type(out)}")]


@pad_p.def_lowering
def _pad(ctx, x, pv, *, padding_config):
    a, out = _io(ctx)
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
    return [ctx.op(f"stablehlo.iota dim = {dimension} : {ctx.type(ctx.avals_out[0])}")]


@sh.rev_p.def_lowering
def _rev(ctx, x, *, dimensions):
    return [ctx.op(f"stablehlo.reverse {x}, dims = [{ints(dimensions)}] "
                   f": {ctx.type(ctx.avals_out[0])}")]
