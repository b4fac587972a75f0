"""Shape functions of frontend.numpy: reshape, transpose, squeeze, expand_dims, concatenate,
stack, pad, flip, tile, repeat, split, meshgrid, ... (JAX's numpy names and semantics). Each
lowers to the shape primitives (frontend/primitives/shape.py)."""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.ir import Tracer, aval_of
from ..core.shape_poly import DimExpr
from ..device.array import Array
from ..lax import _shape as _ps
from ..lax._convert import convert
from ._core import asarray, broadcast_to_shape, canonical_axes, canonical_axis, promote_args

__all__ = [
    "reshape", "ravel", "flatten", "transpose", "permute_dims", "matrix_transpose", "swapaxes",
    "moveaxis", "expand_dims", "squeeze", "broadcast_to", "broadcast_arrays", "broadcast_shapes", "concatenate",
    "concat", "stack", "hstack", "vstack", "dstack", "column_stack", "meshgrid", "flip", "fliplr",
    "flipud", "tile", "repeat", "atleast_1d", "atleast_2d", "atleast_3d", "split",
    "array_split", "roll", "rot90",
]


def _arr(a):
    return a if isinstance(a, (Array, Tracer)) else asarray(a)


def _one_or_many(v) -> tuple:
    """An int-like (Python or numpy integer, symbolic dimension, 0-d array) or a sequence of
    them, as a tuple (not yet converted)."""
    if isinstance(v, (int, np.integer, DimExpr)) or (
            isinstance(v, (np.ndarray, Array)) and v.ndim == 0):
        return (v,)
    return tuple(v)


def _shape_arg(shape, name="shape") -> tuple:
    try:
        shape = _one_or_many(shape)
        return tuple(s if type(s) is DimExpr else operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(f"Shapes must be 1D sequences of concrete values of integer type, got "
                        f"{shape!r}.") from None


# ----------------------------------------------------------------------------- reshape & co


def _resolve_shape(in_shape: tuple, shape: tuple) -> tuple:
    """The target shape with its -1 entry inferred; TypeErrors worded as jax.numpy's."""
    size = math.prod(in_shape)  # (an int, or a DimExpr for a symbolic shape)
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise TypeError(f"can only specify one unknown axis size with a `-1` value, got {shape}")
    if any(s < -1 for s in shape):
        raise TypeError(f"negative dimensions not allowed, got shape {shape}")
    if unknown:
        known = math.prod([s for s in shape if s != -1])
        if known == 0 or size % known != 0:
            raise TypeError(f"cannot reshape array of shape {tuple(in_shape)} (size {size}) into "
                            f"shape {shape} because the product of specified axis sizes "
                            f"({known}) does not evenly divide {size}")
        shape = tuple(size // known if s == -1 else s for s in shape)
    new = math.prod(shape)
    if new != size:
        raise TypeError(f"cannot reshape array of shape {tuple(in_shape)} (size {size}) into "
                        f"shape {shape} (size {new})")
    return shape


def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    """Gives a new shape to an array (one -1 entry is inferred); order 'C' or 'F'.

    >>> import frontend.numpy as fnp
    >>> fnp.reshape(fnp.arange(6), (2, -1)).shape
    (2, 3)
    """
    if shape is None:
        if newshape is None:
            raise TypeError("reshape() missing required argument 'shape'")
        shape = newshape
    a = _arr(a)
    shape = _resolve_shape(a.shape, _shape_arg(shape))
    if order == "C":
        return _ps.reshape(a, shape)
    if order == "F":
        nd = a.ndim
        t = _ps.transpose(a, tuple(reversed(range(nd))))
        r = _ps.reshape(t, tuple(reversed(shape)))
        return _ps.transpose(r, tuple(reversed(range(len(shape)))))
    if order == "A":
        raise NotImplementedError("np.reshape order=A is not implemented.")
    raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")


def ravel(a, order="C"):
    """The array flattened to 1-D (row-major for order 'C')."""
    a = _arr(a)
    return reshape(a, (a.size,), order=order)


def flatten(a, order="C"):
    """``a.flatten()`` (the method; same as ravel)."""
    return ravel(a, order=order)


def transpose(a, axes=None):
    """Permutes the axes (reverses them when ``axes`` is None).

    >>> import frontend.numpy as fnp
    >>> fnp.transpose(fnp.zeros((2, 3))).shape
    (3, 2)
    """
    a = _arr(a)
    nd = a.ndim
    if axes is None:
        perm = tuple(reversed(range(nd)))
    else:
        perm = tuple(canonical_axis(int(p), nd) for p in axes)
    return _ps.transpose(a, perm)


def permute_dims(a, /, axes):
    """Array API alias of transpose."""
    return transpose(a, axes)


def matrix_transpose(x, /):
    """Swaps the last two axes."""
    x = _arr(x)
    if x.ndim < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got "
                         f"ndim={x.ndim}")
    return swapaxes(x, -1, -2)


def swapaxes(a, axis1, axis2):
    """Interchanges two axes."""
    a = _arr(a)
    nd = a.ndim
    i, j = canonical_axis(int(axis1), nd), canonical_axis(int(axis2), nd)
    perm = list(range(nd))
    perm[i], perm[j] = perm[j], perm[i]
    return _ps.transpose(a, perm)


def moveaxis(a, source, destination):
    """Moves axes ``source`` to positions ``destination`` (others keep their order)."""
    a = _arr(a)
    nd = a.ndim
    src = (source,) if isinstance(source, (int, np.integer)) else tuple(source)
    dst = (destination,) if isinstance(destination, (int, np.integer)) else tuple(destination)
    if len(src) != len(dst):
        raise ValueError(f"Inconsistent number of elements: {len(src)} vs {len(dst)}")
    src = canonical_axes(src, nd, "source")
    dst = canonical_axes(dst, nd, "destination")
    perm = [i for i in range(nd) if i not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        perm.insert(d, s)
    return _ps.transpose(a, perm)


def expand_dims(a, axis):
    """Inserts size-1 axes at ``axis`` (an int or a tuple; positions in the result)."""
    a = _arr(a)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    nd = a.ndim + len(axes)
    for k in axes:
        canonical_axis(int(k), nd)
    return _ps.expand_dims(a, axes)


def squeeze(a, axis=None):
    """Removes size-1 axes (all of them when ``axis`` is None).

    >>> import frontend.numpy as fnp
    >>> fnp.squeeze(fnp.zeros((1, 3, 1))).shape
    (3,)
    """
    a = _arr(a)
    if axis is None:
        dims = tuple(i for i, s in enumerate(a.shape) if s == 1)
    else:
        axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
        dims = tuple(canonical_axis(int(k), a.ndim) for k in axes)
        if len(set(dims)) != len(dims):
            raise ValueError(f"dimensions are not unique: {dims}")
    return _ps.squeeze(a, dims)


# ----------------------------------------------------------------------------- broadcasting


def broadcast_to(array, shape):
    """``array`` broadcast (numpy rules) to ``shape``."""
    a = _arr(array)
    shape = _shape_arg(shape)
    av = aval_of(a)
    if av.shape == shape:
        return a
    lead = len(shape) - av.ndim
    if lead < 0:
        raise ValueError(f"Cannot broadcast to shape with fewer dimensions: arr_shape={av.shape} "
                         f"shape={shape}")
    if any(s < 0 for s in shape) or any(s not in (1, t) for s, t in zip(av.shape, shape[lead:], strict=True)):
        def ty(shp):
            return f"{av.dtype.name}[{','.join(map(str, shp))}]"
        raise ValueError(f"Incompatible types for broadcasting: input type={ty(av.shape)} and "
                         f"requested type={ty(shape)}")
    return broadcast_to_shape(a, shape)


def _broadcast_shapes(shapes) -> tuple:
    nd = builtins.max((len(s) for s in shapes), default=0)
    out = []
    for i in range(nd):
        sizes = {s[len(s) - nd + i] for s in shapes if len(s) - nd + i >= 0} - {1}
        if len(sizes) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={list(shapes)}")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def broadcast_shapes(*shapes) -> tuple:
    """The shape numpy broadcasting gives ``shapes`` (ints stand for 1-D shapes)."""
    return _broadcast_shapes([(s,) if isinstance(s, (int, np.integer)) else tuple(s)
                              for s in shapes])


def broadcast_arrays(*args):
    """The arguments broadcast against each other (a list)."""
    arrs = [_arr(a) for a in args]
    shp = _broadcast_shapes([aval_of(a).shape for a in arrs])
    return [broadcast_to_shape(a, shp) for a in arrs]


# ----------------------------------------------------------------------------- joining


def _as_list(arrays, what):
    if isinstance(arrays, (Array, Tracer, np.ndarray)):
        return None
    arrays = list(arrays)
    if not arrays:
        raise ValueError(f"Need at least one array to {what}.")
    return arrays


def concatenate(arrays, axis=0, dtype=None):
    """Joins arrays along an existing axis (``axis=None``: of the flattened arrays).

    >>> import frontend.numpy as fnp
    >>> fnp.concatenate([fnp.zeros((2, 3)), fnp.ones((1, 3))]).shape
    (3, 3)
    """
    lst = _as_list(arrays, "concatenate")
    if lst is None:  # one array: its leading axis is the sequence
        a = _arr(arrays)
        if a.ndim == 0:
            raise ValueError("Zero-dimensional arrays cannot be concatenated.")
        if axis is None:
            out = ravel(a)
        else:
            if a.ndim < 2:
                raise ValueError("Zero-dimensional arrays cannot be concatenated.")
            ax = canonical_axis(int(axis), a.ndim - 1)
            m = moveaxis(a, 0, ax)
            s = m.shape
            out = _ps.reshape(m, s[:ax] + (s[ax] * s[ax + 1],) + s[ax + 2:])
        return out if dtype is None else convert(out, dtypes.canonicalize(np.dtype(dtype)))
    arrs = [_arr(a) for a in lst]
    if axis is None:
        arrs = [ravel(a) for a in arrs]
        axis = 0
    if any(a.ndim == 0 for a in arrs):
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    ax = canonical_axis(int(axis), arrs[0].ndim)
    arrs = promote_args("concatenate", *arrs, broadcast=False)
    if dtype is not None:
        arrs = [convert(a, dtypes.canonicalize(np.dtype(dtype))) for a in arrs]
    return _ps.concatenate(arrs, ax)


def concat(arrays, /, *, axis=0):
    """Array API alias of concatenate."""
    return concatenate(arrays, axis=axis)


def stack(arrays, axis=0, out=None, dtype=None):
    """Joins same-shape arrays along a new axis (negative ``axis`` counts from the end of
    the result).

    >>> import frontend.numpy as fnp
    >>> fnp.stack([fnp.zeros(3), fnp.ones(3)], axis=-1).shape
    (3, 2)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.stack is not supported.")
    lst = _as_list(arrays, "stack")
    if lst is None:  # one array: its leading axis is the sequence
        a = _arr(arrays)
        if a.ndim == 0:
            raise ValueError("Need at least one array to stack.")
        ax = canonical_axis(int(axis), a.ndim)
        out = moveaxis(a, 0, ax)
        return out if dtype is None else convert(out, dtypes.canonicalize(np.dtype(dtype)))
    arrs = [_arr(a) for a in lst]
    shapes = {a.shape for a in arrs}
    if len(shapes) != 1:
        raise ValueError("All input arrays must have the same shape. Got "
                         + ", ".join(str(a.shape) for a in arrs) + ".")
    ax = canonical_axis(int(axis), arrs[0].ndim + 1)
    arrs = promote_args("stack", *arrs, broadcast=False)
    if dtype is not None:
        arrs = [convert(a, dtypes.canonicalize(np.dtype(dtype))) for a in arrs]
    return _ps.concatenate([_ps.expand_dims(a, (ax,)) for a in arrs], ax)


def _seq(tup, name):
    if isinstance(tup, (Array, Tracer, np.ndarray)):
        a = _arr(tup)
        return [_ps.index_in_dim(a, i, 0, False) for i in range(a.shape[0])] if a.ndim else [a]
    tup = list(tup)
    if not tup:
        raise ValueError(f"Need at least one array to {name}.")
    return tup


def hstack(tup, dtype=None):
    """Stacks horizontally: along axis 1 (axis 0 for 1-D arrays)."""
    arrs = atleast_1d(*_seq(tup, "concatenate"))
    arrs = arrs if isinstance(arrs, list) else [arrs]
    return concatenate(arrs, axis=0 if arrs[0].ndim == 1 else 1, dtype=dtype)


def vstack(tup, dtype=None):
    """Stacks vertically: along axis 0, after making every array at least 2-D."""
    arrs = atleast_2d(*_seq(tup, "concatenate"))
    arrs = arrs if isinstance(arrs, list) else [arrs]
    return concatenate(arrs, axis=0, dtype=dtype)


def dstack(tup, dtype=None):
    """Stacks along axis 2, after making every array at least 3-D."""
    arrs = atleast_3d(*_seq(tup, "concatenate"))
    arrs = arrs if isinstance(arrs, list) else [arrs]
    return concatenate(arrs, axis=2, dtype=dtype)


def column_stack(tup):
    """1-D arrays become columns; 2-D arrays are joined along axis 1."""
    arrs = []
    for a in _seq(tup, "concatenate"):
        a = _arr(a)
        arrs.append(_ps.reshape(a, (a.size, 1)) if a.ndim < 2 else a)
    return concatenate(arrs, axis=1)


def atleast_1d(*arys):
    """Each argument as an array of rank >= 1 (one array, or a list of them)."""
    out = [_ps.reshape(a, (1,)) if a.ndim == 0 else a for a in map(_arr, arys)]
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys):
    """Each argument as an array of rank >= 2 (new axes lead)."""
    out = []
    for a in map(_arr, arys):
        out.append(a if a.ndim >= 2 else _ps.reshape(a, (1,) * (2 - a.ndim) + a.shape))
    return out[0] if len(out) == 1 else out


def atleast_3d(*arys):
    """Each argument as an array of rank >= 3: (1,1,1), (1,N,1) or (M,N,1)."""
    out = []
    for a in map(_arr, arys):
        if a.ndim == 0:
            a = _ps.reshape(a, (1, 1, 1))
        elif a.ndim == 1:
            a = _ps.reshape(a, (1, a.shape[0], 1))
        elif a.ndim == 2:
            a = _ps.reshape(a, a.shape + (1,))
        out.append(a)
    return out[0] if len(out) == 1 else out


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate grids from 1-D arrays ('xy': the first two output axes swapped).

    >>> import frontend.numpy as fnp
    >>> [g.shape for g in fnp.meshgrid(fnp.arange(3), fnp.arange(2))]
    [(2, 3), (2, 3)]
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    arrs = [_arr(x) for x in xi]
    if any(a.ndim != 1 for a in arrs):
        raise ValueError(f"Arguments to frontend.numpy.meshgrid must be 1D, got shapes "
                         f"{[a.shape for a in arrs]}")
    n = len(arrs)
    pos = list(range(n))  # output axis of each input
    if indexing == "xy" and n >= 2:
        pos[0], pos[1] = 1, 0
    shape = [0] * n
    for a, p in zip(arrs, pos, strict=True):
        shape[p] = a.shape[0]
    out = []
    for a, p in zip(arrs, pos, strict=True):
        if sparse:
            s = [1] * n
            s[p] = a.shape[0]
            out.append(_ps.reshape(a, s))
        else:
            out.append(_ps.broadcast_in_dim(a, shape, (p,)))
    return out


# ----------------------------------------------------------------------------- flip & co


def flip(m, axis=None):
    """Reverses the order of elements along ``axis`` (all axes when None)."""
    m = _arr(m)
    axes = canonical_axes(axis, m.ndim)
    return _ps.rev(m, axes) if axes else m


def fliplr(m):
    """Reverses along axis 1."""
    return flip(m, 1)


def flipud(m):
    """Reverses along axis 0."""
    return flip(m, 0)


def rot90(m, k=1, axes=(0, 1)):
    """Rotates by 90 degrees ``k`` times in the plane of ``axes``."""
    m = _arr(m)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    a0, a1 = canonical_axis(int(axes[0]), m.ndim), canonical_axis(int(axes[1]), m.ndim)
    if a0 == a1:
        raise ValueError("Axes must be different")
    k = int(k) % 4
    if k == 0:
        return m
    if k == 2:
        return flip(m, (a0, a1))
    if k == 1:
        return swapaxes(flip(m, a1), a0, a1)
    return flip(swapaxes(m, a0, a1), a1)


def roll(a, shift, axis=None):
    """Rolls elements along ``axis`` by static ``shift`` (the flattened array if None)."""
    a = _arr(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), a.shape)
    if isinstance(shift, Tracer) or (isinstance(shift, Array) and shift.ndim):
        return _roll_traced(a, shift, axis)
    shifts = _one_or_many(shift)
    for s, ax in _shift_axis_pairs(shifts, axis, a.ndim):
        n = a.shape[ax]
        s = operator.index(s) % n if n else 0
        if s:
            a = _ps.concatenate([_ps.slice_in_dim(a, n - s, n, 1, ax),
                                 _ps.slice_in_dim(a, 0, n - s, 1, ax)], ax)
    return a


def _shift_axis_pairs(shifts, axis, ndim):
    """(shift, axis) pairs of roll: one shift for many axes or many shifts for one axis
    repeat; otherwise the lengths must match."""
    shifts = list(shifts)
    axes = [operator.index(ax) for ax in _one_or_many(axis)]
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError("shift and axis must have the same length")
    return [(s, canonical_axis(int(ax), ndim)) for s, ax in zip(shifts, axes, strict=True)]


def _roll_traced(a, shift, axis):
    """roll by array shifts (a 0-d or 1-D traced shift: each axis's window of [a, a] starts
    at (-shift) mod n, one dynamic_slice)."""
    shift = _arr(shift)
    if not dtypes.is_int(aval_of(shift).dtype):
        raise TypeError(f"roll: shift must be integer, got {aval_of(shift).dtype.name}")
    shifts = [shift] if aval_of(shift).ndim == 0 else [
        lax.index_in_dim(shift, i, 0, keepdims=False) for i in range(aval_of(shift).shape[0])]
    for s, ax in _shift_axis_pairs(shifts, axis, a.ndim):
        n = a.shape[ax]
        if n == 0:
            continue
        i32 = dtypes.int32
        s = convert(s, i32, False)
        start = lax.rem(lax.add(lax.rem(lax.neg(s), convert(n, i32)), convert(n, i32)),
                        convert(n, i32))
        both = _ps.concatenate([a, a], ax)
        a = lax.dynamic_slice_in_dim(both, start, n, ax)
    return a


def tile(A, reps):
    """``A`` repeated ``reps`` times along each axis (one broadcast_in_dim + reshape)."""
    a = _arr(A)
    reps = (reps,) if isinstance(reps, (int, np.integer)) else tuple(reps)
    reps = tuple(operator.index(r) for r in reps)
    if any(r < 0 for r in reps):
        raise ValueError(f"negative dimensions are not allowed, got reps {reps}")
    nd = builtins.max(len(reps), a.ndim)
    reps = (1,) * (nd - len(reps)) + reps
    shp = (1,) * (nd - a.ndim) + a.shape
    if all(r == 1 for r in reps):
        return _ps.reshape(a, shp)
    big = []
    for r, s in zip(reps, shp, strict=True):
        big += [r, s]
    dims = tuple(range(2 * nd - a.ndim * 2 + 1, 2 * nd, 2)) if a.ndim else ()
    b = _ps.broadcast_in_dim(a, big, dims)
    return _ps.reshape(b, tuple(r * s for r, s in zip(reps, shp, strict=True)))


def repeat(a, repeats, axis=None, *, total_repeat_length=None):
    """Repeats each element ``repeats`` times along ``axis`` (the flattened array if None);
    ``repeats`` is an int or a concrete 1-D array of per-element counts."""
    a = _arr(a)
    if axis is None:
        a = ravel(a)
        axis = 0
    ax = canonical_axis(int(axis), a.ndim)
    if isinstance(repeats, Tracer):
        if total_repeat_length is None:
            from ..core.ir import ConcretizationTypeError
            raise ConcretizationTypeError(
                f"Abstract tracer value encountered where concrete value is expected: traced "
                f"array with shape {np.dtype(repeats.dtype).name}{list(repeats.shape)}\n"
                "When jit-compiling jnp.repeat, the total number of repeats must be static. To "
                "fix this, either specify a static value for `repeats`, or pass a static value "
                "to `total_repeat_length`.")
        return _repeat_to_length(a, repeats, ax, int(total_repeat_length))
    if isinstance(repeats, (tuple, list)):
        raise TypeError(f"repeat requires ndarray or scalar arguments, got {type(repeats)} at "
                        f"position 1.")
    reps = np.asarray(repeats)
    if reps.ndim == 0 or reps.size == 1:
        r = int(reps.reshape(()))
        if r < 0:
            raise ValueError(f"repeats may not contain negative values, got {r}")
        s = a.shape
        b = _ps.broadcast_in_dim(a, s[:ax + 1] + (r,) + s[ax + 1:],
                                 tuple(range(ax + 1)) + tuple(range(ax + 2, a.ndim + 1)))
        out = _ps.reshape(b, s[:ax] + (s[ax] * r,) + s[ax + 1:])
    else:
        n = a.shape[ax]
        if reps.shape != (n,):
            raise ValueError(f"repeats shape {reps.shape} does not match the length {n} of axis "
                             f"{ax}")
        pieces = []
        for i, r in enumerate(reps.tolist()):
            if r:
                piece = _ps.slice_in_dim(a, i, i + 1, 1, ax)
                s = list(piece.shape)
                s[ax] = r
                pieces.append(broadcast_to_shape(piece, tuple(s)))
        if not pieces:
            s = list(a.shape)
            s[ax] = 0
            out = _ps.slice_in_dim(a, 0, 0, 1, ax)
        else:
            out = _ps.concatenate(pieces, ax)
    if total_repeat_length is not None and out.shape[ax] != int(total_repeat_length):
        return _repeat_to_length(a, reps, ax, int(total_repeat_length))
    return out


def _repeat_to_length(a, repeats, ax: int, total: int):
    """repeat with ``total`` output positions along ``ax`` (JAX's total_repeat_length): the
    element of position p is the first one whose running count of repeats passes p; positions
    past the sum repeat the last element of ``a``. ``repeats`` may be traced."""
    n = a.shape[ax]
    if n == 0:  # (nothing to repeat: JAX's result stays empty whatever the total)
        return a
    if total == 0:
        return _ps.slice_in_dim(a, 0, 0, 1, ax)
    reps = convert(asarray(repeats), np.int32)
    if reps.ndim == 0 or reps.shape == (1,):
        reps = lax.broadcast_in_dim(_ps.reshape(reps, ()), (n,), ())
    elif reps.shape != (n,):
        raise ValueError(f"repeats shape {reps.shape} does not match the length {n} of axis {ax}")
    ends = lax.cumsum(reps, axis=0)
    pos = lax.broadcasted_iota(np.int32, (total, n), 0)
    passed = lax.le(lax.broadcast_in_dim(ends, (total, n), (1,)), pos)
    idx = lax.min(lax.reduce_sum(convert(passed, np.int32), (1,)), np.int32(n - 1))
    out = lax.index_take(a, (idx,), (ax,))  # (the taken axis comes first)
    return _ps.transpose(out, tuple(range(1, ax + 1)) + (0,) + tuple(range(ax + 1, a.ndim)))


# ----------------------------------------------------------------------------- split


def _split_points(n: int, indices_or_sections, even: bool):
    if isinstance(indices_or_sections, (int, np.integer)) or np.ndim(indices_or_sections) == 0:
        k = operator.index(indices_or_sections)
        if k <= 0:
            raise ValueError("number sections must be larger than 0.")
        if even and n % k:
            raise ValueError(f"array split does not result in an equal division: rest is {n % k}")
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
        return list(np.cumsum([0] + sizes))
    idx = [operator.index(i) for i in indices_or_sections]
    pts = [0] + [builtins.min(builtins.max(i + n if i < 0 else i, 0), n) for i in idx] + [n]
    return pts


def split(ary, indices_or_sections, axis=0):
    """Splits into equal sections (an int) or at the given indices (a sequence)."""
    a = _arr(ary)
    ax = canonical_axis(int(axis), a.ndim)
    pts = _split_points(a.shape[ax], indices_or_sections, even=True)
    return [_ps.slice_in_dim(a, s, builtins.max(s, e), 1, ax) for s, e in zip(pts[:-1], pts[1:], strict=True)]


def array_split(ary, indices_or_sections, axis=0):
    """Like split, but the sections may differ in size by one."""
    a = _arr(ary)
    ax = canonical_axis(int(axis), a.ndim)
    pts = _split_points(a.shape[ax], indices_or_sections, even=False)
    return [_ps.slice_in_dim(a, s, builtins.max(s, e), 1, ax) for s, e in zip(pts[:-1], pts[1:], strict=True)]
