"""Concurrency and resources: a jitted function called from 8 threads at once gives correct
results and traces/compiles each signature once; 10,000 calls do not grow memory."""
from __future__ import annotations

import gc
import resource
import threading
import tracemalloc

import numpy as np

import frontend as fe
import frontend.numpy as fnp

N_THREADS = 8


def _hammer(fn, make_args, expected, calls_per_thread=25):
    barrier = threading.Barrier(N_THREADS)
    errors = []

    def work(t):
        try:
            barrier.wait()
            for i in range(calls_per_thread):
                k = (t + i) % len(make_args)
                out = fn(*make_args[k])
                np.testing.assert_allclose(np.asarray(out), expected[k], rtol=1e-6)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(N_THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors[:3]


def test_jit_from_8_threads_traces_each_signature_once():
    traces = []

    def f(x, y):
        traces.append((x.shape, x.dtype))
        return fnp.tanh(x) @ y + 1.0

    j = fe.jit(f)
    sigs = [(np.full((3, 4), k, np.float32), np.ones((4, 2), np.float32)) for k in range(3)]
    sigs += [(np.full((5, 4), 1, np.float32), np.ones((4, 2), np.float32)),
             (np.ones((2, 4), np.float32), np.ones((4, 6), np.float32))]
    expected = [np.tanh(a) @ b + 1.0 for a, b in sigs]
    import lowering.runtime as rt
    compiles = []
    orig = rt.compile_text

    def counting(text, device=None, n_out=1):
        compiles.append(text)
        return orig(text, device, n_out)

    rt.compile_text = counting
    try:
        _hammer(j, sigs, expected)
    finally:
        rt.compile_text = orig
    n_sig = 3  # (3,4)x(4,2), (5,4)x(4,2), (2,4)x(4,6)
    assert len(traces) == n_sig, f"traced {len(traces)} times for {n_sig} signatures: {traces}"
    assert len(compiles) == n_sig, f"compiled {len(compiles)} times for {n_sig} signatures"


def test_vmap_and_eager_ops_from_8_threads():
    g = fe.jit(fe.vmap(lambda x, w: fnp.sum(x * w, axis=-1), in_axes=(0, None)))
    xs = [np.random.default_rng(k).normal(size=(6, 5)).astype(np.float32) for k in range(4)]
    w = np.linspace(0, 1, 5, dtype=np.float32)
    _hammer(g, [(x, w) for x in xs], [(x * w).sum(-1) for x in xs])
    # eager single-primitive executables (shared cache) from threads
    _hammer(lambda x: fnp.sin(x) * 2, [(x,) for x in xs], [np.sin(x) * 2 for x in xs])


def _rss_mb() -> float:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * resource.getpagesize() / 2**20
    except OSError:  # pragma: no cover
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_10000_calls_do_not_grow_memory():
    j = fe.jit(lambda x, y: fnp.maximum(x * 2.0 + y, 0.0))
    x = np.ones((16,), np.float32)
    y = fe.device_put(np.arange(16, dtype=np.float32)) if hasattr(fe, "device_put") else x
    for _ in range(200):  # warm up: caches, allocator pools
        j(x, y)
    j(x, y).block_until_ready() if hasattr(j(x, y), "block_until_ready") else None
    gc.collect()
    rss0 = _rss_mb()
    tracemalloc.start()
    snap0 = tracemalloc.take_snapshot()
    for i in range(10_000):
        out = j(x, y)
    assert float(np.asarray(out)[3]) == 5.0
    del out
    gc.collect()
    snap1 = tracemalloc.take_snapshot()
    tracemalloc.stop()
    growth = sum(s.size_diff for s in snap1.compare_to(snap0, "filename"))
    rss1 = _rss_mb()
    assert growth < 1 * 2**20, f"Python allocations grew by {growth / 2**20:.2f} MB over 10,000 calls"
    assert rss1 - rss0 < 64, f"RSS grew by {rss1 - rss0:.1f} MB over 10,000 calls"
    assert len(fe.api.jitted_of(j)._cache) == 1


def test_10000_eager_and_vmap_calls_do_not_grow_memory():
    f = fe.vmap(lambda a: fnp.sum(a * a))
    x = np.ones((4, 3), np.float32)
    for _ in range(50):
        f(x)
    gc.collect()
    tracemalloc.start()
    snap0 = tracemalloc.take_snapshot()
    for _ in range(2_000):
        f(x)
    gc.collect()
    snap1 = tracemalloc.take_snapshot()
    tracemalloc.stop()
    growth = sum(s.size_diff for s in snap1.compare_to(snap0, "filename"))
    assert growth < 1 * 2**20, f"eager vmap grew Python allocations by {growth / 2**20:.2f} MB"
