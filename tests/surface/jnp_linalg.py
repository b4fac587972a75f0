"""jax.numpy.linalg: every public name compared with JAX on a small well-conditioned float32
matrix (and a batch, a complex or an int operand where it matters)."""
import numpy as np

from surface.common import c

JAX, OURS, REQUIRED = "jax.numpy.linalg", "frontend.numpy.linalg", 0.95

_R = np.random.RandomState(0)
SQ = (np.eye(4) * 3 + _R.randn(4, 4) * 0.5).astype(np.float32)
SPD = (SQ @ SQ.T).astype(np.float32)
BATCH = np.stack([SQ, SQ.T * 0.5 + np.eye(4, dtype=np.float32)])
RECT = _R.randn(5, 3).astype(np.float32)
XC = (SQ + 1j * SQ.T * 0.3).astype(np.complex64)
V = _R.randn(4).astype(np.float32)
XI = np.arange(12, dtype=np.int32).reshape(3, 4)
T6 = (np.eye(6) * 3 + _R.randn(6, 6) * 0.3).astype(np.float32)

CASES = {
    "cholesky": [c(SPD), c(SPD, upper=True)],
    "det": [c(SQ), c(BATCH), c(XC)],
    "slogdet": [c(SQ), c(BATCH)],
    "inv": [c(SQ), c(BATCH), c(XI[:3, :3].astype(np.float32) + np.eye(3, dtype=np.float32))],
    "solve": [c(SQ, V), c(BATCH, BATCH)],
    "eigh": [c(SPD), c(BATCH + BATCH.transpose(0, 2, 1))],
    "eigvalsh": [c(SPD)],
    "eig": [c(SQ), c(BATCH), c(XC)],
    "eigvals": [c(SQ), c(XC)],
    "qr": [c(RECT), c(RECT, mode="complete"), c(RECT, mode="r")],
    "svd": [c(RECT, full_matrices=False), c(SQ, compute_uv=False)],
    "svdvals": [c(RECT)],
    "pinv": [c(RECT)],
    "lstsq": [c(RECT, RECT[:, 0] * 2 + 1)],
    "matrix_power": [c(SQ, 3), c(SQ, -2), c(XI[:3, :3], 2)],
    "matrix_rank": [c(SQ), c(RECT @ RECT.T)],
    "norm": [c(SQ), c(V, ord=1), c(SQ, ord="nuc"), c(SQ, ord=np.inf, axis=(0, 1))],
    "vector_norm": [c(SQ), c(V, ord=np.inf), c(SQ, axis=0, keepdims=True)],
    "matrix_norm": [c(SQ), c(BATCH, ord=1)],
    "matmul": [c(SQ, BATCH), c(XI, XI.T)],
    "matrix_transpose": [c(BATCH), c(XI)],
    "diagonal": [c(BATCH), c(XI, offset=1)],
    "trace": [c(BATCH), c(XI, offset=-1), c(XI, dtype=np.float32)],
    "outer": [c(V, RECT[:, 0]), c(SQ, V, _raises=ValueError)],
    "tensordot": [c(SQ, BATCH, axes=((0, 1), (1, 2))), c(SQ, SQ, axes=1)],
    "vecdot": [c(BATCH, V), c(XC, XC), c(XI, XI, axis=0)],
    "cross": [c(SQ[:, :3], BATCH[0, :, :3]), c(SQ[:3], SQ[1:], axis=0),
              c(V[:2], V[:2], _raises=ValueError)],
    "multi_dot": [c([SQ, BATCH[0], RECT[:4], RECT.T]), c([V, SQ, SQ]), c([SQ, V])],
    "tensorinv": [c(T6.reshape(6, 2, 3), ind=1), c(T6.reshape(2, 3, 2, 3))],
    "tensorsolve": [c(T6.reshape(2, 3, 6), RECT[:2, :3].copy()),
                    c(T6.reshape(6, 2, 3), V[:3].repeat(2).reshape(2, 3), axes=(0,)),
                    c(T6.reshape(6, 2, 3), V[:3].repeat(2), axes=(0,), _raises=ValueError)],
    "cond": [c(SQ), c(SQ, -2), c(SQ, 1), c(SQ, "fro"), c(np.float32([[1, 2], [2, 4]]), np.inf),
             c(BATCH)],
}
ELSEWHERE = {}
ABSENT = {}
