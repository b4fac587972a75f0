"""Order statistics: quantile, percentile, median and their nan-ignoring forms (JAX's
algorithm: sort along the axis, then interpolate between the two neighbouring order
statistics), and interp. The sort is ``lax.sort`` (the sort primitives' family)."""
from __future__ import annotations

import math

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.ir import aval_of
from ._core import asarray, canonical_axis, check_arraylike, promote_dtypes_inexact
from ._creation import full_like
from ._elementwise import (
    _where3 as where,
)
from ._elementwise import (
    abs as _abs,
)
from ._elementwise import (
    add,
    ceil,
    clip,
    floor,
    isnan,
    less,
    less_equal,
    logical_not,
    logical_or,
    multiply,
    remainder,
    subtract,
    true_divide,
)
from ._indexing import take, take_along_axis
from ._reductions import any as _any
from ._reductions import cumsum
from ._reductions import sum as _sum
from ._shape import concatenate, expand_dims, moveaxis, ravel, reshape, stack

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")


def _move_axes_last(a, axis, keepdims):
    """(a with the reduced axes as one last axis, that axis, the keepdims shape or None)."""
    nd = aval_of(a).ndim
    if axis is None:
        return ravel(a), 0, ([1] * nd if keepdims else None)
    if isinstance(axis, tuple):
        axes = tuple(canonical_axis(ax, nd) for ax in axis)
        if len(set(axes)) != len(axes):
            raise ValueError("repeated axis")
        shape = aval_of(a).shape
        keep = [d for d in range(nd) if d not in axes]
        a = moveaxis(a, axes, tuple(range(len(keep), nd)))
        a = reshape(a, tuple(shape[d] for d in keep) + (math.prod(shape[d] for d in axes),))
        return a, len(keep), [1 if d in axes else shape[d] for d in range(nd)]
    return a, canonical_axis(axis, nd), None


def _quantile(name, a, q, axis, method, keepdims, squash_nans, weights=None):
    if method not in _METHODS:
        raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', "
                         "'nearest' or 'inverted_cdf'")
    check_arraylike(name, a, q)
    if weights is not None:
        a, weights = _weights_like(name, a, weights, axis, method)
    else:
        (a,) = promote_dtypes_inexact(name, a)
    q = asarray(q)
    if dtypes.is_complex(aval_of(a).dtype):
        raise ValueError("quantile does not support complex input, as the operation is "
                         "poorly defined.")
    out_dtype = aval_of(a).dtype
    if weights is not None:
        weights = _move_axes_last(weights, axis, keepdims)[0]
    a, axis, keepdim = _move_axes_last(a, axis, keepdims)
    if not keepdims:
        keepdim = None
    keepdims = keepdims and keepdim is None  # (the reshape to keepdim restores the axes)
    qa = aval_of(q)
    if qa.ndim > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {qa.shape}")
    if not dtypes.is_inexact(qa.dtype):
        q = asarray(q, dtypes.default_float())
    qd = aval_of(q).dtype
    n_axis = aval_of(a).shape[axis]
    if not squash_nans:  # (NaNs sort last; nanquantile counts the others)
        a = where(_any(isnan(a), axis=axis, keepdims=True), np.nan, a)
    if weights is not None:
        a, weights = lax.sort((a, weights), dimension=axis, num_keys=1)
    else:
        a = lax.sort(a, dimension=axis)
    if squash_nans:
        counts = _sum(logical_not(isnan(a)), axis=axis, dtype=qd, keepdims=True)
    else:
        counts = full_like(take(a, np.array([0]), axis=axis), n_axis, dtype=qd)
    qs = [q] if qa.ndim == 0 else [q[i] for i in range(qa.shape[0])]
    outs = []
    for qi in qs:
        if method == "inverted_cdf":
            r = _inverted_cdf(a, qi, axis, counts, weights, squash_nans)
        else:
            r = _interpolated(a, qi, axis, counts, method, qd)
        if not keepdims:
            r = reshape(r, tuple(s for d, s in enumerate(aval_of(r).shape) if d != axis))
        outs.append(r)
    result = outs[0] if qa.ndim == 0 else stack(outs)
    if keepdim is not None:
        result = reshape(result, tuple(([qa.shape[0]] if qa.ndim else []) + keepdim))
    return result.astype(out_dtype)


def _weights_like(name, a, weights, axis, method):
    """(a, weights) promoted to one inexact dtype, weights broadcast to a's shape (it may
    have the shape of the reduced axes), with JAX's errors."""
    check_arraylike(name, weights)
    if dtypes.is_complex(dtypes.dtype_and_weak(weights)[0]):
        raise ValueError("Weights cannot be complex types.")
    if method != "inverted_cdf":
        raise NotImplementedError(f"{method} doesn't support weights. Only method "
                                  "'inverted_cdf' supports weights.")
    a, weights = promote_dtypes_inexact(name, a, weights, broadcast=False)
    shape, wshape = aval_of(a).shape, aval_of(weights).shape
    if wshape != shape:
        if axis is None:
            raise ValueError("Weights shape must match 'a' shape when axis is None.")
        axes = tuple(canonical_axis(ax, len(shape))
                     for ax in (axis if isinstance(axis, tuple) else (axis,)))
        if wshape != tuple(shape[ax] for ax in axes):
            raise ValueError(f"Weights shape {wshape} must match reduction axes "
                             f"{tuple(shape[ax] for ax in axes)}")
        weights = lax.broadcast_in_dim(weights, shape=shape, broadcast_dimensions=axes)
    return a, weights


def _interpolated(a, qi, axis, counts, method, qd):
    """One quantile from the two order statistics around ``qi * (count - 1)`` (the sorted
    axis kept, of size 1)."""
    pos = multiply(qi, subtract(counts, 1))
    low, high = floor(pos), ceil(pos)
    high_w = subtract(pos, low)
    low_w = subtract(1, high_w)
    last = subtract(counts, 1)
    lo_v = take_along_axis(a, clip(low, 0, last).astype(dtypes.default_int()), axis)
    hi_v = take_along_axis(a, clip(high, 0, last).astype(dtypes.default_int()), axis)
    if method == "linear":
        return add(multiply(lo_v.astype(qd), low_w), multiply(hi_v.astype(qd), high_w))
    if method == "lower":
        return lo_v
    if method == "higher":
        return hi_v
    if method == "nearest":
        return where(less_equal(high_w, 0.5), lo_v, hi_v)
    return multiply(add(lo_v, hi_v), 0.5)


def _inverted_cdf(a, qi, axis, counts, weights, squash_nans):
    """One quantile by numpy's inverted_cdf: the first sorted value whose cumulative weight
    reaches ``qi`` of the total (NaN where a weight is negative or NaN, or the data is NaN
    (nanquantile: all NaN)); the sorted axis kept, of size 1."""
    w = full_like(a, 1.0) if weights is None else weights
    bad = logical_or(less(w, 0), isnan(w))
    nan_data = isnan(a)
    cw = cumsum(where(logical_or(bad, nan_data), 0, w), axis=axis)
    n = aval_of(a).shape[axis]
    total = take(cw, np.array([n - 1]), axis=axis)
    idx = _sum(less(cw, multiply(qi, total)), axis=axis, dtype=dtypes.default_int(),
               keepdims=True)
    last = subtract(counts, 1).astype(dtypes.default_int())
    r = take_along_axis(a, clip(idx, 0, last), axis)
    nan_out = _any(bad, axis=axis, keepdims=True)
    nan_out = logical_or(nan_out, (counts == 0) if squash_nans
                         else _any(nan_data, axis=axis, keepdims=True))
    return where(nan_out, np.nan, r)


def _check_out(name, out, overwrite_input):
    if overwrite_input or out is not None:
        raise ValueError(f"jax.numpy.{name} does not support overwrite_input=True or out != None")


def _quantile_fn(name: str, squash_nans: bool, doc: str):
    def fn(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False,
           *, weights=None):
        _check_out(name, out, overwrite_input)
        return _quantile(name, a, q, axis, method, keepdims, squash_nans, weights)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


quantile = _quantile_fn("quantile", False, "The q-th quantiles (q in [0, 1], a scalar or "
                        "1-D) of ``a`` along ``axis``.")
nanquantile = _quantile_fn("nanquantile", True, "quantile ignoring NaNs.")


def _percent(name, q):
    check_arraylike(name, q)
    (q,) = promote_dtypes_inexact(name, q)
    return true_divide(q, 100)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None):
    """The q-th percentiles (q in [0, 100]) of ``a`` along ``axis``."""
    return quantile(a, _percent("percentile", q), axis, out, overwrite_input, method,
                    keepdims, weights=weights)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None):
    """percentile ignoring NaNs."""
    return nanquantile(a, _percent("nanpercentile", q), axis, out, overwrite_input, method,
                       keepdims, weights=weights)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median along ``axis`` (the midpoint of the middle two for an even count)."""
    return quantile(a, 0.5, axis, out, overwrite_input, "midpoint", keepdims)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """median ignoring NaNs."""
    return nanquantile(a, 0.5, axis, out, overwrite_input, "midpoint", keepdims)


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of the points (xp, fp) (xp increasing) at x; outside
    [xp[0], xp[-1]]: ``left``/``right`` (default fp's ends, or ``'extrapolate'``)."""
    check_arraylike("interp", x, xp, fp)
    if np.shape(xp) != np.shape(fp) or np.ndim(xp) != 1:
        raise ValueError("xp and fp must be one-dimensional arrays of equal size")
    if isinstance(x, (bool, int, float)):  # (a Python scalar x: an array, as JAX's)
        x = np.asarray(x)
    x, xp = promote_dtypes_inexact("interp", x, xp, broadcast=False)
    (fp,) = promote_dtypes_inexact("interp", fp)
    ends = []
    for name, v in (("left", left), ("right", right)):
        if isinstance(v, str) and v != "extrapolate":
            raise ValueError(f"the only valid string value of `{name}` is 'extrapolate', "
                             f"but got: {v!r}")
        ends.append(isinstance(v, str))
    if dtypes.is_complex(aval_of(x).dtype):
        raise ValueError("jnp.interp: complex x values not supported.")
    if period is not None:
        if np.ndim(period) != 0:
            raise ValueError(f"period must be a scalar; got {period}")
        period = _abs(period)
        x = remainder(x, period)
        xp = remainder(xp, period)
        xp, fp = lax.sort_key_val(xp, fp)
        xp = concatenate([subtract(xp[-1:], period), xp, add(xp[:1], period)])
        fp = concatenate([fp[-1:], fp, fp[:1]])
    n = aval_of(xp).shape[0]
    # searchsorted(xp, x, side="right") as JAX's compare_all method computes it
    i = _sum(less_equal(xp, expand_dims(x, -1)), axis=-1, dtype=dtypes.default_int())
    i = clip(i, 1, n - 1)
    df = subtract(fp[i], fp[i - 1])
    dx = subtract(xp[i], xp[i - 1])
    delta = subtract(x, xp[i - 1])
    eps = np.spacing(np.finfo(aval_of(xp).dtype).eps)
    dx0 = less_equal(_abs(dx), eps)
    f = where(dx0, fp[i - 1], add(fp[i - 1], multiply(true_divide(delta, where(dx0, 1, dx)), df)))
    if not ends[0] and period is None:
        f = where(x < xp[0], fp[0] if left is None else left, f)
    if not ends[1] and period is None:
        f = where(x > xp[-1], fp[-1] if right is None else right, f)
    return f


__all__ = ["interp", "median", "nanmedian", "nanpercentile", "nanquantile", "percentile",
           "quantile"]
