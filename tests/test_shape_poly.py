"""Shape-polymorphic export (``frontend.export.symbolic_shape``) against JAX's: dimension
arithmetic and decisions, a batch-polymorphic model exported for ``f32[b,16]`` equal to JAX's
export and to the plain call for several batch sizes, the printed avals, the dynamic
StableHLO, errors in JAX's words, calls under jit/vmap, both artifact formats both ways, and
a serialized symbolic export called with three batch sizes after a fresh-process reload."""
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import frontend as fe
import frontend.nn as fnn
import frontend.numpy as fnp
from frontend import export as fx
from frontend import lax as flax

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
W = (np.arange(64, dtype=np.float32).reshape(16, 4) - 30) / 50


def _model(np_, nn, lax, vmap):
    def f(x, y):
        h = np_.tanh(x @ W + 1.0)
        h2 = np_.einsum("bi,ij->bj", x, W)
        d = lax.dot_general(x, W, (((1,), (0,)), ((), ())))
        s = nn.softmax(h, axis=-1) + nn.logsumexp(h2, axis=-1, keepdims=True)
        m = s.mean(0) + d.max(0) + h.sum(0) / x.shape[0]
        r = x.reshape(-1, 4, 4).transpose(0, 2, 1).reshape(x.shape[0], -1)
        c = np_.concatenate([r[:, :3], x[:, 5:7], y], axis=1)
        w = np_.where(c > 0, c, 0.1 * c)
        i = np_.arange(x.shape[0])
        v = vmap(lambda row: row[::2].sum() * 2)(x)
        return m, w[:, 1], i, v, x[:, 3] * y[:, 0], x.T @ y
    return f


OURS = _model(fnp, fnn, flax, fe.vmap)
THEIRS = _model(jnp, jax.nn, jax.lax, jax.vmap)


def _args(n):
    return (np.sin(np.arange(n * 16, dtype=np.float32)).reshape(n, 16),
            np.cos(np.arange(n * 2, dtype=np.float32)).reshape(n, 2))


_WANT: dict = {}


def _want(n):
    """The plain (jitted) call of the model on batch size n, once per n."""
    if n not in _WANT:
        _WANT[n] = fe.jit(OURS)(*_args(n))
    return _WANT[n]


@pytest.fixture(scope="module")
def exported():
    x = fx.symbolic_shape("b, 16")
    return fx.export(fe.jit(OURS))(fe.ShapeDtypeStruct(x, np.float32),
                                   fe.ShapeDtypeStruct((x[0], 2), np.float32))


@pytest.fixture(scope="module")
def jax_exported():
    x = jax.export.symbolic_shape("b, 16")
    return jax.export.export(jax.jit(THEIRS))(jax.ShapeDtypeStruct(x, np.float32),
                                              jax.ShapeDtypeStruct((x[0], 2), np.float32))


def _dims(avals):
    return [([str(d) for d in a.shape], np.dtype(a.dtype)) for a in avals]


def _check_outs(got, want):
    for g, w in zip(got, want, strict=True):
        assert np.asarray(g).dtype == np.asarray(w).dtype and np.shape(g) == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-6)


def test_dimension_expressions_print_and_decide_as_jax():
    ours = fx.symbolic_shape("b, c", constraints=("c >= 4",))
    theirs = jax.export.symbolic_shape("b, c", constraints=("c >= 4",))
    exprs = [lambda b, c: 2 * b + 1, lambda b, c: b * c, lambda b, c: b - 1,
             lambda b, c: (2 * b + 1) // 2, lambda b, c: b // 2, lambda b, c: b % 3,
             lambda b, c: b * b, lambda b, c: (16 * b) // b, lambda b, c: b - b,
             lambda b, c: 3 * b + 2 * b]
    for e in exprs:
        assert str(e(*ours)) == str(e(*theirs))
    decided = [lambda b, c: b >= 1, lambda b, c: b == 1, lambda b, c: b != 1,
               lambda b, c: c >= 4, lambda b, c: c > 3, lambda b, c: c < 4, lambda b, c: b == c,
               lambda b, c: b + 1 > b, lambda b, c: (b // 2) * 2 + b % 2 == b]
    for e in decided:
        assert e(*ours) == e(*theirs)
    for e in (lambda b, c: b >= 2, lambda b, c: b < c, lambda b, c: int(b)):
        with pytest.raises(fx.InconclusiveDimensionOperation) as ours_err:
            e(*ours)
        with pytest.raises(Exception) as their_err:
            e(*theirs)
        assert type(their_err.value).__name__ == "InconclusiveDimensionOperation"
        assert str(ours_err.value).splitlines()[0] == str(their_err.value).splitlines()[0]
    other = fx.symbolic_shape("b")[0]
    with pytest.raises(ValueError, match="Invalid mixing of symbolic scopes"):
        ours[0] + other
    assert fx.symbolic_shape("(b, 16)", scope=ours[0].scope)[0] == ours[0]
    with pytest.raises(ValueError, match="syntax error in symbolic shape"):
        fx.symbolic_shape("b, 16 +")


def test_export_equals_jax_export_and_plain_call(exported, jax_exported):
    assert _dims(exported.in_avals) == _dims(jax_exported.in_avals)
    assert _dims(exported.out_avals) == _dims(jax_exported.out_avals)
    assert repr(exported) == ("Exported(f: (f32[b,16], f32[b,2]) -> (f32[4], f32[b], i32[b], "
                              "f32[b], f32[b], f32[16,2]))")
    for n in (1, 3, 8):
        args = _args(n)
        got = exported.call(*args)
        _check_outs(got, jax_exported.call(*args))
        _check_outs(got, _want(n))


def test_the_module_has_dynamic_dimensions_and_verifies(exported):
    text = exported.mlir_module()
    assert "@main(%arg0: tensor<?x16xf32>, %arg1: tensor<?x2xf32>)" in text
    for op in ("stablehlo.get_dimension_size", "stablehlo.dynamic_reshape",
               "stablehlo.dynamic_iota", "stablehlo.dynamic_broadcast_in_dim",
               "jax.uses_shape_polymorphism = true"):
        assert op in text, op
    fe.jit(OURS).lower(*(fe.ShapeDtypeStruct(a.shape, a.dtype) for a in exported.in_avals)) \
        .compiler_ir("stablehlo")  # (parsed and verified by the MLIR verifier)


def test_call_errors_as_jax(exported, jax_exported):
    x3, y3 = _args(3)
    x4, y4 = _args(4)
    with pytest.raises(ValueError) as ours:
        exported.call(x3, y4)
    with pytest.raises(ValueError) as theirs:
        jax_exported.call(x3, y4)
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(ValueError) as ours:
        exported.call(x3[:, :15], y3)
    with pytest.raises(ValueError) as theirs:
        jax_exported.call(x3[:, :15], y3)
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(TypeError, match="exported for argument types"):
        exported.call(x3.astype(np.int32), y3)


def test_constraints_are_checked_as_jax():
    spec = "b, 4"
    cons = ("b >= 2", "b <= 64")

    def f(np_):
        return lambda x: np_.tanh(x).sum(0) * x.shape[0]
    ours = fx.export(fe.jit(f(fnp)))(
        fe.ShapeDtypeStruct(fx.symbolic_shape(spec, constraints=cons), np.float32))
    theirs = jax.export.export(jax.jit(f(jnp)))(
        jax.ShapeDtypeStruct(jax.export.symbolic_shape(spec, constraints=cons), np.float32))
    x = np.ones((1, 4), np.float32)
    with pytest.raises(ValueError) as a:
        ours.call(x)
    with pytest.raises(ValueError) as b:
        theirs.call(x)
    assert str(a.value) == str(b.value)
    np.testing.assert_allclose(ours.call(np.ones((5, 4), np.float32)), np.full(4, 25 * np.tanh(1)),
                               rtol=1e-6)
    # our module carries JAX's shape assertions: a JAX caller of our artifact checks them
    assert ours.mlir_module().count("stablehlo.custom_call @shape_assertion") == 3
    with pytest.raises(Exception) as c:
        jax.export.deserialize(ours.serialize(format="jax")).call(x)
    assert str(a.value) in str(c.value) + str(c.value.__cause__)


def test_inconclusive_shape_logic_in_the_function_fails_as_jax():
    def f(x):
        return x[:2] if x.shape[0] >= 2 else x
    with pytest.raises(fx.InconclusiveDimensionOperation, match="'b' >= '2' is inconclusive"):
        fx.export(fe.jit(f))(fe.ShapeDtypeStruct(fx.symbolic_shape("b"), np.float32))
    with pytest.raises(Exception, match="'b' >= '2' is inconclusive"):
        jax.export.export(jax.jit(f))(
            jax.ShapeDtypeStruct(jax.export.symbolic_shape("b"), np.float32))


def test_unsupported_primitives_name_themselves_and_the_dimension():
    x = fe.ShapeDtypeStruct(fx.symbolic_shape("b, 3"), np.float32)
    with pytest.raises(NotImplementedError, match=r"primitive 'pad' .*symbolic dimension 'b'"):
        fx.export(fe.jit(lambda x: fnp.pad(x, ((1, 1), (0, 0)))))(x)
    with pytest.raises(IndexError, match="slicing the symbolic dimension 'b'"):
        fx.export(fe.jit(lambda x: x[1:]))(x)
    # library functions that need a constant size say which one, and the caller's line
    for fn, name in [(lambda x: fnp.roll(x, 1, axis=0), "frontend.numpy.roll"),
                     (lambda x: fnp.eye(x.shape[0]), "frontend.numpy.eye")]:
        with pytest.raises(fx.InconclusiveDimensionOperation) as err:
            fx.export(fe.jit(fn))(x)
        assert any(n.startswith(f"while tracing {name} (called at {__file__}:")
                   for n in err.value.__notes__), err.value.__notes__


def test_call_under_jit_and_vmap_refines_once_per_shape(exported):
    exp = fx.deserialize(exported.serialize())
    before = len(exp._callees)
    for n in (3, 1, 3):
        _check_outs(fe.jit(exp.call)(*_args(n)), _want(n))
    assert len(exp._callees) == before + 2  # (one refinement per distinct signature)
    xs, ys = zip(*(_args(3) for _ in range(2)), strict=True)
    got = fe.vmap(exp.call)(np.stack(xs), np.stack(ys))
    _check_outs([g[1] for g in got], _want(3))


def test_artifacts_cross_with_jax_both_ways(exported, jax_exported):
    theirs = jax.export.deserialize(exported.serialize(format="jax"))
    assert _dims(theirs.in_avals) == _dims(jax_exported.in_avals)
    ours = fx.deserialize(jax_exported.serialize())
    assert _dims(ours.out_avals) == _dims(exported.out_avals)
    args = _args(3)
    _check_outs(theirs.call(*args), _want(3))
    _check_outs(ours.call(*args), _want(3))


def test_symbolic_export_reloaded_in_a_fresh_process(exported, tmp_path):
    path = tmp_path / "model.vmaplab"
    path.write_bytes(exported.serialize())
    code = (
        "import sys, numpy as np\n"
        "from frontend.export import deserialize\n"
        "exp = deserialize(open(sys.argv[1], 'rb').read())\n"
        "assert str(exp.in_avals) == '(f32[b,16], f32[b,2])', exp.in_avals\n"
        "for n in (1, 3, 8):\n"
        "    x = np.sin(np.arange(n * 16, dtype=np.float32)).reshape(n, 16)\n"
        "    y = np.cos(np.arange(n * 2, dtype=np.float32)).reshape(n, 2)\n"
        "    outs = exp.call(x, y)\n"
        "    np.savez(f'{sys.argv[2]}/{n}.npz', *[np.asarray(o) for o in outs])\n")
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-c", code, str(path), str(tmp_path)],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    for n in (1, 3, 8):
        saved = np.load(tmp_path / f"{n}.npz")
        _check_outs([saved[f"arr_{i}"] for i in range(len(saved.files))], _want(n))


def test_grad_through_a_symbolic_export_equals_grad_of_the_original():
    def loss(np_):
        return lambda x: (np_.tanh(x @ W[:4]) ** 2).mean()
    spec = fe.ShapeDtypeStruct(fx.symbolic_shape("b, 4"), np.float32)
    exp = fx.export(fe.jit(loss(fnp)))(spec)
    reloaded = fx.deserialize(exp.serialize(vjp_order=1))
    theirs = jax.export.deserialize(exp.serialize(format="jax", vjp_order=1))
    for n in (2, 5):
        x = np.arange(n * 4, dtype=np.float32).reshape(n, 4) / 10
        want = jax.grad(loss(jnp))(x)
        for call in (exp.call, reloaded.call):
            np.testing.assert_allclose(fe.grad(call)(x), want, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(jax.grad(theirs.call)(x), want, rtol=1e-5, atol=1e-7)
    inside = fx.export(fe.jit(fe.grad(loss(fnp))))(spec)  # (grad inside the export too)
    np.testing.assert_allclose(inside.call(x), want, rtol=1e-5, atol=1e-7)


def test_more_operations_on_a_symbolic_batch_equal_the_plain_call():
    """argmax (an iota of the symbolic shape), zeros_like/ones/full of the symbolic shape,
    integer indexing of the symbolic axis, sort and cumsum along a static axis."""
    def f(x):
        return (fnp.argmax(x, axis=1), fnp.zeros_like(x) + 1, fnp.ones(x.shape) * x,
                fnp.full((x.shape[0], 2), 3.0), x[0] + x[-1], fnp.sort(x, axis=0),
                fnp.cumsum(x, axis=1))
    exp = fx.export(fe.jit(f))(fe.ShapeDtypeStruct(fx.symbolic_shape("b, 5"), np.float32))
    x = np.random.default_rng(0).normal(size=(4, 5)).astype(np.float32)
    _check_outs(exp.call(x), fe.jit(f)(x))


def test_symbolic_args_specs_and_is_symbolic_dim_as_jax():
    args = {"x": np.ones((3, 4), np.float32), "y": np.ones((3,), np.int32)}
    specs = {"x": "b, _", "y": "b"}
    ours = fx.symbolic_args_specs(args, specs, constraints=("b >= 2",))
    theirs = jax.export.symbolic_args_specs(args, specs, constraints=("b >= 2",))
    for k in args:
        assert [str(d) for d in ours[k].shape] == [str(d) for d in theirs[k].shape]
        assert ours[k].dtype == theirs[k].dtype
    assert ours["x"].shape[0] == ours["y"].shape[0] and ours["x"].shape[0] >= 2
    assert fx.is_symbolic_dim(ours["x"].shape[0]) and not fx.is_symbolic_dim(4)
    assert jax.export.is_symbolic_dim(theirs["x"].shape[0])
    exp = fx.export(fe.jit(lambda a: a["x"].sum(1) * a["y"]))(ours)
    np.testing.assert_allclose(exp.call({"x": np.ones((5, 4), np.float32),
                                         "y": np.arange(5, dtype=np.int32)}),
                               4 * np.arange(5, dtype=np.float32))


def test_embedding_lookup_of_a_symbolic_batch_of_ids():
    table = np.arange(20, dtype=np.float32).reshape(10, 2)
    exp = fx.export(fe.jit(lambda ids: fnp.asarray(table)[ids] * 2))(
        fe.ShapeDtypeStruct(fx.symbolic_shape("b"), np.int32))
    ids = np.array([1, 3, 5, 9], np.int32)
    np.testing.assert_allclose(exp.call(ids), table[ids] * 2)
