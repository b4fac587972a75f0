"""Lowering rules of the window reductions: one ``stablehlo.reduce_window`` whose body is
the monoid's op and whose init value is its identity (which also fills the padding and the
holes of a base dilation); the general ``reduce_window`` with its computation as the body
and its init values."""
from __future__ import annotations

from frontend.primitives import reductions as red
from frontend.primitives import windows as win

from .reductions import MONOIDS, _init, _scalar, computation_region, monoid_region
from .shape import i64_array


def _attrs(ndim, window_dimensions, window_strides, padding, base_dilation, window_dilation):
    pad = "[" + ", ".join(f"[{lo}, {hi}]" for lo, hi in padding) + "]" if padding else ""
    return (f"padding = dense<{pad}> : tensor<{ndim}x2xi64>, "
            f"window_dimensions = {i64_array(window_dimensions)}, "
            f"window_strides = {i64_array(window_strides)}, "
            f"base_dilations = {i64_array(base_dilation)}, "
            f"window_dilations = {i64_array(window_dilation)}")


def _window(monoid):
    op, identity = MONOIDS[monoid], red.IDENTITY[monoid]

    def rule(ctx, x, **params):
        a, out = ctx.avals_in[0], ctx.avals_out[0]
        if a.ndim == 0:  # one window of the one element
            return [x]
        init = _init(ctx, identity(a.dtype), a.dtype)
        s = _scalar(a)
        return [ctx.op(f'"stablehlo.reduce_window"({x}, {init}) <{{{_attrs(a.ndim, **params)}}}> '
                       f"({monoid_region(ctx, op, s)}) : ({ctx.type(a)}, {ctx.type(s)}) -> "
                       f"{ctx.type(out)}")]

    return rule


for _p, _m in {win.reduce_window_sum_p: red.reduce_sum_p, win.reduce_window_max_p: red.reduce_max_p,
               win.reduce_window_min_p: red.reduce_min_p}.items():
    _p.def_lowering(_window(_m))


@win.reduce_window_p.def_lowering
def _general_window(ctx, *args, computation, **params):
    n = len(args) // 2
    a = ctx.avals_in[0]
    ins = ", ".join(ctx.type(v) for v in ctx.avals_in)
    outs = ", ".join(ctx.type(v) for v in ctx.avals_out)
    return list(ctx.op_results(
        f'"stablehlo.reduce_window"({", ".join(args)}) <{{{_attrs(a.ndim, **params)}}}> '
        f"({computation_region(ctx, computation, ctx.avals_in[:n])}) : ({ins}) -> ({outs})", n))
