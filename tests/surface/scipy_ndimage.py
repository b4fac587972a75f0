"""jax.scipy.ndimage: map_coordinates, orders 0 and 1, every mode JAX has."""
import numpy as np

from surface.common import c

JAX, OURS, REQUIRED = "jax.scipy.ndimage", "frontend.scipy.ndimage", 0.95
R = np.random.default_rng(14)
IMG = R.normal(size=(5, 6)).astype(np.float32)
CO = [R.uniform(-3, 8, size=(4, 3)).astype(np.float32) for _ in range(2)]
HALF = [np.float32([0.5, 1.5, -0.5, 2.5]), np.float32([2.5, 0.5, 4.5, -1.5])]
CASES = {"map_coordinates": [
    *[c(IMG, CO, order, mode, 1.5) for mode in ("constant", "nearest", "wrap", "mirror", "reflect")
      for order in (1, 0)],
    c(IMG, HALF, 0), c(np.arange(30, dtype=np.int32).reshape(5, 6), CO, 1),
    c(IMG[0], [np.int32([0, 3, 9])], 1, "wrap"),
    c(IMG, CO[:1], 1, _raises=ValueError), c(IMG, CO, 3, _raises=NotImplementedError),
    c(IMG, CO, 1, "grid-wrap", _raises=NotImplementedError)]}
ELSEWHERE = {}
ABSENT = {}
