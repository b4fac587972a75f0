"""Issue 16's surface vs JAX, one process, interleaved runs:

- random: jitted normal and uniform of 1M floats (XLA runtime), an eager normal((1000,))
  (dispatch of one fused executable);
- the attention block of examples/attention_block.py, jit(vmap) over 64 sequences (runtime);
- interop: a jitted call taking a jax.Array (its buffer used as is) vs taking our Array.

    python benchmarks/bench_programs.py
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "examples"))
import attention_block as ab  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from common import paired, row_paired  # noqa: E402

import frontend as fe  # noqa: E402
import frontend.numpy as fnp  # noqa: E402
from frontend import nn, random, tree_util  # noqa: E402


def main():
    k, jk = random.PRNGKey(0), jax.random.PRNGKey(0)
    for name, ours, theirs in (
            ("jit normal (1M,)", fe.jit(lambda k: random.normal(k, (1 << 20,))),
             jax.jit(lambda k: jax.random.normal(k, (1 << 20,)))),
            ("jit uniform (1M,)", fe.jit(lambda k: random.uniform(k, (1 << 20,))),
             jax.jit(lambda k: jax.random.uniform(k, (1 << 20,))))):
        print(row_paired(name, paired(lambda: ours(k).block_until_ready(),
                                      lambda: theirs(jk).block_until_ready(), repeat=9, number=5)))
    print(row_paired("eager normal (1000,)", paired(
        lambda: random.normal(k, (1000,)).block_until_ready(),
        lambda: jax.random.normal(jk, (1000,)).block_until_ready(), repeat=9, number=20)))

    b = 64
    init, block = ab.make_model(fnp, nn, random, tree_util)
    j_init, j_block = ab.make_model(jnp, jax.nn, jax.random, jax.tree_util)
    params, jparams = fe.jit(init)(k), jax.jit(j_init)(jk)
    xs = np.random.default_rng(0).normal(size=(b, ab.SEQ, ab.D)).astype(np.float32)
    keys = random.split(k, b)
    f = fe.jit(fe.vmap(block, in_axes=(None, 0, 0)))
    g = jax.jit(jax.vmap(j_block, in_axes=(None, 0, 0)))
    xs_f, xs_j, keys_j = fnp.asarray(xs), jnp.asarray(xs), jnp.asarray(keys)
    print(row_paired(f"attention block, jit(vmap) over {b}", paired(
        lambda: f(params, xs_f, keys).block_until_ready(),
        lambda: g(jparams, xs_j, keys_j).block_until_ready(), repeat=9, number=20)))

    h = fe.jit(lambda x: x * 2.0)
    a, ja = fnp.ones((256,)), jnp.ones((256,))
    print(row_paired("jit call: a jax.Array vs our Array", paired(
        lambda: h(ja).block_until_ready(), lambda: h(a).block_until_ready(), repeat=9,
        number=200)))


if __name__ == "__main__":
    main()
