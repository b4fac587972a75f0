"""Native kernels and the persistent compilation cache.

1. First call of a 40-layer vmapped MLP (weights as arguments) in a fresh process, once the
   backend is up, with an empty (cold) and a filled (warm) compilation cache directory:
   ours and JAX's (target: warm <= 0.2x cold).
2. Each C++ kernel (frontend.kernels) vs the same computation written in frontend.numpy,
   both jitted and vmapped, in one process; JAX's jnp version for reference.

    python benchmarks/bench_native.py
"""
from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from common import fmt, paired, row_paired  # noqa: E402

import frontend as fe  # noqa: E402
import frontend.numpy as fnp  # noqa: E402
from frontend import lax  # noqa: E402
from frontend.kernels import rms_norm, segment_sum, tridiagonal_solve  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# the first call of jit(vmap(mlp)) in a new process; prints seconds and the cache counters
FIRST_CALL = r"""
import sys, time, json
import numpy as np
which = sys.argv[1]
rng = np.random.default_rng(0)
ws = [rng.normal(size=(256, 256)).astype(np.float32) / 16 for _ in range(40)]
xs = rng.normal(size=(64, 256)).astype(np.float32)
if which == "ours":
    import frontend as fe, frontend.numpy as np_
    from lowering.runtime import cache
    jit, vmap, devices = fe.jit, fe.vmap, fe.devices
else:
    import jax, jax.numpy as np_
    jax.config.update("jax_compilation_cache_dir", sys.argv[2])
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jit, vmap, devices, cache = jax.jit, jax.vmap, jax.devices, None
devices()  # the backend is up: what follows is tracing, lowering, compiling or loading, running

def mlp(ws, x):
    for w in ws:
        x = np_.tanh(w @ x + 0.1)
    return x

t0 = time.perf_counter()
np.asarray(jit(vmap(mlp, in_axes=(None, 0)))(ws, xs))
t = time.perf_counter() - t0
print(json.dumps({"seconds": t, "stats": cache.stats if cache else None}))
"""


def _first_call(script, which, directory):
    env = dict(os.environ, VMAPLAB_COMPILATION_CACHE_DIR=directory,
               VMAPLAB_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, script, which, directory], env=env, capture_output=True,
                       text=True, timeout=600, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def cache_rows(repeat: int = 3) -> list:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "first_call.py")
        with open(script, "w") as f:
            f.write(FIRST_CALL)
        for which in ("ours", "jax"):
            cold, warm = [], []
            for _ in range(repeat):
                d = os.path.join(tmp, f"cache-{which}")
                shutil.rmtree(d, ignore_errors=True)
                c = _first_call(script, which, d)
                w = _first_call(script, which, d)
                if which == "ours":
                    assert c["stats"]["misses"] == 1 and w["stats"]["hits"] == 1, (c, w)
                cold.append(c["seconds"])
                warm.append(w["seconds"])
            c, w = statistics.median(cold), statistics.median(warm)
            rows.append(f"{which + ': first call, 40-layer vmapped MLP':<44} cold {fmt(c)}  "
                        f"warm {fmt(w)}  warm/cold {w / c:6.3f} (target <= 0.2)")
    return rows


# ----------------------------------------------------------------------------- kernels


def rms_norm_fnp(x, eps=1e-6):
    return x / fnp.sqrt(fnp.mean(x * x, axis=-1, keepdims=True) + eps)


def rms_norm_jnp(x, eps=1e-6):
    return x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps)


def thomas(np_, scan):
    """A tridiagonal solve for one system written with scans (as JAX's portable version)."""
    def solve(dl, d, du, b):
        def fwd(carry, row):
            c_prev, y_prev = carry
            dl_i, d_i, du_i, b_i = row
            denom = d_i - dl_i * c_prev
            c = du_i / denom
            y = (b_i - dl_i * y_prev) / denom
            return (c, y), (c, y)

        zero = np_.zeros_like(b[0])
        _, (c, y) = scan(fwd, (np_.zeros_like(d[0]), zero), (dl, d, du, b))

        def back(x_next, row):
            c_i, y_i = row
            x = y_i - c_i * x_next
            return x, x

        _, x = scan(back, zero, (c, y), reverse=True)
        return x
    return solve


def segment_sum_fnp(data, ids, n):
    return fnp.zeros((n,) + data.shape[1:], data.dtype).at[ids].add(data)


def kernel_rows() -> list:
    rng = np.random.default_rng(0)
    rows = []

    def bench(name, ours_kernel, ours_fnp, theirs, args, repeat=9, number=5):
        k, f, j = fe.jit(ours_kernel), fe.jit(ours_fnp), jax.jit(theirs)
        want = np.asarray(j(*args))
        for g in (k, f):
            np.testing.assert_allclose(np.asarray(g(*args)), want, rtol=1e-3, atol=1e-3)
        r = paired(lambda: k(*args).block_until_ready(), lambda: f(*args).block_until_ready(),
                   repeat=repeat, number=number)
        rj = paired(lambda: k(*args).block_until_ready(),
                    lambda: j(*args).block_until_ready(), repeat=repeat, number=number)
        rows.append(row_paired(f"{name}: kernel vs frontend.numpy", r).replace(" jax ", " fnp "))
        rows.append(row_paired(f"{name}: kernel vs jax.numpy", rj))

    x = rng.normal(size=(64, 512, 512)).astype(np.float32)
    bench("rms_norm vmap 64 x (512, 512)", fe.vmap(rms_norm), fe.vmap(rms_norm_fnp),
          jax.vmap(rms_norm_jnp), (x,))

    m, batch = 1024, 256
    dl, du = rng.normal(size=(2, batch, m)).astype(np.float32)
    d = (4 + rng.random((batch, m))).astype(np.float32)
    b = rng.normal(size=(batch, m, 1)).astype(np.float32)
    bench("tridiagonal_solve vmap 256 x m=1024",
          fe.vmap(tridiagonal_solve), fe.vmap(thomas(fnp, lax.scan)),
          jax.vmap(lambda *a: jax.lax.linalg.tridiagonal_solve(*a)), (dl, d, du, b))

    data = rng.normal(size=(32, 20000, 16)).astype(np.float32)
    ids = rng.integers(0, 500, 20000).astype(np.int32)
    bench("segment_sum vmap 32 x (20000, 16) -> 500",
          fe.vmap(lambda a: segment_sum(a, ids, 500)),
          fe.vmap(lambda a: segment_sum_fnp(a, ids, 500)),
          jax.vmap(lambda a: jax.ops.segment_sum(a, ids, 500)), (data,))
    return rows


def main():
    rows = cache_rows() + kernel_rows()
    print("\n".join(rows))


if __name__ == "__main__":
    main()
