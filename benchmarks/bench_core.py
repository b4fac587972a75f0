"""Core pipeline vs JAX, one process: trace+lower of a 1,000-operation chain and per-call
dispatch of a cached jit function with numpy arguments.

    python benchmarks/bench_core.py
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from common import paired, row_paired  # noqa: E402

import frontend as fe  # noqa: E402
import frontend.numpy as fnp  # noqa: E402


def chain(np_mod, n_ops: int = 1000):
    """n_ops elementwise operations (a mix of unary and binary)."""
    def f(x, y):
        for i in range(n_ops // 4):
            x = np_mod.sin(x) * y + 0.5
            x = np_mod.tanh(x)
        return x
    return f


def main():
    x = np.linspace(0, 1, 128, dtype=np.float32)
    y = np.float32(0.9) * np.ones(128, np.float32)
    results = []

    # a fresh function every time, so that no trace or lowering cache can answer
    r = paired(lambda: fe.jit(chain(fnp)).lower(x, y).as_text(),
               lambda: jax.jit(chain(jnp)).lower(x, y).as_text(), repeat=9)
    results.append(row_paired("trace+lower, 1000-op chain", r, "(target <= 0.2)"))

    g = fe.jit(lambda a, b: a * b + 1.0)
    gj = jax.jit(lambda a, b: a * b + 1.0)
    a = np.ones((8,), np.float32)
    b = np.ones((8,), np.float32)
    np.testing.assert_allclose(np.asarray(g(a, b)), np.asarray(gj(a, b)))
    r = paired(lambda: g(a, b), lambda: gj(a, b), repeat=15, number=2000)
    results.append(row_paired("jit dispatch, numpy args (cached)", r, "(target <= 1.5)"))

    da, db = fe.device_put(a), fe.device_put(b)
    ja, jb = jax.device_put(a), jax.device_put(b)
    r = paired(lambda: g(da, db), lambda: gj(ja, jb), repeat=15, number=2000)
    results.append(row_paired("jit dispatch, device args (cached)", r))

    print("\n".join(results))


if __name__ == "__main__":
    main()
