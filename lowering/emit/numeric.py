"""Lowering rules of the extra elementwise primitives (frontend/primitives/numeric.py) and
the special functions XLA expands itself: the StableHLO op where there is one, else the
CHLO op JAX emits (``chlo.asin``, ``chlo.erf``, ``chlo.next_after``, ...; XLA legalizes
CHLO, the interpreter backend expands it first), so values agree with JAX's."""
from __future__ import annotations

import numpy as np

from frontend.core import dtypes
from frontend.core.ir import Aval
from frontend.primitives import numeric as nm
from frontend.primitives import special as sp

from .elementwise import _operands, elementwise


def chlo(op: str):
    """The lowering rule of an elementwise primitive that is the CHLO op ``op``."""

    def rule(ctx, *names):
        ops = _operands(ctx, names)
        out = ctx.avals_out[0]
        in_t = ", ".join(ctx.type(a.update(shape=out.shape)) for a in ctx.avals_in)
        return [ctx.op(f"chlo.{op} {', '.join(ops)} : {in_t} -> {ctx.type(out)}")]

    return rule


for _p, _op in {nm.asin_p: "asin", nm.acos_p: "acos", nm.atan_p: "atan", nm.sinh_p: "sinh",
                nm.cosh_p: "cosh", nm.asinh_p: "asinh", nm.acosh_p: "acosh",
                nm.atanh_p: "atanh", nm.nextafter_p: "next_after",
                sp.erf_p: "erf", sp.erfc_p: "erfc",
                sp.erf_inv_p: "erf_inv", sp.lgamma_p: "lgamma", sp.digamma_p: "digamma",
                sp.bessel_i1e_p: "bessel_i1e", sp.polygamma_p: "polygamma",
                sp.zeta_p: "zeta"}.items():
    _p.def_lowering(chlo(_op))

nm.cbrt_p.def_lowering(elementwise("cbrt"))
nm.clz_p.def_lowering(elementwise("count_leading_zeros"))
nm.real_p.def_lowering(elementwise("real"))
nm.imag_p.def_lowering(elementwise("imag"))
nm.is_finite_p.def_lowering(elementwise("is_finite"))


def _scalar(ctx, value, aval: Aval) -> str:
    """``value`` broadcast to ``aval``'s shape, in its dtype."""
    s = Aval((), aval.dtype)
    return ctx.broadcast(ctx.constant(value, s), s, aval.shape, ())


@nm.exp2_p.def_lowering
def _exp2(ctx, x):
    a = ctx.avals_in[0]
    t = ctx.type(a)
    y = ctx.op(f"stablehlo.multiply {_scalar(ctx, np.log(2.0), a)}, {x} : {t}")
    return [ctx.op(f"stablehlo.exponential {y} : {t}")]


@nm.complex_p.def_lowering
def _complex(ctx, x, y):
    x, y = _operands(ctx, (x, y))
    return [ctx.op(f"stablehlo.complex {x}, {y} : {ctx.type(ctx.avals_out[0])}")]


@nm.conj_p.def_lowering
def _conj(ctx, x):
    a, out = ctx.avals_in[0], ctx.avals_out[0]
    part = Aval(a.shape, np.finfo(out.dtype).dtype)
    if dtypes.is_complex(a.dtype):
        re = ctx.op(f"stablehlo.real {x} : ({ctx.type(a)}) -> {ctx.type(part)}")
        im = ctx.op(f"stablehlo.imag {x} : ({ctx.type(a)}) -> {ctx.type(part)}")
        im = ctx.op(f"stablehlo.negate {im} : {ctx.type(part)}")
    else:
        re, im = x, _scalar(ctx, 0.0, part)
    return [ctx.op(f"stablehlo.complex {re}, {im} : {ctx.type(out)}")]


@nm.integer_pow_p.def_lowering
def _integer_pow(ctx, x, *, y):
    # square-and-multiply over the bits of |y|; a negative power is 1 / x ** -y
    a = ctx.avals_in[0]
    t = ctx.type(a)
    acc, base, e = None, x, abs(y)
    while e:
        if e & 1:
            acc = base if acc is None else ctx.op(f"stablehlo.multiply {acc}, {base} : {t}")
        e >>= 1
        if e:
            base = ctx.op(f"stablehlo.multiply {base}, {base} : {t}")
    if acc is None:
        acc = _scalar(ctx, 1, a)
    if y < 0:
        acc = ctx.op(f"stablehlo.divide {_scalar(ctx, 1, a)}, {acc} : {t}")
    return [acc]


@nm.reduce_precision_p.def_lowering
def _reduce_precision(ctx, x, *, exponent_bits, mantissa_bits):
    return [ctx.op(f"stablehlo.reduce_precision {x}, format = e{exponent_bits}m{mantissa_bits} "
                   f": {ctx.type(ctx.avals_in[0])}")]


_MULHI_CHLO = chlo("mulhi")


@nm.mulhi_p.def_lowering
def _mulhi(ctx, x, y):
    # up to 32 bits: the product in the double-width integer, shifted down (XLA CPU cannot
    # emit chlo.mulhi fused with a transpose, e.g. under vmap at a middle axis; JAX fails
    # there); 64 bits: chlo.mulhi
    a = ctx.avals_out[0]
    d = np.dtype(a.dtype)
    if d.itemsize == 8:
        return _MULHI_CHLO(ctx, x, y)
    wide = Aval(a.shape, np.dtype(f"{d.kind}{2 * d.itemsize}"))
    t, wt = ctx.type(a), ctx.type(wide)
    x, y = (ctx.op(f"stablehlo.convert {v} : ({t}) -> {wt}") for v in _operands(ctx, (x, y)))
    p = ctx.op(f"stablehlo.multiply {x}, {y} : {wt}")
    shift = "shift_right_arithmetic" if d.kind == "i" else "shift_right_logical"
    p = ctx.op(f"stablehlo.{shift} {p}, {_scalar(ctx, 8 * d.itemsize, wide)} : {wt}")
    return [ctx.op(f"stablehlo.convert {p} : ({wt}) -> {t}")]


_SQUARE_CHLO = chlo("square")


@nm.square_p.def_lowering
def _square(ctx, x):
    # chlo.square takes floats and complex numbers only: integers multiply
    a = ctx.avals_in[0]
    if dtypes.is_inexact(a.dtype):
        return _SQUARE_CHLO(ctx, x)
    return [ctx.op(f"stablehlo.multiply {x}, {x} : {ctx.type(a)}")]
