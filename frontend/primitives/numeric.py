"""More elementwise primitives, rows of the elementwise families (``unary``/``nary``, so
their batching rules are the family's: the batch axis stays, or JAX's broadcasting rule):

- inverse trigonometric and hyperbolic functions, exp2, cbrt, square, integer_pow;
- complex numbers: real, imag (complex -> its real dtype), conj (real or complex ->
  complex), complex (two reals -> complex);
- float and integer bits: is_finite, nextafter, clz (count leading zeros), mulhi (the
  high half of the double-width product), reduce_precision.

Beside each row its jvp rule (JAX's formulas); real, imag, conj, complex and
reduce_precision are linear and have transpose rules.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.ir import Aval, Primitive, aval_of
from ..interpreters.ad_util import Zero, is_undefined_primal, tangent_aval
from .elementwise import (
    FLOAT,
    INEXACT,
    INT,
    NUMBER,
    _add,
    _c,
    _div,
    _mul,
    _neg,
    _replace_zero,
    _sub,
    abs_p,
    broadcast_shapes_nary,
    check_dtype,
    convert_element_type_p,
    div_p,
    ge_p,
    jvp_by_operand,
    nary,
    rsqrt_p,
    same_axis_batch,
    select_p,
    unary,
    unbroadcast,
    vectorized_batch,
)
from .shape import linear_jvp, zero_jvp, zeros_like_aval

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


# ----------------------------------------------------------------------------- autodiff


def _one_minus_sq(x):
    return _sub(_c(x, 1), _mul(x, x))


exp2_p.def_jvp(jvp_by_operand(exp2_p, lambda g, ans, x: _mul(_c(x, np.log(2)), _mul(g, ans)),
                              with_result=True))
cbrt_p.def_jvp(jvp_by_operand(
    cbrt_p, lambda g, ans, x: _mul(g, _mul(_c(x, 1 / 3), integer_pow_p.bind(ans, y=-2))),
    with_result=True))
asin_p.def_jvp(jvp_by_operand(asin_p, lambda g, x: _mul(g, rsqrt_p.bind(_one_minus_sq(x)))))
acos_p.def_jvp(jvp_by_operand(acos_p, lambda g, x: _neg(_mul(g, rsqrt_p.bind(_one_minus_sq(x))))))
atan_p.def_jvp(jvp_by_operand(atan_p, lambda g, x: _div(g, _add(_c(x, 1), _mul(x, x)))))
sinh_p.def_jvp(jvp_by_operand(sinh_p, lambda g, x: _mul(g, cosh_p.bind(x))))
cosh_p.def_jvp(jvp_by_operand(cosh_p, lambda g, x: _mul(g, sinh_p.bind(x))))
asinh_p.def_jvp(jvp_by_operand(asinh_p, lambda g, x: _mul(g, rsqrt_p.bind(_add(_mul(x, x), _c(x, 1))))))
acosh_p.def_jvp(jvp_by_operand(acosh_p, lambda g, x: _mul(g, rsqrt_p.bind(_sub(_mul(x, x), _c(x, 1))))))
atanh_p.def_jvp(jvp_by_operand(
    atanh_p, lambda g, x: _mul(_div(_c(x, 1), _add(_c(x, 1), x)), _div(g, _sub(_c(x, 1), x)))))
square_p.def_jvp(jvp_by_operand(square_p, lambda g, x: _mul(g, _mul(_c(x, 2), x))))
for _p in (clz_p, mulhi_p, is_finite_p):
    _p.def_jvp(zero_jvp(_p))
# nextafter(x, y) is x moved by one ulp towards y: slope 1 in x, 0 in y
nextafter_p.def_jvp(jvp_by_operand(nextafter_p, lambda g, x, y: g, None))


@integer_pow_p.def_jvp
def _integer_pow_jvp(primals, tangents, *, y):
    (x,), (g,) = primals, tangents
    out = integer_pow_p.bind(x, y=y)
    if y == 0:  # (JAX's: zeros, not g * 0, which is NaN where g is infinite)
        return out, Zero(tangent_aval(aval_of(out)))
    if y == 1:
        return out, g
    return out, _mul(g, _mul(_c(x, y), x if y == 2 else integer_pow_p.bind(x, y=y - 1)))


# d(x / y) = g / y - g x y**-2: integer_pow, not y * y, whose jvps square the denominator
# again at each order (the 6th derivative of 1 / x at 4 overflowed float32 to NaN)
div_p.def_jvp(jvp_by_operand(div_p, lambda g, x, y: _div(g, y),
                             lambda g, x, y: _mul(_mul(_neg(g), x), integer_pow_p.bind(y, y=-2))))

reduce_precision_p.def_jvp(linear_jvp(reduce_precision_p))
reduce_precision_p.def_transpose(lambda ct, x, **params: [reduce_precision_p.bind(ct, **params)])


def _zeros_like(ct):
    a = aval_of(ct)
    return zeros_like_aval(Aval(a.shape, a.dtype))


for _p in (real_p, imag_p, conj_p, complex_p):
    _p.def_jvp(linear_jvp(_p))


def _abs_jvp(g, ans, x):
    # (JAX's) real: the sign picks the tangent; complex: re(g conj(x) / |x|), 0 / 0 as 0 / 1
    dt = aval_of(x).dtype
    if not dtypes.is_complex(dt):
        return select_p.bind(ge_p.bind(x, _c(x, 0)), g, _neg(g))
    ans_c = convert_element_type_p.bind(ans, new_dtype=dt, weak_type=aval_of(ans).weak_type)
    return real_p.bind(_mul(g, _div(conj_p.bind(x), _replace_zero(ans_c))))


abs_p.def_jvp(jvp_by_operand(abs_p, _abs_jvp, with_result=True))


@real_p.def_transpose
def _real_transpose(ct, x):
    return [complex_p.bind(ct, _zeros_like(ct))]


@imag_p.def_transpose
def _imag_transpose(ct, x):
    return [complex_p.bind(_zeros_like(ct), _neg(ct))]


@conj_p.def_transpose
def _conj_transpose(ct, x):
    # a complex operand: conj of the cotangent; a real one: its real part
    return [conj_p.bind(ct) if dtypes.is_complex(x.aval.dtype) else real_p.bind(ct)]


@complex_p.def_transpose
def _complex_transpose(ct, x, y):
    # an operand broadcast into the result (rank 0 or size-1 dims) sums its cotangent back
    return [unbroadcast(real_p.bind(ct), x.aval) if is_undefined_primal(x) else None,
            unbroadcast(imag_p.bind(_neg(ct)), y.aval) if is_undefined_primal(y) else None]

