"""lax functions of the extra elementwise primitives: one primitive each (operands must
agree in dtype; Python scalars take the typed operands' dtype)."""
from __future__ import annotations

import operator

from ..primitives import numeric as nm
from ._convert import as_operand
from ._ops import _wrap

exp2 = _wrap(nm.exp2_p, "exp2")
cbrt = _wrap(nm.cbrt_p, "cbrt")
asin = _wrap(nm.asin_p, "asin")
acos = _wrap(nm.acos_p, "acos")
atan = _wrap(nm.atan_p, "atan")
sinh = _wrap(nm.sinh_p, "sinh")
cosh = _wrap(nm.cosh_p, "cosh")
asinh = _wrap(nm.asinh_p, "asinh")
acosh = _wrap(nm.acosh_p, "acosh")
atanh = _wrap(nm.atanh_p, "atanh")
square = _wrap(nm.square_p, "square")
clz = _wrap(nm.clz_p, "clz")
nextafter = _wrap(nm.nextafter_p, "nextafter")
mulhi = _wrap(nm.mulhi_p, "mulhi")
real = _wrap(nm.real_p, "real")
imag = _wrap(nm.imag_p, "imag")
conj = _wrap(nm.conj_p, "conj")
complex = _wrap(nm.complex_p, "complex")  # noqa: A001
is_finite = _wrap(nm.is_finite_p, "is_finite")


def integer_pow(x, y: int):
    """lax.integer_pow: ``x ** y`` for a static int ``y`` (by repeated squaring).

    >>> import numpy as np
    >>> from frontend import lax
    >>> lax.integer_pow(np.float32(3), 2)
    Array(9., dtype=float32)
    """
    return nm.integer_pow_p.bind(as_operand(x), y=operator.index(y))


def reciprocal(x):
    """lax.reciprocal: ``1 / x`` (integer_pow with exponent -1)."""
    return integer_pow(x, -1)


def reduce_precision(operand, exponent_bits: int, mantissa_bits: int):
    """lax.reduce_precision: ``operand`` rounded as if stored in a float format with
    ``exponent_bits`` and ``mantissa_bits`` (e.g. 5 and 10: float16), same dtype."""
    return nm.reduce_precision_p.bind(as_operand(operand), exponent_bits=operator.index(exponent_bits),
                                      mantissa_bits=operator.index(mantissa_bits))
