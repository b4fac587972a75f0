"""Test-session hooks: every StableHLO module this project compiles during the tests is also
parsed and verified by the MLIR StableHLO verifier (jaxlib's MLIR bindings)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import lowering.backend as _backend  # noqa: E402
from lowering import runtime as _runtime  # noqa: E402

VERIFIED = {"modules": 0}
_seen: set = set()
_orig_compile_text = _runtime.xla.compile_text


def _verifying_compile_text(text, device=None, n_out=1):
    h = hash(text)
    if h not in _seen:
        _runtime.verify(text)
        _seen.add(h)
        VERIFIED["modules"] += 1
    return _orig_compile_text(text, device, n_out)


_runtime.xla.compile_text = _verifying_compile_text
_runtime.compile_text = _verifying_compile_text


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"StableHLO modules verified by the MLIR verifier: {VERIFIED['modules']}")


@pytest.fixture
def x64():
    import frontend as fe
    import jax
    fe.config.update("enable_x64", True)
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        fe.config.update("enable_x64", False)
        jax.config.update("jax_enable_x64", False)
