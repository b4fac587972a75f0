"""Shape lax functions: one primitive each (static shapes, JAX's lax signatures)."""
from __future__ import annotations

from builtins import slice as builtins_slice

import numpy as np

from ..core import dtypes
from ..core.ir import aval_of, literal
from ..core.shape_poly import DimExpr, canonical_shape
from ..interpreters.batching import shape as _shape
from ..primitives.padding import concatenate_p, pad_p, slice_p
from ..primitives.shape import (
    broadcast_in_dim_p,
    iota_p,
    reshape_p,
    rev_p,
    squeeze_p,
    transpose_p,
)


def _check_int_seq(name, what, xs):
    try:
        return canonical_shape(xs)
    except TypeError:
        raise TypeError(f"{name} {what} must be a sequence of integers, got {xs!r}.") from None


def broadcast_in_dim(operand, shape, broadcast_dimensions):
    """lax.broadcast_in_dim: operand dim i becomes result dim broadcast_dimensions[i]."""
    return broadcast_in_dim_p.bind(operand, shape=canonical_shape(shape),
                                   broadcast_dimensions=tuple(map(int, broadcast_dimensions)))


def broadcast(operand, sizes):
    """lax.broadcast: add leading dims of ``sizes``."""
    sizes = canonical_shape(sizes)
    shp = _shape(operand)
    return broadcast_in_dim(operand, sizes + tuple(shp), range(len(sizes), len(sizes) + len(shp)))


def reshape(operand, new_sizes, dimensions=None):
    """lax.reshape: row-major reshape (after transposing by ``dimensions`` if given)."""
    if dimensions is not None:
        operand = transpose(operand, dimensions)
    new_sizes = (new_sizes,) if isinstance(new_sizes, (int, np.integer, DimExpr)) else new_sizes
    new_sizes = canonical_shape(new_sizes)
    if _shape(operand) == new_sizes and aval_of(operand, host=False) is not None:
        return operand
    return reshape_p.bind(operand, new_sizes=new_sizes, dimensions=None)


def transpose(operand, permutation):
    """lax.transpose: result dim i is operand dim permutation[i]."""
    perm = tuple(map(int, permutation))
    a = aval_of(operand, host=False)
    if perm == tuple(range(len(perm))) and a is not None and len(perm) == a.ndim:
        return operand
    return transpose_p.bind(operand, permutation=perm)


def _normalize_axes(dimensions, nd: int) -> list:
    """Axes in [-nd, nd) as non-negative ints; ValueError naming an out-of-range one."""
    dims = []
    for k in dimensions:
        k = int(k)
        if not -nd <= k < nd:
            raise ValueError(f"axis {k} is out of bounds for array of dimension {nd}")
        dims.append(k % nd)
    return dims


def squeeze(array, dimensions):
    """lax.squeeze: drop size-1 ``dimensions`` (negative allowed)."""
    dims = _normalize_axes(dimensions, len(_shape(array)))
    if not dims and aval_of(array, host=False) is not None:
        return array
    return squeeze_p.bind(array, dimensions=tuple(sorted(dims)))


def expand_dims(array, dimensions):
    """lax.expand_dims: insert size-1 dims at ``dimensions`` (of the result, negative ok)."""
    shp = _shape(array)
    nd = len(shp) + len(tuple(dimensions))
    dims = _normalize_axes(dimensions, nd)
    if len(set(dims)) != len(dims):
        raise ValueError(f"repeated axis in lax.expand_dims: {tuple(dimensions)}")
    out, it = [], iter(shp)
    for i in range(nd):
        out.append(1 if i in dims else next(it))
    keep = tuple(i for i in range(nd) if i not in dims)
    return broadcast_in_dim_p.bind(array, shape=tuple(out), broadcast_dimensions=keep)


def slice(operand, start_indices, limit_indices, strides=None):  # noqa: A001
    """lax.slice: operand[start:limit:stride] per dim (static)."""
    st = _check_int_seq("slice", "start_indices", start_indices)
    lim = _check_int_seq("slice", "limit_indices", limit_indices)
    if strides is not None:
        strides = _check_int_seq("slice", "strides", strides)
        if all(s == 1 for s in strides) and len(strides) == len(_shape(operand)):
            strides = None
    return slice_p.bind(operand, start_indices=st, limit_indices=lim, strides=strides)


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    """lax.slice_in_dim: a slice along one axis (None means the end)."""
    shp = _shape(operand)
    axis = int(axis) % len(shp)
    n = shp[axis]
    start = 0 if start_index is None else int(start_index)
    limit = n if limit_index is None else int(limit_index)
    start = start + n if start < 0 else start
    limit = limit + n if limit < 0 else limit
    st = [0] * len(shp)
    lim = list(shp)
    strides = [1] * len(shp)
    st[axis], lim[axis], strides[axis] = start, limit, int(stride)
    return slice(operand, st, lim, strides)


def index_in_dim(operand, index, axis=0, keepdims=True):
    """lax.index_in_dim: element ``index`` of one axis (kept as size 1 with keepdims)."""
    shp = _shape(operand)
    axis = int(axis) % len(shp)
    index = int(index)
    n = shp[axis]
    if not -n <= index < n:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {n}")
    index %= n
    out = slice_in_dim(operand, index, index + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


def pad(operand, padding_value, padding_config):
    """lax.pad: ``padding_config`` holds one (low, high, interior) triple per dim; negative
    low/high cut. A Python scalar padding value takes the operand's dtype."""
    cfg = tuple((int(lo), int(hi), int(i)) for lo, hi, i in padding_config)
    if isinstance(padding_value, (bool, int, float, complex)):
        padding_value = literal(padding_value, aval_of(operand).dtype, True)
    return pad_p.bind(operand, padding_value, padding_config=cfg)


def concatenate(operands, dimension):
    """lax.concatenate: join operands of one dtype and rank along ``dimension``."""
    operands = list(operands)
    if not operands:
        raise ValueError("concatenate requires a non-empty sequences of arrays")
    if len(operands) == 1 and aval_of(operands[0], host=False) is not None:
        return operands[0]
    return concatenate_p.bind(*operands, dimension=int(dimension))


def broadcasted_iota(dtype, shape, dimension):
    """lax.broadcasted_iota: counts 0, 1, ... along ``dimension`` of ``shape``."""
    shape = canonical_shape(shape)
    dimension = int(dimension)
    return iota_p.bind(dtype=dtypes.canonicalize(np.dtype(dtype)), shape=shape,
                       dimension=dimension)


def iota(dtype, size):
    """lax.iota: [0, 1, ..., size - 1] of ``dtype``."""
    return broadcasted_iota(dtype, (size,), 0)


def rev(operand, dimensions):
    """lax.rev: reverse along ``dimensions``."""
    return rev_p.bind(operand, dimensions=tuple(map(int, dimensions)))


def dtype(x):
    """lax.dtype: the (canonical) dtype ``x`` would have as an array (weak Python scalars give
    the default dtype of their kind)."""
    return dtypes.dtype_and_weak(x)[0]


def broadcast_shapes(*shapes) -> tuple:
    """lax.broadcast_shapes: numpy's broadcast of static shapes (JAX's error otherwise)."""
    shapes = [tuple(map(int, s)) for s in shapes]
    nd = max((len(s) for s in shapes), default=0)
    out = []
    for sizes in zip(*[(1,) * (nd - len(s)) + s for s in shapes], strict=True):
        big = {d for d in sizes if d != 1}
        if len(big) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}")
        out.append(big.pop() if big else 1)
    return tuple(out)


def broadcast_to_rank(x, rank: int):
    """lax.broadcast_to_rank: ``x`` with leading size-1 axes up to ``rank`` dims."""
    shp = tuple(_shape(x))
    if len(shp) >= rank:
        return x
    return reshape(x, (1,) * (rank - len(shp)) + shp)


def broadcast_like(arr, like_arr):
    """lax.broadcast_like: ``arr`` broadcast to ``like_arr``'s shape (numpy's rules)."""
    shp, target = tuple(_shape(arr)), tuple(_shape(like_arr))
    out = broadcast_shapes(shp, target)
    return broadcast_in_dim(arr, out, range(len(out) - len(shp), len(out)))


def collapse(operand, start_dimension: int, stop_dimension: int | None = None):
    """lax.collapse: axes ``start_dimension:stop_dimension`` merged into one."""
    shp = tuple(_shape(operand))
    lo, hi, _ = builtins_slice(start_dimension, stop_dimension).indices(len(shp))
    size = int(np.prod(shp[lo:hi], dtype=np.int64))
    return reshape(operand, shp[:lo] + (size,) + shp[hi:])


def full(shape, fill_value, dtype=None, *, sharding=None):
    """lax.full: an array of ``shape`` filled with ``fill_value`` (weakly typed when the
    value is a Python scalar and ``dtype`` is None, as JAX's).

    >>> from frontend import lax
    >>> lax.full((2,), 1.5)
    Array([1.5, 1.5], dtype=float32, weak_type=True)
    """
    from ._convert import as_operand, convert
    shape = canonical_shape((shape,) if isinstance(shape, DimExpr) or np.ndim(shape) == 0
                            else shape)
    if np.ndim(fill_value) != 0:
        raise TypeError(f"full must be called with scalar fill_value, got fill_value.shape "
                        f"{np.shape(fill_value)}.")
    if dtype is None:
        v = as_operand(fill_value)
    else:
        v = convert(fill_value, dtypes.canonicalize(np.dtype(dtype)), False)
    return broadcast(v, shape)


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
    """lax.full_like: ``full`` with ``x``'s shape and dtype unless given (weak when x is)."""
    from ._convert import convert
    d, weak = dtypes.dtype_and_weak(x)
    target = tuple(_shape(x)) if shape is None else shape
    if dtype is not None:
        d, weak = dtypes.canonicalize(np.dtype(dtype)), False
    return full(target, convert(fill_value, d, weak))


def empty(shape, dtype, *, out_sharding=None):
    """lax.empty: an array of ``shape`` and ``dtype`` (zeros: XLA has no uninitialized memory)."""
    return full(shape, 0, dtype)


def stack(operands, axis: int = 0):
    """lax.stack: arrays of one shape joined along a new axis ``axis``."""
    ops = list(operands)
    if not ops:
        raise ValueError("stack requires at least one operand.")
    nd = len(_shape(ops[0])) + 1
    ax = int(axis) + nd if int(axis) < 0 else int(axis)
    return concatenate([expand_dims(o, (ax,)) for o in ops], ax)


def unstack(x, axis: int = 0) -> tuple:
    """lax.unstack: the slices of ``x`` along ``axis``, as a tuple."""
    shp = tuple(_shape(x))
    ax = int(axis) + len(shp) if int(axis) < 0 else int(axis)
    if not 0 <= ax < len(shp):
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {len(shp)}")
    return tuple(index_in_dim(x, i, ax, keepdims=False) for i in range(shp[ax]))
