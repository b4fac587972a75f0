"""lax.map vs vmap vs a Python loop of jitted calls, for the seed tanh model, over batch sizes
16..4096; ours and JAX's from the same run. Writes a table and a log-log plot (PNG, when
matplotlib is installed).

    python benchmarks/bench_map.py [plot.png]
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from common import median_time  # noqa: E402

import frontend as fe  # noqa: E402
import frontend.numpy as fnp  # noqa: E402
from frontend import lax  # noqa: E402

M = np.random.default_rng(98432).normal(size=(2, 3)).astype(np.float32)


def make(np_mod):
    def model(v):
        return np_mod.tanh(M @ v + 1.0).sum()
    return model


def timings(B: int):
    xs = np.random.default_rng(B).normal(size=(B, 3)).astype(np.float32)
    rows = list(xs)
    out = {}
    for who, np_mod, jit, vmap, lmap in (("ours", fnp, fe.jit, fe.vmap, lax.map),
                                          ("jax", jnp, jax.jit, jax.vmap, jax.lax.map)):
        model = make(np_mod)
        f_map = jit(lambda x: lmap(model, x))
        f_vmap = jit(vmap(model))
        f_one = jit(model)
        ref = np.asarray(f_vmap(xs))
        np.testing.assert_allclose(np.asarray(f_map(xs)), ref, rtol=1e-5, atol=1e-6)
        out[(who, "map")] = median_time(lambda: f_map(xs).block_until_ready(), repeat=7, number=5)
        out[(who, "vmap")] = median_time(lambda: f_vmap(xs).block_until_ready(), repeat=7, number=20)
        out[(who, "loop")] = median_time(lambda: [f_one(r) for r in rows][-1].block_until_ready(),
                                         repeat=3)
    return out


def main():
    sizes = [16, 64, 256, 1024, 4096]
    table = {B: timings(B) for B in sizes}
    head = f"{'B':>6} | {'map':>10} {'vmap':>10} {'loop':>10} | {'jax map':>10} {'jax vmap':>10} {'jax loop':>10} | loop/vmap ours, jax"
    print(head)
    print("-" * len(head))
    for B, t in table.items():
        us = {k: v * 1e6 for k, v in t.items()}
        print(f"{B:>6} | {us['ours', 'map']:>8.1f}us {us['ours', 'vmap']:>8.1f}us {us['ours', 'loop']:>8.0f}us | "
              f"{us['jax', 'map']:>8.1f}us {us['jax', 'vmap']:>8.1f}us {us['jax', 'loop']:>8.0f}us | "
              f"{t['ours', 'loop'] / t['ours', 'vmap']:6.0f}x {t['jax', 'loop'] / t['jax', 'vmap']:6.0f}x")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot")
        return
    path = sys.argv[1] if len(sys.argv) > 1 else "bench_map.png"
    fig, ax = plt.subplots(figsize=(7, 5))
    for (who, kind), style in {("ours", "map"): "C0-o", ("ours", "vmap"): "C1-o", ("ours", "loop"): "C2-o",
                               ("jax", "map"): "C0--x", ("jax", "vmap"): "C1--x", ("jax", "loop"): "C2--x"}.items():
        ax.plot(sizes, [table[B][who, kind] * 1e6 for B in sizes], style, label=f"{who} {kind}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("batch size")
    ax.set_ylabel("time per call (us)")
    ax.set_title("seed tanh model: lax.map vs vmap vs Python loop of jit calls")
    ax.legend()
    ax.grid(True, which="both", alpha=0.3)
    fig.savefig(path, dpi=100)
    print("plot saved to", path)


if __name__ == "__main__":
    main()
