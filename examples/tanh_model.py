"""Seed 1: write the model for one example; vmap gives the batched version, and it lowers to
the same operations as the hand-batched einsum version.

    python examples/tanh_model.py
"""
import numpy as np

import frontend as fe
import frontend.numpy as fnp

rng = np.random.default_rng(98432)
M = fnp.array(rng.normal(size=(2, 3)))
b = 1.0


def model(v, M=M, b=b):
    return fnp.tanh(M @ v + b).sum()


v = fnp.array(rng.normal(size=3))
print("model(v) =", model(v))

v_batched = fnp.array(rng.normal(size=(5, 3)))
try:
    model(v_batched)
except TypeError as e:
    print("model(v_batched) fails:", e)


def model_batched(v_batched, M=M, b=b):
    # v_batched: (n_batches, m); M: (k, m); output: (n_batches, k)
    return fnp.tanh(fnp.einsum("km,nm->nk", M, v_batched) + b).sum(1)


loop = fnp.array([model(v) for v in v_batched])
manual = model_batched(v_batched)
auto = fe.vmap(model)(v_batched)
print("loop:         ", loop)
print("hand-batched: ", manual)
print("vmap:         ", auto)

print("\nGraph of the hand-batched model:")
print(fe.make_graph(model_batched)(v_batched))
print("\nGraph of vmap(model):")
print(fe.make_graph(fe.vmap(model))(v_batched))


def op_names(text):
    return [line.split("=", 1)[1].split()[0].split("(")[0] for line in text.splitlines()
            if "= stablehlo." in line and "stablehlo.constant" not in line]


hand_ops = op_names(fe.jit(model_batched).lower(v_batched).as_text())
vmap_ops = op_names(fe.jit(fe.vmap(model)).lower(v_batched).as_text())
print("\nStableHLO ops, hand-batched:", hand_ops)
print("StableHLO ops, vmap:        ", vmap_ops)
assert hand_ops == vmap_ops, "vmap should lower to the hand-batched sequence of operations"
np.testing.assert_allclose(np.asarray(auto), np.asarray(loop), rtol=1e-5, atol=1e-6)
np.testing.assert_allclose(np.asarray(manual), np.asarray(loop), rtol=1e-5, atol=1e-6)
