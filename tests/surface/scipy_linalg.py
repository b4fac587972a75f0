"""jax.scipy.linalg: the factorizations and solves on a small SPD / general matrix."""
import numpy as np

from surface.common import c

JAX, OURS, REQUIRED = "jax.scipy.linalg", "frontend.scipy.linalg", None
R = np.random.default_rng(3)
M = R.normal(size=(4, 4)).astype(np.float32)
SPD = (M @ M.T + 4 * np.eye(4)).astype(np.float32)
Bv = R.normal(size=(4, 2)).astype(np.float32)
T = np.triu(M) + 4 * np.eye(4, dtype=np.float32)
CASES = {
    "cholesky": [c(SPD), c(SPD, lower=True)], "det": [c(M)], "inv": [c(SPD)],
    "solve": [c(SPD, Bv), c(SPD, Bv, assume_a="pos")], "lu": [c(M)], "lu_factor": [c(M)],
    "solve_triangular": [c(T, Bv), c(T.T, Bv, lower=True, trans=1)],
    "cho_factor": [c(SPD, _compare=lambda o, t: np.testing.assert_allclose(
        np.triu(np.asarray(o[0])), np.triu(np.asarray(t[0])), rtol=1e-5, atol=1e-5))],
    "cho_solve": [c((np.linalg.cholesky(SPD).astype(np.float32), True), Bv, _jit=False)],
    "lu_solve": [c(__import__("scipy.linalg").linalg.lu_factor(M), Bv, _jit=False)],
}
ELSEWHERE = {}
TODO = "not implemented yet (issue 26)"
ABSENT = {n: TODO for n in [
    "block_diag", "circulant", "companion", "convolution_matrix", "dft", "eigh",
    "eigh_tridiagonal", "expm", "expm_frechet", "fiedler", "fiedler_companion", "funm",
    "hadamard", "hankel", "helmert", "hessenberg", "hilbert", "invhilbert", "invpascal",
    "leslie", "pascal", "polar", "qr", "qr_multiply", "rsf2csf", "schur", "solve_sylvester",
    "sqrtm", "svd", "toeplitz"]}
