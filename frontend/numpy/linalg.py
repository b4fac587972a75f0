"""frontend.numpy.linalg: JAX's numpy linear algebra on the decomposition primitives
(LAPACK kernels on CPU) and dot_general: cholesky, det, slogdet, inv, solve, qr, eigh,
eigvalsh, svd, svdvals, pinv, matrix_power, matrix_rank, lstsq, norm, vector_norm,
matrix_norm. Operands are promoted to an inexact dtype; leading axes are a batch.

>>> import frontend.numpy as fnp
>>> fnp.linalg.solve(fnp.eye(2) * 2, fnp.ones(2))
Array([0.5, 0.5], dtype=float32)
"""
from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.ir import aval_of, literal
from ..lax import linalg as lax_linalg
from ..lax._convert import convert
from ..primitives.decompositions import take_rows
from . import _reductions as red
from ._core import (
    asarray,
    canonical_axis,
    check_arraylike,
    promote_dtypes_inexact,
)
from ._elementwise import (
    absolute,
    greater,
    greater_equal,
    less,
    log,
    multiply,
    power,
    sign,
    sqrt,
    true_divide,
)
from ._indexing import take_along_axis
from ._linalg import matmul
from ._linalg import outer as _outer
from ._linalg import tensordot as _tensordot
from ._manip import cross as _cross
from ._manip import vecdot as _vecdot
from ._matrix import diagonal as _diagonal_of
from ._matrix import trace as _trace
from ._numeric import conj, real
from ._shape import expand_dims, moveaxis, swapaxes
from ._shape import matrix_transpose as _matrix_transpose
from ._sorting import where

__all__ = ["cholesky", "det", "slogdet", "inv", "solve", "qr", "eigh", "eigvalsh", "svd",
           "svdvals", "pinv", "matrix_power", "matrix_rank", "lstsq", "norm", "vector_norm",
           "matrix_norm", "matrix_transpose", "diagonal", "trace", "outer", "tensordot",
           "vecdot", "cross", "multi_dot", "tensorinv", "tensorsolve", "cond", "eig", "eigvals",
           "EigResult", "EighResult", "QRResult", "SlogdetResult", "SVDResult"]


class EighResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class QRResult(NamedTuple):
    Q: object
    R: object


class SlogdetResult(NamedTuple):
    sign: object
    logabsdet: object


class EigResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class SVDResult(NamedTuple):
    U: object
    S: object
    Vh: object


def as_inexact(name, x):
    """x as an array of an inexact dtype (integers and bools: the default float)."""
    check_arraylike(name, x)
    return promote_dtypes_inexact(name, asarray(x))[0]


def _matrix(name, a, square=True):
    a = as_inexact(name, a)
    shp = aval_of(a).shape
    if len(shp) < 2 or (square and shp[-1] != shp[-2]):
        raise ValueError(f"Argument to {name} must have shape [..., n, n], got {shp}.")
    return a


def _mT(x):
    return swapaxes(x, -1, -2)


def _H(x):
    return lax_linalg.hermitian_transpose(x)


def _diagonal(x):
    """The diagonal x[..., i, i] of square matrices."""
    a = aval_of(x)
    n = a.shape[-1]
    idx = lax.broadcasted_iota(dtype=np.dtype(np.int32), shape=a.shape[:-2] + (n, 1), dimension=a.ndim - 2)
    return lax.reshape(take_along_axis(x, idx, axis=-1), new_sizes=a.shape[:-1],
                       dimensions=None)


def _hp(a, b):
    return matmul(a, b, precision="highest")


# ----------------------------------------------------------------------------- factorizations


def cholesky(a, *, upper: bool = False, symmetrize_input: bool = True):
    """The Cholesky factor of Hermitian positive-definite matrices: lower L with a = L L^H
    (``upper``: U = L^H with a = U^H U); NaNs where a matrix is not positive definite."""
    a = _matrix("cholesky", a)
    L = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
    return _H(L) if upper else L


def qr(a, mode: str = "reduced"):
    """QR decomposition: (Q, R) for modes 'reduced' (default) and 'complete', R for 'r',
    (a.mT, taus) of geqrf for 'raw'."""
    a = as_inexact("qr", a)
    if mode == "raw":
        r, taus = lax_linalg.geqrf(a)
        return QRResult(_mT(r), taus)
    if mode in ("reduced", "r", "full"):
        full = False
    elif mode == "complete":
        full = True
    else:
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = lax_linalg.qr(a, full_matrices=full)
    return r if mode == "r" else QRResult(q, r)


def eigh(a, UPLO=None, symmetrize_input: bool = True):  # noqa: N803
    """Eigenvalues (ascending) and eigenvectors (columns) of Hermitian matrices."""
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")
    a = _matrix("eigh", a)
    v, w = lax_linalg.eigh(a, lower=UPLO != "U", symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eig(a):
    """The eigenvalues and right eigenvectors (unit columns) of general square matrices,
    complex (LAPACK geev on the CPU, as JAX's)."""
    w, v = lax_linalg.eig(_matrix("eig", a), compute_left_eigenvectors=False)
    return EigResult(w, v)


def eigvals(a):
    """The (complex) eigenvalues of general square matrices."""
    return lax_linalg.eig(_matrix("eigvals", a), compute_left_eigenvectors=False,
                          compute_right_eigenvectors=False)[0]


def eigvalsh(a, UPLO="L", *, symmetrize_input: bool = True):  # noqa: N803
    """Eigenvalues (ascending) of Hermitian matrices."""
    return eigh(a, UPLO, symmetrize_input).eigenvalues


def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False,
        subset_by_index=None):
    """Singular value decomposition: (U, S, Vh) with a = U @ diag(S) @ Vh, singular values
    descending; S alone without ``compute_uv``."""
    a = as_inexact("svd", a)
    if aval_of(a).ndim < 2:
        raise TypeError(f"Input 0 to svd must have rank at least 2, but got shape="
                        f"{aval_of(a).shape}")
    if hermitian:
        w, v = lax_linalg.eigh(a)  # eigenvectors, eigenvalues
        s = absolute(v)
        k = aval_of(s).ndim - 1
        if not compute_uv:
            return lax.rev(lax.sort(s, dimension=k), dimensions=(k,))
        idx = lax.broadcasted_iota(dtype=np.dtype(np.int32), shape=aval_of(s).shape, dimension=k)
        s, idx, sg = lax.sort((s, idx, sign(v)), dimension=k, num_keys=1)
        s, idx, sg = (lax.rev(t, dimensions=(k,)) for t in (s, idx, sg))
        u = take_along_axis(w, lax.broadcast_in_dim(
            idx, shape=aval_of(idx).shape[:-1] + (1, aval_of(idx).shape[-1]),
            broadcast_dimensions=tuple(range(k)) + (k + 1,)), axis=-1)
        sg = convert(sg, aval_of(u).dtype)
        sg = lax.broadcast_in_dim(sg, shape=aval_of(u).shape,
                                  broadcast_dimensions=tuple(range(k)) + (k + 1,))
        return SVDResult(u, s, _H(lax.mul(u, sg)))
    out = lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv,
                         subset_by_index=subset_by_index)
    return SVDResult(*out) if compute_uv else out


def svdvals(x, /):
    """The singular values of x (descending)."""
    return svd(x, compute_uv=False)


# ----------------------------------------------------------------------------- determinants


def _lu_parts(a):
    lu, pivots, _ = lax_linalg.lu(a)
    n = aval_of(a).shape[-1]
    it = aval_of(pivots).dtype
    moved = lax.ne(pivots, lax.broadcasted_iota(dtype=it, shape=aval_of(pivots).shape,
                                                dimension=aval_of(pivots).ndim - 1))
    parity = red.count_nonzero(moved, axis=-1)
    return _diagonal(lu), parity, n


def _odd_sign(parity, dtype):
    """(-1) ** parity in ``dtype``."""
    odd = lax.rem(parity, convert(2, aval_of(parity).dtype))
    return convert(lax.sub(convert(1, aval_of(odd).dtype),
                           lax.mul(odd, convert(2, aval_of(odd).dtype))), dtype)


def det(a):
    """The determinant (by LU decomposition)."""
    a = _matrix("det", a)
    d = aval_of(a).dtype
    diag, parity, _ = _lu_parts(a)
    return lax.mul(_odd_sign(parity, d), red.prod(diag, axis=-1))


def slogdet(a, *, method=None):
    """(sign, log|det|) of the determinant (by LU decomposition): sign 0 and log|det| -inf
    for a singular matrix; for complex matrices sign has modulus 1."""
    if method not in (None, "lu"):
        raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' "
                         "(`None`).")
    a = _matrix("slogdet", a)
    d = aval_of(a).dtype
    diag, parity, _ = _lu_parts(a)
    zero = red.any(lax.eq(diag, convert(0, d)), axis=-1)
    if dtypes.is_complex(d):
        sgn = red.prod(lax.div(diag, convert(absolute(diag), d)), axis=-1)
    else:
        sgn = convert(1, d)
        parity = lax.add(parity, red.count_nonzero(lax.lt(diag, convert(0, d)),
                                                          axis=-1))
    sgn = where(zero, convert(0, d), lax.mul(sgn, _odd_sign(parity, d)))
    logdet = where(zero, convert(-np.inf, d), red.sum(convert(log(absolute(diag)), d), axis=-1))
    return SlogdetResult(sgn, real(logdet))


# ----------------------------------------------------------------------------- solves


def _batch_to(x, batch, core):
    a = aval_of(x)
    shape = tuple(batch) + tuple(core)
    if a.shape == shape:
        return x
    lead = len(shape) - a.ndim
    return lax.broadcast_in_dim(x, shape=shape, broadcast_dimensions=tuple(range(lead, len(shape))))


def lu_solve_factored(lu, perm, b, trans: int = 0):
    """Solve a x = b (``trans`` 0), a^T x = b (1) or a^H x = b (2) for x, given a's LU
    factors and row permutation (batch axes equal; b (..., m, k))."""
    if trans == 0:
        x = take_rows(b, perm)
        x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
        return lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)
    conj_ = trans == 2
    x = lax_linalg.triangular_solve(lu, b, left_side=True, lower=False, transpose_a=True,
                                    conjugate_a=conj_)
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True,
                                    transpose_a=True, conjugate_a=conj_)
    return take_rows(x, _inverse_permutation(perm))


def _inverse_permutation(perm):
    a = aval_of(perm)
    idx = lax.broadcasted_iota(dtype=a.dtype, shape=a.shape, dimension=a.ndim - 1)
    return lax.sort((perm, idx), dimension=a.ndim - 1, num_keys=1)[1]


def solve(a, b):
    """Solve a x = b for x (LU decomposition with partial pivoting). b is (..., m) — a
    vector — when it is 1-D, else (..., m, k); batch axes broadcast.

    >>> import frontend.numpy as fnp
    >>> fnp.linalg.solve(fnp.eye(2) * 2, fnp.ones(2))
    Array([0.5, 0.5], dtype=float32)
    """
    check_arraylike("solve", a, b)
    a, b = as_inexact_pair("solve", a, b)
    aa, ba = aval_of(a), aval_of(b)
    if aa.ndim < 2:
        raise ValueError(f"left hand array must be at least two dimensional; got a.shape="
                         f"{aa.shape}")
    m = aa.shape[-1]
    if aa.shape[-2] != m:
        raise ValueError(f"Argument to solve must have shape [..., n, n], got {aa.shape}.")
    if ba.ndim > 1 and aa.ndim == ba.ndim + 1 and m == ba.shape[-1] and m != ba.shape[-2]:
        raise ValueError(f"Invalid shapes for solve: {aa.shape}, {ba.shape}. Prior to JAX "
                         "v0.5.0, this would have been treated as a batched 1-dimensional "
                         "solve. To recover this behavior, use solve(a, b[..., None]).squeeze(-1).")
    vector = ba.ndim == 1
    if vector:
        b = lax.reshape(b, new_sizes=(m, 1), dimensions=None)
    bb = aval_of(b)
    if bb.shape[-2] != m:
        raise ValueError(f"inconsistent size for core dimension 'm': {bb.shape[-2]} vs {m} on "
                         "vectorized function with excluded=frozenset() and signature="
                         f"'{'(m,m),(m)->(m)' if vector else '(m,m),(m,n)->(m,n)'}'")
    batch = np.broadcast_shapes(aa.shape[:-2], bb.shape[:-2])
    lu, _, perm = lax_linalg.lu(a)
    lu = _batch_to(lu, batch, (m, m))
    perm = _batch_to(perm, batch, (m,))
    x = lu_solve_factored(lu, perm, _batch_to(b, batch, bb.shape[-2:]))
    return lax.reshape(x, new_sizes=batch + (m,), dimensions=None) if vector else x


def as_inexact_pair(name, a, b):
    check_arraylike(name, a, b)
    return promote_dtypes_inexact(name, asarray(a), asarray(b), broadcast=False)


def inv(a):
    """The inverse of square matrices (solve against the identity)."""
    a = _matrix("inv", a)
    aa = aval_of(a)
    n = aa.shape[-1]
    eye = asarray(np.eye(n, dtype=aa.dtype))
    return solve(a, _batch_to(eye, aa.shape[:-2], (n, n)))


def matrix_power(a, n):
    """a raised to the integer power n (repeated squaring; negative n inverts first)."""
    check_arraylike("matrix_power", a)
    a = asarray(a)
    aa = aval_of(a)
    if aa.ndim < 2:
        raise TypeError(f"{aa.ndim}-dimensional array given. Array must be at least "
                        "two-dimensional")
    if aa.shape[-2] != aa.shape[-1]:
        raise TypeError("Last 2 dimensions of the array must be square")
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"exponent must be an integer, got {n}") from None
    if n == 0:
        return _batch_to(asarray(np.eye(aa.shape[-1], dtype=aa.dtype)), aa.shape[:-2],
                         aa.shape[-2:])
    if n < 0:
        a, n = inv(a), -n
    z = result = None
    while n > 0:
        z = a if z is None else matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


def pinv(a, rtol=None, hermitian: bool = False):
    """The Moore-Penrose pseudo-inverse (singular values at most ``rtol`` times the largest
    count as zero; default 10 * max(m, n) * eps)."""
    a = as_inexact("pinv", a)
    aa = aval_of(a)
    m, n = aa.shape[-2:]
    if m == 0 or n == 0:
        return asarray(np.zeros(aa.shape[:-2] + (n, m), aa.dtype))
    a = conj(a)
    if rtol is None:
        rtol = 10.0 * max(m, n) * float(np.finfo(aa.dtype).eps)
    u, s, vh = svd(a, full_matrices=False, hermitian=hermitian)
    # singular values at most rtol times the largest one count as zero (1 / inf)
    cutoff = multiply(expand_dims(asarray(rtol), -1), s[..., 0:1])
    s = convert(where(greater(s, cutoff), s, np.inf), aval_of(u).dtype)
    return convert(_hp(_mT(vh), true_divide(_mT(u), s[..., None])), aa.dtype)


def matrix_rank(M, rtol=None, *, hermitian: bool = False):  # noqa: N803
    """The number of singular values above ``rtol`` (default: largest singular value times
    max(m, n) times eps)."""
    M = as_inexact("matrix_rank", M)
    a = aval_of(M)
    if a.ndim < 2:
        return convert(red.any(lax.ne(M, convert(0, a.dtype))), np.dtype(np.int32))
    S = svd(M, full_matrices=False, compute_uv=False, hermitian=hermitian)
    sd = aval_of(S).dtype
    if rtol is None:
        rtol = multiply(red.max(S, axis=-1),
                        literal(max(a.shape[-2:]) * float(np.finfo(sd).eps), sd))
    return red.sum(greater(S, expand_dims(convert(asarray(rtol), sd), -1)), axis=-1)


def lstsq(a, b, rcond=None, *, numpy_resid: bool = False):
    """The least-squares solution x of a @ x = b (2-D a; 1- or 2-D b) by SVD: (x,
    residuals, rank, singular values)."""
    check_arraylike("lstsq", a, b)
    a, b = as_inexact_pair("lstsq", a, b)
    aa, ba = aval_of(a), aval_of(b)
    if aa.shape[0] != ba.shape[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    b_ndim = ba.ndim
    if b_ndim == 1:
        b = lax.reshape(b, new_sizes=ba.shape + (1,), dimensions=None)
    if aa.ndim != 2:
        raise TypeError(f"{aa.ndim}-dimensional array given. Array must be two-dimensional")
    if aval_of(b).ndim != 2:
        raise TypeError(f"{b_ndim}-dimensional array given. Array must be one or "
                        "two-dimensional")
    m, n = aa.shape
    d = aa.dtype
    rd = np.dtype(np.finfo(d).dtype)
    bs = aval_of(b).shape
    if aa.size == 0:
        s = asarray(np.zeros(0, rd))
        rank = asarray(np.zeros((), dtypes.default_int()))
        x = asarray(np.zeros((n,) + bs[1:], d))
    else:
        eps = float(np.finfo(d).eps)
        if rcond is None:
            rc = literal(eps * max(n, m), rd)
        else:
            rc = convert(asarray(rcond), rd)
            rc = where(less(rc, 0), convert(eps, rd), rc)
        u, s, vt = svd(a, full_matrices=False)
        mask = greater_equal(s, multiply(rc, s[0]))
        rank = red.sum(mask)
        safe = convert(where(mask, s, 1), d)
        s_inv = where(mask, true_divide(1, safe), convert(0, d))[:, None]
        x = _hp(_H(vt), multiply(s_inv, _hp(_H(u), b)))
    if numpy_resid and (_concrete_int(rank) < n or m <= n):
        resid = asarray(np.zeros(0, rd))
    else:
        est = _hp(a, x)
        resid = power(norm(lax.sub(b, est), axis=0), 2)
    if b_ndim == 1:
        x = lax.reshape(x, new_sizes=(n,), dimensions=None)
    return x, resid, rank, s


def _concrete_int(x) -> int:
    return int(np.asarray(x))


# ----------------------------------------------------------------------------- norms


def _sq_sum(x, axis, keepdims):
    return sqrt(red.sum(real(lax.mul(x, conj(x))), axis=axis, keepdims=keepdims))


def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2):  # noqa: A002
    """The vector norm over ``axis`` (all axes when None): ord 2 (default), inf, -inf, 0
    (nonzero count), 1, or any other p (sum |x|^p)^(1/p)."""
    check_arraylike("jnp.linalg.vector_norm", x)
    (x,) = promote_dtypes_inexact("vector_norm", asarray(x))
    if ord is None or ord == 2:
        return _sq_sum(x, axis, keepdims)
    if ord == np.inf:
        return red.max(absolute(x), axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return red.min(absolute(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        return red.sum(lax.ne(x, convert(0, aval_of(x).dtype)),
                       dtype=np.finfo(aval_of(x).dtype).dtype, axis=axis, keepdims=keepdims)
    if ord == 1:
        return red.sum(absolute(x), axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        msg = f"Invalid order '{ord}' for vector norm."
        if ord == "inf":
            msg += "Use 'jax.numpy.inf' instead."
        if ord == "-inf":
            msg += "Use '-jax.numpy.inf' instead."
        raise ValueError(msg)
    ax = absolute(x)
    d = aval_of(ax).dtype
    out = red.sum(power(ax, convert(float(ord), d)), axis=axis, keepdims=keepdims)
    return power(out, convert(1.0 / float(ord), d))


def norm(x, ord=None, axis=None, keepdims: bool = False):  # noqa: A002
    """Vector norms (one axis) and matrix norms (two axes: None/'fro', 'nuc', 1, -1, 2,
    -2, inf, -inf), as numpy.linalg.norm.

    >>> import frontend.numpy as fnp
    >>> fnp.linalg.norm(fnp.array([3., 4.]))
    Array(5., dtype=float32)
    """
    check_arraylike("jnp.linalg.norm", x)
    (x,) = promote_dtypes_inexact("norm", asarray(x))
    nd = aval_of(x).ndim
    if axis is None:
        if ord is None:
            return _sq_sum(x, None, keepdims)
        axis = tuple(range(nd))
    elif isinstance(axis, tuple):
        axis = tuple(canonical_axis(a, nd) for a in axis)
    else:
        axis = (canonical_axis(operator.index(axis), nd),)
    if len(axis) == 1:
        return vector_norm(x, ord=2 if ord is None else ord, axis=axis, keepdims=keepdims)
    if len(axis) != 2:
        raise ValueError(f"Improper number of axes for norm: axis={axis}. Pass one axis to "
                         "compute a vector-norm, or two axes to compute a matrix-norm.")
    row, col = axis
    if ord is None or ord in ("f", "fro"):
        return _sq_sum(x, axis, keepdims)
    if ord in (1, -1):
        c = col - 1 if not keepdims and col > row else col
        sums = red.sum(absolute(x), axis=row, keepdims=keepdims)
        return red.max(sums, axis=c, keepdims=keepdims, initial=0) if ord == 1 else \
            red.min(sums, axis=c, keepdims=keepdims)
    if ord in (np.inf, -np.inf):
        r = row - 1 if not keepdims and row > col else row
        sums = red.sum(absolute(x), axis=col, keepdims=keepdims)
        return red.max(sums, axis=r, keepdims=keepdims, initial=0) if ord == np.inf else \
            red.min(sums, axis=r, keepdims=keepdims)
    if ord in ("nuc", 2, -2):
        s = svd(moveaxis(x, axis, (-2, -1)), compute_uv=False)
        if ord == 2:
            y = red.max(s, axis=-1, initial=0)
        elif ord == -2:
            y = red.min(s, axis=-1)
        else:
            y = red.sum(s, axis=-1)
        if keepdims:
            y = expand_dims(y, axis)
        return y
    raise ValueError(f"Invalid order '{ord}' for matrix norm.")


def matrix_norm(x, /, *, keepdims: bool = False, ord="fro"):  # noqa: A002
    """The matrix norm of the trailing two axes."""
    return norm(x, ord=ord, keepdims=keepdims, axis=(-2, -1))


# ----------------------------------------------------------------------------- array API names


def matrix_transpose(x, /):
    """x with its last two axes swapped."""
    return _matrix_transpose(x)


def diagonal(x, /, *, offset=0):
    """The diagonals of the matrices in the last two axes."""
    return _diagonal_of(x, offset=offset, axis1=-2, axis2=-1)


def trace(x, /, *, offset=0, dtype=None):
    """The traces of the matrices in the last two axes."""
    return _trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def outer(x1, x2, /):
    """The outer product of two 1-D arrays."""
    check_arraylike("outer", x1, x2)
    x1, x2 = asarray(x1), asarray(x2)
    if aval_of(x1).ndim != 1 or aval_of(x2).ndim != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are "
                         f"x1.ndim={aval_of(x1).ndim} and x2.ndim={aval_of(x2).ndim}")
    return _outer(x1, x2)


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None):
    """numpy's tensordot (the array API's keyword-only ``axes``)."""
    return _tensordot(x1, x2, axes, precision=precision, preferred_element_type=preferred_element_type)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """The conjugated dot product of vectors along ``axis`` (the rest broadcast)."""
    return _vecdot(x1, x2, axis=axis, precision=precision,
                   preferred_element_type=preferred_element_type)


def cross(x1, x2, /, *, axis=-1):
    """The cross product of 3-vectors along ``axis``."""
    check_arraylike("cross", x1, x2)
    x1, x2 = asarray(x1), asarray(x2)
    if aval_of(x1).shape[axis] != 3 or aval_of(x2).shape[axis] != 3:
        raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, but they "
                         f"have shape={aval_of(x1).shape} and shape={aval_of(x2).shape}")
    return _cross(x1, x2, axis=axis)


def multi_dot(arrays, *, precision=None):
    """The product of a chain of matrices (a 1-D first/last array: a row/column vector),
    multiplied in the cheapest order (numpy's dynamic program)."""
    arrs = [asarray(a) for a in arrays]
    if len(arrs) < 2:
        raise ValueError(f"multi_dot requires at least two arrays; got len(arrays)={len(arrs)}")
    first_1d, last_1d = aval_of(arrs[0]).ndim == 1, aval_of(arrs[-1]).ndim == 1
    if first_1d:
        arrs[0] = lax.reshape(arrs[0], new_sizes=(1,) + aval_of(arrs[0]).shape, dimensions=None)
    if last_1d:
        arrs[-1] = lax.reshape(arrs[-1], new_sizes=aval_of(arrs[-1]).shape + (1,),
                               dimensions=None)
    for k, a in enumerate(arrs):
        if aval_of(a).ndim != 2:
            raise ValueError(f"multi_dot: array {k} must be 2-dimensional (the first and last "
                             f"may be 1-dimensional), got shape {aval_of(a).shape}")
    dims = [aval_of(a).shape[0] for a in arrs] + [aval_of(arrs[-1]).shape[1]]
    n = len(arrs)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def product(i, j):
        if i == j:
            return arrs[i]
        k = split[i][j]
        return matmul(product(i, k), product(k + 1, j), precision=precision)
    out = product(0, n - 1)
    if first_1d:
        out = lax.reshape(out, new_sizes=aval_of(out).shape[1:], dimensions=None)
    if last_1d:
        out = lax.reshape(out, new_sizes=aval_of(out).shape[:-1], dimensions=None)
    return out


def tensorinv(a, ind=2):
    """The inverse of ``a`` seen as a matrix from its first ``ind`` axes to the rest."""
    a = as_inexact("tensorinv", a)
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError(f"ind must be a positive integer, got {ind}")
    shp = aval_of(a).shape
    rows, cols = shp[:ind], shp[ind:]
    m, n = int(np.prod(rows)), int(np.prod(cols))
    if m != n:
        raise ValueError(f"tensorinv: the first {ind} axes of a must have the size of the "
                         f"rest, got shape {shp}")
    inverse = inv(lax.reshape(a, new_sizes=(m, n), dimensions=None))
    return lax.reshape(inverse, new_sizes=cols + rows, dimensions=None)


def tensorsolve(a, b, axes=None):
    """x with tensordot(a, x, x.ndim) == b."""
    a, b = as_inexact_pair("tensorsolve", a, b)
    nd = aval_of(a).ndim
    if axes is not None:
        axes = [canonical_axis(ax, nd) for ax in axes]
        rest = [i for i in range(nd) if i not in axes]
        a = lax.transpose(a, permutation=tuple(rest + axes))
    shp = aval_of(a).shape
    bn = aval_of(b).ndim
    if shp[:bn] != aval_of(b).shape:
        raise ValueError("After moving axes to end, leading shape of a must match shape of b. "
                         f"got a.shape={shp}, b.shape={aval_of(b).shape}")
    out_shape = shp[bn:]
    m, n = int(np.prod(shp[:bn])), int(np.prod(out_shape))
    if m != n:
        raise ValueError(f"tensorsolve: a's leading axes (size {m}) must match the size of "
                         f"the solution ({n}); got shapes {shp} and {aval_of(b).shape}")
    x = solve(lax.reshape(a, new_sizes=(m, n), dimensions=None),
              lax.reshape(b, new_sizes=(m,), dimensions=None))
    return lax.reshape(x, new_sizes=out_shape, dimensions=None)


def cond(x, p=None):
    """The condition number of matrices: the ratio of extreme singular values (p None, 2,
    -2), else norm(x, p) * norm(inv(x), p) (inf where x is singular)."""
    x = as_inexact("cond", x)
    if aval_of(x).ndim < 2:
        raise ValueError(f"jnp.linalg.cond: input array must be at least 2D, got shape "
                         f"{aval_of(x).shape}")
    if p is None or p in (2, -2):
        s = svd(x, compute_uv=False)
        hi = lax.index_in_dim(s, 0, aval_of(s).ndim - 1, keepdims=False)
        lo = lax.index_in_dim(s, aval_of(s).shape[-1] - 1, aval_of(s).ndim - 1, keepdims=False)
        return true_divide(lo, hi) if p == -2 else true_divide(hi, lo)
    r = multiply(norm(x, ord=p, axis=(-2, -1)), norm(inv(x), ord=p, axis=(-2, -1)))
    nan = lax.ne(r, r)
    any_nan_input = red.any(lax.ne(x, x), axis=(-2, -1))
    inf = convert(float("inf"), aval_of(r).dtype)
    return lax.select(lax.bitwise_and(nan, lax.bitwise_not(any_nan_input)),
                      lax.broadcast_in_dim(inf, shape=aval_of(r).shape, broadcast_dimensions=()),
                      r)


def __getattr__(name):
    from ..core import jax_names
    raise jax_names.missing(__name__, name)
