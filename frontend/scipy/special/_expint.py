"""Exponential and trigonometric integrals and the dilogarithm: expn, exp1, expi, sici,
spence.

E_n(x): for x <= 1 the power series (Abramowitz & Stegun 5.1.12, the digamma term where
k = n - 1), for x > 1 the continued fraction A&S 5.1.22 evaluated backwards from a fixed
depth. Ei(x): the series gamma + log x + sum x^k / (k k!) up to 50, the asymptotic series
e^x / x sum k! / x^k beyond, -E_1(-x) for x < 0. Si and Ci: power series up to 4, beyond the
continued fraction of E_1(ix) = -Ci(x) + i (Si(x) - pi/2). spence(x) = Li2(1 - x): the
series of Li2 in u = -log(1 - z) with Bernoulli coefficients, after the reflection and
inversion formulas bring z into [-1, 1/2]."""
from __future__ import annotations

import math

import numpy as np

from ... import lax
from ...core import dtypes
from ...core.ir import aval_of
from ...numpy._core import asarray
from ...numpy._sorting import where
from ...transforms.custom_derivatives import custom_jvp
from ._base import _strong, bernoulli_numbers, horner, in_float32, real_inexact, series

_EULER = 0.57721566490153286061
_CF_DEPTH = 128   # E_n's continued fraction at x = 1 + eps: 6e-15 relative at depth 80
_SICI_DEPTH = 48  # E_1(ix) for x >= 4: 9e-16 at depth 40


def _expn_series(n, x):
    """E_n(x) for 0 < x <= 1 (n a non-negative integer value)."""
    nm1 = n - 1.0
    lx = lax.log(x)
    psi = lax.digamma(where(n > 0, n, 1.0))
    start = where(nm1 == 0, -lx - _EULER, 1.0 / where(nm1 == 0, 1.0, nm1))

    def body(i, carry):
        total, fact = carry
        fact = fact * (-x / i)
        at_pole = i == nm1
        term = where(at_pole, fact * (psi - lx), -fact / where(at_pole, 1.0, i - nm1))
        return total + term, fact
    return series(24, body, (start, x * 0 + 1.0), x)[0]


def _expn_cf(n, x):
    """E_n(x) for x > 1, the continued fraction A&S 5.1.22 from depth _CF_DEPTH down."""
    def body(k, t):
        i = _CF_DEPTH + 1.0 - k
        return i * (n - 1.0 + i) / (x + n + 2.0 * i - t)
    t = series(_CF_DEPTH, body, x * 0, x)
    return lax.exp(-x) / (x + n - t)


def _expn_real(n, x):
    bad = (n < 0) | (x < 0) | (lax.floor(n) != n)
    pos = x > 0
    small = pos & (x <= 1)
    xs = where(small, x, 0.5)
    xl = where(pos & ~small & (x < np.inf), x, 2.0)
    ns = where(bad | (n == 0), 1.0, n)
    general = where(small, _expn_series(ns, xs), _expn_cf(ns, xl))
    general = where(x == np.inf, 0.0, general)
    at0 = where(n <= 1, np.inf, 1.0 / where(n <= 1, 1.0, n - 1.0))
    xp = where(pos, x, 1.0)
    out = where(n == 0, lax.exp(-xp) / xp, general)
    out = where(pos, out, at0)
    return where(bad | (x != x) | (n != n), np.nan, out)


@custom_jvp
def _expn(n, x):
    return in_float32(_expn_real, n, x)


@_expn.defjvp
def _(primals, tangents):
    (n, x), (_, tx) = primals, tangents
    return _expn(n, x), -tx * _expn(n - 1.0, x)


def expn(n, x):
    """The generalized exponential integral E_n(x) = int_1^inf e^(-x t) / t^n dt (integer
    n >= 0, x >= 0; NaN elsewhere; E_n(0) = 1/(n - 1) for n >= 2, as scipy's)."""
    n, x = real_inexact("expn", n, x)
    return _strong(_expn(lax.stop_gradient(n), x))


def exp1(x):
    """The exponential integral E_1(x) = int_x^inf e^(-t) / t dt (NaN for x < 0)."""
    (x,) = real_inexact("exp1", x)
    return _strong(_expn(x * 0 + 1.0, x))


_EI_SERIES_TO = 50.0


def _expi_pos(x):
    """Ei(x) for x > 0."""
    near = x <= _EI_SERIES_TO
    xs = where(near, x, 1.0)

    def grow(k, carry):
        total, term = carry
        term = term * xs / k
        return total + term / k, term
    sum_near = series(150, grow, (xs * 0, xs * 0 + 1.0), xs)[0]
    ei_near = _EULER + lax.log(xs) + sum_near
    xa = where(near, 2 * _EI_SERIES_TO, x)

    def asym(k, carry):
        total, term = carry
        term = term * k / xa
        return total + term, term
    sum_far = series(60, asym, (xa * 0 + 1.0, xa * 0 + 1.0), xa)[0]
    ei_far = lax.exp(xa) / xa * sum_far
    return where(near, ei_near, ei_far)


def _expi_real(x):
    neg = x < 0
    ei_pos = _expi_pos(where(neg | (x == 0), 1.0, x))
    xn = where(neg, -x, 1.0)
    ei_neg = -_expn_real(xn * 0 + 1.0, xn)
    out = where(neg, ei_neg, ei_pos)
    out = where(x == 0, -np.inf, out)
    return where(x == np.inf, np.inf, out)


@custom_jvp
def _expi(x):
    return in_float32(_expi_real, x)


_expi.defjvps(lambda g, _ans, x: g * lax.exp(x) / x)


def expi(x):
    """The exponential integral Ei(x) = -PV int_{-x}^inf e^(-t) / t dt."""
    (x,) = real_inexact("expi", x)
    return _strong(_expi(x))


def _factorials(n):
    return [float(math.factorial(k)) for k in range(n)]


_F = _factorials(48)
_SI_C = [(-1) ** k / ((2 * k + 1) * _F[2 * k + 1]) for k in range(22)]
_CI_C = [(-1) ** k / (2 * k * _F[2 * k]) for k in range(1, 22)]


def _sici_real(x):
    ax = lax.abs(x)
    near = ax <= 4.0
    xs = where(near, ax, 1.0)
    x2 = xs * xs
    si_near = xs * horner(_SI_C[::-1], x2)
    ci_near = _EULER + lax.log(xs) + x2 * horner(_CI_C[::-1], x2)
    fin = ax < np.inf
    xf = where(near | ~fin, 8.0, ax)
    cd = np.complex128 if aval_of(x).dtype == np.float64 else np.complex64
    z = lax.complex(xf * 0, xf)

    def body(k, t):
        i = _SICI_DEPTH + 1.0 - k
        return lax.convert_element_type(i * i, cd) / (z + (2.0 * i + 1.0) - t)
    t = series(_SICI_DEPTH, body, lax.convert_element_type(xf * 0, cd), xf)
    e1 = lax.complex(lax.cos(xf), -lax.sin(xf)) / (z + 1.0 - t)
    si_far = np.pi / 2 + lax.imag(e1)
    ci_far = -lax.real(e1)
    si = where(near, si_near, where(fin, si_far, np.pi / 2))
    ci = where(near, ci_near, where(fin, ci_far, 0.0))
    ci = where(ax == 0, -np.inf, ci)
    return where(x < 0, -si, si), ci


@custom_jvp
def _sici(x):
    return in_float32(_sici_real, x)


@_sici.defjvp
def _(primals, tangents):
    (x,), (g,) = primals, tangents
    return _sici(x), (g * lax.sin(x) / x, g * lax.cos(x) / x)


def sici(x):
    """The sine and cosine integrals (Si(x), Ci(x)): Si odd, Ci(x) = Ci(|x|) (JAX's)."""
    (x,) = real_inexact("sici", x)
    si, ci = _sici(x)
    return _strong(si), _strong(ci)


_LI2_C = [float(b) / math.factorial(k + 1) for k, b in enumerate(bernoulli_numbers(24))]


def _li2_near(u):
    """Li2(z) for u = -log(1 - z), |u| <= log 2: sum_k B_k u^(k+1) / (k+1)!."""
    return u * horner(_LI2_C[::-1], u)


def _spence_real(x):
    pi2_6 = np.pi ** 2 / 6
    mid = (x >= 0.5) & (x <= 2.0)
    low = x < 0.5
    # x in [1/2, 2]: z = 1 - x in [-1, 1/2], u = -log(x)
    xm = where(mid, x, 1.0)
    v_mid = _li2_near(-lax.log(xm))
    # x in [0, 1/2): Li2(z) = pi^2/6 - log(z) log(1 - z) - Li2(1 - z), 1 - z = x
    xl = where(low & (x > 0), x, 0.25)
    v_low = pi2_6 - lax.log1p(-xl) * lax.log(xl) - _li2_near(-lax.log1p(-xl))
    v_low = where(x == 0, pi2_6, v_low)
    # x > 2: Li2(z) = -pi^2/6 - log(-z)^2 / 2 - Li2(1/z), -z = x - 1
    xh = where(mid | low, 4.0, x)
    lh = lax.log(xh - 1.0)
    v_high = -pi2_6 - 0.5 * lh * lh - _li2_near(lax.log1p(-1.0 / xh))
    out = where(mid, v_mid, where(low, v_low, v_high))
    return where(x < 0, np.nan, out)


@custom_jvp
def _spence(x):
    return in_float32(_spence_real, x)


_spence.defjvps(lambda g, _ans, x: g * where(x == 1, -1.0, lax.log(x) / where(x == 1, 2.0, 1.0 - x)))


def spence(x):
    """Spence's function int_1^x log(t) / (1 - t) dt = Li2(1 - x) (NaN for x < 0)."""
    d = aval_of(asarray(x)).dtype
    if not dtypes.is_float(d):
        raise TypeError(f"x.dtype={d} is not supported, see docstring for supported types.")
    (x,) = real_inexact("spence", x)
    return _strong(_spence(x))
