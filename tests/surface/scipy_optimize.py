"""jax.scipy.optimize: minimize with BFGS on a weighted quadratic, Rosenbrock's function and
Himmelblau's (written with array methods only, so one function serves both sides); every
field of the results compared, nit/nfev/status included."""
import numpy as np

from surface.common import c

JAX, OURS, REQUIRED = "jax.scipy.optimize", "frontend.scipy.optimize", None
W = np.float32([1.0, 2.0, 3.0, 4.0])


def quadratic(x, w=W):
    return ((x - w) ** 2 * w).sum()


def rosenbrock(x):
    return (100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()


def himmelblau(x):
    return (x[0] ** 2 + x[1] - 11) ** 2 + (x[0] + x[1] ** 2 - 7) ** 2


def _close(ours, theirs):
    """Field by field; the floats to 1e-3 (Rosenbrock's stop in float32 is sensitive to the
    last bits of the gradient)."""
    for name in theirs._fields:
        o, t = np.asarray(getattr(ours, name)), np.asarray(getattr(theirs, name))
        assert o.dtype == t.dtype and o.shape == t.shape, name
        np.testing.assert_allclose(o, t, rtol=1e-3, atol=1e-3, err_msg=name)


CASES = {
    "minimize": [
        c(quadratic, np.zeros(4, np.float32), method="BFGS"),
        c(rosenbrock, np.float32([-1.2, 1.0]), method="bfgs", _compare=_close),
        c(rosenbrock, np.zeros(3, np.float32), method="BFGS", options={"maxiter": 4}),
        c(himmelblau, np.float32([0.3, -0.2]), method="BFGS", options={"gtol": 1e-3}),
        c(quadratic, np.ones(4, np.float32), (W[::-1],), method="BFGS",
          options={"norm": 2, "line_search_maxiter": 3}),
        c(quadratic, np.ones(4, np.float32), method="Nelder-Mead", _raises=ValueError),
        c(quadratic, np.ones(4, np.float32), W, method="BFGS", _raises=TypeError),
    ],
}
ELSEWHERE = {"OptimizeResults": "test_scipy_solvers.py::test_minimize_results_and_errors"}
ABSENT = {}
