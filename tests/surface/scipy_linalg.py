"""jax.scipy.linalg: the factorizations and solves on a small SPD / general matrix."""
import numpy as np

from surface.common import c

JAX, OURS, REQUIRED = "jax.scipy.linalg", "frontend.scipy.linalg", None
R = np.random.default_rng(3)
M = R.normal(size=(4, 4)).astype(np.float32)
SPD = (M @ M.T + 4 * np.eye(4)).astype(np.float32)
Bv = R.normal(size=(4, 2)).astype(np.float32)
V = np.float32([2.0, -1.0, 0.5, 3.0])
T = np.triu(M) + 4 * np.eye(4, dtype=np.float32)
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
}
ELSEWHERE = {}
TODO = "not implemented yet (issue 26)"
ABSENT = {n: TODO for n in [
    "convolution_matrix", "eigh_tridiagonal", "expm", "expm_frechet", "fiedler",
    "fiedler_companion", "funm", "hessenberg", "invhilbert", "invpascal", "qr_multiply",
    "rsf2csf", "schur", "solve_sylvester", "sqrtm"]}
