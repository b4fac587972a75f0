"""Graph passes (frontend.passes): what each built-in pass removes, pipelines and their
statistics, jit(passes=...), user rewrite rules, Graphviz output, and semantics preservation
on the fuzzer's programs (each pass on and off give the same results)."""
import functools
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fuzz import Chooser, generate
from fuzz.run import _nest, compare, make_args

import frontend as fe
import frontend.numpy as fnp
from frontend import lax
from frontend import passes as P
from frontend.core.ir import Eqn, Graph, eval_graph
from frontend.primitives import elementwise as ew

F32 = np.float32
X = np.arange(12, dtype=F32).reshape(3, 4) / 7
W = (np.arange(20, dtype=F32).reshape(4, 5) - 9) / 5


def graph(f, *args):
    return fe.make_graph(f, passes=())(*args)


def prims(g: Graph) -> list:
    return [e.prim.name for e in g.eqns]


def run_graph(g: Graph, args):
    """Compile and run a graph as it is (no passes); a tuple of the results."""
    return run_graphs([g], args)[0]


def run_graphs(gs, args) -> list:
    """Run graphs of one signature side by side in one compiled module (one compile); the
    results of each as a tuple."""
    outs = fe.jit(lambda *a: [o for g in gs for o in eval_graph(g, g.consts, list(a))],
                  passes=())(*args)
    k = len(gs[0].outvars)
    return [tuple(outs[i * k:(i + 1) * k]) for i in range(len(gs))]


# ----------------------------------------------------------------------------- what each pass removes


def test_cse_leaves_one_dot_general():
    g = graph(lambda x, w: fnp.tanh(x @ w) + (x @ w), X, W)
    assert prims(g).count("dot_general") == 2
    g2 = P.cse(g)
    assert prims(g2).count("dot_general") == 1 and len(g2.eqns) == 3
    text = fe.jit(lambda x, w: fnp.tanh(x @ w) + (x @ w), passes=("cse",)).lower(X, W).as_text()
    assert text.count("stablehlo.dot_general") == 1
    # different params or operands are not merged; Literals by value (0.0 is not -0.0)
    g = graph(lambda x: (fnp.sum(x, 0), fnp.sum(x, 1), x + 1.0, x + 1.0, x + 2.0, x + 0.0,
                         x + -0.0), X)
    g2 = P.cse(g)
    assert prims(g2) == ["reduce_sum", "reduce_sum", "add", "add", "add", "add"]
    assert g2.outvars[2] is g2.outvars[3] and P.cse(g2) is g2


def test_cse_inside_loop_bodies():
    def f(x):
        return lax.fori_loop(0, 3, lambda i, c: fnp.sin(c) + fnp.sin(c), x)
    g = graph(f, X)
    body = lambda g: next(v for e in g.eqns for v in e.params.values() if isinstance(v, Graph))
    assert prims(body(g)).count("sin") == 2
    g2 = P.cse(g)
    assert prims(body(g2)).count("sin") == 1
    np.testing.assert_allclose(run_graph(g2, [X])[0], fe.jit(f)(X), rtol=1e-6)


def test_dce_drops_unused_work_and_constants():
    C = np.ones((3, 4), F32)

    def f(x):
        _ = fnp.exp(x) * C  # unused
        return x + 1.0
    g = graph(f, X)
    assert prims(g) == ["exp", "mul", "add"] and len(g.constvars) == 1
    g2 = P.dce(g)
    assert prims(g2) == ["add"] and g2.constvars == ()
    assert P.dce(g2) is g2  # nothing to do: the same object


def test_simplify_identities():
    def f(x, i):
        a = -(-x)                     # neg(neg x)
        b = (a + 0.0) * 1.0 - 0.0     # x+0, x*1, x-0
        c = 0.0 + b / 1.0             # 0+x, x/1
        d = fnp.maximum(c, c)         # idempotent
        e = fnp.where(i > 0, d, d)    # select(p, x, x)
        return e, i * 1 + 0, x * 0.0, x + 1.0
    g = graph(f, X, np.int32(3))
    g2 = P.simplify(g)
    assert prims(g2) == ["mul", "add"]  # x * 0.0 and x + 1.0 stay (0 * inf is nan)
    assert g2.outvars[0] is g2.invars[0] and g2.outvars[1] is g2.invars[1]
    got = run_graph(g2, [X, np.int32(3)])
    for a, b in zip(got, fe.jit(f, passes=())(X, np.int32(3)), strict=True):
        np.testing.assert_array_equal(a, b)


def test_simplify_shape_and_convert_chains():
    def f(x, b):
        r = x.reshape(12).reshape(2, 6).reshape(3, 4)        # reshape chain to its own shape
        t = fnp.transpose(fnp.transpose(r))                   # transpose pair
        c = x.astype(jnp.float32).astype(jnp.float32)         # no-op converts
        i = b.astype(jnp.int32).astype(jnp.float32)           # int8 -> int32 exact: one convert
        lossy = x.astype(jnp.float16).astype(jnp.float32)     # f16 is lossy: both stay
        bc = lax.broadcast_in_dim(lax.broadcast_in_dim(b, (4, 3), (1,)), (2, 4, 3), (1, 2))
        return t + c, i, lossy, bc
    b = np.arange(3, dtype=np.int8)
    g = graph(f, X, b)
    g2 = P.simplify(g)
    names = prims(g2)
    assert "reshape" not in names and "transpose" not in names
    assert names.count("convert_element_type") == 3  # int8 -> f32 once, f16 round trip twice
    assert names.count("broadcast_in_dim") == 1
    bc = next(e for e in g2.eqns if e.prim.name == "broadcast_in_dim")
    assert bc.params["broadcast_dimensions"] == (2,) and bc.inputs[0] is g2.invars[1]
    for a, r in zip(run_graph(g2, [X, b]), fe.jit(f, passes=())(X, b), strict=True):
        np.testing.assert_array_equal(a, r)


def test_simplify_broadcast_literals_become_operands():
    def f(x):
        return x * lax.broadcast_in_dim(2.0, (3, 4), ()) + fnp.zeros((3, 4))
    g = graph(f, X)
    g2 = P.simplify(g)
    assert prims(g2) == ["mul"] and g2.eqns[0].inputs[1].aval.shape == ()
    np.testing.assert_array_equal(run_graph(g2, [X])[0], fe.jit(f)(X))


def test_exact_cast_table():
    from frontend.passes.simplify import exact_cast
    assert exact_cast(np.int8, np.int32) and exact_cast(np.uint8, np.int16)
    assert exact_cast(np.int16, np.float32) and exact_cast(np.int32, np.float64)
    assert exact_cast(np.float16, np.float32) and exact_cast(jnp.bfloat16, np.float32)
    assert exact_cast(np.bool_, np.float16) and exact_cast(np.float32, np.complex64)
    for s, d in [(np.int32, np.float32), (np.float32, np.float16), (jnp.bfloat16, np.float16),
                 (np.float16, jnp.bfloat16), (np.int8, np.uint32), (np.uint8, np.int8),
                 (np.float32, np.int32), (np.complex64, np.float32), (np.int32, np.bool_)]:
        assert not exact_cast(s, d), (s, d)


def test_fold_transposes_and_dot_transposes():
    def f(x, w):
        t = fnp.transpose(fnp.transpose(x) * 2.0)
        return fnp.transpose(x) .T + t, fnp.matmul(fnp.transpose(w), fnp.transpose(x))
    g = graph(f, X, W)
    assert prims(g).count("transpose") == 6
    g2 = P.fold_transposes(g)
    assert prims(g2).count("transpose") == 4  # only the pair x.T.T vanishes
    g3 = P.fold_dot_transposes(g2)
    dots = [e for e in g3.eqns if e.prim.name == "dot_general"]
    assert len(dots) == 1 and dots[0].inputs == (g3.invars[1], g3.invars[0])
    assert dots[0].params["dimension_numbers"] == (((0,), (1,)), ((), ()))
    assert prims(g3).count("transpose") == 2  # those around the multiplication
    for a, r in zip(run_graph(g3, [X, W]), fe.jit(f)(X, W), strict=True):
        np.testing.assert_allclose(a, r, rtol=1e-6)
    # a transpose that reorders the free dims stays (the result would come out transposed)
    A = np.ones((2, 3, 4), F32)
    g = graph(lambda a, w: lax.dot_general(fnp.transpose(a, (1, 0, 2)), w, (((2,), (0,)), ((), ()))),
              A, W)
    assert P.fold_dot_transposes(g) is g
    # batch dims are read through the permutation
    B = np.ones((4, 3, 5), F32)
    f2 = lambda a, b: lax.dot_general(fnp.transpose(a, (2, 0, 1)), b, (((2,), (1,)), ((0,), (0,))))
    g = graph(f2, A, B)
    g2 = P.fold_dot_transposes(g)
    assert "transpose" not in prims(g2)
    assert g2.eqns[0].params["dimension_numbers"] == (((1,), (1,)), ((2,), (0,)))
    np.testing.assert_allclose(run_graph(g2, [A, B])[0], fe.jit(f2)(A, B), rtol=1e-6)


def test_fold_constants_matches_xla():
    C1 = np.linspace(-3, 3, 12, dtype=F32).reshape(3, 4)

    def consts():
        a = fnp.exp(C1) @ fnp.cos(C1.T)                  # XLA's exp, cos and dot
        b = fnp.sum(fnp.sqrt(fnp.abs(C1))) / 7.0
        h = (C1.astype(jnp.bfloat16) * 3).astype(jnp.float32)
        return a, b, h, 2.0 * 3.0, fnp.arange(5) * 2

    ref = fe.jit(consts, passes=())()

    def f(x):
        a, b, h, s, r = consts()
        return x + a, x * b, h, s, r
    g = graph(f, X[:3, :3])
    g2 = P.fold_constants(g)
    assert prims(g2) == ["add", "mul"]  # only the operations on the argument remain
    assert type(g2.outvars[3]).__name__ == "Literal" and g2.outvars[3].aval.weak_type
    assert g2.eqns[1].inputs[1].aval.shape == ()  # the sum is a Literal
    got = run_graph(g2, [np.zeros((3, 3), F32)])
    np.testing.assert_array_equal(got[0], ref[0])  # bit for bit: XLA computed both
    np.testing.assert_array_equal(run_graph(g2, [np.ones((3, 3), F32)])[1], np.full((3, 3), ref[1]))
    np.testing.assert_array_equal(got[2], ref[2])
    assert float(got[3]) == 6.0 and got[3].weak_type
    np.testing.assert_array_equal(got[4], [0, 2, 4, 6, 8])


def test_fold_constants_limits():
    big = functools.partial(P.fold_constants, max_elements=10)
    C = np.ones((4, 4), F32)
    g = graph(lambda x: (x + fnp.sin(C)[0], fnp.sin(C)), X[0])
    assert prims(big(g)) == ["sin", "slice", "squeeze", "add"] or "sin" in prims(big(g))
    assert "sin" not in prims(P.fold_constants(g))
    # Literal-only values (an iota, a broadcast of a Literal) are not made into constants
    g = graph(lambda x: x + fnp.arange(4.0) + fnp.ones(4), X[0])
    assert P.fold_constants(g) is g


def test_fold_constants_in_loop_bodies():
    # (a captured array would be an operand of the loop: closure conversion)
    f = lambda x: lax.fori_loop(0, 2, lambda i, c: c + fnp.exp(fnp.full(4, 0.5)), x)
    g = graph(f, X[0])
    g2 = P.fold_constants(g)
    body = next(v for e in g2.eqns for v in e.params.values() if isinstance(v, Graph))
    assert "exp" not in prims(body)
    np.testing.assert_allclose(run_graph(g2, [X[0]])[0], fe.jit(f)(X[0]), rtol=1e-6)


# ----------------------------------------------------------------------------- pipelines and jit


def test_pipeline_stats_and_graphs():
    g = graph(lambda x, w: -(-(x @ w)) + (x @ w) * 1.0, X, W)
    res = P.Pipeline(["cse", P.simplify, "dce"], keep_graphs=True).run(g)
    assert [s.name for s in res.stats] == ["cse", "simplify", "dce"]
    assert [(s.eqns_before, s.eqns_after) for s in res.stats] == [(6, 5), (5, 2), (2, 2)]
    assert all(s.seconds >= 0 for s in res.stats) and res.stats[0].changed
    assert [n for n, _ in res.graphs] == ["input", "cse", "simplify", "dce"]
    assert res.graphs[0][1] is g and res.graphs[-1][1] is res.graph
    assert "cse" in res.report() and "->" in res.report()
    assert repr(P.Pipeline(["cse", "dce"])) == "Pipeline(cse, dce)"


def test_pipeline_checks_each_pass():
    g = graph(lambda x: x * 2.0, X)

    def not_a_graph(g):
        return 3

    def drops_output(g):
        return Graph(g.invars, g.constvars, g.consts, g.eqns, ())

    def wrong_types(g):
        e = g.eqns[0]
        bad = Eqn(ew.convert_element_type_p, (e.inputs[0],),
                  {"new_dtype": np.dtype(np.int32), "weak_type": False}, e.outs)
        return Graph(g.invars, g.constvars, g.consts, (bad,), g.outvars)

    with pytest.raises(TypeError, match="graph pass not_a_graph returned int"):
        P.Pipeline([not_a_graph]).run(g)
    with pytest.raises(ValueError, match="graph pass drops_output changed the graph's signature"):
        P.Pipeline([drops_output])(g)
    with pytest.raises(TypeError, match="wrong_types produced a graph that does not type-check"):
        P.Pipeline([wrong_types])(g)
    with pytest.raises(ValueError, match="unknown graph pass 'cse2'; the known passes are dce, cse"):
        fe.jit(lambda x: x, passes=("cse2",))
    with pytest.raises(TypeError, match="a graph pass is a function Graph -> Graph"):
        P.Pipeline([3])


def test_jit_passes_option_and_lowered_graph():
    f = lambda x, w: (x @ w) + (x @ w) * 1.0
    lo = fe.jit(f, passes=("cse", "simplify")).lower(X, W)
    assert prims(lo.graph) == ["dot_general", "add"]
    assert [s.name for s in lo.pass_stats] == ["cse", "simplify"]
    assert lo.as_text().count("dot_general") == 1
    np.testing.assert_allclose(fe.jit(f, passes=P.Pipeline(["cse"]))(X, W), fe.jit(f)(X, W))
    # the default pipeline is fold_transposes then dce
    lo = fe.jit(f).lower(X, W)
    assert [s.name for s in lo.pass_stats] == list(P.DEFAULT_PASSES) == ["fold_transposes", "dce"]
    assert prims(lo.graph).count("dot_general") == 2
    assert prims(fe.make_graph(f, passes=("cse",))(X, W)).count("dot_general") == 1
    # passes=() lowers the traced graph untouched
    g = fe.jit(lambda x: fnp.transpose(fnp.transpose(x)), passes=()).lower(X).graph
    assert prims(g) == ["transpose", "transpose"]


def test_user_rewrite_rule():
    def exp_log(e, rw):
        """exp(log(x)) -> x"""
        if e.prim is ew.exp_p:
            inner = rw.producer(e.inputs[0])
            if inner is not None and inner.prim is ew.log_p:
                return P.forward(e, inner.inputs[0])
        return None

    p = P.rewrite_pass(exp_log)
    assert p.__name__ == "exp_log" and "exp_log" in p.__doc__
    f = lambda x: fnp.exp(fnp.log(x)) + 1.0
    assert prims(fe.make_graph(f, passes=[p])(X)) == ["add"]

    def breaks_types(e, rw):
        if e.prim is ew.exp_p:
            return Eqn(ew.convert_element_type_p, e.inputs,
                       {"new_dtype": np.dtype(np.int32), "weak_type": False}, e.outs)
        return None

    with pytest.raises(ValueError, match="rewrite rule breaks_types replaced a exp"):
        P.rewrite_pass(breaks_types)(graph(f, X))

    def forwards_wrong_type(e, rw):
        return [e.inputs[0]] if e.prim is ew.convert_element_type_p else None

    with pytest.raises(ValueError, match="forwarded"):
        P.rewrite_pass(forwards_wrong_type)(graph(lambda x: x.astype(np.int32), X))


def test_to_dot():
    g = graph(lambda x, w: fnp.tanh(x @ w) + 1.0, X, W)
    dot = P.to_dot(g, "mlp")
    assert dot.startswith('digraph "mlp" {') and dot.rstrip().endswith("}")
    for needle in ['label="arg 0: f32[3,4]"', "dot_general", "tanh", 'label="1.0:f32[]"',
                   'label="result 0: f32[3,5]"', '[label="f32[3,5]"]']:
        assert needle in dot, needle


# ----------------------------------------------------------------------------- semantics on fuzz programs

N_FUZZ = int(os.environ.get("VMAPLAB_PASS_FUZZ_N", 30))
EACH = [P.dce, P.cse, P.simplify, P.fold_transposes, P.fold_dot_transposes, P.fold_constants]
ALL = P.Pipeline(["cse", "simplify", "fold_dot_transposes", "fold_constants", "dce"])


def _check_passes_on(seed: int) -> dict:
    """One fuzz program (nested vmap): every pass (and all of them) gives the same results as
    no pass; then with every input a captured constant, so that fold_constants folds the
    whole program with XLA's numerics."""
    prog = generate(Chooser(seed=seed), control=True)
    args = make_args(prog)
    fn = _nest(prog.function(fnp, lax), prog, fe.vmap)
    try:
        g0 = fe.make_graph(fn, passes=())(*args)
    except Exception:
        return {"skipped": 1}  # a program JAX rejects too (the fuzz harness checks which)
    variants = [(P.pass_name(p), p(g0)) for p in EACH + [ALL]]
    variants = [(name, g) for name, g in variants if g is not g0]
    ref, *got = run_graphs([g0] + [g for _, g in variants], args)
    for (name, _), res in zip(variants, got, strict=True):
        compare(res, ref, f"seed {seed}: {name} on vs off", weak=True)
    consts = [np.asarray(a) for a in args]
    gc = fe.make_graph(lambda: fn(*consts), passes=())()
    folded = P.fold_constants(gc)
    ref, res = run_graphs([gc, folded], [])
    compare(res, ref, f"seed {seed}: fold_constants, all constant")
    return {"programs": 1, "changed": len(variants), "folded_eqns": len(gc.eqns) - len(folded.eqns)}


def _fuzz(seeds):
    total: dict = {}
    for s in seeds:
        for k, v in _check_passes_on(s).items():
            total[k] = total.get(k, 0) + v
    return total


def test_passes_preserve_semantics_on_fuzz_programs():
    t = _fuzz(range(200, 200 + N_FUZZ))
    print(f"\npasses on {t.get('programs', 0)} fuzz programs: {t}")
    assert t["programs"] >= N_FUZZ * 0.8 and t["changed"] >= N_FUZZ and t["folded_eqns"] > N_FUZZ


@pytest.mark.slow
def test_passes_preserve_semantics_on_fuzz_programs_slow():
    t = _fuzz(range(5000, 5000 + 10 * N_FUZZ))
    print(f"\npasses on {t.get('programs', 0)} fuzz programs: {t}")


def test_pass_results_match_jax_on_a_model():
    """A small vmapped model: the full pipeline, checked against JAX."""
    def model(x, w):
        h = fnp.tanh(x @ w) * 1.0 + 0.0
        return fnp.sum(fnp.transpose(fnp.transpose(h)) * (h + 0.0), axis=-1)
    xs = np.random.default_rng(0).normal(size=(6, 3, 4)).astype(F32)
    ours = fe.jit(fe.vmap(model, (0, None)), passes=ALL)(xs, W)
    theirs = jax.jit(jax.vmap(lambda x, w: jnp.sum(jnp.tanh(x @ w) ** 2, -1), (0, None)))(xs, W)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
