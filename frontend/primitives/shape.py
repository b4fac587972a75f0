"""Shape primitives: broadcast_in_dim, reshape, transpose, squeeze, slice, pad, concatenate,
iota, rev. Every batching rule keeps the batch axis where it is whenever the operation allows
it (no transposes), and says where it ends up."""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..batching import bdim_at, moveaxis, ndim
from ..core import Aval, Literal, Primitive, aval_of, primitive


def _prod(xs) -> int:
    return int(np.prod(tuple(xs), dtype=np.int64))


def _scalar_literal(value, dtype) -> Literal:
    """A rank-0 literal of ``dtype`` (a Python scalar of the matching kind)."""
    dtype = np.dtype(dtype)
    v = np.asarray(value, dtype).item()
    if dtype.kind == "f" and not isinstance(v, float):  # bfloat16 & co
        v = float(v)
    return Literal(v, Aval((), dtype, False))


# ----------------------------------------------------------------------------- broadcast_in_dim


@primitive
class broadcast_in_dim_p(Primitive):
    """Operand dim i goes to result dim broadcast_dimensions[i] (equal size or 1)."""

    name = "broadcast_in_dim"

    def abstract_eval(self, x, *, shape, broadcast_dimensions):
        shape = tuple(shape)
        bd = tuple(broadcast_dimensions)
        if len(bd) != x.ndim:
            raise TypeError(f"broadcast_in_dim broadcast_dimensions must have length equal to "
                            f"operand ndim; got broadcast_dimensions {bd} for operand ndim "
                            f"{x.ndim}.")
        if len(shape) < x.ndim:
            raise TypeError(f"broadcast_in_dim target broadcast shape must have equal or higher "
                            f"rank to the operand shape; got operand ndim {x.ndim} and target "
                            f"broadcast ndim {len(shape)}.")
        if any(not 0 <= d < len(shape) for d in bd) or list(bd) != sorted(set(bd)):
            raise TypeError(f"broadcast_in_dim broadcast_dimensions must be strictly increasing "
                            f"and in range for the result rank {len(shape)}; got {bd}.")
        for i, d in enumerate(bd):
            if x.shape[i] not in (1, shape[d]):
                raise TypeError(f"broadcast_in_dim operand dimension sizes must either be 1, or "
                                f"be equal to their corresponding dimensions in the target "
                                f"broadcast shape; got operand of shape {x.shape}, target "
                                f"broadcast shape {shape}, broadcast_dimensions {bd} ")
        return Aval(shape, x.dtype, x.weak_type)

    def batch(self, axis_size, args, dims, *, shape, broadcast_dimensions):
        # the batch axis becomes a new result dim just after the result dim of the operand dim
        # before it (result dim 0 if it leads): broadcast_dimensions stay increasing, no transpose
        (x,), (d,) = args, dims
        bd = tuple(broadcast_dimensions)
        p = bd[d - 1] + 1 if d > 0 else 0
        out_shape = tuple(shape[:p]) + (axis_size,) + tuple(shape[p:])
        new_bd = tuple(b + (b >= p) for b in bd)
        new_bd = new_bd[:d] + (p,) + new_bd[d:]
        return self.bind(x, shape=out_shape, broadcast_dimensions=new_bd), p


# ----------------------------------------------------------------------------- reshape


@primitive
class reshape_p(Primitive):
    """Row-major reshape to ``new_sizes`` (``dimensions`` is always None here)."""

    name = "reshape"

    def abstract_eval(self, x, *, new_sizes, dimensions=None):
        new_sizes = tuple(new_sizes)
        if any(s < 0 for s in new_sizes):
            raise TypeError(f"reshape new_sizes must all be nonnegative, got {new_sizes}.")
        if _prod(new_sizes) != x.size:
            raise TypeError(f"reshape total size must be unchanged, got new_sizes {new_sizes} "
                            f"(of total size {_prod(new_sizes)}) for "
                            f"shape {x.shape} (of total size {x.size}).")
        return Aval(new_sizes, x.dtype, x.weak_type)

    def batch(self, axis_size, args, dims, *, new_sizes, dimensions=None):
        # the batch axis stays in place when the dims before it group into a prefix of
        # new_sizes (always true at the front or the end); otherwise it moves to the front
        (x,), (d,) = args, dims
        shp = x.aval.shape if hasattr(x, "aval") else np.shape(x)
        per = shp[:d] + shp[d + 1:]
        new_sizes = tuple(new_sizes)
        j = _prefix_split(per[:d], new_sizes, prefer=d)
        if j is None:
            x, j = moveaxis(x, d, 0), 0
        out = new_sizes[:j] + (axis_size,) + new_sizes[j:]
        return self.bind(x, new_sizes=out, dimensions=None), j


def _prefix_split(lead, new_sizes, prefer):
    """A j with prod(new_sizes[:j]) == prod(lead), the one nearest to ``prefer`` (or None)."""
    if _prod(new_sizes) == 0:  # no elements: any placement is the same array
        return min(prefer, len(new_sizes))
    target = _prod(lead)
    cands = [j for j in range(len(new_sizes) + 1) if _prod(new_sizes[:j]) == target]
    if not cands:
        return None
    return min(cands, key=lambda j: (abs(j - prefer), j))


# ----------------------------------------------------------------------------- transpose


@primitive
class transpose_p(Primitive):
    """Result dim i is operand dim permutation[i]."""

    name = "transpose"

    def abstract_eval(self, x, *, permutation):
        perm = tuple(permutation)
        if sorted(perm) != list(range(x.ndim)):
            raise TypeError(f"transpose permutation isn't a permutation of operand dimensions, "
                            f"got permutation {perm} for operand shape {x.shape}.")
        return Aval(tuple(x.shape[p] for p in perm), x.dtype, x.weak_type)

    def batch(self, axis_size, args, dims, *, permutation):
        # the batch axis goes to the front: free, since the op transposes anyway, and a
        # following out_axes=0 (or an outer vmap's) then needs no second transpose
        (x,), (d,) = args, dims
        perm = (d,) + tuple(p + (p >= d) for p in permutation)
        if perm == tuple(range(len(perm))):
            return x, 0
        return self.bind(x, permutation=perm), 0


# ----------------------------------------------------------------------------- squeeze


@primitive
class squeeze_p(Primitive):
    """Drop the size-1 dims ``dimensions`` (sorted, canonical); lowered as a reshape."""

    name = "squeeze"

    def abstract_eval(self, x, *, dimensions):
        dims = tuple(dimensions)
        for k in dims:
            if not 0 <= k < x.ndim:
                raise ValueError(f"axis {k} is out of bounds for array of dimension {x.ndim}")
        if len(set(dims)) != len(dims):
            raise ValueError(f"dimensions are not unique: {dims}")
        if any(x.shape[k] != 1 for k in dims):
            raise ValueError(f"cannot select an axis to squeeze out which has size not equal to "
                             f"one, got shape={x.shape} and dimensions={dims}")
        return Aval(tuple(s for i, s in enumerate(x.shape) if i not in dims), x.dtype,
                    x.weak_type)

    def batch(self, axis_size, args, dims, *, dimensions):
        # the batch axis stays put; it shifts left by the squeezed dims before it
        (x,), (d,) = args, dims
        full = tuple(k + (k >= d) for k in dimensions)
        out_d = d - sum(1 for k in full if k < d)
        return self.bind(x, dimensions=full), out_d


# ----------------------------------------------------------------------------- slice


def _check_int_seq(name, what, xs):
    try:
        return tuple(int(v) for v in xs)
    except TypeError:
        raise TypeError(f"{name} {what} must be a sequence of integers, got {xs!r}.") from None


@primitive
class slice_p(Primitive):
    """Static strided slice: result dim i has ceil((limit - start) / stride) elements."""

    name = "slice"

    def abstract_eval(self, x, *, start_indices, limit_indices, strides=None):
        st, lim = tuple(start_indices), tuple(limit_indices)
        if len(st) != x.ndim:
            raise TypeError(f"slice start_indices must have length equal to the number of "
                            f"dimensions of the operand, got indices {st} for operand shape "
                            f"{x.shape}.")
        if len(lim) != len(st):
            raise TypeError(f"slice limit_indices must have the same length as start_indices, "
                            f"got start_indices {st} and limit_indices {lim}.")
        if any(l > s for l, s in zip(lim, x.shape)):
            raise TypeError(f"slice limit_indices must be less than or equal to operand shape, "
                            f"got limit_indices {lim} for operand shape {x.shape}.")
        if any(s < 0 for s in st):
            raise TypeError(f"slice start_indices must have every element be nonnegative, got "
                            f"{st}.")
        if any(l < s for l, s in zip(lim, st)):
            raise TypeError(f"slice limit_indices must be greater than or equal to "
                            f"start_indices, got start_indices {st} and limit_indices {lim}.")
        if strides is None:
            strides = (1,) * x.ndim
        strides = tuple(strides)
        if len(strides) != x.ndim:
            raise TypeError(f"slice strides must have length equal to the number of dimensions "
                            f"of the operand, got strides {strides} for operand shape "
                            f"{x.shape}.")
        if any(s <= 0 for s in strides):
            raise TypeError(f"slice strides must be positive, got {strides}")
        shape = tuple(-(-(l - s) // k) for s, l, k in zip(st, lim, strides))
        return Aval(shape, x.dtype, x.weak_type)

    def batch(self, axis_size, args, dims, *, start_indices, limit_indices, strides=None):
        # the batch axis stays where it is (sliced whole)
        (x,), (d,) = args, dims
        st = tuple(start_indices[:d]) + (0,) + tuple(start_indices[d:])
        lim = tuple(limit_indices[:d]) + (axis_size,) + tuple(limit_indices[d:])
        if strides is not None:
            strides = tuple(strides[:d]) + (1,) + tuple(strides[d:])
        return self.bind(x, start_indices=st, limit_indices=lim, strides=strides), d


# ----------------------------------------------------------------------------- pad


@primitive
class pad_p(Primitive):
    """pad(operand, padding_value): per dim (low, high, interior); low/high may be negative
    (they then cut), interior >= 0 (that many padding elements between neighbours)."""

    name = "pad"

    def abstract_eval(self, x, pv, *, padding_config):
        cfg = tuple(tuple(c) for c in padding_config)
        if x.dtype != pv.dtype:
            raise TypeError(f"pad operand and padding_value must be same dtype: got "
                            f"{x.dtype.name} and {pv.dtype.name}.")
        if pv.ndim != 0:
            raise ValueError(f"padding_value must be a scalar; got np.shape(padding_value)="
                             f"{pv.shape}")
        if len(cfg) != x.ndim:
            raise ValueError(f"length of padding_config must equal the number of axes of "
                             f"operand, got padding_config {cfg} for operand shape {x.shape}")
        if any(len(c) != 3 for c in cfg):
            raise ValueError(f"padding_config must be a sequence of (low, high, interior) "
                             f"triples, got {cfg}")
        if any(i < 0 for _, _, i in cfg):
            raise ValueError(f"interior padding in padding_config must be nonnegative, got "
                             f"padding_config {cfg}")
        shape = tuple(lo + hi + (d + max(d - 1, 0) * i) for (lo, hi, i), d in zip(cfg, x.shape))
        if any(s < 0 for s in shape):
            raise ValueError(f"Dimension size after padding is not at least 0, got result shape "
                             f"{shape}, for padding_config {cfg} and operand shape {x.shape}")
        return Aval(shape, x.dtype, x.weak_type and pv.weak_type)

    def batch(self, axis_size, args, dims, *, padding_config):
        # the operand's batch axis stays where it is (unpadded); with a batched padding value
        # (StableHLO pads with one scalar) pad with zero and select the padding value in by a
        # mask: batch axis at the operand's (or 0 when only the padding value is batched)
        (x, pv), (d, dv) = args, dims
        cfg = tuple(tuple(c) for c in padding_config)
        if dv is None:
            cfg = cfg[:d] + ((0, 0, 0),) + cfg[d:]
            return self.bind(x, pv, padding_config=cfg), d
        d0 = 0 if d is None else d
        xa = aval_of(x)
        zero = _scalar_literal(0, xa.dtype)
        zero = Literal(zero.val, zero.aval.update(weak_type=xa.weak_type))
        if d is None:  # pad the one operand, then broadcast it
            padded = bdim_at(self.bind(x, zero, padding_config=cfg), None, axis_size, 0)
            per_shape = xa.shape
        else:
            full_cfg = cfg[:d] + ((0, 0, 0),) + cfg[d:]
            padded = self.bind(x, zero, padding_config=full_cfg)
            per_shape = xa.shape[:d] + xa.shape[d + 1:]
        out_shape = _shape(padded)
        ones = broadcast_in_dim_p.bind(_scalar_literal(True, dtypes.bool_), shape=per_shape,
                                       broadcast_dimensions=())
        mask = self.bind(ones, _scalar_literal(False, dtypes.bool_), padding_config=cfg)
        mask = bdim_at(mask, None, axis_size, d0)
        pv_full = broadcast_in_dim_p.bind(pv, shape=out_shape, broadcast_dimensions=(d0,))
        from .elementwise import select_p
        return select_p.bind(mask, padded, pv_full), d0


def _shape(x) -> tuple:
    return tuple(x.aval.shape) if hasattr(x, "aval") else np.shape(x)


# ----------------------------------------------------------------------------- concatenate


@primitive
class concatenate_p(Primitive):
    """Join n operands of one dtype and rank along ``dimension`` (other dims equal)."""

    name = "concatenate"

    def abstract_eval(self, *xs, dimension):
        if not xs:
            raise TypeError("concatenate expects at least one operand, got 0.")
        shapes = ", ".join(str(x.shape) for x in xs)
        if len({x.dtype for x in xs}) != 1:
            raise TypeError("lax.concatenate requires arguments to have the same dtypes, got "
                            + ", ".join(x.dtype.name for x in xs) + ".")
        if len({x.ndim for x in xs}) != 1:
            raise TypeError(f"Cannot concatenate arrays with different numbers of dimensions: "
                            f"got {shapes}.")
        nd = xs[0].ndim
        if not 0 <= dimension < nd:
            raise TypeError(f"concatenate dimension out of bounds: dimension {dimension} for "
                            f"shapes {shapes}.")
        rest = {x.shape[:dimension] + x.shape[dimension + 1:] for x in xs}
        if len(rest) != 1:
            raise TypeError(f"Cannot concatenate arrays with shapes that differ in dimensions "
                            f"other than the one being concatenated: concatenating along "
                            f"dimension {dimension} for shapes {shapes}.")
        s = list(xs[0].shape)
        s[dimension] = sum(x.shape[dimension] for x in xs)
        return Aval(tuple(s), xs[0].dtype, all(x.weak_type for x in xs))

    def batch(self, axis_size, args, dims, *, dimension):
        # batched operands share the batch axis position most of them already have (the first
        # one's on a tie; the others are moved there); unbatched ones are broadcast along it
        # (concatenate needs equal ranks)
        batched = [d for d in dims if d is not None]
        d0 = max(batched, key=lambda d: (batched.count(d), -batched.index(d)))
        new = [bdim_at(x, d, axis_size, d0) for x, d in zip(args, dims, strict=True)]
        return self.bind(*new, dimension=dimension + (dimension >= d0)), d0


# ----------------------------------------------------------------------------- iota


@primitive
class iota_p(Primitive):
    """An array of ``shape`` whose elements count 0, 1, ... along ``dimension``."""

    name = "iota"

    def abstract_eval(self, *, dtype, shape, dimension):
        shape = tuple(shape)
        if any(s < 0 for s in shape):
            raise TypeError(f"iota shape must be nonnegative, got {shape}")
        if not 0 <= dimension < len(shape):
            raise ValueError(f"iota dimension must be between 0 and len(shape), got "
                             f"dimension={dimension} for shape={shape}")
        return Aval(shape, dtype, False)

    def batch(self, axis_size, args, dims, *, dtype, shape, dimension):
        # no operands, so never batched: the result is unbatched
        return self.bind(dtype=dtype, shape=shape, dimension=dimension), None


# ----------------------------------------------------------------------------- rev


@primitive
class rev_p(Primitive):
    """Reverse the order of elements along ``dimensions``."""

    name = "rev"

    def abstract_eval(self, x, *, dimensions):
        dims = tuple(dimensions)
        if len(set(dims)) != len(dims):
            raise TypeError(f"rev dimensions must be unique, got {dims}.")
        if any(not 0 <= k < x.ndim for k in dims):
            raise TypeError(f"rev dimensions must all be less than operand ndim, got dimensions "
                            f"{dims} for operand ndim {x.ndim}.")
        return x

    def batch(self, axis_size, args, dims, *, dimensions):
        # the batch axis stays where it is
        (x,), (d,) = args, dims
        return self.bind(x, dimensions=tuple(k + (k >= d) for k in dimensions)), d


# ----------------------------------------------------------------------------- wrappers (lax)


def broadcast_in_dim(operand, shape, broadcast_dimensions):
    """lax.broadcast_in_dim: operand dim i becomes result dim broadcast_dimensions[i]."""
    return broadcast_in_dim_p.bind(operand, shape=tuple(int(s) for s in shape),
                                   broadcast_dimensions=tuple(int(b) for b in broadcast_dimensions))


def broadcast(operand, sizes):
    """lax.broadcast: add leading dims of ``sizes``."""
    sizes = tuple(int(s) for s in sizes)
    nd = np.ndim(operand) if not hasattr(operand, "aval") else operand.aval.ndim
    shp = _shape(operand)
    return broadcast_in_dim(operand, sizes + tuple(shp), range(len(sizes), len(sizes) + nd))


def reshape(operand, new_sizes, dimensions=None):
    """lax.reshape: row-major reshape (after transposing by ``dimensions`` if given)."""
    if dimensions is not None:
        operand = transpose(operand, dimensions)
    new_sizes = (new_sizes,) if isinstance(new_sizes, (int, np.integer)) else new_sizes
    new_sizes = tuple(int(s) for s in new_sizes)
    if _shape(operand) == new_sizes and hasattr(operand, "aval"):
        return operand
    return reshape_p.bind(operand, new_sizes=new_sizes, dimensions=None)


def transpose(operand, permutation):
    """lax.transpose: result dim i is operand dim permutation[i]."""
    perm = tuple(int(p) for p in permutation)
    if perm == tuple(range(len(perm))) and hasattr(operand, "aval") and len(perm) == operand.aval.ndim:
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
    if not dims and hasattr(array, "aval"):
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
        a = aval_of(operand)
        padding_value = Literal(np.asarray(padding_value, a.dtype).item(), Aval((), a.dtype, True))
    return pad_p.bind(operand, padding_value, padding_config=cfg)


def concatenate(operands, dimension):
    """lax.concatenate: join operands of one dtype and rank along ``dimension``."""
    operands = list(operands)
    if not operands:
        raise ValueError("concatenate requires a non-empty sequences of arrays")
    if len(operands) == 1 and hasattr(operands[0], "aval"):
        return operands[0]
    return concatenate_p.bind(*operands, dimension=int(dimension))


def broadcasted_iota(dtype, shape, dimension):
    """lax.broadcasted_iota: counts 0, 1, ... along ``dimension`` of ``shape``."""
    shape = tuple(int(s) for s in shape)
    dimension = int(dimension)
    return iota_p.bind(dtype=dtypes.canonicalize(np.dtype(dtype)), shape=shape,
                       dimension=dimension)


def iota(dtype, size):
    """lax.iota: [0, 1, ..., size - 1] of ``dtype``."""
    return broadcasted_iota(dtype, (int(size),), 0)


def rev(operand, dimensions):
    """lax.rev: reverse along ``dimensions``."""
    return rev_p.bind(operand, dimensions=tuple(int(k) for k in dimensions))


__all__ = ["broadcast_in_dim", "broadcast", "reshape", "transpose", "squeeze", "expand_dims",
           "slice", "slice_in_dim", "index_in_dim", "pad", "concatenate", "iota",
           "broadcasted_iota", "rev", "ndim"]
