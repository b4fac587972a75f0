"""Autodiff vs JAX, one process, interleaved runs:

- XLA runtime of ``jit(vmap(grad(mlp_loss)))``: per-example gradients of a 3-layer MLP
  (target <= 1.05x JAX's);
- trace+lower time of ``jit(grad(f))`` for a 1,000-operation chain f (target <= 0.3x).

    python benchmarks/bench_autodiff.py
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from bench_core import chain  # noqa: E402
from common import paired, row_paired  # noqa: E402

import frontend as fe  # noqa: E402
import frontend.numpy as fnp  # noqa: E402


def mlp_loss(np_mod):
    def loss(params, x, y):
        h = x
        for w, b in params[:-1]:
            h = np_mod.tanh(h @ w + b)
        w, b = params[-1]
        return np_mod.sum((h @ w + b - y) ** 2)
    return loss


def mlp_params(rng, sizes):
    return [(rng.normal(size=(m, n)).astype(np.float32) / np.sqrt(m),
             np.zeros(n, np.float32)) for m, n in zip(sizes[:-1], sizes[1:], strict=True)]


def main():
    rng = np.random.default_rng(0)
    results = []
    for batch, sizes in [(128, [64, 256, 256, 10]), (512, [32, 128, 128, 10])]:
        params = mlp_params(rng, sizes)
        xs = rng.normal(size=(batch, sizes[0])).astype(np.float32)
        ys = rng.normal(size=(batch, sizes[-1])).astype(np.float32)
        ours = fe.jit(fe.vmap(fe.grad(mlp_loss(fnp)), in_axes=(None, 0, 0)))
        theirs = jax.jit(jax.vmap(jax.grad(mlp_loss(jnp)), in_axes=(None, 0, 0)))
        p_o = [(fe.device_put(w), fe.device_put(b)) for w, b in params]
        p_j = [(jax.device_put(w), jax.device_put(b)) for w, b in params]
        x_o, y_o, x_j, y_j = fe.device_put(xs), fe.device_put(ys), jax.device_put(xs), jax.device_put(ys)
        got, want = ours(p_o, x_o, y_o), theirs(p_j, x_j, y_j)
        for (gw, gb), (jw, jb) in zip(got, want, strict=True):
            np.testing.assert_allclose(np.asarray(gw), np.asarray(jw), rtol=1e-4, atol=1e-5)
            np.testing.assert_allclose(np.asarray(gb), np.asarray(jb), rtol=1e-4, atol=1e-5)
        r = paired(lambda: ours(p_o, x_o, y_o)[0][0].block_until_ready(),
                   lambda: theirs(p_j, x_j, y_j)[0][0].block_until_ready(), repeat=15, number=20)
        results.append(row_paired(f"jit(vmap(grad(mlp))) B={batch} {sizes}", r, "(target <= 1.05)"))

    x = np.linspace(0, 1, 128, dtype=np.float32)
    y = np.float32(0.9) * np.ones(128, np.float32)

    def scalar(f, np_mod):
        return lambda x, y: np_mod.sum(f(x, y))

    # a fresh function every time, so that no trace or lowering cache can answer
    r = paired(lambda: fe.jit(fe.grad(scalar(chain(fnp), fnp))).lower(x, y).as_text(),
               lambda: jax.jit(jax.grad(scalar(chain(jnp), jnp))).lower(x, y).as_text(), repeat=7)
    results.append(row_paired("trace+lower grad of a 1000-op chain", r, "(target <= 0.3)"))
    print("\n".join(results))


if __name__ == "__main__":
    main()
