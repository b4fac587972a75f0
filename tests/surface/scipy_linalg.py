"""jax.scipy.linalg: the factorizations and solves on a small SPD / general matrix."""
import numpy as np

from surface.common import c

JAX, OURS, REQUIRED = "jax.scipy.linalg", "frontend.scipy.linalg", 0.95
R = np.random.default_rng(3)
M = R.normal(size=(4, 4)).astype(np.float32)
SPD = (M @ M.T + 4 * np.eye(4)).astype(np.float32)
Bv = R.normal(size=(4, 2)).astype(np.float32)
V = np.float32([2.0, -1.0, 0.5, 3.0])
T = np.triu(M) + 4 * np.eye(4, dtype=np.float32)


def _eigenpairs(ours, theirs):
    """Eigenvalues equal; eigenvectors equal up to each one's sign."""
    np.testing.assert_allclose(np.asarray(ours[0]), np.asarray(theirs[0]), rtol=1e-5, atol=1e-5)
    o, t = np.asarray(ours[1]), np.asarray(theirs[1])
    np.testing.assert_allclose(o * np.sign(o[:1] * t[:1]), t, rtol=1e-4, atol=1e-4)


CASES = {
    "cholesky": [c(SPD), c(SPD, lower=True)], "det": [c(M)], "inv": [c(SPD)],
    "solve": [c(SPD, Bv), c(SPD, Bv, assume_a="pos")], "lu": [c(M)], "lu_factor": [c(M)],
    "solve_triangular": [c(T, Bv), c(T.T, Bv, lower=True, trans=1)],
    "cho_factor": [c(SPD, _compare=lambda o, t: np.testing.assert_allclose(
        np.triu(np.asarray(o[0])), np.triu(np.asarray(t[0])), rtol=1e-5, atol=1e-5))],
    "cho_solve": [c((np.linalg.cholesky(SPD).astype(np.float32), True), Bv, _jit=False)],
    "lu_solve": [c(__import__("scipy.linalg").linalg.lu_factor(M), Bv, _jit=False)],
    "eigh": [c(SPD), c(SPD, lower=False, eigvals_only=True),
             c(SPD, SPD, _raises=NotImplementedError)],
    "svd": [c(M), c(M[:, :3], full_matrices=False), c(M, compute_uv=False)],
    "qr": [c(M), c(M[:, :2], mode="economic"), c(M, mode="r"), c(M, mode="bad", _raises=ValueError)],
    "polar": [c(M), c(M, "left", method="svd"), c(M, "left", _raises=NotImplementedError)],
    "block_diag": [c(M[:1, :2], M[:2, :1], _jit=False), c(M[:2], np.float32(2.0))],
    "toeplitz": [c(V), c(V, V[:2] + 1), c(V.astype(np.int32))],
    "hankel": [c(V), c(V, V[::-1] + 3)], "circulant": [c(V)],
    "companion": [c(V + 1)], "leslie": [c(V, V[:3])],
    "hilbert": [c(4, _jit=False)], "hadamard": [c(8, _jit=False), c(3, _jit=False, _raises=ValueError)],
    "pascal": [c(5, _jit=False), c(5, "lower", _jit=False), c(4, "upper", _jit=False)],
    "helmert": [c(4, _jit=False), c(4, True, _jit=False)],
    "dft": [c(5, _jit=False), c(4, "n", _jit=False), c(4, "sqrtn", _jit=False)],
    "fiedler": [c(V), c(V.astype(np.int32)), c(np.stack([V, V + 1])), c(3.0, _jit=False)],
    "fiedler_companion": [c(V), c(np.float32([1, -16, 86, -176, 105])), c(V[:2]), c(V[:1]),
                          c(np.stack([V, V[::-1]])), c(V[:0], _raises=ValueError)],
    "convolution_matrix": [c(V[:3], 4), c(V[:3], 5, "same"), c(V, 2, "same"), c(V[:3], 5, "valid"),
                           c(V.astype(np.int32), 3, "valid"), c(np.stack([V, V]), 3),
                           c(V, 0, _raises=ValueError), c(V, 3, "wide", _raises=ValueError)],
    "invhilbert": [c(4, _jit=False), c(1, _jit=False), c(0, _jit=False)],
    "invpascal": [c(4, _jit=False), c(5, "lower", _jit=False), c(3, "upper", _jit=False),
                  c(3, "bad", _jit=False, _raises=ValueError)],
    "qr_multiply": [c(M[:, :3], V), c(M[:, :3], V[:3], "left"), c(M[:3], M[:2, :3], conjugate=True),
                    c(M, Bv, "left"), c(M, V, "up", _raises=ValueError),
                    c(M[:, :3], V[:3], _raises=ValueError)],
    "expm": [c(M), c(M * 10), c(M / 20), c(np.stack([M, -M])), c(T / 4, upper_triangular=True),
             c(M * 1e6, max_squarings=4), c(M[:3], _raises=ValueError)],
    "expm_frechet": [c(M, SPD / 8), c(M / 20, M, compute_expm=False),
                     c(M, M[:3, :3], _raises=ValueError)],
    "eigh_tridiagonal": [c(V, V[:3] / 2, eigvals_only=True),
                         c(V, V[:3] / 2, eigvals_only=True, select="i", select_range=(1, 2)),
                         c(V, V[:3] / 2, _compare=_eigenpairs),
                         c(V.astype(np.int32), V[:3].astype(np.int32), _raises=TypeError)],
    "schur": [c(M), c(M, "complex"), c(np.stack([M, M.T])), c(M.astype(np.complex64)),
              c(M, "bad", _raises=ValueError), c(M[:3], _raises=ValueError)],
    "hessenberg": [c(M), c(M, calc_q=True), c(np.stack([M, SPD]), calc_q=True),
                   c(M.astype(np.complex64), calc_q=True), c(M[:3], _raises=ValueError),
                   c(M.astype(np.int32), _raises=TypeError)],
    "rsf2csf": [c(*__import__("scipy.linalg").linalg.schur(M.astype(np.float64)).__iter__()),
                c(M, M[:3, :3], _raises=ValueError)],
    "sqrtm": [c(M), c(SPD), c(M, blocksize=2, _raises=NotImplementedError)],
    "funm": [c(M, lambda w: w * w + 1), c(SPD / 10, lambda w: w ** 3, disp=False),
             c(M[:3], lambda w: w, _raises=ValueError)],
    "solve_sylvester": [c(SPD, SPD[:3, :3], M[:, :3]),
                        c(SPD, M[:3, :3] + 4 * np.eye(3, dtype=np.float32), M[:, :3], method="eigen"),
                        c(np.eye(2, dtype=np.float32), -np.eye(2, dtype=np.float32), M[:2, :2]),
                        c(np.stack([SPD, SPD * 2]), SPD[:3, :3], M[:, :3]),
                        c(SPD, SPD, M[:, :3], _raises=ValueError),
                        c(SPD, SPD, M, method="qr", _raises=ValueError)],
}
ELSEWHERE = {}
ABSENT = {}
