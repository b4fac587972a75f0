"""jax.numpy.fft: every public name compared with JAX on float32/complex64 signals, with the
length, axes and norm keywords."""
import numpy as np

from surface.common import c

JAX, OURS, REQUIRED = "jax.numpy.fft", "frontend.numpy.fft", 0.95

_R = np.random.RandomState(0)
X = _R.randn(4, 6).astype(np.float32)
XC = (X + 1j * _R.randn(4, 6)).astype(np.complex64)
XI = np.arange(8, dtype=np.int32)
NORMS = [None, "ortho", "forward"]

CASES = {
    "fft": [c(XC), c(X, 8, axis=0), c(XI)] + [c(XC, norm=n) for n in NORMS[1:]],
    "ifft": [c(XC), c(X, 4, norm="ortho")],
    "rfft": [c(X), c(X, 5, axis=0, norm="forward"), c(XC, _raises=ValueError)],
    "irfft": [c(XC), c(XC, 7, axis=0, norm="ortho")],
    "hfft": [c(XC), c(XC, 5, axis=0)] + [c(X, norm=n) for n in NORMS[1:]],
    "ihfft": [c(X), c(X, 6, axis=0, norm="ortho"), c(XI, norm="forward")],
    "fft2": [c(XC), c(X, s=(2, 8))],
    "ifft2": [c(XC, norm="ortho")],
    "rfft2": [c(X)],
    "irfft2": [c(XC, s=(4, 6))],
    "fftn": [c(XC), c(X, axes=(1,))],
    "ifftn": [c(XC, norm="forward")],
    "rfftn": [c(X, s=(4, 4))],
    "irfftn": [c(XC)],
    "fftfreq": [c(8), c(7, 0.5)],
    "rfftfreq": [c(8), c(7, 0.5)],
    "fftshift": [c(X), c(X, axes=0)],
    "ifftshift": [c(X), c(XI)],
}
ELSEWHERE = {}
ABSENT = {}
