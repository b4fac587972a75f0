"""jax.scipy.spatial.transform: Rotation and Slerp, classes: compared by their own tests
(jax.scipy.spatial itself only holds the transform module)."""
JAX, OURS, REQUIRED = "jax.scipy.spatial.transform", "frontend.scipy.spatial.transform", 0.95
CASES = {}
ELSEWHERE = {"Rotation": "test_scipy_submodules.py::test_rotation_vs_jax",
             "Slerp": "test_scipy_submodules.py::test_slerp_vs_jax"}
ABSENT = {}
