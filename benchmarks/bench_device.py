"""vmaplab vs JAX on whatever device is present (a GPU or TPU when there is one, else the
CPU), one process, interleaved runs: per program the median time of a call of the jitted
function (results ready on the host) and the ratio ours / JAX's.

    python benchmarks/bench_device.py            # the first accelerator, else the CPU
    python benchmarks/bench_device.py --platform cpu
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from common import paired, row_paired  # noqa: E402
from test_device import accelerator  # noqa: E402

import frontend as fe  # noqa: E402
import frontend.numpy as fnp  # noqa: E402


def programs(np_mod, linalg):
    def mlp(x, w1, w2):
        return np_mod.tanh(x @ w1) @ w2

    def per_example_grads(x, w1, w2):
        grad = fe.grad if np_mod is fnp else jax.grad
        vmap = fe.vmap if np_mod is fnp else jax.vmap
        return vmap(grad(lambda xi, a, b: np_mod.sum(mlp(xi, a, b) ** 2), argnums=1),
                    in_axes=(0, None, None))(x, w1, w2)

    def solve(a, b):
        spd = a @ a.T + a.shape[0] * np_mod.eye(a.shape[0], dtype=a.dtype)
        return linalg.solve(spd, b), linalg.cholesky(spd)

    return {"mlp 1024x512x256": mlp, "vmap(grad(mlp)) 64 examples": per_example_grads,
            "solve + cholesky 256": solve}


def inputs(rng):
    f32 = lambda *s: rng.normal(size=s).astype(np.float32) / np.sqrt(s[0])  # noqa: E731
    return {"mlp 1024x512x256": (f32(1024, 512), f32(512, 256), f32(256, 128)),
            "vmap(grad(mlp)) 64 examples": (f32(64, 512), f32(512, 256), f32(256, 128)),
            "solve + cholesky 256": (f32(256, 256), f32(256, 64))}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--platform", default=None, help="cpu, gpu or tpu (default: an accelerator, else cpu)")
    args = ap.parse_args(argv)
    ours_dev = accelerator(args.platform) or fe.devices("cpu")[0]
    jax_dev = jax.devices(ours_dev.platform)[0]
    print(f"device: {ours_dev} ({ours_dev.platform})")
    ours_p, theirs_p = programs(fnp, fnp.linalg), programs(jnp, jnp.linalg)
    for name, xs in inputs(np.random.default_rng(0)).items():
        f = fe.jit(ours_p[name], device=ours_dev)
        g = jax.jit(theirs_p[name])  # (runs where its arguments are)
        on_ours = [fe.device_put(x, ours_dev) for x in xs]
        on_jax = [jax.device_put(x, jax_dev) for x in xs]
        res = paired(lambda: jax.block_until_ready(jax.tree_util.tree_map(np.asarray, f(*on_ours))),
                     lambda: jax.block_until_ready(jax.tree_util.tree_map(np.asarray, g(*on_jax))))
        print(row_paired(name, res))


if __name__ == "__main__":
    main()
