"""JAX's numpy functions on the extra elementwise primitives: inverse trigonometric and
hyperbolic functions, exp2, cbrt, isfinite, nextafter, the parts of complex numbers
(real, imag, conj/conjugate, angle), and the float bits: frexp, ldexp, signbit, copysign
(compositions over bitcast_convert_type, shifts and masks)."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from .. import lax
from ..core import dtypes
from ..core.ir import aval_of
from ..lax._convert import convert
from ._core import asarray, check_arraylike, promote_args, promote_dtypes_inexact
from ._elementwise import _unary, _where3, add, equal, greater, isinf, logical_or, multiply, power, subtract

__all__ = ["exp2", "cbrt", "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh", "arccosh",
           "arctanh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "isfinite",
           "nextafter", "real", "imag", "conj", "conjugate", "angle", "frexp", "ldexp", "signbit",
           "copysign"]

exp2 = _unary("exp2", lax.exp2, True)
cbrt = _unary("cbrt", lax.cbrt, True)
arcsin = asin = _unary("arcsin", lax.asin, True)
arccos = acos = _unary("arccos", lax.acos, True)
arctan = atan = _unary("arctan", lax.atan, True)
sinh = _unary("sinh", lax.sinh, True)
cosh = _unary("cosh", lax.cosh, True)
arcsinh = asinh = _unary("arcsinh", lax.asinh, True)
arccosh = acosh = _unary("arccosh", lax.acosh, True)
arctanh = atanh = _unary("arctanh", lax.atanh, True)


def _arg(name, x):
    check_arraylike(name, x)
    return asarray(x)


def _full_like(x, value, dtype):
    a = aval_of(x)
    return lax.broadcast_in_dim(convert(value, dtype), shape=a.shape, broadcast_dimensions=())


def isfinite(x, /):
    """True where x is neither infinite nor NaN (always True for integers and booleans)."""
    x = _arg("isfinite", x)
    d = aval_of(x).dtype
    if dtypes.is_float(d):
        return lax.is_finite(x)
    if dtypes.is_complex(d):
        return lax.bitwise_and(lax.is_finite(lax.real(x)),
                               lax.is_finite(lax.imag(x)))
    return _full_like(x, True, dtypes.bool_)


def nextafter(x, y, /):
    """The next representable float after x in the direction of y."""
    return lax.nextafter(*promote_dtypes_inexact("nextafter", x, y))


def real(val, /):
    """The real part (a real array is returned as it is)."""
    val = _arg("real", val)
    return lax.real(val) if dtypes.is_complex(aval_of(val).dtype) else val


def imag(val, /):
    """The imaginary part (zeros for a real array)."""
    val = _arg("imag", val)
    if dtypes.is_complex(aval_of(val).dtype):
        return lax.imag(val)
    a = aval_of(val)
    return convert(_full_like(val, 0, a.dtype), a.dtype, a.weak_type)


def conjugate(x, /):
    """The complex conjugate (a real array is returned as it is)."""
    x = _arg("conjugate", x)
    return lax.conj(x) if dtypes.is_complex(aval_of(x).dtype) else x


conj = conjugate


def angle(z, deg=False):
    """The counterclockwise angle of complex numbers from the positive real axis (radians,
    or degrees with ``deg``)."""
    z = _arg("angle", z)
    re, im = real(z), imag(z)
    d = aval_of(re).dtype
    if not dtypes.is_inexact(d) or (dtypes.is_float(aval_of(z).dtype) and aval_of(z).ndim == 0):
        re, im = convert(re, dtypes.default_float()), convert(im, dtypes.default_float())
    out = lax.atan2(*promote_args("angle", im, re))
    if deg:
        out = lax.mul(out, convert(180.0 / np.pi, aval_of(out).dtype, aval_of(out).weak_type))
    return out


# ----------------------------------------------------------------------------- float bits


def _int_bits(x):
    """The bits of the float array x as the signed integer of its width."""
    d = np.dtype(aval_of(x).dtype)
    return lax.bitcast_convert_type(x, np.dtype(f"int{d.itemsize * 8}"))


def _pow2(k, d):
    """2.0 ** k (k an integer array, in d's normal exponent range) built from its bits."""
    fi = ml_dtypes.finfo(d)
    it = np.dtype(f"int{np.dtype(d).itemsize * 8}")
    field = lax.add(convert(k, it), convert(1 - int(fi.minexp), it))
    return lax.bitcast_convert_type(lax.shift_left(field, convert(int(fi.nmant), it)), d)


def signbit(x, /):
    """True where the sign bit of x is set (-0.0 and negative NaN included); x < 0 for
    integers, False for booleans."""
    (x,) = promote_args("signbit", x)
    d = aval_of(x).dtype
    if dtypes.is_bool(d):
        return _full_like(x, False, dtypes.bool_)
    if dtypes.is_int(d):
        return lax.lt(x, convert(0, d))
    if not dtypes.is_float(d):
        raise ValueError(f"jax.numpy.signbit is not well defined for {d}")
    return lax.lt(_int_bits(x), convert(0, np.dtype(f"int{np.dtype(d).itemsize * 8}")))


def copysign(x1, x2, /):
    """The magnitude of x1 with the sign bit of x2 (promoted to a float dtype)."""
    x1, x2 = promote_dtypes_inexact("copysign", x1, x2)
    if dtypes.is_complex(aval_of(x1).dtype):
        raise TypeError("copysign does not support complex-valued inputs")
    mag = lax.abs(x1)
    return _where3(signbit(x2), lax.neg(mag), mag)


def frexp(x, /):
    """(mantissa, exponent) with x == mantissa * 2 ** exponent, 0.5 <= |mantissa| < 1 and an
    int32 exponent; zeros, infinities and NaN give (x, 0). The mantissa is x scaled by a
    power of two, so its derivative is 2 ** -exponent (as JAX's)."""
    check_arraylike("frexp", x)
    (x,) = promote_dtypes_inexact("frexp", x)
    d = aval_of(x).dtype
    if dtypes.is_complex(d):
        raise TypeError("frexp does not support complex-valued inputs")
    fi = ml_dtypes.finfo(d)
    nmant, it = int(fi.nmant), np.dtype(f"int{np.dtype(d).itemsize * 8}")
    field_mask = convert(((1 << int(fi.nexp)) - 1) << nmant, it)
    # zeros by their bits (a float compare may treat subnormals as zero), and inf and NaN
    zero = lax.eq(lax.bitwise_and(_int_bits(x), convert(np.iinfo(it).max, it)), convert(0, it))
    special = lax.bitwise_or(zero, lax.bitwise_not(lax.is_finite(x)))
    # subnormals: scaled into the normal range first, the scale taken off the exponent
    sub = lax.lt(lax.abs(x), convert(float(fi.smallest_normal), d))
    xn = _int_bits(_where3(sub, lax.mul(x, convert(float(2.0 ** nmant), d)), x))
    field = lax.shift_right_logical(lax.bitwise_and(xn, field_mask), convert(nmant, it))
    e = add(subtract(field, convert(-int(fi.minexp), it)), _where3(sub, convert(-nmant, it), convert(0, it)))
    e = convert(_where3(special, convert(0, it), e), np.dtype(np.int32))
    # the mantissa is x * 2 ** -e, in two exact halves (2 ** -e alone can leave the normal
    # range); a subnormal x (which XLA's CPU backend may flush to zero in arithmetic) gets
    # its mantissa from the bits of the scaled x with the exponent field of 0.5, as JAX's
    half = lax.shift_right_arithmetic(lax.neg(e), convert(1, np.dtype(np.int32)))
    rest = lax.sub(lax.neg(e), half)
    scaled = lax.mul(lax.mul(x, _pow2(half, d)), _pow2(rest, d))
    from_bits = lax.bitcast_convert_type(
        lax.bitwise_or(lax.bitwise_and(xn, lax.bitwise_not(field_mask)),
                       convert((-int(fi.minexp)) << nmant, it)), d)
    return _where3(lax.bitwise_and(sub, lax.bitwise_not(special)), from_bits, scaled), e


def ldexp(x1, x2, /):
    """x1 * 2 ** x2 for an integer x2, without overflow in 2 ** x2 where the result is finite
    (as JAX's: through frexp of x1; zeros and infinities of x1 pass unchanged)."""
    check_arraylike("ldexp", x1, x2)
    x1, x2 = asarray(x1), asarray(x2)
    d1, d2 = aval_of(x1).dtype, aval_of(x2).dtype
    if dtypes.is_complex(d1) or dtypes.is_inexact(d2):
        raise ValueError(f"ldexp not supported for input types {(d1, d2)}")
    (x1,) = promote_dtypes_inexact("ldexp", x1)
    d = aval_of(x1).dtype
    m, e = frexp(x1)
    e = add(convert(e, d), convert(x2, d))
    # the exponent may exceed the largest by one with a finite result: move a factor 2 to m
    up = greater(e, convert(0, d))
    m = _where3(up, multiply(m, convert(2, d)), m)
    e = _where3(up, subtract(e, convert(1, d)), e)
    keep = logical_or(isinf(x1), equal(x1, convert(0, d)))
    return _where3(keep, x1, multiply(m, power(2, e)))
