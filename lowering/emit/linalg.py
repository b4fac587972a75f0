"""Lowering rule of the linear-algebra family: ``stablehlo.dot_general``.

Operands of different dtypes are converted to the common operand dtype first (XLA's dot
takes one operand type; the result type may differ, e.g. i8 x i8 -> f32 or bf16 -> f32).
Bool operands are emitted as i1 dots (XLA CPU computes OR of ANDs, as JAX's lax does).
"""
from __future__ import annotations

import functools

from frontend.core.ir import Aval
from frontend.primitives.dot_algorithms import (
    CPU_PRESETS,
    TF32,
    attribute_fields,
    compute_types,
    is_algorithm,
)
from frontend.primitives.linalg import dot_general_p, dot_operand_dtype, remembered

from .shape import ints


def _convert(ctx, x, aval, dtype):
    """x as ``dtype`` (a stablehlo.convert unless it is one already), and its aval."""
    if aval.dtype == dtype:
        return x, aval
    new = aval.update(dtype=dtype, weak_type=False)
    return ctx.op(f"stablehlo.convert {x} : ({ctx.type(aval)}) -> {ctx.type(new)}"), new


@dot_general_p.def_lowering
def _dot_general(ctx, lhs, rhs, *, dimension_numbers, precision=None,
                 preferred_element_type=None):
    la, ra = ctx.avals_in
    out = ctx.avals_out[0]
    if is_algorithm(precision):   # operands in the algorithm's types, the result back
        if "cpu" in ctx.platforms and precision not in CPU_PRESETS:
            raise ValueError(f"The precision '{precision}' is not supported by dot_general "
                             "on CPU")
        lt, rt, acc = compute_types(precision, la.dtype, ra.dtype, out.dtype)
        lhs, la = _convert(ctx, lhs, la, lt)
        rhs, ra = _convert(ctx, rhs, ra, rt)
        acc_aval = out.update(dtype=acc, weak_type=False)
        attrs = remembered(_attrs, dimension_numbers, ("DEFAULT", "DEFAULT"))
        fields = attribute_fields(precision, lt, rt)
        if fields is not None:
            attrs += f", algorithm = {_algorithm(ctx, fields)}"
        res = ctx.op(f"stablehlo.dot_general {lhs}, {rhs}, {attrs} : "
                     f"({ctx.type(la)}, {ctx.type(ra)}) -> {ctx.type(acc_aval)}")
        return [_convert(ctx, res, acc_aval, out.dtype)[0]]
    d = dot_operand_dtype(la.dtype, ra.dtype)
    lhs, la = _convert(ctx, lhs, la, d)
    rhs, ra = _convert(ctx, rhs, ra, d)
    return [ctx.op(f"stablehlo.dot_general {lhs}, {rhs}, {remembered(_attrs, dimension_numbers, precision)} : "
                   f"({ctx.type(la)}, {ctx.type(ra)}) -> {ctx.type(out)}")]


def _algorithm(ctx, fields) -> str:
    """StableHLO's ``#stablehlo.dot_algorithm`` fields, as JAX spells them."""
    def name(t):
        return t if t == TF32 else ctx.type(Aval((), t))[len("tensor<"):-1]
    lt, rt, acc, lc, rc, n, imprecise = fields
    return (f"<lhs_precision_type = {name(lt)}, rhs_precision_type = {name(rt)}, "
            f"accumulation_type = {name(acc)}, lhs_component_count = {lc}, "
            f"rhs_component_count = {rc}, num_primitive_operations = {n}, "
            f"allow_imprecise_accumulation = {str(bool(imprecise)).lower()}>")


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
