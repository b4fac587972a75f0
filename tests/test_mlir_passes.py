"""The MLIR level of the testbed: Lowered.compiler_ir, MLIR pass pipelines
(Lowered.apply_passes), Python rewrite patterns, compile_stablehlo of hand-written modules,
and the callable Compiled."""
import numpy as np
import pytest
from harness import verify

import frontend as fe
import frontend.numpy as fnp
from lowering import backend

F32 = np.float32
X = np.linspace(-1, 1, 12, dtype=F32).reshape(3, 4)
W = np.linspace(0, 2, 20, dtype=F32).reshape(4, 5)


def model(x, w):
    return fnp.tanh(x @ w) + (x @ w) * (fnp.full((), 2.0) * 3.0), fnp.sum(x)


@pytest.fixture(scope="module")
def lowered():
    return fe.jit(model, passes=()).lower(X, W)


@pytest.fixture(scope="module")
def expected():
    return fe.jit(model)(X, W)


def test_compiler_ir_is_a_parsed_module(lowered):
    from jaxlib.mlir import ir
    m = lowered.compiler_ir("stablehlo")
    assert isinstance(m, ir.Module)
    names = [op.operation.name for op in m.body.operations]
    assert names == ["func.func"] and "stablehlo.dot_general" in str(m)
    assert lowered.compiler_ir() is not m  # a fresh module each time: edits stay local
    with pytest.raises(ValueError, match="compiler_ir: unknown dialect 'hlo'"):
        lowered.compiler_ir("hlo")


@pytest.mark.parametrize("pipeline,absent", [
    ("builtin.module(canonicalize,cse)", None),
    ("cse", "dot_general.*dot_general"),            # the repeated x @ w is computed once
    ("inline,symbol-dce", None),
    ("stablehlo-legalize-to-hlo,canonicalize,hlo-legalize-to-stablehlo", "3.0"),
    ("func.func(chlo-legalize-to-stablehlo)", None),
    ("stablehlo-refine-shapes", None),
])
def test_apply_passes_gives_modules_that_verify_and_run(lowered, expected, pipeline, absent):
    import re
    lo = lowered.apply_passes(pipeline)
    text = lo.as_text()
    verify(text)
    if absent:
        assert re.search(absent, lowered.as_text(), re.S) and not re.search(absent, text, re.S)
    got = lo.compile()(X, W)
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_mhlo_round_trip_folds_constants(lowered):
    # 2.0 * 3.0 is folded by the MHLO canonicalizer; StableHLO's canonicalize leaves it
    assert "dense<6.000000e+00>" not in lowered.apply_passes("canonicalize").as_text()
    text = lowered.apply_passes("stablehlo-legalize-to-hlo,canonicalize,hlo-legalize-to-stablehlo").as_text()
    assert "dense<6.000000e+00>" in text


def test_linalg_prints_but_does_not_compile(lowered):
    lo = lowered.apply_passes("stablehlo-legalize-to-linalg")
    assert "linalg.generic" in lo.as_text() and "stablehlo." not in lo.as_text()
    with pytest.raises(ValueError, match=r"ops XLA cannot compile \(.*linalg"):
        lo.compile()


def test_every_listed_mlir_pass_runs(lowered):
    for name, _ in backend.MLIR_PASSES:
        verify(lowered.apply_passes(name).as_text()) if "linalg" not in name else \
            lowered.apply_passes(name)


def test_bad_pipelines(lowered):
    with pytest.raises(ValueError, match="bad MLIR pass pipeline 'builtin.module\\(no-such-pass\\)'"):
        lowered.apply_passes("no-such-pass")
    with pytest.raises(ValueError, match="bad MLIR pass pipeline.*did you intend to nest"):
        lowered.apply_passes("chlo-legalize-to-stablehlo")
    with pytest.raises(ValueError, match="an MLIR pass pipeline is a non-empty string"):
        lowered.apply_passes("")


def test_python_rewrite_pattern(lowered):
    """neg(neg(x)) -> x with jaxlib's greedy pattern driver."""
    from jaxlib.mlir import ir

    def double_negation(op, rewriter):
        inner = op.operands[0].owner
        if not isinstance(inner, ir.OpView) or inner.operation.name != "stablehlo.negate":
            return False
        rewriter.replace_op(op, [inner.operands[0]])
        return True

    lo = fe.jit(lambda x: -(-x) * 2.0, passes=()).lower(X)
    assert lo.as_text().count("stablehlo.negate") == 2
    lo2 = lo.apply_patterns([("stablehlo.negate", double_negation)])
    assert "stablehlo.negate" not in lo2.as_text()
    np.testing.assert_array_equal(lo2.compile()(X), X * 2)


HAND_WRITTEN = """
func.func @main(%x: tensor<3xf32>, %n: tensor<i32>) -> (tensor<3xf32>, tensor<i32>) {
  %two = stablehlo.constant dense<2.0> : tensor<3xf32>
  %0 = stablehlo.multiply %x, %two : tensor<3xf32>
  %1 = stablehlo.add %n, %n : tensor<i32>
  return %0, %1 : tensor<3xf32>, tensor<i32>
}
"""


def test_compile_stablehlo_runs_a_hand_written_module():
    f = fe.compile_stablehlo(HAND_WRITTEN)
    y, m = f(np.arange(3, dtype=F32), 5)
    assert isinstance(y, fe.Array) and y.tolist() == [0.0, 2.0, 4.0] and int(m) == 10
    assert [a.str_short() for a in f.in_avals] == ["f32[3]", "i32[]"]
    assert "HloModule" in f.as_text()
    # the interpreter runs the same text
    yi, mi = fe.compile_stablehlo(HAND_WRITTEN, device="interpreter")(np.arange(3, dtype=F32), 5)
    assert yi.tolist() == [0.0, 2.0, 4.0] and int(mi) == 10
    # one result: an Array, not a tuple
    one = fe.compile_stablehlo("func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {\n"
                               "  return %x : tensor<2xi32>\n}")
    assert one(np.array([4, 5], np.int32)).tolist() == [4, 5]


def test_compile_stablehlo_of_an_edited_module(lowered, expected):
    """compiler_ir -> compile_stablehlo, and an edit of the text (tanh -> sine)."""
    m = lowered.compiler_ir()
    for a, b in zip(fe.compile_stablehlo(m)(X, W), expected, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    edited = str(m).replace("stablehlo.tanh", "stablehlo.sine")
    y, s = fe.compile_stablehlo(edited)(X, W)
    np.testing.assert_allclose(y, np.sin(X @ W) + (X @ W) * 6, rtol=1e-5)


@pytest.mark.parametrize("text,err,match", [
    ("func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {\n  return %x : tensor<3xf32>\n}",
     ValueError, "no function @main"),
    ("func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {\n  return %x : tensor<?xf32>\n}",
     ValueError, "argument 0 has type tensor<\\?xf32>: only tensors of static shape"),
    ("func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {\n  %0 = stablehlo.add %x, %x : "
     "tensor<4xf32>\n  return %0 : tensor<3xf32>\n}", ValueError, "tensor<4xf32>"),
    ("not mlir", ValueError, "custom op 'not' is unknown|expected"),
])
def test_compile_stablehlo_bad_modules(text, err, match):
    with pytest.raises(err, match=match):
        fe.compile_stablehlo(text)


def test_compile_stablehlo_checks_arguments():
    f = fe.compile_stablehlo(HAND_WRITTEN)
    with pytest.raises(TypeError, match="Argument 0 compiled with f32\\[3\\] and called with f32\\[4\\]"):
        f(np.ones(4, F32), 1)
    with pytest.raises(TypeError, match="Argument 1 compiled with i32\\[\\] and called with f32\\[\\]"):
        f(np.ones(3, F32), np.float32(1))
    with pytest.raises(TypeError, match="input pytree"):
        f(np.ones(3, F32))
    with pytest.raises(TypeError, match="not a valid JAX type|abstract array"):
        f(np.ones(3, F32), "x")
    with pytest.raises(TypeError, match="a Compiled function takes arrays, not traced values"):
        fe.jit(lambda x: f(x, 1))(np.ones(3, F32))



F64_MODULE = """func.func @main(%x: tensor<2xf64>, %s: tensor<f64>) -> tensor<2xf64> {
  %0 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f64>) -> tensor<2xf64>
  %1 = stablehlo.multiply %x, %0 : tensor<2xf64>
  return %1 : tensor<2xf64>
}"""


def test_compile_stablehlo_64_bit_modules():
    with pytest.raises(TypeError, match="64-bit arguments need 64-bit mode"):
        fe.compile_stablehlo(F64_MODULE)(np.array([1e300, 2.0]), 3)


def test_compile_stablehlo_64_bit_modules_x64(x64):
    y = fe.compile_stablehlo(F64_MODULE)(np.array([1e300, 2.0]), 3)  # a Python scalar too
    assert y.dtype == np.float64 and np.asarray(y).tolist() == [3e300, 6.0]


def test_lowered_compile_is_callable_with_the_dynamic_arguments():
    def f(x, k, *, d):
        return {"y": x * k + d["b"]}
    lo = fe.jit(f, static_argnums=1).lower(X, 3, d={"b": F32(1)})
    c = lo.compile()
    np.testing.assert_allclose(c(X, d={"b": F32(1)})["y"], X * 3 + 1, rtol=1e-6)
    with pytest.raises(TypeError, match="input pytree"):
        c(X, 3, d={"b": F32(1)})  # static arguments are left out, as in JAX
    with pytest.raises(TypeError, match="Argument types differ"):
        c(X[:2], d={"b": F32(1)})
