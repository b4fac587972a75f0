"""Spherical harmonics: sph_harm_y, as jax.scipy.special's (JAX 0.10).

Y_n^m(theta, phi) = Pbar_n^|m|(cos theta) e^(i |m| phi), and (-1)^m times its conjugate for
m < 0, where Pbar_l^m are the associated Legendre functions with the spherical-harmonic
normalization sqrt((2l + 1) (l - m)! / (4 pi (l + m)!)) and the Condon-Shortley phase folded
in. They are computed for every degree and order up to the static ``n_max`` by the stable
recurrences over the degree l (one lax.scan over l, all orders at once):

    Pbar_0^0 = 1 / (2 sqrt(pi)),   Pbar_l^l = -sqrt(1 + 1 / (2l)) sqrt(1 - x^2) Pbar_(l-1)^(l-1),
    Pbar_l^m = a_lm x Pbar_(l-1)^m - b_lm Pbar_(l-2)^m   (m < l),
    a_lm = sqrt((4l^2 - 1) / (l^2 - m^2)),  b_lm = sqrt((2l + 1) ((l-1)^2 - m^2) / ((2l - 3) (l^2 - m^2)))

(b is 0 at m = l - 1, where the recurrence is Pbar_l^(l-1) = sqrt(2l + 1) x Pbar_(l-1)^(l-1)).
The coefficients are tables of the static n_max, so derivatives flow through x only.
As JAX's: n and m are 1-D and index the table with clipping (n beyond n_max reads n_max,
|m| > n reads 0), the k-th value uses theta[k] (the last theta when theta is shorter), and a
scalar theta is a 1-element vector."""
from __future__ import annotations

import numpy as np

from ... import lax
from ...core.ir import Tracer, aval_of
from ...numpy._core import asarray, check_arraylike
from ...numpy._creation import arange
from ...numpy._elementwise import absolute, cos, power, sin, sqrt
from ...numpy._numeric import conjugate
from ...numpy._shape import reshape
from ...numpy._sorting import where
from ...numpy._ufuncs import isscalar

_STATIC_N_MAX = ("The `n_max` argument of `jnp.scipy.special.sph_harm` must be statically "
                 "specified to use `sph_harm` within JAX transformations.")


def _recurrence_tables(n_max: int):
    """(a, b, diag) for l = 0..n_max: a[l, m], b[l, m] the three-term coefficients (0 where
    m >= l), diag[l] the factor from Pbar_l^l to Pbar_(l+1)^(l+1) over sqrt(1 - x^2)."""
    l_, m_ = np.meshgrid(np.arange(n_max + 1.0), np.arange(n_max + 1.0), indexing="ij")
    below = m_ < l_
    den = np.where(below, l_ * l_ - m_ * m_, 1.0)
    a = np.where(below, np.sqrt(np.abs(4.0 * l_ * l_ - 1.0) / den), 0.0)
    b_num = (2.0 * l_ + 1.0) * ((l_ - 1.0) ** 2 - m_ * m_)
    b_den = np.where(below, (2.0 * l_ - 3.0) * den, 1.0)
    b = np.where(m_ < l_ - 1, np.sqrt(np.abs(b_num / b_den)), 0.0)
    diag = -np.sqrt(1.0 + 0.5 / np.arange(1.0, n_max + 2.0))
    return a, b, diag


def normalized_legendre(n_max: int, x):
    """Pbar_l^m(x) for l, m = 0..n_max at the points of the 1-D ``x``: shape
    (n_max + 1 [l], n_max + 1 [m], len(x)), 0 where m > l."""
    d = aval_of(x).dtype
    a, b, diag = (t.astype(d) for t in _recurrence_tables(n_max))
    s = sqrt(1.0 - x * x)
    xs = x[None, :]

    def step(carry, coeffs):
        p1, p2, pll = carry  # Pbar_(l-1)^m, Pbar_(l-2)^m (all m), Pbar_l^l
        a_l, b_l, diag_l, is_diag = coeffs
        p = a_l[:, None] * xs * p1 - b_l[:, None] * p2 + is_diag[:, None] * pll[None, :]
        return (p, p1, diag_l * s * pll), p

    zeros = lax.broadcast_in_dim(lax.convert_element_type(0, d), (n_max + 1, x.shape[0]), ())
    p00 = lax.broadcast_in_dim(lax.convert_element_type(0.5 / np.sqrt(np.pi), d),
                               (x.shape[0],), ())
    eye = np.eye(n_max + 1, dtype=d)
    _, table = lax.scan(step, (zeros, zeros, p00), (a, b, diag, eye))
    return table


def sph_harm_y(n, m, theta, phi, diff_n=None, n_max=None):
    """The spherical harmonics Y_n^m(theta, phi) at colatitude ``theta`` and longitude
    ``phi`` (1-D ``n`` and ``m``; ``n_max``, static, is max(n) when not given, and larger n
    are clipped to it; ``diff_n`` is refused, as JAX's)."""
    if diff_n is not None:
        raise NotImplementedError(
            "The 'diff_n' argument to jax.scipy.special.sph_harm_y is not supported.")
    check_arraylike("sph_harm_y", n, m, theta, phi)
    if isscalar(theta):
        theta = lax.convert_element_type(reshape(asarray(theta), (1,)), aval_of(theta).dtype)
    if n_max is None:
        if isinstance(n, Tracer):
            raise n._concrete_error(_STATIC_N_MAX)
        n_max = np.max(np.asarray(n))
    if isinstance(n_max, Tracer):
        raise n_max._concrete_error(_STATIC_N_MAX)
    n_max = int(n_max)
    n, m, theta, phi = (asarray(v) for v in (n, m, theta, phi))
    if n.ndim == 0:
        raise TypeError("len() of unsized object")
    if theta.ndim != 1:
        raise ValueError(f"sph_harm_y: theta must be a scalar or a 1-D array, got shape "
                         f"{theta.shape}.")
    if n_max < 0:
        raise IndexError(f"sph_harm_y: n_max = {n_max}: index is out of bounds for axis 0 "
                         "with size 0")
    x = cos(theta)
    table = normalized_legendre(n_max, x)
    abs_m = absolute(m)
    val = table.at[n, abs_m, arange(n.shape[0])].get(mode="clip")
    angle = abs_m * phi
    c, s = cos(angle), sin(angle)
    harmonics = lax.complex(val * c, val * s)
    return where(m < 0, power(-1.0, abs_m) * conjugate(harmonics), harmonics)
