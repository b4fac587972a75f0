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



# ---- decompositions over numpy.linalg's, and special matrices --------------------------


def eigh(a, b=None, lower: bool = True, eigvals_only: bool = False, overwrite_a: bool = False,
         overwrite_b: bool = False, turbo: bool = True, eigvals=None, type: int = 1,  # noqa: A002
         check_finite: bool = True):
    """Eigenvalues (ascending) and eigenvectors of the Hermitian ``a`` from its ``lower`` (or
    upper) triangle; the generalized problem (``b``) is not supported, as in JAX."""
    if b is not None:
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        raise NotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        raise NotImplementedError("The 'eigvals' argument to eigh is not implemented.")
    w, v = np_linalg.eigh(a, UPLO="L" if lower else "U")
    return w if eigvals_only else (w, v)


def svd(a, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd"):
    """The singular value decomposition ``(u, s, vh)`` (or ``s`` alone)."""
    out = np_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
    return tuple(out) if compute_uv else out


def qr(a, overwrite_a: bool = False, lwork=None, mode: str = "full", pivoting: bool = False,
       check_finite: bool = True):
    """The QR decomposition: mode 'full' ``(q, r)``, 'economic' (reduced) ``(q, r)``, 'r'
    ``(r,)``."""
    if pivoting:
        raise NotImplementedError("qr(pivoting=True) is not implemented in vmaplab.")
    if mode not in ("full", "economic", "r"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    if mode == "r":
        return (np_linalg.qr(a, mode="complete")[1],)
    return tuple(np_linalg.qr(a, mode="complete" if mode == "full" else "reduced"))


def polar(a, side: str = "right", *, method: str = "qdwh", eps=None, max_iterations=None):
    """The polar decomposition ``a = u p`` (side 'right') or ``p u`` ('left'), computed from
    the SVD (JAX's default QDWH iteration converges to the same factors)."""
    if side not in ("right", "left"):
        raise ValueError(f"side={side!r} is not 'right' or 'left'")
    if method not in ("qdwh", "svd"):
        raise ValueError(f"Unknown polar decomposition method {method}.")
    a = asarray(a)
    m, n = a.shape[-2:]
    if method == "qdwh" and ((side == "right" and m < n) or (side == "left" and m >= n)):
        raise NotImplementedError(f"method='qdwh' only supports mxn matrices where m < n where "
                                  f"side='right' and m >= n side='left', got {a.shape} with "
                                  f"side={side!r}")
    u, s, vh = np_linalg.svd(a, full_matrices=False)
    unitary = matmul(u, vh)
    side_vecs = _mH(vh) if side == "right" else u
    p = matmul(side_vecs * s[..., None, :].astype(side_vecs.dtype), _mH(side_vecs))
    return unitary, p


def block_diag(*arrs):
    """The arrays (as 2-D) down the diagonal of one zero matrix."""
    from .. import numpy as fnp
    if not arrs:
        return fnp.zeros((1, 0))
    check_arraylike("block_diag", *arrs)
    mats = [fnp.atleast_2d(x) for x in arrs]
    d = fnp.result_type(*arrs)
    if any(m.ndim != 2 for m in mats):
        raise ValueError("Arguments to jax.scipy.linalg.block_diag must have at most 2 dimensions")
    total = sum(m.shape[1] for m in mats)
    rows, start = [], 0
    for m in mats:
        r, c = m.shape
        rows.append(fnp.concatenate([fnp.zeros((r, start), d), m.astype(d),
                                     fnp.zeros((r, total - start - c), d)], axis=1))
        start += c
    return fnp.concatenate(rows, axis=0)


def _take_pattern(vals, idx):
    """``vals[..., idx]`` for a static index matrix (toeplitz, hankel, circulant)."""
    return vals[..., np.asarray(idx)]


def toeplitz(c, r=None):
    """The Toeplitz matrix with first column ``c`` and first row ``r`` (conj(c) if None)."""
    from .. import numpy as fnp
    check_arraylike("toeplitz", c)
    c = fnp.asarray(c)
    r = fnp.conj(c) if r is None else fnp.asarray(r)
    d = fnp.result_type(c, r)
    c, r = c.astype(d), r.astype(d)
    n, m = c.shape[-1], r.shape[-1]
    vals = fnp.concatenate([fnp.flip(c, -1), r[..., 1:]], axis=-1)
    i, j = np.arange(n)[:, None], np.arange(m)[None, :]
    return _take_pattern(vals, n - 1 - i + j)


def hankel(c, r=None):
    """The Hankel matrix with first column ``c`` and last row ``r`` (zeros if None)."""
    from .. import numpy as fnp
    check_arraylike("hankel", c)
    c = fnp.asarray(c)
    r = fnp.zeros_like(c) if r is None else fnp.asarray(r)
    d = fnp.result_type(c, r)
    vals = fnp.concatenate([c.astype(d), r[..., 1:].astype(d)], axis=-1)
    i, j = np.arange(c.shape[-1])[:, None], np.arange(r.shape[-1])[None, :]
    return _take_pattern(vals, i + j)


def circulant(c):
    """The circulant matrix with first column ``c``."""
    from .. import numpy as fnp
    check_arraylike("circulant", c)
    c = fnp.asarray(c)
    n = c.shape[-1]
    return _take_pattern(c, (np.arange(n)[:, None] - np.arange(n)[None, :]) % n)


def companion(a):
    """The companion matrix of the polynomial with coefficients ``a`` (highest first)."""
    from .. import numpy as fnp
    check_arraylike("companion", a)
    a = fnp.asarray(a)
    if a.ndim != 1:
        raise ValueError("Incorrect shape for `a`.  `a` must be one-dimensional.")
    if a.shape[0] < 2:
        raise ValueError("The length of `a` must be at least 2.")
    first = -a[1:] / a[0]
    n = a.shape[0] - 1
    return fnp.concatenate([first[None, :], fnp.eye(n - 1, n, dtype=first.dtype)], axis=0)


def leslie(f, s):
    """The Leslie matrix: fecundities ``f`` in the first row, survivals ``s`` below the
    diagonal."""
    from .. import numpy as fnp
    check_arraylike("leslie", f, s)
    f, s = fnp.asarray(f), fnp.asarray(s)
    d = fnp.result_type(f, s)
    n = f.shape[-1]
    below = fnp.concatenate([fnp.diag(s.astype(d)), fnp.zeros((n - 1, 1), d)], axis=1)
    return fnp.concatenate([f.astype(d)[None, :], below], axis=0)


def _constant(m, dtype):
    from .. import numpy as fnp
    return fnp.asarray(m.astype(dtype))


def hilbert(n: int):
    """The n x n Hilbert matrix 1 / (i + j + 1)."""
    i = np.arange(n)
    return _constant(1.0 / (i[:, None] + i[None, :] + 1), np.float32)


def pascal(n: int, kind: str | None = None):
    """The n x n Pascal matrix: 'symmetric' (default) C(i + j, i), 'lower' C(i, j), 'upper'."""
    import math
    kind = kind or "symmetric"
    if kind not in ("symmetric", "lower", "upper"):
        raise ValueError(f"Expected kind to be 'symmetric', 'lower', or 'upper'; got {kind}")
    lower = np.array([[math.comb(i, j) for j in range(n)] for i in range(n)], np.float64)
    m = {"lower": lower, "upper": lower.T, "symmetric": lower @ lower.T}[kind]
    return _constant(m.reshape(n, n), np.float32)


def hadamard(n: int, dtype=int):
    """The Sylvester Hadamard matrix of order ``n`` (a power of 2)."""
    from ..core import dtypes
    if n < 1 or n & (n - 1):
        raise ValueError("n must be an positive a power of 2 integer")
    h = np.ones((1, 1))
    while h.shape[0] < n:
        h = np.block([[h, h], [h, -h]])
    return _constant(h, dtypes.canonicalize(np.dtype(dtype)))


def helmert(n: int, full: bool = False):
    """The Helmert matrix of order ``n`` (without its first row unless ``full``)."""
    h = np.zeros((n, n))
    h[0] = 1 / np.sqrt(n)
    for k in range(1, n):
        h[k, :k] = 1 / np.sqrt(k * (k + 1))
        h[k, k] = -k / np.sqrt(k * (k + 1))
    return _constant(h if full else h[1:], np.float32)


def dft(n: int, scale: str | None = None, *, dtype=None):
    """The n x n discrete Fourier transform matrix exp(-2 pi i j k / n), scaled by 1/n
    ('n') or 1/sqrt(n) ('sqrtn')."""
    from ..core import dtypes
    if scale not in (None, "sqrtn", "n"):
        raise ValueError(f"scale must be None, 'sqrtn', or 'n'; {scale!r} is not valid.")
    jk = np.outer(np.arange(n), np.arange(n)) % n
    m = np.exp(-2j * np.pi * jk / n)
    m = m / {None: 1, "n": n, "sqrtn": np.sqrt(n)}[scale]
    return _constant(m, dtypes.canonicalize(np.dtype(dtype or np.complex64)))


def __getattr__(name):
    from ..core import jax_names
    raise jax_names.missing(__name__, name)
