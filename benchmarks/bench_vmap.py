"""vmap vs JAX, one process.

1. Compiled runtime of jit(vmap(f)) vs jax.jit(jax.vmap(f)) for the seed tanh model at
   B=1024, a 3-layer MLP and the 1-D convolution. Both StableHLO modules are compiled by the
   same XLA client and run on the same device buffers through the same call, so the ratio
   measures only the quality of the StableHLO (target <= 1.05). The end-to-end call (our
   dispatch) is shown too.
2. vmap vs a Python loop of jitted per-example calls at B=256 (speed-up of batching), ours and
   JAX's.

    python benchmarks/bench_vmap.py
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from common import paired, row_paired, same_call_time, self_contained_text  # noqa: E402

import frontend as fe  # noqa: E402
import frontend.numpy as fnp  # noqa: E402

rng = np.random.default_rng(0)


def seed_model(np_mod):
    M = np.random.default_rng(2).normal(size=(2, 3)).astype(np.float32)

    def model(v):
        return np_mod.tanh(M @ v + 1.0).sum()
    return model, (3,)


def mlp(np_mod, width=256):
    r = np.random.default_rng(1)
    Ws = [r.normal(size=(width, 64)).astype(np.float32) / 8,
          r.normal(size=(width, width)).astype(np.float32) / 16,
          r.normal(size=(10, width)).astype(np.float32) / 16]
    bs = [r.normal(size=w.shape[0]).astype(np.float32) for w in Ws]

    def f(x):
        for W, b in zip(Ws[:-1], bs[:-1], strict=True):
            x = np_mod.tanh(W @ x + b)
        return Ws[-1] @ x + bs[-1]
    return f, (64,)


def convolution(np_mod):
    def convolve(x, w):
        out = []
        for i in range(1, x.shape[0] - 1):
            out.append(np_mod.dot(x[i - 1:i + 2], w))
        return np_mod.stack(out)
    return convolve, ((32,), (3,))


def compiled_runtime(name, make, B):
    f_ours, shape = make(fnp)
    f_jax, _ = make(jnp)
    shapes = shape if isinstance(shape[0], tuple) else (shape,)
    args = [rng.normal(size=(B,) + s).astype(np.float32) for s in shapes]
    ours = fe.jit(fe.vmap(f_ours))
    theirs = jax.jit(jax.vmap(f_jax))
    np.testing.assert_allclose(np.asarray(ours(*args)), np.asarray(theirs(*args)), rtol=2e-4, atol=2e-5)
    t_ours = self_contained_text(ours, args)
    # JAX's module with its sharding/layout attributes, parsed by the same client
    t_jax = theirs.lower(*args).as_text()
    lines = [row_paired(f"{name} B={B}: same-call XLA runtime", same_call_time(t_ours, t_jax, args, 200),
                        "(target <= 1.05)")]
    dev_o = [fe.device_put(a) for a in args]
    dev_j = [jax.device_put(a) for a in args]
    r = paired(lambda: ours(*dev_o).block_until_ready(), lambda: theirs(*dev_j).block_until_ready(),
               repeat=15, number=100)
    lines.append(row_paired(f"{name} B={B}: end-to-end jit(vmap) call", r))
    return lines


def loop_vs_vmap(B=256):
    f_ours, shape = seed_model(fnp)
    f_jax, _ = seed_model(jnp)
    xs = rng.normal(size=(B,) + shape).astype(np.float32)
    o1, oB = fe.jit(f_ours), fe.jit(fe.vmap(f_ours))
    j1, jB = jax.jit(f_jax), jax.jit(jax.vmap(f_jax))
    rows = list(xs)
    t_ol = paired(lambda: [o1(x) for x in rows][-1].block_until_ready(),
                  lambda: [j1(x) for x in rows][-1].block_until_ready(), repeat=7)
    t_ov = paired(lambda: oB(xs).block_until_ready(), lambda: jB(xs).block_until_ready(),
                  repeat=15, number=50)
    return [
        row_paired(f"seed model, Python loop of jit calls, B={B}", t_ol),
        row_paired(f"seed model, jit(vmap), B={B}", t_ov),
        f"{'speed-up of vmap over the loop':<44} ours {t_ol[0] / t_ov[0]:8.1f}x     jax {t_ol[1] / t_ov[1]:8.1f}x",
    ]


def main():
    out = []
    out += compiled_runtime("seed tanh model", seed_model, 1024)
    out += compiled_runtime("3-layer MLP (64-256-256-10)", mlp, 1024)
    out += compiled_runtime("1-D convolution (32, w=3)", convolution, 1024)
    out += loop_vs_vmap(256)
    print("\n".join(out))


if __name__ == "__main__":
    main()
