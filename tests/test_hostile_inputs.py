"""Hostile inputs that are not one-line catalogue rows (those are in test_bad_inputs.py):
numpy sources mutated after a copy, the x64 switch flipped between calls, shapes whose
element count overflows, dtypes XLA cannot hold. JAX is the oracle where it has the
behaviour."""
from __future__ import annotations

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
