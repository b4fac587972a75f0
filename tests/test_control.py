"""Control flow: cond, switch, while_loop, fori_loop, scan, map (vs jax.lax, under jit and
eagerly), their batching rules (vmap vs the per-example loop and jax.vmap for every operand
combination, nested), vmap/map with batch_size, the sequential fallback for a primitive with
no batching rule, the StableHLO a batched program lowers to, and the error messages."""
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from harness import assert_same, check_vmap, check_vs_jax, loop_reference, rand, stablehlo

import frontend as fe
import frontend.numpy as fnp
from frontend import lax
from frontend.core.ir import Primitive

OURS = (lax, fnp)
JAX = (jax.lax, jnp)
RNG = np.random.default_rng(7)


def both(make):
    """make(L, N) builds a program from a lax-like and a numpy-like module: ours and JAX's."""
    return make(*OURS), make(*JAX)


def pos(shape):
    return lambda: (np.abs(rand(shape, rng=RNG)) + 0.5).astype(np.float32)


# ----------------------------------------------------------------------------- programs

def cond_ops(L, N):
    return lambda p, x, y: L.cond(p, lambda a, b: a * 2.0 + b, lambda a, b: a - N.sin(b), x, y)


def cond_closure(L, N):
    # the branches close over x and y (closure conversion: they become operands of cond)
    return lambda p, x, y: L.cond(p, lambda: (x * y, x.sum()), lambda: (y, 1.0 + 0 * x.sum()))


def cond_mixed(L, N):
    # one output depends on a batched operand in one branch only
    return lambda p, x, y: L.cond(p, lambda a: (a, y), lambda a: (a * 3.0, y * 0.0 + 2.0), x)


def cond_guarded(L, N):
    # a dot in one branch, a loop in the other: vmap guards both (tests/test_guarded_cond.py)
    return lambda p, x, y: L.cond(p, lambda a, b: (N.dot(a, b) * a, b),
                                  lambda a, b: (L.while_loop(lambda c: N.abs(c).sum() > 1.0,
                                                             lambda c: c * 0.5, a), b + 1.0), x, y)


def cond_int_pred(L, N):
    return lambda n, x: L.cond(n, lambda a: a + 1.0, lambda a: a - 1.0, x)


def switch3(L, N):
    return lambda i, x: L.switch(i, [lambda a: a + 1.0, lambda a: a * a, lambda a: -a], x)


def while_halve(L, N):
    # data-dependent trip count: halve until below the threshold, count the steps
    # (abs: the nested-vmap check feeds random signs)
    return lambda x, t: L.while_loop(lambda c: c[0] > N.abs(t) + 0.1, lambda c: (c[0] * 0.5, c[1] + 1),
                                     (N.abs(x), 0))


def while_vec(L, N):
    return lambda x, t: L.while_loop(lambda c: c[1].sum() < t,
                                     lambda c: (c[0] + 1, c[1] * 2.0 + 0.25), (0, N.abs(x)))


def while_counted(L, N):
    # the predicate depends only on an unbatched count: the loop condition stays scalar
    return lambda n, x: L.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 1.5 + c[2], c[2]),
                                     (0, x, N.ones_like(x)))[1]


def while_becomes_batched(L, N):
    # acc starts unbatched (0.0) and becomes batched inside the loop (adds the batched x)
    return lambda x: L.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] + x * c[0]),
                                  (0, 0.0 * N.ones(3, np.float32)))[1]


def fori_static(L, N):
    def f(x):
        x = N.asarray(x)
        return L.fori_loop(0, x.shape[0], lambda i, acc: acc + x[i] * i, 0.0)
    return f


def fori_dynamic(L, N):
    def f(n, x):
        x = N.asarray(x)
        return L.fori_loop(0, n, lambda i, acc: acc * 0.5 + x[i % 4], 0.0)
    return f


def scan_basic(L, N):
    return lambda c, xs: L.scan(lambda c, x: (c * 0.5 + x, (c + x * 2.0).sum()), c, xs)


def scan_reverse_tree(L, N):
    def f(c, xs, ys):
        def body(carry, x):
            a, b = carry
            return (a + x["u"], b * x["v"]), {"s": a * b, "t": x["u"] - 1.0}
        return L.scan(body, (c, c * 0 + 1.0), {"u": xs, "v": ys}, reverse=True)
    return f


def scan_no_xs(L, N):
    return lambda c: L.scan(lambda c, _: (c * 2.0 + 1.0, c), c, None, length=4)


def map_fun(L, N):
    return lambda xs: L.map(lambda x: (N.sin(x) * 2.0).sum() + x, xs)


# ----------------------------------------------------------------------------- vs JAX

VS_JAX = [
    ("cond_ops_true", cond_ops, lambda: (True, rand((3,)), rand((3,)))),
    ("cond_ops_false", cond_ops, lambda: (False, rand((3,)), rand((3,)))),
    ("cond_closure", cond_closure, lambda: (np.bool_(True), rand((3,)), rand((3,)))),
    ("cond_guarded", cond_guarded, lambda: (np.bool_(False), rand((3,)), rand((3,)))),
    ("cond_int_pred", cond_int_pred, lambda: (np.int32(2), rand((2,)))),
    ("switch_0", switch3, lambda: (np.int32(0), rand((3,)))),
    ("switch_2", switch3, lambda: (np.int32(2), rand((3,)))),
    ("switch_clamped", switch3, lambda: (np.int32(7), rand((3,)))),
    ("switch_negative", switch3, lambda: (np.int32(-3), rand((3,)))),
    ("while_halve", while_halve, lambda: (np.float32(37.0), np.float32(1.5))),
    ("while_vec", while_vec, lambda: (pos((3,))(), np.float32(40.0))),
    ("fori_static", fori_static, lambda: (rand((5,)),)),
    ("fori_dynamic", fori_dynamic, lambda: (np.int32(6), rand((4,)))),
    ("scan_basic", scan_basic, lambda: (rand((3,)), rand((4, 3)))),
    ("scan_reverse_tree", scan_reverse_tree, lambda: (rand((2,)), rand((5, 2)), rand((5, 2)))),
    ("scan_no_xs", scan_no_xs, lambda: (rand((2,)),)),
    ("map", map_fun, lambda: (rand((5, 2)),)),
]


@pytest.mark.parametrize("name,make,args", VS_JAX, ids=[v[0] for v in VS_JAX])
def test_vs_jax(name, make, args):
    ours, theirs = both(make)
    check_vs_jax(ours, theirs, *args())


def test_python_scalars_and_weak_types():
    check_vs_jax(lambda: lax.while_loop(lambda c: c < 3, lambda c: c + 1, 0),
                 lambda: jax.lax.while_loop(lambda c: c < 3, lambda c: c + 1, 0))
    check_vs_jax(lambda: lax.fori_loop(0, 3, lambda i, c: c + i, 0.0),
                 lambda: jax.lax.fori_loop(0, 3, lambda i, c: c + i, 0.0))
    check_vs_jax(lambda p: lax.cond(p, lambda: 1.0, lambda: np.float32(2.0)),
                 lambda p: jax.lax.cond(p, lambda: 1.0, lambda: np.float32(2.0)), True)
    check_vs_jax(lambda xs: lax.scan(lambda c, x: (c + x, c * 2), 0, xs),
                 lambda xs: jax.lax.scan(lambda c, x: (c + x, c * 2), 0, xs), np.arange(4, dtype=np.int32))
    # a weakly typed initial carry is promoted when the body changes its type
    check_vs_jax(lambda xs: lax.scan(lambda c, x: (c + x, c), 0, xs),
                 lambda xs: jax.lax.scan(lambda c, x: (c + x, c), 0, xs), rand((3,)))


def test_nested_control_flow():
    def make(L, N):
        def f(x, n):
            x = N.asarray(x)

            def body(i, acc):
                return L.cond(i % 2 == 0, lambda a: a + x[i], lambda a: a * 0.5, acc)
            return L.while_loop(lambda c: c[0] < n,
                                lambda c: (c[0] + 1, L.fori_loop(0, 3, body, c[1])), (0, 1.0))[1]
        return f
    ours, theirs = both(make)
    check_vs_jax(ours, theirs, rand((3,)), np.int32(3))
    check_vmap(ours, [rand((3,)), np.int32(3)], f_jax=theirs,
               makers=[lambda: rand((3,)), lambda: np.int32(RNG.integers(0, 5))], nested=False)


# ----------------------------------------------------------------------------- batching

BOOL = lambda: np.bool_(RNG.integers(0, 2))  # noqa: E731


def test_vmap_cond_every_operand_combination():
    for make in (cond_ops, cond_closure, cond_mixed, cond_guarded):
        ours, theirs = both(make)
        check_vmap(ours, [np.bool_(True), rand((3,)), rand((3,))], f_jax=theirs,
                   makers=[BOOL, lambda: rand((3,)), lambda: rand((3,))])


def test_vmap_cond_int_predicate_and_switch():
    ours, theirs = both(cond_int_pred)
    check_vmap(ours, [np.int32(1), rand((2,))], f_jax=theirs,
               makers=[lambda: np.int32(RNG.integers(-1, 2)), lambda: rand((2,))])
    ours, theirs = both(switch3)
    check_vmap(ours, [np.int32(1), rand((3,))], f_jax=theirs,
               makers=[lambda: np.int32(RNG.integers(-2, 5)), lambda: rand((3,))], size=6)


def test_vmap_while_batched_and_unbatched_predicate():
    ours, theirs = both(while_halve)
    check_vmap(ours, [np.float32(37.0), np.float32(1.5)], f_jax=theirs,
               makers=[lambda: np.float32(RNG.uniform(0.1, 500.0)), lambda: np.float32(RNG.uniform(0.5, 3))],
               size=5)
    ours, theirs = both(while_vec)
    check_vmap(ours, [pos((3,))(), np.float32(40.0)], f_jax=theirs,
               makers=[pos((3,)), lambda: np.float32(RNG.uniform(5, 400))])
    ours, theirs = both(while_counted)
    check_vmap(ours, [np.int32(3), rand((2,))], f_jax=theirs,
               makers=[lambda: np.int32(RNG.integers(0, 6)), lambda: rand((2,))])
    ours, theirs = both(while_becomes_batched)
    check_vmap(ours, [rand((3,))], f_jax=theirs)


def test_data_dependent_trip_counts_per_lane():
    ours, theirs = both(while_halve)
    x = np.array([1.0, 3.0, 17.0, 1000.0, 0.5, 64.0], np.float32)
    v, steps = fe.vmap(ours, in_axes=(0, None))(x, 2.0)
    np.testing.assert_array_equal(np.asarray(steps), [0, 1, 4, 9, 0, 5])
    assert_same((v, steps), jax.vmap(theirs, in_axes=(0, None))(x, 2.0))
    assert_same(fe.jit(fe.vmap(ours, in_axes=(0, None)))(x, 2.0), (v, steps))


def test_vmap_fori_loop_and_scan():
    ours, theirs = both(fori_static)
    check_vmap(ours, [rand((5,))], f_jax=theirs)
    ours, theirs = both(fori_dynamic)
    check_vmap(ours, [np.int32(5), rand((4,))], f_jax=theirs,
               makers=[lambda: np.int32(RNG.integers(0, 7)), lambda: rand((4,))])
    ours, theirs = both(scan_basic)
    check_vmap(ours, [rand((3,)), rand((4, 3))], f_jax=theirs)
    ours, theirs = both(scan_reverse_tree)
    check_vmap(ours, [rand((2,)), rand((5, 2)), rand((5, 2))], f_jax=theirs, nested=False)
    ours, theirs = both(scan_no_xs)
    check_vmap(ours, [rand((2,))], f_jax=theirs)


def test_vmap_scan_carry_batched_from_xs_only():
    # the carry starts unbatched and becomes batched from the (batched) xs
    ours, theirs = both(scan_basic)
    c, xs = rand((3,)), rand((6, 4, 3))
    for ax in (0, 1, 2, -1):
        xb = np.moveaxis(xs, 0, ax)
        assert_same(fe.vmap(ours, in_axes=(None, ax))(c, xb), jax.vmap(theirs, in_axes=(None, ax))(c, xb))


def test_map_and_its_batching():
    ours, theirs = both(map_fun)
    check_vmap(ours, [rand((4, 2))], f_jax=theirs)


# ----------------------------------------------------------------------------- batch_size


def _seed_model(x, w):
    return fnp.tanh(x @ w).sum(-1) + x[0]


@pytest.mark.parametrize("k", [1, 3, 4, 7, 10])
def test_map_batch_size(k):
    xs = rand((10, 3))
    f = lambda x: (fnp.sin(x) * 2.0, x.sum())  # noqa: E731
    ref = lax.map(f, xs)
    got = lax.map(f, xs, batch_size=k)
    assert_same(got, jax.lax.map(lambda x: (jnp.sin(x) * 2.0, x.sum()), xs, batch_size=k))
    assert_same(got, ref)
    assert_same(fe.jit(lambda xs: lax.map(f, xs, batch_size=k))(xs), ref)


@pytest.mark.parametrize("k", [1, 3, 4, 7, 10])
def test_vmap_batch_size(k):
    x, w = rand((10, 3)), rand((3, 4))
    ref = fe.vmap(_seed_model, in_axes=(0, None))(x, w)
    assert_same(fe.vmap(_seed_model, in_axes=(0, None), batch_size=k)(x, w), ref)
    assert_same(fe.jit(fe.vmap(_seed_model, in_axes=(0, None), batch_size=k))(x, w), ref)
    # batch axis in the middle, pytree output, out_axes respected
    g = lambda a, b: {"p": a * b, "q": a.sum()}  # noqa: E731
    a, b = rand((2, 10, 3)), rand((3,))
    want = fe.vmap(g, in_axes=(1, None), out_axes={"p": 1, "q": 0})(a, b)
    got = fe.vmap(g, in_axes=(1, None), out_axes={"p": 1, "q": 0}, batch_size=k)(a, b)
    assert_same(got, want)
    assert_same(got, jax.vmap(g, in_axes=(1, None), out_axes={"p": 1, "q": 0})(a, b))


def test_batch_size_lowers_to_a_loop():
    x, w = rand((10, 3)), rand((3, 4))
    text = stablehlo(fe.vmap(_seed_model, in_axes=(0, None), batch_size=4), x, w)
    assert "stablehlo.while" in text
    assert "tensor<4x4xf32>" in text  # 4 lanes at a time inside the loop
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        fe.vmap(_seed_model, in_axes=(0, None), batch_size=0)(x, w)


# ----------------------------------------------------------------------------- StableHLO


def test_map_is_a_loop_vmap_is_not():
    f = lambda x: fnp.tanh(x * 2.0).sum()  # noqa: E731
    xs = rand((8, 5))
    t_map = stablehlo(lambda xs: lax.map(f, xs), xs)
    t_vmap = stablehlo(fe.vmap(f), xs)
    assert "stablehlo.while" in t_map
    assert "stablehlo.while" not in t_vmap
    assert_same(fe.jit(lambda xs: lax.map(f, xs))(xs), fe.jit(fe.vmap(f))(xs))


def test_vmap_fori_index_stays_unbatched():
    ours, _ = both(fori_static)
    text = stablehlo(fe.vmap(ours), rand((3, 5)))
    assert "stablehlo.gather" not in text
    assert "stablehlo.dynamic_slice" in text


def test_unbatched_predicate_stays_a_conditional():
    ours, _ = both(cond_ops)
    text = stablehlo(fe.vmap(ours, in_axes=(None, 0, 0)), True, rand((4, 3)), rand((4, 3)))
    assert '"stablehlo.if"' in text and "stablehlo.select" not in text
    text = stablehlo(fe.vmap(ours), np.ones(4, bool), rand((4, 3)), rand((4, 3)))
    assert '"stablehlo.if"' not in text and "stablehlo.select" in text
    ours, _ = both(switch3)
    text = stablehlo(fe.vmap(ours, in_axes=(None, 0)), np.int32(1), rand((4, 3)))
    assert '"stablehlo.case"' in text


def test_while_predicate_scalar_unless_batched():
    ours, _ = both(while_counted)
    text = stablehlo(fe.vmap(ours, in_axes=(None, 0)), np.int32(3), rand((4, 2)))
    assert "stablehlo.select" not in text and "stablehlo.reduce" not in text
    text = stablehlo(fe.vmap(ours, in_axes=(0, 0)), np.arange(4, dtype=np.int32), rand((4, 2)))
    assert "stablehlo.select" in text and "stablehlo.reduce" in text
    # the passthrough carry (2.0, unbatched) is not broadcast to the batch: as in JAX it is a
    # body const, not a carry
    g = fe.make_graph(fe.vmap(lambda n, x: lax.while_loop(
        lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] + c[2], c[2]), (0, x, 2.0))[1]))(
        np.arange(4, dtype=np.int32), rand((4, 2)))
    (eqn,) = [e for e in g.eqns if e.prim.name == "while"]
    assert [v.aval.shape for v in eqn.outs] == [(4,), (4, 2)]
    assert () in [v.aval.shape for v in eqn.inputs]


def test_graph_prints_nested():
    ours, _ = both(while_counted)
    text = str(fe.make_graph(ours)(np.int32(3), rand((2,))))
    assert "while[body_graph=" in text and "cond_graph=" in text and "lambda" in text
    text = str(fe.make_graph(both(cond_ops)[0])(True, rand((2,)), rand((2,))))
    assert "cond[branches=(" in text


# ----------------------------------------------------------------------------- no batching rule


def _user_primitive():
    """A user primitive: sin, without a batching rule."""
    p = Primitive("test_control_sin_no_rule")
    p.def_abstract_eval(lambda x: x)

    @p.def_lowering
    def _lower(ctx, x):
        return [ctx.op(f"stablehlo.sine {x} : {ctx.type(ctx.avals_out[0])}")]

    return p


def test_primitive_without_batching_rule_falls_back_to_a_loop():
    p = _user_primitive()
    assert p.batching_rule is None
    f = lambda x, y: p.bind(x * 2.0) + y  # noqa: E731
    x, y = rand((5, 3)), rand((3,))
    want = np.sin(x * 2.0) + y
    for run in (fe.vmap(f, in_axes=(0, None)), fe.jit(fe.vmap(f, in_axes=(0, None)))):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            got = run(x, y)
        msgs = [str(m.message) for m in w if p.name in str(m.message)]
        assert len(msgs) == 1, msgs
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = stablehlo(fe.vmap(f, in_axes=(0, None)), x, y)
        assert "stablehlo.while" in text
        # batch axis at the end, nested vmap
        np.testing.assert_allclose(np.asarray(fe.vmap(f, in_axes=(1, None))(x.T, y)), want, rtol=1e-5, atol=1e-6)
        xx = rand((2, 5, 3))
        got = fe.jit(fe.vmap(fe.vmap(f, in_axes=(0, None)), in_axes=(0, None)))(xx, y)
        np.testing.assert_allclose(np.asarray(got), np.sin(xx * 2.0) + y, rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------- errors


def test_errors():
    x = np.float32(1.0)
    with pytest.raises(TypeError, match="cond branches must have equal output types but they differ"):
        lax.cond(True, lambda x: x, lambda x: x.astype(np.int32), x)
    with pytest.raises(TypeError, match="The output of true_fun has type float32\\[\\] but the corresponding "
                                        "output of false_fun has type int32\\[\\], so the dtypes do not match"):
        lax.cond(True, lambda x: x, lambda x: x.astype(np.int32), x)
    with pytest.raises(TypeError, match="cond branch outputs must have the same pytree structure"):
        lax.cond(True, lambda x: (x, x), lambda x: x, x)
    with pytest.raises(TypeError, match="switch branches must have equal output types"):
        lax.switch(0, [lambda x: x, lambda x: x.astype(np.int32)], x)
    with pytest.raises(TypeError, match=r"Pred must be a scalar, got .* of shape \(3,\)"):
        lax.cond(np.ones(3, bool), lambda: 1.0, lambda: 2.0)
    with pytest.raises(TypeError, match="Pred must be a scalar"):
        fe.jit(lambda p: lax.cond(p, lambda: 1.0, lambda: 2.0))(np.ones(3, bool))
    with pytest.raises(TypeError, match="Pred type must be either boolean or number"):
        lax.cond(np.complex64(1), lambda: 1.0, lambda: 2.0)
    with pytest.raises(TypeError, match="Branch index must be scalar"):
        lax.switch(np.zeros(2, np.int32), [lambda: 1.0, lambda: 2.0])
    with pytest.raises(TypeError, match="Index type must be an integer"):
        lax.switch(1.0, [lambda: 1.0, lambda: 2.0])
    with pytest.raises(ValueError, match="Empty branch sequence"):
        lax.switch(0, [])
    with pytest.raises(TypeError, match=r"cond_fun must return a boolean scalar, but got output type\(s\)"):
        lax.while_loop(lambda c: c, lambda c: c + 1, 1.0)
    with pytest.raises(TypeError, match="while_loop body function carry input and carry output must have "
                                        "equal types, but they differ:\n\nThe input carry c has type "
                                        r"float32\[\] but the corresponding output carry component has "
                                        r"type int32\[\], so the dtypes do not match"):
        lax.while_loop(lambda c: c < 3, lambda c: (c + 1).astype(np.int32), x)
    with pytest.raises(TypeError, match="must have the same pytree structure"):
        lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1,), (x, 1))
    with pytest.raises(TypeError, match="scan body function carry input and carry output must have equal types"):
        lax.scan(lambda carry, x: (carry.astype(np.int32), x), x, np.ones(3, np.float32))
    with pytest.raises(TypeError, match=r"input carry component loop_carry\[1\] has type float32\[\]"):
        lax.fori_loop(0, 3, lambda i, c: c.astype(np.int32), 1.0)
    with pytest.raises(ValueError, match="scan got `length` argument of 4 which disagrees"):
        lax.scan(lambda c, x: (c, x), 0.0, np.ones(3), length=4)
    with pytest.raises(ValueError, match="scan got values with different leading axis sizes: 3, 4."):
        lax.scan(lambda c, x: (c, x), 0.0, (np.ones(3), np.ones(4)))
    with pytest.raises(ValueError, match="scan got no values to scan over and `length` not provided."):
        lax.scan(lambda c, x: (c, x), 0.0, None)
    with pytest.raises(TypeError, match="scan body output must be a pair"):
        lax.scan(lambda c, x: c, 0.0, np.ones(3))
    with pytest.raises(TypeError, match="lower and upper arguments to fori_loop must have equal types"):
        lax.fori_loop(np.int32(0), np.int16(3), lambda i, c: c, 1.0)
    with pytest.raises(TypeError, match="lax.cond: true_fun and false_fun arguments should be callable."):
        lax.cond(True, 1, 2)
    # JAX's messages are the same
    with pytest.raises(TypeError, match="cond branches must have equal output types but they differ"):
        jax.lax.cond(True, lambda x: x, lambda x: x.astype(np.int32), x)
    with pytest.raises(TypeError, match="while_loop body function carry input and carry output must have equal"):
        jax.lax.while_loop(lambda c: c < 3, lambda c: (c + 1).astype(np.int32), x)


def test_loop_reference_helper_agrees():
    # sanity: the harness's per-example loop on a control-flow program
    ours, _ = both(while_halve)
    x = np.array([3.0, 40.0], np.float32)
    ref = loop_reference(ours, [x, np.float32(2.0)], (0, None))
    assert_same(fe.vmap(ours, in_axes=(0, None))(x, 2.0), ref)


def test_vmap_batch_size_out_axes_none_checks_the_output_is_unbatched():
    x = np.ones(5, np.float32)
    with pytest.raises(ValueError, match="out_axes is None"):
        fe.vmap(lambda v: v * 2, out_axes=None, batch_size=2)(x)
    y, w = fe.vmap(lambda v, w: (v * w, w), in_axes=(0, None), out_axes=(0, None), batch_size=2)(x, np.float32(3))
    assert y.shape == (5,) and w.shape == ()
