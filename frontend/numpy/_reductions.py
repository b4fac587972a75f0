"""JAX's numpy reductions: sum, prod, max, min, mean, var, std, argmax, argmin, all, any,
cumsum, cumprod, count_nonzero. Same names, arguments, dtype rules and errors as JAX's numpy.

Dtype rules (as JAX's numpy): results are never weakly typed; ``sum``/``prod`` of bool and of
integers narrower than the default int give the default (u)int; ``mean``/``var``/``std`` of
bool and integers give the default float; float16/bfloat16 sums are computed in float32 and
rounded back (unless ``dtype`` is given); ``var`` of complex is real.

>>> import frontend.numpy as fnp
>>> fnp.sum(fnp.ones((2, 3)), axis=1)
Array([3., 3.], dtype=float32)
"""
from __future__ import annotations

import math
import operator

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.config import config
from ..core.ir import aval_of, literal
from ..device.fusion import eager_fused
from ..interpreters.ragged import axis_length, is_ragged
from ..lax._convert import convert
from ..primitives import reductions as red
from ._core import asarray, broadcast_to_shape, canonical_axis, check_arraylike, no_out

__all__ = ["cumulative_sum", "cumulative_prod", "sum", "prod", "max", "min", "amax", "amin", "mean", "var", "std", "argmax",
           "argmin", "all", "any", "cumsum", "cumprod", "count_nonzero", "ptp"]

_builtin_any = any

# ----------------------------------------------------------------------------- helpers


def _arg(name, a):
    check_arraylike(name, a)
    return asarray(a)


def _check_out(name, out):
    no_out(f"jnp.{name}", out)


def _check_where(name, where):
    if where is None:
        return None
    where = _arg(name, where)
    if where.dtype != dtypes.bool_:
        raise ValueError(f"jnp.{name}: where must be None or a boolean array; got "
                         f"where.dtype={where.dtype!r}.")
    return where


def _reduction_axes(axis, ndim) -> tuple:
    """Canonical (non-negative) reduced axes; numpy/JAX errors for bad ones."""
    if axis is None:
        return tuple(range(ndim))
    axes = tuple(axis) if isinstance(axis, (tuple, list, np.ndarray)) else (axis,)
    canon = tuple(canonical_axis(operator.index(a), ndim) for a in axes)
    if len(set(canon)) != len(canon):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return canon


def _user_dtype(dtype) -> np.dtype:
    return dtypes.canonicalize(np.dtype(dtype))


def _promote_integer(d) -> np.dtype:
    """bool and integers narrower than the default become the default (u)int."""
    d = np.dtype(d)
    if dtypes.is_bool(d):
        return dtypes.default_int()
    if dtypes.is_unsigned(d):
        du = dtypes.uint64 if config.enable_x64 else dtypes.uint32
        return du if d.itemsize < du.itemsize else d
    if dtypes.is_int(d):
        di = dtypes.default_int()
        return di if d.itemsize < di.itemsize else d
    return d


def _upcast_f16(d) -> np.dtype:
    d = np.dtype(d)
    return dtypes.float32 if d in (dtypes.float16, dtypes.bfloat16) else d


def _expand(x, axes, ndim):
    """Put size-1 dims back at the reduced ``axes`` (keepdims), one broadcast_in_dim."""
    if not axes:
        return x
    kept = [i for i in range(ndim) if i not in axes]
    shape = list(aval_of(x).shape)
    full = [1] * ndim
    for i, s in zip(kept, shape, strict=True):
        full[i] = s
    return lax.broadcast_in_dim(x, shape=tuple(full), broadcast_dimensions=tuple(kept))


def _flatten(x):
    a = aval_of(x)
    return x if a.shape == (a.size,) else lax.reshape(x, new_sizes=(a.size,), dimensions=None)


def _mask(x, where, fill):
    """x where ``where`` else the scalar ``fill`` (where broadcast to x's shape)."""
    a = aval_of(x)
    where = broadcast_to_shape(where, a.shape)
    return lax.select(where, x, literal(fill, a.dtype, False))


# reduce primitive -> its lax function, and the lax op of its monoid (to apply ``initial``)
_LAX = {red.reduce_sum_p: (lax.reduce_sum, lax.add), red.reduce_prod_p: (lax.reduce_prod, lax.mul),
        red.reduce_max_p: (lax.reduce_max, lax.max), red.reduce_min_p: (lax.reduce_min, lax.min),
        red.reduce_and_p: (lax.reduce_and, lax.bitwise_and),
        red.reduce_or_p: (lax.reduce_or, lax.bitwise_or)}


def _reduction(name, prim, a, axis, dtype, out, keepdims, initial, where, *, bool_prim=None,
               has_identity=True, promote_integers=False, upcast_f16=False, preproc=None):
    _check_out(name, out)
    a = _arg(name, a)
    where = _check_where(name, where)
    if initial is None and not has_identity and where is not None:
        raise ValueError(f"reduction operation {name} does not have an identity, so to use a "
                         f"where mask one has to specify 'initial'")
    if preproc is not None:
        a = preproc(a)
    av = aval_of(a)
    axes = _reduction_axes(axis, av.ndim)
    if initial is None and not has_identity and _builtin_any(av.shape[d] == 0 for d in axes):
        raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
    if dtype is None:
        # (canonical: an array made with 64-bit mode on reduces to 32 bits once it is off)
        result = dtypes.canonicalize(_promote_integer(av.dtype) if promote_integers else av.dtype)
    else:
        result = _user_dtype(dtype)
    comp = _upcast_f16(result) if upcast_f16 and dtypes.is_inexact(result) else result
    a = convert(a, comp, False)
    if dtypes.is_bool(comp) and bool_prim is not None:
        prim = bool_prim
    if where is not None:
        a = _mask(a, where, red.IDENTITY[prim](comp))
    reduce, combine = _LAX[prim]
    r = reduce(a, axes)
    if initial is not None:
        if np.ndim(initial) != 0:
            raise ValueError(f"initial value must be a scalar. Got array of shape "
                             f"{np.shape(initial)}")
        init = convert(initial if isinstance(initial, (bool, int, float, complex)) else asarray(initial),
                       comp, False)
        r = combine(init, r)
    if keepdims:
        r = _expand(r, axes, av.ndim)
    return convert(r, result, False)


def _as_bool(a):
    return convert(a, dtypes.bool_, False)


def _as_numeric(a):
    """Booleans as int32 (JAX's numpy sums and multiplies numbers: the bool reduction is only
    for an explicit bool ``dtype``)."""
    d = aval_of(a).dtype
    return convert(a, dtypes.to_numeric(d), False) if dtypes.is_bool(d) else a


# ----------------------------------------------------------------------------- reductions


@eager_fused(1)
def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,  # noqa: A001
        promote_integers=True):
    """Sum of elements over ``axis`` (frontend.numpy.sum).

    >>> import frontend.numpy as fnp
    >>> fnp.sum(fnp.array([[1, 2], [3, 4]]), axis=0)
    Array([4, 6], dtype=int32)
    """
    return _reduction("sum", red.reduce_sum_p, a, axis, dtype, out, keepdims, initial, where,
                      bool_prim=red.reduce_or_p, promote_integers=promote_integers,
                      upcast_f16=dtype is None, preproc=_as_numeric)


@eager_fused(1)
def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
         promote_integers=True):
    """Product of elements over ``axis`` (frontend.numpy.prod).

    >>> import frontend.numpy as fnp
    >>> fnp.prod(fnp.array([1., 2., 3.]))
    Array(6., dtype=float32)
    """
    return _reduction("prod", red.reduce_prod_p, a, axis, dtype, out, keepdims, initial, where,
                      bool_prim=red.reduce_and_p, promote_integers=promote_integers,
                      upcast_f16=dtype is None, preproc=_as_numeric)


@eager_fused(1)
def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    """Maximum over ``axis`` (frontend.numpy.max); NaN propagates.

    >>> import frontend.numpy as fnp
    >>> fnp.max(fnp.array([[1, 5], [3, 4]]), axis=1)
    Array([5, 4], dtype=int32)
    """
    return _reduction("max", red.reduce_max_p, a, axis, None, out, keepdims, initial, where,
                      has_identity=False)


@eager_fused(1)
def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    """Minimum over ``axis`` (frontend.numpy.min); NaN propagates.

    >>> import frontend.numpy as fnp
    >>> fnp.min(fnp.array([[1, 5], [3, 4]]), axis=1)
    Array([1, 3], dtype=int32)
    """
    return _reduction("min", red.reduce_min_p, a, axis, None, out, keepdims, initial, where,
                      has_identity=False)


amax = max
amin = min


@eager_fused(1)
def all(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
    """True where every element over ``axis`` is nonzero (frontend.numpy.all).

    >>> import frontend.numpy as fnp
    >>> fnp.all(fnp.array([[1, 0], [2, 3]]), axis=1)
    Array([False,  True], dtype=bool)
    """
    return _reduction("all", red.reduce_and_p, a, axis, None, out, keepdims, None, where,
                      preproc=_as_bool)


@eager_fused(1)
def any(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
    """True where some element over ``axis`` is nonzero (frontend.numpy.any).

    >>> import frontend.numpy as fnp
    >>> fnp.any(fnp.array([[1, 0], [0, 0]]), axis=1)
    Array([ True, False], dtype=bool)
    """
    return _reduction("any", red.reduce_or_p, a, axis, None, out, keepdims, None, where,
                      preproc=_as_bool)


def _count(a, axes, keepdims, where, dtype):
    """The number of elements reduced: a Python number, or an array when ``where`` is given."""
    av = aval_of(a)
    if where is None:
        if is_ragged(a):  # (under vmap of a ragged batch: a ragged axis counts the lane's length)
            n = literal(1, np.dtype(np.int32), False)
            for d in axes:
                n = lax.mul(n, convert(axis_length(a, d), np.int32, False))
            return convert(n, dtype, False)
        return math.prod(av.shape[d] for d in axes)
    return sum(broadcast_to_shape(where, av.shape), axis=axes, dtype=dtype, keepdims=keepdims)


@eager_fused(1)
def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """Arithmetic mean over ``axis`` (frontend.numpy.mean); integers give the default float.

    >>> import frontend.numpy as fnp
    >>> fnp.mean(fnp.array([1, 2, 3, 4]))
    Array(2.5, dtype=float32)
    """
    _check_out("mean", out)
    a = _arg("mean", a)
    where = _check_where("mean", where)
    av = aval_of(a)
    axes = _reduction_axes(axis, av.ndim)
    result = dtypes.to_inexact(av.dtype) if dtype is None else _user_dtype(dtype)
    comp = _upcast_f16(result) if dtypes.is_inexact(result) else result
    s = sum(a, axes, dtype=comp, keepdims=keepdims, where=where)
    n = _count(a, axes, keepdims, where, comp)
    if isinstance(n, int):
        n = literal(n, comp, False)
    return convert(lax.div(s, n), result, False)


_mean = mean  # (var's keyword ``mean`` shadows the function)


def _var_types(a_dtype, dtype):
    if dtype is not None:
        dtype = _user_dtype(dtype)
        if dtypes.is_complex(a_dtype) and not dtypes.is_complex(dtype):
            raise ValueError("frontend.numpy.var does not yet support real dtype parameters when "
                             "computing the variance of an array of complex values.")
        comp = dtype
    elif not dtypes.is_inexact(a_dtype):
        dtype = comp = dtypes.to_inexact(a_dtype)
    else:
        comp = np.dtype(a_dtype)
        dtype = np.dtype(np.finfo(a_dtype).dtype) if dtypes.is_complex(a_dtype) else comp
    return _upcast_f16(comp), np.dtype(dtype)


@eager_fused(1)
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        correction=None, mean=None):
    """Variance over ``axis`` with ``ddof`` (or ``correction``) degrees of freedom removed
    (frontend.numpy.var). NaN where the count minus ddof is not positive. ``mean``: the
    mean to use (with the reduced axes kept), instead of computing it.

    >>> import frontend.numpy as fnp
    >>> fnp.var(fnp.array([1., 2., 3., 4.]), ddof=1)
    Array(1.666666..., dtype=float32)
    """
    _check_out("var", out)
    if correction is None:
        correction = ddof
    elif ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    a = _arg("var", a)
    where = _check_where("var", where)
    av = aval_of(a)
    axes = _reduction_axes(axis, av.ndim)
    comp, result = _var_types(av.dtype, dtype)
    a = convert(a, comp, False)
    kept = tuple(i for i in range(av.ndim) if i not in axes)
    if mean is None:
        m = _mean(a, axes, dtype=comp, where=where)
        m = lax.broadcast_in_dim(m, shape=av.shape, broadcast_dimensions=kept)
    else:
        m = broadcast_to_shape(convert(_arg("var", mean), comp, False), av.shape)
    c = lax.sub(a, m)
    if dtypes.is_complex(comp):
        c = lax.abs(c)
        comp = aval_of(c).dtype
    sq = lax.mul(c, c)
    r = sum(sq, axes, dtype=comp, keepdims=keepdims, where=where)
    n = _count(a, axes, keepdims, where, comp)
    if isinstance(n, int):
        k = n - correction
        r = lax.div(r, literal(k, comp, False))
        if k <= 0:  # NaN, with a zero derivative (JAX's where(count > 0, r, nan)), not r * nan
            r = lax.select(literal(False, dtypes.bool_, False), r, literal(np.nan, comp, False))
    else:
        k = lax.sub(n, literal(correction, comp, False))
        r = lax.div(r, k)
        r = lax.select(lax.gt(k, literal(0, comp, False)), r,
                       literal(np.nan, comp, False))
    if not dtypes.is_inexact(result):
        # JAX's numpy's final where(count > 0, r, nan) promotes with a weak float
        return convert(convert(r, result, False), dtypes.default_float(), True)
    return convert(r, result, False)


@eager_fused(1)
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        correction=None, mean=None):
    """Standard deviation over ``axis`` (frontend.numpy.std): the square root of ``var``.

    >>> import frontend.numpy as fnp
    >>> fnp.std(fnp.array([1., 3.]))
    Array(1., dtype=float32)
    """
    _check_out("std", out)
    if dtype is not None and not dtypes.is_inexact(_user_dtype(dtype)):
        raise ValueError(f"dtype argument to jnp.std must be inexact; got {_user_dtype(dtype)}")
    v = var(a, axis, dtype, None, ddof, keepdims, where=where, correction=correction, mean=mean)
    return lax.sqrt(v)


@eager_fused(1)
def ptp(a, axis=None, out=None, keepdims=False):
    """max - min over ``axis`` (peak to peak)."""
    _check_out("ptp", out)
    return lax.sub(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))


def count_nonzero(a, axis=None, keepdims=False):
    """Number of nonzero elements over ``axis`` (default int).

    >>> import frontend.numpy as fnp
    >>> fnp.count_nonzero(fnp.array([0, 1, 2]))
    Array(2, dtype=int32)
    """
    a = _as_bool(_arg("count_nonzero", a))
    return sum(convert(a, dtypes.default_int(), False), axis=axis, keepdims=keepdims)


# ----------------------------------------------------------------------------- arg reductions


def _argreduce(name, op, a, axis, out, keepdims):
    _check_out(name, out)
    a = _arg(name, a)
    av = aval_of(a)
    if axis is None:
        x, k = _flatten(a), 0
    else:
        k = canonical_axis(operator.index(axis), av.ndim)
        x = a
    if aval_of(x).shape[k] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    r = op(x, k, dtypes.default_int())
    if keepdims:
        if axis is None:
            r = lax.reshape(r, new_sizes=(1,) * av.ndim, dimensions=None)
        else:
            r = _expand(r, (k,), av.ndim)
    return r


def argmax(a, axis=None, out=None, keepdims=None):
    """Index of the largest element over ``axis`` (flattened when None); the first one on
    ties, the first NaN if any (frontend.numpy.argmax).

    >>> import frontend.numpy as fnp
    >>> fnp.argmax(fnp.array([1, 3, 3]))
    Array(1, dtype=int32)
    """
    return _argreduce("argmax", lax.argmax, a, axis, out, keepdims)


def argmin(a, axis=None, out=None, keepdims=None):
    """Index of the smallest element over ``axis`` (flattened when None); the first one on
    ties, the first NaN if any (frontend.numpy.argmin).

    >>> import frontend.numpy as fnp
    >>> fnp.argmin(fnp.array([3, 1, 1]))
    Array(1, dtype=int32)
    """
    return _argreduce("argmin", lax.argmin, a, axis, out, keepdims)


# ----------------------------------------------------------------------------- cumulative


def _cumulative(name, op, a, axis, dtype, out):
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported")
    a = _arg(name, a)
    if axis is None or aval_of(a).ndim == 0:
        a = _flatten(a)
    k = canonical_axis(operator.index(0 if axis is None else axis), aval_of(a).ndim)
    d = aval_of(a).dtype
    if dtype is None:
        result = _promote_integer(d) if dtypes.is_bool(d) else dtypes.canonicalize(d)
        comp = result
    elif np.dtype(dtype) == dtypes.bool_:
        # accumulate nonzero-ness in the default int, then back to bool
        result = dtypes.bool_
        if d != result:
            a = _as_bool(a)
        comp = _promote_integer(result)
    else:
        result = comp = _user_dtype(dtype)
    a = convert(a, comp, False)
    return convert(op(a, axis=k, reverse=False), result, False)


def cumsum(a, axis=None, dtype=None, out=None):
    """Inclusive cumulative sum along ``axis`` (flattened when None) (frontend.numpy.cumsum).

    >>> import frontend.numpy as fnp
    >>> fnp.cumsum(fnp.array([1, 2, 3]))
    Array([1, 3, 6], dtype=int32)
    """
    return _cumulative("cumsum", lax.cumsum, a, axis, dtype, out)


def cumprod(a, axis=None, dtype=None, out=None):
    """Inclusive cumulative product along ``axis`` (flattened when None) (frontend.numpy.cumprod).

    >>> import frontend.numpy as fnp
    >>> fnp.cumprod(fnp.array([1, 2, 3]))
    Array([1, 2, 6], dtype=int32)
    """
    return _cumulative("cumprod", lax.cumprod, a, axis, dtype, out)


def _cumulative_array_api(name, fn, x, axis, dtype, include_initial):
    x = _arg(name, x)
    nd = aval_of(x).ndim
    if axis is None:
        if nd > 1:
            raise ValueError(f"The input array has rank {nd}, however axis was not set to an "
                             "explicit value. The axis argument is only optional for "
                             "one-dimensional arrays.")
        axis = 0
    if nd == 0:
        raise ValueError(f"{name} does not support a 0-dimensional input")
    k = canonical_axis(operator.index(axis), nd)
    out = fn(x, axis=k, dtype=dtype)
    if not include_initial:
        return out
    shp = list(aval_of(out).shape)
    shp[k] = 1
    init = lax.broadcast_in_dim(convert(0 if name == "cumulative_sum" else 1, aval_of(out).dtype),
                                shape=tuple(shp), broadcast_dimensions=())
    return lax.concatenate((init, out), dimension=k)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """The array API's cumsum: ``axis`` required past 1-D; ``include_initial`` starts at 0."""
    return _cumulative_array_api("cumulative_sum", cumsum, x, axis, dtype, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """The array API's cumprod: ``axis`` required past 1-D; ``include_initial`` starts at 1."""
    return _cumulative_array_api("cumulative_prod", cumprod, x, axis, dtype, include_initial)
