"""Per-example gradients: write the loss for ONE example, differentiate it with fe.grad, and
vmap the gradient over the batch (``in_axes=(None, 0, 0)``: parameters shared, examples
mapped). The result equals a Python loop of grad, and lowers to one program without a loop:
the per-example gradient of the dense layer is one dot_general with batching dims.

    python examples/per_example_grads.py
"""
import time

import numpy as np

import frontend as fe
import frontend.numpy as fnp

rng = np.random.default_rng(98432)
params = {"M": rng.normal(size=(2, 3)).astype(np.float32), "b": np.float32(1.0)}


def model(params, v):  # the tanh model of examples/tanh_model.py, for one example v: (3,)
    return fnp.tanh(params["M"] @ v + params["b"]).sum()


def loss(params, v, y):  # squared error of one example
    return (model(params, v) - y) ** 2


B = 512
vs = rng.normal(size=(B, 3)).astype(np.float32)
ys = rng.normal(size=(B,)).astype(np.float32)

per_example = fe.jit(fe.vmap(fe.grad(loss), in_axes=(None, 0, 0)))
grads = per_example(params, vs, ys)
print("per-example gradients:", {k: v.shape for k, v in grads.items()})

# the same, one example at a time
grad_one = fe.jit(fe.grad(loss))
loop = [grad_one(params, v, y) for v, y in zip(vs, ys, strict=True)]
for k in params:
    np.testing.assert_allclose(np.asarray(grads[k]), np.stack([np.asarray(g[k]) for g in loop]),
                               rtol=1e-5, atol=1e-6)
print("matches the Python loop of grad: True")

print("\nGraph of vmap(grad(loss)):")
print(fe.make_graph(fe.vmap(fe.grad(loss), in_axes=(None, 0, 0)))(params, vs, ys))

text = per_example.lower(params, vs, ys).as_text()
print("\nStableHLO:")
print(text)
dots = [line.strip() for line in text.splitlines() if "stablehlo.dot_general" in line]
assert any("batching_dims = [" in d for d in dots), dots
assert "stablehlo.while" not in text
print("dM per example is one dot_general with batching dims, no loop:")
print("  " + next(d for d in dots if "batching_dims" in d))


def best_of(fn, repeat=5):
    fn()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return min(ts)


t_vmap = best_of(lambda: per_example(params, vs, ys)["M"].block_until_ready())
t_loop = best_of(lambda: [grad_one(params, v, y)["M"] for v, y in zip(vs, ys, strict=True)][-1]
                 .block_until_ready(), repeat=2)
print(f"\n{B} per-example gradients: vmap {t_vmap * 1e3:.2f} ms, loop of grad "
      f"{t_loop * 1e3:.1f} ms: {t_loop / t_vmap:.0f}x faster")
