"""lax functions of the extra elementwise primitives: one primitive each (operands must
agree in dtype; Python scalars take the typed operands' dtype)."""
from __future__ import annotations

import operator

from ..primitives import numeric as nm
from ._convert import as_operand
from ._ops import _wrap

exp2 = _wrap(nm.exp2_p, "exp2", 1)
cbrt = _wrap(nm.cbrt_p, "cbrt", 1)
asin = _wrap(nm.asin_p, "asin", 1)
acos = _wrap(nm.acos_p, "acos", 1)
atan = _wrap(nm.atan_p, "atan", 1)
sinh = _wrap(nm.sinh_p, "sinh", 1)
cosh = _wrap(nm.cosh_p, "cosh", 1)
asinh = _wrap(nm.asinh_p, "asinh", 1)
acosh = _wrap(nm.acosh_p, "acosh", 1)
atanh = _wrap(nm.atanh_p, "atanh", 1)
square = _wrap(nm.square_p, "square", 1)
clz = _wrap(nm.clz_p, "clz", 1)
nextafter = _wrap(nm.nextafter_p, "nextafter", 2)
mulhi = _wrap(nm.mulhi_p, "mulhi", 2)
real = _wrap(nm.real_p, "real", 1)
imag = _wrap(nm.imag_p, "imag", 1)
conj = _wrap(nm.conj_p, "conj", 1)
complex = _wrap(nm.complex_p, "complex", 2)  # noqa: A001
is_finite = _wrap(nm.is_finite_p, "is_finite", 1)


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
