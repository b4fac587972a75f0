"""Elementwise lax functions: one primitive each (operands must agree in dtype; Python
scalars take the typed operands' dtype)."""
from __future__ import annotations

from .. import dtypes
from ..primitives import elementwise as ew
from ..tree import tree_map
from ._convert import lax_operands


def _wrap(prim, name: str):
    def fn(*args):
        return prim.bind(*lax_operands(args))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"lax.{name}: the elementwise ``{prim.name}`` primitive."
    return fn


neg = _wrap(ew.neg_p, "neg")
abs = _wrap(ew.abs_p, "abs")  # noqa: A001
sign = _wrap(ew.sign_p, "sign")
exp = _wrap(ew.exp_p, "exp")
log = _wrap(ew.log_p, "log")
log1p = _wrap(ew.log1p_p, "log1p")
expm1 = _wrap(ew.expm1_p, "expm1")
tanh = _wrap(ew.tanh_p, "tanh")
logistic = _wrap(ew.logistic_p, "logistic")
sin = _wrap(ew.sin_p, "sin")
cos = _wrap(ew.cos_p, "cos")
tan = _wrap(ew.tan_p, "tan")
sqrt = _wrap(ew.sqrt_p, "sqrt")
rsqrt = _wrap(ew.rsqrt_p, "rsqrt")
floor = _wrap(ew.floor_p, "floor")
ceil = _wrap(ew.ceil_p, "ceil")
round = _wrap(ew.round_p, "round")  # noqa: A001
not_ = bitwise_not = _wrap(ew.not_p, "not_")

add = _wrap(ew.add_p, "add")
sub = _wrap(ew.sub_p, "sub")
mul = _wrap(ew.mul_p, "mul")
div = _wrap(ew.div_p, "div")
rem = _wrap(ew.rem_p, "rem")
pow = _wrap(ew.pow_p, "pow")  # noqa: A001
max = _wrap(ew.max_p, "max")  # noqa: A001
min = _wrap(ew.min_p, "min")  # noqa: A001
atan2 = _wrap(ew.atan2_p, "atan2")
and_ = bitwise_and = _wrap(ew.and_p, "and_")
or_ = bitwise_or = _wrap(ew.or_p, "or_")
xor = bitwise_xor = _wrap(ew.xor_p, "xor")
shift_left = _wrap(ew.shift_left_p, "shift_left")
shift_right_arithmetic = _wrap(ew.shift_right_arithmetic_p, "shift_right_arithmetic")
shift_right_logical = _wrap(ew.shift_right_logical_p, "shift_right_logical")

eq = _wrap(ew.eq_p, "eq")
ne = _wrap(ew.ne_p, "ne")
lt = _wrap(ew.lt_p, "lt")
le = _wrap(ew.le_p, "le")
gt = _wrap(ew.gt_p, "gt")
ge = _wrap(ew.ge_p, "ge")


def stop_gradient(x):
    """x, with a zero derivative: differentiation treats it as a constant (every inexact leaf
    of a pytree; integer and boolean leaves have no derivative anyway).

    >>> grad(lambda x: x * stop_gradient(x))(3.0)
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
