"""jax.scipy.stats: the distribution modules are compared function by function in
tests/test_scipy_stats.py; the statistics here."""
import types

import jax.scipy.stats as _js
import numpy as np

from surface.common import c

JAX, OURS, REQUIRED = "jax.scipy.stats", "frontend.scipy.stats", 0.95
R = np.random.default_rng(5)
X = R.normal(size=(4, 5)).astype(np.float32)
T = np.float32([[3, 1, 2, 1, 2], [2, 2, 5, 0, 2], [1, 1, 1, 1, 7], [4, 3, 2, 1, 0]])
CASES = {
    "sem": [c(X), c(X, axis=1, ddof=0), c(X, axis=None, keepdims=False)],
    "rankdata": [c(T, m) for m in ("average", "min", "max", "dense", "ordinal")]
    + [c(T, axis=1), c(T, "dense", axis=0), c(np.float32([1, np.nan, 2])),
       c(T.astype(np.int32), "min"), c(T, "bogus", _raises=ValueError)],
    "mode": [c(T), c(T, axis=None), c(T, axis=1, keepdims=True), c(T, None, keepdims=True),
             c(T.astype(np.int32), 1)],
}
ELSEWHERE = {n: "test_scipy_stats.py::test_distribution_functions_vs_jax"
             for n in dir(_js) if isinstance(getattr(_js, n), types.ModuleType)
             and not n.startswith("_")}
ELSEWHERE["gaussian_kde"] = "test_scipy_submodules.py::test_gaussian_kde_vs_jax"
ABSENT = {}
