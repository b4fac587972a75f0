"""jax.scipy.stats: the distribution modules are compared function by function in
tests/test_scipy_stats.py; the statistics here."""
import types

import jax.scipy.stats as _js
import numpy as np

from surface.common import c

JAX, OURS, REQUIRED = "jax.scipy.stats", "frontend.scipy.stats", 0.95
R = np.random.default_rng(5)
X = R.normal(size=(4, 5)).astype(np.float32)
CASES = {"sem": [c(X), c(X, axis=1, ddof=0), c(X, axis=None, keepdims=False)]}
ELSEWHERE = {n: "test_scipy_stats.py::test_distribution_functions_vs_jax"
             for n in dir(_js) if isinstance(getattr(_js, n), types.ModuleType)
             and not n.startswith("_")}
TODO = "not implemented yet (issue 26)"
ABSENT = {n: TODO for n in ["gaussian_kde", "mode", "rankdata"]}
