"""JAX's numpy elementwise functions: promotion + broadcasting, then one primitive."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from ..core import dtypes
from ..core.ir import aval_of
from ..device.fusion import eager_fused
from ..lax import _other
from ..lax._convert import convert
from ..lax._numeric import integer_pow
from ..primitives import elementwise as ew
from ..primitives import numeric as nm
from ..transforms.custom_derivatives import custom_jvp as _custom_jvp
from ._core import (
    asarray,
    broadcast_shapes,
    broadcast_to_shape,
    check_arraylike,
    promote_args,
    promote_dtypes_inexact,
)


def _unary(name, prim, inexact):
    def fn(x, /):
        (x,) = (promote_dtypes_inexact if inexact else promote_args)(name, x)
        return prim.bind(x)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise ``{name}`` (JAX's numpy semantics)."
    return eager_fused(1)(fn)


def _binary(name, prim, inexact=False, bool_prim=None):
    def fn(x, y, /):
        x, y = (promote_dtypes_inexact if inexact else promote_args)(name, x, y)
        if bool_prim is not None and dtypes.is_bool(aval_of(x).dtype):
            return bool_prim.bind(x, y)  # numpy: add/multiply of booleans are or/and
        return prim.bind(x, y)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise ``{name}`` with numpy broadcasting and JAX's numpy promotion."
    return eager_fused(2)(fn)


negative = _unary("negative", ew.neg_p, False)
absolute = abs = _unary("absolute", ew.abs_p, False)
exp = _unary("exp", ew.exp_p, True)
log = _unary("log", ew.log_p, True)
log1p = _unary("log1p", ew.log1p_p, True)
expm1 = _unary("expm1", ew.expm1_p, True)
tanh = _unary("tanh", ew.tanh_p, True)
sin = _unary("sin", ew.sin_p, True)
cos = _unary("cos", ew.cos_p, True)
tan = _unary("tan", ew.tan_p, True)
sqrt = _unary("sqrt", ew.sqrt_p, True)


def sign(x, /):
    (x,) = promote_args("sign", x)
    if dtypes.is_bool(aval_of(x).dtype):
        return x
    return ew.sign_p.bind(x)


def _float_or_int(name, prim):
    def fn(x, /):
        (x,) = promote_args(name, x)
        if not dtypes.is_inexact(aval_of(x).dtype):
            return x  # floor/ceil/round of an integer array is the array
        return prim.bind(x)
    fn.__name__ = name
    return fn


floor = _float_or_int("floor", ew.floor_p)
ceil = _float_or_int("ceil", ew.ceil_p)


def round(a, decimals: int = 0):  # noqa: A001
    """Round half to even, as numpy."""
    (a,) = promote_args("round", a)
    if not dtypes.is_inexact(aval_of(a).dtype):
        return a
    if decimals == 0:
        return ew.round_p.bind(a)
    f = 10.0 ** decimals
    return ew.round_p.bind(a * f) / f


around = round


def logical_not(x, /):
    return ew.not_p.bind(convert(x, dtypes.bool_) if not _is_bool(x) else x)


def invert(x, /):
    (x,) = promote_args("invert", x)
    if not dtypes.is_int(aval_of(x).dtype) and not dtypes.is_bool(aval_of(x).dtype):
        raise TypeError(f"invert does not accept dtype {aval_of(x).dtype.name}; it takes "
                        "integer or boolean arrays")
    return ew.not_p.bind(x)


bitwise_not = invert


def _is_bool(x):
    return dtypes.is_bool(dtypes.dtype_and_weak(x)[0])


add = _binary("add", ew.add_p, bool_prim=ew.or_p)
subtract = _binary("subtract", ew.sub_p)
multiply = _binary("multiply", ew.mul_p, bool_prim=ew.and_p)
maximum = _binary("maximum", ew.max_p)
minimum = _binary("minimum", ew.min_p)
arctan2 = _binary("arctan2", ew.atan2_p, inexact=True)
power_float = _binary("power", ew.pow_p, inexact=True)
equal = _binary("equal", ew.eq_p)
not_equal = _binary("not_equal", ew.ne_p)
less = _binary("less", ew.lt_p)
less_equal = _binary("less_equal", ew.le_p)
greater = _binary("greater", ew.gt_p)
greater_equal = _binary("greater_equal", ew.ge_p)


def _bitwise(name, prim):
    def fn(x, y, /):
        x, y = promote_args(name, x, y)
        d = aval_of(x).dtype
        if not (dtypes.is_int(d) or dtypes.is_bool(d)):
            raise TypeError(f"{name} does not accept dtype {d.name}; it takes integer or "
                            "boolean arrays")
        return prim.bind(x, y)
    fn.__name__ = name
    return fn


bitwise_and = _bitwise("bitwise_and", ew.and_p)
bitwise_or = _bitwise("bitwise_or", ew.or_p)
bitwise_xor = _bitwise("bitwise_xor", ew.xor_p)


def _logical(name, prim):
    def as_bool(v):
        # as JAX's numpy: bool operands count as strong; others become (x != 0), weak if x is
        return convert(v, dtypes.bool_, False if _is_bool(v) else aval_of(v).weak_type)

    def fn(x, y, /):
        return prim.bind(*promote_args(name, as_bool(x), as_bool(y)))
    fn.__name__ = name
    return fn


logical_and = _logical("logical_and", ew.and_p)
logical_or = _logical("logical_or", ew.or_p)
logical_xor = _logical("logical_xor", ew.xor_p)


@eager_fused(2)
def true_divide(x, y, /):
    x, y = promote_dtypes_inexact("true_divide", x, y)
    return ew.div_p.bind(x, y)


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
        return ew.div_p.bind(x, y)
    if dtypes.is_int(d):
        # truncated quotient, minus one where the signs differ and the division is inexact
        zero = _like(0, x)
        q = ew.div_p.bind(x, y)
        fix = logical_and(not_equal(ew.sign_p.bind(x), ew.sign_p.bind(y)),
                          not_equal(ew.rem_p.bind(x, y), zero))
        return ew.select_p.bind(fix, ew.sub_p.bind(q, _like(1, x)), q)
    return _float_divmod(x, y)[0]


def _float_divmod(x, y):
    """(floor quotient, remainder with the divisor's sign) of floats, exact at the edges:
    the quotient comes from (x - mod) / y, rounded; a zero divisor divides x itself (the
    remainder there is nan), so the quotient is x / 0 as numpy's."""
    zero = _like(0, x)
    mod = ew.rem_p.bind(x, y)
    dividend = ew.select_p.bind(equal(y, zero), x, ew.sub_p.bind(x, mod))
    div = ew.div_p.bind(dividend, y)
    ind = logical_and(not_equal(mod, zero), not_equal(ew.sign_p.bind(y), ew.sign_p.bind(mod)))
    mod = ew.select_p.bind(ind, ew.add_p.bind(mod, y), mod)
    div = ew.select_p.bind(ind, ew.sub_p.bind(div, _like(1, x)), div)
    return ew.round_p.bind(div), mod


def remainder(x, y, /):
    """numpy remainder: the result takes the sign of the divisor (integer x % 0 is 0, as in
    JAX's numpy)."""
    x, y, d = _divmod_args("remainder", x, y)
    zero = _like(0, x)
    if dtypes.is_int(d):
        y = _nonzero_divisor(y)
    r = ew.rem_p.bind(x, y)
    if dtypes.is_unsigned(d):
        return r
    fix = logical_and(not_equal(r, zero), not_equal(less(r, zero), less(y, zero)))
    return ew.select_p.bind(fix, ew.add_p.bind(r, y), r)


def _nonzero_divisor(y):
    """An integer divisor with its zeros replaced by one (x % 0 is 0, as in JAX's numpy)."""
    return ew.select_p.bind(equal(y, _like(0, y)), _like(1, y), y)


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
    return ew.rem_p.bind(x, y)


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
        return ew.pow_p.bind(x, y)
    if dtypes.is_bool(d):
        raise TypeError("power does not accept boolean arrays")
    # square-and-multiply over the bits of the exponent
    one = convert(1, d, False)  # (general integer path: strong result, as JAX's numpy)
    acc = ew.add_p.bind(ew.mul_p.bind(x, convert(0, d, False)), one)  # ones of x's shape
    base, e = x, y
    for _ in range(d.itemsize * 8 - 1):
        bit_set = ew.eq_p.bind(ew.and_p.bind(e, one), one)
        acc = ew.select_p.bind(bit_set, ew.mul_p.bind(acc, base), acc)
        base = ew.mul_p.bind(base, base)
        e = ew.div_p.bind(e, convert(2, d, False))
    return acc


@_custom_jvp
def _pow_int_power(x, y):
    # (y: an integer power, promoted to x's dtype)
    return ew.pow_p.bind(x, y)


@_pow_int_power.defjvp
def _(primals, tangents):
    x, y = primals
    one, zero = convert(1, aval_of(y).dtype), convert(0, aval_of(y).dtype)
    is0 = ew.eq_p.bind(y, zero)
    jac = ew.select_p.bind(is0, zero, ew.mul_p.bind(ew.select_p.bind(is0, one, y),
                                                    ew.pow_p.bind(x, ew.sub_p.bind(y, one))))
    return _pow_int_power(x, y), ew.mul_p.bind(tangents[0], jac)


def square(x, /):
    (x,) = promote_args("square", x)
    return ew.mul_p.bind(x, x)


def reciprocal(x, /):
    (x,) = promote_dtypes_inexact("reciprocal", x)
    return ew.div_p.bind(convert(1, aval_of(x).dtype, aval_of(x).weak_type), x)


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
        return ew.select_p.bind(c, x, y)
    c, x, y = (a if aval_of(a).shape in ((), shp) else broadcast_to_shape(a, shp) for a in (c, x, y))
    return ew.select_p.bind(c, x, y)


def logistic(x, /):
    (x,) = promote_dtypes_inexact("logistic", x)
    return ew.logistic_p.bind(x)


# ----------------------------------------------------------------------------- floating-point tests


def _full_bool(x, value: bool):
    """A bool array of x's shape filled with ``value``."""
    a = aval_of(x)
    return broadcast_to_shape(convert(value, dtypes.bool_), a.shape)


def isnan(x, /):
    (x,) = promote_args("isnan", x)
    if not dtypes.is_inexact(aval_of(x).dtype):
        return _full_bool(x, False)
    return ew.ne_p.bind(x, x)


def isfinite(x, /):
    (x,) = promote_args("isfinite", x)
    if not dtypes.is_inexact(aval_of(x).dtype):
        return _full_bool(x, True)
    # x - x is 0 exactly when every component of x is finite
    d = aval_of(x).dtype
    return ew.eq_p.bind(ew.sub_p.bind(x, x), convert(0, d))


def _isinf_signed(name, sign):
    def fn(x, /):
        (x,) = promote_args(name, x)
        d = aval_of(x).dtype
        if not dtypes.is_float(d):
            if dtypes.is_complex(d):
                raise TypeError(f"{name} does not accept complex arrays")
            return _full_bool(x, False)
        return ew.eq_p.bind(x, convert(sign * float("inf"), d))
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
        return logical_and(ew.eq_p.bind(ew.abs_p.bind(x), convert(float("inf"), np.finfo(d).dtype)),
                           logical_not(isfinite(x)))
    return ew.eq_p.bind(ew.abs_p.bind(x), convert(float("inf"), d))


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN -> ``nan``, +inf -> ``posinf`` (default: the largest finite value), -inf ->
    ``neginf`` (default: the most negative finite value)."""
    (x,) = promote_args("nan_to_num", x)
    d = aval_of(x).dtype
    if not dtypes.is_inexact(d):
        return x
    if dtypes.is_complex(d):  # each part on its own (JAX's)
        return nm.complex_p.bind(*(nan_to_num(p.bind(x), nan=nan, posinf=posinf, neginf=neginf)
                                   for p in (nm.real_p, nm.imag_p)))
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
    in_range = ew.le_p.bind(ew.abs_p.bind(ew.sub_p.bind(a, b)),
                            ew.add_p.bind(atol, ew.mul_p.bind(rtol, ew.abs_p.bind(b))))
    out = logical_or(ew.eq_p.bind(a, b), logical_and(isfinite(b), in_range))
    return logical_or(out, logical_and(isnan(a), isnan(b))) if equal_nan else out


# ----------------------------------------------------------------------------- more math


def _log_base(name, base):
    def fn(x, /):
        (x,) = promote_dtypes_inexact(name, x)
        d = aval_of(x).dtype
        return ew.div_p.bind(ew.log_p.bind(x), ew.log_p.bind(convert(base, d)))
    fn.__name__ = name
    fn.__doc__ = f"Base-{base} logarithm: log(x) / log({base}), as JAX computes it."
    return eager_fused(1)(fn)


log2 = _log_base("log2", 2)
log10 = _log_base("log10", 10)


def _scale(name, factor):
    def fn(x, /):
        (x,) = promote_dtypes_inexact(name, x)
        a = aval_of(x)
        return ew.mul_p.bind(x, convert(factor, a.dtype, a.weak_type))
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
    x1, x2 = ew.abs_p.bind(x1), ew.abs_p.bind(x2)
    inf = convert(float("inf"), d)
    idx_inf = logical_or(ew.eq_p.bind(x1, inf), ew.eq_p.bind(x2, inf))
    x1, x2 = maximum(x1, x2), minimum(x1, x2)
    zero = ew.eq_p.bind(x1, convert(0, d))
    safe = _where3(zero, convert(1, d), x1)
    ratio = ew.div_p.bind(x2, safe)
    x = _where3(zero, x1, ew.mul_p.bind(x1, ew.sqrt_p.bind(ew.add_p.bind(convert(1, d),
                                                                     ew.mul_p.bind(ratio, ratio)))))
    return _where3(idx_inf, inf, x)
