"""Timing helpers: medians of repeated runs, ratios against JAX measured in the same process."""
from __future__ import annotations

import statistics
import time


def median_time(fn, repeat: int = 7, number: int = 1) -> float:
    """Median over ``repeat`` runs of the time of ``number`` calls, per call, in seconds."""
    fn()  # warm up
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        ts.append((time.perf_counter() - t0) / number)
    return statistics.median(ts)


def fmt(t: float) -> str:
    if t < 1e-3:
        return f"{t * 1e6:8.1f} us"
    if t < 1:
        return f"{t * 1e3:8.2f} ms"
    return f"{t:8.3f} s "


def row(name: str, ours: float, jax_t: float, target: str = "") -> str:
    r = ours / jax_t
    return f"{name:<44} ours {fmt(ours)}  jax {fmt(jax_t)}  ratio {r:6.3f} {target}"


def paired(ours, theirs, repeat: int = 9, number: int = 1):
    """Alternate the two measurements so machine noise hits both alike; return the medians
    of ours, of theirs, and of the per-pair ratios."""
    ours(), theirs()
    to, tt, rs = [], [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            ours()
        a = (time.perf_counter() - t0) / number
        t0 = time.perf_counter()
        for _ in range(number):
            theirs()
        b = (time.perf_counter() - t0) / number
        to.append(a), tt.append(b), rs.append(a / b)
    return statistics.median(to), statistics.median(tt), statistics.median(rs)


def row_paired(name: str, result, target: str = "") -> str:
    o, t, r = result
    return f"{name:<44} ours {fmt(o)}  jax {fmt(t)}  ratio {r:6.3f} {target}"


def self_contained_text(jitted, args) -> str:
    """Our module for ``args`` with every closed-over constant written into it (none passed as
    an argument), so that it runs on the same buffers as JAX's module in ``same_call_time``."""
    import frontend as fe
    saved = fe.config.embedded_constants_max_bytes
    fe.config.update("embedded_constants_max_bytes", 1 << 40)
    try:
        return jitted.lower(*args).as_text()
    finally:
        fe.config.update("embedded_constants_max_bytes", saved)


def same_call_time(text_ours: str, text_jax: str, args, number: int, rtol=2e-4, atol=2e-5):
    """Both StableHLO modules compiled by the same XLA client and run on the same device
    buffers through the same call (only the modules differ); results checked equal first.
    Returns ``paired``'s medians."""
    import numpy as np

    from lowering import runtime
    exe_o = runtime.compile_text(text_ours)
    exe_j = runtime.compile_text(text_jax)
    bufs = [runtime.to_device(np.asarray(a)) for a in args]
    run_o = lambda: exe_o.loaded.execute(bufs)[0].block_until_ready()  # noqa: E731
    run_j = lambda: exe_j.loaded.execute(bufs)[0].block_until_ready()  # noqa: E731
    np.testing.assert_allclose(np.asarray(exe_o.loaded.execute(bufs)[0]),
                               np.asarray(exe_j.loaded.execute(bufs)[0]), rtol=rtol, atol=atol)
    return paired(run_o, run_j, repeat=15, number=number)
