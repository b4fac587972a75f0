"""jax.scipy.fft: the type-2 DCT and its inverse, with n/s, axis/axes and norm."""
import numpy as np

from surface.common import c

JAX, OURS, REQUIRED = "jax.scipy.fft", "frontend.scipy.fft", 0.95
R = np.random.default_rng(12)
A = R.normal(size=(5, 6)).astype(np.float32)
T = R.normal(size=(3, 4, 5)).astype(np.float32)
Z = (R.normal(size=(4, 5)) + 1j * R.normal(size=(4, 5))).astype(np.complex64)
I = np.arange(7, dtype=np.int32)
_one = [c(A), c(A, norm="ortho"), c(A, n=9, axis=0), c(A, n=3, norm="backward"),
        c(Z), c(I), c(A[:, :5], axis=-1, norm="ortho", n=7),
        c(A, type=3, _raises=NotImplementedError), c(A, norm="forward", _raises=ValueError)]
_many = [c(T), c(T, norm="ortho"), c(T, axes=(0, 2)), c(T, s=(6, 3)), c(A, axes=[1]),
         c(Z, norm="ortho"), c(T, s=(2, 3, 4, 5), _raises=ValueError),
         c(A, type=1, _raises=NotImplementedError)]
CASES = {"dct": _one, "idct": _one, "dctn": _many, "idctn": _many}
ELSEWHERE = {}
ABSENT = {}
