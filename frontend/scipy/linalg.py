"""frontend.scipy.linalg: scipy.linalg's interface (as jax.scipy.linalg) over the
decomposition primitives: solve_triangular, cho_factor, cho_solve, cholesky, lu,
lu_factor, lu_solve, solve, inv, det.

>>> import numpy as np
>>> from frontend.scipy import linalg
>>> linalg.solve_triangular(np.eye(2, dtype=np.float32) * 2, np.ones(2, np.float32))
Array([0.5, 0.5], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from .. import lax
from ..core.ir import aval_of
from ..lax import linalg as lax_linalg
from ..lax._convert import convert
from ..numpy import linalg as np_linalg
from ..numpy._core import asarray, check_arraylike
from ..numpy._elementwise import add
from ..numpy._linalg import matmul
from ..numpy._numeric import conj, real
from ..numpy._shape import swapaxes

__all__ = ["solve_triangular", "cho_factor", "cho_solve", "cholesky", "lu", "lu_factor",
           "lu_solve", "solve", "inv", "det"]

_TRANS = {0: (False, False), "N": (False, False), 1: (True, False), "T": (True, False),
          2: (True, True), "C": (True, True)}


def _with_columns(b, a):
    """b as a matrix of right-hand sides: a vector b (one rank less than a) gets a column."""
    ba = aval_of(b)
    if ba.ndim == aval_of(a).ndim - 1:
        return lax.reshape(b, new_sizes=ba.shape + (1,), dimensions=None), ba.shape
    return b, None


def solve_triangular(a, b, trans=0, lower: bool = False, unit_diagonal: bool = False,
                     overwrite_b: bool = False, debug=None, check_finite: bool = True):
    """Solve op(a) x = b for x, a triangular (lower or upper triangle read), op(a) = a
    (trans 0/'N'), a^T (1/'T') or a^H (2/'C')."""
    if trans not in _TRANS:
        raise ValueError(f"Invalid 'trans' value {trans}")
    transpose_a, conjugate_a = _TRANS[trans]
    a, b = np_linalg.as_inexact_pair("solve_triangular", a, b)
    b, vec_shape = _with_columns(b, a)
    out = lax_linalg.triangular_solve(a, b, left_side=True, lower=lower, transpose_a=transpose_a,
                                      conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
    return out if vec_shape is None else lax.reshape(out, new_sizes=vec_shape, dimensions=None)


def _mH(x):
    return conj(swapaxes(x, -1, -2))


def cholesky(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """The Cholesky factor of a Hermitian positive-definite matrix: upper U with a = U^H U
    (default, as scipy) or lower L with a = L L^H. Only that triangle of a is read."""
    check_arraylike("cholesky", a)
    a = np_linalg.as_inexact("cholesky", a)
    factor = lax_linalg.cholesky(a if lower else _mH(a), symmetrize_input=False)
    return factor if lower else _mH(factor)


def cho_factor(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """(c, lower): the Cholesky factor for cho_solve."""
    return cholesky(a, lower=lower), lower


def cho_solve(c_and_lower, b, overwrite_b: bool = False, check_finite: bool = True):
    """Solve a x = b given cho_factor(a)."""
    c, lower = c_and_lower
    c, b = np_linalg.as_inexact_pair("cho_solve", c, b)
    b, vec_shape = _with_columns(b, c)
    b = lax_linalg.triangular_solve(c, b, left_side=True, lower=lower, transpose_a=not lower,
                                    conjugate_a=not lower)
    b = lax_linalg.triangular_solve(c, b, left_side=True, lower=lower, transpose_a=lower,
                                    conjugate_a=lower)
    return b if vec_shape is None else lax.reshape(b, new_sizes=vec_shape, dimensions=None)


def lu_factor(a, overwrite_a: bool = False, check_finite: bool = True):
    """(lu, piv): the LU factors in one matrix and the row-swap pivots (LAPACK's getrf)."""
    a = np_linalg.as_inexact("lu_factor", a)
    lu_, pivots, _ = lax_linalg.lu(a)
    return lu_, pivots


def lu_solve(lu_and_piv, b, trans=0, overwrite_b: bool = False, check_finite: bool = True):
    """Solve a x = b (trans 0), a^T x = b (1) or a^H x = b (2) given lu_factor(a)."""
    if trans not in (0, 1, 2):
        raise ValueError("'trans' value must be 0, 1, or 2.")
    lu_, pivots = lu_and_piv
    lu_, b = np_linalg.as_inexact_pair("lu_solve", lu_, b)
    m = aval_of(lu_).shape[-1]
    perm = lax_linalg.lu_pivots_to_permutation(asarray(pivots), m)
    b, vec_shape = _with_columns(b, lu_)
    x = np_linalg.lu_solve_factored(lu_, perm, b, trans)
    return x if vec_shape is None else lax.reshape(x, new_sizes=vec_shape, dimensions=None)


def lu(a, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """(p, l, u) with a = p @ l @ u (l unit lower triangular, u upper triangular); with
    ``permute_l``, (p @ l, u)."""
    a = np_linalg.as_inexact("lu", a)
    lu_, _, perm = lax_linalg.lu(a)
    aa = aval_of(a)
    m, n = aa.shape[-2:]
    k = min(m, n)
    # p[..., j, i] = (perm[..., i] == j): row i of l @ u is row perm[i] of a
    pa = aval_of(perm)
    rows = lax.broadcasted_iota(dtype=pa.dtype, shape=pa.shape[:-1] + (m, m), dimension=pa.ndim - 1)
    cols = lax.broadcast_in_dim(perm, shape=pa.shape[:-1] + (m, m),
                                broadcast_dimensions=tuple(range(pa.ndim - 1)) + (pa.ndim,))
    p = real(convert(lax.eq(rows, cols), aa.dtype))
    nb = aa.ndim - 2
    lower = lax.slice(lax_linalg.tril(lu_, -1), start_indices=(0,) * aa.ndim,
                      limit_indices=aa.shape[:-2] + (m, k), strides=None)
    eye = lax.broadcast_in_dim(asarray(np.eye(m, k, dtype=aa.dtype)),
                               shape=aa.shape[:-2] + (m, k),
                               broadcast_dimensions=(nb, nb + 1))
    lower = add(lower, eye)
    upper = lax.slice(lax_linalg.triu(lu_), start_indices=(0,) * aa.ndim,
                      limit_indices=aa.shape[:-2] + (k, n), strides=None)
    if permute_l:
        return matmul(p, lower, precision="highest"), upper
    return p, lower, upper


def solve(a, b, lower: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
          debug: bool = False, check_finite: bool = True, assume_a: str = "gen"):
    """Solve a x = b: by LU for a general a ('gen'), by Cholesky for a positive definite
    one ('pos', reading the ``lower`` or upper triangle)."""
    if assume_a not in ("gen", "sym", "her", "pos"):
        raise ValueError(f"Expected assume_a to be one of 'gen', 'sym', 'her', 'pos'; got "
                         f"{assume_a!r}.")
    if assume_a != "pos":
        return np_linalg.solve(a, b)
    return cho_solve(cho_factor(a, lower=lower), b)


def inv(a, overwrite_a: bool = False, check_finite: bool = True):
    """The inverse of a square matrix."""
    return np_linalg.inv(a)


def det(a, overwrite_a: bool = False, check_finite: bool = True):
    """The determinant of a square matrix."""
    return np_linalg.det(a)


def __getattr__(name):
    from ..core import jax_names
    raise jax_names.missing(__name__, name)
