"""Observability: explain_cache_misses logs JAX's "TRACING CACHE MISS" lines (the same text
for the same calls), ``jit(f)._cache_size()`` and ``frontend.cache_stats()``, and the
"frontend" / "lowering" loggers."""
import logging

import jax
import numpy as np
import pytest

import frontend as fe


def _f(x, y):
    return x * 2 + y


def _call(g, *args):  # (one line for both: the miss is reported at the caller's line)
    return g(*args)


@pytest.fixture
def explain():
    switches = [(fe.config, "explain_cache_misses"), (jax.config, "jax_explain_cache_misses")]
    for conf, name in switches:
        conf.update(name, True)
    yield
    for conf, name in switches:
        conf.update(name, False)


def _messages(caplog, logger_prefix):
    return [r.getMessage() for r in caplog.records
            if r.name.startswith(logger_prefix) and "TRACING CACHE MISS" in r.getMessage()]


def test_cache_miss_explanations_match_jax(caplog, explain):
    calls = [(np.ones(3, np.float32), np.ones(3, np.float32)),
             (np.ones(3, np.float32), np.ones(3, np.float32)),   # a hit: no line
             (np.ones(4, np.float32), np.ones(4, np.float32)),   # both shapes
             (np.ones(4, np.int32), np.ones(4, np.float32))]     # one dtype
    caplog.set_level(logging.WARNING)
    ours, theirs = fe.jit(_f), jax.jit(_f)
    for args in calls:
        _call(ours, *args)
    for args in calls:
        _call(theirs, *args)
    mine = _messages(caplog, "frontend")
    jaxs = [m.replace(f"id={id(_f)}", "id=ID") for m in _messages(caplog, "jax")]
    assert len(mine) == 3
    assert [m.replace(f"id={id(_f)}", "id=ID") for m in mine] == jaxs
    assert "* at x, now i32[4] and before f32[4]" in mine[2]


def test_cache_miss_names_static_arguments_and_trees(caplog, explain):
    caplog.set_level(logging.WARNING)
    g = fe.jit(lambda x, n: x * n, static_argnums=1)
    g(np.ones(2, np.float32), 2)
    g(np.ones(2, np.float32), 3)
    g((np.ones(2, np.float32),), 3) if False else None
    h = fe.jit(lambda t: t[0])
    h((np.ones(2, np.float32),))
    h([np.ones(2, np.float32)])
    with fe.numpy_rank_promotion("raise"):  # (an option in the cache key)
        h((np.ones(2, np.float32),))
    mine = _messages(caplog, "frontend")
    assert "different static arguments:\n  * at argument 1, now 3 and before 2" in mine[1]
    assert "different input pytree:" in mine[3]
    assert "different value of numpy_rank_promotion:\n  * now raise and before allow" in mine[4]


def test_no_explanations_unless_asked(caplog):
    caplog.set_level(logging.WARNING)
    fe.jit(_f)(np.ones(5, np.float32), np.ones(5, np.float32))
    assert not _messages(caplog, "frontend")


def test_cache_size_and_stats():
    g = fe.jit(lambda x: x + 1)
    before = fe.cache_stats()
    for n in (2, 2, 3, 2):
        g(np.ones(n, np.float32))
    assert g._cache_size() == 2 == jax_cache_size(lambda x: x + 1, (2, 2, 3, 2))
    after = fe.cache_stats()
    assert after["jit_traces"] - before["jit_traces"] == 2
    assert set(after["persistent"]) == {"hits", "misses", "writes", "errors"}
    g.clear_cache()
    assert g._cache_size() == 0


def jax_cache_size(f, sizes):
    j = jax.jit(f)
    for n in sizes:
        j(np.ones(n, np.float32))
    return j._cache_size()


def test_lowering_logger_reports_compiles(caplog):
    caplog.set_level(logging.DEBUG, logger="lowering")
    fe.jit(lambda x: x - 7.5)(np.ones(7, np.float32))
    assert any(r.name == "lowering.runtime" and "compiled a module" in r.getMessage()
               for r in caplog.records)
