"""Lowering rules of the elementwise family: the StableHLO op of each primitive (rank-0
operands of a higher-rank op are broadcast first), compare, select, convert."""
from __future__ import annotations

from frontend import dtypes
from frontend.primitives import elementwise as ew


def _operands(ctx, names):
    out = ctx.avals_out[0]
    avals = ctx.avals_in
    if all(a.shape == out.shape for a in avals):
        return names
    return [ctx.broadcast(n, a, out.shape, ()) if a.ndim == 0 and out.ndim > 0 else n
            for a, n in zip(avals, names, strict=True)]


def elementwise(op: str):
    """The lowering rule of an elementwise primitive that is the StableHLO op ``op``."""

    def rule(ctx, *names):
        ops = _operands(ctx, names)
        out = ctx.avals_out[0]
        a = ctx.avals_in[0]
        if a.dtype != out.dtype:  # abs of complex
            in_t = ctx.type(a.update(shape=out.shape, weak_type=False))
            return [ctx.op(f"stablehlo.{op} {ops[0]} : ({in_t}) -> {ctx.type(out)}")]
        return [ctx.op(f"stablehlo.{op} {', '.join(ops)} : {ctx.type(out)}")]

    return rule


_OPS = {
    ew.neg_p: "negate", ew.abs_p: "abs", ew.sign_p: "sign", ew.exp_p: "exponential",
    ew.log_p: "log", ew.log1p_p: "log_plus_one", ew.expm1_p: "exponential_minus_one",
    ew.tanh_p: "tanh", ew.logistic_p: "logistic", ew.sin_p: "sine", ew.cos_p: "cosine",
    ew.tan_p: "tan", ew.sqrt_p: "sqrt", ew.rsqrt_p: "rsqrt", ew.floor_p: "floor",
    ew.ceil_p: "ceil", ew.round_p: "round_nearest_even", ew.not_p: "not",
    ew.add_p: "add", ew.sub_p: "subtract", ew.mul_p: "multiply", ew.div_p: "divide",
    ew.rem_p: "remainder", ew.pow_p: "power", ew.max_p: "maximum", ew.min_p: "minimum",
    ew.atan2_p: "atan2", ew.and_p: "and", ew.or_p: "or", ew.xor_p: "xor",
}
for _p, _op in _OPS.items():
    _p.def_lowering(elementwise(_op))


def compare_type(dtype) -> str:
    """StableHLO's comparison type of a dtype."""
    if dtypes.is_inexact(dtype):
        return "FLOAT"
    if dtypes.is_unsigned(dtype) or dtypes.is_bool(dtype):
        return "UNSIGNED"
    return "SIGNED"


def comparison(direction: str):
    def rule(ctx, x, y):
        x, y = _operands(ctx, (x, y))
        out = ctx.avals_out[0]
        a = ctx.avals_in[0]
        in_t = ctx.type(a.update(shape=out.shape))
        return [ctx.op(f"stablehlo.compare {direction}, {x}, {y}, {compare_type(a.dtype)} : "
                       f"({in_t}, {in_t}) -> {ctx.type(out)}")]

    return rule


for _p, _dir in {ew.eq_p: "EQ", ew.ne_p: "NE", ew.lt_p: "LT", ew.le_p: "LE", ew.gt_p: "GT",
                 ew.ge_p: "GE"}.items():
    _p.def_lowering(comparison(_dir))


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
