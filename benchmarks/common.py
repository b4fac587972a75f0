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
