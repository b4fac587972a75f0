"""vmap of a cond with a batched predicate (issue 29): the rare-slow-path program at B=64, its
expensive branch 40 matmuls, with no lane taking it (the guard skips it: target <= 0.1x JAX)
and with 1 lane in 64 taking it (target <= 1.05x), and a cheap-branch cond where the cost
model keeps JAX's select (target <= 1.0x). Ours and JAX's interleaved in one process, medians
of the per-pair ratios.

Then item 3: a batched while loop whose lanes finish at very different trip counts (most
after 1-3 steps, one in 16 after 64), with the active lanes compacted into a quarter-size
batch once at most a quarter are left (vmap_cond="auto") and stepping every lane until the
last is done, finished lanes held by the select (vmap_cond="select", JAX's way), each
against jax.vmap.

    python benchmarks/bench_cond.py
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
from frontend import lax  # noqa: E402

B, N, DEPTH = 64, 32, 40
W = (np.random.default_rng(29).normal(size=(N, N)) / np.sqrt(N)).astype(np.float32)


def rare_slow_path(L, NP):
    def expensive(x):
        for _ in range(DEPTH):
            x = NP.tanh(x @ W)
        return x

    return lambda x: L.cond(x[0, 0] > 100, expensive, lambda x: x * 2.0 + 1.0, x)


def cheap_cond(L, NP):
    return lambda x: L.cond(x.sum() > 0, lambda x: x * 2.0 + 1.0, lambda x: NP.sin(x) - x, x)


def compare(name, make, x, target):
    ours, theirs = fe.jit(fe.vmap(make(lax, fnp))), jax.jit(jax.vmap(make(jax.lax, jnp)))
    xo, xj = fe.device_put(x), jax.device_put(x)
    np.testing.assert_allclose(np.asarray(ours(xo)), np.asarray(theirs(xj)), rtol=2e-4, atol=2e-5)
    res = paired(lambda: ours(xo).block_until_ready(), lambda: theirs(xj).block_until_ready(),
                 repeat=31, number=5)
    print(row_paired(name, res, target))
    # the two modules alone: one XLA client, the same buffers, the same call
    text_jax = theirs.lower(x).as_text()
    print(row_paired("  (the modules alone)", same_call_time(self_contained_text(ours, [x]), text_jax,
                                                            [x], number=5)))
    return res


# ----------------------------------------------------------------------------- item 3


def stepped(x, n):
    """Lane work: n steps of a matmul-heavy body (n differs per lane)."""
    return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, fnp.tanh(c[1] @ W)), (0, x))[1]


def compaction():
    rng = np.random.default_rng(3)
    global W
    for n_mat in (32, 128):
        W = (rng.normal(size=(n_mat, n_mat)) / np.sqrt(n_mat)).astype(np.float32)
        # most lanes finish in one to three steps, one in sixteen takes 64
        ns = np.where(np.arange(B) % 16 == 5, 64, rng.integers(1, 4, B)).astype(np.int32)
        x = rng.normal(size=(B, n_mat, n_mat)).astype(np.float32)
        fe.config.update("vmap_cond", "select")  # every lane stepped to the end (JAX's way)
        plain = fe.jit(fe.vmap(stepped))
        xo, no = fe.device_put(x), fe.device_put(ns)
        ref = np.asarray(plain(xo, no))
        fe.config.update("vmap_cond", "auto")
        comp = fe.jit(fe.vmap(stepped))
        np.testing.assert_allclose(np.asarray(comp(xo, no)), ref, rtol=1e-5, atol=1e-6)
        theirs = jax.jit(jax.vmap(lambda x, n: jax.lax.while_loop(
            lambda c: c[0] < n, lambda c: (c[0] + 1, jnp.tanh(c[1] @ W)), (0, x))[1]))
        xj, nj = jax.device_put(x), jax.device_put(ns)
        res = paired(lambda: comp(xo, no).block_until_ready(),
                     lambda: theirs(xj, nj).block_until_ready(), repeat=11, number=3)
        print(row_paired(f"while {n_mat}x{n_mat} body, lanes compacted", res))
        fe.config.update("vmap_cond", "select")
        res = paired(lambda: plain(xo, no).block_until_ready(),
                     lambda: theirs(xj, nj).block_until_ready(), repeat=11, number=3)
        print(row_paired(f"while {n_mat}x{n_mat} body, vmap_cond=select", res))
        fe.config.update("vmap_cond", "auto")


def main():
    print(f"B={B}, expensive branch: {DEPTH} tanh(x @ W) on {N}x{N}, vmap_cond="
          f"{fe.config.vmap_cond}")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(B, N, N)).astype(np.float32)
    compare("rare slow path, no lane takes it", rare_slow_path, x, "(target <= 0.1)")
    one = x.copy()
    one[17, 0, 0] = 200.0
    compare("rare slow path, 1 lane in 64 takes it", rare_slow_path, one, "(target <= 1.05)")
    compare("cheap branches (the select is kept)", cheap_cond, x, "(target <= 1.0)")
    compaction()


if __name__ == "__main__":
    main()
