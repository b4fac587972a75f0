"""A vmapped MLP with the batch sharded over devices: 1 device vs 2 devices, ours vs JAX's same
program with the same shardings (both partitioned by XLA's SPMD partitioner). The script asks
XLA for 2 CPU devices (this machine has 2 cores) before the backend starts.

1. End to end (jit dispatch + the partitioned program), device-resident sharded inputs.
2. The compiled executables alone: both modules run through the same ``execute_sharded``
   call on the same buffers, so the ratio measures the partitioned program (target <= 1.05).

    python benchmarks/bench_spmd.py
"""
from __future__ import annotations

import os
import sys

if "xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               " --xla_force_host_platform_device_count=2").strip()

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from common import paired, row_paired  # noqa: E402
from jax.sharding import Mesh as JMesh  # noqa: E402
from jax.sharding import NamedSharding as JNamed  # noqa: E402
from jax.sharding import PartitionSpec as JP  # noqa: E402

import frontend as fe  # noqa: E402
import frontend.numpy as fnp  # noqa: E402
from frontend.sharding import Mesh, NamedSharding  # noqa: E402
from frontend.sharding import PartitionSpec as P  # noqa: E402

WIDTH, DEPTH, BATCH = 512, 4, 2048


def mlp(np_mod, params):
    def f(x):
        for w, b in params[:-1]:
            x = np_mod.tanh(x @ w + b)
        w, b = params[-1]
        return (x @ w + b).sum()
    return f


def main():
    rng = np.random.default_rng(0)
    params = [(rng.normal(size=(WIDTH, WIDTH)).astype(np.float32) / np.sqrt(WIDTH),
               np.zeros(WIDTH, np.float32)) for _ in range(DEPTH)]
    x = rng.normal(size=(BATCH, WIDTH)).astype(np.float32)
    print(f"vmapped MLP: batch {BATCH}, {DEPTH} layers of {WIDTH}; shared machine, medians of "
          "paired runs")
    devs = fe.devices()
    if len(devs) < 2:
        print("needs 2 devices (XLA_FLAGS=--xla_force_host_platform_device_count=2)")
        return
    ours_f = fe.vmap(mlp(fnp, params))
    jax_f = jax.vmap(mlp(jnp, params))
    results = {}
    for n in (1, 2):
        mesh = Mesh(np.array(devs[:n]), ("batch",))
        jmesh = JMesh(np.array(jax.devices()[:n]), ("batch",))
        s, js = NamedSharding(mesh, P("batch")), JNamed(jmesh, JP("batch"))
        xs, jxs = fe.device_put(x, s), jax.device_put(x, js)
        ours = fe.jit(ours_f, in_shardings=s, out_shardings=s)
        theirs = jax.jit(jax_f, in_shardings=js, out_shardings=js)
        np.testing.assert_allclose(ours(xs), theirs(jxs), rtol=2e-4, atol=2e-4)
        r = paired(lambda: ours(xs).block_until_ready(),
                   lambda: theirs(jxs).block_until_ready(), repeat=15, number=5)
        results[n] = r
        print(row_paired(f"end to end, {n} device{'s' if n > 1 else ''}", r, "(target <= 1.05)"))
        # the executables alone, through the same call on the same buffers
        c = ours.lower(xs).compile()._c  # (the weights it closes over are hoisted arguments)
        ours_args = (c.consts.buffers() if c.consts is not None else []) + [xs._buf]
        jexe = theirs.lower(jxs).compile().runtime_executable()

        def run(e, args):
            return e.execute_sharded(args).disassemble_into_single_device_arrays()[0][0] \
                .block_until_ready()

        r = paired(lambda: run(c.exe.loaded, ours_args), lambda: run(jexe, [jxs]), repeat=15,
                   number=5)
        print(row_paired(f"executable only, {n} device{'s' if n > 1 else ''}", r,
                         "(target <= 1.05)"))
    print(f"speed-up from 1 to 2 devices: ours {results[1][0] / results[2][0]:.2f}x, "
          f"JAX {results[1][1] / results[2][1]:.2f}x")


if __name__ == "__main__":
    main()
