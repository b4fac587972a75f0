"""frontend.lax.linalg: jax.lax.linalg's decompositions over the trailing two axes
(leading axes are a batch): cholesky, lu, lu_pivots_to_permutation, qr, eigh, svd,
triangular_solve, geqrf, householder_product.

>>> import numpy as np
>>> from frontend.lax import linalg
>>> q, r = linalg.qr(np.eye(3, dtype=np.float32))
>>> q.shape, r.dtype
((3, 3), dtype('float32'))
"""
from __future__ import annotations

import operator

from ..core import dtypes
from ..core.ir import aval_of, literal
from ..primitives import decompositions as dc
from ..primitives import elementwise as ew
from ..primitives.numeric import conj_p
from ..primitives.shape import broadcast_in_dim_p, reshape_p, transpose_p
from ._convert import as_operand

__all__ = ["cholesky", "eig", "eigh", "geqrf", "householder_product", "lu",
           "lu_pivots_to_permutation", "qr", "svd", "triangular_solve", "tridiagonal_solve", "tril",
           "triu", "hermitian_transpose", "schur", "hessenberg"]


def hermitian_transpose(x):
    """The conjugate transpose of the trailing two axes."""
    a = aval_of(x)
    perm = tuple(range(a.ndim - 2)) + (a.ndim - 1, a.ndim - 2)
    x = transpose_p.bind(x, permutation=perm)
    return conj_p.bind(x) if dtypes.is_complex(a.dtype) else x


def _symmetrize(x):
    return ew.div_p.bind(ew.add_p.bind(x, hermitian_transpose(x)), literal(2, aval_of(x).dtype))


tril = dc.tril
triu = dc.triu


def cholesky(x, *, symmetrize_input: bool = True):
    """The lower Cholesky factor L (x = L L^H) of Hermitian positive-definite matrices;
    NaNs where a matrix is not positive definite. ``symmetrize_input`` uses (x + x^H) / 2."""
    x = as_operand(x)
    return dc.cholesky_p.bind(_symmetrize(x) if symmetrize_input else x)


def lu_pivots_to_permutation(pivots, permutation_size: int):
    """The permutation the row swaps ``pivots`` (row i swapped with row pivots[i], in
    order) make of ``range(permutation_size)``, without a loop: up to 64 swaps applied one
    after the other (unrolled), more composed pairwise in a tree of log2(k) gathers.

    >>> import numpy as np
    >>> from frontend.lax import linalg
    >>> linalg.lu_pivots_to_permutation(np.array([2, 2, 2], np.int32), 4)
    Array([2, 0, 1, 3], dtype=int32)
    """
    pivots = as_operand(pivots)
    pa = aval_of(pivots)
    if pa.ndim < 1 or not dtypes.is_int(pa.dtype):
        raise TypeError(f"pivots must be an integer array of rank >= 1, got {pa.str_short()}")
    m = operator.index(permutation_size)
    k = pa.shape[-1]
    if k > m:
        raise ValueError(f"Output permutation size {m} has to exceed the trailing dimension "
                         f"of the pivots. Got pivots size {k}")
    return dc.lu_pivots_to_permutation_p.bind(pivots, permutation_size=m)


def lu(x):
    """LU decomposition with partial pivoting: (lu, pivots, permutation) with
    ``x[..., permutation, :] == L @ U`` (L unit lower triangular below the diagonal of lu,
    U on and above it)."""
    x = as_operand(x)
    lu_, pivots = dc.lu_p.bind(x)
    return lu_, pivots, lu_pivots_to_permutation(pivots, aval_of(x).shape[-2])


def geqrf(x):
    """(a, taus): Householder QR in LAPACK's compact form."""
    return tuple(dc.geqrf_p.bind(as_operand(x)))


def householder_product(a, taus):
    """The product of the Householder reflectors of ``geqrf`` (Q's leading columns)."""
    return dc.householder_product_p.bind(as_operand(a), as_operand(taus))


def qr(x, *, pivoting: bool = False, full_matrices: bool = True, use_magma=None):
    """QR decomposition (q, r): q with orthonormal columns, r upper triangular; with
    ``full_matrices`` q is (m, m) and r (m, n), else (m, k) and (k, n), k = min(m, n)."""
    if pivoting:
        raise NotImplementedError("qr with pivoting=True is not supported by vmaplab")
    x = as_operand(x)
    a = aval_of(x)
    if a.ndim < 2:
        raise TypeError(f"Input 0 to qr must have rank at least 2, but got shape={a.shape}")
    return tuple(dc.qr_p.bind(x, full_matrices=bool(full_matrices)))


def eigh(x, *, lower: bool = True, symmetrize_input: bool = True, sort_eigenvalues: bool = True,
         subset_by_index=None):
    """Eigendecomposition of Hermitian matrices: (v, w), eigenvectors in the columns of v,
    eigenvalues w ascending (real)."""
    if subset_by_index is not None:
        raise NotImplementedError("eigh with subset_by_index is not supported by vmaplab")
    x = as_operand(x)
    v, w = dc.eigh_p.bind(_symmetrize(x) if symmetrize_input else x, lower=bool(lower))
    return v, w


def eig(x, *, compute_left_eigenvectors: bool = True, compute_right_eigenvectors: bool = True,
        use_magma=None, enable_eigvec_derivs: bool = False):
    """Eigendecomposition of general square matrices: [w] + [vl] + [vr] (as requested),
    complex eigenvalues w in LAPACK geev's order, unit-norm eigenvector columns
    (``enable_eigvec_derivs``: differentiate the right eigenvectors too, as JAX's)."""
    return dc.eig_p.bind(as_operand(x), compute_left=bool(compute_left_eigenvectors),
                         compute_right=bool(compute_right_eigenvectors),
                         enable_eigvec_derivs=bool(enable_eigvec_derivs))


def schur(x, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False,
          select_callable=None):
    """The Schur decomposition x = z t z^H: (t, z), t upper (quasi-)triangular (LAPACK
    gees; CPU only, as JAX's); z is None without ``compute_schur_vectors``."""
    if sort_eig_vals or select_callable is not None:
        raise NotImplementedError("schur: sorting the eigenvalues is not implemented in vmaplab")
    t, z = dc.schur_p.bind(as_operand(x))
    return (t, z) if compute_schur_vectors else (t, None)


def hessenberg(a):
    """The Hessenberg reduction in LAPACK gehrd's packed form: (a, taus), the Hessenberg
    matrix on and above the first subdiagonal, Householder vectors (scaled by taus) below."""
    return tuple(dc.hessenberg_p.bind(as_operand(a)))


def svd(x, *, full_matrices: bool = True, compute_uv: bool = True, subset_by_index=None,
        algorithm=None):
    """Singular value decomposition: (u, s, vh) with ``compute_uv`` (x = u @ diag(s) @ vh),
    else s; singular values descending."""
    if subset_by_index is not None:
        raise NotImplementedError("svd with subset_by_index is not supported by vmaplab")
    outs = dc.svd_p.bind(as_operand(x), full_matrices=bool(full_matrices),
                         compute_uv=bool(compute_uv))
    if not compute_uv:
        return outs[0]
    s, u, vt = outs
    return u, s, vt


def triangular_solve(a, b, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False):
    """Solve op(a) x = b (``left_side``) or x op(a) = b for x, a triangular (its ``lower``
    or upper triangle is read; ``unit_diagonal`` assumes ones on the diagonal), op(a) = a,
    a^T (``transpose_a``) or a^H (with ``conjugate_a``). A b of one rank less than a is a
    vector."""
    a, b = as_operand(a), as_operand(b)
    aa, ba = aval_of(a), aval_of(b)
    vector = ba.ndim == aa.ndim - 1
    if vector:
        b = broadcast_in_dim_p.bind(
            b, shape=ba.shape + (1,) if left_side else ba.shape[:-1] + (1, ba.shape[-1]),
            broadcast_dimensions=tuple(range(ba.ndim)) if left_side else
            tuple(range(ba.ndim - 1)) + (ba.ndim,))
    out = dc.triangular_solve_p.bind(a, b, left_side=bool(left_side), lower=bool(lower),
                                     transpose_a=bool(transpose_a),
                                     conjugate_a=bool(conjugate_a),
                                     unit_diagonal=bool(unit_diagonal))
    if vector:
        out = reshape_p.bind(out, new_sizes=ba.shape, dimensions=None)
    return out


def tridiagonal_solve(dl, d, du, b, *, perturb_singular: bool = False):
    """Solve ``A x = b`` for the tridiagonal ``A`` with sub-, main and super-diagonals ``dl``,
    ``d``, ``du`` (shape ``[..., m]``; ``dl[..., 0]`` and ``du[..., m - 1]`` are ignored) and
    ``b`` of shape ``[..., m, n]`` (JAX's ``lax.linalg.tridiagonal_solve``): LAPACK's gtsv on
    the CPU, cuSPARSE/hipSPARSE's gtsv2 on GPUs, the Thomas algorithm elsewhere.

    >>> import numpy as np
    >>> from frontend.lax import linalg
    >>> one = np.ones(3, np.float32)
    >>> linalg.tridiagonal_solve(one, 2 * one, one, np.array([[3], [4], [3]], np.float32)).ravel()
    Array([1., 1., 1.], dtype=float32)
    """
    if perturb_singular:
        raise NotImplementedError("tridiagonal_solve with perturb_singular=True is not supported "
                                  "by vmaplab")
    return dc.tridiagonal_solve_p.bind(*(as_operand(v) for v in (dl, d, du, b)))

