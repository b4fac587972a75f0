"""Portable artifacts (frontend.export, shaped like JAX's export): export -> serialize ->
deserialize in a fresh process -> call; target versions; wrong-version and corrupt
artifacts; calling under jit and vmap; JAX's export format both ways."""
import collections
import hashlib
import importlib.util
import os
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import frontend as fe
import frontend.numpy as fnp
from frontend import export as fx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
F32 = np.float32
X = np.linspace(-1, 1, 12, dtype=F32).reshape(4, 3)
W = np.linspace(0, 1, 6, dtype=F32).reshape(3, 2)


def f(x, params, scale=1.0):
    h = fnp.tanh(x @ params["w"]) * scale
    return {"h": h, "s": fnp.sum(h, axis=0)}


@pytest.fixture(scope="module")
def exported():
    return fx.export(fe.jit(f))(X, {"w": W}, scale=2.0)


def test_exported_describes_the_function(exported):
    assert exported.fun_name == "f" and exported.platforms == ("cpu",)
    assert [a.str_short() for a in exported.in_avals] == ["f32[4,3]", "f32[3,2]", "f32[]"]
    assert exported.in_avals[2].weak_type  # the Python scalar keyword
    assert [a.str_short() for a in exported.out_avals] == ["f32[4,2]", "f32[2]"]
    assert str(exported.in_tree) == "((*, {'w': *}), {'scale': *})"
    assert str(exported.out_tree) == "{'h': *, 's': *}"
    assert "func.func public @main" in exported.mlir_module()
    assert exported.mlir_module_serialized[:4] == b"ML\xefR"
    assert exported.nr_devices == 1 and exported.module_kept_var_idx == (0, 1, 2)


def test_serialize_deserialize_in_a_fresh_process(exported, tmp_path):
    want = exported.call(X, {"w": W}, scale=3.0)
    ref = f(X, {"w": W}, scale=3.0)
    np.testing.assert_allclose(want["h"], ref["h"], rtol=1e-6)
    (tmp_path / "f.vmaplab").write_bytes(exported.serialize())
    with_jax = importlib.util.find_spec("flatbuffers") is not None  # JAX's format needs it
    if with_jax:
        (tmp_path / "f.jax").write_bytes(exported.serialize(format="jax"))
    np.save(tmp_path / "x.npy", X)
    np.save(tmp_path / "w.npy", W)
    script = textwrap.dedent("""
        import sys, numpy as np
        from frontend import export
        d = sys.argv[1]
        x, w = np.load(d + "/x.npy"), np.load(d + "/w.npy")
        exp = export.deserialize(open(d + "/f.vmaplab", "rb").read())
        out = exp.call(x, {"w": w}, scale=3.0)
        jout = out
        if len(sys.argv) > 2:
            import jax
            jexp = jax.export.deserialize(bytearray(open(d + "/f.jax", "rb").read()))
            jout = jexp.call(x, {"w": w}, scale=3.0)
        np.savez(d + "/out.npz", h=out["h"], s=out["s"], jh=jout["h"], js=jout["s"],
                 weak=exp.in_avals[2].weak_type)
    """)
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-c", script, str(tmp_path)] + ["jax"] * with_jax,
                       capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    out = np.load(tmp_path / "out.npz")
    for k, kj in (("h", "jh"), ("s", "js")):
        np.testing.assert_array_equal(out[k], want[k])   # the same module on the same XLA
        np.testing.assert_array_equal(out[kj], want[k])  # JAX runs our artifact too
    assert bool(out["weak"])


def test_target_versions(exported):
    lo, hi = fx.stablehlo_versions()
    assert lo == "0.9.0" and hi.count(".") == 2
    blob = exported.serialize(target_version="1.10.0")
    assert b"StableHLO_v1.10.0" in blob
    back = fx.deserialize(blob)
    np.testing.assert_array_equal(back.call(X, {"w": W}, scale=2.0)["s"],
                                  exported.call(X, {"w": W}, scale=2.0)["s"])
    with pytest.raises(ValueError, match=r"StableHLO version 9.0.0 is outside the versions this "
                                         r"jaxlib reads and writes \(0.9.0 to"):
        exported.serialize(target_version="9.0.0")
    with pytest.raises(ValueError, match="a StableHLO version is a string 'MAJOR.MINOR.PATCH'"):
        exported.serialize(target_version="latest")
    with pytest.raises(ValueError, match="unknown export format 'onnx'"):
        exported.serialize(format="onnx")


def _rewrap(blob: bytes, body_edit) -> bytes:
    """Edit the body of a vmaplab artifact and fix its checksum."""
    n = len(fx.MAGIC)
    body = body_edit(blob[n + 32:])
    return fx.MAGIC + hashlib.sha256(body).digest() + body


def test_wrong_version_and_corrupt_artifacts_are_clear_errors(exported):
    blob = bytes(exported.serialize())
    newer = _rewrap(blob, lambda b: b.replace(b'"format_version": 1', b'"format_version": 7'))
    with pytest.raises(ValueError, match="export format version 7; this vmaplab reads versions 1 to 3"):
        fx.deserialize(newer)
    future = _rewrap(blob, lambda b: b.replace(b"StableHLO_v" + fx.stablehlo_versions()[1].encode(),
                                               b"StableHLO_v9.99.0"))
    with pytest.raises(ValueError, match="written for StableHLO 9.99.0; this jaxlib reads 0.9.0 to"):
        fx.deserialize(future)
    flipped = bytearray(blob)
    flipped[-40] ^= 0xFF
    with pytest.raises(ValueError, match="corrupt vmaplab export artifact: checksum mismatch"):
        fx.deserialize(bytes(flipped))
    with pytest.raises(ValueError, match="corrupt artifact: unreadable header"):
        fx.deserialize(blob[:len(fx.MAGIC) + 20])
    not_ours = "not (an artifact of vmaplab's export nor of JAX's|a vmaplab export artifact)"
    with pytest.raises(ValueError, match=not_ours):
        fx.deserialize(b"\x00garbage" * 5)
    with pytest.raises(TypeError, match="deserialize expects bytes, got str"):
        fx.deserialize("abc")
    # a header that does not match its module
    lying = _rewrap(blob, lambda b: b.replace(b'[[4, 3], "float32"', b'[[5, 3], "float32"'))
    with pytest.raises(ValueError, match="the artifact's module does not match its header"):
        fx.deserialize(lying)


def test_call_eagerly_under_jit_and_under_vmap(exported):
    back = fx.deserialize(exported.serialize())
    xs = np.stack([X * k for k in (1.0, -0.5, 2.0)])
    call = lambda x, w: back.call(x, {"w": w}, scale=2.0)["s"]
    loop = np.stack([np.asarray(call(x, W)) for x in xs])
    batched = fe.jit(fe.vmap(call, in_axes=(0, None)))(xs, W)
    np.testing.assert_allclose(batched, loop, rtol=1e-6)
    # vmap runs the exported module once per example in a loop (sequentially)
    g = fe.make_graph(fe.vmap(call, in_axes=(0, None)))(xs, W)
    assert [e.prim.name for e in g.eqns] == ["scan"]
    text = fe.jit(fe.vmap(call, in_axes=(0, None))).lower(xs, W).as_text()
    assert "stablehlo.while" in text and "func.call @__vmaplab_exported" in text
    np.testing.assert_allclose(fe.jit(call)(X, W), call(X, W), rtol=1e-6)
    np.testing.assert_allclose(fe.jit(call, device="interpreter")(X, W), call(X, W), rtol=1e-6)


def test_call_checks_its_arguments(exported):
    with pytest.raises(TypeError, match=r"Function f was exported for argument types "
                                        r"\['f32\[4,3\]', 'f32\[3,2\]', 'f32\[\]'\], called with"):
        exported.call(X[:2], {"w": W}, scale=2.0)
    with pytest.raises(TypeError, match="was exported for an input pytree"):
        exported.call(X, W, scale=2.0)
    with pytest.raises(TypeError, match="Function to be exported must be the result of `jit`"):
        fx.export(f)
    with pytest.raises(ValueError, match=r"exported for platforms '\('tpu',\)' but it is used"):
        fx.export(fe.jit(f), platforms=("tpu",))(X, {"w": W}, scale=2.0).call(X, {"w": W}, scale=2.0)


def test_static_arguments_are_baked_in():
    g = lambda x, n: x * n
    exp = fx.export(fe.jit(g, static_argnums=1))(X, 3)
    assert len(exp.in_avals) == 1
    np.testing.assert_allclose(fx.deserialize(exp.serialize()).call(X), X * 3)


Pair = collections.namedtuple("Pair", "a b")


def test_namedtuples_need_registration():
    exp = fx.export(fe.jit(lambda p: Pair(p.a + 1, p.b)))(Pair(X, W))
    with pytest.raises(ValueError, match="register it with frontend.export.register_namedtuple"):
        exp.serialize()
    fx.register_namedtuple_serialization(Pair, serialized_name="tests.Pair")
    out = fx.deserialize(exp.serialize()).call(Pair(X, W))
    assert isinstance(out, Pair)
    np.testing.assert_allclose(out.a, X + 1)


def test_reading_a_jax_export_artifact():
    pytest.importorskip("flatbuffers")

    def jf(x, d):
        return jnp.sin(x) @ d["w"], jnp.max(x)
    jexp = jax.export.export(jax.jit(jf))(X, {"w": W})
    ours = fx.deserialize(jexp.serialize())
    assert ours.fun_name == "jf" and str(ours.in_tree) == "((*, {'w': *}), {})"
    got = ours.call(X, {"w": W})
    want = jf(X, {"w": W})
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    # and under our vmap
    xs = np.stack([X, -X])
    got = fe.vmap(lambda x: ours.call(x, {"w": W})[1])(xs)
    np.testing.assert_allclose(got, [X.max(), (-X).max()])


def test_large_closed_over_constants_stay_inside_the_artifact():
    """jit hoists constants above embedded_constants_max_bytes to @main's arguments; an
    artifact is called with the function's arguments only, so its module holds them."""
    old = fe.config.embedded_constants_max_bytes
    fe.config.update("embedded_constants_max_bytes", 256)
    try:
        w = np.random.default_rng(1).normal(size=(16, 16)).astype(np.float32)
        f = fe.jit(lambda x: fnp.tanh(x @ w))
        x = np.ones((3, 16), np.float32)
        assert "%arg1" in f.lower(x).as_text()          # hoisted for jit
        exp = fx.deserialize(fx.export(f)(x).serialize())
        assert "%arg1" not in exp.mlir_module()
        np.testing.assert_allclose(np.asarray(exp.call(x)), np.tanh(x @ w), rtol=1e-5, atol=1e-5)
    finally:
        fe.config.update("embedded_constants_max_bytes", old)


def test_differentiating_an_exported_call_is_jax_error(exported):
    """As JAX's Exported.call of an artifact without a VJP (a custom_vjp function): forward
    mode is JAX's custom_vjp TypeError, reverse mode JAX's "No VJP is available"; derivatives
    with respect to other values than the call's arguments are unaffected."""
    back = fx.deserialize(exported.serialize())
    call = lambda x: back.call(x, {"w": W}, scale=2.0)["s"]  # noqa: E731
    with pytest.raises(TypeError, match=r"can't apply forward-mode autodiff \(jvp\) to a "
                                        r"custom_vjp function"):
        fe.jvp(call, (X,), (X,))
    with pytest.raises(ValueError, match="No VJP is available"):
        fe.jit(fe.grad(lambda x: fnp.sum(call(x))))(X)
    g = fe.grad(lambda s: fnp.sum(call(X) * s))(np.float32(2.0))
    np.testing.assert_allclose(g, np.sum(np.asarray(call(X))), rtol=1e-6)
