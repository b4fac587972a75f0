"""frontend.scipy.optimize: ``minimize(fun, x0, method="BFGS")`` and its ``OptimizeResults``,
as jax.scipy.optimize. BFGS keeps a dense inverse-Hessian estimate and steps along
``-H g`` with a line search satisfying the strong Wolfe conditions (Nocedal & Wright,
Numerical Optimization, algorithms 3.5 and 3.6: a bracketing phase, then a zoom by cubic,
quadratic or bisection steps). Everything is one ``lax.while_loop``, so ``minimize`` runs
under jit and vmap.

>>> import numpy as np
>>> import frontend.numpy as fnp
>>> from frontend.scipy.optimize import minimize
>>> r = minimize(lambda x: fnp.sum((x - 3.0) ** 2), np.zeros(2, np.float32), method="BFGS")
>>> np.round(np.asarray(r.x), 4).tolist(), bool(r.success), int(r.status)
([3.0, 3.0], True, 0)
"""
from __future__ import annotations

from typing import Any, NamedTuple

from .. import lax
from .. import numpy as fnp
from ..transforms.grad import value_and_grad

__all__ = ["minimize", "OptimizeResults"]


class OptimizeResults(NamedTuple):
    """The results of ``minimize``.

    x: the solution; success: converged and no line search failed; status: 0 converged,
    1 the maximum number of iterations reached, 3 the line search's zoom failed, 5 the line
    search reached its maximum number of iterations, -1 undefined; fun: f(x); jac: the
    gradient at x; hess_inv: the inverse-Hessian estimate; nfev, njev: the numbers of
    function and gradient evaluations; nit: the number of iterations."""
    x: Any
    success: Any
    status: Any
    fun: Any
    jac: Any
    hess_inv: Any
    nfev: Any
    njev: Any
    nit: Any


def minimize(fun, x0, args: tuple = (), *, method: str, tol=None, options=None):
    """Minimize the scalar function ``fun(x, *args)`` of a vector ``x`` from ``x0``.

    ``method``: 'BFGS' (case-insensitive). ``options``: ``maxiter`` (default 200 times the
    size of x0), ``norm`` (of the gradient in the convergence test, default inf), ``gtol``
    (convergence when that norm < gtol, default 1e-5), ``line_search_maxiter`` (default 10).
    ``tol`` is accepted and unused, as in JAX. Returns an ``OptimizeResults``."""
    if not isinstance(args, tuple):
        raise TypeError(f"args argument to jax.scipy.optimize.minimize must be a tuple, got {args}")
    options = {} if options is None else dict(options)
    if method.lower() == "bfgs":
        return _bfgs(lambda x: fun(x, *args), x0, **options)
    raise ValueError(f"Method {method} not recognized")


# ----------------------------------------------------------------------------- line search


class _Point(NamedTuple):
    """A step length and the objective along the direction there: phi(a) = f(x + a p),
    dphi(a) = phi'(a) (= g . p), g = grad f(x + a p)."""
    a: Any
    phi: Any
    dphi: Any
    g: Any


def _along(fun, x, p):
    """The objective along the direction p: a -> _Point."""
    vg = value_and_grad(fun)

    def at(a):
        phi, g = vg(x + a.astype(x.dtype) * p)
        return _Point(a, phi, fnp.real(fnp.dot(g, p, precision=lax.Precision.HIGHEST)), g)
    return at


def _choose(pred, if_true, if_false):
    """Element-wise choice between two pytrees of one structure (loop states)."""
    return type(if_true)(*[fnp.where(pred, t, f) for t, f in zip(if_true, if_false, strict=True)])


def _cubic_min(a, fa, fpa, b, fb, c, fc):
    """The minimizer of the cubic through (a, fa) with slope fpa at a, (b, fb) and (c, fc);
    NaN or inf where there is none."""
    db, dc = b - a, c - a
    denom = (db * dc) ** 2 * (db - dc)
    rb, rc = fb - fa - fpa * db, fc - fa - fpa * dc
    ca = (dc ** 2 * rb - db ** 2 * rc) / denom
    cb = (-dc ** 3 * rb + db ** 3 * rc) / denom
    return a + (-cb + fnp.sqrt(cb * cb - 3 * ca * fpa)) / (3 * ca)


def _quadratic_min(a, fa, fpa, b, fb):
    """The minimizer of the parabola through (a, fa) with slope fpa at a and (b, fb)."""
    db = b - a
    curv = (fb - fa - fpa * db) / (db * db)
    return a - fpa / (2 * curv)


class _Zoom(NamedTuple):
    j: Any
    lo: _Point
    hi: _Point
    rec_a: Any        # the previous hi (or lo) end, for the cubic step
    rec_phi: Any
    done: Any
    failed: Any
    star: _Point
    nfev: Any


def _zoom(at, phi0, dphi0, g0, lo: _Point, hi: _Point, active, c1, c2, maxiter: int = 30) -> _Zoom:
    """Algorithm 3.6: a step in the bracket between lo (the end with the lower phi that
    satisfies the sufficient decrease) and hi that satisfies the strong Wolfe conditions.
    Runs only where ``active``. As JAX's, it fails when hi - lo (signed: a bracket with hi
    below lo too) is at most 1e-5 (1e-10 in 64 bits) or after ``maxiter`` steps, the
    step of that iteration still taken; a zoom that never met the conditions answers step 1
    with lo's phi and the gradient at the origin ``g0``."""
    small = 1e-10 if fnp.finfo(lo.a.dtype).bits == 64 else 1e-5

    def cond(z):
        return ~z.done & ~z.failed

    def body(z):
        lo, hi = z.lo, z.hi
        width = hi.a - lo.a
        left, right = fnp.minimum(lo.a, hi.a), fnp.maximum(lo.a, hi.a)
        cubic = _cubic_min(lo.a, lo.phi, lo.dphi, hi.a, hi.phi, z.rec_a, z.rec_phi)
        use_cubic = (z.j > 0) & (cubic > left + 0.2 * width) & (cubic < right - 0.2 * width)
        quad = _quadratic_min(lo.a, lo.phi, lo.dphi, hi.a, hi.phi)
        use_quad = ~use_cubic & (quad > left + 0.1 * width) & (quad < right - 0.1 * width)
        a = fnp.where(use_cubic, cubic, fnp.where(use_quad, quad, (lo.a + hi.a) / 2))
        pt = at(a)
        too_high = (pt.phi > phi0 + c1 * a * dphi0) | (pt.phi >= lo.phi)
        wolfe = ~too_high & (fnp.abs(pt.dphi) <= -c2 * dphi0)
        flip = ~too_high & ~wolfe & (pt.dphi * width >= 0)
        # too high: pt is the new hi; else pt the new lo (the old lo the new hi on a flip)
        new_hi = _choose(too_high, pt, _choose(flip, lo, hi))
        rec_a = fnp.where(too_high | flip, hi.a, lo.a)
        rec_phi = fnp.where(too_high | flip, hi.phi, lo.phi)
        new_lo = _choose(too_high | wolfe, lo, pt)
        failed = z.failed | (width <= small) | (z.j + 1 >= maxiter)
        return _Zoom(z.j + 1, new_lo, new_hi, rec_a, rec_phi, wolfe, failed,
                     _choose(wolfe, pt, z.star), z.nfev + 1)

    unmet = _Point(fnp.ones((), lo.a.dtype), lo.phi, lo.dphi, g0)
    start = _Zoom(0, lo, hi, (lo.a + hi.a) / 2, (lo.phi + hi.phi) / 2, ~active, False, unmet, 0)
    z = lax.while_loop(cond, body, start)
    return z._replace(failed=active & z.failed)


class _Search(NamedTuple):
    i: Any
    prev: _Point
    done: Any
    failed: Any
    star: _Point
    nfev: Any


def _line_search(fun, x, p, f0, g0, old_f0, maxiter: int, c1=1e-4, c2=0.9):
    """Algorithm 3.5: (step, f and g there, evaluations, failed, status) for a step along the
    descent direction p from x (f(x) = f0, its gradient g0; old_f0 the previous iterate's f,
    for the first trial step); status 0, 1 (zoom failed), 3 (maxiter reached)."""
    at = _along(fun, x, p)
    dphi0 = fnp.real(fnp.dot(g0, p, precision=lax.Precision.HIGHEST))
    guess = 1.01 * 2 * (f0 - old_f0) / dphi0
    first = fnp.where(guess > 1, 1.0, guess).astype(f0.dtype)
    origin = _Point(fnp.zeros((), f0.dtype), f0, dphi0, g0)

    def cond(s):
        return ~s.done & (s.i <= maxiter) & ~s.failed

    def body(s):
        a = fnp.where(s.i == 1, first, 2 * s.prev.a)
        pt = at(a)
        # a bracket [prev, pt] when pt has too little decrease; [pt, prev] when it climbs
        up = (pt.phi > f0 + c1 * a * dphi0) | ((pt.phi >= s.prev.phi) & (s.i > 1))
        wolfe = ~up & (fnp.abs(pt.dphi) <= -c2 * dphi0)
        climbs = ~up & ~wolfe & (pt.dphi >= 0)
        z = _zoom(at, f0, dphi0, g0, _choose(up, s.prev, pt), _choose(up, pt, s.prev),
                  up | climbs, c1, c2)
        star = _choose(wolfe, pt, _choose(up | climbs, z.star, s.star))
        return _Search(s.i + 1, pt, up | wolfe | climbs, z.failed, star, s.nfev + 1 + z.nfev)

    s = lax.while_loop(cond, body, _Search(1, origin, False, False, origin, 0))
    status = fnp.where(s.failed, 1, fnp.where(s.i > maxiter, 3, 0))
    a = s.star.a
    if fnp.finfo(a.dtype).bits != 64:  # a floor on the step: tiny steps stall in 32 bits
        a = fnp.where(fnp.abs(a) < 1e-8, fnp.sign(a) * 1e-8, a).astype(a.dtype)
    return a, s.star.phi, s.star.g, s.nfev, s.failed | ~s.done, status


# ----------------------------------------------------------------------------- BFGS


class _BFGS(NamedTuple):
    converged: Any
    failed: Any
    k: Any
    nfev: Any
    x: Any
    f: Any
    g: Any
    h: Any
    old_f: Any
    ls_status: Any


def _bfgs(fun, x0, maxiter=None, norm=float("inf"), gtol=1e-5, line_search_maxiter=10):
    x0 = fnp.asarray(x0)
    if x0.ndim != 1:
        raise ValueError(f"minimize: x0 must be a vector (1-D array), got shape {x0.shape}")
    n = x0.shape[0]
    maxiter = 200 * x0.size if maxiter is None else maxiter
    eye = fnp.eye(n, dtype=x0.dtype)
    f0, g0 = value_and_grad(fun)(x0)

    def gnorm(g):
        return fnp.linalg.norm(g, ord=norm)

    def cond(s):
        return ~s.converged & ~s.failed & (s.k < maxiter)

    def body(s):
        p = -fnp.dot(s.h, s.g, precision=lax.Precision.HIGHEST)
        a, f, g, evals, failed, ls_status = _line_search(fun, s.x, p, s.f, s.g, s.old_f,
                                                         line_search_maxiter)
        step = a * p
        dg = g - s.g
        rho = 1 / fnp.dot(dg, step, precision=lax.Precision.HIGHEST)
        w = eye - rho * step[:, None] * dg[None, :]
        h = fnp.einsum("ij,jk,lk->il", w, s.h, w, precision=lax.Precision.HIGHEST) \
            + rho * step[:, None] * step[None, :]
        h = fnp.where(fnp.isfinite(rho), h, s.h)
        return _BFGS(gnorm(g) < gtol, failed, s.k + 1, s.nfev + evals, s.x + step, f, g, h,
                     s.f, ls_status)

    start = _BFGS(gnorm(g0) < gtol, False, 0, 1, x0, f0, g0, eye,
                  f0 + fnp.linalg.norm(g0) / 2, 0)
    s = lax.while_loop(cond, body, start)
    status = fnp.where(s.converged, 0, fnp.where(s.k == maxiter, 1,
                                                 fnp.where(s.failed, 2 + s.ls_status, -1)))
    return OptimizeResults(x=s.x, success=s.converged & ~s.failed, status=status, fun=s.f,
                           jac=s.g, hess_inv=s.h, nfev=s.nfev, njev=s.nfev, nit=s.k)


def __getattr__(name):
    from ..core import jax_names
    raise jax_names.missing(__name__, name)
