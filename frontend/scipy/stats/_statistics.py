"""Statistics of samples: sem, rankdata, mode."""
from __future__ import annotations

from typing import Any, NamedTuple

from ... import numpy as fnp
from ...numpy._core import check_arraylike
from ._common import promote


def sem(a, axis=0, ddof: int = 1, nan_policy: str = "propagate", *, keepdims: bool = False):
    """The standard error of the mean: std(a, ddof) / sqrt(n) along ``axis`` (all when None).
    ``nan_policy`` 'propagate' or 'omit' (NaNs left out), as JAX's."""
    (a,) = promote("sem", a)
    if nan_policy not in ("propagate", "omit"):
        raise ValueError(f"{nan_policy} is not supported")
    if nan_policy == "omit":
        n = fnp.sum(~fnp.isnan(a), axis=axis, keepdims=keepdims)
        return fnp.nanstd(a, axis=axis, ddof=ddof, keepdims=keepdims) / fnp.sqrt(n)
    n = a.size if axis is None else a.shape[axis]
    return fnp.std(a, axis=axis, ddof=ddof, keepdims=keepdims) / fnp.sqrt(n).astype(a.dtype)


def _rows(name, a, axis, nan_policy):
    """``a`` with ``axis`` (all axes when None) as the last axis of a 2-D (rows, n) array,
    and the shape of the other axes (nan_policy 'propagate' only)."""
    if nan_policy not in ("propagate", "omit", "raise"):
        raise ValueError(f"Illegal nan_policy value {nan_policy!r}; must be one of "
                         f"{{'propagate', 'omit', 'raise'}}")
    if nan_policy != "propagate":
        raise NotImplementedError(f"{name}: only nan_policy='propagate' is supported, got "
                                  f"{nan_policy!r}.")
    check_arraylike(name, a)
    a = fnp.asarray(a)
    if axis is None:
        return fnp.reshape(a, (1, -1)), ()
    moved = fnp.moveaxis(a, axis, -1)
    return fnp.reshape(moved, (-1, moved.shape[-1]) if moved.ndim else (1, 1)), moved.shape[:-1]


def _less_and_equal(x):
    """Per element of each row: how many of the row are smaller, and how many equal."""
    lt = fnp.sum(x[:, None, :] < x[:, :, None], axis=-1)
    eq = fnp.sum(x[:, None, :] == x[:, :, None], axis=-1)
    return lt, eq


def rankdata(a, method: str = "average", *, axis=None, nan_policy: str = "propagate"):
    """Ranks (from 1) of the values of ``a`` along ``axis`` (flattened when None), ties by
    ``method``: 'average', 'min', 'max', 'dense' or 'ordinal' (float32 ranks, as JAX's).
    With nan_policy 'propagate' a slice holding a NaN ranks as all NaN."""
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f"unknown method '{method}'")
    x, outer = _rows("rankdata", a, axis, nan_policy)
    lt, eq = _less_and_equal(x)
    n = x.shape[-1]
    idx = fnp.arange(n)
    # equal values earlier in the row
    before = fnp.sum((x[:, None, :] == x[:, :, None]) & (idx[None, None, :] < idx[None, :, None]),
                     axis=-1)
    if method == "ordinal":
        r = lt + before + 1
    elif method == "min":
        r = lt + 1
    elif method == "max":
        r = lt + eq
    elif method == "average":
        r = lt + 0.5 * (eq + 1)
    else:  # dense: 1 + the distinct values below (counted at their first occurrence)
        r = fnp.sum((x[:, None, :] < x[:, :, None]) & (before == 0)[:, None, :], axis=-1) + 1
    r = r.astype(fnp.float32)
    if fnp.issubdtype(x.dtype, fnp.inexact):
        r = fnp.where(fnp.any(fnp.isnan(x), axis=-1, keepdims=True), fnp.nan, r)
    if axis is None:
        return r[0]
    return fnp.moveaxis(fnp.reshape(r, outer + (n,)), -1, axis)


class ModeResult(NamedTuple):
    mode: Any
    count: Any


def mode(a, axis=0, nan_policy: str = "propagate", keepdims: bool = False) -> ModeResult:
    """The most frequent value along ``axis`` (flattened when None; the smallest among
    ties) and how often it occurs."""
    x, outer = _rows("mode", a, axis, nan_policy)
    _, eq = _less_and_equal(x)
    best = fnp.max(eq, axis=-1, keepdims=True)
    big = (fnp.finfo(x.dtype).max if fnp.issubdtype(x.dtype, fnp.inexact)
           else fnp.iinfo(x.dtype).max)
    value = fnp.min(fnp.where(eq == best, x, big), axis=-1)
    count = fnp.asarray(best[:, 0], fnp.int32)
    shape = outer
    if keepdims:
        shape = (1,) * fnp.ndim(a) if axis is None else outer + (1,)
    value, count = fnp.reshape(value, shape), fnp.reshape(count, shape)
    if keepdims and axis is not None:
        value, count = fnp.moveaxis(value, -1, axis), fnp.moveaxis(count, -1, axis)
    return ModeResult(value, count)
