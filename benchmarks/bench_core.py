"""Core pipeline vs JAX, one process, interleaved runs (ratios ours/JAX, targets beside them):

- trace+lower of ``vmap`` of a chain alternating ``x @ w`` (w a closed-over numpy constant,
  one per step) with ``tanh(x * 1.01 + 0.5)``, 100 and 1,000 operations;
- trace+lower of an elementwise-only 1,000-operation chain;
- eager (un-jitted) layer norm and a 900-operation eager loop, warm;
- per-call dispatch of a cached jit function with numpy and with device arguments;
- first call (trace, lower, compile, transfer, run) of a jit closing over a 64 MB weight.

    python benchmarks/bench_core.py            # all rows
    python benchmarks/bench_core.py eager      # rows whose name contains "eager"
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

WIDTH = 16


def chain(np_mod, n_ops: int = 1000):
    """n_ops elementwise operations (a mix of unary and binary)."""
    def f(x, y):
        for _ in range(n_ops // 4):
            x = np_mod.sin(x) * y + 0.5
            x = np_mod.tanh(x)
        return x
    return f


def matmul_chain(np_mod, weights):
    """One ``x @ w`` (w closed over) and one ``tanh(x * 1.01 + 0.5)`` per weight."""
    def f(x):
        for w in weights:
            x = x @ w
            x = np_mod.tanh(x * 1.01 + 0.5)
        return x
    return f


def layer_norm(np_mod):
    def f(x, g, b):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np_mod.sqrt(v + 1e-5) * g + b
    return f


def eager_loop(np_mod, n_ops: int = 900):
    def f(x):
        for _ in range(n_ops // 3):
            x = np_mod.sin(x) * 0.9 + 0.1
        return x
    return f


def _trace_lower_rows(only):
    rng = np.random.default_rng(0)
    xb = rng.normal(size=(8, WIDTH)).astype(np.float32)
    for n in (100, 1000):
        name = f"trace+lower vmap matmul chain, {n} ops"
        if only not in name:
            continue
        ws = [(rng.normal(size=(WIDTH, WIDTH)) / 4).astype(np.float32) for _ in range(n // 2)]
        # a fresh function every time, so that no trace or lowering cache can answer
        r = paired(lambda: fe.jit(fe.vmap(matmul_chain(fnp, ws))).lower(xb).as_text(),
                   lambda: jax.jit(jax.vmap(matmul_chain(jnp, ws))).lower(xb).as_text(),
                   repeat=7 if n > 100 else 15)
        yield row_paired(name, r, "(target <= 0.1)")
    name = "trace+lower elementwise chain, 1000 ops"
    if only in name:
        x = np.linspace(0, 1, 128, dtype=np.float32)
        y = np.float32(0.9) * np.ones(128, np.float32)
        r = paired(lambda: fe.jit(chain(fnp)).lower(x, y).as_text(),
                   lambda: jax.jit(chain(jnp)).lower(x, y).as_text(), repeat=9)
        yield row_paired(name, r, "(target <= 0.1)")


def _eager_rows(only):
    rng = np.random.default_rng(1)
    name = "eager layer norm (32x256), warm"
    if only in name:
        x = rng.normal(size=(32, 256)).astype(np.float32)
        g = rng.normal(size=256).astype(np.float32)
        b = rng.normal(size=256).astype(np.float32)
        ours = [fe.device_put(a) for a in (x, g, b)]
        theirs = [jax.device_put(a) for a in (x, g, b)]
        f, fj = layer_norm(fnp), layer_norm(jnp)
        np.testing.assert_allclose(np.asarray(f(*ours)), np.asarray(fj(*theirs)), rtol=1e-4, atol=1e-5)
        r = paired(lambda: f(*ours).block_until_ready(), lambda: fj(*theirs).block_until_ready(),
                   repeat=15, number=20)
        yield row_paired(name, r, "(target <= 1.2)")
    name = "eager 900-op loop (f32[128]), warm"
    if only in name:
        x = rng.normal(size=128).astype(np.float32)
        dx, jx = fe.device_put(x), jax.device_put(x)
        f, fj = eager_loop(fnp), eager_loop(jnp)
        r = paired(lambda: f(dx).block_until_ready(), lambda: fj(jx).block_until_ready(), repeat=9)
        yield row_paired(name, r, "(target <= 1.2)")


def _dispatch_rows(only):
    g = fe.jit(lambda a, b: a * b + 1.0)
    gj = jax.jit(lambda a, b: a * b + 1.0)
    a = np.ones((8,), np.float32)
    b = np.ones((8,), np.float32)
    np.testing.assert_allclose(np.asarray(g(a, b)), np.asarray(gj(a, b)))
    name = "jit dispatch, numpy args (cached)"
    if only in name:
        r = paired(lambda: g(a, b), lambda: gj(a, b), repeat=15, number=2000)
        yield row_paired(name, r, "(target <= 1.0)")
    name = "jit dispatch, device args (cached)"
    if only in name:
        da, db = fe.device_put(a), fe.device_put(b)
        ja, jb = jax.device_put(a), jax.device_put(b)
        r = paired(lambda: g(da, db), lambda: gj(ja, jb), repeat=15, number=2000)
        yield row_paired(name, r, "(target <= 1.0)")


def _big_constant_rows(only):
    name = "first call, jit closing over a 64 MB weight"
    if only not in name:
        return
    w = (np.random.default_rng(2).normal(size=(4096, 4096)) / 64).astype(np.float32)
    x = np.ones((4, 4096), np.float32)

    def ours():
        return fe.jit(lambda v: fnp.tanh(v @ w))(x).block_until_ready()

    def theirs():
        return jax.jit(lambda v: jnp.tanh(v @ w))(x).block_until_ready()

    np.testing.assert_allclose(np.asarray(ours()), np.asarray(theirs()), rtol=1e-4, atol=1e-4)
    yield row_paired(name, paired(ours, theirs, repeat=5), "(target <= 1.0)")


def main(only: str = ""):
    for rows in (_trace_lower_rows, _eager_rows, _dispatch_rows, _big_constant_rows):
        for line in rows(only):
            print(line, flush=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "")
