"""Emitters of the elementwise family: the op name comes from the primitive's ``hlo`` field;
rank-0 operands of a higher-rank op are broadcast first."""
from __future__ import annotations

from frontend import dtypes
from frontend.core import Aval
from frontend.primitives import elementwise as ew

from ..hlo import emitter, tensor_type


def _operands(ctx, eqn, names):
    out = eqn.outs[0].aval
    if all(a.aval.shape == out.shape for a in eqn.inputs):
        return names
    res = []
    for a, n in zip(eqn.inputs, names, strict=True):
        if a.aval.ndim == 0 and out.ndim > 0:
            n = ctx.broadcast(n, a.aval, out.shape, ())
        res.append(n)
    return res


@emitter(*ew.UNARY, *ew.BINARY)
def _elementwise(ctx, eqn, *names):
    ops = _operands(ctx, eqn, names)
    out = eqn.outs[0].aval
    a = eqn.inputs[0].aval
    if a.dtype != out.dtype:  # abs of complex
        in_t = tensor_type(Aval(out.shape, a.dtype))
        return [ctx.op(f"stablehlo.{eqn.prim.hlo} {ops[0]} : ({in_t}) -> {tensor_type(out)}")]
    return [ctx.op(f"stablehlo.{eqn.prim.hlo} {', '.join(ops)} : {tensor_type(out)}")]


def _compare_type(dtype) -> str:
    if dtypes.is_inexact(dtype):
        return "FLOAT"
    if dtypes.is_unsigned(dtype) or dtypes.is_bool(dtype):
        return "UNSIGNED"
    return "SIGNED"


@emitter(*ew.COMPARE)
def _compare(ctx, eqn, x, y):
    x, y = _operands(ctx, eqn, (x, y))
    out = eqn.outs[0].aval
    in_t = tensor_type(eqn.inputs[0].aval.update(shape=out.shape))
    ct = _compare_type(eqn.inputs[0].aval.dtype)
    return [ctx.op(f"stablehlo.compare {eqn.prim.hlo}, {x}, {y}, {ct} : ({in_t}, {in_t}) -> {tensor_type(out)}")]


@emitter("select")
def _select(ctx, eqn, p, t, f):
    p, t, f = _operands(ctx, eqn, (p, t, f))
    out = tensor_type(eqn.outs[0].aval)
    pt = tensor_type(eqn.outs[0].aval.update(dtype=dtypes.bool_))
    return [ctx.op(f"stablehlo.select {p}, {t}, {f} : {pt}, {out}")]


@emitter("convert_element_type")
def _convert(ctx, eqn, x):
    a, out = eqn.inputs[0].aval, eqn.outs[0].aval
    if a.dtype == out.dtype:
        return [x]
    if dtypes.is_bool(out.dtype) and not dtypes.is_bool(a.dtype):
        # x != 0, as numpy's astype(bool)
        zero = ctx.constant(0, a.update(shape=(), weak_type=False))
        zero = ctx.broadcast(zero, a.update(shape=()), a.shape, ())
        ct = "FLOAT" if dtypes.is_inexact(a.dtype) else "SIGNED" if not dtypes.is_unsigned(a.dtype) else "UNSIGNED"
        return [ctx.op(f"stablehlo.compare NE, {x}, {zero}, {ct} : ({tensor_type(a)}, {tensor_type(a)}) -> {tensor_type(out)}")]
    return [ctx.op(f"stablehlo.convert {x} : ({tensor_type(a)}) -> {tensor_type(out)}")]
