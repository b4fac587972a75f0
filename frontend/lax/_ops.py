"""Elementwise lax functions: one primitive each (operands must agree in dtype; Python
scalars take the typed operands' dtype)."""
from __future__ import annotations

import enum

import numpy as np

from ..core import dtypes
from ..core.ir import aval_of
from ..core.pytree import tree_map
from ..primitives import bits
from ..primitives import elementwise as ew
from ._convert import SCALAR_LIKE, convert, convert_element_type, lax_operands

# type -> isinstance(value, SCALAR_LIKE), filled as types are met: the common call (numpy's,
# once per traced operation: no Python scalar) costs one dict lookup per operand, not a
# failed isinstance (about 0.3 us on a tracer) nor lax_operands' lists
_IS_SCALAR: dict = {}


def _bind_operands(prim, args):
    for a in args:
        _IS_SCALAR[type(a)] = isinstance(a, SCALAR_LIKE)
    return prim.bind(*lax_operands(args))


def _wrap(prim, name: str, nargs: int):
    """lax.<name>: ``prim`` of ``nargs`` operands (named as JAX's lax names them)."""
    if nargs == 1:
        def fn(x):
            if _IS_SCALAR.get(type(x), True):
                return _bind_operands(prim, (x,))
            return prim.bind(x)
    elif nargs == 2:
        def fn(x, y):
            if _IS_SCALAR.get(type(x), True) or _IS_SCALAR.get(type(y), True):
                return _bind_operands(prim, (x, y))
            return prim.bind(x, y)
    else:  # betainc
        assert nargs == 3

        def fn(a, b, x):
            return _bind_operands(prim, (a, b, x))
    # (named in argument errors too: "add() missing 1 required positional argument: 'y'")
    fn.__code__ = fn.__code__.replace(co_name=name, co_qualname=name)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"lax.{name}: the elementwise ``{prim.name}`` primitive."
    return fn


neg = _wrap(ew.neg_p, "neg", 1)
abs = _wrap(ew.abs_p, "abs", 1)  # noqa: A001
sign = _wrap(ew.sign_p, "sign", 1)
exp = _wrap(ew.exp_p, "exp", 1)
log = _wrap(ew.log_p, "log", 1)
log1p = _wrap(ew.log1p_p, "log1p", 1)
expm1 = _wrap(ew.expm1_p, "expm1", 1)
tanh = _wrap(ew.tanh_p, "tanh", 1)
logistic = _wrap(ew.logistic_p, "logistic", 1)
sin = _wrap(ew.sin_p, "sin", 1)
cos = _wrap(ew.cos_p, "cos", 1)
tan = _wrap(ew.tan_p, "tan", 1)
sqrt = _wrap(ew.sqrt_p, "sqrt", 1)
rsqrt = _wrap(ew.rsqrt_p, "rsqrt", 1)
floor = _wrap(ew.floor_p, "floor", 1)
ceil = _wrap(ew.ceil_p, "ceil", 1)
_round_even = _wrap(ew.round_p, "round", 1)
not_ = bitwise_not = _wrap(ew.not_p, "not_", 1)

add = _wrap(ew.add_p, "add", 2)
sub = _wrap(ew.sub_p, "sub", 2)
_mul = _wrap(ew.mul_p, "mul", 2)


def mul(x, y, *, out_dtype=None):
    """lax.mul: the elementwise ``mul`` primitive; ``out_dtype`` (JAX 0.10's keyword) computes
    the product in that dtype, both operands converted to it first."""
    if out_dtype is None:
        return _mul(x, y)
    return _mul(convert_element_type(x, out_dtype), convert_element_type(y, out_dtype))
div = _wrap(ew.div_p, "div", 2)
rem = _wrap(ew.rem_p, "rem", 2)


class RoundingMethod(enum.IntEnum):
    """lax.RoundingMethod: how lax.round breaks ties (JAX's values)."""
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):  # noqa: A001
    """lax.round: to the nearest integer; ties away from zero (JAX's default) or to even.

    >>> import numpy as np
    >>> from frontend import lax
    >>> lax.round(np.float32([0.5, 2.5, -1.5]))
    Array([ 1.,  3., -2.], dtype=float32)
    """
    if RoundingMethod(int(rounding_method)) is RoundingMethod.TO_NEAREST_EVEN:
        return _round_even(x)
    (x,) = lax_operands((x,))
    s = sign(x)
    t = mul(s, floor(abs(x)))  # x truncated toward zero (exact)
    return select(eq(abs(sub(x, t)), 0.5), add(t, s), _round_even(x))


def pow(x, y):  # noqa: A001
    """lax.pow: ``x ** y`` elementwise; ``y`` has ``x``'s dtype, or (as in JAX) any integer
    dtype with an inexact ``x`` (converted to ``x``'s dtype, as JAX's lowering does).

    >>> import numpy as np
    >>> from frontend import lax
    >>> lax.pow(np.float32(2), np.int32(3))
    Array(8., dtype=float32)
    """
    (xd, _), (yd, yw) = dtypes.dtype_and_weak(x), dtypes.dtype_and_weak(y)
    if dtypes.is_inexact(xd) and yd.kind in "iu":  # each operand keeps its own dtype
        (x,), (y,) = lax_operands((x,)), lax_operands((y,))
        return ew.pow_p.bind(x, convert(y, aval_of(x).dtype, yw))
    x, y = lax_operands((x, y))
    return ew.pow_p.bind(x, y)


max = _wrap(ew.max_p, "max", 2)  # noqa: A001
min = _wrap(ew.min_p, "min", 2)  # noqa: A001
atan2 = _wrap(ew.atan2_p, "atan2", 2)
and_ = bitwise_and = _wrap(ew.and_p, "and_", 2)
or_ = bitwise_or = _wrap(ew.or_p, "or_", 2)
xor = bitwise_xor = _wrap(ew.xor_p, "xor", 2)
shift_left = _wrap(ew.shift_left_p, "shift_left", 2)
shift_right_arithmetic = _wrap(ew.shift_right_arithmetic_p, "shift_right_arithmetic", 2)
shift_right_logical = _wrap(ew.shift_right_logical_p, "shift_right_logical", 2)

eq = _wrap(ew.eq_p, "eq", 2)
ne = _wrap(ew.ne_p, "ne", 2)
lt = _wrap(ew.lt_p, "lt", 2)
le = _wrap(ew.le_p, "le", 2)
gt = _wrap(ew.gt_p, "gt", 2)
ge = _wrap(ew.ge_p, "ge", 2)


def stop_gradient(x):
    """x, with a zero derivative: differentiation treats it as a constant (every inexact leaf
    of a pytree; integer and boolean leaves have no derivative anyway).

    >>> import frontend as fe
    >>> from frontend import lax
    >>> fe.grad(lambda x: x * lax.stop_gradient(x))(3.0)
    Array(3., dtype=float32, weak_type=True)
    """
    def stop(v):
        if dtypes.is_inexact(dtypes.dtype_and_weak(v)[0]):
            return ew.stop_gradient_p.bind(v)
        return v
    return tree_map(stop, x)


def select(pred, on_true, on_false):
    """Choose on_true where pred else on_false (pred bool, same shape or rank 0)."""
    return ew.select_p.bind(pred, *lax_operands((on_true, on_false)))


population_count = _wrap(bits.population_count_p, "population_count", 1)


def bitcast_convert_type(operand, new_dtype):
    """lax.bitcast_convert_type: the bits of ``operand`` read as ``new_dtype``; a narrower
    dtype adds a trailing axis (float32 -> uint8: shape + (4,)), a wider one consumes it."""
    (x,) = lax_operands((operand,))
    return bits.bitcast_convert_type_p.bind(x, new_dtype=dtypes.canonicalize(np.dtype(new_dtype)))


def clamp(min, x, max):  # noqa: A002
    """lax.clamp: ``x`` limited to [min, max]; the bounds are rank 0 or of x's shape."""
    lo, x, hi = lax_operands((min, x, max))
    avals = [aval_of(v) for v in (lo, x, hi)]
    if len({a.dtype for a in avals}) > 1:
        raise TypeError("lax.clamp requires arguments to have the same dtypes, got "
                        + ", ".join(a.dtype.name for a in avals) + ".")
    for name, a in (("min", avals[0]), ("max", avals[2])):
        if a.shape and a.shape != avals[1].shape:
            raise TypeError(f"clamp requires {name}.shape == operand.shape or {name}.shape == "
                            f"(), got {name}.shape={a.shape}, operand.shape={avals[1].shape}.")
    return ew.min_p.bind(ew.max_p.bind(x, lo), hi)


def select_n(which, *cases):
    """lax.select_n: ``cases[which]`` elementwise; ``which`` is bool (at most two cases) or
    int32, rank 0 or of the cases' shape."""
    if not cases:
        raise ValueError("select_n() must have at least one case")
    cases = lax_operands(cases)
    which = lax_operands((which,))[0]
    w = aval_of(which)
    if not (dtypes.is_bool(w.dtype) or dtypes.is_int(w.dtype)):
        raise TypeError(f"select `which` must be boolean or integer type, got {w.dtype.name}.")
    if dtypes.is_bool(w.dtype) and len(cases) > 2:
        raise TypeError("select with boolean `which` cannot have > 2 cases.")
    c0 = aval_of(cases[0])
    for c in cases[1:]:
        if aval_of(c).dtype != c0.dtype:
            raise TypeError(f"lax.select requires arguments to have the same dtypes, got "
                            f"{c0.dtype.name}, {aval_of(c).dtype.name}.")
    if w.shape and w.shape != c0.shape:
        raise TypeError(f"select `which` must be scalar or have the same shape as cases, got "
                        f"`which` shape {w.shape} but case shape {c0.shape}.")
    if len(cases) == 1:
        return cases[0]
    if dtypes.is_bool(w.dtype):
        return ew.select_p.bind(which, cases[1], cases[0])

    def pick(lo, hi):  # cases[lo:hi] by a binary split on which
        if hi - lo == 1:
            return cases[lo]
        mid = (lo + hi) // 2
        return ew.select_p.bind(ew.lt_p.bind(which, convert(mid, w.dtype, w.weak_type)),
                                pick(lo, mid), pick(mid, hi))

    return pick(0, len(cases))
