"""Lowering rules of the reduction family.

- reduce_<monoid>: ``stablehlo.reduce(%x init: %c) applies stablehlo.<op> across dimensions
  = [...]`` (pretty form), init = the monoid's identity.
- argmax/argmin: a variadic ``stablehlo.reduce`` over (values, iota along the axis) whose
  comparator region is a total order (NaN above everything, ties to the lower index), so the
  result does not depend on XLA's reduction order.
- cum<monoid>: ``stablehlo.reduce_window`` with a window spanning the whole axis and padding
  of (n - 1) before it (after it when ``reverse``), the monoid as body.
"""
from __future__ import annotations

import numpy as np

from frontend.core import dtypes
from frontend.core.ir import Aval
from frontend.primitives import reductions as red
from frontend.primitives.general_reduce import reduce_p

from . import dims
from .elementwise import combine, compare_type
from .shape import i64_array, ints

# each monoid's StableHLO op (its identity, the init value, is frontend knowledge)
MONOIDS = {red.reduce_sum_p: "add", red.reduce_prod_p: "multiply", red.reduce_max_p: "maximum",
           red.reduce_min_p: "minimum", red.reduce_and_p: "and", red.reduce_or_p: "or",
           red.reduce_xor_p: "xor"}


def _scalar(aval: Aval) -> Aval:
    return Aval((), aval.dtype)


def _init(ctx, value, dtype) -> str:
    """A scalar init value. Complex infinities (max/min identities, lexicographic order) are
    built from real parts, as hlo's scalar text covers only finite complex values."""
    d = np.dtype(dtype)
    if dtypes.is_complex(d) and not np.isfinite(value):
        r = ctx.constant(value, Aval((), np.finfo(d).dtype))
        return ctx.op(f"stablehlo.complex {r}, {r} : {ctx.type(Aval((), d))}")
    return ctx.constant(value, Aval((), d))


def monoid_region(ctx, op, s: Aval) -> str:
    """A region combining two scalars of type ``s`` with the monoid's op."""
    return ctx.region(lambda args: ([combine(ctx, op, args[0], args[1], s)], [s]), [s, s])


def _reduce(op, identity):
    def rule(ctx, x, *, axes):
        a, out = ctx.avals_in[0], ctx.avals_out[0]
        if not axes:
            return [x]
        init = _init(ctx, identity(a.dtype), a.dtype)
        s = _scalar(a)
        if dtypes.is_complex(a.dtype) and op in ("maximum", "minimum"):  # JAX's order
            return [ctx.op(f'"stablehlo.reduce"({x}, {init}) <{{dimensions = '
                           f'{i64_array(axes)}}}> ({monoid_region(ctx, op, s)}) : ({ctx.type(a)}, '
                           f"{ctx.type(s)}) -> {ctx.type(out)}")]
        return [ctx.op(f"stablehlo.reduce({x} init: {init}) applies stablehlo.{op} "
                       f"across dimensions = [{ints(axes)}] : ({ctx.type(a)}, "
                       f"{ctx.type(s)}) -> {ctx.type(out)}")]

    return rule


for _p, _op in MONOIDS.items():
    _p.def_lowering(_reduce(_op, red.IDENTITY[_p]))


def _argreduce(is_max: bool):
    def rule(ctx, x, *, axes, index_dtype):
        a, out = ctx.avals_in[0], ctx.avals_out[0]
        (k,) = axes
        va, ia = _scalar(a), Aval((), out.dtype)
        b = Aval((), np.dtype(np.bool_))
        iota_aval = Aval(a.shape, out.dtype)
        iota = dims.iota(ctx, iota_aval, k)
        v_init = ctx.constant(red.lowest(a.dtype) if is_max else red.highest(a.dtype), va)
        i_init = ctx.constant(0, ia)
        vt, it, bt = ctx.type(va), ctx.type(ia), ctx.type(b)

        def cmp(direction, p, q, kind, t):
            return ctx.op(f"stablehlo.compare {direction}, {p}, {q}, {kind} : ({t}, {t}) -> {bt}")

        def body(args):
            v1, i1, v2, i2 = args
            kind = compare_type(a.dtype)
            better = cmp("GT" if is_max else "LT", v1, v2, kind, vt)
            equal = cmp("EQ", v1, v2, kind, vt)
            if dtypes.is_inexact(a.dtype):
                # NaN is above every number; two NaNs are equal
                nan1 = cmp("NE", v1, v1, "FLOAT", vt)
                nan2 = cmp("NE", v2, v2, "FLOAT", vt)
                only1 = ctx.op(f"stablehlo.and {nan1}, {ctx.op(f'stablehlo.not {nan2} : {bt}')} : {bt}")
                better = ctx.op(f"stablehlo.or {better}, {only1} : {bt}")
                equal = ctx.op(f"stablehlo.or {equal}, {ctx.op(f'stablehlo.and {nan1}, {nan2} : {bt}')} : {bt}")
            lower = cmp("LT", i1, i2, compare_type(out.dtype), it)
            pick = ctx.op(f"stablehlo.or {better}, {ctx.op(f'stablehlo.and {equal}, {lower} : {bt}')} : {bt}")
            return [ctx.op(f"stablehlo.select {pick}, {v1}, {v2} : {bt}, {vt}"),
                    ctx.op(f"stablehlo.select {pick}, {i1}, {i2} : {bt}, {it}")], [va, ia]

        region = ctx.region(body, [va, ia, va, ia])
        vals = Aval(out.shape, a.dtype)
        res = ctx.op_results(
            f'"stablehlo.reduce"({x}, {iota}, {v_init}, {i_init}) <{{dimensions = array<i64: {k}>}}> '
            f"({region}) : ({ctx.type(a)}, {ctx.type(iota_aval)}, {vt}, {it}) -> "
            f"({ctx.type(vals)}, {ctx.type(out)})", 2)
        return [res[1]]

    return rule


red.argmax_p.def_lowering(_argreduce(True))
red.argmin_p.def_lowering(_argreduce(False))


def _cumulative(monoid):
    op, identity = MONOIDS[monoid], red.IDENTITY[monoid]

    def rule(ctx, x, *, axis, reverse=False):
        a = ctx.avals_in[0]
        n = a.shape[axis]
        if n <= 1:
            return [x]
        init = _init(ctx, identity(a.dtype), a.dtype)
        window = [n if i == axis else 1 for i in range(a.ndim)]
        before_after = [0, n - 1] if reverse else [n - 1, 0]
        pad = "[" + ", ".join(f"[{lo}, {hi}]" for lo, hi in
                              (before_after if i == axis else [0, 0] for i in range(a.ndim))) + "]"
        s = _scalar(a)
        region = monoid_region(ctx, op, s)
        return [ctx.op(f'"stablehlo.reduce_window"({x}, {init}) <{{padding = dense<{pad}> : '
                       f"tensor<{a.ndim}x2xi64>, window_dimensions = {i64_array(window)}}}> "
                       f"({region}) : ({ctx.type(a)}, {ctx.type(s)}) -> {ctx.type(a)}")]

    return rule


for _p, _m in {red.cumsum_p: red.reduce_sum_p, red.cumprod_p: red.reduce_prod_p,
               red.cummax_p: red.reduce_max_p, red.cummin_p: red.reduce_min_p}.items():
    _p.def_lowering(_cumulative(_m))


def computation_region(ctx, computation, operand_avals) -> str:
    """The region of a user computation (accumulators, elements) -> accumulators, scalars of
    the operands' dtypes."""
    scal = [_scalar(a) for a in operand_avals]
    return ctx.region(lambda names: (ctx.lower_body(computation, names), scal), scal + scal)


@reduce_p.def_lowering
def _general_reduce(ctx, *args, computation, dimensions):
    # one stablehlo.reduce whose region is the computation's graph
    n = len(args) // 2
    region = computation_region(ctx, computation, ctx.avals_in[:n])
    ins = ", ".join(ctx.type(a) for a in ctx.avals_in)
    outs = ", ".join(ctx.type(a) for a in ctx.avals_out)
    res = ctx.op_results(f'"stablehlo.reduce"({", ".join(args)}) <{{dimensions = '
                         f'{i64_array(dimensions)}}}> ({region}) : ({ins}) -> ({outs})', n)
    return list(res)
