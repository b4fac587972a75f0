"""Public API: make_graph printing, jit caching/static args/pytrees/lowering, eager Arrays,
vmap's in_axes/out_axes/axis_size semantics, and the error messages."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from harness import assert_same, verify

import frontend as fe
import frontend.numpy as fnp
from frontend.core.ir import Graph, typecheck

X3 = np.arange(3, dtype=np.float32)


def test_make_graph_prints_like_a_jaxpr():
    g = fe.make_graph(lambda x: x * 2.0 + 1)(X3)
    assert str(g) == ("{ lambda ; a:f32[3]. let\n"
                      "    b:f32[3] = mul a 2.0:f32[]\n"
                      "    c:f32[3] = add b 1.0:f32[]\n"
                      "  in (c,) }")
    typecheck(g)


def test_closed_over_numpy_array_is_a_constant():
    W = np.ones((2, 3), np.float32)
    g = fe.make_graph(lambda x: fnp.tanh(x) * W)(np.ones((2, 3), np.float32))
    assert str(g).startswith("{ lambda a:f32[2,3]; b:f32[2,3]. let")
    text = fe.jit(lambda x: fnp.tanh(x) * W).lower(np.ones((2, 3), np.float32)).as_text()
    assert "stablehlo.constant dense<1.0> : tensor<2x3xf32>" in verify(text)


def test_make_graph_pytrees():
    g = fe.make_graph(lambda d, t: {"s": d["a"] + t[0], "p": t[1] * 2})(
        {"a": X3}, (X3, np.int32(3)))
    assert len(g.invars) == 3 and len(g.outvars) == 2
    assert [v.aval.str_short() for v in g.invars] == ["f32[3]", "f32[3]", "i32[]"]


def test_jit_traces_once_per_signature():
    calls = []

    def f(x, y):
        calls.append(1)
        return x * y

    jf = fe.jit(f)
    for _ in range(3):
        jf(X3, 2.0)
    assert len(calls) == 1
    jf(X3, 3.0)                      # same signature: weak f32 scalar
    assert len(calls) == 1
    jf(X3, np.float32(3.0))          # not weak: new signature
    jf(np.ones(4, np.float32), 2.0)  # new shape
    jf(np.ones(3, np.int32), 2)      # new dtype
    assert len(calls) == 4
    jf(fnp.asarray(X3), 2.0)         # an Array of a known signature
    assert len(calls) == 4


def test_jit_static_argnums():
    calls = []

    def f(x, n):
        calls.append(n)
        for _ in range(n):
            x = x * 2
        return x

    jf = fe.jit(f, static_argnums=1)
    np.testing.assert_allclose(jf(X3, 3), X3 * 8)
    np.testing.assert_allclose(jf(X3, 3), X3 * 8)
    np.testing.assert_allclose(jf(X3, 1), X3 * 2)
    assert calls == [3, 1]
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        jf(X3, [1])


def test_jit_pytrees_and_kwargs():
    def f(params, x, *, scale):
        return {"y": params["w"] * x + params["b"], "n": (x.sum(), scale * 2)}

    p = {"w": np.float32(2.0), "b": np.ones(3, np.float32)}
    out = fe.jit(f)(p, X3, scale=1.5)
    ref = jax.jit(lambda p, x, scale: {"y": p["w"] * x + p["b"], "n": (x.sum(), scale * 2)})(p, X3, 1.5)
    assert_same(out, ref)


def test_jit_rejects_non_array_arguments_by_name():
    def f(x, label):
        return x

    with pytest.raises(TypeError, match=r"type <class 'str'>.*at path label"):
        fe.jit(f)(X3, "hello")
    with pytest.raises(TypeError, match=r"at path params\['k'\]"):
        fe.jit(lambda x, params: x)(X3, {"k": object()})


def test_lower_compile_text_and_cost():
    lowered = fe.jit(lambda x: fnp.exp(x) + 1).lower(X3)
    text = lowered.as_text()
    assert "func.func public @main" in text and "stablehlo.exponential" in text
    verify(text)
    compiled = lowered.compile()
    assert "HloModule" in compiled.as_text()
    assert compiled.cost_analysis() is not None


def test_bool_of_tracer_explains_tracing():
    def f(x):
        if x.sum() > 0:
            return x
        return -x

    with pytest.raises(TypeError, match="Abstract tracer value encountered where concrete value is expected"):
        fe.jit(f)(X3)
    with pytest.raises(TypeError, match="int"):
        fe.jit(lambda x: int(x))(np.float32(1))


def test_leaked_tracer_is_an_error():
    box = []
    fe.jit(lambda x: box.append(x) or x)(X3)
    with pytest.raises(TypeError, match="outside the transformation"):
        fe.jit(lambda y: y + box[0])(X3)


def test_eager_array_basics():
    a = fnp.asarray([1.0, 2.0])
    assert repr(a) == "Array([1., 2.], dtype=float32)"
    assert repr(fnp.asarray(1.0)) == "Array(1., dtype=float32, weak_type=True)"
    assert repr(fnp.arange(3)) == "Array([0, 1, 2], dtype=int32)"
    assert isinstance(a, fe.Array) and a.shape == (2,) and a.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(a * 2), [2.0, 4.0])
    assert float(a[1]) == 2.0
    assert bool(fnp.asarray(True)) is True
    assert a.tolist() == [1.0, 2.0]


def test_eager_executables_are_cached():
    from frontend.device import array as arr
    a = fnp.ones(7)
    (a + a)
    n = len(arr._eager_cache)
    for _ in range(5):
        a = a + a
    assert len(arr._eager_cache) == n


def test_devices_and_device_put():
    devs = fe.devices()
    assert devs and devs[0].platform == "cpu"
    assert fe.devices("cpu") == devs
    x = fe.device_put(np.ones(3, np.float32), devs[0])
    assert isinstance(x, fe.Array) and x.device == devs[0]
    with pytest.raises(ValueError, match="no XLA backend"):
        fe.devices("tpu")


def test_error_wording_broadcasting():
    with pytest.raises(TypeError, match=r"add got incompatible shapes for broadcasting: \(3, 2\), \(4, 5\)\."):
        fnp.add(np.ones((3, 2)), np.ones((4, 5)))
    with pytest.raises(TypeError, match=r"add got incompatible shapes for broadcasting: \(3, 2\), \(4, 5\)\."):
        fe.jit(lambda x, y: x + y)(np.ones((3, 2)), np.ones((4, 5)))


# ----------------------------------------------------------------------------- vmap API

def test_vmap_in_axes_forms():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.arange(3, dtype=np.float32)
    f = lambda a, b: a * b  # noqa: E731
    for axes in [(0, None), [0, None], (-2, None)]:
        assert_same(fe.vmap(f, in_axes=axes)(x, y), jax.vmap(f, in_axes=axes if not isinstance(axes, list) else tuple(axes))(x, y))
    assert_same(fe.vmap(f, in_axes=(1, 0))(x, y), jax.vmap(f, in_axes=(1, 0))(x, y))
    z = np.ones((2, 3), np.float32)
    assert_same(fe.vmap(f, in_axes=1, out_axes=-1)(x, z), jax.vmap(f, in_axes=1, out_axes=-1)(x, z))


def test_vmap_pytree_prefix_and_kwargs():
    p = {"w": np.ones((4, 3), np.float32), "b": np.float32(1.0)}
    xs = np.arange(12, dtype=np.float32).reshape(4, 3)

    def f(p, x, *, s):
        return (p["w"] * x + p["b"]) * s

    ours = fe.vmap(f, in_axes=({"w": 0, "b": None}, 0))(p, xs, s=np.ones(4, np.float32))
    ref = jax.vmap(lambda p, x, s: f(p, x, s=s), in_axes=({"w": 0, "b": None}, 0, 0))(p, xs, np.ones(4, np.float32))
    assert_same(ours, ref)


def test_vmap_unbatched_output_is_broadcast():
    out = fe.vmap(lambda x: fnp.array(1.0))(np.ones(5, np.float32))
    assert out.shape == (5,)
    out2 = fe.vmap(lambda x: (x, 3.0), out_axes=(0, 0))(np.ones(4, np.float32))
    assert out2[1].shape == (4,)
    assert_same(out2[1], jax.vmap(lambda x: (x, 3.0))(np.ones(4, np.float32))[1])


def test_vmap_axis_size_without_mapped_inputs():
    out = fe.vmap(lambda: fnp.ones(2), in_axes=(), axis_size=3)()
    assert out.shape == (3, 2)
    out = fe.vmap(lambda x: x * 2, in_axes=None, axis_size=4)(np.ones(2, np.float32))
    assert out.shape == (4, 2)


def test_vmap_out_axes_none():
    out = fe.vmap(lambda x, w: (x * w, w * 2), in_axes=(0, None), out_axes=(0, None))(
        np.ones((3, 2), np.float32), np.ones(2, np.float32))
    assert out[0].shape == (3, 2) and out[1].shape == (2,)
    with pytest.raises(ValueError, match="out_axes is None"):
        fe.vmap(lambda x: x, out_axes=None)(np.ones(3))


def test_vmap_errors_name_argument_shape_and_axis():
    def f(x, y):
        return x + y

    with pytest.raises(ValueError) as e:
        fe.vmap(f)(np.ones((3, 5), np.float32), np.ones((4, 5), np.float32))
    msg = str(e.value)
    assert "vmap got inconsistent sizes for array axes to be mapped" in msg
    assert "axis 0 of argument x of type float32[3,5]" in msg and "argument y" in msg
    with pytest.raises(ValueError, match=r"axis 2.*rank should be at least 3.*\(3, 5\).*argument is x"):
        fe.vmap(f, in_axes=(2, 0))(np.ones((3, 5)), np.ones((3, 5)))
    with pytest.raises(ValueError, match=r"rank should be at least 1, but is only 0.*argument is x"):
        fe.vmap(f)(1.0, np.ones(3))
    with pytest.raises(ValueError, match=r"len\(in_axes\)=3, len\(args\)=2"):
        fe.vmap(f, in_axes=(0, 0, 0))(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="at least one non-None value in in_axes"):
        fe.vmap(f, in_axes=None)(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match=r"does not match the argument structure"):
        fe.vmap(lambda d: d["a"], in_axes=({"b": 0},))({"a": np.ones(3)})
    with pytest.raises(TypeError, match="in_axes must be an int, None, or"):
        fe.vmap(f, in_axes="0")
    with pytest.raises(ValueError, match=r"argument d\['a'\]"):
        fe.vmap(lambda d, y: d["a"] + y)({"a": np.ones(3)}, np.ones(4))


def test_vmap_of_jit_and_jit_of_vmap_and_nested():
    f = fe.jit(lambda x, y: x * y + 1)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    ref = np.asarray(x) * np.asarray(x) + 1
    np.testing.assert_allclose(fe.vmap(f)(x, x), ref)
    np.testing.assert_allclose(fe.jit(fe.vmap(f))(x, x), ref)
    np.testing.assert_allclose(fe.vmap(fe.vmap(f))(x, x), ref)
    grid = fe.vmap(fe.vmap(f, in_axes=(0, None)), in_axes=(None, 0))(x[0], x[1])
    np.testing.assert_allclose(grid, x[0][None, :] * x[1][:, None] + 1)
    g = fe.make_graph(fe.vmap(lambda a: a * 2.0))(x)
    assert isinstance(g, Graph) and g.invars[0].aval.shape == (2, 3)


def test_vmap_inside_jit_with_closure():
    w = np.arange(3, dtype=np.float32)

    @fe.jit
    def f(xs, s):
        return fe.vmap(lambda x: x * w * s)(xs)

    np.testing.assert_allclose(f(np.ones((4, 3), np.float32), 2.0), np.tile(w * 2, (4, 1)))


def _operators(x, y, i, j):
    return [x + y, x - y, x * y, x / y, x // y, x % y, x ** 2, -x, abs(x), +x,
            x < y, x <= y, x > y, x >= y, x == y, x != y, i & j, i | j, i ^ j, ~i,
            2.0 * x, 1 - x, 3 / y, 2 ** x, x @ y.T, x.T, x.shape[0] * x, x.ndim + x, x.size + x,
            x.reshape(-1), x.reshape(3, 2), x.transpose(), x.sum(), x.mean(axis=0), x.max(1),
            x.min(), x.prod(0), x.argmax(), x.argmin(1), x.astype(np.int32), x.dot(y.T),
            x[None].squeeze(0), x[1], x[:, ::-1], x[..., 1:], x[np.array([1, 0])]]


def test_tracer_operators_and_methods_match_jax():
    r = np.random.default_rng(3)
    x = r.normal(size=(2, 3)).astype(np.float32)
    y = (np.abs(r.normal(size=(2, 3))) + 0.5).astype(np.float32)
    i = r.integers(-5, 5, size=(2, 3)).astype(np.int32)
    j = r.integers(-5, 5, size=(2, 3)).astype(np.int32)
    assert_same(fe.jit(_operators)(x, y, i, j), jax.jit(_operators)(x, y, i, j), "jit")
    assert_same(_operators(fnp.asarray(x), fnp.asarray(y), fnp.asarray(i), fnp.asarray(j)),
                _operators(jnp.asarray(x), jnp.asarray(y), jnp.asarray(i), jnp.asarray(j)), "eager")
