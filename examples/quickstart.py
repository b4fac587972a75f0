"""Quickstart: a small model written for ONE example, its graph, its batched graph, the
StableHLO it lowers to, and its result on the XLA CPU device.

    python examples/quickstart.py
"""
import numpy as np

import frontend as fe
import frontend.numpy as fnp

rng = np.random.default_rng(0)
W = rng.normal(size=(4, 3)).astype(np.float32)   # weights, closed over: become constants
b = np.float32(0.5)


def model(x):
    """One example: x has shape (3,)."""
    h = fnp.tanh(W @ x + b)
    return h.sum()


x = rng.normal(size=3).astype(np.float32)
xs = rng.normal(size=(8, 3)).astype(np.float32)    # a batch of 8 examples

print("== graph of model(x) ==")
print(fe.make_graph(model)(x))

batched = fe.vmap(model)
print("\n== graph of vmap(model)(xs) ==")
print(fe.make_graph(batched)(xs))

print("\n== StableHLO of jit(vmap(model)) ==")
print(fe.jit(batched).lower(xs).as_text())

out = fe.jit(batched)(xs)
loop = np.array([float(model(xi)) for xi in xs], np.float32)
print("== result ==")
print(out)
print("matches the per-example loop:", np.allclose(np.asarray(out), loop, atol=1e-5))
