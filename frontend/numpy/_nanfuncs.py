"""NaN-ignoring reductions (nansum, nanprod, nanmax, nanmin, nanmean, nanvar, nanstd),
average and allclose, with JAX's numpy's dtypes and all-NaN results."""
from __future__ import annotations

import math

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.ir import aval_of
from ..device.fusion import eager_fused
from ..lax._convert import convert
from . import _reductions as R
from ._core import (
    asarray,
    broadcast_shapes,
    broadcast_to_shape,
    check_arraylike,
    promote_dtypes_inexact,
)
from ._creation import full
from ._elementwise import _where3 as _where
from ._elementwise import isclose, isnan, logical_not
from ._shape import reshape, transpose


def _arr(name, a):
    check_arraylike(name, a)
    return asarray(a)


def _nan_reduction(name, reduction, init, nan_if_all_nan, a, axis, keepdims, where_, **kw):
    a = _arr(name, a)
    if keepdims is not None:  # (reductions; the cumulative ones take neither)
        kw.update(keepdims=keepdims, where=where_)
    if not dtypes.is_inexact(aval_of(a).dtype):
        return reduction(a, axis=axis, **kw)
    d = aval_of(a).dtype
    out = reduction(_where(isnan(a), convert(init, d), a), axis=axis, **kw)
    if nan_if_all_nan:
        return _where(R.all(isnan(a), axis=axis, keepdims=keepdims), convert(np.nan, d), out)
    return out


@eager_fused(1)
def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """sum treating NaN as 0."""
    R._check_out("nansum", out)
    return _nan_reduction("nansum", R.sum, 0, False, a, axis, keepdims, where, dtype=dtype,
                          initial=initial)


@eager_fused(1)
def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """prod treating NaN as 1."""
    R._check_out("nanprod", out)
    return _nan_reduction("nanprod", R.prod, 1, False, a, axis, keepdims, where, dtype=dtype,
                          initial=initial)


@eager_fused(1)
def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """max ignoring NaN (NaN where every element is NaN)."""
    R._check_out("nanmax", out)
    return _nan_reduction("nanmax", R.max, -np.inf, initial is None, a, axis, keepdims, where,
                          initial=initial)


@eager_fused(1)
def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """min ignoring NaN (NaN where every element is NaN)."""
    R._check_out("nanmin", out)
    return _nan_reduction("nanmin", R.min, np.inf, initial is None, a, axis, keepdims, where,
                          initial=initial)


@eager_fused(1)
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """mean of the non-NaN elements."""
    R._check_out("nanmean", out)
    a = _arr("nanmean", a)
    d = aval_of(a).dtype
    if not dtypes.is_inexact(d):
        return R.mean(a, axis, dtype, None, keepdims, where=where)
    dtype = d if dtype is None else R._user_dtype(dtype)
    count = R.sum(logical_not(isnan(a)), axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    total = nansum(a, axis, dtype=dtype, keepdims=keepdims, where=where)
    return lax.div(total, count)


@eager_fused(1)
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None):
    """var of the non-NaN elements (NaN where fewer than ddof + 1 remain); ``mean``: the
    mean to use (with the reduced axes kept), instead of computing it."""
    R._check_out("nanvar", out)
    a = _arr("nanvar", a)
    comp, result = R._var_types(aval_of(a).dtype, dtype)
    a = convert(a, comp, False)
    if mean is None:
        mean = nanmean(a, axis, dtype=comp, keepdims=True, where=where)
    else:
        mean = convert(_arr("nanvar", mean), comp, False)
    centered = _where(isnan(a), convert(0, comp),
                      lax.sub(a, broadcast_to_shape(mean, aval_of(a).shape)))
    if dtypes.is_complex(comp):
        centered = lax.abs(centered)
    sq = lax.mul(centered, centered)
    n = R.sum(logical_not(isnan(a)), axis=axis, keepdims=keepdims, where=where)
    n = lax.sub(n, convert(ddof, aval_of(n).dtype))
    bad = lax.le(n, convert(0, aval_of(n).dtype))
    total = R.sum(sq, axis, keepdims=keepdims, where=where)
    total = _where(bad, np.nan, total)  # (a weak nan: an integer total becomes a float)
    div = _where(bad, convert(1, aval_of(n).dtype), n)
    r = lax.div(total, convert(div, aval_of(total).dtype))
    return convert(r, result, False)


@eager_fused(1)
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None):
    """std of the non-NaN elements."""
    R._check_out("nanstd", out)
    return lax.sqrt(nanvar(a, axis, dtype, None, ddof, keepdims, where=where, mean=mean))


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """The (weighted) mean over ``axis``; with ``returned``, also the sum of the weights."""
    a = _arr("average", a)
    nd = aval_of(a).ndim
    axes = R._reduction_axes(axis, nd)
    if weights is None:
        (a,) = promote_dtypes_inexact("average", a)
        avg = R.mean(a, axis=axis, keepdims=keepdims)
        n = math.prod(aval_of(a).shape[d] for d in axes)
        wsum = full((), n, aval_of(avg).dtype)
    else:
        check_arraylike("average", weights)
        a, w = promote_dtypes_inexact("average", a, asarray(weights))
        sa, sw = aval_of(a).shape, aval_of(w).shape
        if sa != sw:
            if axis is None:
                raise ValueError("Axis must be specified when shapes of a and weights differ.")
            if sw != tuple(sa[d] for d in axes):
                raise ValueError("Shape of weights must be consistent with shape of a along "
                                 "specified axis.")
            order = tuple(int(i) for i in np.argsort(axes))
            w = reshape(transpose(w, order) if order != tuple(range(len(order))) else w,
                        tuple(s if i in axes else 1 for i, s in enumerate(sa)))
        wsum = R.sum(w, axis=axis, keepdims=keepdims)
        avg = lax.div(R.sum(lax.mul(*_same_shape(a, w)), axis=axis,
                            keepdims=keepdims), wsum)
    if returned:
        if aval_of(avg).shape != aval_of(wsum).shape:
            wsum = broadcast_to_shape(wsum, aval_of(avg).shape)
        return avg, wsum
    return avg


def _same_shape(a, w):
    s = broadcast_shapes("average", aval_of(a).shape, aval_of(w).shape)
    return broadcast_to_shape(a, s), broadcast_to_shape(w, s)


def _nan_arg(name, fill, a, axis, keepdims):
    a = _arr(name, a)
    if not dtypes.is_inexact(aval_of(a).dtype):
        return getattr(R, name[3:])(a, axis=axis, keepdims=keepdims)
    nan = isnan(a)
    res = getattr(R, name[3:])(_where(nan, convert(fill, aval_of(a).dtype), a), axis=axis,
                               keepdims=keepdims)
    return _where(R.all(nan, axis=axis, keepdims=bool(keepdims)),
                  convert(-1, aval_of(res).dtype), res)


def nanargmax(a, axis=None, out=None, keepdims=None):
    """argmax ignoring NaNs (-1 where every element is NaN)."""
    R._check_out("nanargmax", out)
    return _nan_arg("nanargmax", -np.inf, a, axis, keepdims)


def nanargmin(a, axis=None, out=None, keepdims=None):
    """argmin ignoring NaNs (-1 where every element is NaN)."""
    R._check_out("nanargmin", out)
    return _nan_arg("nanargmin", np.inf, a, axis, keepdims)


def nancumsum(a, axis=None, dtype=None, out=None):
    """cumsum with NaNs counted as zero."""
    return _nan_reduction("nancumsum", R.cumsum, 0, False, a, axis, None, None, dtype=dtype,
                          out=out)


def nancumprod(a, axis=None, dtype=None, out=None):
    """cumprod with NaNs counted as one."""
    return _nan_reduction("nancumprod", R.cumprod, 1, False, a, axis, None, None, dtype=dtype,
                          out=out)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of a is close to b (see isclose)."""
    return R.all(isclose(a, b, rtol, atol, equal_nan))


__all__ = ["allclose", "average", "nanargmax", "nanargmin", "nancumprod", "nancumsum", "nanmax", "nanmean", "nanmin", "nanprod", "nanstd", "nansum",
           "nanvar"]
