"""Keywords and edge behaviours of frontend.numpy functions, compared with jax.numpy:
array(ndmin=), size(axis=), take/take_along_axis on empty axes and without an axis,
interp of a Python scalar, negative shapes, traced linspace end points."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from harness import assert_same

import frontend as fe
import frontend.numpy as fnp

CASES = [
    "lib.array([1, 2], ndmin=3)", "lib.array(np.ones((2, 3)), ndmin=1)",
    "lib.size(lib.ones((2, 3, 4)), axis=(0, 2))", "lib.size(lib.ones((2, 3)), 1)",
    "lib.size(np.ones((2, 3)), -1)",
    "lib.interp(1.5, np.arange(3.0), np.arange(3.0) * 2)",
    "lib.interp(1, np.arange(3.0), np.arange(3.0) * 2)",
    "lib.take_along_axis(np.ones((2, 0), np.float32), np.zeros((2, 1), np.int32), axis=1)",
    "lib.take_along_axis(np.arange(6).reshape(2, 3), np.array([[0], [2]]))",
    "lib.take_along_axis(np.arange(6.0), np.array([5, 0]), axis=None)",
    "lib.take(np.ones((0, 3)), np.zeros(0, np.int32), axis=0)",
]
ERRORS = [
    ("lib.ones((-1, 1))", TypeError),
    ("lib.take(np.ones((0, 3)), np.array([0]), axis=0)", IndexError),
    ("lib.take_along_axis(np.ones((2, 3)), np.zeros((2, 1), np.int32), axis=None)", ValueError),
]


@pytest.mark.parametrize("expr", CASES)
def test_keywords_match_jax(expr):
    assert_same(eval(expr, {"lib": fnp, "np": np}), eval(expr, {"lib": jnp, "np": np}), expr)


@pytest.mark.parametrize(("expr", "error"), ERRORS)
def test_errors_match_jax(expr, error):
    for lib in (jnp, fnp):
        with pytest.raises(error):
            eval(expr, {"lib": lib, "np": np})


def test_linspace_with_traced_end_points_matches_jax():
    a, b = np.float32(1.0), np.float32([2.0, 7.0])
    for kw in ({}, {"endpoint": False}, {"axis": -1}, {"retstep": True}):
        assert_same(fe.jit(lambda s, e, kw=kw: fnp.linspace(s, e, 5, **kw))(a, b),
                    jax.jit(lambda s, e, kw=kw: jnp.linspace(s, e, 5, **kw))(a, b), str(kw))


def test_traced_k_and_shift_match_jax():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    for s in (2, -1, 7):
        for f in (lambda lib, x, s: lib.roll(x, s), lambda lib, x, s: lib.roll(x, s, axis=1),
                  lambda lib, x, s: lib.eye(3, 4, k=s) + x[:, :4],
                  lambda lib, x, s: lib.tri(3, 4, k=s, dtype=np.int32)):
            assert_same(fe.jit(lambda x, s, f=f: f(fnp, x, s))(x, np.int32(s)),
                        jax.jit(lambda x, s, f=f: f(jnp, x, s))(x, np.int32(s)))
    shifts = np.int32([1, -3])
    assert_same(fe.jit(lambda x, s: fnp.roll(x, s, axis=(0, 1)))(x, shifts),
                jax.jit(lambda x, s: jnp.roll(x, s, axis=(0, 1)))(x, shifts))
    assert_same(fnp.roll(x, fnp.int32(2)), jnp.roll(x, jnp.int32(2)))


def test_device_keyword_matches_jax():
    ours, theirs = fe.devices()[0], jax.devices()[0]
    x = np.arange(6.0, dtype=np.float32)
    for expr in ("lib.zeros((2, 3), device=d)", "lib.ones(2, np.int32, device=d)",
                 "lib.empty(3, device=d)", "lib.full_like(x, 3, device=d)",
                 "lib.zeros_like(x, device=d)", "lib.arange(4, device=d)",
                 "lib.array([1, 2], device=d)", "lib.eye(2, device=d)",
                 "lib.linspace(0, 1, 3, device=d)", "lib.full(2, 1.5, device=None)"):
        o = eval(expr, {"lib": fnp, "np": np, "d": ours, "x": x})
        t = eval(expr, {"lib": jnp, "np": np, "d": theirs, "x": x})
        assert_same(o, t, expr)
        assert len(o.devices()) == 1


def test_var_std_with_a_given_mean_match_jax():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    m = np.float32([[1.0], [4.0]])
    for expr in ("lib.var(x, axis=1, mean=m)", "lib.std(x, axis=1, mean=m, ddof=1)",
                 "lib.var(x, axis=1, keepdims=True, mean=m)", "lib.var(x[0], mean=1.5)"):
        env = {"x": x, "m": m}
        assert_same(eval(expr, {**env, "lib": fnp}), eval(expr, {**env, "lib": jnp}), expr)
        assert_same(fe.jit(lambda x, m, e=expr: eval(e, {"x": x, "m": m, "lib": fnp}))(x, m),
                    jax.jit(lambda x, m, e=expr: eval(e, {"x": x, "m": m, "lib": jnp}))(x, m))


def test_true_as_an_index_matches_jax():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    for expr in ("a[True]", "a[0, True]", "a[..., True]", "a[True, 1]", "a.at[True].set(7)",
                 "a.at[True, 1].add(7)"):
        assert_same(eval(expr, {"a": fnp.asarray(x)}), eval(expr, {"a": jnp.asarray(x)}), expr)
