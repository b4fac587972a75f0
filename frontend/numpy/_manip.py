"""More of JAX's numpy array manipulation: append, delete, insert, resize, rollaxis, the
h/v/dsplit and block joins, unstack, choose, compress, extract, place, put, put_along_axis,
packbits/unpackbits, array_equal/array_equiv, matvec/vecmat/vecdot, cross, and the
host-side readers frombuffer/fromstring. Positions to delete or insert must be concrete."""
from __future__ import annotations

import operator

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.ir import Tracer, aval_of
from ..lax._convert import convert
from ._core import asarray, astype, canonical_axis, check_arraylike, promote_args
from ._elementwise import _where3, equal, isnan, logical_and, logical_or, multiply, remainder
from ._indexing import take
from ._linalg import matmul
from ._numeric import conjugate
from ._reductions import all as _all
from ._reductions import cumsum
from ._reductions import sum as _sum
from ._shape import broadcast_to, concatenate, flip, moveaxis, ravel, reshape, split
from ._sorting import nonzero

__all__ = ["append", "delete", "insert", "resize", "rollaxis", "hsplit", "vsplit", "dsplit",
           "block", "unstack", "choose", "compress", "extract", "place", "put",
           "put_along_axis", "packbits", "unpackbits", "array_equal", "array_equiv", "matvec",
           "vecmat", "vecdot", "cross", "frombuffer", "fromstring"]


def _arr(name, *args):
    check_arraylike(name, *args)
    return [asarray(a) for a in args]


def _concrete_positions(name, obj):
    if isinstance(obj, Tracer):
        raise obj._concrete_error(f"The positions argument of jnp.{name} must be concrete.")
    return np.asarray(obj)


def append(arr, values, axis=None):
    """``arr`` with ``values`` appended (both flattened when ``axis`` is None)."""
    arr, values = _arr("append", arr, values)
    if axis is None:
        return concatenate((ravel(arr), ravel(values)))
    return concatenate((arr, values), axis=axis)


def delete(arr, obj, axis=None, *, assume_unique_indices=False):
    """``arr`` without the entries ``obj`` (an int, a slice or an int array) along ``axis``
    (of the flattened array when None)."""
    if not isinstance(obj, slice):
        check_arraylike("delete", arr, obj)
    (a,) = _arr("delete", arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonical_axis(operator.index(axis), aval_of(a).ndim)
    n = aval_of(a).shape[axis]
    keep = np.ones(n, bool)
    if isinstance(obj, slice):
        keep[obj] = False
    else:
        pos = _concrete_positions("delete", obj)
        if pos.dtype.kind == "b":
            raise ValueError("jnp.delete(arr, obj): obj must be integer or slice, got boolean")
        if pos.dtype.kind not in "iu":
            raise ValueError("jnp.delete(arr, obj): obj must be integer indices")
        if pos.size and (pos.min() < -n or pos.max() >= n):
            raise IndexError(f"index {pos.max() if pos.max() >= n else pos.min()} is out of "
                             f"bounds for axis {axis} with size {n}")
        keep[pos % n if n else pos] = False
    return take(a, asarray(np.flatnonzero(keep).astype(np.int32)), axis=axis)


def insert(arr, obj, values, axis=None):
    """``arr`` with ``values`` inserted before the positions ``obj`` along ``axis`` (of the
    flattened array when None)."""
    if not isinstance(obj, slice):
        check_arraylike("insert", arr, obj, values)
    a, values = _arr("insert", arr, values)
    if axis is None:
        a, axis = ravel(a), 0
    nd = aval_of(a).ndim
    axis = canonical_axis(operator.index(axis), nd)
    n = aval_of(a).shape[axis]
    pos = np.arange(n + 1)[obj] if isinstance(obj, slice) else _concrete_positions("insert", obj)
    if pos.dtype.kind not in "iu":
        raise ValueError("jnp.insert(): index array argument obj must be of integer dtype.")
    values = convert(values, aval_of(a).dtype, False)
    if pos.ndim == 0:
        # one position: values as (added leading axes) with its first axis at ``axis``
        v = reshape(values, (1,) * (nd - aval_of(values).ndim) + aval_of(values).shape)
        v = moveaxis(v, 0, axis)
        m = aval_of(v).shape[axis]
        pos = np.full(m, int(pos))
    else:
        pos = pos.ravel()
        m = pos.size
        v = values
    target = aval_of(a).shape[:axis] + (m,) + aval_of(a).shape[axis + 1:]
    v = broadcast_to(v, target)
    if pos.size and (pos.min() < -n or pos.max() > n):
        raise IndexError(f"index {pos.max()} is out of bounds for axis {axis} with size {n}")
    src = np.insert(np.arange(n), np.where(pos < 0, pos + n, pos), n + np.arange(m))
    both = concatenate((a, v), axis=axis)
    return take(both, asarray(src.astype(np.int32)), axis=axis)


def resize(a, new_shape):
    """``a`` flattened, repeated as needed and reshaped to ``new_shape``."""
    (a,) = _arr("resize", a)
    shape = (new_shape,) if isinstance(new_shape, (int, np.integer)) else tuple(new_shape)
    shape = tuple(operator.index(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    size = int(np.prod(shape, dtype=np.int64))
    flat = ravel(a)
    n = aval_of(flat).shape[0]
    if n == 0 or size == 0:
        return lax.broadcast_in_dim(convert(0, aval_of(a).dtype), shape=shape,
                                    broadcast_dimensions=())
    reps = -(-size // n)
    flat = reshape(lax.broadcast_in_dim(flat, shape=(reps, n), broadcast_dimensions=(1,)), (-1,))
    return reshape(lax.slice_in_dim(flat, 0, size, 1, 0), shape)


def rollaxis(a, axis, start=0):
    """``a`` with ``axis`` moved to just before position ``start`` (numpy's older moveaxis)."""
    (a,) = _arr("rollaxis", a)
    nd = aval_of(a).ndim
    axis = canonical_axis(operator.index(axis), nd)
    start = operator.index(start)
    if not -nd <= start <= nd:
        raise ValueError(f"start={start} must satisfy {-nd} <= start <= {nd}")
    start = start + nd if start < 0 else start
    if start > axis:
        start -= 1
    return moveaxis(a, axis, start)


def _split_along(name, axis, min_ndim):
    def fn(ary, indices_or_sections):
        (a,) = _arr(name, ary)
        nd = aval_of(a).ndim
        if nd < min_ndim:
            raise ValueError(f"{name} only works on arrays of {min_ndim} or more dimensions")
        return split(a, indices_or_sections, axis=axis if nd > 1 or name != "hsplit" else 0)
    fn.__name__ = name
    fn.__doc__ = f"split along axis {axis} (numpy's ``{name}``)."
    return fn


hsplit = _split_along("hsplit", 1, 1)
vsplit = _split_along("vsplit", 0, 1)
dsplit = _split_along("dsplit", 2, 3)


def block(arrays):
    """An array assembled from nested lists of blocks: the innermost lists joined along the
    last axis, the next ones along the one before, ... (numpy's rules)."""
    def depth(x):
        if isinstance(x, list):
            if not x:
                raise ValueError("Lists cannot be empty")
            ds = {depth(y) for y in x}
            if len(ds) != 1:
                raise ValueError("List depths are mismatched")
            return 1 + ds.pop()
        if isinstance(x, tuple):
            raise TypeError("jnp.block does not allow tuples, use lists")
        return 0

    def max_ndim(x):
        return max(max_ndim(y) for y in x) if isinstance(x, list) else np.ndim(x) \
            if not hasattr(x, "ndim") else x.ndim

    d = depth(arrays)
    nd = max(d, max_ndim(arrays))

    def build(x, level):
        if not isinstance(x, list):
            (a,) = _arr("block", x)
            return reshape(a, (1,) * (nd - aval_of(a).ndim) + aval_of(a).shape)
        parts = [build(y, level + 1) for y in x]
        return concatenate(parts, axis=-(d - level))
    return build(arrays, 0)


def unstack(x, /, *, axis=0):
    """The slices of ``x`` along ``axis`` (a tuple)."""
    (x,) = _arr("unstack", x)
    if aval_of(x).ndim == 0:
        raise ValueError("Unstack requires arrays with rank > 0, however a scalar array was "
                         "passed.")
    axis = canonical_axis(operator.index(axis), aval_of(x).ndim)
    return tuple(lax.index_in_dim(x, i, axis, keepdims=False)
                 for i in range(aval_of(x).shape[axis]))


def choose(a, choices, out=None, mode="raise"):
    """``choices[a[i]][i]`` for every i (all broadcast together); ``mode``: raise, wrap, clip."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    check_arraylike("choose", a, *choices)
    a = asarray(a)
    if not dtypes.is_int(aval_of(a).dtype):
        raise ValueError("`a` array must be integer typed")
    n = len(choices)
    if mode == "raise":
        if isinstance(a, Tracer):
            raise a._concrete_error("The error occurred because jnp.choose was jit-compiled "
                                    "with mode='raise'. Use mode='wrap' or mode='clip' instead.")
        v = np.asarray(a)
        if v.size and (v.min() < 0 or v.max() >= n):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        a = remainder(a, n)
    elif mode == "clip":
        a = lax.clamp(convert(0, aval_of(a).dtype), a, convert(n - 1, aval_of(a).dtype))
    else:
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    chs = promote_args("choose", *choices, broadcast=False)
    shp = np.broadcast_shapes(aval_of(a).shape, *(aval_of(c).shape for c in chs))
    out = broadcast_to(chs[-1], shp)
    a = broadcast_to(a, shp)
    for k in range(n - 2, -1, -1):
        out = _where3(lax.eq(a, convert(k, aval_of(a).dtype)), broadcast_to(chs[k], shp), out)
    return convert(out, aval_of(out).dtype, False)  # (the choices stacked: a strong type)


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
    """The slices of ``a`` along ``axis`` where the 1-D ``condition`` is true (``size`` pads
    with ``fill_value`` or cuts, for jit)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    cond, a = _arr("compress", condition, a)
    if aval_of(cond).ndim != 1:
        raise ValueError("condition must be a 1D array")
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonical_axis(operator.index(axis), aval_of(a).ndim)
    n = aval_of(a).shape[axis]
    m = aval_of(cond).shape[0]
    cond = convert(cond, dtypes.bool_) if not dtypes.is_bool(aval_of(cond).dtype) else cond
    if m > n:
        cond = lax.slice_in_dim(cond, 0, n, 1, 0)
    elif m < n:
        a = lax.slice_in_dim(a, 0, m, 1, axis)
    idx = nonzero(cond, size=size)[0]
    result = take(a, idx, axis=axis, mode="clip")
    if size is None:
        return result
    count = _sum(convert(cond, dtypes.default_int()))
    k = aval_of(idx).shape[0]
    valid = lax.lt(lax.broadcasted_iota(dtype=dtypes.default_int(), shape=(k,), dimension=0), count)
    shape = [1] * aval_of(result).ndim
    shape[axis] = k
    fv = convert(asarray(fill_value), aval_of(result).dtype, False)
    return _where3(broadcast_to(reshape(valid, tuple(shape)), aval_of(result).shape), result, fv)


def extract(condition, arr, *, size=None, fill_value=0):
    """The elements of ``arr`` where ``condition`` is true (both flattened)."""
    cond, a = _arr("extract", condition, arr)
    return compress(ravel(cond), ravel(a), size=size, fill_value=fill_value)


def _immutable(name, inplace):
    if inplace:
        raise ValueError(f"jax.numpy.{name} cannot modify arrays in-place, because JAX arrays "
                         f"are immutable. Pass inplace=False to instead return an updated array.")


def place(arr, mask, vals, *, inplace=True):
    """``arr`` with the positions where ``mask`` is true set to ``vals`` in turn (cycled)."""
    _immutable("place", inplace)
    a, m, v = _arr("place", arr, mask, vals)
    flat_m = ravel(convert(m, dtypes.bool_) if not dtypes.is_bool(aval_of(m).dtype) else m)
    v = ravel(convert(v, aval_of(a).dtype, False))
    k = aval_of(v).shape[0]
    if k == 0:
        return a
    it = dtypes.default_int()
    which = remainder(lax.sub(cumsum(convert(flat_m, it)), convert(1, it)), k)
    picked = take(v, which, mode="clip")
    return reshape(_where3(flat_m, picked, ravel(a)), aval_of(a).shape)


def put(a, ind, v, mode=None, *, inplace=True):
    """``a`` with its flat positions ``ind`` set to ``v`` (``mode``: None/'fill' drops
    out-of-bounds positions, 'clip', 'wrap')."""
    _immutable("put", inplace)
    a, ind, v = _arr("put", a, ind, v)
    flat = ravel(a)
    n = aval_of(flat).shape[0]
    ind = ravel(ind)
    v = broadcast_to(ravel(convert(v, aval_of(a).dtype, False)), aval_of(ind).shape)
    if mode == "wrap":
        ind = remainder(ind, n)
        mode = "promise_in_bounds"
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
    elif mode not in (None, "fill", "clip", "drop"):
        raise ValueError(f"mode should be one of 'wrap' or 'clip'; got mode={mode!r}")
    return reshape(flat.at[ind].set(v, mode=mode), aval_of(a).shape)


def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    """``arr`` with ``arr[..., indices[..., j, ...], ...] = values`` along ``axis``."""
    _immutable("put_along_axis", inplace)
    a, idx, vals = _arr("put_along_axis", arr, indices, values)
    if axis is None:
        a2, idx2 = ravel(a), ravel(idx)
        return reshape(put_along_axis(a2, idx2, ravel(vals) if aval_of(vals).ndim else vals,
                                      0, inplace=False, mode=mode), aval_of(a).shape)
    nd = aval_of(a).ndim
    axis = canonical_axis(operator.index(axis), nd)
    if aval_of(idx).ndim != nd:
        raise ValueError("indices and arr must have the same number of dimensions; "
                         f"{aval_of(idx).ndim} vs. {nd}")
    ishape = aval_of(idx).shape
    n = aval_of(a).shape[axis]
    idx = _where3(lax.lt(idx, convert(0, aval_of(idx).dtype)),
                  lax.add(idx, convert(n, aval_of(idx).dtype)), idx)
    full = tuple(idx if d == axis else lax.broadcasted_iota(
        dtype=aval_of(idx).dtype, shape=ishape, dimension=d) for d in range(nd))
    vals = broadcast_to(convert(vals, aval_of(a).dtype, False), ishape)
    return a.at[full].set(vals, mode=mode)


def packbits(a, axis=None, bitorder="big"):
    """The booleans (nonzero values) of ``a`` packed 8 to a uint8 along ``axis`` (the
    flattened array when None), zero-padded at the end."""
    (a,) = _arr("packbits", a)
    d = aval_of(a).dtype
    if not (dtypes.is_int(d) or dtypes.is_bool(d)):
        raise TypeError("Expected an input array of integer or boolean data type")
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    bits = lax.ne(a, convert(0, d)) if not dtypes.is_bool(d) else a
    bits = convert(bits, np.dtype(np.uint8), False)
    if axis is None:
        bits, axis = ravel(bits), 0
    axis = canonical_axis(operator.index(axis), aval_of(bits).ndim)
    bits = moveaxis(bits, axis, -1)
    n = aval_of(bits).shape[-1]
    pad = -n % 8
    if pad:
        cfg = [(0, 0, 0)] * (aval_of(bits).ndim - 1) + [(0, pad, 0)]
        bits = lax.pad(bits, convert(0, np.dtype(np.uint8)), cfg)
    bits = reshape(bits, aval_of(bits).shape[:-1] + ((n + pad) // 8, 8))
    shifts = np.arange(8, dtype=np.uint8)
    shifts = shifts[::-1] if bitorder == "big" else shifts
    shifts = lax.broadcast_in_dim(asarray(shifts), shape=aval_of(bits).shape,
                                  broadcast_dimensions=(aval_of(bits).ndim - 1,))
    packed = _sum(lax.shift_left(bits, shifts), axis=-1, dtype=np.uint8)
    return moveaxis(packed, -1, axis)


def unpackbits(a, axis=None, count=None, bitorder="big"):
    """The bits of the uint8 array ``a`` as a uint8 array of 0s and 1s (8 per element along
    ``axis``, the flattened array when None); ``count`` keeps that many (or pads zeros)."""
    (a,) = _arr("unpackbits", a)
    if aval_of(a).dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    shifts = np.arange(8, dtype=np.uint8)
    shifts = shifts[::-1] if bitorder == "big" else shifts
    u8 = np.dtype(np.uint8)
    bits = lax.bitwise_and(
        lax.shift_right_logical(lax.broadcast_in_dim(
            a, shape=aval_of(a).shape + (8,), broadcast_dimensions=tuple(range(aval_of(a).ndim))),
            lax.broadcast_in_dim(asarray(shifts), shape=aval_of(a).shape + (8,),
                                 broadcast_dimensions=(aval_of(a).ndim,))),
        convert(1, u8))
    if axis is None:
        bits, axis = reshape(bits, (-1,)), 0
    else:
        axis = canonical_axis(operator.index(axis), aval_of(a).ndim)
        bits = reshape(moveaxis(bits, axis, -2), tuple(
            s for i, s in enumerate(aval_of(a).shape) if i != axis) + (aval_of(a).shape[axis] * 8,))
        bits = moveaxis(bits, -1, axis)
    if count is not None:
        n = aval_of(bits).shape[axis]
        count = operator.index(count)
        if count <= n:
            bits = lax.slice_in_dim(bits, 0, max(count, 0) if count >= 0 else n + count, 1, axis)
        else:
            cfg = [(0, 0, 0)] * aval_of(bits).ndim
            cfg[axis] = (0, count - n, 0)
            bits = lax.pad(bits, convert(0, u8), cfg)
    return bits


def array_equal(a1, a2, equal_nan=False):
    """Whether a1 and a2 have one shape and equal elements (NaNs equal with ``equal_nan``)."""
    try:
        a1, a2 = _arr("array_equal", a1, a2)
    except TypeError:
        return asarray(np.bool_(False))
    if aval_of(a1).shape != aval_of(a2).shape:
        return asarray(np.bool_(False))
    eq = equal(a1, a2)
    if equal_nan:
        eq = logical_or(eq, logical_and(isnan(a1), isnan(a2)))
    return _all(eq)


def array_equiv(a1, a2):
    """Whether a1 and a2 broadcast to one shape with equal elements."""
    a1, a2 = _arr("array_equiv", a1, a2)
    return _all(equal(a1, a2))


def matvec(x1, x2, /):
    """Batched matrix-vector products: (..., m, n) x (..., n) -> (..., m)."""
    x1, x2 = _arr("matvec", x1, x2)
    out = matmul(x1, reshape(x2, aval_of(x2).shape + (1,)))
    return lax.index_in_dim(out, 0, aval_of(out).ndim - 1, keepdims=False)


def vecmat(x1, x2, /):
    """Batched (conjugated) vector-matrix products: (..., m) x (..., m, n) -> (..., n)."""
    x1, x2 = _arr("vecmat", x1, x2)
    out = matmul(reshape(conjugate(x1), aval_of(x1).shape[:-1] + (1,) + aval_of(x1).shape[-1:]),
                 x2)
    return reshape(out, aval_of(out).shape[:-2] + aval_of(out).shape[-1:])


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """The (conjugated) dot product of vectors along ``axis`` (the rest broadcast)."""
    x1, x2 = _arr("vecdot", x1, x2)
    n1, n2 = aval_of(x1).ndim, aval_of(x2).ndim
    a1 = canonical_axis(axis, n1) if n1 else 0
    a2 = canonical_axis(axis, n2) if n2 else 0
    if aval_of(x1).shape[a1] != aval_of(x2).shape[a2]:
        raise ValueError(f"axes must match; got shapes {aval_of(x1).shape} and "
                         f"{aval_of(x2).shape} with axis={axis}")
    x1, x2 = moveaxis(x1, a1, -1), moveaxis(x2, a2, -1)
    out = matmul(reshape(conjugate(x1), aval_of(x1).shape[:-1] + (1,) + aval_of(x1).shape[-1:]),
                 reshape(x2, aval_of(x2).shape + (1,)), precision=precision,
                 preferred_element_type=preferred_element_type)
    return reshape(out, aval_of(out).shape[:-2])


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 2- or 3-component vectors (2 x 2: the z component only)."""
    a, b = _arr("cross", a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    na, nb = aval_of(a).shape[-1], aval_of(b).shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")
    a, b = promote_args("cross", a, b, broadcast=False)

    def comp(x, i):
        return lax.index_in_dim(x, i, aval_of(x).ndim - 1, keepdims=False)
    a0, a1 = comp(a, 0), comp(a, 1)
    b0, b1 = comp(b, 0), comp(b, 1)
    if na == 2 and nb == 2:
        return lax.sub(multiply(a0, b1), multiply(a1, b0))
    zero = convert(0, aval_of(a).dtype)
    a2 = comp(a, 2) if na == 3 else zero
    b2 = comp(b, 2) if nb == 3 else zero
    c = [lax.sub(multiply(a1, b2), multiply(a2, b1)), lax.sub(multiply(a2, b0), multiply(a0, b2)),
         lax.sub(multiply(a0, b1), multiply(a1, b0))]
    shp = np.broadcast_shapes(*(aval_of(asarray(x)).shape for x in c))
    out = concatenate([reshape(broadcast_to(x, shp), shp + (1,)) for x in c], axis=-1)
    return moveaxis(out, -1, axisc)


def frombuffer(buffer, dtype=float, count=-1, offset=0):
    """An array of the bytes of ``buffer`` read as ``dtype`` (numpy's frombuffer)."""
    return asarray(np.frombuffer(buffer, dtype=dtype, count=count, offset=offset),
                   dtype=dtypes.canonicalize(np.dtype(dtype)))


def fromstring(string, dtype=float, count=-1, *, sep):
    """An array of the numbers in ``string`` separated by ``sep`` (numpy's fromstring)."""
    return asarray(np.fromstring(string, dtype=dtype, count=count, sep=sep),
                   dtype=dtypes.canonicalize(np.dtype(dtype)))


def array_view(self, dtype=None, type=None):  # noqa: A002
    """The same bytes read as ``dtype`` (the last axis rescaled when the sizes differ)."""
    if type is not None:
        raise NotImplementedError("`type` argument of array.view() is not supported.")
    if dtype is None:
        return self
    d = np.dtype(dtype)
    if d == self.dtype:
        return self
    n, m = self.dtype.itemsize, d.itemsize
    x = asarray(self)
    if self.dtype == np.bool_:
        x = astype(x, np.uint8)
    if n == m:
        out = lax.bitcast_convert_type(x, np.uint8 if d == np.bool_ else d)
    elif n > m:  # each element becomes n // m elements
        out = lax.bitcast_convert_type(x, d if d != np.bool_ else np.uint8)
        out = reshape(out, self.shape[:-1] + (self.shape[-1] * (n // m),))
    else:
        if not self.shape or self.shape[-1] % (m // n):
            raise ValueError("When changing to a larger dtype, its size must be a divisor of "
                             "the total size in bytes of the last axis of the array.")
        x = reshape(x, self.shape[:-1] + (self.shape[-1] // (m // n), m // n))
        out = lax.bitcast_convert_type(x, d)
    return out != 0 if d == np.bool_ else out


def array_byteswap(self, inplace=False):
    """The bytes of each element in reverse order."""
    if inplace:
        raise ValueError("Array.byteswap() is not supported in-place (arrays are immutable)")
    n = self.dtype.itemsize
    if n == 1:
        return self
    b = lax.bitcast_convert_type(asarray(self), np.uint8)
    return lax.bitcast_convert_type(flip(b, -1), self.dtype)
