"""JAX's numpy functions on the extra elementwise primitives: inverse trigonometric and
hyperbolic functions, exp2, cbrt, isfinite, nextafter, and the parts of complex numbers
(real, imag, conj/conjugate, angle)."""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..core import aval_of
from ..lax._convert import convert
from ..primitives import elementwise as ew
from ..primitives import numeric as nm
from ..primitives.shape import broadcast_in_dim_p
from ._core import asarray, check_arraylike, promote_args, promote_dtypes_inexact
from ._elementwise import _unary

__all__ = ["exp2", "cbrt", "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh", "arccosh",
           "arctanh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "isfinite",
           "nextafter", "real", "imag", "conj", "conjugate", "angle"]

exp2 = _unary("exp2", nm.exp2_p, True)
cbrt = _unary("cbrt", nm.cbrt_p, True)
arcsin = asin = _unary("arcsin", nm.asin_p, True)
arccos = acos = _unary("arccos", nm.acos_p, True)
arctan = atan = _unary("arctan", nm.atan_p, True)
sinh = _unary("sinh", nm.sinh_p, True)
cosh = _unary("cosh", nm.cosh_p, True)
arcsinh = asinh = _unary("arcsinh", nm.asinh_p, True)
arccosh = acosh = _unary("arccosh", nm.acosh_p, True)
arctanh = atanh = _unary("arctanh", nm.atanh_p, True)


def _arg(name, x):
    check_arraylike(name, x)
    return asarray(x)


def _full_like(x, value, dtype):
    a = aval_of(x)
    return broadcast_in_dim_p.bind(convert(value, dtype), shape=a.shape, broadcast_dimensions=())


def isfinite(x, /):
    """True where x is neither infinite nor NaN (always True for integers and booleans)."""
    x = _arg("isfinite", x)
    d = aval_of(x).dtype
    if dtypes.is_float(d):
        return nm.is_finite_p.bind(x)
    if dtypes.is_complex(d):
        return ew.and_p.bind(nm.is_finite_p.bind(nm.real_p.bind(x)),
                             nm.is_finite_p.bind(nm.imag_p.bind(x)))
    return _full_like(x, True, dtypes.bool_)


def nextafter(x, y, /):
    """The next representable float after x in the direction of y."""
    return nm.nextafter_p.bind(*promote_dtypes_inexact("nextafter", x, y))


def real(val, /):
    """The real part (a real array is returned as it is)."""
    val = _arg("real", val)
    return nm.real_p.bind(val) if dtypes.is_complex(aval_of(val).dtype) else val


def imag(val, /):
    """The imaginary part (zeros for a real array)."""
    val = _arg("imag", val)
    if dtypes.is_complex(aval_of(val).dtype):
        return nm.imag_p.bind(val)
    a = aval_of(val)
    return convert(_full_like(val, 0, a.dtype), a.dtype, a.weak_type)


def conjugate(x, /):
    """The complex conjugate (a real array is returned as it is)."""
    x = _arg("conjugate", x)
    return nm.conj_p.bind(x) if dtypes.is_complex(aval_of(x).dtype) else x


conj = conjugate


def angle(z, deg=False):
    """The counterclockwise angle of complex numbers from the positive real axis (radians,
    or degrees with ``deg``)."""
    z = _arg("angle", z)
    re, im = real(z), imag(z)
    d = aval_of(re).dtype
    if not dtypes.is_inexact(d) or (dtypes.is_float(aval_of(z).dtype) and aval_of(z).ndim == 0):
        re, im = convert(re, dtypes.default_float()), convert(im, dtypes.default_float())
    out = ew.atan2_p.bind(*promote_args("angle", im, re))
    if deg:
        out = ew.mul_p.bind(out, convert(180.0 / np.pi, aval_of(out).dtype, aval_of(out).weak_type))
    return out
