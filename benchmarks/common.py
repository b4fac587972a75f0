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
