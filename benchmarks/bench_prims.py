"""Issue 14's primitive families vs JAX, one process: compiled runtime of jit(vmap(f)) vs
jax.jit(jax.vmap(f)) for

1. a 2-D convolution net layer (conv 3x3 SAME + bias + relu, then 2x2 max pooling) vmapped
   over a batch of images, the weights shared (the vmap axis folds into the conv's batch);
2. the same layer with per-example weights (the vmap axis folds into feature groups);
3. a batched linear solve, vmap(numpy.linalg.solve) (one batched LU and two batched
   triangular-solve kernel calls);
4. a batched sort along rows and a batched rfft.

Both StableHLO modules are compiled by the same XLA client and run on the same device
buffers through the same call, so the ratio measures only the StableHLO (target <= 1.05,
interleaved runs, medians). The end-to-end call (our dispatch) is shown too.

    python benchmarks/bench_prims.py
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from common import paired, row_paired, same_call_time  # noqa: E402
from jax import lax as jlax  # noqa: E402

import frontend as fe  # noqa: E402
import frontend.numpy as fnp  # noqa: E402
from frontend import lax  # noqa: E402

rng = np.random.default_rng(0)


def conv_layer(M):
    """One image (C, H, W) through conv 3x3 + bias + relu + 2x2 max pool."""
    L = lax if M is fnp else jlax

    def layer(x, w, b):
        y = L.conv_general_dilated(x[None], w, (1, 1), "SAME")[0] + b[:, None, None]
        y = M.maximum(y, 0.0)
        return L.reduce_window(y, -np.inf, L.max, (1, 2, 2), (1, 2, 2), "VALID")
    return layer


def solve(M):
    return M.linalg.solve


def sort_rows(M):
    return lambda x: M.sort(x, axis=-1)


def rfft(M):
    return lambda x: M.abs(M.fft.rfft(x))


def compiled_runtime(name, make, args, in_axes, number):
    ours = fe.jit(fe.vmap(make(fnp), in_axes=in_axes))
    theirs = jax.jit(jax.vmap(make(jnp), in_axes=in_axes))
    np.testing.assert_allclose(np.asarray(ours(*args)), np.asarray(theirs(*args)), rtol=2e-3, atol=2e-3)
    t_ours, t_jax = ours.lower(*args).as_text(), theirs.lower(*args).as_text()
    assert "stablehlo.while" not in t_ours
    lines = [row_paired(f"{name}: same-call XLA runtime",
                        same_call_time(t_ours, t_jax, args, number, rtol=2e-3, atol=2e-3), "(target <= 1.05)")]
    dev_o = [fe.device_put(a) for a in args]
    dev_j = [jax.device_put(a) for a in args]
    r = paired(lambda: ours(*dev_o).block_until_ready(), lambda: theirs(*dev_j).block_until_ready(),
               repeat=15, number=number)
    lines.append(row_paired(f"{name}: end-to-end jit(vmap) call", r))
    return lines


def main():
    f32 = lambda *s: rng.normal(size=s).astype(np.float32)  # noqa: E731
    B, C, K, H = 32, 16, 32, 32
    x, w, b = f32(B, C, H, H), f32(K, C, 3, 3) / 12, f32(K)
    spd = f32(256, 32, 32)
    spd = spd @ spd.transpose(0, 2, 1) + 32 * np.eye(32, dtype=np.float32)
    out = []
    out += compiled_runtime(f"conv layer, shared weights, B={B}", conv_layer, [x, w, b],
                            (0, None, None), 20)
    out += compiled_runtime(f"conv layer, per-example weights, B={B}", conv_layer,
                            [x, np.stack([w] * B), np.stack([b] * B)], (0, 0, 0), 10)
    out += compiled_runtime("batched solve 256 x (32x32)", solve, [spd, f32(256, 32)], (0, 0), 50)
    out += compiled_runtime("batched sort 64 x (64, 128)", sort_rows, [f32(64, 64, 128)], (0,), 5)
    out += compiled_runtime("batched rfft 256 x (64, 256)", rfft, [f32(256, 64, 256)], (0,), 20)
    print("\n".join(out))


if __name__ == "__main__":
    main()
