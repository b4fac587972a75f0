"""The persistent compilation cache (lowering/runtime/cache.py). Across processes: fresh
Python processes share a cache directory and report how many executables they loaded and
compiled (counted, not timed); entries with custom calls reload once their targets are
registered; corrupt entries are survived; two processes writing one entry leave it whole.
In process: fe.config switches it on, LRU eviction, settings from the environment."""
import hashlib
import json
import os
import stat
import subprocess
import sys
import time

import numpy as np
import pytest

import frontend as fe
import frontend.numpy as fnp
from frontend.core import config
from lowering.runtime import cache

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A vmapped MLP whose result goes through vmaplab's rms_norm kernel and a user's FFI target
# (the kernel's handler registered under another name, as a user's own library would be).
WORKER = r"""
import ctypes, json, sys, warnings
import numpy as np
import frontend as fe, frontend.numpy as fnp
from frontend import ffi
from frontend.kernels import rms_norm
from lowering.runtime import cache, native

if sys.argv[1] != "unregistered":
    lib = ctypes.CDLL(native.library_path())
    ffi.register_ffi_target("cache_test_rms", ffi.pycapsule(lib.VmaplabRmsNorm))
rng = np.random.default_rng(0)
ws = [rng.normal(size=(16, 16)).astype(np.float32) / 4 for _ in range(4)]
xs = rng.normal(size=(8, 16)).astype(np.float32)

def model(x):
    for w in ws:
        x = fnp.tanh(w @ x)
    y = rms_norm(x)
    return ffi.ffi_call("cache_test_rms", fe.ShapedArray(y.shape, y.dtype),
                        vmap_method="expand_dims")(y, eps=1e-3)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        out = float(np.asarray(fe.jit(fe.vmap(model))(xs)).sum())
        error = None
    except ValueError as e:
        out, error = None, str(e)
print(json.dumps({"stats": cache.stats, "sum": out, "error": error,
                  "warnings": [str(w.message) for w in caught
                               if issubclass(w.category, cache.CacheWarning)]}))
"""


def _env(directory):
    env = dict(os.environ, VMAPLAB_COMPILATION_CACHE_DIR=str(directory),
               VMAPLAB_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("VMAPLAB_COMPILATION_CACHE_MAX_SIZE", None)
    return env


def _start(script, directory, mode="registered"):
    return subprocess.Popen([sys.executable, str(script), mode], env=_env(directory), cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _result(proc):
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


def _run(script, directory, mode="registered"):
    return _result(_start(script, directory, mode))


def _entries(directory):
    return sorted(p for p in os.listdir(directory) if not p.startswith(".tmp-"))


def _valid(directory, name):
    return cache._read(os.path.join(directory, name), name) is not None


def test_processes_share_the_cache(tmp_path):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    d = tmp_path / "cache"

    cold = _run(script, d)
    assert cold["error"] is None and cold["warnings"] == []
    assert cold["stats"]["misses"] == 1 and cold["stats"]["writes"] == 1 and cold["stats"]["hits"] == 0
    (entry,) = _entries(d)

    warm = _run(script, d)  # loads the executable, custom calls included, compiles nothing
    assert warm["stats"] == {"hits": 1, "misses": 0, "writes": 0, "errors": 0}
    assert warm["sum"] == cold["sum"]

    # the entry calls a user's target: without its registration, a clear error, no crash
    unreg = _run(script, d, "unregistered")
    assert "custom call target 'cache_test_rms' is not registered" in unreg["error"]
    assert unreg["stats"]["hits"] == 0

    # a damaged entry: recompiled with a warning, and replaced by a whole one
    path = d / entry
    data = bytearray(path.read_bytes())
    data[-10] ^= 0xFF
    path.write_bytes(bytes(data))
    fixed = _run(script, d)
    assert fixed["sum"] == cold["sum"] and fixed["stats"]["misses"] == 1
    assert len(fixed["warnings"]) == 1 and "is corrupt" in fixed["warnings"][0]
    assert _valid(d, entry)


def test_two_processes_writing_one_entry(tmp_path):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    d = tmp_path / "cache"
    procs = [_start(script, d) for _ in range(2)]
    results = [_result(p) for p in procs]
    assert results[0]["sum"] == results[1]["sum"]
    assert all(r["warnings"] == [] for r in results)
    assert sum(r["stats"]["writes"] + r["stats"]["hits"] for r in results) == 2
    (entry,) = _entries(d)
    assert _valid(d, entry) and os.listdir(d) == [entry]  # whole, and no temporary left


@pytest.fixture
def cache_config(tmp_path):
    cfg = config.config
    saved = (cfg.compilation_cache_dir, cfg.compilation_cache_max_size,
             cfg.persistent_cache_min_compile_time_secs)
    fe.config.update("compilation_cache_dir", str(tmp_path / "cache"))
    fe.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    try:
        yield tmp_path / "cache"
    finally:
        for k, v in zip(("compilation_cache_dir", "compilation_cache_max_size",
                         "persistent_cache_min_compile_time_secs"), saved, strict=True):
            fe.config.update(k, v)


def test_config_switches_the_cache_on(cache_config):
    before = dict(cache.stats)

    def f(x):
        return fnp.sin(x) * 3.0 + 1.25

    x = np.arange(4.0, dtype=np.float32)
    a = fe.jit(f)(x)
    assert cache.stats["writes"] == before["writes"] + 1
    b = fe.jit(f)(x)  # a new jit: same module, loaded from the directory
    assert cache.stats["hits"] == before["hits"] + 1
    np.testing.assert_array_equal(a, b)
    # a truncated entry is a miss with a warning
    (entry,) = _entries(cache_config)
    path = cache_config / entry
    path.write_bytes(path.read_bytes()[:50])
    with pytest.warns(cache.CacheWarning, match="is corrupt"):
        np.testing.assert_array_equal(fe.jit(f)(x), a)
    assert _valid(cache_config, entry)


def _entry(directory, i):
    """An entry as the cache writes it, under a key made from ``i``."""
    k = hashlib.sha256(str(i).encode()).hexdigest()
    assert cache._write(str(directory), str(directory / k), k, b"x" * 100)
    return k


def test_lru_eviction(tmp_path):
    now = time.time()
    a, b, c, d = (_entry(tmp_path, i) for i in range(4))
    for i, name in enumerate([a, b, c, d]):
        os.utime(tmp_path / name, (now - 100 + i, now - 100 + i))  # a oldest, d newest
    os.utime(tmp_path / a, (now, now))                           # a used last
    (tmp_path / ".tmp-old12345").write_bytes(b"x")
    os.utime(tmp_path / ".tmp-old12345", (now - 7200, now - 7200))  # a crashed writer's
    (tmp_path / ".tmp-new12345").write_bytes(b"x")                  # a writer at work
    size = (tmp_path / a).stat().st_size
    cache.evict(str(tmp_path), 2 * size + size // 2)
    assert sorted(os.listdir(tmp_path)) == sorted([".tmp-new12345", a, d])
    cache.evict(str(tmp_path), -1)  # no limit
    assert sorted(os.listdir(tmp_path)) == sorted([".tmp-new12345", a, d])


def test_eviction_only_touches_what_the_cache_wrote(tmp_path):
    """A user's files, files named as entries without the header, FIFOs and links are
    neither counted nor removed nor opened (a FIFO used to hang the process)."""
    old = time.time() - 7200
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / ".tmp-keep").write_text("not mkstemp's")
    fake = "f" * 64
    (tmp_path / fake).write_bytes(b"not an entry")
    fifo = "e" * 64
    os.mkfifo(tmp_path / fifo)
    os.symlink(tmp_path / "notes.txt", tmp_path / ("d" * 64))
    for p in tmp_path.iterdir():
        os.utime(p, (old, old), follow_symlinks=False)
    mine = _entry(tmp_path, 0)
    cache.evict(str(tmp_path), -1)
    cache.evict(str(tmp_path), 0)
    assert sorted(os.listdir(tmp_path)) == sorted([".tmp-keep", "notes.txt", fake, fifo, "d" * 64])
    assert mine not in os.listdir(tmp_path)
    # reading a FIFO named as the entry does not block
    with pytest.warns(cache.CacheWarning, match="is not a regular file"):
        assert cache._read(str(tmp_path / fifo), fifo) is None


def test_entries_are_private_and_unsafe_directories_refused(cache_config, monkeypatch):
    f = fe.jit(lambda x: fnp.cos(x) + 2.5)
    x = np.arange(3.0, dtype=np.float32)
    f(x)
    (entry,) = _entries(cache_config)
    assert stat.S_IMODE(os.stat(cache_config / entry).st_mode) == 0o600
    writes = cache.stats["writes"]
    os.chmod(cache_config, 0o777)
    try:
        with pytest.warns(cache.CacheWarning, match="is writable by others"):
            np.testing.assert_allclose(fe.jit(lambda x: fnp.cos(x) + 3.5)(x), np.cos(x) + 3.5)
    finally:
        os.chmod(cache_config, 0o700)
    uid = os.getuid()
    monkeypatch.setattr(cache.os, "getuid", lambda: uid + 1)
    with pytest.warns(cache.CacheWarning, match="is owned by another user"):
        fe.jit(lambda x: fnp.cos(x) + 4.5)(x)
    monkeypatch.undo()
    assert cache.stats["writes"] == writes and _entries(cache_config) == [entry]


def test_settings_from_the_environment(monkeypatch):
    monkeypatch.setenv("VMAPLAB_COMPILATION_CACHE_DIR", "/some/dir")
    monkeypatch.setenv("VMAPLAB_COMPILATION_CACHE_MAX_SIZE", "1000")
    cfg = config._Config()
    assert (cfg.compilation_cache_dir, cfg.compilation_cache_max_size,
            cfg.persistent_cache_min_compile_time_secs) == ("/some/dir", 1000, 1.0)
    monkeypatch.setenv("VMAPLAB_COMPILATION_CACHE_MAX_SIZE", "lots")
    with pytest.raises(ValueError, match="VMAPLAB_COMPILATION_CACHE_MAX_SIZE='lots' is not a valid"):
        config._Config()
    with pytest.raises(ValueError, match="unknown config option 'compilation_cache'"):
        fe.config.update("compilation_cache", "x")
