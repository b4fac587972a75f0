"""The pad primitive (a module of its own: its batching rule needs select)."""
from __future__ import annotations

from .. import batching, dtypes
from ..core import Aval, Primitive, aval_of, literal
from .elementwise import select_p
from .shape import bdim_at, broadcast_in_dim_p

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
    shape = tuple(lo + hi + (d + max(d - 1, 0) * i) for (lo, hi, i), d in zip(cfg, x.shape))
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
