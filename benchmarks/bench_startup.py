"""Cold start: what a fresh process (``python script.py``) pays before its first result.

1. Whole process, import + the first ``jit(vmap(mlp))`` call of a 40-layer MLP (weights closed
   over), vmaplab vs JAX, in interleaved pairs of fresh processes (target <= 0.5x, bar 0.6).
2. ``import frontend`` alone, and ``import jax`` for reference (fresh processes).
3. The first call in a fresh process (after the import) with a warm persistent compilation
   cache over the same with a cold (empty) one (target <= 0.2), ours and JAX's.
4. ``vmaplab dump examples/quickstart.py`` vs a script printing the same program's
   ``jax.jit(...).lower(...).as_text()``.

    python benchmarks/bench_startup.py            # all rows, 7 pairs each
    python benchmarks/bench_startup.py 11         # 11 pairs each
"""
from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# import + first call; prints the seconds of each and whether jax was imported
PROGRAM = r"""
import sys, time, json
t0 = time.perf_counter()
import numpy as np
which = sys.argv[1]
if which == "ours":
    import frontend as fe, frontend.numpy as np_
    jit, vmap = fe.jit, fe.vmap
else:
    import jax, jax.numpy as np_
    if len(sys.argv) > 2:
        jax.config.update("jax_compilation_cache_dir", sys.argv[2])
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jit, vmap = jax.jit, jax.vmap
t1 = time.perf_counter()
rng = np.random.default_rng(0)
ws = [rng.normal(size=(256, 256)).astype(np.float32) / 16 for _ in range(40)]
xs = rng.normal(size=(64, 256)).astype(np.float32)

def mlp(x):
    for w in ws:
        x = np_.tanh(w @ x + 0.1)
    return x

t2 = time.perf_counter()
out = np.asarray(jit(vmap(mlp))(xs))
t3 = time.perf_counter()
if which == "ours":
    cc = getattr(fe, "compilation_cache", None)  # public since the cold-start work
    stats = cc.stats() if cc else dict(__import__("lowering.runtime.cache").runtime.cache.stats)
else:
    stats = None
print(json.dumps({"import": t1 - t0, "first_call": t3 - t2, "jax": "jax" in sys.modules,
                  "stats": stats, "sum": float(out.sum())}))
"""

JAX_DUMP = r"""
# examples/quickstart.py written with JAX, then its jit(vmap(model)).lower(...).as_text(): what
# `vmaplab dump examples/quickstart.py:model --arg f32[8,3] --vmap 0` runs and prints
import numpy as np
import jax, jax.numpy as jnp
rng = np.random.default_rng(0)
W = rng.normal(size=(4, 3)).astype(np.float32)
b = np.float32(0.5)
def model(x):
    return jnp.tanh(W @ x + b).sum()
x = rng.normal(size=3).astype(np.float32)
xs = rng.normal(size=(8, 3)).astype(np.float32)
print(jax.make_jaxpr(model)(x))
batched = jax.vmap(model)
print(jax.make_jaxpr(batched)(xs))
print(jax.jit(batched).lower(xs).as_text())
out = jax.jit(batched)(xs)
print(out)
print(jax.jit(batched).lower(xs).as_text())
"""


def _env(cache_dir=None) -> dict:
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("VMAPLAB_COMPILATION_CACHE_DIR", None)
    # bytecode cached as for an installed package (JAX's is, in site-packages): the warm-up
    # runs write it
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if cache_dir is not None:
        env["VMAPLAB_COMPILATION_CACHE_DIR"] = cache_dir
        env["VMAPLAB_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"
    return env


def _run(argv, env) -> tuple[float, str]:
    """Wall time of a whole fresh process and its stdout."""
    t0 = time.perf_counter()
    r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600, cwd=ROOT)
    t = time.perf_counter() - t0
    if r.returncode:
        raise RuntimeError(f"{argv} failed:\n{r.stderr[-2000:]}")
    return t, r.stdout


def _program(script, which, cache_dir=None):
    argv = [sys.executable, script, which] + ([cache_dir] if cache_dir and which == "jax" else [])
    t, out = _run(argv, _env(cache_dir))
    return t, json.loads(out.strip().splitlines()[-1])


def _ratio_row(name, ours, theirs, target):
    o, t = statistics.median(ours), statistics.median(theirs)
    r = statistics.median(a / b for a, b in zip(ours, theirs, strict=True))
    return f"{name:<48} ours {o:7.3f} s  jax {t:7.3f} s  ratio {r:6.3f} {target}"


def main(pairs: int = 7) -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "program.py")
        with open(script, "w") as f:
            f.write(PROGRAM)
        _program(script, "ours"), _program(script, "jax")  # file system caches warm
        whole_o, whole_j, imp_o, first_o, first_j, jax_seen = [], [], [], [], [], []
        for _ in range(pairs):
            t, d = _program(script, "ours")
            whole_o.append(t), imp_o.append(d["import"]), first_o.append(d["first_call"])
            jax_seen.append(d["jax"])
            t, d = _program(script, "jax")
            whole_j.append(t), first_j.append(d["first_call"])
        rows.append(_ratio_row("whole process: import + first jit(vmap(mlp40))", whole_o,
                               whole_j, "(target <= 0.5, bar 0.6)"))
        rows.append(_ratio_row("first call (after import), no cache", first_o, first_j, ""))
        rows.append(f"{'import frontend (inside the program)':<48} {statistics.median(imp_o):7.3f} s"
                    f"   jax imported by ours: {any(jax_seen)}")

        imp_f, imp_j = [], []
        for _ in range(pairs):
            imp_f.append(_run([sys.executable, "-c", "import frontend"], _env())[0])
            imp_j.append(_run([sys.executable, "-c", "import jax"], _env())[0])
        base = statistics.median(_run([sys.executable, "-c", "pass"], _env())[0]
                                 for _ in range(pairs))
        base_np = statistics.median(_run([sys.executable, "-c", "import numpy"], _env())[0]
                                    for _ in range(pairs))
        rows.append(f"{'import frontend / import jax (whole process)':<48} "
                    f"{statistics.median(imp_f):7.3f} s / {statistics.median(imp_j):7.3f} s "
                    f"(python alone {base:.3f} s, import numpy {base_np:.3f} s)")

        for which in ("ours", "jax"):
            cold, warm = [], []
            for _ in range(max(3, pairs // 2)):
                d = os.path.join(tmp, f"cache-{which}")
                shutil.rmtree(d, ignore_errors=True)
                c = _program(script, which, d)[1]
                w = _program(script, which, d)[1]
                if which == "ours":
                    assert c["stats"]["misses"] == 1 and w["stats"]["hits"] == 1, (c, w)
                cold.append(c["first_call"]), warm.append(w["first_call"])
            c, w = statistics.median(cold), statistics.median(warm)
            rows.append(f"{which + ': first call, cold cache / warm cache':<48} {c:7.3f} s / "
                        f"{w:7.3f} s  warm/cold {w / c:6.3f} (target <= 0.2)")

        jscript = os.path.join(tmp, "jax_dump.py")
        with open(jscript, "w") as f:
            f.write(JAX_DUMP)
        dump_o, dump_j = [], []
        cli = [sys.executable, "-m", "lowering.cli", "dump", "examples/quickstart.py:model",
               "--arg", "f32[8,3]", "--vmap", "0"]
        _run(cli, _env()), _run([sys.executable, jscript], _env())  # warm-up
        for _ in range(pairs):
            dump_o.append(_run(cli, _env())[0])
            dump_j.append(_run([sys.executable, jscript], _env())[0])
        rows.append(_ratio_row("vmaplab dump quickstart vs jax lower().as_text()", dump_o,
                               dump_j, "(target < 1)"))
    print("\n".join(rows))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
