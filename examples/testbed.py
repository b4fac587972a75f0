"""The compiler-testbed tour of docs/testbed.md: write a graph pass, run it in a pipeline, see
the StableHLO before and after, run an MLIR pipeline and a Python rewrite pattern, compile a
hand-edited module, compare XLA with the reference interpreter, export a portable artifact.

    python examples/testbed.py
    vmaplab dump examples/testbed.py:mlp --arg f32[8,3] --arg f32[3,4] --arg f32[4] \\
        --vmap 0,None,None --passes strength_reduce,cse,dce --stage all --out dump/ --dot
"""
import numpy as np

import frontend as fe
import frontend.numpy as fnp
from frontend import export
from frontend import passes as P
from frontend.core.ir import Eqn
from frontend.primitives import elementwise as ew


def mlp(x, w, b):
    """One example: x is (3,), w (3, 4), b (4,)."""
    h = fnp.tanh(x @ w + b)
    return 2.0 * fnp.sum(h ** 2.0) + fnp.sum(h ** 2.0)   # the same sum twice: work for cse


# 1. A graph pass from a local rule: pow(x, 2.0) -> x * x (XLA's algebraic simplifier does the
#    same, so the numbers do not change). A rule returns None (no match), a new equation with
#    the same outputs, or the atoms the outputs become.
def square(e, rw):
    if e.prim is ew.pow_p and rw.scalar(e.inputs[1]) == 2.0 and e.inputs[0].aval == e.outs[0].aval:
        x = e.inputs[0]
        return Eqn(ew.mul_p, (x, x), {}, e.outs)
    return None


strength_reduce = P.register_pass(P.rewrite_pass(square, name="strength_reduce"))  # by name too

if __name__ == "__main__":
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(8, 3)).astype(np.float32)
    w = rng.normal(size=(3, 4)).astype(np.float32)
    b = rng.normal(size=4).astype(np.float32)
    f = fe.vmap(mlp, in_axes=(0, None, None))

    # 2. The pipeline: per-pass statistics and the graph after each pass
    pipeline = P.Pipeline([strength_reduce, "cse", "simplify", "dce"], keep_graphs=True)
    res = pipeline.run(fe.make_graph(f, passes=())(xs, w, b))
    print("== graph passes ==")
    print(res.report())
    print(res.graph)
    assert not any(e.prim is ew.pow_p for e in res.graph.eqns)

    # 3. StableHLO before and after
    before = fe.jit(f, passes=()).lower(xs, w, b)
    after = fe.jit(f, passes=pipeline).lower(xs, w, b)
    for name, lo in (("before", before), ("after", after)):
        t = lo.as_text()
        print(f"{name}: {t.count('stablehlo.power')} power, {t.count('stablehlo.multiply')} "
              f"multiply, {t.count('stablehlo.reduce(')} reduce")
    assert "stablehlo.power" in before.as_text() and "stablehlo.power" not in after.as_text()

    # 4. An MLIR pipeline (jaxlib's MLIR) on the module; the result compiles and runs
    canon = after.apply_passes("builtin.module(canonicalize,cse)")
    ref = fe.jit(f)(xs, w, b)
    np.testing.assert_allclose(canon.compile()(xs, w, b), ref, rtol=1e-5)

    # 5. A Python rewrite pattern (MLIR's greedy driver): 2.0 * s -> s + s
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import stablehlo

    def splat_value(v):
        """The value of a splat constant (seen through broadcast_in_dim), else None."""
        op = v.owner
        while isinstance(op, ir.OpView) and op.operation.name == "stablehlo.broadcast_in_dim":
            op = op.operands[0].owner
        if not (isinstance(op, ir.OpView) and op.operation.name == "stablehlo.constant"):
            return None
        value = op.attributes["value"]
        return float(value.get_splat_value().value) if value.is_splat else None

    def times_two(op, rewriter):
        lhs, rhs = op.operands
        if splat_value(lhs) != 2.0:
            return False
        with ir.InsertionPoint(op), op.location:
            rewriter.replace_op(op, stablehlo.AddOp(rhs, rhs).operation)
        return True

    rewritten = after.apply_patterns([("stablehlo.multiply", times_two)])
    print("\n== after the rewrite pattern (the constant 2.0 is gone) ==")
    print(rewritten.as_text())
    assert "2.000000e+00" not in rewritten.as_text()
    np.testing.assert_allclose(rewritten.compile()(xs, w, b), ref, rtol=1e-5)

    # 6. Compile a hand-edited module: tanh -> logistic
    edited = after.as_text().replace("stablehlo.tanh", "stablehlo.logistic")
    g = fe.compile_stablehlo(edited)
    h = 1 / (1 + np.exp(-(xs @ w + b)))
    np.testing.assert_allclose(g(xs, w, b), 3 * (h ** 2).sum(1), rtol=1e-5)

    # 7. XLA against the StableHLO reference interpreter
    interp = fe.jit(f, passes=pipeline, device="interpreter")(xs, w, b)
    print("\nXLA vs reference interpreter, max abs diff:",
          float(np.max(np.abs(np.asarray(interp) - np.asarray(ref)))))
    np.testing.assert_allclose(interp, ref, rtol=1e-5)

    # 8. A portable artifact, read back and called (under vmap too: one example at a time)
    exp = export.export(fe.jit(mlp))(xs[0], w, b)
    blob = exp.serialize(target_version="1.10.0")
    back = export.deserialize(blob)
    print(f"\nexported {back}: {len(blob)} bytes")
    np.testing.assert_allclose(fe.vmap(back.call, in_axes=(0, None, None))(xs, w, b), ref,
                               rtol=1e-5)
    print("all stages agree")
