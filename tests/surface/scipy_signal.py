"""jax.scipy.signal: the convolutions in every mode (direct and FFT), detrend, and the
windowed-FFT spectra, on sampled float32 (and complex64) inputs."""
import numpy as np

from surface.common import c

JAX, OURS, REQUIRED = "jax.scipy.signal", "frontend.scipy.signal", 0.95
R = np.random.default_rng(11)
V, K = R.normal(size=(9,)).astype(np.float32), R.normal(size=(4,)).astype(np.float32)
A, B = R.normal(size=(5, 6)).astype(np.float32), R.normal(size=(2, 3)).astype(np.float32)
Z = (R.normal(size=(4, 5)) + 1j * R.normal(size=(4, 5))).astype(np.complex64)
S = R.normal(size=(2, 128)).astype(np.float32)
I = np.arange(12, dtype=np.int32).reshape(3, 4)
STFT = np.asarray(np.fft.rfft(R.normal(size=(2, 16, 9)), axis=1), np.complex64)
BAD = c(A, B, "bogus", _raises=ValueError)
CASES = {
    "convolve": [c(V, K), c(A, B, "same"), c(B, A, "valid"), c(V, K, method="fft"),
                 c(Z, A[:2, :3], "same"), c(I, I[:2, :2]), c(A, B[0], _raises=ValueError), BAD,
                 c(A, A.T, _raises=ValueError)],
    "correlate": [c(V, K), c(A, B, "same"), c(B, A, "full"), c(Z, B, "valid"),
                  c(V, K, method="fft", mode="same"), c(V, K, method="bogus", _raises=ValueError)],
    "convolve2d": [c(A, B), c(A, B, "same"), c(A, B, "valid"), c(Z, B),
                   c(A, B, boundary="wrap", _raises=NotImplementedError),
                   c(V, K, _raises=ValueError)],
    "correlate2d": [c(A, B), c(B, A), c(A, B, "same"), c(B, A, "same"), c(A, B, "valid"),
                    c(B, A, "valid"), c(A, A, "valid"), c(Z, B, "full")],
    "fftconvolve": [c(A, B), c(A, B, "same"), c(B, A, "valid"), c(Z, A),
                    c(A, A[:, :3], axes=1), c(A, A[:1], axes=(0,)), c(V[:1], K),
                    c(A, B[0], _raises=ValueError), BAD],
    "detrend": [c(A), c(A, 0), c(A, type="constant"), c(A, axis=0, bp=[2]),
                c(S, bp=(30, 70)), c(I), c(A, type="bogus", _raises=ValueError)],
    "stft": [c(S, nperseg=32), c(S[0], fs=100.0, nperseg=31, noverlap=10, nfft=40),
             c(S, nperseg=16, boundary="even", padded=False, return_onesided=False),
             c(S, nperseg=16, boundary="odd", detrend="linear"),
             c(S, nperseg=16, boundary="constant", window="hamming"),
             c(S.T, nperseg=8, axis=0, boundary=None),
             c(S, nperseg=16, window=np.hanning(16).astype(np.float32)),
             c(S, nperseg=16, noverlap=16, _raises=ValueError),
             c(S, nperseg=16, boundary="bogus", _raises=ValueError)],
    "istft": [c(STFT), c(STFT, nperseg=16, noverlap=4, boundary=False),
              c(np.swapaxes(STFT, 1, 2), time_axis=1, freq_axis=2),
              c(STFT[0, :, 0], _raises=ValueError),
              c(STFT, nperseg=16, noverlap=16, _raises=ValueError)],
    "csd": [c(S, S[::-1] * 2, nperseg=32), c(S, None, nperseg=32),
            c(S[0], S[1], nperseg=30, average="median"),
            c(S, S[:1, :100], nperseg=32, scaling="spectrum", detrend="linear"),
            c(S, S, nperseg=32, average="bogus", _raises=ValueError)],
    "welch": [c(S, nperseg=32), c(S, nperseg=33, average="median", return_onesided=False),
              c(S.T, nperseg=16, axis=0, scaling="spectrum"), c(S, nperseg=16, nfft=20),
              c(S, nperseg=16, window="blackman", detrend=False),
              c(S, nperseg=16, scaling="bogus", _raises=ValueError)],
}
ELSEWHERE = {}
ABSENT = {}
