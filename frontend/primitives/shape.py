"""Shape primitives: broadcast_in_dim, reshape, transpose, squeeze, slice, concatenate, iota,
rev, and the axis moves that batching rules share (``moveaxis``, ``bdim_at``). Every batching
rule keeps the batch axis where it is whenever the operation allows it (no transposes), and
says where it ends up."""
from __future__ import annotations

import numpy as np

from .. import batching
from ..batching import ndim
from ..core import Aval, Primitive


def _prod(xs) -> int:
    return int(np.prod(tuple(xs), dtype=np.int64))


# ----------------------------------------------------------------------------- broadcast_in_dim


# Operand dim i goes to result dim broadcast_dimensions[i] (equal size or 1).
broadcast_in_dim_p = Primitive("broadcast_in_dim")


@broadcast_in_dim_p.def_abstract_eval
def _broadcast_in_dim_abstract_eval(x, *, shape, broadcast_dimensions):
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


@broadcast_in_dim_p.def_batching
def _broadcast_in_dim_batch(args, dims, *, shape, broadcast_dimensions):
    # the batch axis becomes a new result dim just after the result dim of the operand dim
    # before it (result dim 0 if it leads): broadcast_dimensions stay increasing, no transpose
    axis_size = batching.axis_size(args, dims)
    (x,), (d,) = args, dims
    bd = tuple(broadcast_dimensions)
    p = bd[d - 1] + 1 if d > 0 else 0
    out_shape = tuple(shape[:p]) + (axis_size,) + tuple(shape[p:])
    new_bd = tuple(b + (b >= p) for b in bd)
    new_bd = new_bd[:d] + (p,) + new_bd[d:]
    return broadcast_in_dim_p.bind(x, shape=out_shape, broadcast_dimensions=new_bd), p


# ----------------------------------------------------------------------------- reshape


# Row-major reshape to ``new_sizes`` (``dimensions`` is always None here).
reshape_p = Primitive("reshape")


@reshape_p.def_abstract_eval
def _reshape_abstract_eval(x, *, new_sizes, dimensions=None):
    new_sizes = tuple(new_sizes)
    if any(s < 0 for s in new_sizes):
        raise TypeError(f"reshape new_sizes must all be nonnegative, got {new_sizes}.")
    if _prod(new_sizes) != x.size:
        raise TypeError(f"reshape total size must be unchanged, got new_sizes {new_sizes} "
                        f"(of total size {_prod(new_sizes)}) for "
                        f"shape {x.shape} (of total size {x.size}).")
    return Aval(new_sizes, x.dtype, x.weak_type)


@reshape_p.def_batching
def _reshape_batch(args, dims, *, new_sizes, dimensions=None):
    # the batch axis stays in place when the dims before it group into a prefix of
    # new_sizes (always true at the front or the end); otherwise it moves to the front
    axis_size = batching.axis_size(args, dims)
    (x,), (d,) = args, dims
    shp = x.aval.shape if hasattr(x, "aval") else np.shape(x)
    per = shp[:d] + shp[d + 1:]
    new_sizes = tuple(new_sizes)
    j = _prefix_split(per[:d], new_sizes, prefer=d)
    if j is None:
        x, j = moveaxis(x, d, 0), 0
    out = new_sizes[:j] + (axis_size,) + new_sizes[j:]
    return reshape_p.bind(x, new_sizes=out, dimensions=None), j


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


# Result dim i is operand dim permutation[i].
transpose_p = Primitive("transpose")


@transpose_p.def_abstract_eval
def _transpose_abstract_eval(x, *, permutation):
    perm = tuple(permutation)
    if sorted(perm) != list(range(x.ndim)):
        raise TypeError(f"transpose permutation isn't a permutation of operand dimensions, "
                        f"got permutation {perm} for operand shape {x.shape}.")
    return Aval(tuple(x.shape[p] for p in perm), x.dtype, x.weak_type)


@transpose_p.def_batching
def _transpose_batch(args, dims, *, permutation):
    # the batch axis goes to the front: free, since the op transposes anyway, and a
    # following out_axes=0 (or an outer vmap's) then needs no second transpose
    (x,), (d,) = args, dims
    perm = (d,) + tuple(p + (p >= d) for p in permutation)
    if perm == tuple(range(len(perm))):
        return x, 0
    return transpose_p.bind(x, permutation=perm), 0


# ----------------------------------------------------------------------------- squeeze


# Drop the size-1 dims ``dimensions`` (sorted, canonical); lowered as a reshape.
squeeze_p = Primitive("squeeze")


@squeeze_p.def_abstract_eval
def _squeeze_abstract_eval(x, *, dimensions):
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


@squeeze_p.def_batching
def _squeeze_batch(args, dims, *, dimensions):
    # the batch axis stays put; it shifts left by the squeezed dims before it
    (x,), (d,) = args, dims
    full = tuple(k + (k >= d) for k in dimensions)
    out_d = d - sum(1 for k in full if k < d)
    return squeeze_p.bind(x, dimensions=full), out_d


# ----------------------------------------------------------------------------- slice


# Static strided slice: result dim i has ceil((limit - start) / stride) elements.
slice_p = Primitive("slice")


@slice_p.def_abstract_eval
def _slice_abstract_eval(x, *, start_indices, limit_indices, strides=None):
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


@slice_p.def_batching
def _slice_batch(args, dims, *, start_indices, limit_indices, strides=None):
    # the batch axis stays where it is (sliced whole)
    axis_size = batching.axis_size(args, dims)
    (x,), (d,) = args, dims
    st = tuple(start_indices[:d]) + (0,) + tuple(start_indices[d:])
    lim = tuple(limit_indices[:d]) + (axis_size,) + tuple(limit_indices[d:])
    if strides is not None:
        strides = tuple(strides[:d]) + (1,) + tuple(strides[d:])
    return slice_p.bind(x, start_indices=st, limit_indices=lim, strides=strides), d


# ----------------------------------------------------------------------------- concatenate


# Join n operands of one dtype and rank along ``dimension`` (other dims equal).
concatenate_p = Primitive("concatenate")


@concatenate_p.def_abstract_eval
def _concatenate_abstract_eval(*xs, dimension):
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


@concatenate_p.def_batching
def _concatenate_batch(args, dims, *, dimension):
    # batched operands share the batch axis position most of them already have (the first
    # one's on a tie; the others are moved there); unbatched ones are broadcast along it
    # (concatenate needs equal ranks)
    axis_size = batching.axis_size(args, dims)
    batched = [d for d in dims if d is not None]
    d0 = max(batched, key=lambda d: (batched.count(d), -batched.index(d)))
    new = [bdim_at(x, d, axis_size, d0) for x, d in zip(args, dims, strict=True)]
    return concatenate_p.bind(*new, dimension=dimension + (dimension >= d0)), d0


# ----------------------------------------------------------------------------- iota


# An array of ``shape`` whose elements count 0, 1, ... along ``dimension``.
iota_p = Primitive("iota")


@iota_p.def_abstract_eval
def _iota_abstract_eval(*, dtype, shape, dimension):
    shape = tuple(shape)
    if np.dtype(dtype) == np.bool_:
        raise TypeError("iota does not accept dtype bool. Accepted dtypes are subtypes of "
                        "integer, floating, complexfloating.")
    if any(s < 0 for s in shape):
        raise TypeError(f"iota shape must be nonnegative, got {shape}")
    if not 0 <= dimension < len(shape):
        raise ValueError(f"iota dimension must be between 0 and len(shape), got "
                         f"dimension={dimension} for shape={shape}")
    return Aval(shape, dtype, False)


# ----------------------------------------------------------------------------- rev


# Reverse the order of elements along ``dimensions``.
rev_p = Primitive("rev")


@rev_p.def_abstract_eval
def _rev_abstract_eval(x, *, dimensions):
    dims = tuple(dimensions)
    if len(set(dims)) != len(dims):
        raise TypeError(f"rev dimensions must be unique, got {dims}.")
    if any(not 0 <= k < x.ndim for k in dims):
        raise TypeError(f"rev dimensions must all be less than operand ndim, got dimensions "
                        f"{dims} for operand ndim {x.ndim}.")
    return x


@rev_p.def_batching
def _rev_batch(args, dims, *, dimensions):
    # the batch axis stays where it is
    (x,), (d,) = args, dims
    return rev_p.bind(x, dimensions=tuple(k + (k >= d) for k in dimensions)), d


# ----------------------------------------------------------------------------- axis moves
# (used by batching rules everywhere; they bind the primitives above)


def moveaxis(x, src: int, dst: int):
    """Move axis ``src`` of x to ``dst`` with one transpose (none when src == dst)."""
    if src == dst:
        return x
    perm = [i for i in range(ndim(x)) if i != src]
    perm.insert(dst, src)
    return transpose_p.bind(x, permutation=tuple(perm))


def bdim_at(x, d, size: int, dst: int = 0):
    """x with its batch axis at ``dst``; an unbatched x (d None) is broadcast to the batch."""
    if d is None:
        shp = batching.shape(x)
        out_shape = tuple(shp[:dst]) + (size,) + tuple(shp[dst:])
        dims = tuple(i if i < dst else i + 1 for i in range(len(shp)))
        return broadcast_in_dim_p.bind(x, shape=out_shape, broadcast_dimensions=dims)
    return moveaxis(x, d, dst)
