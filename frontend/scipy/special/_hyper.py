"""Hypergeometric functions and Owen's T: hyp1f1, hyp2f1, owens_t.

1F1 (Pearson, Olver & Porter, "Numerical methods for the computation of the confluent and
Gauss hypergeometric functions", 2017): the Taylor series for |x| < 100, the large-|x|
asymptotic series beyond, Kummer's transformation 1F1(a; b; x) = e^x 1F1(b - a; b; -x) for
x < 0. 2F1: the Taylor series for 0 <= x <= 0.9 (and terminating series for non-positive
integer a or b), the 1 - x connection formula (A&S 15.3.6) above 0.9 when c - a - b is not
an integer, Pfaff's transformation for x < 0, Gauss's sum at x = 1. Owen's T: Gauss-Legendre
quadrature of (1/2pi) int_0^a exp(-h^2 (1 + t^2) / 2) / (1 + t^2) dt for |a| <= 1, the
identity T(h, a) = Q(h)/2 + Q(ah)/2 - Q(h) Q(ah) - T(ah, 1/a) above. Derivatives are those
of the computation (the series are differentiated term by term)."""
from __future__ import annotations

import numpy as np

from ... import lax
from ...core.ir import aval_of
from ...numpy import _reductions as red
from ...numpy._sorting import where
from ._base import _strong, gamma, in_float32, real_inexact, series

_TERMS_1F1 = 300
_TERMS_2F1 = 500


def _m_series(a, b, x):
    """sum_k (a)_k / (b)_k x^k / k!, x >= 0 moderate."""
    def body(k, carry):
        total, term = carry
        term = term * (a + k - 1.0) / (b + k - 1.0) * x / k
        return total + term, term
    one = x * 0 + 1.0
    return series(_TERMS_1F1, body, (one, one), x)[0]


def _m_asymptotic(a, b, y, shift):
    """Gamma(b)/Gamma(a) exp(y + shift) y^(a - b) sum_k (b - a)_k (1 - a)_k / k! y^-k, y >= 100."""
    def body(k, carry):
        total, term = carry
        term = term * (b - a + k - 1.0) * (1.0 - a + k - 1.0) / k / y
        return total + term, term
    one = y * 0 + 1.0
    s = series(60, body, (one, one), y)[0]
    return gamma(b) / gamma(a) * lax.exp(y + shift) * lax.pow(y, a - b) * s


def _hyp1f1_real(a, b, x):
    neg = x < 0
    ap = where(neg, b - a, a)  # Kummer: 1F1(a; b; x) = e^x 1F1(b - a; b; -x)
    y = lax.abs(x)
    big = y >= 100.0
    ys = where(big, 1.0, y)
    near = _m_series(ap, b, ys) * where(neg, lax.exp(where(big, 0.0, x)), 1.0)
    yb = where(big, y, 100.0)
    far = _m_asymptotic(ap, b, yb, where(neg, -yb, 0.0))
    out = where(big, far, near)
    out = where(b == 0, np.inf, out)
    out = where((a == b) & (a != 0), lax.exp(x), out)
    return where(a == 0, 1.0, out)


def hyp1f1(a, b, x):
    """Kummer's confluent hypergeometric function 1F1(a; b; x) (real arguments; 1 where
    a = 0, including a = b = 0, as JAX's)."""
    a, b, x = real_inexact("hyp1f1", a, b, x)
    return _strong(in_float32(_hyp1f1_real, a, b, x))


def _f_series(a, b, c, x, terms):
    def body(k, carry):
        total, term = carry
        term = term * (a + k - 1.0) * (b + k - 1.0) / (c + k - 1.0) * x / k
        return total + term, term
    one = x * 0 + 1.0
    return series(terms, body, (one, one), x)[0]


def _nonpos_int(v):
    return (v <= 0) & (lax.floor(v) == v)


def _f_unit(a, b, c, x):
    """2F1 for 0 <= x < 1."""
    d = c - a - b
    hi = (x > 0.9) & (lax.floor(d) != d)
    xs = where(hi, 0.0, x)
    low = _f_series(a, b, c, xs, _TERMS_2F1)
    # A&S 15.3.6: the connection to 1 - x
    w = where(hi, 1.0 - x, 0.05)
    ds = where(hi, d, 0.5)
    g_c = gamma(c)
    t1 = g_c * gamma(ds) / (gamma(c - a) * gamma(c - b)) * _f_series(a, b, 1.0 - ds, w, 60)
    t2 = (g_c * gamma(-ds) / (gamma(a) * gamma(b)) * lax.pow(w, ds)
          * _f_series(c - a, c - b, ds + 1.0, w, 60))
    return where(hi, t1 + t2, low)


def _hyp2f1_real(a, b, c, x):
    terminating = _nonpos_int(a) | _nonpos_int(b)
    poly = _f_series(a, b, c, where(terminating, x, 0.0), _TERMS_2F1)
    neg = x < 0
    # Pfaff: 2F1(a, b; c; x) = (1 - x)^-a 2F1(a, c - b; c; x / (x - 1))
    bb = where(neg, c - b, b)
    xu = where(neg, x / (x - 1.0), x)
    xu = where(terminating | (xu >= 1.0), 0.5, xu)
    gen = _f_unit(a, bb, c, xu) * where(neg, lax.pow(1.0 - where(neg, x, 0.0), -a), 1.0)
    d = c - a - b
    gauss = where(d > 0, gamma(c) * gamma(where(d > 0, d, 1.0))
                  / (gamma(c - a) * gamma(c - b)), np.inf)
    out = where(x == 1, gauss, where(x > 1, np.nan, gen))
    return where(terminating, poly, out)


def hyp2f1(a, b, c, x):
    """Gauss's hypergeometric function 2F1(a, b; c; x) for real x <= 1 (the terminating
    series for any x when a or b is a non-positive integer)."""
    a, b, c, x = real_inexact("hyp2f1", a, b, c, x)
    return _strong(in_float32(_hyp2f1_real, a, b, c, x))


_GL_T, _GL_W = np.polynomial.legendre.leggauss(48)
_GL_T, _GL_W = (_GL_T + 1) / 2, _GL_W / 2   # on [0, 1]


def _t_quadrature(h, a):
    """T(h, a) for |a| <= 1 by Gauss-Legendre in t = a s, s in [0, 1]."""
    d = aval_of(h).dtype
    s = np.asarray(_GL_T, d)
    wts = np.asarray(_GL_W, d)
    hh = lax.expand_dims(h, (h.ndim,))
    aa = lax.expand_dims(a, (a.ndim,))
    q = 1.0 + (aa * s) ** 2
    f = lax.exp(-0.5 * hh * hh * q) / q
    return a / (2 * np.pi) * red.sum(f * wts, axis=-1)


def _q(x):
    return 0.5 * lax.erfc(x * float(np.sqrt(0.5)))


def _owens_t_real(h, a):
    h = lax.abs(h)
    sign = where(a < 0, -1.0, 1.0)
    a = lax.abs(a)
    small = a <= 1.0
    a_in = where(small, a, 1.0 / a)
    h_in = where(small, h, a * h)
    t = _t_quadrature(where(h_in == np.inf, 0.0, h_in), a_in)
    t = where(h_in == np.inf, 0.0, t)
    q1, q2 = _q(h), _q(a * h)
    big = 0.5 * q1 + 0.5 * q2 - q1 * q2 - t
    big = where(a == np.inf, 0.5 * q1, big)
    return sign * where(small, t, big)


def owens_t(h, a):
    """Owen's T function (1/2pi) int_0^a exp(-h^2 (1 + x^2) / 2) / (1 + x^2) dx."""
    h, a = real_inexact("owens_t", h, a)
    return _strong(in_float32(_owens_t_real, h, a))


def bessel_jn(z, *, v: int, n_iter: int = 50):
    """J_0(z) .. J_v(z) stacked on a new leading axis, by Miller's backward recurrence
    f_k = 2 (k + 1) / z f_(k+1) - f_(k+2) from k = n_iter (f = 1e-16 above it), normalized by
    J_0 + 2 sum_k J_2k = 1 (Zhang & Jin, "Computation of Special Functions", 1996)."""
    import operator
    v, n_iter = operator.index(v), int(n_iter)
    (z,) = real_inexact("bessel_jn", z)
    if v > n_iter:
        raise ValueError(f"bessel_jn: v={v} must not exceed n_iter={n_iter}")

    def step(k, carry):
        f2, f1, norm = carry  # f_(k+2), f_(k+1), 2 sum of the even f above k
        f = 2.0 * (k + 1.0) * f1 / z - f2
        even = lax.rem(k, 2.0 * (k * 0 + 1.0)) == 0
        return f1, f, norm + where(even, 2.0 * f, 0.0 * f)

    init = (z * 0, z * 0 + 1e-16, z * 0)
    carry = init
    d = aval_of(z).dtype
    carry = lax.fori_loop(0, n_iter - v, lambda i, c: step(
        lax.convert_element_type(n_iter - i, d), c), carry)
    vals = []
    for k in range(v, -1, -1):
        carry = step(lax.convert_element_type(np.float32(k), d) + z * 0, carry)
        vals.append(carry[1])
    from ...numpy import stack
    f0, norm = vals[-1], carry[2]
    return _strong(stack(vals[::-1]) / (norm - f0))
