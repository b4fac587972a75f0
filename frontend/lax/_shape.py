"""Shape lax functions: one primitive each (static shapes, JAX's lax signatures)."""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.ir import aval_of, literal
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
        return tuple(map(int, xs))
    except TypeError:
        raise TypeError(f"{name} {what} must be a sequence of integers, got {xs!r}.") from None


def broadcast_in_dim(operand, shape, broadcast_dimensions):
    """lax.broadcast_in_dim: operand dim i becomes result dim broadcast_dimensions[i]."""
    return broadcast_in_dim_p.bind(operand, shape=tuple(map(int, shape)),
                                   broadcast_dimensions=tuple(map(int, broadcast_dimensions)))


def broadcast(operand, sizes):
    """lax.broadcast: add leading dims of ``sizes``."""
    sizes = tuple(map(int, sizes))
    shp = _shape(operand)
    return broadcast_in_dim(operand, sizes + tuple(shp), range(len(sizes), len(sizes) + len(shp)))


def reshape(operand, new_sizes, dimensions=None):
    """lax.reshape: row-major reshape (after transposing by ``dimensions`` if given)."""
    if dimensions is not None:
        operand = transpose(operand, dimensions)
    new_sizes = (new_sizes,) if isinstance(new_sizes, (int, np.integer)) else new_sizes
    new_sizes = tuple(map(int, new_sizes))
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
    shape = tuple(map(int, shape))
    dimension = int(dimension)
    return iota_p.bind(dtype=dtypes.canonicalize(np.dtype(dtype)), shape=shape,
                       dimension=dimension)


def iota(dtype, size):
    """lax.iota: [0, 1, ..., size - 1] of ``dtype``."""
    return broadcasted_iota(dtype, (int(size),), 0)


def rev(operand, dimensions):
    """lax.rev: reverse along ``dimensions``."""
    return rev_p.bind(operand, dimensions=tuple(map(int, dimensions)))
