"""frontend.scipy.special: scipy.special's functions (as jax.scipy.special) on the
special-function primitives: erf, erfc, erfinv, gammaln, digamma, polygamma, zeta,
gammainc, gammaincc, betainc, i0e, i1e, i0, i1, logsumexp, expit, logit, xlogy, xlog1py.
Operands are promoted to an inexact dtype and broadcast together.

>>> import numpy as np
>>> from frontend.scipy import special
>>> special.erf(np.float32(0.5))
Array(0.5204999, dtype=float32)
"""
from __future__ import annotations

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.ir import aval_of
from ..lax._convert import convert
from ..lax._ops import stop_gradient
from ..numpy import _reductions as red
from ..numpy._core import canonical_axes, check_arraylike, promote_dtypes_inexact
from ..numpy._elementwise import (
    absolute,
    add,
    exp,
    log,
    log1p,
    multiply,
    subtract,
    true_divide,
)
from ..numpy._numeric import isfinite, real
from ..numpy._shape import expand_dims
from ..numpy._sorting import where as _where
from ..transforms.custom_derivatives import custom_jvp

__all__ = ["erf", "erfc", "erfinv", "gammaln", "digamma", "polygamma", "zeta", "gammainc",
           "gammaincc", "betainc", "i0e", "i1e", "i0", "i1", "logsumexp", "expit", "logit",
           "xlogy", "xlog1py"]


def _fn(name, op):
    nargs = op.__code__.co_argcount  # (lax's elementwise functions name their operands)

    def fn(*args):
        if len(args) != nargs:
            raise TypeError(f"{name}() takes {nargs} positional argument{'s' * (nargs > 1)} "
                            f"but {len(args)} were given")
        check_arraylike(name, *args)
        return op(*promote_dtypes_inexact(name, *args))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"scipy.special.{name} (``lax.{op.__name__}``)."
    return fn


erf = _fn("erf", lax.erf)
erfc = _fn("erfc", lax.erfc)
erfinv = _fn("erfinv", lax.erf_inv)
gammaln = _fn("gammaln", lax.lgamma)
digamma = _fn("digamma", lax.digamma)
_polygamma = _fn("polygamma", lax.polygamma)


def polygamma(n, x):
    """The n-th derivative of the digamma function (integer n)."""
    check_arraylike("polygamma", n, x)
    d = aval_of(n).dtype
    if not dtypes.is_int(d):
        raise ValueError(f"Argument `n` to polygamma must be of integer type. Got dtype {d}.")
    return _polygamma(n, x)


zeta = _fn("zeta", lax.zeta)
gammainc = _fn("gammainc", lax.igamma)
gammaincc = _fn("gammaincc", lax.igammac)
betainc = _fn("betainc", lax.betainc)
i0e = _fn("i0e", lax.bessel_i0e)
i1e = _fn("i1e", lax.bessel_i1e)
expit = _fn("expit", lax.logistic)


def i0(x):
    """The modified Bessel function of order 0: exp(|x|) * i0e(x)."""
    e = i0e(x)
    return multiply(exp(absolute(convert(x, aval_of(e).dtype))), e)


def i1(x):
    """The modified Bessel function of order 1: exp(|x|) * i1e(x)."""
    e = i1e(x)
    return multiply(exp(absolute(convert(x, aval_of(e).dtype))), e)


@custom_jvp
def _logit(x):
    return log(true_divide(x, subtract(convert(1, aval_of(x).dtype, aval_of(x).weak_type), x)))


_logit.defjvps(lambda g, _ans, x: true_divide(g, multiply(x, subtract(1, x))))


def logit(x):
    """log(x / (1 - x)), the inverse of expit (JAX's derivative: g / (x (1 - x)))."""
    (x,) = promote_dtypes_inexact("logit", x)
    return _logit(x)


def _x_log(name, log_fn, shift):
    """x * log_fn(y), 0 where x is 0 (unless y is NaN), with JAX's custom derivative
    ``tx log_fn(y) + ty x / (y + shift)``, so both are defined where x = 0 (NaN or inf at
    the edge y + shift = 0, as JAX's)."""

    @custom_jvp
    def fn(x, y):
        zero = convert(0, aval_of(x).dtype)
        ok = lax.or_(lax.ne(x, zero), lax.ne(y, y))
        return _where(ok, multiply(x, log_fn(y)), zero)

    @fn.defjvp
    def _(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        d = y if shift == 0 else add(y, convert(shift, aval_of(y).dtype))
        return fn(x, y), add(multiply(tx, log_fn(y)), true_divide(multiply(ty, x), d))

    def public(x, y):
        x, y = promote_dtypes_inexact(name, x, y)
        return fn(x, y)

    public.__name__ = public.__qualname__ = name
    public.__doc__ = f"x * {log_fn.__name__}(y), 0 where x is 0 (unless y is NaN)."
    return public


xlogy = _x_log("xlogy", log, 0)
xlog1py = _x_log("xlog1py", log1p, 1)


def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False,
              where=None):  # noqa: A002
    """log(sum(b * exp(a))) over ``axis``, computed stably (the largest real part factored
    out, as a constant of differentiation); ``return_sign`` also gives the sign of the sum.
    Complex ``a``: the complex logarithm of the sum (JAX's; with ``return_sign``, log|sum|
    and sum / |sum|). (jax.nn.logsumexp is this function too.)"""
    if where is not None:
        a = _where(where, a, 0)
    if b is not None:
        a, b = promote_dtypes_inexact("logsumexp", a, b)
        a = _where(lax.ne(b, convert(0, aval_of(b).dtype)), a, -np.inf)
    else:
        check_arraylike("logsumexp", a)
        (a,) = promote_dtypes_inexact("logsumexp", a)
    aa = aval_of(a)
    dims = canonical_axes(axis, aa.ndim)
    pos = tuple(d for d in range(aa.ndim) if d in dims)
    amax = red.max(real(a), axis=dims, keepdims=keepdims, where=where, initial=-np.inf)
    amax = stop_gradient(_where(isfinite(amax), amax, 0))
    amax_dims = amax if keepdims else expand_dims(amax, pos)
    exp_a = exp(subtract(a, convert(amax_dims, aa.dtype)))
    if b is not None:
        exp_a = multiply(exp_a, b)
    sumexp = red.sum(exp_a, axis=dims, keepdims=keepdims, where=where)
    sign = lax.sign(sumexp)
    if return_sign or not dtypes.is_complex(aa.dtype):
        sumexp = absolute(sumexp)
    out = add(log(sumexp), convert(amax, aval_of(sumexp).dtype))
    if return_sign:
        return out, sign
    if b is not None and not dtypes.is_complex(aval_of(out).dtype):
        out = _where(lax.lt(sign, convert(0, aval_of(sign).dtype)), np.nan, out)
    return out
