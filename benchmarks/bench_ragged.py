"""Ragged batches (frontend.ragged) vs the Python loop over examples and vs JAX with
hand-written padding and masks, one process, warm, interleaved (medians; ratios ours/JAX):

- attention encoder (self-attention + mean over the real tokens), 64 sentences of 1..39
  tokens of width 16, padded to 64;
- RNN (tanh(h @ W + x_t), the state at each sentence's last token), same batch.

Target: within 1.1x of JAX with hand-written masks; the loop far behind.

    python benchmarks/bench_ragged.py
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from common import fmt, paired, row_paired  # noqa: E402

import frontend as fe  # noqa: E402
import frontend.numpy as fnp  # noqa: E402
from frontend import lax, nn  # noqa: E402

D, B = 16, 64
rng = np.random.default_rng(0)
lengths = rng.integers(1, 40, size=B)
sentences = [rng.normal(size=(int(n), D)).astype(np.float32) for n in lengths]
P = {k: (rng.normal(size=(D, D)) / 4).astype(np.float32) for k in ("wq", "wk", "wv", "wh")}
SCALE = np.float32(1 / np.sqrt(D))


def encoder(p, x):
    q, k, v = x @ p["wq"], x @ p["wk"], x @ p["wv"]
    return fnp.mean(nn.softmax(q @ k.T * SCALE, axis=-1) @ v + x, axis=0)


def rnn(p, x):
    return lax.scan(lambda h, xt: (fnp.tanh(h @ p["wh"] + xt), None), fnp.zeros(D, np.float32), x)[0]


# JAX, the masks written by hand on the padded batch (what users write today)
def jax_encoder(p, x, n):
    valid = jnp.arange(x.shape[0]) < n
    q, k, v = x @ p["wq"], x @ p["wk"], x @ p["wv"]
    s = jnp.where(valid[None, :], q @ k.T * SCALE, -jnp.inf)
    y = jax.nn.softmax(s, axis=-1) @ v + x
    return jnp.sum(jnp.where(valid[:, None], y, 0), axis=0) / n


def jax_rnn(p, x, n):
    def step(h, tx):
        t, xt = tx
        return jnp.where(t < n, jnp.tanh(h @ p["wh"] + xt), h), None
    return jax.lax.scan(step, jnp.zeros(D, jnp.float32), (jnp.arange(x.shape[0]), x))[0]


def main():
    batch = fe.ragged.stack(sentences)
    data, lens = jnp.asarray(np.asarray(batch.data)), jnp.asarray(lengths.astype(np.int32))
    pj = {k: jnp.asarray(v) for k, v in P.items()}
    print(f"{B} sentences of {lengths.min()}..{lengths.max()} tokens, width {D}, padded to "
          f"{batch.shape[1]}")
    for name, f, jf in (("attention encoder", encoder, jax_encoder), ("rnn", rnn, jax_rnn)):
        ours = fe.jit(fe.vmap(f, in_axes=(None, 0)))
        theirs = jax.jit(jax.vmap(jf, in_axes=(None, 0, 0)))
        one = fe.jit(f)
        np.testing.assert_allclose(np.asarray(ours(P, batch)), np.asarray(theirs(pj, data, lens)),
                                   rtol=2e-4, atol=2e-5)
        run_ours = lambda: ours(P, batch).block_until_ready()  # noqa: E731
        run_jax = lambda: theirs(pj, data, lens).block_until_ready()  # noqa: E731
        run_loop = lambda: [one(P, s).block_until_ready() for s in sentences]  # noqa: E731
        print(row_paired(f"ragged {name} vs JAX hand masks", paired(run_ours, run_jax, repeat=15),
                         "(target <= 1.1)"))
        o, lp, r = paired(run_ours, run_loop, repeat=7, number=5)
        print(f"{'ragged ' + name + ' vs Python loop':<44} ours {fmt(o)}  loop {fmt(lp)}  "
              f"speed-up {1 / r:6.1f}x")


if __name__ == "__main__":
    main()
