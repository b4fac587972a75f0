"""Helpers shared by the special functions: inexact promotion, strong results, float32
working precision for half types, Horner evaluation and fixed-count series loops."""
from __future__ import annotations

import numpy as np

from ... import lax
from ...core import dtypes
from ...core.ir import aval_of
from ...lax._convert import convert
from ...numpy._core import asarray, check_arraylike, promote_dtypes_inexact
from ...numpy._elementwise import exp, isnan
from ...numpy._sorting import where as _where


def _inexact(name, *args):
    check_arraylike(name, *args)
    # (Python scalars as weakly typed arrays first: the results take operators)
    return promote_dtypes_inexact(name, *[asarray(a) if isinstance(a, (int, float)) else a
                                          for a in args])


def _strong(x):
    """``x`` not weakly typed (JAX's results built from typed constants are not)."""
    return lax.convert_element_type(x, aval_of(x).dtype)


def real_inexact(name, *args):
    """``args`` promoted to one real float dtype (complex refused with JAX's wording)."""
    out = _inexact(name, *args)
    if dtypes.is_complex(aval_of(out[0]).dtype):
        raise ValueError(f"{name} does not support complex-valued inputs.")
    if len(out) > 1:  # (one shape: the series loops carry it)
        from ...numpy import broadcast_arrays
        out = broadcast_arrays(*out)
    return list(out)


def in_float32(fn, *args):
    """``fn(*args)`` worked in float32 for 16-bit floats (cast back), else in their dtype."""
    d = aval_of(args[0]).dtype
    if np.dtype(d).itemsize >= 4:
        return fn(*args)
    out = fn(*[lax.convert_element_type(a, np.float32) for a in args])
    if isinstance(out, tuple):
        return tuple(lax.convert_element_type(o, d) for o in out)
    return lax.convert_element_type(out, d)


def horner(coeffs, x):
    """The polynomial with ``coeffs`` (highest degree first, Python floats) at ``x``."""
    p = x * 0 + coeffs[0]
    for c in coeffs[1:]:
        p = p * x + c
    return p


def is_f64(x) -> bool:
    return aval_of(x).dtype == np.float64


def series(n, body, init, x):
    """``n`` steps of ``carry = body(k, carry)`` with ``k`` = 1..n as a float of ``x``'s
    dtype (one stablehlo.while)."""
    d = aval_of(x).dtype

    def step(i, carry):
        return body(lax.convert_element_type(i, d), carry)
    return lax.fori_loop(1, n + 1, step, init)


def bernoulli_numbers(n: int) -> list:
    """The Bernoulli numbers B_0 .. B_n as Fractions (B_1 = -1/2), by the Akiyama-Tanigawa
    algorithm (which gives B_1 = +1/2; the sign is flipped)."""
    from fractions import Fraction
    out, row = [], []
    for m in range(n + 1):
        row.append(Fraction(1, m + 1))
        for j in range(m, 0, -1):
            row[j - 1] = j * (row[j - 1] - row[j])
        out.append(row[0])
    if n >= 1:
        out[1] = -out[1]
    return out


def gammasgn(x):
    """The sign of the gamma function (+1 for x > 0, alternating between the poles below)."""
    (x,) = _inexact("gammasgn", x)
    fl = lax.floor(x)
    neg_odd = (x < 0) & (x != fl) & (lax.rem(fl, convert(2, aval_of(fl).dtype, False)) != 0)
    return _strong(_where(isnan(x), x, _where(neg_odd, -1.0, 1.0)))


def gamma(x):
    """The gamma function, ``gammasgn(x) * exp(gammaln(x))``."""
    (x,) = _inexact("gamma", x)
    return gammasgn(x) * exp(lax.lgamma(x))
