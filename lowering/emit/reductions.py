"""Emitters of the reduction family.

- reduce_<monoid>: ``stablehlo.reduce(%x init: %c) applies stablehlo.<op> across dimensions
  = [...]`` (pretty form), init = the monoid's identity.
- argmax/argmin: a variadic ``stablehlo.reduce`` over (values, iota along the axis) whose
  comparator region is a total order (NaN above everything, ties to the lower index), so the
  result does not depend on XLA's reduction order.
- cum<monoid>: ``stablehlo.reduce_window`` with a window spanning the whole axis and padding
  of (n - 1) before it (after it when ``reverse``), the monoid as body.

Region bodies take fresh SSA names from the function context and never use values defined
outside the region.
"""
from __future__ import annotations

import numpy as np

from frontend import dtypes
from frontend.core import Aval
from frontend.primitives import reductions as red

from ..hlo import emitter, tensor_type


def _ints(xs) -> str:
    return ", ".join(map(str, xs))


def _scalar(aval: Aval) -> Aval:
    return Aval((), aval.dtype)


def _init(ctx, value, dtype) -> str:
    """A scalar init value. Complex infinities (max/min identities, lexicographic order) are
    built from real parts, as hlo's scalar text covers only finite complex values."""
    d = np.dtype(dtype)
    if dtypes.is_complex(d) and not np.isfinite(value):
        part = Aval((), np.finfo(d).dtype)
        r = ctx.constant(value, part)
        return ctx.op(f"stablehlo.complex {r}, {r} : {tensor_type(Aval((), d))}")
    return ctx.constant(value, Aval((), d))


@emitter(*red.REDUCE)
def _reduce(ctx, eqn, x):
    a, out = eqn.inputs[0].aval, eqn.outs[0].aval
    axes = tuple(eqn.params["axes"])
    if not axes:
        return [x]
    init = _init(ctx, eqn.prim.identity(a.dtype), a.dtype)
    return [ctx.op(f"stablehlo.reduce({x} init: {init}) applies stablehlo.{eqn.prim.hlo} "
                   f"across dimensions = [{_ints(axes)}] : ({tensor_type(a)}, "
                   f"{tensor_type(_scalar(a))}) -> {tensor_type(out)}")]


def _cmp_type(dtype) -> str:
    if dtypes.is_inexact(dtype):
        return "FLOAT"
    if dtypes.is_unsigned(dtype) or dtypes.is_bool(dtype):
        return "UNSIGNED"
    return "SIGNED"


@emitter("argmax", "argmin")
def _argreduce(ctx, eqn, x):
    a, out = eqn.inputs[0].aval, eqn.outs[0].aval
    (k,) = eqn.params["axes"]
    idx_dtype = out.dtype
    is_max = eqn.prim.is_max
    iota_aval = Aval(a.shape, idx_dtype)
    iota = ctx.op(f"stablehlo.iota dim = {k} : {tensor_type(iota_aval)}")
    v_init = ctx.constant(red._lowest(a.dtype) if is_max else red._highest(a.dtype), _scalar(a))
    i_init = ctx.constant(0, Aval((), idx_dtype))
    vt, it = tensor_type(_scalar(a)), tensor_type(Aval((), idx_dtype))
    bt = "tensor<i1>"
    va, ia, vb, ib = (ctx.fresh() for _ in range(4))
    res = ctx.fresh()
    body: list = []

    def op(rhs):
        n = ctx.fresh()
        body.append(f"      {n} = {rhs}")
        return n

    ct = _cmp_type(a.dtype)
    better = op(f"stablehlo.compare {'GT' if is_max else 'LT'}, {va}, {vb}, {ct} : ({vt}, {vt}) -> {bt}")
    equal = op(f"stablehlo.compare EQ, {va}, {vb}, {ct} : ({vt}, {vt}) -> {bt}")
    if dtypes.is_inexact(a.dtype):
        # NaN is above every number; two NaNs are equal
        a_nan = op(f"stablehlo.compare NE, {va}, {va}, FLOAT : ({vt}, {vt}) -> {bt}")
        b_nan = op(f"stablehlo.compare NE, {vb}, {vb}, FLOAT : ({vt}, {vt}) -> {bt}")
        not_b_nan = op(f"stablehlo.not {b_nan} : {bt}")
        a_only_nan = op(f"stablehlo.and {a_nan}, {not_b_nan} : {bt}")
        better = op(f"stablehlo.or {better}, {a_only_nan} : {bt}")
        both_nan = op(f"stablehlo.and {a_nan}, {b_nan} : {bt}")
        equal = op(f"stablehlo.or {equal}, {both_nan} : {bt}")
    lower_idx = op(f"stablehlo.compare LT, {ia}, {ib}, {_cmp_type(idx_dtype)} : ({it}, {it}) -> {bt}")
    tie_a = op(f"stablehlo.and {equal}, {lower_idx} : {bt}")
    pick_a = op(f"stablehlo.or {better}, {tie_a} : {bt}")
    v = op(f"stablehlo.select {pick_a}, {va}, {vb} : {bt}, {vt}")
    i = op(f"stablehlo.select {pick_a}, {ia}, {ib} : {bt}, {it}")
    out_v = Aval(out.shape, a.dtype)
    ctx.lines.append(
        f'    {res}:2 = "stablehlo.reduce"({x}, {iota}, {v_init}, {i_init}) '
        f"<{{dimensions = array<i64: {k}>}}> ({{\n"
        f"    ^bb0({va}: {vt}, {ia}: {it}, {vb}: {vt}, {ib}: {it}):")
    ctx.lines.extend(body)
    ctx.lines.append(
        f'      "stablehlo.return"({v}, {i}) : ({vt}, {it}) -> ()\n'
        f"    }}) : ({tensor_type(a)}, {tensor_type(iota_aval)}, {vt}, {it}) -> "
        f"({tensor_type(out_v)}, {tensor_type(out)})")
    return [f"{res}#1"]


@emitter(*red.CUMULATIVE)
def _cumulative(ctx, eqn, x):
    a = eqn.inputs[0].aval
    axis, reverse = eqn.params["axis"], eqn.params.get("reverse", False)
    n = a.shape[axis]
    if n <= 1:
        return [x]
    monoid = eqn.prim.monoid
    init = _init(ctx, monoid.identity(a.dtype), a.dtype)
    window = [n if i == axis else 1 for i in range(a.ndim)]
    before_after = [0, n - 1] if reverse else [n - 1, 0]
    pad = [before_after if i == axis else [0, 0] for i in range(a.ndim)]
    pad_text = "[" + ", ".join(f"[{lo}, {hi}]" for lo, hi in pad) + "]"
    st = tensor_type(_scalar(a))
    p, q = ctx.fresh(), ctx.fresh()
    res = ctx.fresh()
    s = ctx.fresh()
    ctx.lines.append(
        f'    {res} = "stablehlo.reduce_window"({x}, {init}) <{{padding = dense<{pad_text}> : '
        f"tensor<{a.ndim}x2xi64>, window_dimensions = array<i64: {_ints(window)}>}}> ({{\n"
        f"    ^bb0({p}: {st}, {q}: {st}):\n"
        f"      {s} = stablehlo.{monoid.hlo} {p}, {q} : {st}\n"
        f"      stablehlo.return {s} : {st}\n"
        f"    }}) : ({tensor_type(a)}, {st}) -> {tensor_type(a)}")
    return [res]
