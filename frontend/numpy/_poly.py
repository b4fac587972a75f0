"""numpy's polynomial functions (coefficients highest power first) as JAX's numpy has them:
polyval, polyadd, polysub, polymul, polydiv, polyder, polyint, polyfit, poly, roots, vander,
and trim_zeros."""
from __future__ import annotations

import operator

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.ir import Tracer, aval_of
from ..lax._convert import convert
from ._convolution import convolve
from ._core import asarray, broadcast_to_shape, check_arraylike, promote_args, promote_dtypes_inexact
from ._elementwise import multiply, power, sqrt, true_divide
from ._shape import broadcast_shapes, concatenate, reshape

__all__ = ["polyval", "polyadd", "polysub", "polymul", "polydiv", "polyder", "polyint",
           "polyfit", "poly", "roots", "vander", "trim_zeros"]


def _1d(name, *args, inexact=False):
    check_arraylike(name, *args)
    out = (promote_dtypes_inexact if inexact else promote_args)(name, *args, broadcast=False)
    return [broadcast_to_shape(a, (1,)) if aval_of(a).ndim == 0 else a for a in out]


def _coef(p, i):
    """p[i] (a 0-d slice of the first axis)."""
    s = lax.slice_in_dim(p, i, i + 1, 1, 0)
    return lax.reshape(s, new_sizes=aval_of(s).shape[1:], dimensions=None)


def polyval(p, x, *, unroll=16):
    """p[0] * x**(n-1) + ... + p[n-1] by Horner's rule (p's trailing axes broadcast with x)."""
    check_arraylike("polyval", p, x)
    p, x = promote_args("polyval", p, x, broadcast=False)
    shp = broadcast_shapes(aval_of(p).shape[1:], aval_of(x).shape)
    y = broadcast_to_shape(lax.mul(x, convert(0, aval_of(x).dtype, aval_of(x).weak_type)), shp)
    for i in range(aval_of(p).shape[0]):
        y = lax.add(lax.mul(y, broadcast_to_shape(x, shp)), broadcast_to_shape(_coef(p, i), shp))
    return y


def _aligned(name, a1, a2, op):
    a1, a2 = _1d(name, a1, a2)
    n1, n2 = aval_of(a1).shape[0], aval_of(a2).shape[0]
    pad = [(0, 0, 0)]
    if n1 < n2:
        a1 = lax.pad(a1, convert(0, aval_of(a1).dtype), [(n2 - n1, 0, 0)] + pad[1:])
    elif n2 < n1:
        a2 = lax.pad(a2, convert(0, aval_of(a2).dtype), [(n1 - n2, 0, 0)] + pad[1:])
    return op(a1, a2)


def polyadd(a1, a2):
    """The sum of two polynomials (the shorter padded with leading zeros)."""
    return _aligned("polyadd", a1, a2, lax.add)


def polysub(a1, a2):
    """The difference of two polynomials (the shorter padded with leading zeros)."""
    return _aligned("polysub", a1, a2, lax.sub)


def polymul(a1, a2, *, trim_leading_zeros=False):
    """The product of two polynomials (the convolution of their coefficients)."""
    a1, a2 = _1d("polymul", a1, a2, inexact=True)
    if trim_leading_zeros and (aval_of(a1).shape[0] > 1 or aval_of(a2).shape[0] > 1):
        a1, a2 = trim_zeros(a1, "f"), trim_zeros(a2, "f")
    if aval_of(a1).shape[0] == 0:
        a1 = asarray(np.zeros(1, aval_of(a2).dtype))
    if aval_of(a2).shape[0] == 0:
        a2 = asarray(np.zeros(1, aval_of(a1).dtype))
    return convolve(a1, a2, mode="full")


def polydiv(u, v, *, trim_leading_zeros=False):
    """(quotient, remainder) of u / v by long division."""
    u, v = _1d("polydiv", u, v, inexact=True)
    m, n = aval_of(u).shape[0] - 1, aval_of(v).shape[0] - 1
    d = aval_of(u).dtype
    inv = lax.div(convert(1, d), _coef(v, 0))
    q = []
    for k in range(m - n + 1):
        c = lax.mul(inv, _coef(u, k))
        q.append(c)
        u = u.at[k:k + n + 1].add(lax.neg(lax.mul(c, v)))
    quot = (lax.concatenate([lax.reshape(c, new_sizes=(1,), dimensions=None) for c in q],
                            dimension=0) if q else asarray(np.zeros(1, d)))
    if trim_leading_zeros:
        eps = float(np.sqrt(np.finfo(d).eps))
        vals = np.asarray(u)
        nz = np.flatnonzero(np.abs(vals) > eps)
        u = lax.slice_in_dim(u, int(nz[0]) if nz.size else len(vals), len(vals), 1, 0)
    return quot, u


def _falling(n_from, count, m, d):
    """prod_{j<m} (i - j) for i = n_from .. n_from + count - 1, as float constants."""
    i = np.arange(n_from, n_from + count, dtype=np.float64)
    out = np.ones(count)
    for j in range(m):
        out *= i - j
    return asarray(out.astype(d))


def polyder(p, m=1):
    """The m-th derivative of a polynomial."""
    (p,) = _1d("polyder", p, inexact=True)
    m = operator.index(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    if m == 0:
        return p
    n = aval_of(p).shape[0]
    coeff = _falling(m, max(n - m, 0), m, aval_of(p).dtype)[::-1]
    return lax.mul(lax.slice_in_dim(p, 0, max(n - m, 0), 1, 0), coeff)


def polyint(p, m=1, k=None):
    """The m-th antiderivative of a polynomial, with integration constants ``k`` (a scalar
    or m values)."""
    m = operator.index(m)
    k = 0 if k is None else k
    check_arraylike("polyint", p, k)
    p, k = _1d("polyint", p, k, inexact=True)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    if aval_of(k).shape[0] == 1:
        k = broadcast_to_shape(reshape(k, ()), (m,))
    if aval_of(k).shape != (m,):
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    if m == 0:
        return p
    n = aval_of(p).shape[0]
    i = np.arange(n + m, dtype=np.float64)
    coeff = np.ones(n + m)
    for j in range(m):
        coeff *= np.maximum(1, i - j)
    return true_divide(concatenate((p, k)), asarray(coeff[::-1].astype(aval_of(p).dtype)))


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D x: columns x**(N-1), ..., x**0 (or increasing)."""
    check_arraylike("vander", x)
    x = asarray(x)
    if aval_of(x).ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    n = aval_of(x).shape[0] if N is None else operator.index(N)
    if n < 0:
        raise ValueError("N must be nonnegative")
    d = aval_of(x).dtype
    if dtypes.is_bool(d):
        raise TypeError("vander does not accept dtype bool; it takes numeric arrays")
    powers = lax.broadcasted_iota(dtype=d, shape=(1, n), dimension=1)
    if not increasing:
        powers = lax.rev(powers, dimensions=(1,))
    return power(reshape(x, (-1, 1)), powers)


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least-squares polynomial fit of degree ``deg`` (columns scaled to unit norm, as numpy's).
    ``full``: also (residuals, rank, singular values, rcond); ``cov``: also the scaled
    covariance of the coefficients."""
    from . import linalg
    check_arraylike("polyfit", x, y)
    x, y = asarray(x), asarray(y)
    deg = operator.index(deg)
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if aval_of(x).ndim != 1:
        raise TypeError("expected 1D vector for x")
    if aval_of(x).size == 0:
        raise TypeError("expected non-empty vector for x")
    if aval_of(y).ndim not in (1, 2):
        raise TypeError("expected 1D or 2D array for y")
    if aval_of(x).shape[0] != aval_of(y).shape[0]:
        raise TypeError("expected x and y to have same length")
    order = deg + 1
    if rcond is None:
        rcond = len(x) * float(np.finfo(aval_of(x).dtype).eps)
    lhs, rhs = vander(x, order), y
    if w is not None:
        check_arraylike("polyfit", w)
        w = asarray(w)
        if aval_of(w).ndim != 1 or aval_of(w).shape[0] != aval_of(x).shape[0]:
            raise TypeError("expected a 1-d weight vector of the same length as x")
        lhs = multiply(lhs, reshape(w, (-1, 1)))
        rhs = multiply(rhs, reshape(w, (-1, 1)) if aval_of(rhs).ndim == 2 else w)
    scale = sqrt(lax.reduce_sum(multiply(lhs, lhs), axes=(0,)))
    lhs = true_divide(lhs, reshape(scale, (1, -1)))
    c, resids, rank, s = linalg.lstsq(lhs, rhs, rcond)
    c = lax.transpose(true_divide(lax.transpose(c, permutation=tuple(
        range(aval_of(c).ndim))[::-1]), scale), permutation=tuple(range(aval_of(c).ndim))[::-1])
    if full:
        return c, resids, rank, s, asarray(rcond)
    if cov:
        from ._linalg import outer
        vbase = linalg.inv(lax.dot(lax.transpose(lhs, permutation=(1, 0)), lhs))
        vbase = true_divide(vbase, outer(scale, scale))
        if cov == "unscaled":
            fac = convert(1, aval_of(vbase).dtype)
        else:
            if len(x) <= order:
                raise ValueError("the number of data points must exceed order to scale the "
                                 "covariance matrix")
            fac = true_divide(resids, len(x) - order)
            fac = fac[0] if aval_of(fac).ndim and aval_of(fac).shape[0] == 1 else fac
        if aval_of(y).ndim == 1:
            return c, multiply(vbase, fac)
        return c, multiply(reshape(vbase, aval_of(vbase).shape + (1,)),
                           reshape(fac, (1, 1, -1)))
    return c


def poly(seq_of_zeros):
    """The coefficients of the monic polynomial with the given roots (of a square matrix:
    its eigenvalues)."""
    check_arraylike("poly", seq_of_zeros)
    (z,) = promote_dtypes_inexact("poly", seq_of_zeros)
    if aval_of(z).ndim == 0:
        z = reshape(z, (1,))
    sh = aval_of(z).shape
    if len(sh) == 2 and sh[0] == sh[1] and sh[0] != 0:
        from . import linalg
        z = linalg.eigvals(z)
    if aval_of(z).ndim != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    d = aval_of(z).dtype
    if aval_of(z).shape[0] == 0:
        return asarray(np.ones((), d))
    a = asarray(np.ones(1, d))
    for k in range(aval_of(z).shape[0]):
        a = convolve(a, concatenate((asarray(np.ones(1, d)), reshape(lax.neg(_coef(z, k)), (1,)))),
                     mode="full")
    return a


def roots(p, *, strip_zeros=True):
    """The roots of a polynomial: the eigenvalues of its companion matrix (complex)."""
    from . import linalg
    check_arraylike("roots", p)
    (p,) = promote_dtypes_inexact("roots", p)
    if aval_of(p).ndim == 0:
        p = reshape(p, (1,))
    if aval_of(p).ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    n = aval_of(p).shape[0]
    cd = dtypes.promote((aval_of(p).dtype, False), (dtypes.complex64, False))[0]
    if n < 2:
        return asarray(np.zeros(0, cd))
    if not strip_zeros:
        raise NotImplementedError("roots(strip_zeros=False) is not implemented yet")
    if isinstance(p, Tracer):
        raise p._concrete_error("The error occurred in the jnp.roots() function. To use this "
                                "within a JIT-compiled context, pass strip_zeros=False.")
    vals = np.asarray(p)
    nz = np.flatnonzero(vals != 0)
    lead = int(nz[0]) if nz.size else n
    p = lax.slice_in_dim(p, lead, n, 1, 0)
    m = n - lead
    if m < 2:
        return asarray(np.zeros(0, cd))
    # the companion matrix: -p[1:] / p[0] in the first row, ones below the diagonal
    first = reshape(true_divide(lax.neg(lax.slice_in_dim(p, 1, m, 1, 0)), _coef(p, 0)),
                    (1, m - 1))
    below = asarray(np.eye(m - 2, m - 1, dtype=aval_of(p).dtype))
    return linalg.eigvals(concatenate((first, below), axis=0))


def trim_zeros(filt, trim="fb", axis=None):
    """``filt`` without its leading ('f') and/or trailing ('b') zeros (along each axis of
    ``axis``; all axes by default). The values must be concrete."""
    check_arraylike("trim_zeros", filt)
    a = asarray(filt)
    if isinstance(a, Tracer):
        raise a._concrete_error("Error arose in the `filt` argument of trim_zeros()")
    vals = np.asarray(a)
    nd = vals.ndim
    if nd == 0:
        raise ValueError("trim_zeros requires at least rank 1 input")
    axes = range(nd) if axis is None else ([axis] if isinstance(axis, int) else list(axis))
    trim = trim.lower()
    out = a
    for ax in axes:
        ax = ax % nd
        other = tuple(i for i in range(nd) if i != ax)
        nz = np.flatnonzero(np.any(vals != 0, axis=other) if other else vals != 0)
        n = vals.shape[ax]
        if nz.size == 0:
            start, stop = (n if "f" in trim else 0), n
            if "f" not in trim and "b" in trim:
                start = stop = 0
        else:
            start = int(nz[0]) if "f" in trim else 0
            stop = int(nz[-1]) + 1 if "b" in trim else n
        out = lax.slice_in_dim(out, start, stop, 1, ax)
    return out
