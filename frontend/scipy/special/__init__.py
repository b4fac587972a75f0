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

import operator

import numpy as np

from ... import lax
from ...core import dtypes
from ...core.ir import aval_of
from ...lax._convert import convert
from ...lax._ops import stop_gradient
from ...numpy import _reductions as red
from ...numpy._core import asarray, canonical_axes, check_arraylike, promote_dtypes_inexact
from ...numpy._elementwise import (
    absolute,
    add,
    exp,
    log,
    log1p,
    multiply,
    subtract,
    true_divide,
)
from ...numpy._numeric import isfinite, real
from ...numpy._shape import expand_dims
from ...numpy._sorting import where as _where
from ...transforms.custom_derivatives import custom_jvp
from ._base import _inexact, _strong, bernoulli_numbers, gamma, gammasgn

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
        zero = convert(0, aval_of(x).dtype, aval_of(x).weak_type)
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


# ---- more of JAX's scipy.special, over the functions above and jax.numpy's --------------


def ndtr(x):
    """The standard normal CDF, ``erfc(-x / sqrt(2)) / 2``."""
    (x,) = _inexact("ndtr", x)
    return _strong(0.5 * lax.erfc(x * -np.sqrt(0.5).astype(np.float32).item()))


def ndtri(p):
    """The inverse of ndtr: ``sqrt(2) * erfinv(2 p - 1)``."""
    (p,) = _inexact("ndtri", p)
    return _strong(np.sqrt(2.0).item() * lax.erf_inv(2.0 * p - 1.0))


def _log_ndtr_lower(x, series_order: int):
    """log ndtr for very negative x: log of the normal density over -x times the asymptotic
    series 1 + sum_n (-1)^n (2n-1)!! / x^(2n)."""
    x2 = x * x
    log_scale = -0.5 * x2 - log(-x) - 0.5 * np.log(2 * np.pi).item()
    series, term, inv = 1.0, 1.0, 1.0 / x2
    for n in range(1, series_order + 1):
        term = term * -(2 * n - 1) * inv
        series = series + term
    return log_scale + log(series)


def log_ndtr(x, series_order: int = 3):
    """log(ndtr(x)), accurate in both tails (JAX's thresholds: float32 -10 and 5, float64
    -20 and 8; below the lower one an asymptotic series of ``series_order`` terms)."""
    if not isinstance(series_order, int) or series_order < 0:
        raise ValueError(f"series_order must be a non-negative integer, got {series_order}")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    (x,) = _inexact("log_ndtr", x)
    f64 = aval_of(x).dtype == np.float64
    lower, upper = (-20.0, 8.0) if f64 else (-10.0, 5.0)
    hi = -ndtr(-x)
    mid = log(ndtr(lax.max(x, convert(lower, aval_of(x).dtype, False))))
    lo = _log_ndtr_lower(lax.min(x, convert(lower, aval_of(x).dtype, False)), series_order)
    return _where(x > upper, hi, _where(x > lower, mid, lo))


def entr(x):
    """Elementwise entropy: ``-x log x`` for x > 0, 0 at 0, -inf below."""
    (x,) = _inexact("entr", x)
    safe = _where(x > 0, x, 1.0)
    return _where(x > 0, -safe * log(safe), _where(x == 0, 0.0, -np.inf))


def multigammaln(a, d):
    """The log of the multivariate gamma function of dimension ``d`` (a Python int)."""
    d = operator.index(d)
    (a,) = _inexact("multigammaln", a)
    out = d * (d - 1) / 4 * np.log(np.pi).item()
    return out + red.sum(lax.lgamma(expand_dims(a, -1) - 0.5 * np.arange(d, dtype=np.float32)
                                    .astype(aval_of(a).dtype)), axis=-1)


def betaln(a, b):
    """log |B(a, b)| = gammaln(a) + gammaln(b) - gammaln(a + b)."""
    a, b = _inexact("betaln", a, b)
    return lax.lgamma(a) + lax.lgamma(b) - lax.lgamma(a + b)


def beta(a, b):
    """The beta function B(a, b), with the gamma functions' signs."""
    a, b = _inexact("beta", a, b)
    return gammasgn(a) * gammasgn(b) * gammasgn(a + b) * exp(betaln(a, b))


def factorial(n, exact: bool = False):
    """n! as ``gamma(n + 1)`` (0 for negative n); ``exact=True`` is refused, as JAX's."""
    if exact:
        raise ValueError("factorial with exact=True")
    (n,) = _inexact("factorial", n)
    return _where(n < 0, 0.0, exp(lax.lgamma(n + 1)))


def poch(z, m):
    """The Pochhammer symbol (rising factorial) gamma(z + m) / gamma(z)."""
    z, m = _inexact("poch", z, m)
    return _where(m == 0, 1.0, gamma(z + m) / gamma(z))


def loggamma(x):
    """log gamma of a real x > 0 (NaN for negative x, as JAX's real loggamma)."""
    (x,) = _inexact("loggamma", x)
    return _where(x < 0, np.nan, lax.lgamma(x))


def rel_entr(p, q):
    """Relative entropy elementwise: p log(p/q) (0 where p = 0 <= q, inf otherwise)."""
    p, q = _inexact("rel_entr", p, q)
    both = (p > 0) & (q > 0)
    sp, sq = _where(both, p, 1.0), _where(both, q, 1.0)
    return _where(both, sp * log(sp / sq), _where((p == 0) & (q >= 0), 0.0, np.inf))


def kl_div(p, q):
    """Elementwise KL divergence: p log(p/q) - p + q (q where p = 0 <= q, inf otherwise)."""
    p, q = _inexact("kl_div", p, q)
    both = (p > 0) & (q > 0)
    sp, sq = _where(both, p, 1.0), _where(both, q, 1.0)
    return _where(both, sp * log(sp / sq) - sp + sq, _where((p == 0) & (q >= 0), q, np.inf))


def _boxcox(name, log_fn, x, lmbda):
    x, lmbda = _inexact(name, x, lmbda)
    lx = log_fn(x)
    safe = _where(lmbda == 0, 1.0, lmbda)
    return _where(lmbda == 0, lx, lax.expm1(safe * lx) / safe)


def boxcox(x, lmbda):
    """The Box-Cox transform: (x**lmbda - 1) / lmbda, log x at lmbda = 0."""
    return _boxcox("boxcox", log, x, lmbda)


def boxcox1p(x, lmbda):
    """boxcox of 1 + x (log1p at lmbda = 0)."""
    return _boxcox("boxcox1p", log1p, x, lmbda)


def _shifted(name, x, axis):
    (x,) = _inexact(name, x)
    return x - stop_gradient(red.max(x, axis=axis, keepdims=True))


def softmax(x, /, *, axis=None):
    """scipy.special.softmax: exp(x) normalized over ``axis`` (all axes when None)."""
    e = exp(_shifted("softmax", x, axis))
    return e / red.sum(e, axis=axis, keepdims=True)


def log_softmax(x, /, *, axis=None):
    """scipy.special.log_softmax: x minus its logsumexp over ``axis`` (all axes when None)."""
    s = _shifted("log_softmax", x, axis)
    return s - log(red.sum(exp(s), axis=axis, keepdims=True))


def comb(N, k, *, repetition: bool = False):
    """The binomial coefficient C(N, k) as exp(gammaln(...)) (0 outside 0 <= k <= N);
    with ``repetition``, combinations with repetition C(N + k - 1, k)."""
    N, k = _inexact("comb", N, k)
    if repetition:
        N = N + k - 1
    out = exp(lax.lgamma(N + 1) - lax.lgamma(k + 1) - lax.lgamma(N - k + 1))
    return _where((k < 0) | (k > N) | (N < 0), 0.0, out)


def bernoulli(n: int):
    """The Bernoulli numbers B_0 .. B_n (B_1 = -1/2) as a float32 array (``n`` static)."""
    n = operator.index(n)
    if n < 0:
        raise ValueError("n must be a non-negative integer.")
    out = bernoulli_numbers(n)
    return asarray(np.array([float(b) for b in out], np.float32))


__all__ += ["comb", "bernoulli", "ndtr", "ndtri", "log_ndtr", "entr", "multigammaln", "gammasgn", "gamma", "betaln",
            "beta", "factorial", "poch", "loggamma", "rel_entr", "kl_div", "boxcox", "boxcox1p",
            "softmax", "log_softmax"]


from ._errors import dawsn, erfcx, fresnel, wofz  # noqa: E402
from ._expint import exp1, expi, expn, sici, spence  # noqa: E402
from ._hyper import bessel_jn, hyp1f1, hyp2f1, owens_t  # noqa: E402
from ._sph import sph_harm_y  # noqa: E402

__all__ += ["dawsn", "erfcx", "fresnel", "wofz", "exp1", "expi", "expn", "sici", "spence",
            "hyp1f1", "hyp2f1", "owens_t", "bessel_jn", "sph_harm_y"]


def __getattr__(name):
    from ...core import jax_names
    raise jax_names.missing(__name__, name)
