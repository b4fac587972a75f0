"""jax.scipy.cluster.vq: vq on 2-D and 1-D observations (jax.scipy.cluster itself only holds
the vq module)."""
import numpy as np

from surface.common import c

JAX, OURS, REQUIRED = "jax.scipy.cluster.vq", "frontend.scipy.cluster.vq", 0.95
R = np.random.default_rng(15)
OBS, BOOK = R.normal(size=(8, 3)).astype(np.float32), R.normal(size=(4, 3)).astype(np.float32)
CASES = {"vq": [c(OBS, BOOK), c(OBS[:, 0], BOOK[:, 0]), c(np.arange(6).reshape(3, 2), BOOK[:, :2]),
                c(OBS, BOOK[0], _raises=ValueError), c(OBS[None], BOOK[None], _raises=ValueError)]}
ELSEWHERE = {}
ABSENT = {}
