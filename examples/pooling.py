"""Max and average pooling with lax.reduce_window, per example and under vmap.

A pooling layer is a window reduction: each 2x2 (or 3x3) window of an image becomes its
maximum (or mean). Written for one image of shape (channels, height, width), vmap runs it
on a batch: the batch axis becomes one more window axis of size 1, so the whole batch is
one stablehlo.reduce_window, no loop.

    python examples/pooling.py
"""
import numpy as np

import frontend as fe
import frontend.numpy as fnp
from frontend import lax


def max_pool(image, size=2):
    """Non-overlapping size x size windows -> their maximum."""
    return lax.reduce_window(image, -np.inf, lax.max, (1, size, size), (1, size, size), "VALID")


def avg_pool(image, size=3):
    """Overlapping size x size windows (stride 1, 'SAME' padding) -> their mean over the
    window's real pixels (padding excluded from the count)."""
    window, strides = (1, size, size), (1, 1, 1)
    total = lax.reduce_window(image, 0.0, lax.add, window, strides, "SAME")
    count = lax.reduce_window(fnp.ones_like(image), 0.0, lax.add, window, strides, "SAME")
    return total / count


rng = np.random.default_rng(0)
images = rng.normal(size=(4, 3, 8, 8)).astype(np.float32)   # batch, channels, height, width

batched = fe.jit(fe.vmap(lambda im: (max_pool(im), avg_pool(im))))
mx, avg = batched(images)
loop_mx = np.stack([np.asarray(max_pool(im)) for im in images])
loop_avg = np.stack([np.asarray(avg_pool(im)) for im in images])
print("max pool:", images.shape, "->", mx.shape, "matches the loop:",
      np.allclose(mx, loop_mx))
print("avg pool:", images.shape, "->", avg.shape, "matches the loop:",
      np.allclose(avg, loop_avg, atol=1e-6))

# numpy's answer for the max pool: reshape into 2x2 blocks
blocks = images.reshape(4, 3, 4, 2, 4, 2).max(axis=(3, 5))
assert np.allclose(mx, blocks) and np.allclose(avg, loop_avg, atol=1e-6)
text = batched.lower(images).as_text()
print("stablehlo.reduce_window ops in the batched program:", text.count("stablehlo.reduce_window"),
      "| loops:", text.count("stablehlo.while"))
