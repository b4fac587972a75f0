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
    less_equal,
    logical_not,
    multiply,
    remainder,
    subtract,
    true_divide,
)
from ._indexing import take, take_along_axis
from ._reductions import any as _any
from ._reductions import sum as _sum
from ._shape import concatenate, expand_dims, moveaxis, ravel, reshape, stack

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


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


def _quantile(name, a, q, axis, method, keepdims, squash_nans):
    if method not in _METHODS:
        if method == "inverted_cdf":
            raise NotImplementedError("quantile(method='inverted_cdf') is not in vmaplab yet")
        raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', "
                         "'nearest' or 'inverted_cdf'")
    check_arraylike(name, a, q)
    (a,) = promote_dtypes_inexact(name, a)
    q = asarray(q)
    if dtypes.is_complex(aval_of(a).dtype):
        raise ValueError("quantile does not support complex input, as the operation is "
                         "poorly defined.")
    out_dtype = aval_of(a).dtype
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
    if squash_nans:  # NaNs sort last; count the others
        a = lax.sort(a, dimension=axis)
        counts = _sum(logical_not(isnan(a)), axis=axis, dtype=qd, keepdims=True)
    else:
        a = where(_any(isnan(a), axis=axis, keepdims=True), np.nan, a)
        a = lax.sort(a, dimension=axis)
        counts = full_like(take(a, np.array([0]), axis=axis), n_axis, dtype=qd)
    qs = [q] if qa.ndim == 0 else [q[i] for i in range(qa.shape[0])]
    outs = []
    for qi in qs:
        pos = multiply(qi, subtract(counts, 1))
        low, high = floor(pos), ceil(pos)
        high_w = subtract(pos, low)
        low_w = subtract(1, high_w)
        last = subtract(counts, 1)
        lo_i = clip(low, 0, last).astype(dtypes.default_int())
        hi_i = clip(high, 0, last).astype(dtypes.default_int())
        lo_v = take_along_axis(a, lo_i, axis)
        hi_v = take_along_axis(a, hi_i, axis)
        if method == "linear":
            r = add(multiply(lo_v.astype(qd), low_w), multiply(hi_v.astype(qd), high_w))
        elif method == "lower":
            r = lo_v
        elif method == "higher":
            r = hi_v
        elif method == "nearest":
            r = where(less_equal(high_w, 0.5), lo_v, hi_v)
        else:
            r = multiply(add(lo_v, hi_v), 0.5)
        if not keepdims:
            r = reshape(r, tuple(s for d, s in enumerate(aval_of(r).shape) if d != axis))
        outs.append(r)
    result = outs[0] if qa.ndim == 0 else stack(outs)
    if keepdim is not None:
        result = reshape(result, tuple(([qa.shape[0]] if qa.ndim else []) + keepdim))
    return result.astype(out_dtype)


def _check_out(name, out, overwrite_input):
    if overwrite_input or out is not None:
        raise ValueError(f"jax.numpy.{name} does not support overwrite_input=True or out != None")


def _quantile_fn(name: str, squash_nans: bool, doc: str):
    def fn(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False,
           *, weights=None):
        _check_out(name, out, overwrite_input)
        if weights is not None:
            raise NotImplementedError(f"{name}(weights=) is not in vmaplab yet")
        return _quantile(name, a, q, axis, method, keepdims, squash_nans)
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
