"""Ragged batches: a small attention encoder and an RNN over sentences of different lengths,
written for ONE sentence, batched by vmap over a ``frontend.ragged`` batch. The batching rules
insert the masks (a mean over the real tokens, a softmax with no weight on padded keys, an RNN
whose state stops at each sentence's last token); checked against a Python loop over the
sentences, with the batched graph printed and the speed-up over the loop.

    python examples/ragged_sequences.py
"""
import time

import numpy as np

import frontend as fe
import frontend.numpy as fnp
from frontend import lax, nn

D = 16
rng = np.random.default_rng(0)
lengths = rng.integers(1, 40, size=64)
lengths[:3] = (1, 39, 7)
sentences = [rng.normal(size=(int(n), D)).astype(np.float32) for n in lengths]
params = {
    "wq": rng.normal(size=(D, D)).astype(np.float32) / 4,
    "wk": rng.normal(size=(D, D)).astype(np.float32) / 4,
    "wv": rng.normal(size=(D, D)).astype(np.float32) / 4,
    "wh": rng.normal(size=(D, D)).astype(np.float32) / 4,
}


def encoder(p, x):
    """One sentence (tokens, D) -> a pooled vector (D,): self-attention, then the mean."""
    q, k, v = x @ p["wq"], x @ p["wk"], x @ p["wv"]
    att = nn.softmax(q @ k.T / np.sqrt(D).astype(np.float32), axis=-1)
    return fnp.mean(att @ v + x, axis=0)


def rnn(p, x):
    """One sentence -> the state after its last token."""
    def step(h, xt):
        return fnp.tanh(h @ p["wh"] + xt), None
    return lax.scan(step, fnp.zeros(D, np.float32), x)[0]


def model(p, x):
    return encoder(p, x) + rnn(p, x)


batch = fe.ragged.stack(sentences)
print(f"{len(sentences)} sentences of {lengths.min()}..{lengths.max()} tokens, padded to "
      f"{batch.shape[1]} (bucketed)")

batched = fe.jit(fe.vmap(model, in_axes=(None, 0)))
one = fe.jit(model)  # the loop: one compiled program per sentence length

got = np.asarray(batched(params, batch))
want = np.stack([np.asarray(one(params, s)) for s in sentences])
np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-5)
print("matches the per-sentence loop:", True)

print("\nThe batched graph of the encoder (the masks are the iota/lt/select lines):")
print(fe.make_graph(fe.vmap(encoder, in_axes=(None, 0)))(params, fe.ragged.stack(sentences[:2])))


def timed(fn, repeat=5):
    fn()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts))


t_batch = timed(lambda: batched(params, batch).block_until_ready())
t_loop = timed(lambda: [one(params, s).block_until_ready() for s in sentences])
print(f"\nbatched (jit of vmap): {t_batch * 1e3:.2f} ms; Python loop of jit: {t_loop * 1e3:.2f} ms; "
      f"speed-up {t_loop / t_batch:.1f}x")
