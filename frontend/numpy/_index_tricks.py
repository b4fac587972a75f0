"""numpy's index tricks as JAX's numpy has them: r_, c_, mgrid, ogrid (index-expression
objects), s_/index_exp (numpy's own), ix_, indices, diag_indices(_from), mask_indices,
ravel_multi_index, unravel_index, fill_diagonal."""
from __future__ import annotations

import math
import operator

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.ir import Tracer, aval_of
from ..lax._convert import convert
from ._core import asarray, check_arraylike
from ._creation import arange, linspace
from ._elementwise import _like, _where3, floor_divide, multiply, remainder
from ._shape import concatenate, meshgrid, reshape, stack
from ._sorting import nonzero

__all__ = ["r_", "c_", "mgrid", "ogrid", "s_", "index_exp", "ix_", "indices", "diag_indices",
           "diag_indices_from", "mask_indices", "ravel_multi_index", "unravel_index",
           "fill_diagonal"]

s_, index_exp = np.s_, np.index_exp  # (JAX's numpy re-exports numpy's)


def _range_of(sl: slice):
    """arange for a real step, linspace for an imaginary one (numpy's slice notation)."""
    start = 0 if sl.start is None else sl.start
    step = 1 if sl.step is None else sl.step
    if isinstance(step, complex):
        return linspace(start, sl.stop, int(abs(step)))
    return arange(start, sl.stop, step)


def _ndmin(x, ndmin, trans1d):
    """x with leading axes added to ``ndmin`` dims, its own axes moved to ``trans1d`` (numpy's
    AxisConcatenator rule)."""
    nd = aval_of(x).ndim
    if ndmin <= nd:
        return x
    x = reshape(x, (1,) * (ndmin - nd) + aval_of(x).shape)
    if trans1d == -1:
        return x
    k2 = ndmin - nd
    k1 = trans1d + k2 + 1 if trans1d < 0 else trans1d
    axes = list(range(ndmin))
    return lax.transpose(x, permutation=tuple(axes[:k1] + axes[k2:] + axes[k1:k2]))


class _AxisConcatenator:
    """``r_[...]``/``c_[...]``: slices become ranges, the rest arrays, all concatenated."""

    def __init__(self, axis, ndmin, trans1d, name):
        self.axis, self.ndmin, self.trans1d, self.name = axis, ndmin, trans1d, name

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
        items = []
        for i, item in enumerate(key):
            if isinstance(item, str):
                if i != 0:
                    raise ValueError("string directive must be placed at the beginning")
                if item in ("r", "c"):
                    raise NotImplementedError("matrix output is not supported by "
                                              f"jnp.{self.name}")
                parts = [int(p) for p in item.split(",")]
                axis = parts[0]
                if len(parts) > 1:
                    ndmin = parts[1]
                if len(parts) > 2:
                    trans1d = parts[2]
                continue
            if isinstance(item, slice):
                obj = _range_of(item)
            else:
                check_arraylike(self.name, item)
                obj = asarray(item)
            items.append(_ndmin(obj, ndmin, trans1d))
        if not items:
            return asarray(np.zeros(0, dtypes.default_float()))
        return concatenate(items, axis=axis)

    def __len__(self):
        return 0


r_ = _AxisConcatenator(0, 1, -1, "r_")
c_ = _AxisConcatenator(-1, 2, 0, "c_")


class _Grid:
    """``mgrid[...]``/``ogrid[...]``: the index grid of slices (dense or open)."""

    def __init__(self, sparse):
        self.sparse = sparse

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _range_of(key)
        ranges = [_range_of(k) for k in key]
        if not ranges:
            return [] if self.sparse else asarray(np.zeros(0, dtypes.default_int()))
        d = dtypes.result_type(*ranges)
        ranges = [convert(r, d, False) for r in ranges]
        grids = meshgrid(*ranges, indexing="ij", sparse=self.sparse)
        return list(grids) if self.sparse else stack(grids, 0)


mgrid, ogrid = _Grid(False), _Grid(True)


def ix_(*args):
    """Open-mesh index arrays from 1-D sequences: the k-th has shape (1, .., n_k, .., 1)."""
    n = len(args)
    out = []
    for k, a in enumerate(args):
        check_arraylike("ix_", a)
        a = asarray(a)
        if aval_of(a).ndim != 1:
            raise ValueError(f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape "
                             f"{aval_of(a).shape}")
        if dtypes.is_bool(aval_of(a).dtype):
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
        out.append(reshape(a, (1,) * k + aval_of(a).shape + (1,) * (n - k - 1)))
    return tuple(out)


def indices(dimensions, dtype=None, sparse=False):
    """The index grid of a shape: (len(dimensions), *dimensions), or open (``sparse``)."""
    dims = tuple(operator.index(d) for d in dimensions)
    d = dtypes.canonicalize(np.dtype(dtype)) if dtype is not None else dtypes.default_int()
    out = []
    for k, n in enumerate(dims):
        shp = (1,) * k + (n,) + (1,) * (len(dims) - k - 1)
        iota = lax.broadcasted_iota(dtype=d, shape=shp, dimension=k)
        out.append(iota if sparse else lax.broadcast_in_dim(
            iota, shape=dims, broadcast_dimensions=tuple(range(len(dims)))))
    if sparse:
        return tuple(out)
    if not out:
        return asarray(np.zeros((0,), d))
    return stack(out, 0)


def diag_indices(n, ndim=2):
    """The indices of the main diagonal of an (n,) * ndim array."""
    n, ndim = operator.index(n), operator.index(ndim)
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (arange(n),) * ndim


def diag_indices_from(arr):
    """diag_indices of a square array."""
    check_arraylike("diag_indices_from", arr)
    shp = np.shape(arr) if not hasattr(arr, "shape") else tuple(arr.shape)
    if len(shp) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(shp)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(shp[0], len(shp))


def mask_indices(n, mask_func, k=0, *, size=None):
    """The indices where ``mask_func(ones((n, n)), k)`` is nonzero."""
    a = mask_func(asarray(np.ones((n, n), dtypes.default_int())), k)
    return nonzero(a, size=size)


def ravel_multi_index(multi_index, dims, mode="raise", order="C", *, dtype=None):
    """Flat indices of index tuples in an array of shape ``dims`` (``mode``: raise, wrap,
    clip, ignore), of ``dtype`` (default: the indices' promoted with a Python int)."""
    dims = tuple(operator.index(d) for d in dims)
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    idx = []
    for i in multi_index:
        check_arraylike("ravel_multi_index", i)
        i = asarray(i)
        if not dtypes.is_int(aval_of(i).dtype):
            raise TypeError("only int indices permitted")
        idx.append(i)
    dtype = dtypes.result_type(1, *idx) if dtype is None else dtypes.canonicalize(dtype)
    if not dtypes.is_int(dtype):
        raise ValueError(f"dtype={dtype!r} is not an integer type.")
    if math.prod(dims) - 1 > dtypes.iinfo(dtype).max:
        raise ValueError(f"jnp.ravel_multi_index: dtype={dtype!r} not large enough to hold "
                         f"flattened index for dims={dims}. Use the dtype argument to pass a "
                         "suitable dtype (e.g. dtype=np.min_scalar_type(prod(dims))).")
    if mode == "raise":
        for i, n in zip(idx, dims, strict=True):
            if isinstance(i, Tracer):
                raise i._concrete_error("The error occurred because ravel_multi_index was "
                                        "jit-compiled with mode='raise'. Use mode='wrap' or "
                                        "mode='clip' instead.")
            v = np.asarray(i)
            if v.size and (v.min() < 0 or v.max() >= n):
                raise ValueError("invalid entry in coordinates array")
    elif mode == "wrap":
        idx = [remainder(i, n) for i, n in zip(idx, dims, strict=True)]
    elif mode == "clip":
        idx = [lax.clamp(convert(0, aval_of(i).dtype), i, convert(n - 1, aval_of(i).dtype))
               for i, n in zip(idx, dims, strict=True)]
    elif mode != "ignore":
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip', or "
                         "'ignore'.")
    order_dims = list(range(len(dims)))[::-1] if order == "C" else list(range(len(dims)))
    out, stride = 0, 1
    for k in order_dims:
        out = multiply(idx[k].astype(dtype), stride) + out
        stride *= dims[k]
    return asarray(out, dtype)


def unravel_index(indices, shape):
    """The index tuple of each flat index in an array of ``shape`` (out-of-range indices
    clipped, as JAX's)."""
    check_arraylike("unravel_index", indices)
    i = asarray(indices)
    if not dtypes.is_int(aval_of(i).dtype):
        raise TypeError("Only integer indices are permitted in unravel_index.")
    shape = tuple(operator.index(s) for s in shape)
    if not shape:
        if aval_of(i).ndim:
            raise ValueError("multiple indices for a 0-dimensional shape")
        return ()
    total = int(np.prod(shape))
    zero, hi = _like(0, i), _like(max(total - 1, 0), i)
    neg = lax.lt(i, zero)
    i = _where3(neg, i + total, i)
    i = lax.clamp(zero, i, hi)
    out = []
    for n in shape[::-1]:
        out.append(remainder(i, n))
        i = floor_divide(i, n)
    return tuple(out[::-1])


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """``a`` with its main diagonal set to ``val`` (repeated as needed); JAX's arrays are
    immutable, so ``inplace=False`` is required."""
    if inplace:
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    check_arraylike("fill_diagonal", a, val)
    a = asarray(a)
    shp = aval_of(a).shape
    if len(shp) < 2:
        raise ValueError("array must be at least 2-d")
    if len(shp) > 2 and len(set(shp)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    v = reshape(asarray(val), (-1,))
    m = aval_of(v).shape[0]
    if len(shp) == 2:  # flat positions every ncols + 1 (past the square part: with wrap)
        end = shp[0] * shp[1] if wrap else min(shp) * shp[1]
        flat = np.arange(0, end, shp[1] + 1)
    else:
        flat = np.ravel_multi_index((np.arange(shp[0]),) * len(shp), shp)
    k = len(flat)
    if m == 0 or k == 0:
        return a
    reps = -(-k // m)  # val repeated (numpy's rule) and cut to the diagonal's length
    vals = reshape(lax.broadcast_in_dim(v, shape=(reps, m), broadcast_dimensions=(1,)), (-1,))
    vals = lax.slice(vals, start_indices=(0,), limit_indices=(k,), strides=None)
    flat_a = reshape(a, (-1,))
    out = flat_a.at[asarray(flat.astype(np.int32))].set(convert(vals, aval_of(a).dtype, False))
    return reshape(out, shp)

