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


def fiedler(a):
    """The Fiedler matrix ``|a[i] - a[j]|`` of the vector ``a`` (the last axis; leading axes
    batch)."""
    from .. import numpy as fnp
    check_arraylike("fiedler", a)
    a = fnp.atleast_1d(a)
    return fnp.abs(a[..., :, None] - a[..., None, :])


def _fiedler_companion_pattern(n: int) -> np.ndarray:
    """Indices into [-a_1 .. -a_n, 1, 0] (a normalized by a_0) of the n x n Fiedler
    companion matrix: -a_1 and 1 down the first column, then per even row i the entries
    -a_{i+2} and 1 right of the diagonal and -a_{i+1} left of it, a 1 two left on odd rows."""
    one, zero = n, n + 1
    idx = np.full((n, n), zero)
    if n == 0:
        return idx
    idx[0, 0] = 0
    if n > 1:
        idx[1, 0] = one
    for i in range(0, n, 2):
        if i + 1 < n:
            idx[i, i + 1] = i + 1
        if i + 2 < n:
            idx[i, i + 2] = one
        if i >= 2:
            idx[i, i - 1] = i
    for i in range(3, n, 2):
        idx[i, i - 2] = one
    return idx


def fiedler_companion(a):
    """The Fiedler companion matrix of the polynomial with coefficients ``a`` (highest
    first): pentadiagonal, with the polynomial's roots as eigenvalues."""
    from .. import numpy as fnp
    check_arraylike("fiedler_companion", a)
    a = fnp.atleast_1d(np_linalg.as_inexact("fiedler_companion", a))
    if a.shape[-1] == 0:
        raise ValueError("fiedler_companion requires the last axis of 'a' to have nonzero "
                         f"length, but got an array of shape {a.shape}.")
    n = a.shape[-1] - 1
    vals = -a[..., 1:] / a[..., :1]
    ones = fnp.ones(a.shape[:-1] + (1,), a.dtype)
    vals = fnp.concatenate([vals, ones, fnp.zeros_like(ones)], axis=-1)
    return _take_pattern(vals, _fiedler_companion_pattern(n).reshape(n, n))


def convolution_matrix(a, n: int, mode: str = "full"):
    """The matrix ``A`` with ``A @ v == numpy.convolve(a, v, mode)`` for vectors ``v`` of
    length ``n`` (Toeplitz; leading axes of ``a`` batch)."""
    import operator

    from .. import numpy as fnp
    n = operator.index(n)
    if n <= 0:
        raise ValueError(f"n must be a positive integer; got {n}.")
    check_arraylike("convolution_matrix", a)
    a = fnp.asarray(a)
    if a.ndim == 0:
        raise ValueError("convolution_matrix: a must be at least 1-dimensional, got a scalar.")
    m = a.shape[-1]
    if m < 1:
        raise ValueError(f"len(a) must be at least 1; got shape {a.shape}.")
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    # row r of the full matrix holds a[r - j] in column j (zero outside 0 <= r - j < m)
    full = np.arange(m + n - 1)[:, None] - np.arange(n)[None, :]
    full = np.where((full >= 0) & (full < m), full, m)
    if mode == "same":
        trim = min(n, m) - 1
        first, last = trim // 2, trim - trim // 2
    else:
        first = last = min(n, m) - 1 if mode == "valid" else 0
    vals = fnp.concatenate([a, fnp.zeros(a.shape[:-1] + (1,), a.dtype)], axis=-1)
    return _take_pattern(vals, full[first:m + n - 1 - last])


def invhilbert(n: int):
    """The inverse of the n x n Hilbert matrix (from its closed form, exactly rounded)."""
    import math
    inv = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            inv[i, j] = ((-1) ** (i + j) * (i + j + 1) * math.comb(n + i, n - j - 1)
                         * math.comb(n + j, n - i - 1) * math.comb(i + j, i) ** 2)
    return _constant(inv, np.float32)


def invpascal(n: int, kind: str | None = None):
    """The inverse of ``pascal(n, kind)``: the lower one's is (-1)^(i+j) C(i, j), the
    symmetric one's the product of the triangular ones' inverses."""
    import math
    kind = kind or "symmetric"
    if kind not in ("symmetric", "lower", "upper"):
        raise ValueError(f"Expected kind to be one of: ['symmetric', 'lower', 'upper']; got {kind}")
    lower = np.array([[(-1) ** (i + j) * math.comb(i, j) for j in range(n)] for i in range(n)],
                     np.float64).reshape(n, n)
    m = {"lower": lower, "upper": lower.T, "symmetric": lower.T @ lower}[kind]
    return _constant(m, np.float32)


def qr_multiply(a, c, mode: str = "right", pivoting: bool = False, conjugate: bool = False,
                overwrite_a: bool = False, overwrite_c: bool = False):
    """``(c @ Q, R)`` (mode 'right') or ``(Q @ c, R)`` ('left') for the economic QR
    decomposition of ``a`` (Q conjugated with ``conjugate``); a vector c stays a vector."""
    from .. import numpy as fnp
    if pivoting:
        raise NotImplementedError("qr_multiply(pivoting=True) is not implemented in vmaplab.")
    a, c = np_linalg.as_inexact_pair("qr_multiply", a, c)
    if mode not in ("right", "left"):
        raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
    onedim = c.ndim == 1
    if onedim:
        c = c[:, None] if mode == "left" else c[None, :]
    m, n = a.shape[-2:]
    k = min(m, n)
    if mode == "left" and c.shape[-2] != k:
        raise ValueError(f"Array shapes are not compatible for Q @ c operation: a has shape "
                         f"{tuple(a.shape)} so Q has {k} columns, but c has {c.shape[-2]} rows "
                         f"(expected {k}).")
    if mode == "right" and c.shape[-1] != m:
        raise ValueError(f"Array shapes are not compatible for c @ Q operation: a has shape "
                         f"{tuple(a.shape)} so Q has {m} rows, but c has {c.shape[-1]} columns "
                         f"(expected {m}).")
    q, r = np_linalg.qr(a, mode="reduced")
    if conjugate:
        q = fnp.conj(q)
    cq = matmul(q, c, precision="highest") if mode == "left" else matmul(c, q, precision="highest")
    return (cq.ravel() if onedim else cq), r


def eigh_tridiagonal(d, e, *, eigvals_only: bool = False, select: str = "a",
                     select_range=None, tol=None, key=None):
    """Eigenvalues (ascending; with ``select='i'`` those of indices ``select_range`` [lo,
    hi]) and, unless ``eigvals_only``, unit eigenvectors (columns) of the Hermitian
    tridiagonal matrix with diagonal ``d`` and subdiagonal ``e``. (JAX bisects and
    inverse-iterates; here the dense matrix's eigh gives the same eigenpairs, eigenvector
    signs aside.)"""
    from .. import numpy as fnp
    d, e = fnp.asarray(d), fnp.asarray(e)
    if d.dtype != e.dtype:
        raise TypeError("diagonal and off-diagonal values must have same dtype, got "
                        f"{d.dtype} and {e.dtype}")
    if d.dtype not in (np.float32, np.float64, np.complex64, np.complex128):
        raise TypeError("Only float32 and float64 inputs are supported as inputs to "
                        f"jax.scipy.linalg.eigh_tridiagonal, got {d.dtype} and {e.dtype}")
    n = d.shape[0]
    if select == "i":
        if select_range is None:
            raise ValueError("for select='i', select_range must be specified.")
        if select_range[0] > select_range[1]:
            raise ValueError("Got empty index range in select_range.")
        lo, hi = int(select_range[0]), int(select_range[1]) + 1
    elif select == "v":
        raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented")
    elif select == "a":
        lo, hi = 0, n
    else:
        raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
    if n <= 1:
        return fnp.real(d) if eigvals_only else (fnp.real(d), fnp.eye(n, dtype=d.dtype))
    t = fnp.diag(d) + fnp.diag(e, -1) + fnp.diag(fnp.conj(e), 1)
    w, v = np_linalg.eigh(t, UPLO="L")
    return w[lo:hi] if eigvals_only else (w[lo:hi], v[:, lo:hi])


# ---- the matrix exponential: Pade approximants with scaling and squaring (Higham 2005) ----

# the numerator's coefficients b_0..b_m of the degree-m Pade approximant of exp
_PADE = {
    3: (120., 60., 12., 1.),
    5: (30240., 15120., 3360., 420., 30., 1.),
    7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
    9: (17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160., 110880.,
        3960., 90., 1.),
    13: (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
         129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
         40840800., 960960., 16380., 182., 1.),
}
# (the 1-norm bounds below which each degree is accurate, the largest degree's bound) per
# precision, as JAX chooses them: 32-bit floats stop at degree 7
_PADE_BOUNDS = {
    32: ((0.4258730016922831, 1.880152677804762), (3, 5, 7), 3.925724783138660),
    64: ((0.01495585217958292, 0.2539398330063230, 0.9504178996162932, 2.097847961257068),
         (3, 5, 7, 9, 13), 5.371920351148152),
}


def _hdot(a, b):
    return matmul(a, b, precision="highest")


def _pade(a, degree: int):
    """(U, V): the odd and even parts of the Pade numerator at a (p = V + U, q = V - U)."""
    from .. import numpy as fnp
    b = _PADE[degree]
    eye = fnp.eye(a.shape[-1], dtype=a.dtype)
    a2 = _hdot(a, a)
    powers = [eye, a2]  # a^0, a^2, a^4, ... up to a^(degree - 1) (a^6 for degree 13)
    while len(powers) < min(degree // 2 + 1, 4):
        powers.append(_hdot(powers[-1], a2))
    if degree == 13:  # a^8..a^12 through a^6 times a degree-6 polynomial
        eye, a2, a4, a6 = powers
        u = _hdot(a, _hdot(a6, b[13] * a6 + b[11] * a4 + b[9] * a2)
                  + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
        v = _hdot(a6, b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 \
            + b[2] * a2 + b[0] * eye
        return u, v
    u = _hdot(a, sum(b[2 * j + 1] * p for j, p in enumerate(powers)))
    v = sum(b[2 * j] * p for j, p in enumerate(powers))
    return u, v


def _expm2d(a, upper_triangular: bool, max_squarings: int):
    from .. import numpy as fnp
    bounds, degrees, top = _PADE_BOUNDS[64 if np.finfo(a.dtype).bits == 64 else 32]
    norm = np_linalg.norm(a, 1)
    squarings = fnp.maximum(0, fnp.floor(fnp.log2(norm / top)))
    a = a / (2 ** squarings).astype(a.dtype)
    which = sum(convert(norm > c, np.int32) for c in bounds)
    u, v = lax.switch(which, [lambda x, d=d: _pade(x, d) for d in degrees], a)
    p, q = v + u, v - u
    r = solve_triangular(q, p) if upper_triangular else np_linalg.solve(q, p)
    r = lax.fori_loop(0, max_squarings, lambda i, r: fnp.where(i < squarings, _hdot(r, r), r), r)
    return fnp.where(squarings > max_squarings, np.nan, r).astype(r.dtype)


def expm(A, *, upper_triangular: bool = False, max_squarings: int = 16):
    """The matrix exponential of the (batch of) square matrix ``A``: a Pade approximant of
    degree 3 to 13 (7 in 32 bits) chosen by A's 1-norm, after scaling A by 2^-s, then s
    squarings; NaN where s would exceed ``max_squarings``. Differentiable.

    >>> import numpy as np
    >>> from frontend.scipy.linalg import expm
    >>> np.round(np.asarray(expm(np.float32([[0, 1], [-1, 0]]))).astype(float), 4).tolist()
    [[0.5403, 0.8415], [-0.8415, 0.5403]]
    """
    from ..transforms.vmap import vmap
    a = np_linalg.as_inexact("expm", A)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Expected A to be a (batched) square matrix, got A.shape={a.shape}.")

    def f(x):
        return _expm2d(x, upper_triangular, max_squarings)
    for _ in range(a.ndim - 2):
        f = vmap(f)
    return f(a)


def expm_frechet(A, E, *, method=None, compute_expm: bool = True):
    """The Frechet derivative of expm at ``A`` in the direction ``E`` (``(expm(A), L)``, or
    ``L`` alone without ``compute_expm``): the top right block of the exponential of
    [[A, E], [0, A]]."""
    from .. import numpy as fnp
    a, e = np_linalg.as_inexact_pair("expm_frechet", A, E)
    if a.ndim < 2 or a.shape[-2] != a.shape[-1]:
        raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={a.shape}")
    if e.ndim < 2 or e.shape[-2] != e.shape[-1]:
        raise ValueError(f"expected E to be a (batched) square matrix, got E.shape={e.shape}")
    if a.shape != e.shape:
        raise ValueError(f"expected A and E to be the same shape, got A.shape={a.shape} "
                         f"E.shape={e.shape}")
    n = a.shape[-1]
    block = fnp.concatenate([fnp.concatenate([a, e], axis=-1),
                             fnp.concatenate([fnp.zeros_like(a), a], axis=-1)], axis=-2)
    big = expm(block)
    frechet = big[..., :n, n:]
    return (big[..., :n, :n], frechet) if compute_expm else frechet


# ---- Schur-based: schur, hessenberg, rsf2csf, sqrtm ---------------------------------------


def _batched(f, ndim: int, core: int = 2):
    """``f`` on (..., core axes) arrays, vmapped over the leading axes."""
    from ..transforms.vmap import vmap
    for _ in range(ndim - core):
        f = vmap(f)
    return f


def schur(a, output: str = "real"):
    """The Schur decomposition ``a = z t z^H``: ``(t, z)``, t upper triangular ('complex')
    or quasi-triangular with 2x2 blocks for complex eigenvalue pairs ('real', for a real a).
    LAPACK's gees: CPU only, as in JAX."""
    from .. import numpy as fnp
    if output not in ("real", "complex"):
        raise ValueError(f"Expected 'output' to be either 'real' or 'complex', got {output=}.")
    a = fnp.asarray(a)
    if output == "complex":
        a = a.astype(np.result_type(a.dtype, np.complex64))
    return lax_linalg.schur(a)


def hessenberg(a, *, calc_q: bool = False, overwrite_a: bool = False,
               check_finite: bool = True):
    """The upper Hessenberg form ``h`` of the square ``a`` (``a = q h q^H``), and with
    ``calc_q`` the unitary ``q``: ``(h, q)``."""
    from .. import numpy as fnp
    a = fnp.asarray(a)
    n = a.shape[-1]
    if n == 0:
        return (fnp.zeros_like(a), fnp.zeros_like(a)) if calc_q else fnp.zeros_like(a)
    packed, taus = lax_linalg.hessenberg(a)
    h = lax_linalg.triu(packed, -1)
    if not calc_q:
        return h
    # q = diag(1, Q') with Q' the product of the reflectors stored below the subdiagonal
    inner = lax_linalg.householder_product(packed[..., 1:, :-1], taus)
    batch = packed.shape[:-2]
    top = fnp.concatenate([fnp.ones(batch + (1, 1), a.dtype), fnp.zeros(batch + (1, n - 1), a.dtype)],
                          axis=-1)
    rest = fnp.concatenate([fnp.zeros(batch + (n - 1, 1), a.dtype), inner], axis=-1)
    return h, fnp.concatenate([top, rest], axis=-2)


def _rsf2csf2d(t, z):
    from .. import numpy as fnp
    n = t.shape[-1]
    eps = fnp.finfo(t.dtype).eps
    rows = np.arange(n)
    for m in range(n - 1, 0, -1):  # a Givens rotation splits each 2x2 block (bottom up)
        sub = t[m, m - 1]
        split = fnp.abs(sub) > eps * (fnp.abs(t[m - 1, m - 1]) + fnp.abs(t[m, m]))
        mu = np_linalg.eigvals(t[m - 1:m + 1, m - 1:m + 1])[0].astype(t.dtype) - t[m, m]
        r = fnp.sqrt(fnp.abs(mu) ** 2 + fnp.abs(sub) ** 2).astype(t.dtype)
        c, s = mu / r, sub / r
        g = fnp.stack([fnp.stack([fnp.conj(c), s]), fnp.stack([-s, c])])
        gh = fnp.conj(g.T)
        cols = rows >= m - 1  # G from the left on rows m-1, m (columns m-1 on)
        pair = t[m - 1:m + 1]
        t_new = t.at[m - 1:m + 1].set(fnp.where(cols, _hdot(g, pair), pair))
        upper = (rows < m + 1)[:, None]  # G^H from the right on columns m-1, m (rows to m)
        pair = t_new[:, m - 1:m + 1]
        t_new = t_new.at[:, m - 1:m + 1].set(fnp.where(upper, _hdot(pair, gh), pair))
        z_new = z.at[:, m - 1:m + 1].set(_hdot(z[:, m - 1:m + 1], gh))
        t, z = fnp.where(split, t_new, t), fnp.where(split, z_new, z)
        t = t.at[m, m - 1].set(0)
    return t, z


def rsf2csf(T, Z, check_finite: bool = True):
    """The complex Schur form ``(t, z)`` from a real one ``(T, Z)`` (``schur(a)``'s): each
    2x2 block of a complex eigenvalue pair split by a Givens rotation."""
    from .. import numpy as fnp
    t, z = fnp.asarray(T), fnp.asarray(Z)
    if t.ndim < 2 or t.shape[-1] != t.shape[-2]:
        raise ValueError("Input 'T' must be square.")
    if z.ndim < 2 or z.shape[-1] != z.shape[-2]:
        raise ValueError("Input 'Z' must be square.")
    if t.shape[-1] != z.shape[-1]:
        raise ValueError(f"Input array shapes must match: Z: {z.shape} vs. T: {t.shape}")
    d = np.result_type(t.dtype, z.dtype, np.complex64)
    t, z = t.astype(d), z.astype(d)
    if t.shape[-1] == 1:
        return t, z
    return _batched(_rsf2csf2d, t.ndim)(t, z)


def _sqrt_triangular(t):
    """The upper triangular square root u of the upper triangular t (u @ u = t), column by
    column, each column from the diagonal up (Bjorck & Hammarling 1983)."""
    from .. import numpy as fnp
    n = t.shape[-1]
    diag = fnp.sqrt(fnp.diagonal(t))
    idx = fnp.arange(n)

    def column(j, u):
        def entry(step, u):
            i = j - 1 - step
            between = (idx > i) & (idx < j)
            s = fnp.sum(fnp.where(between, u[i, :] * u[:, j], 0))
            value = fnp.where(t[i, j] == s, 0, (t[i, j] - s) / (diag[i] + diag[j]))
            return u.at[i, j].set(value.astype(u.dtype))
        return lax.fori_loop(0, j, entry, u)
    return lax.fori_loop(0, n, column, fnp.diag(diag))


def sqrtm(A, blocksize: int = 1):
    """The principal matrix square root of ``A`` (complex), from its complex Schur form."""
    from .. import numpy as fnp
    if blocksize > 1:
        raise NotImplementedError("Blocked version is not implemented yet.")
    a = fnp.asarray(A)
    t, z = schur(a, output="complex")
    root = _batched(_sqrt_triangular, a.ndim)(t)
    return _hdot(_hdot(z, root), _mH(z))


def _parlett(f, t):
    """Parlett's recurrence (Golub & Van Loan, algorithm 11.1.1): the upper triangle of
    F = func(T) from its diagonal, superdiagonal by superdiagonal; (F, the smallest
    |t_jj - t_ii| divided by)."""
    from .. import numpy as fnp
    n = t.shape[-1]
    idx = fnp.arange(n)

    def diagonal(p, carry):
        def entry(i, carry):
            f, minden = carry
            j = i + p
            between = (idx > i) & (idx < j)
            s = t[i, j] * (f[j, j] - f[i, i]) \
                + fnp.sum(fnp.where(between, t[i, :] * f[:, j] - f[i, :] * t[:, j], 0))
            den = t[j, j] - t[i, i]
            s = fnp.where(den != 0, s / fnp.where(den != 0, den, 1), s)
            return f.at[i, j].set(s), fnp.minimum(minden, fnp.abs(den))
        return lax.fori_loop(0, n - p, entry, carry)
    return lax.fori_loop(1, n, diagonal, (f, fnp.abs(t[0, 0])))


def funm(A, func, disp: bool = True):
    """The matrix function ``func(A)`` (``func`` applied to a vector of eigenvalues) by
    Parlett's recurrence on the complex Schur form; without ``disp``, ``(F, err)`` with an
    estimate of the relative error (as scipy's and JAX's)."""
    from .. import numpy as fnp
    a = fnp.asarray(A)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError("expected square array_like input")
    t, z = rsf2csf(*schur(a))
    f = fnp.diag(func(fnp.diagonal(t))).astype(t.dtype)
    f, minden = _parlett(f, t)
    f = _hdot(_hdot(z, f), _mH(z))
    if disp:
        return f
    tol = fnp.finfo(np.float32 if f.dtype == np.complex64 else np.float64).eps
    minden = fnp.where(minden == 0, tol, minden)
    bound = fnp.minimum(1, fnp.maximum(tol, (tol / minden) * np_linalg.norm(lax_linalg.triu(t, 1), 1)))
    return f, fnp.where(fnp.any(fnp.isinf(f)), np.inf, bound)


def _sylvester2d(a, b, c, method: str, tol):
    from .. import numpy as fnp
    if method == "schur":  # Bartels-Stewart: R Y + Y S = U^H C V, column by column
        r, u = schur(a, output="complex")
        s, v = schur(b, output="complex")
        rhs = _hdot(_hdot(_mH(u), c.astype(r.dtype)), v)
        eye = fnp.eye(r.shape[-1], dtype=r.dtype)

        def column(k, y):
            y_k = solve_triangular(r + s[k, k] * eye, rhs[:, k] - _hdot(y, s[:, k]))
            return y.at[:, k].set(y_k)
        y = lax.fori_loop(0, s.shape[-1], column, fnp.zeros_like(rhs))
        x = _hdot(_hdot(u, y), _mH(v))
    elif method == "eigen":  # diagonalize both: Y = (UA^-1 C UB) / (wa_i + wb_j)
        wa, ua = np_linalg.eig(a)
        wb, ub = np_linalg.eig(b)
        y = np_linalg.solve(ua, _hdot(c.astype(wa.dtype), ub)) / (wa[:, None] + wb[None, :])
        x = _hdot(_hdot(ua, y), np_linalg.inv(ub))
    else:
        raise ValueError(f'Unrecognized method {method}. The two valid methods are either '
                         f'"schur" or "eigen".')
    if not fnp.iscomplexobj(c):
        x = fnp.real(x)
    sums = np_linalg.eigvals(a)[:, None] + np_linalg.eigvals(b)[None, :]
    return fnp.where(fnp.any(fnp.abs(sums) < tol), np.nan, x).astype(x.dtype)


def solve_sylvester(A, B, C, *, method: str = "schur", tol: float = 1e-8):
    """The solution X of the Sylvester equation ``A X + X B = C`` (Bartels-Stewart on the
    complex Schur forms, 'schur', or by eigendecompositions, 'eigen'); NaNs where an
    eigenvalue of A plus one of B is within ``tol`` of 0 (no unique solution)."""
    from .. import numpy as fnp
    a, b, c = (np_linalg.as_inexact("solve_sylvester", x) for x in (A, B, C))
    d = fnp.result_type(a, b, c)
    a, b, c = a.astype(d), b.astype(d), c.astype(d)
    m, n = c.shape[-2:]
    if a.shape[-2:] != (m, m) or b.shape[-2:] != (n, n):
        raise ValueError(f"Incompatible shapes for Sylvester equation:\nA: {a.shape}\nB: "
                         f"{b.shape}\nC: {c.shape}")
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2], c.shape[:-2])
    a, b, c = (fnp.broadcast_to(x, batch + x.shape[-2:]) for x in (a, b, c))
    return _batched(lambda a, b, c: _sylvester2d(a, b, c, method, tol), c.ndim)(a, b, c)
