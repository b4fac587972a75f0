"""Lowering rules of the special functions without a CHLO op: algorithms written with
frontend.numpy and lax (traced by ``ctx.lower_fun`` and inlined), each converging to the
dtype's precision:

- igamma / igammac (regularized incomplete gamma P and Q): the continued fraction of Q
  (evaluated by the modified Lentz method) where x >= 1 and x > a, else the power series
  of P; the other one as the complement. igamma_grad_a (dP/da): the same iterations, each
  quantity carried with its derivative in a.
- regularized_incomplete_beta: its continued fraction (modified Lentz), on the side of the
  symmetry I_x(a, b) = 1 - I_(1-x)(b, a) where it converges fast.
- bessel_i0e: the power series of I0 times exp(-|x|) for small |x|, the asymptotic series
  for large |x|.

Half-precision operands are computed in float32 (as JAX does). Loops are ``while_loop``s
over the whole array that stop once every element has converged (or at an iteration cap).
"""
from __future__ import annotations

import numpy as np

import frontend.numpy as fnp
from frontend import lax
from frontend.primitives import special as sp

_MAX_ITERS = {np.dtype(np.float32): 2000, np.dtype(np.float64): 4000}


def _compute_dtype(x):
    d = np.dtype(x.dtype)
    return d if d in (np.float32, np.float64) else np.dtype(np.float32)


def _upcast(fn):
    """fn on float32 copies of half-precision operands, the result cast back."""

    def run(*args):
        d = np.dtype(args[0].dtype)
        c = _compute_dtype(args[0])
        out = fn(*[a.astype(c) for a in args])
        return out.astype(d)

    return run


def _isnan(v):
    return v != v


def _iterate(step, state, active_index: int, max_iters: int):
    """Run ``state = step(state)`` while any element of ``state[active_index]`` is True
    (at most ``max_iters`` times); state[0] is the iteration counter."""
    def cond(s):
        return fnp.any(s[active_index]) & (s[0] < max_iters)

    return lax.while_loop(cond, step, state)


def _igamma_parts(a, x, upper: bool, grad: bool = False):
    """(P, Q, nan mask) of the regularized incomplete gamma functions, and with ``grad``
    dP/da too (None without); the continued fraction takes x == a too when Q is wanted
    (``upper``). The derivative is carried through the same iterations: each term's
    derivative in a, the loop running until both have converged."""
    d = np.dtype(a.dtype)
    eps, tiny = float(np.finfo(d).eps), float(np.finfo(d).tiny)
    cap = _MAX_ITERS[d]
    bad = (x < 0) | (a < 0) | ((a == 0) & (x == 0)) | _isnan(a) | _isnan(x) | (a == np.inf)
    trivial = bad | (x == 0) | (a == 0) | (x == np.inf)
    frac = (x >= 1) & ((x >= a) if upper else (x > a)) & ~trivial
    series = ~frac & ~trivial
    # safe operands for the lanes a branch does not own (no inf/nan in the loops)
    a_s, x_s = fnp.where(series, a, 1.0), fnp.where(series, x, 0.5)
    a_f, x_f = fnp.where(frac, a, 1.0), fnp.where(frac, x, 2.0)

    def prefactor(a_, x_):  # x^a e^-x / Gamma(a), and its log's derivative in a
        return (fnp.exp(a_ * fnp.log(x_) - x_ - lax.lgamma(a_)),
                fnp.log(x_) - lax.digamma(a_) if grad else None)

    # P = x^a e^-x / Gamma(a) * sum_n t_n, t_n = x^n / (a (a+1) ... (a+n));
    # d t_n / da = (x d t_(n-1) / da - t_n) / (a + n)
    def series_step(s):
        i, term, total, dterm, dtotal, active = s
        term2 = term * x_s / (a_s + i)
        total = fnp.where(active, total + term2, total)
        more = fnp.abs(term2) > fnp.abs(total) * eps
        if grad:
            dterm = (dterm * x_s - term2) / (a_s + i)
            dtotal = fnp.where(active, dtotal + dterm, dtotal)
            more = more | (fnp.abs(dterm) > fnp.abs(dtotal) * eps)
        return i + 1, term2, total, dterm, dtotal, active & more

    one = fnp.ones_like(a_s)
    d0 = -one / (a_s * a_s) if grad else 0
    _, _, total, _, dtotal, _ = _iterate(series_step, (1, one / a_s, one / a_s, d0, d0, series),
                                         5, cap)
    pre, dlog = prefactor(a_s, x_s)
    p_series = pre * total

    # Q = x^a e^-x / Gamma(a) * 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / ...)),
    # by the modified Lentz method; with ``grad`` each of its quantities' derivative in a
    def guard(v):
        return fnp.where(fnp.abs(v) < tiny, tiny, v)

    def frac_step(s):
        i, b, c, dd, h, d_c, d_dd, d_h, active = s
        an = -i * (i - a_f)
        b = b + 2
        dd2 = 1 / guard(an * dd + b)
        c2 = guard(b + an / c)
        delta = dd2 * c2
        h2 = fnp.where(active, h * delta, h)
        more = fnp.abs(delta - 1) > eps
        if grad:  # d an / da = i, d b / da = -1
            d_dd = -dd2 * dd2 * (i * dd + an * d_dd - 1)
            d_c = -1 + i / c - an * d_c / (c * c)
            d_delta = d_dd * c2 + dd2 * d_c
            d_h = fnp.where(active, d_h * delta + h * d_delta, d_h)
            more = more | (fnp.abs(d_delta) > eps)
        return i + 1, b, c2, dd2, h2, d_c, d_dd, d_h, active & more

    b0 = x_f + 1 - a_f
    d0 = 1 / guard(b0)
    dd0 = d0 * d0 if grad else 0  # d(1 / b0)/da, with d b0 / da = -1
    state = (1, b0, fnp.full_like(b0, 1 / tiny), d0, d0, 0 * d0 if grad else 0, dd0, dd0, frac)
    *_, h, _, _, d_h, _ = _iterate(frac_step, state, 8, cap)
    pre_f, dlog_f = prefactor(a_f, x_f)
    q_frac = pre_f * h

    p = fnp.where(series, p_series, 1 - q_frac)
    q = fnp.where(series, 1 - p_series, q_frac)
    full = (x == np.inf) | ((a == 0) & (x > 0))
    p = fnp.where(x == 0, 0.0, fnp.where(full, 1.0, p))
    q = fnp.where(x == 0, 1.0, fnp.where(full, 0.0, q))
    if not grad:
        return p, q, bad, None
    dp = fnp.where(series, pre * (total * dlog + dtotal), -pre_f * (h * dlog_f + d_h))
    return p, q, bad, fnp.where(trivial, 0.0, dp)


@_upcast
def igamma(a, x):
    p, _, bad, _ = _igamma_parts(a, x, False)
    return fnp.where(bad, np.nan, p)


@_upcast
def igammac(a, x):
    _, q, bad, _ = _igamma_parts(a, x, True)
    return fnp.where(bad, np.nan, q)


@_upcast
def igamma_grad_a(a, x):
    """d/da of the regularized lower incomplete gamma function P(a, x)."""
    _, _, bad, dp = _igamma_parts(a, x, False, grad=True)
    return fnp.where(bad, np.nan, dp)


@_upcast
def betainc(a, b, x):
    d = np.dtype(a.dtype)
    eps, tiny = float(np.finfo(d).eps), float(np.finfo(d).tiny)
    a_zero, b_zero = (a == 0) | (b == np.inf), (b == 0) | (a == np.inf)
    zero = (b_zero & (x != 1)) | (a_zero & (x == 0))
    one = (a_zero & (x != 0)) | (b_zero & (x == 1))
    bad = (a < 0) | (b < 0) | (x < 0) | (x > 1) | (a_zero & b_zero) | _isnan(a) | _isnan(b) \
        | _isnan(x)
    trivial = bad | zero | one
    direct = x < (a + 1) / (a + b + 2)
    pa, pb, px = fnp.where(direct, a, b), fnp.where(direct, b, a), fnp.where(direct, x, 1 - x)
    pa, pb, px = fnp.where(trivial, 1.0, pa), fnp.where(trivial, 1.0, pb), \
        fnp.where(trivial, 0.5, px)
    small = eps / 2

    def guard(v):
        return fnp.where(fnp.abs(v) < small, small, v)

    # 1 / (1 + d1 / (1 + d2 / ...)) with d_2m = m (b - m) x / ((a + 2m - 1)(a + 2m)) and
    # d_2m+1 = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1))
    def step(s):
        m, c, dd, h, active = s
        m2 = 2 * m
        for num in (m * (pb - m) * px / ((pa + m2 - 1) * (pa + m2)),
                    -(pa + m) * (pa + pb + m) * px / ((pa + m2) * (pa + m2 + 1))):
            dd = 1 / guard(1 + num * dd)
            c = guard(1 + num / c)
            delta = dd * c
            h = fnp.where(active, h * delta, h)
        return m + 1, c, dd, h, active & (fnp.abs(delta - 1) >= small)

    d0 = 1 / guard(1 - (pa + pb) * px / (pa + 1))
    state = (1, fnp.ones_like(pa), d0, d0, ~trivial)
    h = _iterate(step, state, 4, _MAX_ITERS[d])[3]
    # the prefactor x^a (1 - x)^b / (a B(a, b)); for a tiny a, a Gamma(a) -> 1
    lbeta_tail = lax.lgamma(pb) - lax.lgamma(pa + pb)
    pre = fnp.where(pa < 2 * tiny, fnp.exp(fnp.log1p(-px) * pb - lbeta_tail),
                    fnp.exp(fnp.log(px) * pa + fnp.log1p(-px) * pb
                            - (lax.lgamma(pa) + lbeta_tail)) / pa)
    v = h * pre
    v = fnp.where(direct, v, 1 - v)
    v = fnp.where(zero, 0.0, fnp.where(one, 1.0, v))
    return fnp.where(bad, np.nan, v)


# |x| below which i0e uses the power series (above: the asymptotic series), and how many
# terms each needs for the dtype's precision
_I0E = {np.dtype(np.float32): (16.0, 48, 12), np.dtype(np.float64): (32.0, 96, 32)}


@_upcast
def bessel_i0e(x):
    d = np.dtype(x.dtype)
    cut, n_series, n_asym = _I0E[d]
    ax = fnp.abs(x)
    small = ax < cut
    xs = fnp.where(small, ax, 0.0)
    # I0(x) = sum_k (x^2 / 4)^k / (k!)^2
    q = xs * xs / 4
    term, total = fnp.ones_like(xs), fnp.ones_like(xs)
    for k in range(1, n_series):
        term = term * q / float(k * k)
        total = total + term
    series = total * fnp.exp(-xs)
    # i0e(x) ~ 1 / sqrt(2 pi x) sum_k ((2k - 1)!!)^2 / (k! (8x)^k)
    xl = fnp.where(small, cut, ax)
    term, total = fnp.ones_like(xl), fnp.ones_like(xl)
    for k in range(1, n_asym):
        term = term * float((2 * k - 1) ** 2) / (8.0 * k * xl)
        total = total + term
    asym = total / fnp.sqrt(2 * np.pi * xl)
    out = fnp.where(small, series, asym)
    return fnp.where(_isnan(x), np.nan, out)


def _rule(fn):
    def rule(ctx, *operands):
        return ctx.lower_fun(fn, operands)

    return rule


sp.igamma_p.def_lowering(_rule(igamma))
sp.igammac_p.def_lowering(_rule(igammac))
sp.igamma_grad_a_p.def_lowering(_rule(igamma_grad_a))
sp.regularized_incomplete_beta_p.def_lowering(_rule(betainc))
sp.bessel_i0e_p.def_lowering(_rule(bessel_i0e))
