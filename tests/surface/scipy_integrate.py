"""jax.scipy.integrate: trapezoid with x, dx and axis."""
import numpy as np

from surface.common import c

JAX, OURS, REQUIRED = "jax.scipy.integrate", "frontend.scipy.integrate", 0.95
R = np.random.default_rng(13)
Y = R.normal(size=(4, 6)).astype(np.float32)
X = np.sort(R.uniform(size=6)).astype(np.float32)
CASES = {"trapezoid": [c(Y), c(Y, X), c(Y, dx=0.5, axis=0), c(np.arange(5))]}
ELSEWHERE = {}
ABSENT = {}
