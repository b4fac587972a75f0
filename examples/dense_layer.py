"""Seed 2: a dense layer written for one input, batched three ways (einsum, transposition,
vmap), then in_axes / out_axes / None and a nested vmap over a grid (saved as a contour plot
when matplotlib is installed).

    python examples/dense_layer.py [output.png]
"""
import sys

import numpy as np

import frontend as fe
import frontend.numpy as fnp


def dense_layer(x):
    W = fnp.array([[0.2, 0.4], [0.9, 0.2]])
    b = fnp.array([0.2, 0.3])
    return W.dot(x) + b


inputs = fnp.array([1.1, 1.2])
print(f"{inputs} -> {dense_layer(inputs)}")

inputs = fnp.array([[1.1, 1.2], [2.1, 2.2], [3.1, 3.2]])
try:
    dense_layer(inputs)
except TypeError as exc:
    print("unbatched layer on a batch:", exc)


def einsum_layer(x):
    W = fnp.array([[0.2, 0.4], [0.9, 0.2]])
    b = fnp.array([0.2, 0.3])
    return fnp.einsum("ij,bj->bi", W, x) + b


def transpose_layer(x):
    W = fnp.array([[0.2, 0.4], [0.9, 0.2]])
    b = fnp.array([0.2, 0.3])
    return x.dot(W.T) + b


batched_dense = fe.vmap(dense_layer)
print("einsum:   ", einsum_layer(inputs))
print("transpose:", transpose_layer(inputs))
print("vmap:     ", batched_dense(inputs))
for other in (einsum_layer(inputs), transpose_layer(inputs)):
    np.testing.assert_allclose(np.asarray(batched_dense(inputs)), np.asarray(other), rtol=1e-6)


def func(x, y):
    return x + y


print("zip:", fe.vmap(func, in_axes=(0, 0))(fnp.array([1, 2, 3]), fnp.array([4, 5, 6])))

x_batched = fnp.array([[1, 2, 3]])
y_batched = fnp.array([[4], [5], [6]])
out1 = fe.vmap(func, in_axes=(1, 0), out_axes=1)(x_batched, y_batched)
print("in_axes=(1, 0), out_axes=1:", out1, out1.shape)
out2 = fe.vmap(func, in_axes=(1, 0), out_axes=0)(x_batched, y_batched)
print("in_axes=(1, 0), out_axes=0:", out2, out2.shape)
assert out1.shape == (1, 3) and out2.shape == (3, 1)


def scale(x, y):
    return x * y


out3 = fe.vmap(scale, in_axes=(None, 0))(3.0, fnp.array([3, 4, 5]))
print("in_axes=(None, 0):", repr(out3))
assert out3.dtype == np.float32 and out3.weak_type

x_range = fnp.linspace(-5, 5)
y_range = fnp.linspace(-2, 2)


def wave(x, y):
    return fnp.sin(x) * y


out = fe.vmap(fe.vmap(wave, in_axes=(None, 0)), in_axes=(0, None))(x_range, y_range)
print("grid:", out.shape)
np.testing.assert_allclose(np.asarray(out), np.sin(np.asarray(x_range))[:, None] * np.asarray(y_range)[None, :],
                           rtol=1e-5, atol=1e-6)
grid = fnp.meshgrid(x_range, y_range, indexing="ij")

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib is not installed: no plot")
else:
    path = sys.argv[1] if len(sys.argv) > 1 else "dense_layer_grid.png"
    plt.contourf(np.asarray(grid[0]), np.asarray(grid[1]), np.asarray(out), levels=31)
    plt.colorbar()
    plt.title("vmap(vmap(sin(x) * y)) over a grid")
    plt.savefig(path)
    print("contour plot saved to", path)
