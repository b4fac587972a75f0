"""Seed 0: vmap is batching, not parallelism. A Python loop over examples traces one
dot_general per example plus slicing and stacking; vmap gives ONE dot_general with a batching
dimension.

    python examples/loop_vs_vmap.py
"""
import numpy as np

import frontend as fe
import frontend.numpy as fnp


def f(x, y):
    return x @ y


num_batches, num_entries = 3, 5
rng = np.random.default_rng(0)
x = rng.random((num_batches, num_entries), dtype=np.float32)
y = rng.random((num_batches, num_entries), dtype=np.float32)


def f_loop(x, y):
    return fnp.stack([f(xi, yi) for xi, yi in zip(x, y, strict=True)])


f_vmap = fe.vmap(f)

print("loop:", f_loop(x, y))
print("vmap:", f_vmap(x, y))

print("\nGraph of the Python loop:")
print(fe.make_graph(f_loop)(x, y))
print("\nGraph of vmap(f):")
print(fe.make_graph(f_vmap)(x, y))

text = fe.jit(f_vmap).lower(x, y).as_text()
print("\nStableHLO of jit(vmap(f)):")
print(text)
assert text.count("stablehlo.dot_general") == 1
assert "batching_dims = [0] x [0], contracting_dims = [1] x [1]" in text
np.testing.assert_allclose(np.asarray(f_loop(x, y)), np.asarray(f_vmap(x, y)), rtol=1e-6)
