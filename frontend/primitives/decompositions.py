"""Matrix decompositions and triangular solves over the trailing two axes (leading axes
are a batch of independent problems), as jax.lax.linalg's primitives:

- cholesky(x): the lower Cholesky factor (NaNs where x is not positive definite);
- lu(x): (lu, pivots): L below the diagonal (unit diagonal implied), U on and above it,
  int32 row-swap pivots (0-based) as LAPACK's getrf;
- geqrf(x): (a, taus): R on and above the diagonal, Householder reflectors below, their
  scales; householder_product(a, taus): the product of those reflectors (Q);
- eigh(x, lower): (v, w): eigenvectors in the columns of v, ascending real eigenvalues w
  of the Hermitian matrix read from the ``lower`` (or upper) triangle;
- svd(x, full_matrices, compute_uv): [s] or [s, u, vt], singular values descending;
- triangular_solve(a, b, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
  solves op(a) x = b (``left_side``) or x op(a) = b for x.

They lower to the LAPACK kernels jaxlib registers on CPU, whose native batch axes are
the leading axes: a batching rule keeps the vmap axis there (moving it to the front only
when it is one of the two matrix axes), so a vmapped decomposition is one kernel call.
A triangular solve with an unbatched matrix folds the vmap axis into the right-hand
sides' columns (rows, when solving from the right) instead of copying the matrix.
"""
from __future__ import annotations

import numpy as np

from .. import batching, dtypes
from ..core import Aval, Primitive
from .shape import bdim_at, moveaxis, reshape_p

LAPACK_DTYPES = tuple(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))


def _check(name: str, avals, ranks) -> tuple:
    """The common batch shape of the operands (JAX's linalg shape-rule errors); the dtypes
    LAPACK takes."""
    for i, (a, r) in enumerate(zip(avals, ranks, strict=True)):
        if a.ndim < r:
            raise TypeError(f"Input {i} to {name} must have rank at least {r}, but got "
                            f"shape={a.shape}")
        if a.dtype not in LAPACK_DTYPES:
            raise TypeError(f"{name} does not accept dtype {a.dtype.name}. Accepted dtypes are "
                            "float32, float64, complex64, complex128.")
    batch = [a.shape[:a.ndim - r] for a, r in zip(avals, ranks)]
    if len({len(b) for b in batch}) > 1:
        raise TypeError(f"All inputs to {name} must have the same number of batch dimensions, "
                        f"but got {[len(b) for b in batch]} batch dimensions for the inputs.")
    if len(set(batch)) > 1:
        raise ValueError(f"{name} requires equal batch dimensions, got {batch}")
    if len({a.dtype for a in avals}) > 1:
        raise TypeError(f"{name} requires arguments to have the same dtypes, got "
                        + ", ".join(a.dtype.name for a in avals) + ".")
    return batch[0]


def real_dtype(d) -> np.dtype:
    return np.dtype(np.finfo(d).dtype) if dtypes.is_complex(d) else np.dtype(d)


def _leading_batch(prim):
    """The batching rule of a one-operand decomposition: the vmap axis stays where it is
    when it is a leading (batch) axis, else it moves to the front; every result has it at
    the same place."""

    def rule(args, dims, **params):
        (x,), (d,) = args, dims
        if d >= batching.ndim(x) - 2:
            x, d = moveaxis(x, d, 0), 0
        outs = prim.bind(x, **params)
        return (outs, [d] * len(outs)) if prim.multiple_results else (outs, d)

    return rule


def _square(name, x):
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"The input to {name} must be a square matrix. Got shape {x.shape}.")


# cholesky(x): (..., n, n) -> (..., n, n)
cholesky_p = Primitive("cholesky")


@cholesky_p.def_abstract_eval
def _cholesky_abstract_eval(x):
    _check("cholesky", [x], [2])
    _square("cholesky", x)
    return x.strip_weak()


cholesky_p.def_batching(_leading_batch(cholesky_p))

# lu(x): (..., m, n) -> [(..., m, n), int32 (..., min(m, n))]
lu_p = Primitive("lu", multiple_results=True)


@lu_p.def_abstract_eval
def _lu_abstract_eval(x):
    batch = _check("lu", [x], [2])
    k = min(x.shape[-2:])
    return [x.strip_weak(), Aval(batch + (k,), np.dtype(np.int32))]


lu_p.def_batching(_leading_batch(lu_p))

# geqrf(x): (..., m, n) -> [(..., m, n), (..., min(m, n))]
geqrf_p = Primitive("geqrf", multiple_results=True)


@geqrf_p.def_abstract_eval
def _geqrf_abstract_eval(x):
    batch = _check("geqrf", [x], [2])
    return [x.strip_weak(), Aval(batch + (min(x.shape[-2:]),), x.dtype)]


geqrf_p.def_batching(_leading_batch(geqrf_p))

# householder_product(a, taus): (..., m, n), (..., k) with m >= n >= k -> (..., m, n)
householder_product_p = Primitive("householder_product")


@householder_product_p.def_abstract_eval
def _householder_product_abstract_eval(a, taus):
    _check("householder_product", [a, taus], [2, 1])
    m, n = a.shape[-2:]
    if m < n:
        raise ValueError("The first argument to householder_product must have at least as "
                         f"many rows as columns, got shape {a.shape}")
    if taus.shape[-1] > min(m, n):
        raise ValueError("The second argument to householder_product must not have more rows "
                         "than the minimum of the first argument's rows and columns.")
    return a.strip_weak()


@householder_product_p.def_batching
def _householder_product_batch(args, dims):
    # both operands get the vmap axis at the front (the kernels' batch axis); result: 0
    size = batching.axis_size(args, dims)
    a, taus = (bdim_at(x, d, size, 0) for x, d in zip(args, dims, strict=True))
    return householder_product_p.bind(a, taus), 0


# eigh(x, lower): (..., n, n) -> [eigenvectors (..., n, n), eigenvalues (..., n), real]
eigh_p = Primitive("eigh", multiple_results=True)


@eigh_p.def_abstract_eval
def _eigh_abstract_eval(x, *, lower=True):
    batch = _check("eigh", [x], [2])
    if x.shape[-1] != x.shape[-2]:
        raise ValueError("Argument to symmetric eigendecomposition must have shape [..., n, n], "
                         f"got shape {x.shape}")
    return [x.strip_weak(), Aval(batch + (x.shape[-1],), real_dtype(x.dtype))]


eigh_p.def_batching(_leading_batch(eigh_p))

# svd(x, full_matrices, compute_uv): (..., m, n) -> [s (..., k) real] (+ [u (..., m, m or
# k), vt (..., n or k, n)] with compute_uv), k = min(m, n)
svd_p = Primitive("svd", multiple_results=True)


@svd_p.def_abstract_eval
def _svd_abstract_eval(x, *, full_matrices, compute_uv):
    batch = _check("svd", [x], [2])
    m, n = x.shape[-2:]
    k = min(m, n)
    s = Aval(batch + (k,), real_dtype(x.dtype))
    if not compute_uv:
        return [s]
    u = Aval(batch + (m, m if full_matrices else k), x.dtype)
    vt = Aval(batch + (n if full_matrices else k, n), x.dtype)
    return [s, u, vt]


svd_p.def_batching(_leading_batch(svd_p))

# triangular_solve(a, b, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
# a (..., m, m) triangular, b (..., m, n) (left_side) or (..., n, m) -> x of b's shape
triangular_solve_p = Primitive("triangular_solve")


@triangular_solve_p.def_abstract_eval
def _triangular_solve_abstract_eval(a, b, *, left_side, lower, transpose_a, conjugate_a,
                                    unit_diagonal):
    _check("triangular_solve", [a, b], [2, 2])
    if a.shape[-1] != a.shape[-2]:
        raise ValueError("The first input to triangular_solve must be a square matrix. Got "
                         f"shape {a.shape}.")
    if a.shape[-1] != b.shape[-2 if left_side else -1]:
        raise ValueError(f"Incompatible shapes for arguments to triangular_solve: {a.shape} "
                         f"and {b.shape}.")
    return b.strip_weak()


def _fold_into(x, d: int, axis: int):
    """x with its vmap axis (at ``d``) folded into per-example axis ``axis`` as its major
    part."""
    x = moveaxis(x, d, axis)
    shp = batching.shape(x)
    return reshape_p.bind(x, new_sizes=shp[:axis] + (shp[axis] * shp[axis + 1],) + shp[axis + 2:],
                          dimensions=None)


@triangular_solve_p.def_batching
def _triangular_solve_batch(args, dims, **params):
    # only b batched: the right-hand sides are independent columns (rows, solving from the
    # right), so the vmap axis folds into them and splits back out of the result, where it
    # ends up just before that axis; a batched: both get the vmap axis at the front (0)
    (a, b), (da, db) = args, dims
    size = batching.axis_size(args, dims)
    if da is None:
        nd = batching.ndim(b) - 1
        axis = nd - 1 if params["left_side"] else nd - 2
        out = triangular_solve_p.bind(a, _fold_into(b, db, axis), **params)
        shp = batching.shape(out)
        return reshape_p.bind(out, new_sizes=shp[:axis] + (size, shp[axis] // size)
                              + shp[axis + 1:], dimensions=None), axis
    return triangular_solve_p.bind(bdim_at(a, da, size, 0), bdim_at(b, db, size, 0), **params), 0
