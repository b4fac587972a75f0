"""Test-session hooks: every StableHLO module this project compiles during the tests is also
parsed and verified by the MLIR StableHLO verifier (jaxlib's MLIR bindings)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

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
_orig_compile_spmd = _runtime.spmd.compile_spmd


def _verifying_compile_spmd(text, *args, **kwargs):
    _verifying_compile_text.__wrapped__(text)
    return _orig_compile_spmd(text, *args, **kwargs)


def _verify_once(text):
    h = hash(text)
    if h not in _seen:
        _runtime.verify(text)
        _seen.add(h)
        VERIFIED["modules"] += 1


_verifying_compile_text.__wrapped__ = _verify_once
_runtime.spmd.compile_spmd = _verifying_compile_spmd


def pytest_addoption(parser):
    parser.addoption("--device-platform", default=None,
                     help="the platform the device check (-m device) runs on (default: the "
                          "first accelerator found; 'cpu' checks the check itself)")


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """``-m device`` runs in this process (no xdist workers to start for one small file)."""
    if config.getoption("markexpr") == "device" and hasattr(config.option, "numprocesses"):
        config.option.numprocesses = 0
        config.option.dist = "no"


def pytest_ignore_collect(collection_path, config):
    """``-m device`` collects only tests/test_device.py (it runs in seconds without an
    accelerator)."""
    if config.getoption("markexpr") == "device" and collection_path.suffix == ".py" \
            and collection_path.name.startswith("test_") and collection_path.name != "test_device.py":
        return True
    return None


def pytest_report_header(config):
    if config.getoption("markexpr") != "device":
        return None
    from test_device import accelerator
    d = accelerator(config.getoption("device_platform"))
    return f"device check: {'on ' + str(d) if d is not None else 'no accelerator (GPU/TPU) found, every test skips'}"


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"StableHLO modules verified by the MLIR verifier: {VERIFIED['modules']}")


@pytest.fixture
def x64():
    import jax

    import frontend as fe
    fe.config.update("enable_x64", True)
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        fe.config.update("enable_x64", False)
        jax.config.update("jax_enable_x64", False)


# ----------------------------------------------------------------------------- coverage
# Every primitive must be lowered, batched and differentiated (when it takes operands) by the
# test suite, and every primitive with a transpose rule transposed.
# Recorded here by wrapping the rules on the primitive objects, checked at the end of a full
# run (no file or -k selection).

from harness import project_primitives, takes_operands  # noqa: E402

import frontend  # noqa: E402,F401
import lowering.emit  # noqa: E402,F401

EXERCISED = {"lowered": set(), "batched": set(), "differentiated": set(), "transposed": set()}


def _recording(kind, p, rule):
    def wrapped(*a, **k):
        EXERCISED[kind].add(p)
        return rule(*a, **k)
    wrapped.__wrapped__ = rule
    return wrapped


PROJECT = project_primitives()
for _p in PROJECT.values():
    _wrapped = {}  # one wrapper per rule object: rules shared by platforms stay shared
    if _p.lowering_rule is not None:
        _p.lowering_rule = _wrapped[id(_p.lowering_rule)] = \
            _recording("lowered", _p, _p.lowering_rule)
    _p.platform_lowering_rules = {
        k: _wrapped.setdefault(id(r), _recording("lowered", _p, r))
        for k, r in _p.platform_lowering_rules.items()}
    if _p.batching_rule is not None:
        _p.batching_rule = _recording("batched", _p, _p.batching_rule)
    if _p.jvp_rule is not None:
        _p.jvp_rule = _recording("differentiated", _p, _p.jvp_rule)
    if _p.transpose_rule is not None:
        _p.transpose_rule = _recording("transposed", _p, _p.transpose_rule)


def _full_run(config) -> bool:
    args = [a for a in config.args if a not in ("tests", "tests/", str(config.rootpath / "tests"))]
    return not args and not config.getoption("keyword") and not config.getoption("maxfail") \
        and not config.getoption("ignore") and config.getoption("markexpr") in ("not slow", "")


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """pytest-xdist: a worker's record (names of the primitives it exercised, modules it
    verified) joins the controller's, which checks the whole run."""
    out = getattr(node, "workeroutput", {})
    for kind, names in out.get("exercised", {}).items():
        EXERCISED[kind].update(PROJECT[n] for n in names if n in PROJECT)
    VERIFIED["modules"] += out.get("verified", 0)


def pytest_sessionfinish(session, exitstatus):
    worker_out = getattr(session.config, "workeroutput", None)
    if worker_out is not None:  # an xdist worker: hand the record to the controller
        worker_out["exercised"] = {k: sorted(p.name for p in v) for k, v in EXERCISED.items()}
        worker_out["verified"] = VERIFIED["modules"]
        return
    if exitstatus != 0 or not _full_run(session.config):
        return
    missing_l = sorted(p.name for p in PROJECT.values() if p not in EXERCISED["lowered"])
    missing_b = sorted(p.name for p in PROJECT.values()
                       if takes_operands(p) and p not in EXERCISED["batched"])
    missing_d = sorted(p.name for p in PROJECT.values()
                       if takes_operands(p) and p not in EXERCISED["differentiated"])
    missing_t = sorted(p.name for p in PROJECT.values()
                       if p.transpose_rule is not None and p not in EXERCISED["transposed"])
    if missing_l or missing_b or missing_d or missing_t:
        session.config._coverage_msg = (f"primitives never lowered by the tests: {missing_l}; "
                                        f"never batched by the tests: {missing_b}; "
                                        f"never differentiated: {missing_d}; "
                                        f"never transposed: {missing_t}")
        session.exitstatus = 1


def pytest_unconfigure(config):
    msg = getattr(config, "_coverage_msg", None)
    if msg:
        print("\nOP-TABLE COVERAGE FAILURE: " + msg)
