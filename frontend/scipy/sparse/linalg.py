"""frontend.scipy.sparse.linalg: iterative solvers of ``A x = b`` (as jax.scipy.sparse.linalg):
``cg`` (conjugate gradients, A Hermitian positive definite), ``bicgstab`` and ``gmres``
(restarted GMRES) for general A. ``A`` (and the preconditioner ``M``) is a matrix or a
function computing the product with one; ``b`` and ``x0`` may be pytrees of arrays. Each
returns ``(x, info)`` as JAX's (info None; gmres' -1 where x has NaNs, else 0). Each solve is one
``lax.while_loop`` inside ``lax.custom_linear_solve``: it runs under jit and vmap (a batched solve
runs until every lane has converged) and differentiates as JAX's (by solving again).

>>> import numpy as np
>>> from frontend.scipy.sparse.linalg import cg
>>> a = np.array([[4.0, 1.0], [1.0, 3.0]], np.float32)
>>> x, _ = cg(a, np.array([1.0, 2.0], np.float32))
>>> [round(float(v), 4) for v in x]
[0.0909, 0.6364]
"""
from __future__ import annotations

import functools

import numpy as np

from ... import lax
from ... import numpy as fnp
from ...core.pytree import tree_flatten, tree_map, tree_structure

__all__ = ["cg", "gmres", "bicgstab"]


def _operator(f, what: str = "linear operator"):
    """A function computing the product of ``f`` (a function, or a square matrix) with a
    vector (pytree)."""
    if callable(f):
        return f
    if hasattr(f, "shape"):
        if len(f.shape) != 2 or f.shape[0] != f.shape[1]:
            raise ValueError(f"{what} must be a square matrix, but has shape: {f.shape}")
        return functools.partial(fnp.dot, f, precision=lax.Precision.HIGHEST)
    raise TypeError(f"{what} must be either a function or ndarray: {f}")


class _Flat:
    """The leaves of a pytree as one vector (of their common dtype) and back, so the solvers
    work on vectors; ``op`` is an operator on such pytrees as one on vectors."""

    def __init__(self, tree):
        leaves, self.treedef = tree_flatten(tree)
        self.leaves = [fnp.asarray(x) for x in leaves]
        self.dtype = fnp.result_type(*self.leaves)
        self.sizes = [x.size for x in self.leaves]

    def ravel(self, tree):
        leaves = self.treedef.flatten_up_to(tree)
        return fnp.concatenate([fnp.ravel(fnp.asarray(x)).astype(self.dtype) for x in leaves])

    def unravel(self, v):
        parts, start = [], 0
        for x, n in zip(self.leaves, self.sizes, strict=True):
            parts.append(v[start:start + n].reshape(x.shape).astype(x.dtype))
            start += n
        return self.treedef.unflatten(parts)

    def op(self, f):
        return lambda v: self.ravel(f(self.unravel(v)))


def _dot(x, y):
    """<x, y> (x conjugated), at the highest precision."""
    return fnp.vdot(x, y, precision=lax.Precision.HIGHEST)


def _norm2(x):
    return fnp.real(_dot(x, x))


def _isolve(solver, A, b, x0, *, tol, atol, maxiter, M, info=False, symmetric=False, **kw):
    """The checks and normalizations the three solvers share, then ``solver`` on vectors,
    inside ``lax.custom_linear_solve`` (as JAX's): derivatives solve the (transposed) system
    again instead of differentiating through the iterations."""
    if x0 is None:
        x0 = tree_map(fnp.zeros_like, b)
    if tree_structure(x0) != tree_structure(b):
        raise ValueError("x0 and b must have matching tree structure: "
                         f"{tree_structure(x0)} vs {tree_structure(b)}")
    shapes = [tuple(fnp.shape(x)) for x in tree_flatten(b)[0]]
    x0_shapes = [tuple(fnp.shape(x)) for x in tree_flatten(x0)[0]]
    if shapes != x0_shapes:
        raise ValueError(f"arrays in x0 and b must have matching shapes: {x0_shapes} vs {shapes}")
    flat = _Flat(b)
    if maxiter is None:
        maxiter = 10 * sum(flat.sizes)
    A = flat.op(_operator(A))
    M = (lambda v: v) if M is None else flat.op(_operator(M, "preconditioner"))
    x0 = flat.ravel(x0)

    def solve(matvec, rhs):
        return solver(matvec, rhs, x0, tol=tol, atol=atol, maxiter=maxiter, M=M, **kw)

    x = lax.custom_linear_solve(A, flat.ravel(b), solve, transpose_solve=solve,
                                symmetric=symmetric)
    if not info:
        return flat.unravel(x), None
    return flat.unravel(x), fnp.where(fnp.isnan(_norm2(x)), -1, 0)  # (gmres': -1 if it failed)


def _cg(A, b, x0, *, tol, atol, maxiter, M):
    bound = fnp.maximum(tol ** 2 * _norm2(b), atol ** 2)  # on |r|^2

    def cond(state):
        _, r, _, _, k = state
        return (_norm2(r) > bound) & (k < maxiter)

    def body(state):
        x, r, rz, p, k = state
        ap = A(p)
        step = rz / _dot(p, ap).real.astype(rz.dtype)
        x, r = x + step * p, r - step * ap
        z = M(r)
        rz_next = _dot(r, z).real.astype(rz.dtype)
        return x, r, rz_next, z + (rz_next / rz) * p, k + 1

    r = b - A(x0)
    z = M(r)
    rz = _dot(r, z).real.astype(z.dtype)
    return lax.while_loop(cond, body, (x0, r, rz, z, 0))[0]


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Solve ``A x = b`` by conjugate gradients (A Hermitian positive definite), stopping when
    ``|b - A x| <= max(tol |b|, atol)`` or after ``maxiter`` steps (default 10 n). ``M``: a
    preconditioner (an approximation of A's inverse). Returns ``(x, None)``."""
    return _isolve(_cg, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M, symmetric=True)


def _bicgstab(A, b, x0, *, tol, atol, maxiter, M):
    bound = fnp.maximum(tol ** 2 * _norm2(b), atol ** 2)

    def cond(state):
        _, r, *_, k = state
        return (_norm2(r) > bound) & (k < maxiter) & (k >= 0)

    def body(state):
        x, r, rhat, alpha, omega, rho, p, v, k = state
        rho_next = _dot(rhat, r)
        beta = (rho_next / rho) * (alpha / omega)
        p = r + beta * (p - omega * v)
        phat = M(p)
        v = A(phat)
        alpha = rho_next / _dot(rhat, v)
        s = r - alpha * v
        done = _norm2(s) < bound  # converged half way: x + alpha phat is the answer
        shat = M(s)
        t = A(shat)
        omega = fnp.where(done, 0, _dot(t, s) / _dot(t, t)).astype(omega.dtype)
        x = fnp.where(done, x + alpha * phat, x + alpha * phat + omega * shat)
        r = fnp.where(done, s, s - omega * t)
        # a breakdown (rho or omega zero) stops the iteration: k < 0
        k = fnp.where((omega == 0) | (alpha == 0), -11, k + 1)
        k = fnp.where(rho_next == 0, -10, k)
        return x, r, rhat, alpha, omega, rho_next, p, v, k

    r = b - A(x0)
    one = fnp.ones((), r.dtype)
    zero = fnp.zeros_like(r)
    state = (x0, r, r, one, one, one, zero, zero, 0)
    return lax.while_loop(cond, body, state)[0]


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Solve ``A x = b`` by the stabilized biconjugate gradient method (any nonsingular A),
    stopping when ``|b - A x| <= max(tol |b|, atol)``, after ``maxiter`` steps (default
    10 n) or at a breakdown. ``M``: a preconditioner. Returns ``(x, None)``."""
    return _isolve(_bicgstab, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M)


def _unit(v):
    """(v / |v|, |v|), zeros where |v| is at most the dtype's epsilon."""
    n = fnp.sqrt(_norm2(v))
    ok = n > fnp.finfo(n.dtype).eps
    safe = fnp.where(ok, n, 1).astype(n.dtype)
    return fnp.where(ok, v / safe.astype(v.dtype), 0).astype(v.dtype), fnp.where(ok, n, 0)


def _gmres_cycle(A, M, x, u, beta, restart: int):
    """One cycle of GMRES: the Arnoldi basis of the Krylov space of M A from the unit
    preconditioned residual ``u`` (norm ``beta``), modified Gram-Schmidt, ``restart`` vectors;
    x plus the basis' combination that minimizes the preconditioned residual."""
    n, dt = u.shape[0], u.dtype
    basis = fnp.zeros((restart + 1, n), dt).at[0].set(u)
    hess = fnp.zeros((restart + 1, restart), dt)

    def step(j, carry):
        basis, hess = carry
        w = M(A(basis[j]))
        live = fnp.arange(restart + 1) <= j

        def orthogonalize(i, wh):
            w, h = wh
            c = fnp.where(live[i], _dot(basis[i], w), 0).astype(dt)
            return w - c * basis[i], h.at[i].set(c)
        w, h = lax.fori_loop(0, restart + 1, orthogonalize, (w, fnp.zeros(restart + 1, dt)))
        w, norm = _unit(w)  # (a breakdown: w is 0 and so are the later columns)
        h = h.at[j + 1].set(norm.astype(dt))
        return basis.at[j + 1].set(w), hess.at[:, j].set(h)

    basis, hess = lax.fori_loop(0, restart, step, (basis, hess))
    rhs = fnp.zeros(restart + 1, dt).at[0].set(beta.astype(dt))
    y = fnp.linalg.lstsq(hess, rhs)[0]
    return x + fnp.matmul(y, basis[:restart], precision=lax.Precision.HIGHEST)


def _gmres(A, b, x0, *, tol, atol, maxiter, M, restart):
    bound = fnp.maximum(tol * fnp.sqrt(_norm2(b)), atol)
    b_norm = fnp.sqrt(_norm2(b))
    mb_norm = fnp.sqrt(_norm2(M(b)))
    # the bound on M's residual: |M b| times the relative bound on b's
    ratio = fnp.where(b_norm > 0, bound / fnp.where(b_norm > 0, b_norm, 1), 1)
    pbound = mb_norm * fnp.minimum(1.0, ratio)

    def cond(state):
        _, _, beta, k = state
        return (k < maxiter) & (beta > pbound)

    def body(state):
        x, u, beta, k = state
        x = _gmres_cycle(A, M, x, u, beta, restart)
        u, beta = _unit(M(b - A(x)))
        return x, u, beta, k + 1

    u, beta = _unit(M(b - A(x0)))
    return lax.while_loop(cond, body, (x0, u, beta, 0))[0]


def gmres(A, b, x0=None, *, tol=1e-5, atol=0.0, restart=20, maxiter=None, M=None,
          solve_method="batched"):
    """Solve ``A x = b`` by restarted GMRES (any nonsingular A): cycles of ``restart``
    Arnoldi steps on the left-preconditioned system ``M A x = M b``, at most ``maxiter``
    cycles (default 10 n), until the preconditioned residual meets ``max(tol |b|, atol)``
    scaled as |M b| / |b|. ``solve_method`` 'batched' or 'incremental' (JAX's two ways to
    solve each cycle's least-squares problem; here both solve it at the cycle's end).
    Returns ``(x, None)``."""
    if solve_method not in ("incremental", "batched"):
        raise ValueError(f"invalid solve_method {solve_method}, must be either 'incremental' "
                         "or 'batched'")
    size = sum(int(np.prod(fnp.shape(x))) for x in tree_flatten(b)[0])
    restart = min(int(restart), size)
    return _isolve(_gmres, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M, info=True,
                   restart=restart)


def __getattr__(name):
    from ...core import jax_names
    raise jax_names.missing(__name__, name)
