"""Lowering rule of the linear-algebra family: ``stablehlo.dot_general``.

Operands of different dtypes are converted to the common operand dtype first (XLA's dot
takes one operand type; the result type may differ, e.g. i8 x i8 -> f32 or bf16 -> f32).
Bool operands are emitted as i1 dots (XLA CPU computes OR of ANDs, as JAX's lax does).
"""
from __future__ import annotations

import functools

from frontend.primitives.linalg import dot_general_p, dot_operand_dtype, remembered

from .shape import ints


@dot_general_p.def_lowering
def _dot_general(ctx, lhs, rhs, *, dimension_numbers, precision=None,
                 preferred_element_type=None):
    la, ra = ctx.avals_in
    d = dot_operand_dtype(la.dtype, ra.dtype)
    if la.dtype != d:
        nla = la.update(dtype=d)
        lhs = ctx.op(f"stablehlo.convert {lhs} : ({ctx.type(la)}) -> {ctx.type(nla)}")
        la = nla
    if ra.dtype != d:
        nra = ra.update(dtype=d)
        rhs = ctx.op(f"stablehlo.convert {rhs} : ({ctx.type(ra)}) -> {ctx.type(nra)}")
        ra = nra
    return [ctx.op(f"stablehlo.dot_general {lhs}, {rhs}, {remembered(_attrs, dimension_numbers, precision)} : "
                   f"({ctx.type(la)}, {ctx.type(ra)}) -> {ctx.type(ctx.avals_out[0])}")]


@functools.lru_cache(maxsize=4096)
def _attrs(dimension_numbers, precision) -> str:
    """The op's attribute text (written once per dimension numbers and precision)."""
    (lc, rc), (lb, rb) = dimension_numbers
    attrs = []
    if lb or rb:
        attrs.append(f"batching_dims = [{ints(lb)}] x [{ints(rb)}]")
    attrs.append(f"contracting_dims = [{ints(lc)}] x [{ints(rc)}]")
    if precision is not None:
        attrs.append(f"precision = [{ints(precision)}]")
    return ", ".join(attrs)
