"""Emitters of the shape family."""
from __future__ import annotations

from ..hlo import emitter, tensor_type


def _ints(xs) -> str:
    return ", ".join(map(str, xs))


def _io(eqn):
    return eqn.inputs[0].aval, eqn.outs[0].aval


@emitter("broadcast_in_dim")
def _broadcast_in_dim(ctx, eqn, x):
    a, out = _io(eqn)
    return [ctx.op(f"stablehlo.broadcast_in_dim {x}, dims = [{_ints(eqn.params['broadcast_dimensions'])}] "
                   f": ({tensor_type(a)}) -> {tensor_type(out)}")]


@emitter("reshape", "squeeze")
def _reshape(ctx, eqn, x):
    a, out = _io(eqn)
    if a.shape == out.shape:
        return [x]
    return [ctx.op(f"stablehlo.reshape {x} : ({tensor_type(a)}) -> {tensor_type(out)}")]


@emitter("transpose")
def _transpose(ctx, eqn, x):
    a, out = _io(eqn)
    return [ctx.op(f"stablehlo.transpose {x}, dims = [{_ints(eqn.params['permutation'])}] "
                   f": ({tensor_type(a)}) -> {tensor_type(out)}")]


@emitter("slice")
def _slice(ctx, eqn, x):
    a, out = _io(eqn)
    p = eqn.params
    strides = p["strides"] or (1,) * a.ndim
    rng = ", ".join(f"{s}:{l}" + (f":{k}" if k != 1 else "")
                    for s, l, k in zip(p["start_indices"], p["limit_indices"], strides))
    return [ctx.op(f"stablehlo.slice {x} [{rng}] : ({tensor_type(a)}) -> {tensor_type(out)}")]


@emitter("pad")
def _pad(ctx, eqn, x, pv):
    a, out = _io(eqn)
    cfg = eqn.params["padding_config"]
    lo, hi, inner = ([c[k] for c in cfg] for k in range(3))
    pv_t = tensor_type(eqn.inputs[1].aval)
    return [ctx.op(f"stablehlo.pad {x}, {pv}, low = [{_ints(lo)}], high = [{_ints(hi)}], "
                   f"interior = [{_ints(inner)}] : ({tensor_type(a)}, {pv_t}) -> {tensor_type(out)}")]


@emitter("concatenate")
def _concatenate(ctx, eqn, *xs):
    out = eqn.outs[0].aval
    types = ", ".join(tensor_type(v.aval) for v in eqn.inputs)
    return [ctx.op(f"stablehlo.concatenate {', '.join(xs)}, dim = {eqn.params['dimension']} "
                   f": ({types}) -> {tensor_type(out)}")]


@emitter("iota")
def _iota(ctx, eqn):
    out = eqn.outs[0].aval
    return [ctx.op(f"stablehlo.iota dim = {eqn.params['dimension']} : {tensor_type(out)}")]


@emitter("rev")
def _rev(ctx, eqn, x):
    a, out = _io(eqn)
    return [ctx.op(f"stablehlo.reverse {x}, dims = [{_ints(eqn.params['dimensions'])}] "
                   f": {tensor_type(out)}")]
