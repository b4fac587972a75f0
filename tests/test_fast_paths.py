"""The fast paths of issue 12 compute what the slow ones did: n-ary elementwise primitives
broadcast size-1 dims (as JAX's lax), eager numpy functions run as one executable per
signature, and jit's C++ call path serves 64-bit mode."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import frontend as fe
import frontend.numpy as fnp
from frontend import lax
from frontend.device import array as arr

R = np.random.default_rng(3)
A = R.normal(size=(3, 1)).astype(np.float32)
B = R.normal(size=(1, 4)).astype(np.float32) + 2.0
AS = R.normal(size=(5, 3, 1)).astype(np.float32)

_OPS = [("add", lax.add, jax.lax.add), ("sub", lax.sub, jax.lax.sub), ("mul", lax.mul, jax.lax.mul),
        ("max", lax.max, jax.lax.max), ("lt", lax.lt, jax.lax.lt), ("atan2", lax.atan2, jax.lax.atan2),
        ("pow", lambda a, b: lax.pow(lax.abs(a), b), lambda a, b: jax.lax.pow(jax.lax.abs(a), b))]


def test_size_one_dims_broadcast_in_elementwise_primitives():
    def ours(a, b):
        return [f(a, b) for _, f, _ in _OPS]

    def theirs(a, b):
        return [f(a, b) for _, _, f in _OPS]

    for got, want in zip(fe.jit(ours)(A, B), theirs(A, B), strict=True):
        assert got.shape == want.shape == (3, 4) and got.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
    # vmap (batched operand with size-1 dims, unbatched one broadcast) against a loop
    got = fe.jit(fe.vmap(ours, in_axes=(0, None)))(AS, B)
    for k, (name, _, f) in enumerate(_OPS):
        want = np.stack([f(a, B) for a in AS])
        np.testing.assert_allclose(np.asarray(got[k]), want, rtol=1e-6, err_msg=name)
    with pytest.raises(TypeError, match=r"add got incompatible shapes for broadcasting: "
                                        r"\(3, 4\), \(2, 4\)"):
        lax.add(np.ones((3, 4), np.float32), np.ones((2, 4), np.float32))
    with pytest.raises(TypeError, match="select"):  # select keeps equal shapes
        lax.select(np.ones((3, 1), bool), np.ones((3, 4), np.float32), np.ones((3, 4), np.float32))


def _layer_norm(np_mod):
    def f(x, g, b):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np_mod.sqrt(v + 1e-5) * g + b
    return f


def test_eager_numpy_functions_run_as_one_executable():
    x = R.normal(size=(6, 7)).astype(np.float32)
    g = R.normal(size=7).astype(np.float32)
    ours = [fe.device_put(a) for a in (x, g, g)]
    np.testing.assert_allclose(np.asarray(_layer_norm(fnp)(*ours)), _layer_norm(jnp)(x, g, g),
                               rtol=1e-5, atol=1e-5)
    n = len(arr._eager_cache)
    out = fnp.maximum(ours[0], ours[1])   # broadcast_in_dim + max: one executable
    assert len(arr._eager_cache) == n + 1
    np.testing.assert_array_equal(np.asarray(out), np.maximum(x, g))
    fnp.maximum(ours[0], ours[1])
    assert len(arr._eager_cache) == n + 1
    # a list axis (unhashable) and Python scalars take the per-primitive path
    np.testing.assert_allclose(np.asarray(fnp.sum(ours[0], axis=[0, 1])), x.sum(), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(fnp.mean(ours[0] * 2.0, 0)), (x * 2).mean(0), rtol=1e-6)
    # errors come out of the fused path unchanged
    with pytest.raises(TypeError, match="add got incompatible shapes for broadcasting"):
        fnp.add(fe.device_put(np.ones(3, np.float32)), fe.device_put(np.ones(4, np.float32)))


def test_jit_cpp_path_serves_x64_and_follows_the_switches(x64, monkeypatch):
    from frontend.transforms import jit as api
    misses = []
    orig = api.Jitted._cache_miss

    def counting(self, *a, **k):
        misses.append(1)
        return orig(self, *a, **k)

    monkeypatch.setattr(api.Jitted, "_cache_miss", counting)
    f = fe.jit(lambda v: v * 2)
    x = np.arange(3.0)
    for _ in range(3):
        assert f(x).dtype == np.float64
    assert len(misses) == 1  # the later calls were served by the C++ path
    fe.config.update("enable_x64", False)  # ours off, JAX's on: the C++ entries are dropped
    assert f(x).dtype == np.float32 and f(x).dtype == np.float32
    assert len(misses) == 3  # (and Python serves while the switches disagree)
    jax.config.update("jax_enable_x64", False)
    fe.config.update("enable_x64", True)   # ours on, JAX's off: 64-bit data not narrowed
    r = f(x)
    assert r.dtype == np.float64
    np.testing.assert_array_equal(np.asarray(r), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(np.asarray(fe.device_put(np.array([2**40]))), [2**40])


def test_jit_is_the_cpp_callable_and_traced_arguments_trace_inline(monkeypatch):
    """fe.jit hands out jaxlib's C++ callable: results come back as Arrays in the function's
    pytree (also from the C++ path); a traced argument lands in the Python path, which traces
    the function inline; a call under a transformation with no traced argument is served by
    the cached program (the values inline tracing gives)."""
    from frontend.core.ir import Aval
    from frontend.transforms import jit as api
    misses = []
    orig = api.Jitted._cache_miss
    monkeypatch.setattr(api.Jitted, "_cache_miss",
                        lambda self, *a, **k: misses.append(1) or orig(self, *a, **k))
    f = fe.jit(lambda a, b: (a * b, {"s": fnp.sum(a), "n": None}))
    x = np.arange(3.0, dtype=np.float32)
    xs = R.normal(size=(4, 3)).astype(np.float32)
    first, again = f(x, 2.0), f(fe.device_put(x), 2.0)
    assert len(misses) == 2 and f(x, 2.0) is not None and len(misses) == 2  # C++ served
    for r in (first, again):
        assert type(r) is tuple and set(r[1]) == {"s", "n"} and r[1]["n"] is None
        assert type(r[0]) is fe.Array and r[0].aval is Aval((3,), np.dtype(np.float32))
        assert type(r[1]["s"]) is fe.Array and r[1]["s"].aval is Aval((), np.dtype(np.float32))
        np.testing.assert_array_equal(np.asarray(r[0]), x * 2)
    # traced arguments (vmap, grad): traced inline, as JAX's
    got = fe.vmap(lambda v: f(v, 2.0)[0])(xs)
    np.testing.assert_allclose(np.asarray(got), xs * 2)
    np.testing.assert_allclose(np.asarray(fe.grad(lambda v: f(v, 3.0)[1]["s"])(x)), np.ones(3))
    # no traced argument under vmap / grad: still traced inline (the C++ key says a trace is
    # current), as JAX's; back outside, the C++ path serves again
    n = len(misses)
    np.testing.assert_allclose(np.asarray(fe.vmap(lambda v: f(x, 2.0)[0] + v)(xs)), xs + x * 2)
    np.testing.assert_allclose(np.asarray(fe.grad(lambda v: fnp.sum(f(x, 2.0)[0] * v))(x)), x * 2)
    assert len(misses) == n + 2
    f(x, 2.0)
    assert len(misses) == n + 2
    n = len(misses)
    # a traced value in a static position is JAX's ValueError
    g = fe.jit(lambda v, k: v * k, static_argnums=1)
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        fe.vmap(lambda v: g(v, v))(xs)
    n = len(misses)
    # the methods of the Python object ride along; a method binds its instance (JAX's)
    assert f.eval_shape(fe.ShapeDtypeStruct((5,), np.float32), 1.0)[0].shape == (5,)
    assert "stablehlo.multiply" in f.lower(x, 2.0).as_text() and f.__name__ == "<lambda>"
    assert f.trace(x, 2.0).out_info[0].shape == (3,)  # JAX's traced stage rides along too
    f.clear_cache()
    f(x, 2.0)
    assert len(misses) == n + 1

    class Scaler:
        k = 3.0

        @fe.jit(static_argnums=0)
        def scale(self, v):
            return v * self.k

    np.testing.assert_array_equal(np.asarray(Scaler().scale(x)), x * 3)


def test_jit_under_a_trace_inlines_effectful_or_not():
    import ctypes

    from frontend import ffi
    from lowering.runtime import native
    lib = ctypes.CDLL(native.library_path())
    ffi.register_ffi_target("test_fast_effect", ffi.pycapsule(lib.VmaplabRmsNorm))
    x = R.normal(size=(2, 4)).astype(np.float32)
    call = ffi.ffi_call("test_fast_effect", fe.ShapedArray(x.shape, x.dtype),
                        vmap_method="sequential", has_side_effect=True)
    j = fe.jit(lambda v: call(v, eps=1e-3) * 1.0)
    want = np.asarray(j(x))
    np.testing.assert_array_equal(np.asarray(j(x)), want)
    g = fe.make_graph(lambda y: j(x) + y)(x)  # no traced argument: still traced inline
    assert any(e.prim.name == "ffi_call" for e in g.eqns), g
    pure = fe.jit(lambda v: v * 2.0)
    pure(x)
    g = fe.make_graph(lambda y: pure(x) + y)(x)  # a cached pure program too (as JAX's)
    assert [e.prim.name for e in g.eqns] == ["mul", "add"], g


def test_x64_flip_after_cached_eager_and_jit_calls():
    """Cached eager and jitted programs follow the 64-bit switch both ways, as JAX's (an
    int32 array times a Python float is float64 under x64; int32 / int32 stays float32)."""
    a = fe.device_put(np.arange(1, 4, dtype=np.int32))
    ja = jax.numpy.arange(1, 4, dtype=np.int32)
    f, jf = fe.jit(lambda v: v * 1.5), jax.jit(lambda v: v * 1.5)

    def dtypes(x, M, g):
        return M.true_divide(x, x).dtype, M.multiply(x, 1.5).dtype, g(x).dtype

    for _ in range(2):
        assert dtypes(a, fnp, f) == dtypes(ja, jax.numpy, jf) == (np.float32,) * 3
    fe.config.update("enable_x64", True)
    jax.config.update("jax_enable_x64", True)
    try:
        for _ in range(2):
            assert dtypes(a, fnp, f) == dtypes(ja, jax.numpy, jf) == (np.float32, np.float64, np.float64)
    finally:
        fe.config.update("enable_x64", False)
        jax.config.update("jax_enable_x64", False)
    assert dtypes(a, fnp, f) == (np.float32,) * 3
