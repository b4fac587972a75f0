"""jax.scipy.sparse.linalg: the iterative solvers on a small SPD and a general matrix (as
matrices here; functions, pytrees, vmap, complex and errors in tests/test_scipy_solvers.py)."""
import numpy as np

from surface.common import c

JAX, OURS, REQUIRED = "jax.scipy.sparse.linalg", "frontend.scipy.sparse.linalg", None
R = np.random.default_rng(5)
M = R.normal(size=(6, 6)).astype(np.float32)
SPD = (M @ M.T + 6 * np.eye(6)).astype(np.float32)
GEN = (M + 6 * np.eye(6)).astype(np.float32)
B = R.normal(size=6).astype(np.float32)
JACOBI = np.diag(1 / np.diag(SPD)).astype(np.float32)
CASES = {
    "cg": [c(SPD, B), c(SPD, B, x0=B, tol=1e-3), c(SPD, B, M=JACOBI, maxiter=3),
           c(GEN[:, :5], B, _raises=ValueError)],
    "bicgstab": [c(GEN, B), c(GEN, B, atol=1e-3, tol=0.0), c(GEN, B, M=JACOBI, maxiter=2)],
    "gmres": [c(GEN, B), c(M, B, restart=2, maxiter=3), c(GEN, B, solve_method="incremental"),
              c(GEN, B, M=JACOBI, restart=3), c(GEN, B, solve_method="qr", _raises=ValueError)],
}
ELSEWHERE = {}
ABSENT = {}
