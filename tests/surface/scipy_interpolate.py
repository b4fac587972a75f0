"""jax.scipy.interpolate: RegularGridInterpolator, a class: compared by its own test."""
JAX, OURS, REQUIRED = "jax.scipy.interpolate", "frontend.scipy.interpolate", 0.95
CASES = {}
ELSEWHERE = {"RegularGridInterpolator":
             "test_scipy_submodules.py::test_regular_grid_interpolator_vs_jax"}
ABSENT = {}
