"""Emitters of the linear-algebra family: ``stablehlo.dot_general``.

Operands of different dtypes are converted to the common operand dtype first (XLA's dot
takes one operand type; the result type may differ, e.g. i8 x i8 -> f32 or bf16 -> f32).
Bool operands are emitted as i1 dots (XLA CPU computes OR of ANDs, as JAX's lax does).
"""
from __future__ import annotations

from frontend.primitives.linalg import dot_operand_dtype

from ..hlo import emitter, tensor_type


def _ints(xs) -> str:
    return ", ".join(map(str, xs))


@emitter("dot_general")
def _dot_general(ctx, eqn, lhs, rhs):
    la, ra = eqn.inputs[0].aval, eqn.inputs[1].aval
    out = eqn.outs[0].aval
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    d = dot_operand_dtype(la.dtype, ra.dtype)
    if la.dtype != d:
        nla = la.update(dtype=d)
        lhs = ctx.op(f"stablehlo.convert {lhs} : ({tensor_type(la)}) -> {tensor_type(nla)}")
        la = nla
    if ra.dtype != d:
        nra = ra.update(dtype=d)
        rhs = ctx.op(f"stablehlo.convert {rhs} : ({tensor_type(ra)}) -> {tensor_type(nra)}")
        ra = nra
    attrs = []
    if lb or rb:
        attrs.append(f"batching_dims = [{_ints(lb)}] x [{_ints(rb)}]")
    attrs.append(f"contracting_dims = [{_ints(lc)}] x [{_ints(rc)}]")
    prec = eqn.params.get("precision")
    if prec is not None:
        attrs.append(f"precision = [{_ints(prec)}]")
    return [ctx.op(f"stablehlo.dot_general {lhs}, {rhs}, {', '.join(attrs)} : "
                   f"({tensor_type(la)}, {tensor_type(ra)}) -> {tensor_type(out)}")]
