"""Bit-level primitives: ``bitcast_convert_type`` (reinterpret the bits of an array as
another dtype, as StableHLO's bitcast_convert) and ``population_count`` (set bits per
element). The shift ops are rows of the elementwise family. Neither is differentiable: their
jvp is a symbolic zero (float0 for integer results), as JAX's."""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.ir import Aval, Primitive, aval_of
from .elementwise import INT, unary
from .shape import moveaxis, zero_jvp

population_count_p = unary("population_count", INT)
population_count_p.def_jvp(zero_jvp(population_count_p))

# bitcast_convert_type(x, new_dtype): equal widths keep the shape; a narrower result adds a
# trailing axis of size (old bits / new bits); a wider one consumes a trailing axis of size
# (new bits / old bits).
bitcast_convert_type_p = Primitive("bitcast_convert_type")


def _bits(d) -> int:
    return np.dtype(d).itemsize * 8


@bitcast_convert_type_p.def_abstract_eval
def _bitcast_abstract_eval(x, *, new_dtype):
    old, new = np.dtype(x.dtype), np.dtype(new_dtype)
    if old != new and (dtypes.is_bool(old) or dtypes.is_complex(old) or dtypes.is_bool(new)
                       or dtypes.is_complex(new)):
        raise TypeError("lax.bitcast_convert_type does not support bool or complex values "
                        "unless the operand and destination types match. Got operand "
                        f"dtype={old}, new_dtype={new!r}. Consider using the arr.view() "
                        "method instead.")
    ob, nb = _bits(old), _bits(new)
    if ob == nb:
        return Aval(x.shape, new)
    if ob > nb:
        return Aval(x.shape + (ob // nb,), new)
    last = x.shape[-1] if x.shape else 1
    if not x.shape or last * ob != nb:
        raise ValueError(f"Attempting to convert array of shape {x.shape} from {old} of size "
                         f"{ob} bits to {new} of size {nb}, bits but {last} * {ob} != {nb}")
    return Aval(x.shape[:-1], new)


@bitcast_convert_type_p.def_batching
def _bitcast_batching(args, dims, *, new_dtype):
    # the batch axis stays, unless it is the trailing axis a widening cast consumes (then 0)
    (x,), (d,) = args, dims
    a = aval_of(x)
    if _bits(a.dtype) < _bits(new_dtype) and d == a.ndim - 1:
        x, d = moveaxis(x, d, 0), 0
    return bitcast_convert_type_p.bind(x, new_dtype=new_dtype), d



bitcast_convert_type_p.def_jvp(zero_jvp(bitcast_convert_type_p))
