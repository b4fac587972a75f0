"""JAX's numpy elementwise functions: promotion + broadcasting, then one primitive."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from .. import lax
from ..core import dtypes
from ..core.ir import aval_of
from ..device.fusion import eager_fused
from ..lax import _other
from ..lax._convert import convert
from ..lax._numeric import integer_pow
from ..transforms.custom_derivatives import custom_jvp as _custom_jvp
from ._core import (
    asarray,
    broadcast_shapes,
    broadcast_to_shape,
    check_arraylike,
    no_out,
    promote_args,
    promote_dtypes_inexact,
)


def _unary(name, op, inexact):
    def fn(x, /):
        (x,) = (promote_dtypes_inexact if inexact else promote_args)(name, x)
        return op(x)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise ``{name}`` (JAX's numpy semantics)."
    return eager_fused(1)(fn)


def _binary(name, op, inexact=False, bool_op=None):
    def fn(x, y, /):
        x, y = (promote_dtypes_inexact if inexact else promote_args)(name, x, y)
        if bool_op is not None and dtypes.is_bool(aval_of(x).dtype):
            return bool_op(x, y)  # numpy: add/multiply of booleans are or/and
        return op(x, y)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise ``{name}`` with numpy broadcasting and JAX's numpy promotion."
    return eager_fused(2)(fn)


negative = _unary("negative", lax.neg, False)
absolute = abs = _unary("absolute", lax.abs, False)
exp = _unary("exp", lax.exp, True)
log = _unary("log", lax.log, True)
log1p = _unary("log1p", lax.log1p, True)
expm1 = _unary("expm1", lax.expm1, True)
tanh = _unary("tanh", lax.tanh, True)
sin = _unary("sin", lax.sin, True)
cos = _unary("cos", lax.cos, True)
tan = _unary("tan", lax.tan, True)
sqrt = _unary("sqrt", lax.sqrt, True)


def sign(x, /):
    (x,) = promote_args("sign", x)
    if dtypes.is_bool(aval_of(x).dtype):
        return x
    return lax.sign(x)


def _float_or_int(name, op):
    def fn(x, /):
        (x,) = promote_args(name, x)
        if not dtypes.is_inexact(aval_of(x).dtype):
            return x  # floor/ceil/round of an integer array is the array
        return op(x)
    fn.__name__ = name
    return fn


floor = _float_or_int("floor", lax.floor)
ceil = _float_or_int("ceil", lax.ceil)


def round(a, decimals: int = 0, out=None):  # noqa: A001
    """Round half to even, as numpy."""
    no_out("jnp.round", out)
    (a,) = promote_args("round", a)
    if not dtypes.is_inexact(aval_of(a).dtype):
        return a
    even = lax.RoundingMethod.TO_NEAREST_EVEN
    if decimals == 0:
        return lax.round(a, even)
    f = 10.0 ** decimals
    return lax.round(a * f, even) / f


around = round


def logical_not(x, /):
    return lax.bitwise_not(convert(x, dtypes.bool_) if not _is_bool(x) else x)


def invert(x, /):
    (x,) = promote_args("invert", x)
    if not dtypes.is_int(aval_of(x).dtype) and not dtypes.is_bool(aval_of(x).dtype):
        raise TypeError(f"invert does not accept dtype {aval_of(x).dtype.name}; it takes "
                        "integer or boolean arrays")
    return lax.bitwise_not(x)


bitwise_not = invert


def _is_bool(x):
    return dtypes.is_bool(dtypes.dtype_and_weak(x)[0])


add = _binary("add", lax.add, bool_op=lax.bitwise_or)
subtract = _binary("subtract", lax.sub)
multiply = _binary("multiply", lax.mul, bool_op=lax.bitwise_and)
maximum = _binary("maximum", lax.max)
minimum = _binary("minimum", lax.min)
arctan2 = _binary("arctan2", lax.atan2, inexact=True)
power_float = _binary("power", lax.pow, inexact=True)
equal = _binary("equal", lax.eq)
not_equal = _binary("not_equal", lax.ne)
less = _binary("less", lax.lt)
less_equal = _binary("less_equal", lax.le)
greater = _binary("greater", lax.gt)
greater_equal = _binary("greater_equal", lax.ge)


def _bitwise(name, op):
    def fn(x, y, /):
        x, y = promote_args(name, x, y)
        d = aval_of(x).dtype
        if not (dtypes.is_int(d) or dtypes.is_bool(d)):
            raise TypeError(f"{name} does not accept dtype {d.name}; it takes integer or "
                            "boolean arrays")
        return op(x, y)
    fn.__name__ = name
    return fn


bitwise_and = _bitwise("bitwise_and", lax.bitwise_and)
bitwise_or = _bitwise("bitwise_or", lax.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", lax.bitwise_xor)


def _logical(name, op):
    def as_bool(v):
        # as JAX's numpy: bool operands count as strong; others become (x != 0), weak if x is
        return convert(v, dtypes.bool_, False if _is_bool(v) else aval_of(v).weak_type)

    def fn(x, y, /):
        return op(*promote_args(name, as_bool(x), as_bool(y)))
    fn.__name__ = name
    return fn


logical_and = _logical("logical_and", lax.bitwise_and)
logical_or = _logical("logical_or", lax.bitwise_or)
logical_xor = _logical("logical_xor", lax.bitwise_xor)


@eager_fused(2)
def true_divide(x, y, /):
    x, y = promote_dtypes_inexact("true_divide", x, y)
    return lax.div(x, y)


divide = true_divide


def _like(v, x):
    """The Python scalar v as a literal of x's dtype and weak type (as JAX's lax does)."""
    a = aval_of(x)
    return convert(v, a.dtype, a.weak_type)


def _divmod_args(name, x, y):
    """Operands of an integer-or-float division promoted as JAX's numpy does (booleans
    become int32)."""
    x, y = promote_args(name, x, y)
    d = aval_of(x).dtype
    if dtypes.is_bool(d):
        d = dtypes.to_numeric(d)
        x, y = convert(x, d, False), convert(y, d, False)
    return x, y, d


def floor_divide(x, y, /):
    """numpy floor division (rounds toward -inf), with JAX's numpy's results for a zero divisor
    (integers: the truncated quotient's; floats: x / 0, signed infinities and nan)."""
    x, y, d = _divmod_args("floor_divide", x, y)
    if dtypes.is_complex(d):
        raise TypeError("floor_divide does not support complex-valued inputs")
    if dtypes.is_unsigned(d):
        return lax.div(x, y)
    if dtypes.is_int(d):
        # truncated quotient, minus one where the signs differ and the division is inexact
        zero = _like(0, x)
        q = lax.div(x, y)
        fix = logical_and(not_equal(lax.sign(x), lax.sign(y)),
                          not_equal(lax.rem(x, y), zero))
        return lax.select(fix, lax.sub(q, _like(1, x)), q)
    return _float_divmod(x, y)[0]


def _float_divmod(x, y):
    """(floor quotient, remainder with the divisor's sign) of floats, exact at the edges:
    the quotient comes from (x - mod) / y, rounded; a zero divisor divides x itself (the
    remainder there is nan), so the quotient is x / 0 as numpy's."""
    zero = _like(0, x)
    mod = lax.rem(x, y)
    dividend = lax.select(equal(y, zero), x, lax.sub(x, mod))
    div = lax.div(dividend, y)
    ind = logical_and(not_equal(mod, zero), not_equal(lax.sign(y), lax.sign(mod)))
    mod = lax.select(ind, lax.add(mod, y), mod)
    div = lax.select(ind, lax.sub(div, _like(1, x)), div)
    return lax.round(div), mod


def remainder(x, y, /):
    """numpy remainder: the result takes the sign of the divisor (integer x % 0 is 0, as in
    JAX's numpy)."""
    x, y, d = _divmod_args("remainder", x, y)
    zero = _like(0, x)
    if dtypes.is_int(d):
        y = _nonzero_divisor(y)
    r = lax.rem(x, y)
    if dtypes.is_unsigned(d):
        return r
    fix = logical_and(not_equal(r, zero), not_equal(less(r, zero), less(y, zero)))
    return lax.select(fix, lax.add(r, y), r)


def _nonzero_divisor(y):
    """An integer divisor with its zeros replaced by one (x % 0 is 0, as in JAX's numpy)."""
    return lax.select(equal(y, _like(0, y)), _like(1, y), y)


def divmod(x, y, /):  # noqa: A001
    """(floor_divide(x, y), remainder(x, y)), the float pair computed once."""
    x, y, d = _divmod_args("divmod", x, y)
    if dtypes.is_int(d):
        return floor_divide(x, y), remainder(x, y)
    return _float_divmod(x, y)


def fmod(x, y, /):
    """C's fmod: the remainder of the truncated division, with the dividend's sign (integer
    x fmod 0 is 0, as in JAX's numpy)."""
    x, y, d = _divmod_args("fmod", x, y)
    if dtypes.is_int(d):
        y = _nonzero_divisor(y)
    return lax.rem(x, y)


mod = remainder


def power(x, y, /):
    """x ** y. Integer arrays raised to integer powers stay integer (as JAX's numpy)."""
    if type(y) is int or isinstance(y, np.integer):
        # a static integer exponent: lax.integer_pow of x (bool -> the default int, weak
        # type kept), as JAX's numpy does for a concrete integer power
        (x,) = promote_args("power", x)
        ax = aval_of(x)
        if dtypes.is_bool(ax.dtype):
            x = convert(x, dtypes.default_int(), ax.weak_type)
        return integer_pow(x, int(y))
    # (the dtypes without making arrays of scalars: a Python scalar stays a literal)
    check_arraylike("power", x, y)
    (dx, _), (dy, _) = dtypes.dtype_and_weak(x), dtypes.dtype_and_weak(y)
    if dtypes.is_inexact(dx) and dtypes._kind(dy) in "iu":
        # an inexact base, a traced integer power: JAX's pow of an integer exponent, whose
        # derivative in x is 0 where y == 0 (also at x = 0, where y * x ** (y - 1) is NaN)
        x, y = promote_args("power", x, y)
        return _pow_int_power(x, y)
    x, y = promote_args("power", x, y)
    d = aval_of(x).dtype
    if dtypes.is_inexact(d):
        return lax.pow(x, y)
    if dtypes.is_bool(d):  # numeric promotion: booleans count as the default int
        d = dtypes.to_numeric(d)
        x, y = convert(x, d, False), convert(y, d, False)
    # square-and-multiply over the low 6 bits of the exponent, as JAX's numpy (a larger
    # power overflows for any |x| > 1; a negative one is read as unsigned, bit by bit)
    zero, one = convert(0, d, False), convert(1, d, False)
    acc = lax.select(lax.bitwise_and(lax.eq(x, zero), lax.ne(y, zero)),
                     lax.mul(x, zero), lax.add(lax.mul(x, zero), one))
    base, e = x, y
    for _ in range(6):
        acc = lax.select(lax.eq(lax.bitwise_and(e, one), one), lax.mul(acc, base), acc)
        base = lax.mul(base, base)
        e = lax.shift_right_logical(e, one)
    return acc


@_custom_jvp
def _pow_int_power(x, y):
    # (y: an integer power, promoted to x's dtype)
    return lax.pow(x, y)


@_pow_int_power.defjvp
def _(primals, tangents):
    x, y = primals
    one, zero = convert(1, aval_of(y).dtype), convert(0, aval_of(y).dtype)
    is0 = lax.eq(y, zero)
    jac = lax.select(is0, zero, lax.mul(lax.select(is0, one, y),
                                                    lax.pow(x, lax.sub(y, one))))
    return _pow_int_power(x, y), lax.mul(tangents[0], jac)


def square(x, /):
    (x,) = promote_args("square", x)
    return lax.mul(x, x)


def reciprocal(x, /):
    (x,) = promote_dtypes_inexact("reciprocal", x)
    return lax.div(convert(1, aval_of(x).dtype, aval_of(x).weak_type), x)


@eager_fused(1)
def copy(a, order=None):
    """A copy of ``a`` (a new buffer when run eagerly; the same value under a trace)."""
    return asarray(a)


def positive(x, /):
    (x,) = promote_args("positive", x)
    return x


def clip(arr=None, /, min=None, max=None, *, a_min=None, a_max=None):  # noqa: A002
    """Values of ``arr`` limited to [min, max] (either bound may be None), as JAX's numpy
    spells it (``a_min``/``a_max``: numpy's older names, accepted too)."""
    if arr is None:
        raise ValueError("No input was provided to the clip function.")
    lo = min if a_min is None else a_min
    hi = max if a_max is None else a_max
    for v in (arr, lo, hi):
        if v is not None and dtypes.is_complex(dtypes.dtype_and_weak(v)[0]):
            raise ValueError("Clip received a complex value either through the input or the "
                             "min/max keywords. Complex values have no ordering and cannot be "
                             "clipped. Please convert to a real value or array by taking the "
                             "real or imaginary components via jax.numpy.real/imag "
                             "respectively.")
    if lo is not None:
        arr = maximum(lo, arr)
    if hi is not None:
        arr = minimum(hi, arr)
    return arr


def _where3(condition, x, y):
    """Elementwise choice between x and y by ``condition`` (numpy broadcasting, JAX's
    promotion): the three-argument ``where`` (frontend.numpy.where adds the others)."""
    c = condition if _is_bool(condition) else convert(condition, dtypes.bool_)
    x, y = promote_args("where", x, y, broadcast=False)
    shp = broadcast_shapes("where", aval_of(c).shape, aval_of(x).shape, aval_of(y).shape)
    if shp == ():
        return lax.select(c, x, y)
    c, x, y = (a if aval_of(a).shape in ((), shp) else broadcast_to_shape(a, shp) for a in (c, x, y))
    return lax.select(c, x, y)


def logistic(x, /):
    (x,) = promote_dtypes_inexact("logistic", x)
    return lax.logistic(x)


# ----------------------------------------------------------------------------- floating-point tests


def _full_bool(x, value: bool):
    """A bool array of x's shape filled with ``value``."""
    a = aval_of(x)
    return broadcast_to_shape(convert(value, dtypes.bool_), a.shape)


def isnan(x, /):
    (x,) = promote_args("isnan", x)
    if not dtypes.is_inexact(aval_of(x).dtype):
        return _full_bool(x, False)
    return lax.ne(x, x)


def isfinite(x, /):
    (x,) = promote_args("isfinite", x)
    if not dtypes.is_inexact(aval_of(x).dtype):
        return _full_bool(x, True)
    # x - x is 0 exactly when every component of x is finite
    d = aval_of(x).dtype
    return lax.eq(lax.sub(x, x), convert(0, d))


def _isinf_signed(name, sign):
    def fn(x, /, out=None):
        no_out("isneginf/isposinf", out)
        (x,) = promote_args(name, x)
        d = aval_of(x).dtype
        if not dtypes.is_float(d):
            if dtypes.is_complex(d):
                raise TypeError(f"{name} does not accept complex arrays")
            return _full_bool(x, False)
        return lax.eq(x, convert(sign * float("inf"), d))
    fn.__name__ = name
    return fn


isposinf = _isinf_signed("isposinf", 1)
isneginf = _isinf_signed("isneginf", -1)


def isinf(x, /):
    (x,) = promote_args("isinf", x)
    d = aval_of(x).dtype
    if not dtypes.is_inexact(d):
        return _full_bool(x, False)
    if dtypes.is_complex(d):  # a component is infinite: abs is inf and x - x is nan
        return logical_and(lax.eq(lax.abs(x), convert(float("inf"), np.finfo(d).dtype)),
                           logical_not(isfinite(x)))
    return lax.eq(lax.abs(x), convert(float("inf"), d))


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN -> ``nan``, +inf -> ``posinf`` (default: the largest finite value), -inf ->
    ``neginf`` (default: the most negative finite value)."""
    (x,) = promote_args("nan_to_num", x)
    d = aval_of(x).dtype
    if not dtypes.is_inexact(d):
        return x
    if dtypes.is_complex(d):  # each part on its own (JAX's)
        return lax.complex(*(nan_to_num(part(x), nan=nan, posinf=posinf, neginf=neginf)
                             for part in (lax.real, lax.imag)))
    info = ml_dtypes.finfo(d)
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf
    out = _where3(isnan(x), asarray(nan, dtype=d), x)
    out = _where3(isposinf(out), asarray(posinf, dtype=d), out)
    return _where3(isneginf(out), asarray(neginf, dtype=d), out)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol * |b| elementwise (infinities equal only to themselves)."""
    a, b = promote_dtypes_inexact("isclose", a, b)
    d = aval_of(a).dtype
    rd = np.finfo(d).dtype if dtypes.is_complex(d) else d
    rtol, atol = convert(rtol, rd), convert(atol, rd)
    in_range = lax.le(lax.abs(lax.sub(a, b)),
                      lax.add(atol, lax.mul(rtol, lax.abs(b))))
    out = logical_or(lax.eq(a, b), logical_and(isfinite(b), in_range))
    return logical_or(out, logical_and(isnan(a), isnan(b))) if equal_nan else out


# ----------------------------------------------------------------------------- more math


def _log_base(name, base):
    def fn(x, /):
        (x,) = promote_dtypes_inexact(name, x)
        d = aval_of(x).dtype
        return lax.div(lax.log(x), lax.log(convert(base, d)))
    fn.__name__ = name
    fn.__doc__ = f"Base-{base} logarithm: log(x) / log({base}), as JAX computes it."
    return eager_fused(1)(fn)


log2 = _log_base("log2", 2)
log10 = _log_base("log10", 10)


def _scale(name, factor):
    def fn(x, /):
        (x,) = promote_dtypes_inexact(name, x)
        a = aval_of(x)
        return lax.mul(x, convert(factor, a.dtype, a.weak_type))
    fn.__name__ = name
    return eager_fused(1)(fn)


deg2rad = radians = _scale("deg2rad", np.pi / 180)
rad2deg = degrees = _scale("rad2deg", 180 / np.pi)


def _log_add_exp(name, fn):
    def public(x1, x2, /):
        x1, x2 = promote_dtypes_inexact(name, x1, x2)
        return fn(x1, x2)

    public.__name__ = public.__qualname__ = name
    public.__doc__ = fn.__doc__
    return eager_fused(2)(public)


logaddexp = _log_add_exp("logaddexp", _other.logaddexp)
logaddexp2 = _log_add_exp("logaddexp2", _other.logaddexp2)


@eager_fused(2)
def hypot(x1, x2, /):
    """sqrt(x1**2 + x2**2) without overflow."""
    x1, x2 = promote_dtypes_inexact("hypot", x1, x2)
    d = aval_of(x1).dtype
    if dtypes.is_complex(d):
        raise ValueError("jnp.hypot is not well defined for complex-valued inputs. Please "
                         "convert to real values first, such as by using abs(x)")
    x1, x2 = lax.abs(x1), lax.abs(x2)
    inf = convert(float("inf"), d)
    idx_inf = logical_or(lax.eq(x1, inf), lax.eq(x2, inf))
    x1, x2 = maximum(x1, x2), minimum(x1, x2)
    zero = lax.eq(x1, convert(0, d))
    safe = _where3(zero, convert(1, d), x1)
    ratio = lax.div(x2, safe)
    x = _where3(zero, x1, lax.mul(x1, lax.sqrt(lax.add(convert(1, d),
                                                       lax.mul(ratio, ratio)))))
    return _where3(idx_inf, inf, x)
