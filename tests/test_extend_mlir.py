"""The extension API: lowering rules built with jaxlib's MLIR Python bindings
(``frontend.extend.mlir``, JAX's rules ported with renames only: examples/port_jax_rule.py),
``Primitive.def_impl``, and the errors that name the primitive of a broken rule."""
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import frontend as fe
from frontend.extend import Primitive, ShapedArray, mlir

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples"))
import port_jax_rule as ported  # noqa: E402

X = np.linspace(-2, 2, 7).astype(np.float32)


@pytest.mark.parametrize("bits", [(5, 2), (8, 7), (5, 10)])
def test_ported_reduce_precision_matches_jax(bits):
    e, m = bits
    f = fe.jit(lambda x: ported.reduce_precision_p.bind(x, exponent_bits=e, mantissa_bits=m))
    want = jax.lax.reduce_precision(X, e, m)
    np.testing.assert_array_equal(f(X), want)
    np.testing.assert_array_equal(fe.vmap(f)(np.stack([X, 2 * X])),
                                  jax.vmap(lambda x: jax.lax.reduce_precision(x, e, m))(
                                      np.stack([X, 2 * X])))
    assert "stablehlo.reduce_precision" in f.lower(X).as_text()


@pytest.mark.parametrize("y", [1, 2, 3, -1])
def test_ported_integer_pow_matches_jax(y):
    f = fe.jit(lambda x: ported.integer_pow_p.bind(x, y=y))
    np.testing.assert_allclose(f(X + 3), jax.lax.integer_pow(jnp.asarray(X + 3), y), rtol=1e-6)


def test_example_script_runs():
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "port_jax_rule.py")],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "func.call @reduce_precision_mlir_rule_" in r.stdout


def test_builder_helpers_make_jaxs_constants():
    p = Primitive("select_const")
    p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
    hlo = mlir.hlo
    mlir.register_lowering(p, lambda ctx, x: [hlo.select(
        mlir.ir_constant(np.array([True, False, True])), x,
        mlir.full_like_aval(ctx, -1, ctx.avals_in[0]))])
    np.testing.assert_array_equal(fe.jit(p.bind)(np.arange(3, dtype=np.int32)), [0, -1, 2])
    with mlir.ir.Context(), mlir.ir.Location.unknown():
        assert str(mlir.aval_to_ir_type(ShapedArray((2, 3), np.dtype("float32")))) == \
            "tensor<2x3xf32>"


def test_broken_builder_rules_name_the_primitive():
    from lowering.runtime.mlir import StableHLOVerificationError
    p = Primitive("bad_broadcast")
    p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
    hlo = mlir.hlo
    # a broadcast of a rank-1 operand with no dims: the verifier rejects it
    mlir.register_lowering(p, lambda ctx, x: [hlo.broadcast_in_dim(
        mlir.aval_to_ir_type(ctx.avals_out[0]), x, [])])
    with pytest.raises(StableHLOVerificationError,
                       match="the MLIR lowering rule of primitive 'bad_broadcast' built ops"):
        fe.jit(p.bind)(X)
    q = Primitive("bad_type")
    q.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(q, lambda ctx, x: [hlo.convert(
        mlir.aval_to_ir_type(ShapedArray(x.type.shape, np.dtype("int32"))), x)])
    with pytest.raises(TypeError, match="rule of primitive 'bad_type' returned values of types"):
        fe.jit(q.bind)(X)


def test_def_impl_runs_eagerly_and_the_lowering_under_jit():
    calls = []
    p = Primitive("double")
    p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
    p.def_impl(lambda x: calls.append(1) or fe.device_put(np.asarray(x) * 2))
    mlir.register_lowering(p, lambda ctx, x: [mlir.hlo.add(x, x)])
    np.testing.assert_array_equal(p.bind(X), X * 2)
    assert calls == [1]
    np.testing.assert_array_equal(fe.jit(p.bind)(X), X * 2)
    assert calls == [1]  # (traced and compiled: the impl is not called)


def test_text_rules_with_unknown_ops_name_the_primitive_at_compile():
    p = Primitive("sinee")
    p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
    p.def_lowering(lambda ctx, x: ctx.op(f"stablehlo.sinee {x} : {ctx.type(ctx.avals_in[0])}"))
    with pytest.raises(Exception, match="primitive 'sinee', made at .*test_extend_mlir.py"):
        fe.jit(lambda x: p.bind(x)).lower(X).compile()
