"""Binning and second moments as JAX's numpy has them: digitize, histogram_bin_edges,
histogram, histogram2d, histogramdd, cov, corrcoef. Bin counts come from one scatter-add;
bin edges from linspace on the device (so a traced ``range`` works under jit)."""
from __future__ import annotations

import operator

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.ir import aval_of
from ..lax._convert import convert
from ._core import asarray, check_arraylike, promote_dtypes_inexact
from ._creation import linspace, zeros
from ._elementwise import _where3, clip, equal, sqrt, subtract, true_divide
from ._matrix import diagonal
from ._numeric import conjugate, imag, real
from ._reductions import max as _max
from ._reductions import min as _min
from ._reductions import sum as _sum
from ._sequences import bincount, diff
from ._shape import concatenate, reshape, stack
from ._sorting import searchsorted

__all__ = ["digitize", "histogram_bin_edges", "histogram", "histogram2d", "histogramdd", "cov",
           "corrcoef"]


def digitize(x, bins, right=False, *, method=None):
    """The index of the bin of ``bins`` (monotonic, increasing or decreasing) each x is in."""
    check_arraylike("digitize", x, bins)
    x, bins = asarray(x), asarray(bins)
    if aval_of(bins).ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
    n = aval_of(bins).shape[0]
    if n == 0:
        return zeros(aval_of(x).shape, np.int32)
    side = "left" if right else "right"
    kw = {} if method is None else {"method": method}
    first = lax.slice_in_dim(bins, 0, 1, 1, 0)
    last = lax.slice_in_dim(bins, n - 1, n, 1, 0)
    up = searchsorted(bins, x, side=side, **kw)
    down = lax.sub(convert(n, aval_of(up).dtype), searchsorted(lax.rev(bins, dimensions=(0,)), x,
                                                                side=side, **kw))
    increasing = reshape(lax.ge(last, first), ())
    return _where3(increasing, up, down)


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    """The edges of the histogram bins: ``bins`` itself (1-D), or bins + 1 equal steps over
    ``range`` (default: [min(a), max(a)], widened by 0.5 each way when it is one point)."""
    check_arraylike("histogram_bin_edges", a)
    a = asarray(a)
    d = dtypes.to_inexact(aval_of(a).dtype)
    if np.ndim(bins) == 1:
        return convert(asarray(bins), d, False)
    nbins = operator.index(bins)
    if range is None:
        range = (_min(a), _max(a))  # noqa: A001
    lo, hi = (convert(asarray(r), d, False) for r in range) if len(range) == 2 else (None, None)
    if lo is None or aval_of(lo).ndim or aval_of(hi).ndim:
        raise ValueError(f"`range` must be either None or a sequence of scalars, got {range}")
    flat = equal(lo, hi)
    lo = _where3(flat, lax.sub(lo, convert(0.5, d)), lo)
    hi = _where3(flat, lax.add(hi, convert(0.5, d)), hi)
    return linspace(lo, hi, nbins + 1, dtype=d)


def _bin_index(edges, x):
    """searchsorted(edges, x, 'right'), with x == the last edge in the last bin."""
    n = aval_of(edges).shape[0]
    idx = searchsorted(edges, x, side="right")
    last = reshape(lax.slice_in_dim(edges, n - 1, n, 1, 0), ())
    return _where3(equal(x, last), convert(n - 1, aval_of(idx).dtype), idx)


def histogram(a, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """(counts, bin edges) of the values of ``a`` (flattened); with ``weights``, summed weights;
    with ``density``, normalized to integrate to one."""
    check_arraylike("histogram", a)
    a = reshape(asarray(a), (-1,))
    edges = histogram_bin_edges(a, bins, range, weights)
    d = aval_of(edges).dtype
    if weights is None:
        w = lax.broadcast_in_dim(convert(1, d), shape=aval_of(a).shape, broadcast_dimensions=())
    else:
        check_arraylike("histogram", weights)
        w = reshape(asarray(weights), (-1,))
        if aval_of(w).shape != aval_of(a).shape:
            raise ValueError("weights should have the same shape as a.")
    n = aval_of(edges).shape[0]
    counts = zeros(n, aval_of(w).dtype).at[_bin_index(edges, a)].add(w, mode="drop")
    counts = lax.slice_in_dim(counts, 1, n, 1, 0)
    if density:
        counts = true_divide(true_divide(counts, diff(edges)), _sum(counts))
    return counts, edges


def histogramdd(sample, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """(counts, [edges per dimension]) of the N points of the (N, D) ``sample``."""
    check_arraylike("histogramdd", sample)
    sample = asarray(sample)
    if aval_of(sample).ndim != 2:
        raise ValueError(f"histogramdd: sample must be 2-dimensional, got shape "
                         f"{aval_of(sample).shape}")
    n, dims = aval_of(sample).shape
    if weights is not None:
        check_arraylike("histogramdd", weights)
        weights = asarray(weights)
        if aval_of(weights).shape != (n,):
            raise ValueError("should have one weight for each sample.")
    bins_per = bins if isinstance(bins, (list, tuple)) else [bins] * dims
    if len(bins_per) != dims:
        raise ValueError(f"should be a bin for each dimension, got {len(bins_per)} for {dims}")
    ranges = [None] * dims if range is None else list(range)
    if len(ranges) != dims:
        raise ValueError(f"should be a range for each dimension, got {len(ranges)} for {dims}")
    edges, flat, stride = [], None, 1
    sizes = []
    for k in builtin_range(dims):
        col = reshape(lax.slice_in_dim(sample, k, k + 1, 1, 1), (-1,))
        e = histogram_bin_edges(col, bins_per[k], ranges[k], weights)
        edges.append(e)
        sizes.append(aval_of(e).shape[0] + 1)
    for k in reversed(builtin_range(dims)):  # the flat index in the (edges + 1)-per-dim grid
        col = reshape(lax.slice_in_dim(sample, k, k + 1, 1, 1), (-1,))
        idx = _bin_index(edges[k], col)
        term = lax.mul(idx, convert(stride, aval_of(idx).dtype))
        flat = term if flat is None else lax.add(flat, term)
        stride *= sizes[k]
    counts = bincount(flat, weights, length=stride)
    counts = reshape(counts, tuple(sizes))
    for k in builtin_range(dims):
        counts = lax.slice_in_dim(counts, 1, sizes[k] - 1, 1, k)
    if density:
        counts = true_divide(counts, _sum(counts))
        for k in builtin_range(dims):
            shape = [1] * dims
            shape[k] = -1
            counts = true_divide(counts, reshape(diff(edges[k]), tuple(shape)))
    return counts, edges


builtin_range = range


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """(counts, x edges, y edges) of the points (x[i], y[i])."""
    check_arraylike("histogram2d", x, y)
    x, y = asarray(x), asarray(y)
    if aval_of(x).shape != aval_of(y).shape or aval_of(x).ndim != 1:
        raise ValueError(f"histogram2d: x and y must be 1-D arrays of one length, got shapes "
                         f"{aval_of(x).shape} and {aval_of(y).shape}")
    try:
        nb = len(bins)
    except TypeError:
        nb = None
    if nb is not None and nb != 2:
        bins = [bins, bins]  # (one array of edges for both)
    counts, (ex, ey) = histogramdd(stack([x, y], 1), bins, range, weights, density)
    return counts, ex, ey


def _sample_weights(name, w, n, d):
    """One weight per sample (``fweights`` integers), as dtype d; numpy's errors."""
    check_arraylike("cov", w)
    w = asarray(w)
    if aval_of(w).ndim > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if aval_of(w).shape[0] != n:
        raise RuntimeError(f"incompatible numbers of samples and {name}")
    if name == "fweights" and not dtypes.is_int(aval_of(w).dtype):
        raise TypeError("fweights must be integer.")
    return convert(w, d, False)


def _variables(a, name: str, rowvar: bool):
    """``a`` (at most 2-D) as a matrix with one variable per row."""
    a = asarray(a)
    if aval_of(a).ndim > 2:
        raise ValueError(f"{name} has more than 2 dimensions")
    rows = reshape(a, (1, -1)) if aval_of(a).ndim < 2 else a
    if not rowvar and aval_of(rows).shape[0] != 1:
        rows = lax.transpose(rows, permutation=(1, 0))
    return rows


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    """The covariance matrix of the variables in the rows (``rowvar``) or columns of m (and
    y), with frequency and reliability weights, as numpy's (0-d for one variable)."""
    if y is not None:
        check_arraylike("cov", m, y)
        m, y = promote_dtypes_inexact("cov", m, y, broadcast=False)
    else:
        check_arraylike("cov", m)
        (m,) = promote_dtypes_inexact("cov", m)
    x = _variables(m, "m", rowvar)
    if aval_of(x).shape[0] == 0:
        return asarray(np.zeros((0, 0), aval_of(x).dtype))
    if y is not None:
        yy = _variables(y, "y", rowvar)
        x = concatenate((x, yy), axis=0)
    if dtype is not None:
        x = convert(x, dtypes.canonicalize(np.dtype(dtype)), False)
    d = aval_of(x).dtype
    n = aval_of(x).shape[1]
    if ddof is None:
        ddof = 0 if bias else 1
    w = None
    if fweights is not None:
        w = _sample_weights("fweights", fweights, n, d)
    if aweights is not None:
        aw = _sample_weights("aweights", aweights, n, d)
        w = aw if w is None else lax.mul(w, aw)
    if w is None:
        wsum = convert(n, d)
        avg = true_divide(_sum(x, axis=1), wsum)
        fact = lax.sub(wsum, convert(ddof, d))
    else:
        wsum = _sum(w)
        avg = true_divide(_sum(lax.mul(x, reshape(w, (1, -1))), axis=1), wsum)
        if ddof == 0:
            fact = wsum
        elif aweights is None:
            fact = lax.sub(wsum, convert(ddof, d))
        else:
            fact = lax.sub(wsum, lax.div(lax.mul(convert(ddof, d), _sum(lax.mul(w, aw))), wsum))
    xc = subtract(x, reshape(avg, (-1, 1)))
    xw = xc if w is None else lax.mul(xc, reshape(w, (1, -1)))
    c = true_divide(lax.dot_general(xw, conjugate(xc), (((1,), (1,)), ((), ()))), fact)
    return reshape(c, ()) if aval_of(c).shape == (1, 1) else c


def corrcoef(x, y=None, rowvar=True, dtype=None):
    """The correlation coefficients cov[i, j] / sqrt(cov[i, i] cov[j, j]), clipped to [-1, 1]."""
    c = cov(x, y, rowvar, dtype=dtype)
    if aval_of(c).ndim == 0:
        return true_divide(c, c)
    s = sqrt(real(diagonal(c)))
    c = true_divide(true_divide(c, reshape(s, (-1, 1))), reshape(s, (1, -1)))
    if dtypes.is_complex(aval_of(c).dtype):
        return lax.complex(clip(real(c), -1, 1), clip(imag(c), -1, 1))
    return clip(c, -1, 1)
