"""JAX's numpy sorting, searching and set functions on the ``sort`` primitive: sort,
argsort, lexsort, searchsorted, unique, nonzero, flatnonzero, argwhere, where.

Data-dependent sizes (nonzero, unique) need ``size=`` under a transformation; eagerly they
are read from the concrete input, as JAX does.
"""
from __future__ import annotations

import operator

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.ir import Tracer, aval_of, literal
from ..lax._convert import convert
from ..lax._numeric import imag, real
from ._core import asarray, canonical_axis, check_arraylike, promote_args
from ._elementwise import _where3, floor_divide, remainder
from ._indexing import take

__all__ = ["sort_complex", "partition", "argpartition", "sort", "argsort", "lexsort", "searchsorted", "unique", "nonzero", "flatnonzero",
           "argwhere", "where"]

_SEARCH_METHODS = ["compare_all", "scan", "scan_unrolled", "sort"]


def _arg(name, a):
    check_arraylike(name, a)
    return asarray(a)


def _iota(dtype, shape, dimension):
    return lax.broadcasted_iota(dtype=np.dtype(dtype), shape=tuple(shape), dimension=dimension)


def _ravel(x):
    return lax.reshape(x, new_sizes=(aval_of(x).size,), dimensions=None)


def _check_kind(name, kind, order):
    if kind is not None:
        raise TypeError(f"'kind' argument to {name} is not supported. Use stable=True or "
                        "stable=False to specify sort stability.")
    if order is not None:
        raise TypeError(f"'order' argument to {name} is not supported.")


def _sort_axis(a, axis):
    """(array, axis): flattened with axis 0 when ``axis`` is None."""
    if axis is None:
        return _ravel(a), 0
    return a, canonical_axis(operator.index(axis), aval_of(a).ndim)


def sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """A sorted copy of ``a`` along ``axis`` (flattened when None); NaNs last (first when
    ``descending``).

    >>> import frontend.numpy as fnp
    >>> fnp.sort(fnp.array([3, 1, 2]))
    Array([1, 2, 3], dtype=int32)
    """
    a = _arg("sort", a)
    _check_kind("sort", kind, order)
    a, k = _sort_axis(a, axis)
    out = lax.sort(a, dimension=k, is_stable=stable)
    return lax.rev(out, dimensions=(k,)) if descending else out


def argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False, dtype=None):
    """The indices that sort ``a`` along ``axis`` (stable by default: equal elements keep
    their order, also when ``descending``).

    >>> import frontend.numpy as fnp
    >>> fnp.argsort(fnp.array([3, 1, 2]))
    Array([1, 2, 0], dtype=int32)
    """
    a = _arg("argsort", a)
    _check_kind("argsort", kind, order)
    a, k = _sort_axis(a, axis)
    idx_dtype = dtypes.canonicalize(np.dtype(dtype)) if dtype is not None else _index_dtype(
        aval_of(a).shape[k], default=True)
    iota = _iota(idx_dtype, aval_of(a).shape, k)
    if descending and stable:  # reversed in and out: equal keys keep their order
        a, iota = lax.rev(a, dimensions=(k,)), lax.rev(iota, dimensions=(k,))
    _, idx = lax.sort((a, iota), dimension=k, is_stable=bool(stable), num_keys=1)
    return lax.rev(idx, dimensions=(k,)) if descending else idx


def sort_complex(a):
    """``a`` sorted along its last axis, as a complex array."""
    a = sort(_arg("sort_complex", a), axis=-1)
    d = aval_of(a).dtype
    return convert(a, d if dtypes.is_complex(d) else dtypes.promote(
        (d, False), (np.dtype(np.complex64), False))[0], False)


def _partition_axis(name, a, kth, axis):
    a = _arg(name, a)
    k = canonical_axis(operator.index(axis), aval_of(a).ndim)
    n = aval_of(a).shape[k]
    kth = operator.index(kth)
    if not -n <= kth < n:
        raise ValueError(f"kth(={kth}) out of bounds for axis of length {n}")
    kth = kth % n
    last = aval_of(a).ndim - 1
    perm = tuple(i for i in range(last + 1) if i != k) + (k,)
    return lax.transpose(a, permutation=perm), k, kth, n, perm


def _unpermute(x, k, perm):
    return lax.transpose(x, permutation=tuple(int(i) for i in np.argsort(perm)))


def _negate(x):
    d = aval_of(x).dtype
    return lax.bitwise_not(x) if dtypes.is_int(d) and dtypes.is_unsigned(d) else lax.neg(x)


def partition(a, kth, axis=-1):
    """``a`` along ``axis`` with the kth element where sorting puts it: the kth + 1 smallest
    first (ascending), then the others (descending), as JAX's (top_k) result."""
    x, k, kth, n, perm = _partition_axis("partition", a, kth, axis)
    bottom = _negate(lax.top_k(_negate(x), kth + 1)[0])
    top = lax.top_k(x, n - kth - 1)[0]
    return _unpermute(lax.concatenate((bottom, top), dimension=aval_of(x).ndim - 1), k, perm)


def argpartition(a, kth, axis=-1):
    """Indices that partition ``a`` along ``axis`` (the order ``partition`` gives): the kth + 1
    smallest first, then the other indices in increasing order."""
    x, k, kth, n, perm = _partition_axis("argpartition", a, kth, axis)
    bottom = lax.top_k(_negate(x), kth + 1)[1]
    nd = aval_of(x).ndim
    shp = aval_of(bottom).shape
    # 1 where an index is not among the bottom ones: the top ones in index order
    hit = lax.eq(lax.broadcast_in_dim(bottom, shape=shp + (n,), broadcast_dimensions=tuple(range(nd))),
                 _iota(aval_of(bottom).dtype, shp + (n,), nd))
    proxy = convert(lax.bitwise_not(lax.reduce_or(hit, axes=(nd - 1,))), np.dtype(np.int32))
    top = lax.top_k(proxy, n - kth - 1)[1]
    return _unpermute(lax.concatenate((bottom, convert(top, aval_of(bottom).dtype)),
                                      dimension=nd - 1), k, perm)


def _index_dtype(n: int, default: bool = False) -> np.dtype:
    """int32 (int64 past its range), as JAX's indices; ``default``: the default int when
    int32 would do (argsort's choice, int64 under x64)."""
    d = np.dtype(np.int64) if n > np.iinfo(np.int32).max else np.dtype(np.int32)
    return dtypes.default_int() if default and d == np.int32 else dtypes.canonicalize(d)


def lexsort(keys, axis=-1):
    """Indices sorting by several keys, the last key the primary one (numpy.lexsort).

    >>> import frontend.numpy as fnp
    >>> fnp.lexsort([fnp.array([1, 0, 1]), fnp.array([0, 0, 1])])
    Array([1, 0, 2], dtype=int32)
    """
    keys = [_arg("lexsort", k) for k in keys]
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if len({aval_of(k).shape for k in keys}) > 1:
        raise ValueError("all keys need to be the same shape")
    shp = aval_of(keys[0]).shape
    if not shp:
        return asarray(np.zeros((), dtypes.default_int()))
    k = canonical_axis(operator.index(axis), len(shp))
    iota = _iota(_index_dtype(shp[k], default=True), shp, k)
    return lax.sort((*keys[::-1], iota), dimension=k, is_stable=True, num_keys=len(keys))[-1]


# ----------------------------------------------------------------------------- order


def before(x, y):
    """x < y in the sort order (NaN after every number; complex by real, then imaginary)."""
    d = aval_of(x).dtype
    if dtypes.is_complex(d):
        rx, ry, ix_, iy = real(x), real(y), imag(x), imag(y)
        return lax.bitwise_or(before(rx, ry), lax.bitwise_and(_same(rx, ry), before(ix_, iy)))
    lt = lax.lt(x, y)
    if not dtypes.is_float(d):
        return lt
    x_num = lax.eq(x, x)
    return lax.bitwise_or(lt, lax.bitwise_and(x_num, lax.ne(y, y)))


def _same(x, y):
    """x == y with NaN equal to NaN."""
    eq = lax.eq(x, y)
    if not dtypes.is_inexact(aval_of(x).dtype):
        return eq
    return lax.bitwise_or(eq, lax.bitwise_and(lax.ne(x, x), lax.ne(y, y)))


def searchsorted(a, v, side="left", sorter=None, *, method="scan"):
    """Where ``v``'s elements would be inserted into the sorted 1-D ``a`` to keep it
    sorted: a binary search, ``ceil(log2(len(a) + 1))`` vectorized steps (every ``method``
    gives the same indices). NaNs count as larger than every number.

    >>> import frontend.numpy as fnp
    >>> fnp.searchsorted(fnp.array([1., 2., 3.]), fnp.array([2., 2.5]))
    Array([1, 2], dtype=int32)
    """
    if side not in ("left", "right"):
        raise ValueError(f"invalid argument side={side!r}, expected 'left' or 'right'")
    if method not in _SEARCH_METHODS:
        raise ValueError(f"invalid argument method={method!r}, expected one of "
                         f"{_SEARCH_METHODS}")
    check_arraylike("searchsorted", a, v)
    a, v = asarray(a), asarray(v)
    if aval_of(a).ndim != 1:
        raise ValueError("a should be 1-dimensional")
    a, v = promote_args("searchsorted", a, v, broadcast=False)
    if sorter is not None:
        a = take(a, sorter)
    n = aval_of(a).shape[0]
    it = _index_dtype(n)
    vshape = aval_of(v).shape
    lo = lax.broadcast_in_dim(literal(0, it), shape=vshape, broadcast_dimensions=())
    hi = lax.broadcast_in_dim(literal(n, it), shape=vshape, broadcast_dimensions=())
    one, two = literal(1, it), literal(2, it)
    for _ in range(int(n).bit_length()):  # each step halves [lo, hi); n + 1 outcomes
        mid = lax.div(lax.add(lo, hi), two)
        am = take(a, lax.min(mid, literal(max(n - 1, 0), it)), mode="clip")
        right = before(am, v) if side == "left" else lax.bitwise_not(before(v, am))
        right = lax.bitwise_and(right, lax.lt(lo, hi))
        lo = lax.select(right, lax.add(mid, one), lo)
        hi = lax.select(right, hi, lax.min(hi, mid))
    return lo


# ----------------------------------------------------------------------------- nonzero


_SIZE_HINT = ("The size argument of jnp.nonzero must be statically specified to use "
              "jnp.nonzero within JAX transformations.")


def _concrete_count(mask, hint):
    if isinstance(mask, Tracer):
        raise mask._concrete_error(hint)
    return int(np.count_nonzero(np.asarray(mask)))


def _bool(a):
    return a if dtypes.is_bool(aval_of(a).dtype) else lax.ne(a, convert(0, aval_of(a).dtype))


def nonzero(a, *, size=None, fill_value=None):
    """The indices of the nonzero elements, one int array per dimension. ``size`` fixes
    their length (padded with index 0, or ``fill_value``; truncated when there are more).

    >>> import frontend.numpy as fnp
    >>> fnp.nonzero(fnp.array([0, 3, 0, 5]), size=3)
    (Array([1, 3, 0], dtype=int32),)
    """
    arr = _arg("nonzero", a)
    shp = aval_of(arr).shape
    if not shp:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "jnp.atleast_1d(scalar).nonzero() instead.")
    mask = _ravel(_bool(arr))
    size = _concrete_count(mask, _SIZE_HINT) if size is None else operator.index(size)
    it = dtypes.default_int()
    n = aval_of(mask).size
    if n == 0 or size == 0:
        out = [asarray(np.zeros(size, it)) for _ in shp]
    else:
        # k-th index = how many elements have fewer than k + 1 nonzeros up to them
        count = lax.cumsum(convert(mask, it), axis=0, reverse=False)
        hits = asarray(np.zeros(size, it)).at[count].add(literal(1, it), mode="drop")
        flat = lax.cumsum(hits, axis=0, reverse=False)
        strides = np.cumprod((1,) + shp[::-1][:-1])[::-1]
        out = [remainder(floor_divide(flat, literal(int(s), it)), literal(int(d), it))
               for s, d in zip(strides, shp, strict=True)]
    if fill_value is not None:
        fills = fill_value if isinstance(fill_value, (tuple, list)) else (fill_value,) * len(shp)
        if len(fills) != len(shp):
            raise ValueError(f"fill_value must be a scalar or a tuple of length {len(shp)}; "
                             f"got {fill_value}")
        total = lax.reduce_sum(convert(mask, it), axes=(0,))
        pad = lax.ge(_iota(it, (size,), 0), total)
        out = [_where3(pad, convert(f, it), o) for f, o in zip(fills, out, strict=True)]
    return tuple(out)


def flatnonzero(a, *, size=None, fill_value=None):
    """The indices of the nonzero elements of ``ravel(a)``."""
    return nonzero(_ravel(_arg("flatnonzero", a)), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
    """The indices of the nonzero elements as rows of an (N, ndim) array.

    >>> import frontend.numpy as fnp
    >>> fnp.argwhere(fnp.array([[0, 1], [2, 0]]))
    Array([[0, 1],
           [1, 0]], dtype=int32)
    """
    arr = _arg("argwhere", a)
    nd = aval_of(arr).ndim
    cols = nonzero(arr if nd else lax.reshape(arr, new_sizes=(1,), dimensions=None),
                   size=size, fill_value=fill_value)
    rows = [lax.reshape(c, new_sizes=(1,) + aval_of(c).shape, dimensions=None) for c in cols]
    out = lax.transpose(lax.concatenate(rows, dimension=0), permutation=(1, 0))
    if nd == 0:  # (N, 0): one empty row per nonzero (JAX's shape)
        return asarray(np.zeros((aval_of(out).shape[0], 0), dtypes.default_int()))
    return out


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """``x`` where ``condition`` else ``y`` (numpy broadcasting and promotion); with only a
    condition, its nonzero indices (``size``/``fill_value`` as in nonzero).

    >>> import frontend.numpy as fnp
    >>> fnp.where(fnp.array([True, False]), 1.0, 2.0)
    Array([1., 2.], dtype=float32, weak_type=True)
    """
    if x is None and y is None:
        c = _arg("where", condition)
        if aval_of(c).ndim == 0:
            c = lax.reshape(c, new_sizes=(1,), dimensions=None)
        return nonzero(c, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise TypeError(f"where requires ndarray or scalar arguments, got {type(None)} at "
                        f"position {1 if x is None else 2}.")
    if size is not None or fill_value is not None:
        raise ValueError("size and fill_value arguments cannot be used in three-term where "
                         "function.")
    return _where3(condition, x, y)


# ----------------------------------------------------------------------------- unique

_UNIQUE_HINT = ("To make jnp.unique() compatible with JIT and other transforms, you can "
                "specify a concrete value for the size argument, which will determine the "
                "output size.")


def _take0(x, idx):
    return take(x, idx, axis=0, mode="clip")


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           *, equal_nan=True, size=None, fill_value=None, sorted=True):  # noqa: A002
    """The sorted unique elements of ``ar`` (or unique slices along ``axis``), optionally
    with the first index of each, the inverse indices and the counts. ``size`` fixes the
    number of results (padded with the smallest element, or ``fill_value``).

    >>> import frontend.numpy as fnp
    >>> fnp.unique(fnp.array([3, 1, 3, 2]))
    Array([1, 2, 3], dtype=int32)
    """
    arr = _arg("unique", ar)
    if size is None:
        if isinstance(arr, Tracer):
            raise arr._concrete_error("The error arose for the first argument of jnp.unique(). "
                                      + _UNIQUE_HINT)
    else:
        size = operator.index(size)
    in_shape = aval_of(arr).shape
    if axis is None:
        arr, ax = _ravel(arr), 0
    else:
        ax = canonical_axis(operator.index(axis), len(in_shape))
    shp = aval_of(arr).shape
    if shp[ax] == 0 and size and fill_value is None:
        raise ValueError("jnp.unique: for zero-sized input with nonzero size argument, "
                         "fill_value must be specified")
    aux = arr if ax == 0 else lax.transpose(
        arr, permutation=(ax,) + tuple(i for i in range(len(shp)) if i != ax))
    rows, rest = aval_of(aux).shape[0], aval_of(aux).shape[1:]
    it = dtypes.default_int()
    width = int(np.prod(rest, dtype=np.int64))
    if width == 0 or rows == 0:
        perm = asarray(np.zeros(min(rows, 1) if width == 0 else 0, it))
        rows_eff = min(rows, 1) if width == 0 else 0
    else:
        flat = lax.reshape(aux, new_sizes=(rows, width), dimensions=None)
        cols = [lax.reshape(lax.slice(flat, start_indices=(0, j), limit_indices=(rows, j + 1),
                                      strides=None), new_sizes=(rows,), dimensions=None)
                for j in range(width)]
        perm = lax.sort((*cols, _iota(it, (rows,), 0)), dimension=0, is_stable=True,
                        num_keys=width)[-1]
        rows_eff = rows
    aux = _take0(aux, perm) if rows_eff else aux
    if rows_eff:
        first = lax.slice(aux, start_indices=(1,) + (0,) * len(rest),
                          limit_indices=(rows_eff,) + rest, strides=None)
        prev = lax.slice(aux, start_indices=(0,) * (1 + len(rest)),
                         limit_indices=(rows_eff - 1,) + rest, strides=None)
        if dtypes.is_inexact(aval_of(aux).dtype) and equal_nan:
            diff = lax.bitwise_not(_same(first, prev))
        else:
            diff = lax.ne(first, prev)
        if rest:
            diff = lax.reduce_or(diff, axes=tuple(range(1, 1 + len(rest))))
        mask = lax.concatenate((asarray(np.ones(1, bool)), diff), dimension=0)
    else:
        mask = asarray(np.zeros(rows_eff, bool))
    if size is None:
        size_now = int(np.count_nonzero(np.asarray(mask)))
        ind = nonzero(mask, size=size_now)[0]
    else:
        ind = nonzero(mask, size=size)[0]
    result = _take0(aux, ind) if rows_eff else aux
    n_out = aval_of(ind).shape[0]
    if size is not None and fill_value is not None:
        fv = convert(asarray(fill_value), aval_of(result).dtype)
        if aval_of(result).shape[0]:
            total = lax.reduce_sum(convert(mask, it), axes=(0,))
            valid = lax.lt(_iota(it, (n_out,), 0), total)
            valid = lax.broadcast_in_dim(valid, shape=aval_of(result).shape,
                                         broadcast_dimensions=(0,))
            result = _where3(valid, result, fv)
        else:
            result = lax.broadcast_in_dim(fv, shape=(size,) + rest, broadcast_dimensions=())
    if ax != 0:
        nd = len(shp)
        result = lax.transpose(result, permutation=tuple(list(range(1, ax + 1)) + [0]
                                                         + list(range(ax + 1, nd))))
    ret = [result]
    if return_index:
        ret.append(_take0(perm, ind) if rows_eff else perm)
    if return_inverse:
        if rows_eff:
            imask = lax.sub(lax.cumsum(convert(mask, it), axis=0, reverse=False),
                            literal(1, it))
            inv = asarray(np.zeros(rows_eff, it)).at[perm].set(imask)
        else:
            inv = asarray(np.zeros(shp[ax], it))
        if axis is None:
            inv = lax.reshape(inv, new_sizes=in_shape, dimensions=None)
        ret.append(inv)
    if return_counts:
        if rows_eff and (n_out if size is None else size) == 0:
            ret.append(asarray(np.zeros(0, it)))
        elif rows_eff:
            k = n_out if size is None else size
            # the start of each run and of the next one (the padding: past the end)
            idx = nonzero(mask, size=k + 1)[0]
            tail = lax.slice(idx, start_indices=(1,), limit_indices=(k + 1,), strides=None)
            tail = _where3(lax.ne(tail, literal(0, it)), tail, literal(rows_eff, it))
            head = lax.concatenate(
                (lax.slice(idx, start_indices=(0,), limit_indices=(1,), strides=None),
                 lax.slice(tail, start_indices=(0,), limit_indices=(k - 1,), strides=None)),
                dimension=0)
            ret.append(lax.sub(tail, head))
        elif shp[ax]:
            ret.append(asarray(np.full((1,), shp[ax], it)))
        else:
            ret.append(asarray(np.zeros(0, it)))
    return ret[0] if len(ret) == 1 else tuple(ret)
