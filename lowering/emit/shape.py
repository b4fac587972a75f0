"""Emitters of the shape family."""
from __future__ import annotations

from ..hlo import emitter, tensor_type


def _ints(xs) -> str:
    return ", ".join(map(str, xs))


@emitter("broadcast_in_dim")
def _broadcast_in_dim(ctx, eqn, x):
    a, out = eqn.inputs[0].aval, eqn.outs[0].aval
    return [ctx.op(f"stablehlo.broadcast_in_dim {x}, dims = [{_ints(eqn.params['broadcast_dimensions'])}] "
                   f": ({tensor_type(a)}) -> {tensor_type(out)}")]


@emitter("reshape")
def _reshape(ctx, eqn, x):
    a, out = eqn.inputs[0].aval, eqn.outs[0].aval
    return [ctx.op(f"stablehlo.reshape {x} : ({tensor_type(a)}) -> {tensor_type(out)}")]


@emitter("transpose")
def _transpose(ctx, eqn, x):
    a, out = eqn.inputs[0].aval, eqn.outs[0].aval
    return [ctx.op(f"stablehlo.transpose {x}, dims = [{_ints(eqn.params['permutation'])}] "
                   f": ({tensor_type(a)}) -> {tensor_type(out)}")]
