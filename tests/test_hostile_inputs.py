"""Hostile inputs that are not one-line catalogue rows (those are in test_bad_inputs.py):
numpy sources mutated after a copy, the x64 switch flipped between calls, shapes whose
element count overflows, dtypes XLA cannot hold. JAX is the oracle where it has the
behaviour."""
from __future__ import annotations

import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import frontend as fe
import frontend.numpy as fnp

TRIES = 20


# ----------------------------------------------------------------------------- copies
def _aligned(n: int) -> np.ndarray:
    """A float32 array whose data starts on a 64-byte boundary: what the CPU client takes
    without copying."""
    raw = np.empty(n * 4 + 64, np.uint8)
    off = (-raw.ctypes.data) % 64
    out = raw[off:off + n * 4].view(np.float32)
    assert out.ctypes.data % 64 == 0
    return out


def _times_changed(make) -> int:
    """In how many of TRIES fresh 64-byte-aligned sources writing to the source after
    ``make(source)`` changed the array made."""
    changed = 0
    for _ in range(TRIES):
        x = _aligned(4096)
        x[:] = 1
        y = make(x)
        x[:] = 2
        changed += int(np.asarray(y)[0] != 1)
    return changed


class _DLPackOnly:
    """A foreign array exposing only DLPack (as a torch tensor would)."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **kw):
        return self.a.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


class _ArrayOnly:
    """A foreign array whose ``__array__`` hands out its own memory (whatever ``copy`` says)."""

    def __init__(self, a):
        self.a = a

    def __array__(self, dtype=None, copy=None):
        return self.a


COPYING = [  # (name, ours, JAX's): calls whose result must never follow the source
    ("array", fnp.array, jnp.array),
    ("array-copy-true", lambda x: fnp.array(x, copy=True), lambda x: jnp.array(x, copy=True)),
    ("array-copy-false", lambda x: fnp.array(x, copy=False), lambda x: jnp.array(x, copy=False)),
    ("asarray", fnp.asarray, jnp.asarray),
    ("asarray-copy-false", lambda x: fnp.asarray(x, copy=False), lambda x: jnp.asarray(x, copy=False)),
    ("copy", fnp.copy, jnp.copy),
    ("array-of-aliasing-array", lambda x: fnp.array(fe.device_put(x)),
     lambda x: jnp.array(jax.device_put(x))),
    ("copy-of-aliasing-array", lambda x: fnp.copy(fe.device_put(x)),
     lambda x: jnp.copy(jax.device_put(x))),
    ("asarray-of-array-interface", lambda x: fnp.asarray(_ArrayOnly(x)),
     lambda x: jnp.asarray(_ArrayOnly(x))),
]


@pytest.mark.parametrize("name,ours,theirs", COPYING, ids=[c[0] for c in COPYING])
def test_copies_never_follow_their_numpy_source(name, ours, theirs):
    assert _times_changed(theirs) == 0, f"jnp's {name} follows its source: the oracle moved"
    assert _times_changed(ours) == 0, f"{name}: the array changed when its numpy source did"


# requests for a copy beyond jnp's functions (JAX's own CPU client ignores some of them:
# jax.device_put(may_alias=False) and jax.dlpack.from_dlpack(copy=True) share memory here)
EXPLICIT_COPIES = [
    ("device-put-may-alias-false", lambda x: fe.device_put(x, may_alias=False)),
    ("device-put-device-may-alias-false", lambda x: fe.device_put(x, fe.devices()[0], may_alias=False)),
    ("from-dlpack-copy-true", lambda x: fe.from_dlpack(x, copy=True)),
    ("from-dlpack-foreign-copy-true", lambda x: fe.from_dlpack(_DLPackOnly(x), copy=True)),
    ("asarray-of-dlpack-object", lambda x: fnp.asarray(_DLPackOnly(x))),
]


@pytest.mark.parametrize("name,ours", EXPLICIT_COPIES, ids=[c[0] for c in EXPLICIT_COPIES])
def test_explicit_copies_never_follow_their_source(name, ours):
    assert _times_changed(ours) == 0, f"{name}: the array changed when its source did"


def test_zero_copy_where_asked():
    """from_dlpack (copy=None) of an aligned host array shares its memory, as JAX's does;
    the values are right either way."""
    x = _aligned(4096)
    x[:] = 1
    y = fe.from_dlpack(x)
    x[:] = 2
    assert float(np.asarray(y)[0]) == float(np.asarray(jax.dlpack.from_dlpack(x))[0]) == 2


# ----------------------------------------------------------------------------- huge shapes
# Shapes whose size in bytes overflows int64: XLA aborts the whole process on them ("Bad
# StatusOr access: overflow in static extent product", JAX 0.10.2 too). Each must be a
# ValueError naming the shape, raised where the abstract value is built.
BIG = 2 ** 62
_V = np.zeros((4,), np.float32)
OVERFLOWS = [  # (name, thunk, the shape the message names, or under vmap the big dimension)
    ("zeros", lambda: fnp.zeros((BIG, 4)), (BIG, 4)),
    ("ones", lambda: fnp.ones((BIG, 4), np.int32), (BIG, 4)),
    ("full", lambda: fnp.full((BIG, 4), 1.0), (BIG, 4)),
    ("empty", lambda: fnp.empty((BIG, 4)), (BIG, 4)),
    ("empty-like", lambda: fnp.empty_like(_V, shape=(BIG, 4)), (BIG, 4)),
    ("zeros-bytes-only", lambda: fnp.zeros((2 ** 60, 4)), (2 ** 60, 4)),
    ("zeros-beyond-int64", lambda: fnp.zeros((2 ** 70,), np.uint8), (2 ** 70,)),
    ("zeros-empty-after-overflow", lambda: fnp.zeros((BIG, 4, 0)), (BIG, 4, 0)),
    ("zeros-like", lambda: fnp.zeros_like(_V, shape=(BIG, 4)), (BIG, 4)),
    ("broadcast-to", lambda: fnp.broadcast_to(_V, (BIG, 4)), (BIG, 4)),
    ("tile", lambda: fnp.tile(_V, (BIG,)), (BIG, 4)),
    ("reshape", lambda: fnp.reshape(_V[:0], (BIG, 4, 0)), (BIG, 4, 0)),
    ("jit", lambda: fe.jit(lambda: fnp.zeros((BIG, 4)))(), (BIG, 4)),
    ("jit-broadcast", lambda: fe.jit(lambda x: fnp.broadcast_to(x, (BIG, 4)))(_V), (BIG, 4)),
    ("vmap-batched-overflow",  # (2**61,) bytes per example fit; 4 of them do not
     lambda: fe.vmap(lambda x: fnp.broadcast_to(x, (2 ** 61,)))(np.zeros(4, np.uint8)), 2 ** 61),
    ("eval-shape", lambda: fe.eval_shape(lambda: fnp.zeros((BIG, 4))), (BIG, 4)),
]


def overflow_problems() -> list:
    """The OVERFLOWS rows that do not raise a ValueError naming their shape."""
    bad = []
    for name, thunk, shape in OVERFLOWS:
        try:
            thunk()
            bad.append(f"{name}: no error")
        except ValueError as e:
            if str(shape).strip("()") not in str(e):
                bad.append(f"{name}: message does not name {shape}: {e}")
        except Exception as e:  # noqa: BLE001
            bad.append(f"{name}: {type(e).__name__}: {e}")
    return bad


def test_huge_shapes_are_value_errors_not_aborts():
    here = os.path.dirname(__file__)
    code = (f"import sys; sys.path[:0] = [{here!r}, {os.path.dirname(here)!r}]\n"
            "import test_hostile_inputs as t\n"
            "print('PROBLEMS', t.overflow_problems())\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, f"the process died ({p.returncode}): {p.stderr[-1500:]}"
    assert "PROBLEMS []" in p.stdout, p.stdout[-3000:]


def test_negative_broadcast_shape_is_jax_type_error():
    from jax import lax as jlax

    from frontend import lax
    msg = "broadcast_in_dim shape must have every element be nonnegative, got (-1, 4)."
    with pytest.raises(TypeError) as theirs:
        jlax.broadcast_in_dim(_V, (-1, 4), (1,))
    with pytest.raises(TypeError) as ours:
        lax.broadcast_in_dim(_V, (-1, 4), (1,))
    assert str(ours.value) == str(theirs.value) == msg


# ----------------------------------------------------------------------------- dtypes
JAX_DOORS = {  # the doors of test_bad_inputs.UNSUPPORTED_DTYPE_DOORS, JAX's spelling
    "asarray": jnp.asarray, "array": jnp.array, "device-put": jax.device_put,
    "jit": jax.jit(lambda x: x), "vmap": jax.vmap(lambda x: x), "grad": jax.grad(lambda x: x),
    "sin": jnp.sin, "add": lambda x: jnp.add(x, 1),
    "astype": lambda x: jnp.ones(4, jnp.float32).astype(x.dtype),
    "zeros-dtype": lambda x: jnp.zeros(2, x.dtype),
}


def test_unsupported_dtypes_are_type_errors_in_jax_too():
    """The oracle of the catalogue's dtype rows: JAX raises TypeError at every door."""
    import test_bad_inputs as t
    assert set(JAX_DOORS) == {d for d, _ in t.UNSUPPORTED_DTYPE_DOORS}
    for _, v, _ in t.UNSUPPORTED_DTYPE_VALUES:
        for door in JAX_DOORS.values():
            with pytest.raises(TypeError):
                door(v)


def test_compilation_cache_dir_takes_a_path():
    """An os.PathLike is the directory it names (beyond JAX, which takes str only)."""
    import pathlib
    old = fe.config.compilation_cache_dir
    try:
        fe.config.update("compilation_cache_dir", pathlib.Path("/tmp/vmaplab-cache-as-path"))
        assert fe.config.compilation_cache_dir == "/tmp/vmaplab-cache-as-path"
        with pytest.raises(ValueError, match="bytes"):
            fe.config.update("compilation_cache_dir", b"/tmp/vmaplab-cache-as-bytes")
        assert fe.config.compilation_cache_dir == "/tmp/vmaplab-cache-as-path"
    finally:
        fe.config.update("compilation_cache_dir", old)


# ----------------------------------------------------------------------------- the x64 switch
# Arrays made under one setting of the 64-bit switch, used after flipping it: JAX narrows
# 64-bit arrays where promotion or a reduction picks the result dtype (not in unary ops or
# between two arrays of one dtype), and 32-bit arrays stay 32-bit. (Not here, as JAX's own
# quirks: jnp.argmax of such an array fails, jnp.sqrt of an int64 one and jnp.zeros_like
# keep 64 bits.)
def _after_flip(lib, x64_first: bool):
    """{op: result dtype} for arrays made with x64 = x64_first, computed after flipping."""
    fe_, np_ = lib
    key = "jax_enable_x64" if fe_ is jax else "enable_x64"
    old = fe_.config.jax_enable_x64 if fe_ is jax else fe_.config.enable_x64
    try:
        fe_.config.update(key, x64_first)
        big = "float64" if x64_first else "float32"
        a = np_.ones((2, 3), big)
        i = np_.ones((2, 3), "int64" if x64_first else "int32")
        u = np_.ones(3, "uint64" if x64_first else "uint32")
        c = np_.ones(3, "complex128" if x64_first else "complex64")
        fe_.config.update(key, not x64_first)
        ops = {
            "a+1.0": lambda: a + 1.0, "a*2": lambda: a * 2, "i+1": lambda: i + 1, "u+1": lambda: u + 1,
            "c*1j": lambda: c * 1j, "a+a": lambda: a + a, "sin": lambda: np_.sin(a),
            "a+f32": lambda: a + np_.ones(3, "float32"), "sum": lambda: a.sum(), "max": lambda: a.max(),
            "mean": lambda: a.mean(), "cumsum": lambda: np_.cumsum(a), "isum": lambda: i.sum(),
            "jit-a*2": lambda: fe_.jit(lambda x: x * 2)(a), "jit-a+a": lambda: fe_.jit(lambda x: x + x)(a),
            "vmap-a*2": lambda: fe_.vmap(lambda x: x * 2)(a),
            "grad": lambda: fe_.grad(lambda x: (x * x).sum())(a),
        }
        return {k: str(f().dtype) for k, f in ops.items()}
    finally:
        fe_.config.update(key, old)


@pytest.mark.parametrize("x64_first", [True, False], ids=["x64-then-x32", "x32-then-x64"])
def test_x64_switch_flipped_after_making_arrays(x64_first):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (JAX warns where it narrows a requested dtype)
        theirs = _after_flip((jax, jnp), x64_first)
    ours = _after_flip((fe, fnp), x64_first)
    assert ours == theirs


def test_empty_is_zeros_as_in_jax():
    for ours, theirs in [(fnp.empty((2, 3)), jnp.empty((2, 3))),
                         (fnp.empty(3, np.int32), jnp.empty(3, np.int32)),
                         (fnp.empty_like(_V), jnp.empty_like(_V)),
                         (fnp.empty_like(_V, np.int8, (2,)), jnp.empty_like(_V, np.int8, (2,)))]:
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        assert ours.weak_type == theirs.weak_type
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
