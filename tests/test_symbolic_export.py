"""Differentiable artifacts: ``serialize(vjp_order=n)`` and grad/vjp through
``Exported.call`` for vmaplab's artifacts and JAX's (both ways), against the gradients of the
original function and JAX's; forward mode refused as JAX refuses it; a fresh process
differentiates a reloaded artifact. (Shape-polymorphic export, ``symbolic_shape``, is
tested in tests/test_shape_poly.py: docs/testbed.md, section 12.)"""
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import frontend as fe
import frontend.numpy as fnp
from frontend.export import deserialize, export

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
X = np.linspace(-1, 1, 6).astype(np.float32).reshape(2, 3)
W = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5) / 7


def _f(np_mod):
    def f(x, w, n):
        return (np_mod.tanh(x @ w) ** 2).sum() * n.astype(x.dtype)
    return f


N = np.int32(3)


@pytest.fixture(scope="module")
def exported():
    return export(fe.jit(_f(fnp)))(X, W, N)


def test_grad_through_exported_equals_grad_of_original(exported):
    want = fe.grad(_f(fnp), argnums=(0, 1))(X, W, N)
    for exp in (exported, deserialize(exported.serialize(vjp_order=1))):
        got = fe.grad(exp.call, argnums=(0, 1))(X, W, N)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
        got = fe.jit(fe.grad(exp.call))(X, W, N)
        np.testing.assert_allclose(got, want[0], rtol=1e-5, atol=1e-6)
        out, pullback = fe.vjp(lambda x, exp=exp: exp.call(x, W, N), X)
        np.testing.assert_allclose(pullback(np.float32(1))[0], want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(want[0], jax.grad(_f(jnp))(X, W, N), rtol=1e-5, atol=1e-6)


def test_second_order_through_vjp_order_2(exported):
    exp2 = deserialize(exported.serialize(vjp_order=2))
    assert exp2.has_vjp() and exp2.vjp().has_vjp()
    assert not exp2.vjp().vjp().has_vjp()

    def second(call):
        return fe.grad(lambda x: (fe.grad(call)(x, W, N) ** 2).sum())(X)
    np.testing.assert_allclose(second(exp2.call), second(_f(fnp)), rtol=1e-4, atol=1e-5)
    exp1 = deserialize(exported.serialize(vjp_order=1))
    with pytest.raises(ValueError, match="No VJP is available"):
        second(exp1.call)


def test_without_vjp_reverse_mode_fails_as_jax_and_forward_mode_too(exported):
    exp0 = deserialize(exported.serialize())
    assert not exp0.has_vjp()
    with pytest.raises(ValueError, match="No VJP is available.*vjp_order=1"):
        fe.grad(exp0.call)(X, W, N)
    jexp = jax.export.deserialize(jax.export.export(jax.jit(_f(jnp)))(X, W, N).serialize())
    with pytest.raises(ValueError, match="No VJP is available"):
        jax.grad(jexp.call)(X, W, N)
    for call, jvp in ((exported.call, fe.jvp), (jexp.call, jax.jvp)):
        with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
            jvp(lambda x, call=call: call(x, W, N), (X,), (X,))
    with pytest.raises(ValueError, match="vjp_order must be a non-negative int"):
        exported.serialize(vjp_order=-1)


def test_jax_artifacts_with_vjp_are_differentiated():
    jexp = jax.export.export(jax.jit(_f(jnp)))(X, W, N)
    ours = deserialize(jexp.serialize(vjp_order=1))
    assert ours.has_vjp()
    np.testing.assert_allclose(fe.grad(ours.call, argnums=1)(X, W, N),
                               jax.grad(_f(jnp), argnums=1)(X, W, N), rtol=1e-5, atol=1e-6)


def test_our_artifacts_in_jax_format_carry_the_vjp(exported):
    theirs = jax.export.deserialize(exported.serialize(format="jax", vjp_order=2))
    assert theirs.has_vjp() and theirs.vjp().has_vjp()
    np.testing.assert_allclose(jax.grad(theirs.call)(X, W, N), jax.grad(_f(jnp))(X, W, N),
                               rtol=1e-5, atol=1e-6)


def test_a_corrupt_vjp_size_is_refused(exported):
    import hashlib
    import json
    import struct

    from frontend.export import MAGIC
    blob = bytes(exported.serialize(vjp_order=1))
    body = blob[len(MAGIC) + 32:]
    (n,) = struct.unpack(">I", body[:4])
    header = json.loads(body[4:4 + n])
    header["vjp_bytes"] = 10 ** 9
    h = json.dumps(header, sort_keys=True).encode()
    body = struct.pack(">I", len(h)) + h + body[4 + n:]
    with pytest.raises(ValueError, match="corrupt artifact: vjp_bytes"):
        deserialize(MAGIC + hashlib.sha256(body).digest() + body)


def test_fresh_process_differentiates_the_reloaded_artifact(exported, tmp_path):
    path = tmp_path / "f.vmaplab"
    path.write_bytes(exported.serialize(vjp_order=1))
    code = (
        "import sys, numpy as np, frontend as fe\n"
        "from frontend.export import deserialize\n"
        "exp = deserialize(open(sys.argv[1], 'rb').read())\n"
        "x = np.linspace(-1, 1, 6).astype(np.float32).reshape(2, 3)\n"
        "w = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5) / 7\n"
        "g = fe.grad(exp.call)(x, w, np.int32(3))\n"
        "np.save(sys.argv[2], np.asarray(g))\n")
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-c", code, str(path), str(tmp_path / "g.npy")],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    np.testing.assert_allclose(np.load(tmp_path / "g.npy"), fe.grad(_f(fnp))(X, W, N),
                               rtol=1e-5, atol=1e-6)


def _cli(tmp_path, *argv):
    script = tmp_path / "model.py"
    script.write_text(
        "import frontend.numpy as fnp\n"
        "def layer(x, params, act):\n"
        "    y = x @ params['w'] + params['b']\n"
        "    return fnp.tanh(y) if act == 'tanh' else y\n")
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-m", "lowering.cli", *argv], capture_output=True,
                          text=True, timeout=300, env=env, cwd=tmp_path)


def test_cli_dump_takes_pytree_and_static_arguments(tmp_path):
    args = ["--arg", "f32[8,3]", "--arg", "{'w': f32[3,4], 'b': f32[4]}"]
    r = _cli(tmp_path, "dump", "model.py:layer", *args, "--arg", "static:'tanh'",
             "--stage", "stablehlo")
    assert r.returncode == 0, r.stderr
    assert "stablehlo.tanh" in r.stdout and "tensor<8x4xf32>" in r.stdout
    r = _cli(tmp_path, "dump", "model.py:layer", *args, "--arg", "static:'linear'")
    assert r.returncode == 0 and "stablehlo.tanh" not in r.stdout
    r = _cli(tmp_path, "check", "model.py:layer", *args, "--arg", "static:'tanh'",
             "--vmap", "0,None")
    assert r.returncode == 0, r.stderr
    for bad, msg in (("{'w': f32[3,4], 'b': 3}", "a pytree holds only specs"),
                     ("static:[1]", "bad static argument"), ("{'w': }", "bad argument spec")):
        r = _cli(tmp_path, "dump", "model.py:layer", "--arg", "f32[8,3]", "--arg", bad)
        assert r.returncode == 2 and msg in r.stderr, r.stderr
