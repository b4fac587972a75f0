"""More elementwise primitives, rows of the elementwise families (``unary``/``nary``, so
their batching rules are the family's: the batch axis stays, or JAX's broadcasting rule):

- inverse trigonometric and hyperbolic functions, exp2, cbrt, square, integer_pow;
- complex numbers: real, imag (complex -> its real dtype), conj (real or complex ->
  complex), complex (two reals -> complex);
- float and integer bits: is_finite, nextafter, clz (count leading zeros), mulhi (the
  high half of the double-width product), reduce_precision.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..core import Aval, Primitive
from .elementwise import (
    FLOAT,
    INEXACT,
    INT,
    NUMBER,
    broadcast_shapes_nary,
    check_dtype,
    nary,
    same_axis_batch,
    unary,
    vectorized_batch,
)

exp2_p = unary("exp2", INEXACT)
cbrt_p = unary("cbrt", FLOAT)
asin_p = unary("asin", INEXACT)
acos_p = unary("acos", INEXACT)
atan_p = unary("atan", INEXACT)
sinh_p = unary("sinh", INEXACT)
cosh_p = unary("cosh", INEXACT)
asinh_p = unary("asinh", INEXACT)
acosh_p = unary("acosh", INEXACT)
atanh_p = unary("atanh", INEXACT)
square_p = unary("square", NUMBER)
clz_p = unary("clz", INT)
nextafter_p = nary("nextafter", FLOAT)
mulhi_p = nary("mulhi", INT)


def _unary_to(name: str, accepts, accepted: str, out_dtype) -> Primitive:
    """x -> f(x) of dtype ``out_dtype(x.dtype)``: same shape, the batch axis stays."""
    p = Primitive(name)

    @p.def_abstract_eval
    def abstract_eval(x):
        if not accepts(x.dtype):
            raise TypeError(f"{name} does not accept dtype {x.dtype.name}. Accepted dtypes "
                            f"are subtypes of {accepted}.")
        d = np.dtype(out_dtype(x.dtype))
        return Aval(x.shape, d, x.weak_type and d == x.dtype)

    p.def_batching(same_axis_batch(p))
    return p


def _part_dtype(d):
    return np.dtype(np.finfo(d).dtype)


def _complex_dtype(d):
    return np.dtype(np.complex128) if np.dtype(d) == np.float64 else np.dtype(np.complex64)


def _f32_f64(d) -> bool:
    return np.dtype(d) in (np.float32, np.float64)


real_p = _unary_to("real", dtypes.is_complex, "complexfloating", _part_dtype)
imag_p = _unary_to("imag", dtypes.is_complex, "complexfloating", _part_dtype)
conj_p = _unary_to("conj", lambda d: _f32_f64(d) or dtypes.is_complex(d),
                   "float32, complexfloating, float64",
                   lambda d: d if dtypes.is_complex(d) else _complex_dtype(d))
is_finite_p = _unary_to("is_finite", dtypes.is_float, "floating", lambda d: dtypes.bool_)


# complex(x, y) = x + i y: two floats of one dtype (float32/float64) -> complex.
complex_p = Primitive("complex")


@complex_p.def_abstract_eval
def _complex_abstract_eval(x, y):
    for i, a in enumerate((x, y)):
        if not _f32_f64(a.dtype):
            raise TypeError(f"complex does not accept dtype {a.dtype.name} at position {i}. "
                            "Accepted dtypes at position 0 are subtypes of float32, float64.")
    if x.dtype != y.dtype:
        raise TypeError(f"complex requires arguments to have the same dtypes, got "
                        f"{x.dtype.name}, {y.dtype.name}.")
    shape = broadcast_shapes_nary("complex", (x, y))
    return Aval(shape, _complex_dtype(x.dtype), x.weak_type and y.weak_type)


complex_p.def_batching(vectorized_batch(complex_p))

# integer_pow(x, y): x ** y for a static Python int y (negative: 1 / x ** -y, for inexact x).
integer_pow_p = Primitive("integer_pow")


@integer_pow_p.def_abstract_eval
def _integer_pow_abstract_eval(x, *, y):
    check_dtype("integer_pow", NUMBER, x.dtype)
    if y < 0 and not dtypes.is_inexact(x.dtype):
        raise TypeError(f"Integers cannot be raised to negative powers, got "
                        f"integer_pow({x.str_short()}, {y})")
    return x


integer_pow_p.def_batching(same_axis_batch(integer_pow_p))

# reduce_precision(x, exponent_bits, mantissa_bits): x rounded to a float format with that
# many bits (as if stored in it and read back), same dtype.
reduce_precision_p = Primitive("reduce_precision")


@reduce_precision_p.def_abstract_eval
def _reduce_precision_abstract_eval(x, *, exponent_bits, mantissa_bits):
    check_dtype("reduce_precision", FLOAT, x.dtype)
    if exponent_bits < 1:
        raise ValueError(f"reduce_precision: exponent_bits must be positive; got {exponent_bits}")
    if mantissa_bits < 0:
        raise ValueError(f"reduce_precision: mantissa_bits must be non-negative; got "
                         f"{mantissa_bits}")
    return x


reduce_precision_p.def_batching(same_axis_batch(reduce_precision_p))
