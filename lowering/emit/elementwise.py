"""Lowering rules of the elementwise family: the StableHLO op of each primitive (rank-0
operands and size-1 dimensions are broadcast to the result's shape first), compare, select,
convert."""
from __future__ import annotations

import numpy as np

from frontend.core import dtypes
from frontend.core.ir import Aval
from frontend.primitives import elementwise as ew

from .module import tensor_type


def _operands(ctx, names):
    """The operands at the result's shape: rank-0 and size-1 dimensions broadcast."""
    shape = ctx.avals_out[0].shape
    avals = ctx.avals_in
    for a in avals:
        if a.shape != shape:
            break
    else:
        return names
    return [n if a.shape == shape else ctx.broadcast(n, a, shape)
            for a, n in zip(avals, names, strict=True)]


def elementwise(op: str):
    """The lowering rule of an elementwise primitive that is the StableHLO op ``op``."""
    head = f"stablehlo.{op} "

    def rule(ctx, *names):
        ops = _operands(ctx, names)
        out = ctx.avals_out[0]
        a = ctx.avals_in[0]
        if a.dtype != out.dtype:  # abs of complex
            in_t = ctx.type(a.update(shape=out.shape, weak_type=False))
            return [ctx.op(f"{head}{ops[0]} : ({in_t}) -> {ctx.type(out)}")]
        return [ctx.fn.op(head + ", ".join(ops) + " : " + tensor_type(out))]

    return rule


_OPS = {
    ew.neg_p: "negate", ew.exp_p: "exponential",
    ew.log_p: "log", ew.log1p_p: "log_plus_one", ew.expm1_p: "exponential_minus_one",
    ew.tanh_p: "tanh", ew.logistic_p: "logistic", ew.sin_p: "sine", ew.cos_p: "cosine",
    ew.tan_p: "tan", ew.sqrt_p: "sqrt", ew.rsqrt_p: "rsqrt", ew.floor_p: "floor",
    ew.ceil_p: "ceil", ew.round_p: "round_nearest_even", ew.not_p: "not",
    ew.add_p: "add", ew.sub_p: "subtract", ew.mul_p: "multiply", ew.div_p: "divide",
    ew.rem_p: "remainder", ew.pow_p: "power",
    ew.atan2_p: "atan2", ew.and_p: "and", ew.or_p: "or", ew.xor_p: "xor",
    ew.shift_left_p: "shift_left", ew.shift_right_arithmetic_p: "shift_right_arithmetic",
    ew.shift_right_logical_p: "shift_right_logical",
}
for _p, _op in _OPS.items():
    _p.def_lowering(elementwise(_op))


_abs = elementwise("abs")


@ew.abs_p.def_lowering
def _abs_rule(ctx, x):
    if dtypes.is_unsigned(ctx.avals_in[0].dtype):  # stablehlo.abs takes signed types
        return [x]
    return _abs(ctx, x)


@ew.sign_p.def_lowering
def _sign(ctx, x):
    a = ctx.avals_in[0]
    if dtypes.is_unsigned(a.dtype):  # stablehlo.sign takes signed types: min(x, 1) is 0 or 1
        one = ctx.broadcast(ctx.constant(1, a.update(shape=(), weak_type=False)),
                            a.update(shape=()), a.shape, ())
        return [ctx.op(f"stablehlo.minimum {x}, {one} : {ctx.type(a)}")]
    return [ctx.op(f"stablehlo.sign {x} : {ctx.type(a)}")]


def compare_type(dtype) -> str:
    """StableHLO's comparison type of a dtype."""
    if dtypes.is_inexact(dtype):
        return "FLOAT"
    if dtypes.is_unsigned(dtype) or dtypes.is_bool(dtype):
        return "UNSIGNED"
    return "SIGNED"


def _compare(ctx, direction, x, y, aval, out_shape, total=False) -> str:
    """``x direction y`` as a bool tensor; complex operands are ordered lexicographically
    (real parts, then imaginary parts), as JAX orders them. ``total``: floats by their total
    order (StableHLO's TOTALORDER comparison type)."""
    in_t = ctx.type(aval.update(shape=out_shape, weak_type=False))
    bool_t = ctx.type(Aval(out_shape, dtypes.bool_))
    if dtypes.is_complex(aval.dtype) and direction not in ("EQ", "NE"):
        part = aval.update(shape=out_shape, dtype=np.finfo(aval.dtype).dtype, weak_type=False)
        rx, ry, ix, iy = (ctx.op(f"stablehlo.{f} {v} : ({in_t}) -> {ctx.type(part)}")
                          for f, v in (("real", x), ("real", y), ("imag", x), ("imag", y)))
        eq = _compare(ctx, "EQ", rx, ry, part, out_shape)
        on_real = _compare(ctx, direction[0] + "T", rx, ry, part, out_shape)  # strict order
        on_imag = _compare(ctx, direction, ix, iy, part, out_shape)
        return ctx.op(f"stablehlo.select {eq}, {on_imag}, {on_real} : {bool_t}, {bool_t}")
    kind = "TOTALORDER" if total and dtypes.is_float(aval.dtype) else compare_type(aval.dtype)
    return ctx.op(f"stablehlo.compare {direction}, {x}, {y}, {kind} : "
                  f"({in_t}, {in_t}) -> {bool_t}")


def comparison(direction: str, total: bool = False):
    def rule(ctx, x, y):
        x, y = _operands(ctx, (x, y))
        return [_compare(ctx, direction, x, y, ctx.avals_in[0], ctx.avals_out[0].shape, total)]

    return rule


for _p, _dir in {ew.eq_p: "EQ", ew.ne_p: "NE", ew.lt_p: "LT", ew.le_p: "LE", ew.gt_p: "GT",
                 ew.ge_p: "GE"}.items():
    _p.def_lowering(comparison(_dir))
for _p, _dir in {ew.eq_to_p: "EQ", ew.le_to_p: "LE", ew.lt_to_p: "LT"}.items():
    _p.def_lowering(comparison(_dir, total=True))


def combine(ctx, op: str, x: str, y: str, aval) -> str:
    """``stablehlo.<op> x, y`` of two values of type ``aval``; maximum/minimum of complex
    values by JAX's lexicographic order (stablehlo.maximum/minimum order them otherwise).
    Shared by max/min and the max/min reductions, scans and scatters."""
    if op in ("maximum", "minimum") and dtypes.is_complex(aval.dtype):
        pick = _compare(ctx, "GT" if op == "maximum" else "LT", x, y, aval, aval.shape)
        bool_t = ctx.type(Aval(aval.shape, dtypes.bool_))
        return ctx.op(f"stablehlo.select {pick}, {x}, {y} : {bool_t}, {ctx.type(aval)}")
    return ctx.op(f"stablehlo.{op} {x}, {y} : {ctx.type(aval)}")


def extremum(op: str):
    def rule(ctx, x, y):
        x, y = _operands(ctx, (x, y))
        return [combine(ctx, op, x, y, ctx.avals_out[0])]

    return rule


ew.max_p.def_lowering(extremum("maximum"))
ew.min_p.def_lowering(extremum("minimum"))


@ew.select_p.def_lowering
def _select(ctx, p, t, f):
    p, t, f = _operands(ctx, (p, t, f))
    out = ctx.avals_out[0]
    pt = ctx.type(out.update(dtype=dtypes.bool_))
    return [ctx.op(f"stablehlo.select {p}, {t}, {f} : {pt}, {ctx.type(out)}")]


@ew.convert_element_type_p.def_lowering
def _convert(ctx, x, *, new_dtype, weak_type=False):
    a, out = ctx.avals_in[0], ctx.avals_out[0]
    if a.dtype == out.dtype:
        return [x]
    if dtypes.is_bool(out.dtype) and not dtypes.is_bool(a.dtype):
        # x != 0, as numpy's astype(bool)
        zero = ctx.constant(0, a.update(shape=(), weak_type=False))
        zero = ctx.broadcast(zero, a.update(shape=()), a.shape, ())
        return [ctx.op(f"stablehlo.compare NE, {x}, {zero}, {compare_type(a.dtype)} : "
                       f"({ctx.type(a)}, {ctx.type(a)}) -> {ctx.type(out)}")]
    return [ctx.op(f"stablehlo.convert {x} : ({ctx.type(a)}) -> {ctx.type(out)}")]


@ew.stop_gradient_p.def_lowering
def _stop_gradient(ctx, x):
    return [x]  # the identity: only differentiation sees it
