"""Seed 3: automatic vectorization of a 1-D convolution: a Python loop, a hand-vectorized
version, vmap, in_axes/out_axes=1, in_axes=[0, None], and jit of vmap.

    python examples/convolution.py
"""
import numpy as np

import frontend as fe
import frontend.numpy as fnp

x = fnp.arange(5)
w = fnp.array([2.0, 3.0, 4.0])


def convolve(x, w):
    output = []
    for i in range(1, len(x) - 1):
        output.append(fnp.dot(x[i - 1:i + 2], w))
    return fnp.array(output)


print("convolve:", convolve(x, w))

xs = fnp.stack([x, x])
ws = fnp.stack([w, w])


def manually_batched_convolve(xs, ws):
    output = []
    for i in range(xs.shape[0]):
        output.append(convolve(xs[i], ws[i]))
    return fnp.stack(output)


def manually_vectorized_convolve(xs, ws):
    output = []
    for i in range(1, xs.shape[-1] - 1):
        output.append(fnp.sum(xs[:, i - 1:i + 2] * ws, axis=1))
    return fnp.stack(output, axis=1)


expected = np.array([[11.0, 20.0, 29.0], [11.0, 20.0, 29.0]], np.float32)
auto_batch_convolve = fe.vmap(convolve)
results = {
    "python loop": manually_batched_convolve(xs, ws),
    "hand-vectorized": manually_vectorized_convolve(xs, ws),
    "vmap": auto_batch_convolve(xs, ws),
    "vmap in_axes=1, out_axes=1 (transposed)":
        fe.vmap(convolve, in_axes=1, out_axes=1)(fnp.transpose(xs), fnp.transpose(ws)).T,
    "vmap in_axes=[0, None]": fe.vmap(convolve, in_axes=[0, None])(xs, w),
    "jit(vmap)": fe.jit(auto_batch_convolve)(xs, ws),
}
for name, r in results.items():
    print(f"{name:>40}: {np.asarray(r).tolist()}")
    np.testing.assert_allclose(np.asarray(r), expected)

print("\nStableHLO of jit(vmap(convolve)):")
print(fe.jit(auto_batch_convolve).lower(xs, ws).as_text())
