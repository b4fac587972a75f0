"""Types where they pay: the core layer (frontend/core/) and the interpreters
(frontend/interpreters/) are fully annotated and mypy finds no error in them, with the
configuration of pyproject.toml [tool.mypy] (every function annotated, bodies checked;
other packages are read for their types, not checked). Also the latent bugs the type check
found, each with its regression test."""
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_mypy_is_clean(tmp_path):
    try:
        import mypy  # noqa: F401
    except ImportError:
        pytest.skip("mypy is not installed (it is in the test extras: pip install -e '.[test]')")
    # (the cache in a temporary directory, so that the checkout stays clean)
    r = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy_cache"),
                        "--no-error-summary", "--show-error-codes"],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, "mypy (pyproject.toml [tool.mypy]) reports:\n" + r.stdout + r.stderr


def test_linearize_fun_instantiate_without_zeros_is_a_clear_error():
    # an output that does not depend on the input has a zero tangent; instantiating it needs
    # the function that makes zeros (it was called although None: "NoneType is not callable")
    from frontend.interpreters.partial_eval import linearize_fun

    x = np.ones(3, np.float32)
    with pytest.raises(ValueError, match="zeros"):
        linearize_fun(lambda a: [a, np.ones(3, np.float32)], [x], [True], instantiate=True)
