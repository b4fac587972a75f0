"""Interop with JAX, numpy and DLPack: jax.Arrays and foreign arrays as inputs of jit, vmap
and eager functions (a jax.Array's buffer used as it is), and our Arrays out to JAX/numpy
through __jax_array__ and DLPack, sharing memory where it can be shared."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import frontend as fe
import frontend.numpy as fnp


def _ptr(a):
    """The device address of an Array or jax.Array, or a numpy array's data pointer."""
    if isinstance(a, np.ndarray):
        return a.ctypes.data
    return (a._buf if isinstance(a, fe.Array) else a).unsafe_buffer_pointer()


class HostOnly:
    """Anything with __array__ (copied in)."""

    def __array__(self, dtype=None, copy=None):
        return np.arange(3, dtype=np.float32)


def test_jax_arrays_in_jit_vmap_and_eager():
    j = jnp.arange(6.0, dtype=jnp.float32).reshape(2, 3)
    f = fe.jit(lambda x, y: x * 2 + y)
    for _ in range(2):  # the Python path, then the C++ path
        out = f(j, fnp.ones(3))
        assert isinstance(out, fe.Array)
        np.testing.assert_array_equal(np.asarray(out), np.asarray(j) * 2 + 1)
    weak = fe.jit(lambda x: x + 1)(jnp.asarray(2.0))
    assert weak.weak_type and weak.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(fe.vmap(lambda r: r.sum())(j)), [3.0, 12.0])
    np.testing.assert_array_equal(np.asarray(fe.vmap(fnp.dot, in_axes=(0, None))(j, jnp.ones(3))),
                                  [3.0, 12.0])
    compiled = fe.jit(lambda x: x - 1).lower(j).compile()
    np.testing.assert_array_equal(np.asarray(compiled(j)), np.asarray(j) - 1)
    for got, want in ((fnp.sin(j), jnp.sin(j)), (fnp.ones(3) + j, 1 + j), (fnp.sum(j, 0), j.sum(0)),
                      (fnp.diff(j), jnp.diff(j)), (fe.jit(lambda x: x)(HostOnly()), np.arange(3.0)),
                      (fnp.sqrt(HostOnly()), np.sqrt(np.arange(3.0)))):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_zero_copy_round_trips():
    j = jnp.arange(12.0, dtype=jnp.float32)
    a = fe.device_put(j)
    assert _ptr(a) == _ptr(j)                    # jax -> ours: the same buffer
    assert _ptr(fnp.asarray(j)) == _ptr(j)
    x = fnp.arange(16.0)
    assert _ptr(jnp.asarray(x)) == _ptr(x)       # ours -> jax (__jax_array__)
    assert _ptr(jax.dlpack.from_dlpack(x)) == _ptr(x)
    assert _ptr(np.from_dlpack(x)) == _ptr(x)    # ours -> numpy (DLPack, CPU)
    assert _ptr(np.asarray(x)) == _ptr(x)
    back = fe.from_dlpack(np.from_dlpack(x))     # numpy -> ours over the same memory
    assert _ptr(back) == _ptr(x)
    assert _ptr(fe.from_dlpack(j)) == _ptr(j) and _ptr(fnp.from_dlpack(x)) == _ptr(x)
    assert x.__dlpack_device__() == j.__dlpack_device__()
    np.testing.assert_array_equal(np.asarray(jnp.ones(16) + x), np.arange(16.0) + 1)


def test_from_dlpack_errors_and_copies():
    with pytest.raises(TypeError, match="must have __dlpack__ and __dlpack_device__"):
        fe.from_dlpack([1, 2])
    h = np.arange(5, dtype=np.int32)[1:]          # (possibly) unaligned: copied when needed
    got = fe.from_dlpack(h)
    np.testing.assert_array_equal(np.asarray(got), h)
    assert got.dtype == np.int32 and not got.weak_type
    c = fe.from_dlpack(fnp.ones(4), copy=True)
    assert np.asarray(c).sum() == 4


@pytest.mark.slow
def test_attention_example_equals_the_same_code_on_jax():
    """examples/attention_block.py --compare-jax: the same program on JAX gives the same
    parameters (bit for bit), outputs and gradients."""
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    r = subprocess.run([sys.executable, os.path.join(root, "examples", "attention_block.py"),
                        "--compare-jax"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "same parameters, outputs and gradients as the JAX program: True" in r.stdout
