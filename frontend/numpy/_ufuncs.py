"""More of JAX's numpy elementwise functions, composed of the elementwise ones: shifts,
bit counts, nan-ignoring maximum/minimum, gcd/lcm, heaviside, sinc, i0, modf, rint, trunc,
spacing, float_power, and the complex-number predicates."""
from __future__ import annotations

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.ir import aval_of
from ..lax._convert import convert
from ._core import (
    asarray,
    broadcast_shapes,
    broadcast_to_shape,
    promote_args,
    promote_dtypes_inexact,
)
from ._elementwise import (
    _like,
    _where3,
    abs,
    arctan2,
    ceil,
    floor,
    invert,
    isnan,
    logical_or,
    power,
    remainder,
)
from ._numeric import copysign, imag, nextafter

__all__ = ["atan2", "bitwise_invert", "pow", "left_shift", "right_shift", "bitwise_left_shift",
           "bitwise_right_shift", "bitwise_count", "fabs", "float_power", "fmax", "fmin", "gcd",
           "lcm", "heaviside", "i0", "modf", "rint", "trunc", "sinc", "spacing", "iscomplex",
           "isreal", "iscomplexobj", "isrealobj", "isscalar", "iterable", "euler_gamma"]

atan2 = arctan2
bitwise_invert = invert
pow = power  # noqa: A001
euler_gamma = float(np.euler_gamma)


def _int_args(name, x, y):
    """x and y promoted; booleans become int32 (numpy's shifts); anything else than an
    integer is a TypeError."""
    x, y = promote_args(name, x, y)
    d = aval_of(x).dtype
    if dtypes.is_bool(d):
        d = dtypes.to_numeric(d)
        x, y = convert(x, d, False), convert(y, d, False)
    if not dtypes.is_int(d):
        raise TypeError(f"{name} does not accept dtype {d.name}; it takes integer or boolean "
                        "arrays")
    return x, y, d


def left_shift(x, y, /):
    """x shifted left by y bits."""
    x, y, _ = _int_args("left_shift", x, y)
    return lax.shift_left(x, y)


def right_shift(x, y, /):
    """x shifted right by y bits (arithmetic for signed integers, logical for unsigned)."""
    x, y, d = _int_args("right_shift", x, y)
    return (lax.shift_right_logical if dtypes.is_unsigned(d) else lax.shift_right_arithmetic)(x, y)


bitwise_left_shift, bitwise_right_shift = left_shift, right_shift


def bitwise_count(x, /):
    """The number of 1 bits in |x| (uint8, as JAX's)."""
    (x,) = promote_args("bitwise_count", x)
    d = aval_of(x).dtype
    if dtypes.is_bool(d):
        return convert(x, np.dtype(np.uint8), False)
    if not dtypes.is_int(d):
        raise TypeError(f"bitwise_count does not accept dtype {d.name}; it takes integer or "
                        "boolean arrays")
    return convert(lax.population_count(abs(x)), np.dtype(np.uint8), False)


def fabs(x, /):
    """|x| as a float (numpy's ufunc: complex numbers are refused)."""
    (x,) = promote_dtypes_inexact("fabs", x)
    if dtypes.is_complex(aval_of(x).dtype):
        raise TypeError("ufunc 'fabs' does not support complex dtypes")
    return lax.abs(x)


def float_power(x, y, /):
    """x ** y computed in an inexact dtype."""
    return lax.pow(*promote_dtypes_inexact("float_power", x, y))


def _nan_ignoring(name, pick):
    def fn(x1, x2, /):
        x1, x2 = promote_args(name, x1, x2)
        return _where3(logical_or(pick(x1, x2), isnan(x2)), x1, x2)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise ``{name}``: where one operand is NaN, the other."
    return fn


fmax = _nan_ignoring("fmax", lambda a, b: lax.gt(a, b) if not dtypes.is_bool(aval_of(a).dtype)
                     else lax.bitwise_and(a, lax.bitwise_not(b)))
fmin = _nan_ignoring("fmin", lambda a, b: lax.lt(a, b) if not dtypes.is_bool(aval_of(a).dtype)
                     else lax.bitwise_and(b, lax.bitwise_not(a)))


def _int_operands(name, x1, x2):
    x1, x2 = promote_args(name, x1, x2)
    if not dtypes.is_int(aval_of(x1).dtype):
        raise ValueError(f"Arguments to jax.numpy.{name} must be integers.")
    weak = aval_of(x1).weak_type and aval_of(x2).weak_type
    d = aval_of(x1).dtype
    shp = broadcast_shapes(name, aval_of(x1).shape, aval_of(x2).shape)
    return (broadcast_to_shape(convert(x1, d, weak), shp),
            broadcast_to_shape(convert(x2, d, weak), shp))


def gcd(x1, x2, /):
    """The greatest common divisor of |x1| and |x2| (Euclid's algorithm in a while loop)."""
    x1, x2 = _int_operands("gcd", x1, x2)
    zero = _like(0, x1)

    def cond(ab):
        return lax.reduce_or(lax.ne(ab[1], zero), tuple(range(aval_of(ab[1]).ndim)))

    def body(ab):
        a, b = ab
        nz = lax.ne(b, zero)
        safe_b = lax.select(nz, b, _like(1, b))
        return (lax.select(nz, b, a), lax.select(nz, lax.rem(a, safe_b), zero))

    return lax.while_loop(cond, body, (abs(x1), abs(x2)))[0]


def lcm(x1, x2, /):
    """The least common multiple of |x1| and |x2| (0 where either is 0)."""
    x1, x2 = _int_operands("lcm", x1, x2)
    d = gcd(x1, x2)
    zero = _like(0, d)
    is0 = lax.eq(d, zero)
    return lax.select(is0, zero, abs(lax.mul(x1, lax.div(x2, lax.select(is0, _like(1, d), d)))))


def heaviside(x1, x2, /):
    """0 where x1 < 0, x2 where x1 == 0, 1 where x1 > 0."""
    x1, x2 = promote_dtypes_inexact("heaviside", x1, x2)
    zero, one = _like(0, x1), _like(1, x1)
    return _where3(lax.lt(x1, zero), zero, _where3(lax.gt(x1, zero), one, x2))


def i0(x, /):
    """The modified Bessel function of the first kind, order 0: exp(|x|) * i0e(|x|)."""
    (x,) = promote_dtypes_inexact("i0", x)
    d = aval_of(x).dtype
    if dtypes.is_complex(d):
        raise ValueError(f"Unsupported input type to jax.numpy.i0: {d.name}")
    x = lax.abs(x)
    return lax.mul(lax.exp(x), lax.bessel_i0e(x))


def trunc(x, /):
    """x rounded toward zero (integers and booleans as they are)."""
    (x,) = promote_args("trunc", x)
    if not dtypes.is_inexact(aval_of(x).dtype):
        return x
    return _where3(lax.lt(x, _like(0, x)), ceil(x), floor(x))


def modf(x, /, out=None):
    """(fractional part, integral part), both with x's sign."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.modf is not supported.")
    (x,) = promote_dtypes_inexact("modf", x)
    whole = trunc(x)
    return lax.sub(x, whole), whole


def rint(x, /):
    """x rounded to the nearest integer (half to even), as an inexact value."""
    (x,) = promote_dtypes_inexact("rint", x)
    if dtypes.is_complex(aval_of(x).dtype):
        return lax.complex(lax.round(lax.real(x)), lax.round(lax.imag(x)))
    return lax.round(x)  # (lax.round of this tree rounds half to even)


def sinc(x, /):
    """sin(pi x) / (pi x), 1 at 0."""
    (x,) = promote_dtypes_inexact("sinc", x)
    is0 = lax.eq(x, _like(0, x))
    safe = lax.mul(_like(np.pi, x), _where3(is0, _like(1, x), x))
    return _where3(is0, _like(1, x), lax.div(lax.sin(safe), safe))


def spacing(x, /):
    """The distance from x to the next float away from zero."""
    (x,) = promote_dtypes_inexact("spacing", x)
    d = aval_of(x).dtype
    if dtypes.is_complex(d):
        raise ValueError("jnp.spacing is not defined for complex inputs.")
    inf = copysign(convert(float("inf"), d), x)
    return lax.sub(nextafter(x, inf), x)


def _dtype_of(x):
    return dtypes.dtype_and_weak(x)[0] if not hasattr(x, "dtype") else np.dtype(x.dtype)


def iscomplexobj(x) -> bool:
    """Whether x has a complex dtype (whatever its values)."""
    if x is None:
        return False
    try:
        return dtypes.is_complex(_dtype_of(x))
    except (TypeError, ValueError):
        return dtypes.is_complex(np.asarray(x).dtype)


def isrealobj(x) -> bool:
    """Whether x has a dtype that is not complex."""
    return not iscomplexobj(x)


def iscomplex(x, /):
    """True where the imaginary part of x is nonzero."""
    i = imag(asarray(x))
    return lax.ne(i, _like(0, i))


def isreal(x, /):
    """True where the imaginary part of x is zero."""
    i = imag(asarray(x))
    return lax.eq(i, _like(0, i))


def isscalar(element) -> bool:
    """True for Python and numpy scalars and for 0-d arrays (JAX's rule)."""
    if hasattr(element, "__jax_array__"):
        element = element.__jax_array__()
    if hasattr(element, "ndim") and hasattr(element, "dtype"):
        return element.ndim == 0
    return bool(np.isscalar(element))


def iterable(y) -> bool:
    """Whether ``iter(y)`` works."""
    return bool(np.iterable(y))


del remainder
