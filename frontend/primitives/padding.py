"""Slicing and padding: slice, pad and concatenate (a module of its own: pad's batching rule
needs select, and slice and pad are each other's transposes)."""
from __future__ import annotations

from ..core import dtypes
from ..core.ir import Aval, Primitive, aval_of, literal
from ..interpreters import batching
from ..interpreters.ad_util import is_undefined_primal
from .elementwise import select_p, sub_p
from .shape import bdim_at, broadcast_in_dim_p, linear_jvp, reduce_sum_p

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
    if any(l > s for l, s in zip(lim, x.shape, strict=True)):
        raise TypeError(f"slice limit_indices must be less than or equal to operand shape, "
                        f"got limit_indices {lim} for operand shape {x.shape}.")
    if any(s < 0 for s in st):
        raise TypeError(f"slice start_indices must have every element be nonnegative, got "
                        f"{st}.")
    if any(l < s for l, s in zip(lim, st, strict=True)):
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
    shape = tuple(-(-(l - s) // k) for s, l, k in zip(st, lim, strides, strict=True))
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


slice_p.def_jvp(linear_jvp(slice_p))


@slice_p.def_transpose
def _slice_transpose(ct, x, *, start_indices, limit_indices, strides=None):
    # the cotangent padded back into place: zeros around, stride - 1 zeros between elements
    a = x.aval
    strides = (1,) * a.ndim if strides is None else strides
    cfg = []
    for s, k, n, d in zip(start_indices, strides, aval_of(ct).shape, a.shape, strict=True):
        cfg.append((s, d - s - (n - 1) * k - 1, k - 1) if n else (s, d - s, 0))
    zero = literal(0, a.dtype, aval_of(ct).weak_type)
    return [pad_p.bind(ct, zero, padding_config=tuple(cfg))]


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


concatenate_p.def_jvp(linear_jvp(concatenate_p))


@concatenate_p.def_transpose
def _concatenate_transpose(ct, *xs, dimension):
    # each linear operand gets its slice of the cotangent
    shp = aval_of(ct).shape
    out, off = [], 0
    for x in xs:
        n = aval_of(x).shape[dimension]
        if is_undefined_primal(x):
            st = [0] * len(shp)
            st[dimension] = off
            lim = list(shp)
            lim[dimension] = off + n
            out.append(slice_p.bind(ct, start_indices=tuple(st), limit_indices=tuple(lim),
                                    strides=None))
        else:
            out.append(None)
        off += n
    return out


# ----------------------------------------------------------------------------- pad

# pad(operand, padding_value): per dim (low, high, interior); low/high may be negative
# (they then cut), interior >= 0 (that many padding elements between neighbours).
pad_p = Primitive("pad")


@pad_p.def_abstract_eval
def _pad_abstract_eval(x, pv, *, padding_config):
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
    shape = tuple(lo + hi + (d + max(d - 1, 0) * i) for (lo, hi, i), d in zip(cfg, x.shape, strict=True))
    if any(s < 0 for s in shape):
        raise ValueError(f"Dimension size after padding is not at least 0, got result shape "
                         f"{shape}, for padding_config {cfg} and operand shape {x.shape}")
    return Aval(shape, x.dtype, x.weak_type and pv.weak_type)


@pad_p.def_batching
def _pad_batch(args, dims, *, padding_config):
    # the operand's batch axis stays where it is (unpadded); with a batched padding value
    # (StableHLO pads with one scalar) pad with zero and select the padding value in by a
    # mask: batch axis at the operand's (or 0 when only the padding value is batched)
    axis_size = batching.axis_size(args, dims)
    (x, pv), (d, dv) = args, dims
    cfg = tuple(tuple(c) for c in padding_config)
    if dv is None:
        cfg = cfg[:d] + ((0, 0, 0),) + cfg[d:]
        return pad_p.bind(x, pv, padding_config=cfg), d
    d0 = 0 if d is None else d
    xa = aval_of(x)
    zero = literal(0, xa.dtype, xa.weak_type)
    if d is None:  # pad the one operand, then broadcast it
        padded = bdim_at(pad_p.bind(x, zero, padding_config=cfg), None, axis_size, 0)
        per_shape = xa.shape
    else:
        full_cfg = cfg[:d] + ((0, 0, 0),) + cfg[d:]
        padded = pad_p.bind(x, zero, padding_config=full_cfg)
        per_shape = xa.shape[:d] + xa.shape[d + 1:]
    out_shape = batching.shape(padded)
    ones = broadcast_in_dim_p.bind(literal(True, dtypes.bool_), shape=per_shape,
                                   broadcast_dimensions=())
    mask = pad_p.bind(ones, literal(False, dtypes.bool_), padding_config=cfg)
    mask = bdim_at(mask, None, axis_size, d0)
    pv_full = broadcast_in_dim_p.bind(pv, shape=out_shape, broadcast_dimensions=(d0,))
    return select_p.bind(mask, padded, pv_full), d0


pad_p.def_jvp(linear_jvp(pad_p))


@pad_p.def_transpose
def _pad_transpose(ct, x, pv, *, padding_config):
    # the operand's cotangent: undo the low/high padding, then take every (interior+1)-th
    # element; the padding value's: everything else, summed
    ca = aval_of(ct)
    cfg = tuple(tuple(c) for c in padding_config)
    zero = literal(0, ca.dtype, ca.weak_type)
    unpadded = pad_p.bind(ct, zero, padding_config=tuple((-lo, -hi, 0) for lo, hi, _ in cfg))
    t_x = slice_p.bind(unpadded, start_indices=(0,) * ca.ndim,
                       limit_indices=aval_of(unpadded).shape,
                       strides=tuple(i + 1 for _, _, i in cfg))
    t_pv = None
    if is_undefined_primal(pv):
        everything = tuple(range(ca.ndim))
        t_pv = sub_p.bind(reduce_sum_p.bind(ct, axes=everything),
                          reduce_sum_p.bind(t_x, axes=everything))
    return [t_x if is_undefined_primal(x) else None, t_pv]
