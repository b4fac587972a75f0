"""User primitives (frontend.extend) take part in everything a built-in does: eager, jit,
make_graph, nested vmap, control-flow bodies, the interpreter device, the verifier; and
custom_vmap rules are used under vmap only."""
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import frontend as fe
import frontend.numpy as fnp
from frontend import lax
from frontend.custom_batching import custom_vmap, sequential_vmap
from frontend.extend import Primitive, ShapedArray, linear_jvp, moveaxis, unary_batching

RNG = np.random.default_rng(3)


def _make_logaddexp():
    """log(exp(x) + exp(y)) as one primitive, written the way a user would."""
    p = Primitive("test_logaddexp")
    calls = []

    @p.def_abstract_eval
    def _(x, y):
        if x.shape != y.shape or x.dtype != y.dtype:
            raise TypeError(f"test_logaddexp needs equal shapes and dtypes, got {x} and {y}")
        return ShapedArray(x.shape, x.dtype)

    @p.def_batching
    def _(args, dims):
        # both operands get the batch axis at 0 (an unbatched one is broadcast)
        calls.append(dims)
        (x, y), (dx, dy) = args, dims
        n = (x.shape[dx] if dx is not None else y.shape[dy])
        x = moveaxis(x, dx, 0) if dx is not None else fnp.broadcast_to(x, (n,) + x.shape)
        y = moveaxis(y, dy, 0) if dy is not None else fnp.broadcast_to(y, (n,) + y.shape)
        return p.bind(x, y), 0

    @p.def_lowering
    def _(ctx, x, y):
        t = ctx.type(ctx.avals_out[0])
        m = ctx.op(f"stablehlo.maximum {x}, {y} : {t}")
        dx = ctx.op(f"stablehlo.subtract {x}, {m} : {t}")
        dy = ctx.op(f"stablehlo.subtract {y}, {m} : {t}")
        s = ctx.op(f"stablehlo.add {ctx.op(f'stablehlo.exponential {dx} : {t}')}, "
                   f"{ctx.op(f'stablehlo.exponential {dy} : {t}')} : {t}")
        return [ctx.op(f"stablehlo.add {m}, {ctx.op(f'stablehlo.log {s} : {t}')} : {t}")]

    return p, calls


def _ref(x, y):
    return np.logaddexp(np.asarray(x, np.float64), np.asarray(y, np.float64))


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


def test_user_primitive_everywhere():
    p, calls = _make_logaddexp()
    x = RNG.normal(size=(4, 3)).astype(np.float32)
    y = RNG.normal(size=(4, 3)).astype(np.float32)
    _close(p.bind(x, y), _ref(x, y))                                 # eager
    _close(fe.jit(p.bind)(x, y), _ref(x, y))                         # jit
    assert "test_logaddexp" in str(fe.make_graph(p.bind)(x, y))      # make_graph
    assert "stablehlo.log" in fe.jit(p.bind).lower(x, y).as_text()
    with warnings.catch_warnings():
        warnings.simplefilter("error")                               # no fallback warning
        _close(fe.vmap(p.bind)(x, y), _ref(x, y))
        assert calls and calls[-1] == (0, 0)
        _close(fe.vmap(p.bind, in_axes=(1, None))(x, y[:, 0]), _ref(x.T, y[:, 0]))
        _close(fe.jit(fe.vmap(fe.vmap(p.bind)))(x[None], y[None]), _ref(x, y)[None])
        text = fe.jit(fe.vmap(p.bind)).lower(x, y).as_text()
        assert "stablehlo.while" not in text
    # in control-flow bodies, vmapped afterwards
    def scanned(a, b):
        return lax.scan(lambda c, r: (p.bind(c, r), c), a[0], b)[0]
    want = x[0].astype(np.float64)
    for row in y:
        want = _ref(want, row)
    _close(fe.jit(scanned)(x, y), want)
    xb, yb = RNG.normal(size=(2, 4, 3)).astype(np.float32), RNG.normal(size=(2, 4, 3)).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = fe.vmap(scanned)(xb, yb)
    _close(got, np.stack([np.asarray(fe.jit(scanned)(a, b)) for a, b in zip(xb, yb, strict=True)]))
    cond = fe.vmap(lambda s, a, b: lax.cond(s > 0, p.bind, lambda u, v: u - v, a, b))
    s = np.array([1.0, -1.0, 2.0, -3.0], np.float32)
    _close(cond(s, x, y), np.where(s[:, None] > 0, _ref(x, y), x - y))
    # the reference interpreter runs the same module
    _close(fe.jit(fe.vmap(p.bind), device="interpreter")(x, y), _ref(x, y))


def test_rule_set_after_creation_and_redefinition_with_the_same_name():
    p1, calls1 = _make_logaddexp()
    p2, calls2 = _make_logaddexp()          # same name, a different primitive: both work
    assert p1.name == p2.name and p1 is not p2
    x = np.ones((2, 3), np.float32)
    fe.vmap(p1.bind)(x, x)
    fe.vmap(p2.bind)(x, x)
    assert len(calls1) == 1 and len(calls2) == 1
    seen = []

    def later(args, dims):                  # replaced after the primitive was used
        seen.append(dims)
        (a, b), (da, db) = args, dims
        return p1.bind(moveaxis(a, da, 0), moveaxis(b, db, 0)), 0

    p1.def_batching(later)
    np.testing.assert_allclose(np.asarray(fe.vmap(p1.bind)(x, x)), _ref(x, x), rtol=1e-6)
    assert seen == [(0, 0)] and len(calls1) == 1


def _twice_primitive():
    """x -> 2x as a user primitive: elementwise, linear, every rule in place. Its lowering
    converts to the dtype abstract evaluation gives, so that rule shows in results too."""
    p = Primitive("test_twice")
    p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
    p.def_batching(unary_batching(p))

    @p.def_lowering
    def _(ctx, x):
        (a,), (out,) = ctx.avals_in, ctx.avals_out
        s = ctx.op(f"stablehlo.add {x}, {x} : {ctx.type(a)}")
        return [ctx.op(f"stablehlo.convert {s} : ({ctx.type(a)}) -> {ctx.type(out)}")]

    p.def_jvp(linear_jvp(p))
    p.def_transpose(lambda ct, x: [p.bind(ct)])
    return p


def _thrice_lowering(ctx, x):
    t = ctx.type(ctx.avals_out[0])
    return [ctx.op(f"stablehlo.add {ctx.op(f'stablehlo.add {x}, {x} : {t}')}, {x} : {t}")]


# slot -> (the new rule of primitive p, the function of p that shows it, (what it gives for x
# before, after)): x -> (values, dtype)
_REDEFINED = {
    "def_abstract_eval": (lambda p: lambda x: ShapedArray(x.shape, np.float16),
                          lambda p: p.bind,
                          (lambda x: (2 * x, np.float32), lambda x: (2 * x, np.float16))),
    "def_lowering": (lambda p: _thrice_lowering,
                     lambda p: p.bind,
                     (lambda x: (2 * x, np.float32), lambda x: (3 * x, np.float32))),
    "def_batching": (lambda p: lambda args, dims: (fnp.negative(p.bind(args[0])), dims[0]),
                     lambda p: p.bind,      # (only vmap uses it)
                     (lambda x: (2 * x, np.float32), lambda x: (-2 * x, np.float32))),
    "def_jvp": (lambda p: lambda primals, tangents: (p.bind(primals[0]), 5 * tangents[0]),
                lambda p: lambda x: fe.jvp(p.bind, (x,), (fnp.ones_like(x),))[1],
                (lambda x: (2 + 0 * x, np.float32), lambda x: (5 + 0 * x, np.float32))),
    "def_transpose": (lambda p: lambda ct, x: [7 * ct],
                      lambda p: fe.grad(lambda x: fnp.sum(p.bind(x))),
                      (lambda x: (2 + 0 * x, np.float32), lambda x: (7 + 0 * x, np.float32))),
}


@pytest.mark.parametrize("slot", list(_REDEFINED))
def test_redefined_rule_used_by_eager_vmap_and_jit_calls(slot):
    """docs/extending.md: setting a rule after the primitive was used takes effect at the
    next trace. Eager calls (one executable per primitive, cached), eager vmap (the rule
    binds the primitive eagerly) and jit (a cached program) used to keep what they had
    derived from the old rule."""
    p = _twice_primitive()
    new_rule, show, (before, after) = _REDEFINED[slot]
    f = show(p)
    x = RNG.normal(size=(3, 2)).astype(np.float32)
    paths = {"eager": f, "eager vmap": fe.vmap(f), "jit": fe.jit(f),
             "jit of vmap": fe.jit(fe.vmap(f))}

    def check(want_of, vmapped_want_of):
        stale = []
        for name, g in paths.items():
            got = g(x)
            want, dtype = (vmapped_want_of if "vmap" in name else want_of)(x)
            if got.dtype != dtype or not np.allclose(np.asarray(got), want, rtol=1e-3):
                stale.append(name)
        assert not stale, f"{slot}: the old rule still used by {stale}"

    check(before, before)
    getattr(p, slot)(new_rule(p))
    check(before if slot == "def_batching" else after, after)


def test_first_batching_rule_after_the_loop_reaches_cached_programs():
    """vmap ran the primitive in a loop for want of a batching rule; a rule set then is used
    by the same jitted function and by eager vmap (an observably different one here)."""
    p = Primitive("test_looped_twice")
    p.def_abstract_eval(lambda x: x)
    p.def_lowering(lambda ctx, x: [ctx.op(f"stablehlo.add {x}, {x} : {ctx.type(ctx.avals_out[0])}")])
    x = RNG.normal(size=(3, 2)).astype(np.float32)
    jitted = fe.jit(fe.vmap(p.bind))
    with pytest.warns(RuntimeWarning, match="no batching rule"):
        np.testing.assert_allclose(np.asarray(jitted(x)), 2 * x, rtol=1e-6)
    p.def_batching(lambda args, dims: (fnp.negative(p.bind(args[0])), dims[0]))
    np.testing.assert_allclose(np.asarray(jitted(x)), -2 * x, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(fe.vmap(p.bind)(x)), -2 * x, rtol=1e-6)


def test_redefined_builtin_rule_reaches_eager_fused_programs():
    """A built-in's rule set anew (the same API) reaches the programs of numpy functions
    that run eagerly as one executable (nn.glu: slices, logistic, mul)."""
    from frontend import nn
    from frontend.primitives.elementwise import logistic_p

    x = fe.device_put(RNG.normal(size=4).astype(np.float32))
    x1, x2 = np.asarray(x)[:2], np.asarray(x)[2:]
    np.testing.assert_allclose(np.asarray(nn.glu(x)), x1 / (1 + np.exp(-x2)), rtol=1e-6)
    old = logistic_p.lowering_rule
    try:
        logistic_p.def_lowering(lambda ctx, x: [x])          # logistic as the identity
        np.testing.assert_allclose(np.asarray(nn.glu(x)), x1 * x2, rtol=1e-6)
    finally:
        logistic_p.def_lowering(old)
    np.testing.assert_allclose(np.asarray(nn.glu(x)), x1 / (1 + np.exp(-x2)), rtol=1e-6)


def test_missing_rules_are_clear_errors():
    p = Primitive("test_no_rules")
    with pytest.raises(NotImplementedError, match="test_no_rules.*def_abstract_eval"):
        p.bind(np.ones(3, np.float32))
    p.def_abstract_eval(lambda x: x)
    # no lowering: a clear error at lowering time (before XLA), naming the primitive
    with pytest.raises(NotImplementedError, match="'test_no_rules' has no lowering rule"):
        fe.jit(p.bind).lower(np.ones(3, np.float32))
    with pytest.raises(NotImplementedError, match="'test_no_rules' has no lowering rule"):
        p.bind(np.ones(3, np.float32))      # eager compiles it
    # a graph can still be made
    assert "test_no_rules" in str(fe.make_graph(p.bind)(np.ones(3, np.float32)))


def test_bad_rule_results_are_clear_errors():
    p = Primitive("test_bad_results")
    p.def_abstract_eval(lambda x: (x.shape, x.dtype))
    with pytest.raises(TypeError, match="must return an aval"):
        p.bind(np.ones(3, np.float32))
    p.def_abstract_eval(lambda x: x)
    p.def_batching(lambda args, dims: (p.bind(args[0]), 5))
    with pytest.raises(ValueError, match="out_dim=5"):
        fe.make_graph(fe.vmap(p.bind))(np.ones((2, 3), np.float32))
    # JAX's ShapedArray is accepted as an abstract-eval result too
    p.def_abstract_eval(lambda x: jax.core.ShapedArray(x.shape, x.dtype))
    assert fe.make_graph(p.bind)(np.ones(3, np.float32)).out_avals[0].shape == (3,)


def test_no_batching_rule_falls_back_to_a_loop_with_a_warning():
    p = Primitive("test_unbatched_square")
    p.def_abstract_eval(lambda x: x)
    p.def_lowering(lambda ctx, x: [ctx.op(f"stablehlo.multiply {x}, {x} : {ctx.type(ctx.avals_out[0])}")])
    x = RNG.normal(size=(3, 4)).astype(np.float32)
    f = fe.vmap(p.bind, in_axes=1)
    with pytest.warns(RuntimeWarning, match="'test_unbatched_square' has no batching rule"):
        got = f(x)
    np.testing.assert_allclose(np.asarray(got), (x * x).T, rtol=1e-6)
    with pytest.warns(RuntimeWarning, match="no batching rule"):
        text = fe.jit(f).lower(x).as_text()
    assert "stablehlo.while" in text        # the sequential loop
    p.def_batching(unary_batching(p))      # once a rule is set, it is used: no loop
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert "stablehlo.while" not in fe.jit(fe.vmap(p.bind, in_axes=1)).lower(x).as_text()


def test_unary_batching_helper():
    p = Primitive("test_double")
    p.def_abstract_eval(lambda x: x)
    p.def_batching(unary_batching(p))
    p.def_lowering(lambda ctx, x: [ctx.op(f"stablehlo.add {x}, {x} : {ctx.type(ctx.avals_out[0])}")])
    x = RNG.normal(size=(3, 2)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(fe.vmap(p.bind, in_axes=1)(x)), 2 * x.T)


# ----------------------------------------------------------------------------- custom_vmap


def test_custom_vmap_rule_used_under_vmap_only():
    seen = []

    @custom_vmap
    def f(x, y):
        return fnp.sin(x) * y

    @f.def_vmap
    def f_vmap(axis_size, in_batched, x, y):
        seen.append((axis_size, list(in_batched)))
        return fnp.cos(x) * y, any(in_batched)   # a different function, visibly

    x = RNG.normal(size=(4, 3)).astype(np.float32)
    y = np.float32(2.0)
    np.testing.assert_allclose(np.asarray(f(x[0], y)), np.sin(x[0]) * 2, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(fe.jit(f)(x[0], y)), np.sin(x[0]) * 2, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(fe.vmap(f, in_axes=(0, None))(x, y)), np.cos(x) * 2,
                               rtol=1e-6)
    assert seen[-1] == (4, [True, False])
    # inside a jit and a scan body that are vmapped afterwards, the rule is still found
    g = fe.jit(lambda a: lax.scan(lambda c, r: (c + f(r, 1.0).sum(), 0.0), 0.0, a)[0])
    np.testing.assert_allclose(np.asarray(g(x)), np.sin(x).sum(), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(fe.vmap(g)(x[None])), [np.cos(x).sum()], rtol=1e-5)
    # compare the meaning with JAX's custom_vmap
    jf = jax.custom_batching.custom_vmap(lambda x, y: jnp.sin(x) * y)
    jf.def_vmap(lambda n, b, x, y: (jnp.cos(x) * y, any(b)))
    np.testing.assert_allclose(np.asarray(fe.vmap(f, in_axes=(0, None))(x, y)),
                               np.asarray(jax.vmap(jf, in_axes=(0, None))(x, y)), rtol=1e-6)


def test_redefined_custom_vmap_rule_reaches_jitted_programs():
    @custom_vmap
    def f(x):
        return fnp.sin(x)

    x = np.ones((2, 3), np.float32)
    g = fe.jit(fe.vmap(f))
    for k in (2.0, 3.0):
        f.def_vmap(lambda axis_size, in_batched, x, k=k: (k * x, in_batched[0]))
        np.testing.assert_array_equal(np.asarray(g(x)), k * x)
        np.testing.assert_array_equal(np.asarray(fe.vmap(f)(x)), k * x)


def test_custom_vmap_errors():
    @custom_vmap
    def f(x):
        return x * 2

    with pytest.raises(AttributeError, match="No batching rule defined"):
        f(np.ones(3, np.float32))

    @f.def_vmap
    def bad(axis_size, in_batched, x):
        return x[0], True                   # drops the batch axis

    with pytest.raises(ValueError, match="custom_vmap rule returned an output"):
        fe.vmap(f)(np.ones((4, 3), np.float32))


def test_sequential_vmap_is_a_loop_with_the_same_result():
    f = sequential_vmap(lambda x, y: fnp.sum(x * y))
    x = RNG.normal(size=(5, 3)).astype(np.float32)
    y = RNG.normal(size=(3,)).astype(np.float32)
    got = fe.vmap(f, in_axes=(0, None))(x, y)
    np.testing.assert_allclose(np.asarray(got), (x * y).sum(1), rtol=1e-5)
    text = fe.jit(fe.vmap(f, in_axes=(0, None))).lower(x, y).as_text()
    assert "stablehlo.while" in text
