"""The error-function family: wofz (Faddeeva), erfcx, dawsn, fresnel.

wofz is Weideman's rational approximation (J. A. C. Weideman, "Computation of the complex
error function", SIAM J. Numer. Anal. 31, 1994): for Im z >= 0,
w(z) = 2 p(Z) / (L - iz)^2 + 1 / (sqrt(pi) (L - iz)), Z = (L + iz) / (L - iz), with the
polynomial p's coefficients computed here from the paper's FFT recipe; below the real axis
w(z) = 2 exp(-z^2) - w(-z). Dawson's integral and the Fresnel integrals follow from w
(power series near 0, where w's absolute accuracy is not relative accuracy)."""
from __future__ import annotations

import numpy as np

from ... import lax
from ...core import dtypes
from ...core.ir import aval_of
from ...numpy._sorting import where
from ...transforms.custom_derivatives import custom_jvp
from ._base import _inexact, _strong, horner, in_float32, is_f64, real_inexact


def _weideman(n_terms: int = 32):
    m = 2 * n_terms
    scale = np.sqrt(n_terms / np.sqrt(2.0))
    t = scale * np.tan(np.arange(-m + 1, m) * np.pi / (2 * m))
    f = np.concatenate([[0.0], np.exp(-t * t) * (scale * scale + t * t)])
    a = np.real(np.fft.fft(np.fft.fftshift(f))) / (2 * m)
    return scale, [float(c) for c in a[1:n_terms + 1][::-1]]


_L, _WC = _weideman()
_SQRT_PI = float(np.sqrt(np.pi))


def _complex_dtype(d):
    return np.complex128 if np.dtype(d) in (np.float64, np.complex128) else np.complex64


def _cplx(re, im):
    return lax.complex(re, im)


def _w_upper(z):
    """w(z) for Im z >= 0."""
    iz = _cplx(-lax.imag(z), lax.real(z))
    den = _L - iz
    big_z = (_L + iz) / den
    return 2.0 * horner(_WC, big_z) / (den * den) + (1.0 / _SQRT_PI) / den


@custom_jvp
def _wofz(z):
    upper = lax.imag(z) >= 0
    zu = where(upper, z, -z)
    wu = _w_upper(zu)
    return where(upper, wu, 2.0 * lax.exp(-(z * z)) - wu)


_wofz.defjvps(lambda g, ans, z: g * (-2.0 * z * ans + _cplx(z.real * 0, z.real * 0 + 2 / _SQRT_PI)))


def wofz(z):
    """The Faddeeva function w(z) = exp(-z^2) erfc(-iz) (complex result; real input becomes
    complex64/complex128 as JAX's)."""
    (z,) = _inexact("wofz", z)
    d = aval_of(z).dtype
    if np.dtype(d).itemsize < 4:
        z = lax.convert_element_type(z, np.float32)
        d = np.float32
    if not dtypes.is_complex(d):
        z = _cplx(z, z * 0)
    return _strong(_wofz(z))


def _erfcx_asymptotic(x, n_terms):
    """erfcx(x) ~ 1 / (sqrt(pi) x) * sum_k (-1)^k (2k-1)!! / (2 x^2)^k, for large x."""
    coeffs, c = [1.0], 1.0
    for k in range(1, n_terms):
        c *= -(2 * k - 1) / 2.0
        coeffs.append(c)
    return horner(coeffs[::-1], 1.0 / (x * x)) / (x * _SQRT_PI)


def _erfcx_real(x):
    big = float(np.sqrt(np.log(np.finfo(aval_of(x).dtype).max)))
    large = x > big
    safe = where(large, 1.0, x)
    direct = lax.exp(safe * safe) * lax.erfc(safe)
    return where(large, _erfcx_asymptotic(where(large, x, big), 9 if is_f64(x) else 5), direct)


@custom_jvp
def _erfcx(x):
    return in_float32(_erfcx_real, x)


_erfcx.defjvps(lambda g, ans, x: g * (2.0 * x * ans - 2.0 / _SQRT_PI))


def erfcx(x):
    """The scaled complementary error function exp(x^2) erfc(x) (complex x: w(ix))."""
    (x,) = _inexact("erfcx", x)
    if dtypes.is_complex(aval_of(x).dtype):
        return wofz(_cplx(-lax.imag(x), lax.real(x)))
    return _strong(_erfcx(x))


def _odd_series(x, coeff, n_terms):
    """sum_k coeff(k) x^(2k+1) by Horner in x^2."""
    return x * horner([coeff(k) for k in range(n_terms - 1, -1, -1)], x * x)


def _dawsn_real(x):
    small = lax.abs(x) < 0.2
    # D(x) = sum_k (-2)^k x^(2k+1) / (2k+1)!!
    fact = [1.0]
    for k in range(1, 12):
        fact.append(fact[-1] * (2 * k + 1))
    near = _odd_series(x, lambda k: (-2.0) ** k / fact[k], 12)
    inf = lax.abs(x) == np.inf
    safe = where(small | inf, 1.0, x)
    w = _wofz(_cplx(safe, safe * 0))
    far = where(inf, 1.0 / x, 0.5 * _SQRT_PI * lax.imag(w))
    return where(small, near, far)


@custom_jvp
def _dawsn(x):
    return in_float32(_dawsn_real, x)


_dawsn.defjvps(lambda g, ans, x: g * (1.0 - 2.0 * x * ans))


def dawsn(x):
    """Dawson's integral exp(-x^2) int_0^x exp(t^2) dt = sqrt(pi)/2 Im w(x)."""
    (x,) = real_inexact("dawsn", x)
    return _strong(_dawsn(x))


def _fresnel_real(x):
    ax = lax.abs(x)
    small = ax < 1.0
    h = np.pi / 2
    fs, fc = [], []
    f = 1.0
    for n in range(16):  # (pi/2)^k / k!, the series' coefficients
        fc.append((-1) ** n * h ** (2 * n) / f / (4 * n + 1))
        fs.append((-1) ** n * h ** (2 * n + 1) / (f * (2 * n + 1)) / (4 * n + 3))
        f *= (2 * n + 1) * (2 * n + 2)
    x2 = ax * ax
    x4 = x2 * x2
    c_near = ax * horner(fc[::-1], x4)
    s_near = ax * x2 * horner(fs[::-1], x4)
    # C + iS = (1 + i)/2 (1 - exp(i pi x^2/2) w((1 + i) sqrt(pi) x / 2)), x >= 1
    huge = ax > (1e8 if is_f64(x) else 1e4)
    safe = where(small | huge, 1.0, ax)
    r = 0.5 * _SQRT_PI * safe
    w = _wofz(_cplx(r, r))
    ph = h * safe * safe
    e = _cplx(lax.cos(ph), lax.sin(ph))
    v = 1.0 - e * w
    vr, vi = lax.real(v), lax.imag(v)
    c_far = 0.5 * (vr - vi)
    s_far = 0.5 * (vr + vi)
    # (beyond ~1/eps the oscillating terms are below rounding: 1/2 minus the leading term)
    c_huge = 0.5 + lax.sin(h * x2) / (np.pi * ax)
    s_huge = 0.5 - lax.cos(h * x2) / (np.pi * ax)
    c_huge = where(ax == np.inf, 0.5, c_huge)
    s_huge = where(ax == np.inf, 0.5, s_huge)
    c = where(small, c_near, where(huge, c_huge, c_far))
    s = where(small, s_near, where(huge, s_huge, s_far))
    return s * where(x < 0, -1.0, 1.0), c * where(x < 0, -1.0, 1.0)


@custom_jvp
def _fresnel(x):
    return in_float32(_fresnel_real, x)


@_fresnel.defjvp
def _(primals, tangents):
    (x,), (g,) = primals, tangents
    ph = (np.pi / 2) * x * x
    return _fresnel(x), (g * lax.sin(ph), g * lax.cos(ph))


def fresnel(x):
    """The Fresnel integrals (S(x), C(x)) = int_0^x (sin, cos)(pi t^2 / 2) dt."""
    (x,) = real_inexact("fresnel", x)
    s, c = _fresnel(x)
    return _strong(s), _strong(c)
