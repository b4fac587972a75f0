"""Host-to-device transfers, counted at the runtime seam (lowering.runtime.to_device): none
while tracing; closed-over constants above ``embedded_constants_max_bytes`` are arguments of
@main, moved to the device once, when the program first runs; eager scalar constants are
not moved again for every operation."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import frontend as fe
import frontend.numpy as fnp
from frontend import lax
from lowering import runtime


@pytest.fixture
def transfers(monkeypatch):
    """The list of shapes moved host -> device through the runtime."""
    moved = []
    orig = runtime.xla.to_device

    def counting(x, device=None):
        moved.append(np.shape(x))
        return orig(x, device)

    monkeypatch.setattr(runtime.xla, "to_device", counting)
    monkeypatch.setattr(runtime, "to_device", counting)
    return moved


@pytest.fixture
def small_limit():
    """Constants above 256 bytes become arguments."""
    old = fe.config.embedded_constants_max_bytes
    fe.config.update("embedded_constants_max_bytes", 256)
    try:
        yield
    finally:
        fe.config.update("embedded_constants_max_bytes", old)


R = np.random.default_rng(0)
WS = [(R.normal(size=(6, 6)) / 3).astype(np.float32) for _ in range(4)]
BIG = R.normal(size=(40, 6)).astype(np.float32)  # 960 bytes


def _model(np_mod):
    def f(x):
        for w in WS:
            x = np_mod.tanh(x @ w * 1.01 + 0.5)
        x = x + np_mod.asarray([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])   # a list constant
        x = x * np_mod.asarray(2.0)                               # a weak scalar constant
        return (BIG @ x.T).sum(0) + x[0]
    return f


def test_tracing_transfers_nothing(transfers):
    x = R.normal(size=(3, 6)).astype(np.float32)
    g = fe.make_graph(fe.vmap(_model(fnp)))(x)
    fe.jit(fe.vmap(_model(fnp))).lower(x).as_text()
    # lax operands, a loop body and cond branches closing over numpy arrays
    fe.make_graph(lambda v: lax.fori_loop(0, 3, lambda i, c: c @ WS[0] + WS[1][0], v))(x[0])
    fe.make_graph(lambda v: lax.cond(v.sum() > 0, lambda u: u @ WS[2], lambda u: lax.add(u, WS[3][0]), v))(x[0])
    assert transfers == []
    # each closed-over array is one constant, however often it is used
    assert len(g.consts) == len(WS) + 3 and all(isinstance(c, np.ndarray) for c in g.consts)


def test_large_constants_are_arguments_moved_once(transfers, small_limit):
    x = R.normal(size=(3, 6)).astype(np.float32)
    want = jax.vmap(_model(jnp))(x)
    f = fe.jit(fe.vmap(_model(fnp)))
    text = f.lower(x).as_text()
    # BIG is an argument of @main, the small weights stay in the text
    assert "// %arg0: closed-over constants (f32[40,6]), passed as arguments" in text
    assert "@main(%arg0: tensor<40x6xf32>, %arg1: tensor<3x6xf32>)" in text
    assert text.count("stablehlo.constant dense<\"0x") == len(WS) + 1
    assert transfers == []
    np.testing.assert_allclose(np.asarray(f(x)), want, rtol=1e-5, atol=1e-5)
    assert (40, 6) in transfers and (3, 6) in transfers
    n = len(transfers)
    np.testing.assert_allclose(np.asarray(f(x + 1)), jax.vmap(_model(jnp))(x + 1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(f(fe.device_put(x))), want, rtol=1e-5, atol=1e-5)
    assert (40, 6) not in transfers[n:]  # the constant stays on the device
    # the interpreter device and AOT compile pass the same leading argument
    fi = fe.jit(fe.vmap(_model(fnp)), device="interpreter")
    np.testing.assert_allclose(np.asarray(fi(x)), want, rtol=1e-5, atol=1e-5)
    assert "f32[40,6]" in f.lower(x).compile().as_text()


def test_closed_over_device_array_is_passed_without_a_copy(transfers, small_limit):
    big = fe.device_put(BIG)
    assert transfers == [(40, 6)]
    f = fe.jit(lambda v: big @ v)
    v = np.ones(6, np.float32)
    np.testing.assert_allclose(np.asarray(f(v)), BIG @ v, rtol=1e-5)
    assert (40, 6) not in transfers[1:]


def test_embedded_constants_max_bytes_checked():
    with pytest.raises(ValueError, match="non-negative int"):
        fe.config.update("embedded_constants_max_bytes", -1)


def test_eager_scalar_constants_are_not_moved_again(transfers):
    x = fe.device_put(np.ones(5, np.float32))
    y = x * 1.5 + 2.0
    n = len(transfers)
    for _ in range(3):
        y = x * 1.5 + 2.0
    assert len(transfers) == n
    np.testing.assert_array_equal(np.asarray(y), np.full(5, 3.5, np.float32))
    # -0.0 and 0.0 are different constants
    np.testing.assert_array_equal(np.signbit(np.asarray(fnp.multiply(x, 0.0))), [False] * 5)
    np.testing.assert_array_equal(np.signbit(np.asarray(fnp.multiply(x, -0.0))), [True] * 5)
