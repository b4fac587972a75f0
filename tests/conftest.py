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


# ----------------------------------------------------------------------------- coverage
# Every primitive must be lowered (emitter) and batched (batching rule) by the test suite.
# Recorded here, checked at the end of a full run (no file or -k selection).

import frontend  # noqa: E402,F401
from frontend.core import PRIMITIVES  # noqa: E402
from lowering.hlo import EMITTERS  # noqa: E402

EXERCISED = {"emitted": set(), "batched": set()}


def _record_emit(name, fn):
    def wrapped(ctx, eqn, *a):
        EXERCISED["emitted"].add(eqn.prim.name)
        return fn(ctx, eqn, *a)
    wrapped.__wrapped__ = fn
    return wrapped


def _record_batch(p):
    orig = p.batch

    def wrapped(*a, **k):
        EXERCISED["batched"].add(p.name)
        return orig(*a, **k)
    return wrapped


for _n, _fn in list(EMITTERS.items()):
    EMITTERS[_n] = _record_emit(_n, _fn)
for _p in PRIMITIVES.values():
    if _p.has_batch_rule():
        _p.batch = _record_batch(_p)


def _full_run(config) -> bool:
    args = [a for a in config.args if a not in ("tests", "tests/", str(config.rootpath / "tests"))]
    return not args and not config.getoption("keyword") and not config.getoption("maxfail") \
        and not config.getoption("ignore") and config.getoption("markexpr") in ("not slow", "")


def pytest_sessionfinish(session, exitstatus):
    if exitstatus != 0 or not _full_run(session.config):
        return
    ours = {n for n, p in PRIMITIVES.items() if type(p).__module__.startswith("frontend.")}
    missing_e = sorted(ours - EXERCISED["emitted"])
    missing_b = sorted(ours - EXERCISED["batched"])
    if missing_e or missing_b:
        session.config._coverage_msg = (f"primitives never lowered by the tests: {missing_e}; "
                                        f"never batched by the tests: {missing_b}")
        session.exitstatus = 1


def pytest_unconfigure(config):
    msg = getattr(config, "_coverage_msg", None)
    if msg:
        print("\nOP-TABLE COVERAGE FAILURE: " + msg)
