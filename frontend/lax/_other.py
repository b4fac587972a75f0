"""lax-level functions that JAX defines over primitives with a custom derivative (JAX's
lax ``other`` module): logaddexp and logaddexp2, whose jvp is 1/2 per operand at a tie
and finite at infinities. frontend.numpy's logaddexp and lax.cumlogsumexp use them."""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.ir import aval_of
from ..primitives import elementwise as ew
from ..primitives import numeric as nm
from ..transforms.custom_derivatives import custom_jvp
from ._convert import convert


def _replace_inf(x):
    """x, with +inf (of the real part) replaced by 0: keeps exp(x - out) finite in the
    derivative of logaddexp where both are +inf."""
    d = aval_of(x).dtype
    re = nm.real_p.bind(x) if dtypes.is_complex(d) else x
    inf = convert(np.inf, aval_of(re).dtype)
    return ew.select_p.bind(ew.eq_p.bind(re, inf), convert(0, d), x)


def _log_add_exp(name, exp_p, base):
    """log_b(b**x1 + b**x2) without overflow (b = e or 2), with JAX's custom derivative
    ``t1 * b**(x1 - out) + t2 * b**(x2 - out)``: 1/2 each at a tie (softplus'(0) = 1/2),
    finite where operands are infinite."""

    def log_b_1p(d, u):  # log_b(1 + u)
        out = ew.log1p_p.bind(u)
        return out if base == np.e else ew.mul_p.bind(convert(1 / np.log(base), d), out)

    @custom_jvp
    def fn(x1, x2):
        amax = ew.max_p.bind(x1, x2)
        d = aval_of(x1).dtype
        if dtypes.is_complex(d):
            # (JAX's) amax + log_b(1 + b**(x1 + x2 - 2 amax)), its imaginary part wrapped
            # into [-pi / ln b, pi / ln b) (amax: the lexicographic maximum)
            delta = ew.sub_p.bind(ew.add_p.bind(x1, x2), ew.mul_p.bind(amax, convert(2, d)))
            out = ew.add_p.bind(amax, log_b_1p(d, exp_p.bind(delta)))
            im = nm.imag_p.bind(out)
            rd = aval_of(im).dtype
            half = np.pi / np.log(base)
            a, two_a = convert(half, rd), convert(2 * half, rd)
            rem = ew.rem_p.bind(ew.add_p.bind(im, a), two_a)
            rem = ew.select_p.bind(ew.lt_p.bind(rem, convert(0, rd)), ew.add_p.bind(rem, two_a), rem)
            return nm.complex_p.bind(nm.real_p.bind(out), ew.sub_p.bind(rem, a))
        delta = ew.sub_p.bind(x1, x2)
        soft = ew.add_p.bind(amax, log_b_1p(d, exp_p.bind(ew.neg_p.bind(ew.abs_p.bind(delta)))))
        # NaNs, or infinities of one sign: x1 + x2
        return ew.select_p.bind(ew.ne_p.bind(delta, delta), ew.add_p.bind(x1, x2), soft)

    @fn.defjvp
    def _(primals, tangents):
        (x1, x2), (t1, t2) = primals, tangents
        out = fn(x1, x2)
        r = _replace_inf(out)
        return out, ew.add_p.bind(
            ew.mul_p.bind(t1, exp_p.bind(ew.sub_p.bind(_replace_inf(x1), r))),
            ew.mul_p.bind(t2, exp_p.bind(ew.sub_p.bind(_replace_inf(x2), r))))

    b = "" if base == np.e else "2"
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"log{b}(exp{b}(x1) + exp{b}(x2)) without overflow."
    return fn


logaddexp = _log_add_exp("logaddexp", ew.exp_p, np.e)
logaddexp2 = _log_add_exp("logaddexp2", nm.exp2_p, 2)
