"""Cold start: vmaplab runs on jaxlib alone. In a fresh process, ``import frontend`` and the
common things a program does (a jit call, an eager op, vmap, grad, export and its artifact
read back, a sharded jit over several CPU devices, random numbers, host transfers) never import
``jax``; the heavy submodules load on first use."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).parents[1]

PROGRAM = r"""
import json, sys
import numpy as np
import frontend as fe
lazy = {m: m in sys.modules for m in ("frontend.random", "frontend.nn", "frontend.scipy",
                                       "frontend.export", "frontend.ffi", "frontend.distributed",
                                       "frontend.lax", "frontend.primitives", "lowering")}
out = {"after_import": "jax" in sys.modules, "lazy": lazy}
import frontend.numpy as fnp
out["lazy_np"] = {m: m in sys.modules for m in ("frontend.numpy.linalg", "frontend.numpy.fft")}
f = fe.jit(lambda x, y: fnp.tanh(x @ y) + 1.0)
x = np.arange(6, dtype=np.float32).reshape(2, 3)
y = np.ones((3, 4), np.float32)
out["jit"] = [np.asarray(f(x, y)).tolist(), np.asarray(f(x, y)).tolist()]
out["eager"] = np.asarray(fnp.sin(fnp.arange(4.0)) * 2).tolist()
out["vmap"] = np.asarray(fe.vmap(lambda r: r.sum())(x)).tolist()
out["grad"] = np.asarray(fe.grad(lambda v: (v ** 2).sum())(np.ones(3, np.float32))).tolist()
exp = fe.export.export(fe.jit(lambda v: v * 2))(x)
back = fe.export.deserialize(exp.serialize())
out["export"] = np.asarray(back.call(x)).tolist()
out["random"] = np.asarray(fe.random.normal(fe.random.PRNGKey(0), (3,))).tolist()
out["linalg"] = float(fnp.linalg.det(np.eye(2, dtype=np.float32) * 2))
out["host"] = [np.asarray(fnp.arange(4, dtype=d) * 2).astype(np.float32).tolist()
               for d in (fnp.bfloat16, fnp.float16, fnp.int8, fnp.uint32)]
out["host"].append(np.asarray(fnp.arange(3) < 2).tolist())
mesh = fe.make_mesh((4,), ("x",))
s = fe.sharding.NamedSharding(mesh, fe.sharding.PartitionSpec("x"))
a = fe.device_put(np.arange(8.0, dtype=np.float32), s)
g = fe.jit(lambda v: (v * 3).sum())
out["sharded"] = [float(g(a)), float(g(a)), len(a.addressable_shards),
                  np.asarray(fe.jit(lambda v: v + 1)(a)).tolist()]
out["jax"] = "jax" in sys.modules
print(json.dumps(out))
"""


def _run(code: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               XLA_FLAGS="--xla_force_host_platform_device_count=4")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=300, cwd=str(ROOT))
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_common_program_never_imports_jax():
    out = _run(PROGRAM)
    assert out["after_import"] is False
    assert not any(out["lazy"].values()), out["lazy"]  # loaded on first use
    assert out["jax"] is False
    want = (np.tanh(np.arange(6, dtype=np.float32).reshape(2, 3) @ np.ones((3, 4))) + 1)
    assert out["jit"][0] == out["jit"][1]
    np.testing.assert_allclose(out["jit"][0], want, rtol=1e-6)
    np.testing.assert_allclose(out["eager"], np.sin(np.arange(4.0)) * 2, rtol=1e-6)
    assert out["vmap"] == [3.0, 12.0] and out["grad"] == [2.0, 2.0, 2.0]
    assert out["export"] == (np.arange(6.0).reshape(2, 3) * 2).tolist()
    np.testing.assert_allclose(out["random"], [1.6226422, 2.0252647, -0.43359444], rtol=1e-6)
    assert abs(out["linalg"] - 4.0) < 1e-5
    assert out["host"] == [[0.0, 2.0, 4.0, 6.0]] * 4 + [[True, True, False]]
    assert out["sharded"][:3] == [84.0, 84.0, 4]
    assert out["sharded"][3] == (np.arange(8.0) + 1).tolist()


CACHED = r"""
import json, logging, sys
logging.basicConfig(level=logging.WARNING)
logging.getLogger("lowering.runtime.cache").setLevel(logging.DEBUG)
import numpy as np
import frontend as fe
out = fe.jit(lambda x: x * 2 + 1)(np.arange(3, dtype=np.float32))
print(json.dumps({"stats": fe.compilation_cache.stats(), "out": np.asarray(out).tolist(),
                  "jax": "jax" in sys.modules}))
"""


def test_persistent_cache_hits_are_counted_in_a_fresh_process(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               VMAPLAB_COMPILATION_CACHE_DIR=str(tmp_path / "cache"),
               VMAPLAB_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0")
    runs = []
    for _ in range(2):
        r = subprocess.run([sys.executable, "-c", CACHED], env=env, capture_output=True,
                           text=True, timeout=300, cwd=str(ROOT))
        assert r.returncode == 0, r.stderr[-3000:]
        runs.append((json.loads(r.stdout.strip().splitlines()[-1]), r.stderr))
    (cold, cold_log), (warm, warm_log) = runs
    assert cold["stats"] == {"hits": 0, "misses": 1, "writes": 1, "errors": 0}
    assert warm["stats"] == {"hits": 1, "misses": 0, "writes": 0, "errors": 0}
    assert cold["out"] == warm["out"] == [1.0, 3.0, 5.0]
    assert "compilation cache miss" in cold_log and "compilation cache hit" in warm_log
    assert not cold["jax"] and not warm["jax"]


def test_compilation_cache_stats_reset():
    import frontend as fe
    fe.compilation_cache.reset_stats()
    assert fe.compilation_cache.stats() == {"hits": 0, "misses": 0, "writes": 0, "errors": 0}


LATE_JAX = r"""
import json
import numpy as np
import frontend as fe, frontend.numpy as fnp
a = fe.jit(lambda x: x + 1)(np.arange(3.0, dtype=np.float32))   # vmaplab's own client
s = fe.sharding.NamedSharding(fe.make_mesh((4,), ("x",)), fe.sharding.PartitionSpec("x"))
b = fe.device_put(np.arange(8.0, dtype=np.float32), s)
before = [np.asarray(sh.data).tolist() for sh in b.addressable_shards]  # (pieces: jaxlib C++)
import jax, jax.numpy as jnp                                     # then the program's JAX
j = jnp.arange(3.0)
print(json.dumps([np.asarray(fe.jit(lambda x, y: x * y)(a, j)).tolist(),
                  np.asarray(fnp.sin(j) * 0 + a).tolist(),
                  np.asarray(jax.jit(lambda x: x * 2)(jnp.asarray(a))).tolist(),
                  before == [np.asarray(sh.data).tolist() for sh in b.addressable_shards],
                  float(jnp.sum(jnp.arange(4.0)))]))
"""


def test_jax_imported_after_vmaplab_started_interoperates():
    assert _run(LATE_JAX) == [[0.0, 2.0, 6.0], [1.0, 2.0, 3.0], [2.0, 4.0, 6.0], True, 6.0]


X64 = r"""
import json, sys
import numpy as np
import frontend as fe
from frontend.transforms import jit as api
misses = []
orig = api.Jitted._cache_miss
api.Jitted._cache_miss = lambda self, *a, **k: misses.append(1) or orig(self, *a, **k)
fe.config.update("enable_x64", True)
f = fe.jit(lambda v: v * 2)
x = np.arange(3.0)
out = [str(f(x).dtype) for _ in range(3)] + [len(misses)]
fe.config.update("enable_x64", False)
out += [str(f(x).dtype) for _ in range(3)] + [len(misses), "jax" in sys.modules]
print(json.dumps(out))
"""


def test_cpp_path_serves_x64_programs_without_jax():
    # vmaplab's own C++ 64-bit flag follows fe.config: one cache miss per setting
    assert _run(X64) == ["float64"] * 3 + [1] + ["float32"] * 3 + [2, False]


FIRST_ACCESS = r"""
import os, sys
import numpy, jaxlib._jax  # (loaded once; each child starts with no frontend module)
import frontend
names = sorted(frontend._LAZY)
failed = []
for name in names:
    pid = os.fork()
    if pid == 0:
        for m in [m for m in sys.modules if m == "frontend" or m.startswith(("frontend.", "lowering"))]:
            del sys.modules[m]
        try:
            import frontend as fe
            getattr(fe, name)
        except BaseException as e:
            sys.stderr.write(f"fe.{name}: {type(e).__name__}: {e}\n")
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if status:
        failed.append(name)
print(len(names), failed)
"""


def test_every_lazy_name_loads_as_the_first_thing_a_program_touches():
    """``import frontend as fe; fe.<name>`` for each lazily loaded name, as the first access
    in a fresh process: import order differs per entry point, and a cycle between the layers
    shows only for some (``fe.grad`` first once failed while ``fe.jit`` first worked)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-c", FIRST_ACCESS], capture_output=True, text=True,
                       env=env, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    n, failed = r.stdout.strip().split(" ", 1)
    assert int(n) > 30 and failed == "[]", r.stderr[-3000:]
