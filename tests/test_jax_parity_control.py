"""Where vmaplab differed from JAX around control flow, convolutions, reductions and sorting:
each case compared with JAX (values, dtypes, error types and texts)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from harness import assert_same, check_vs_jax

import frontend as fe
import frontend.numpy as fnp
from frontend import lax
from frontend.core.ir import ConcretizationTypeError

OURS = (lax, fnp, fe)
JAX = (jax.lax, jnp, jax)


# ----------------------------------------------------------------------------- invalid StableHLO


def _pair_reduce(L, dims):
    return lambda a, b: L.reduce((a, b), (np.float32(0), np.int32(0)),
                                 lambda c, d: (c[0] + d[0], c[1] + d[1]), dims)


@pytest.mark.parametrize("dims", [(), (1,), (0, 1)])
def test_variadic_reduce_over_no_dimensions(dims):
    # dimensions=() was emitted as `array<i64: >`, which the parser refuses
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    y = np.arange(6, dtype=np.int32).reshape(2, 3)
    check_vs_jax(_pair_reduce(lax, dims), _pair_reduce(jax.lax, dims), x, y)


def test_variadic_reduce_window_of_a_scalar():
    # a rank-0 operand: empty window attributes and an empty padding
    def prog(L):
        return lambda x: L.reduce_window((x, x * 2), (0.0, 0.0),
                                         lambda a, b: (a[0] + b[0], a[1] + b[1]), (), (), "VALID")
    check_vs_jax(prog(lax), prog(jax.lax), np.float32(3.0))


def _conv(L, padding):
    return lambda lhs, rhs: L.conv_general_dilated(lhs, rhs, (1,), padding).sum()


@pytest.mark.parametrize("lhs_shape,rhs_shape,padding", [
    ((1, 2, 2), (3, 2, 3), "VALID"),     # output spatial size 0
    ((1, 2, 0), (3, 2, 1), "VALID"),     # empty input, output size 0
    ((1, 2, 2), (3, 2, 4), [(1, 0)]),    # padded, still output size 0
])
def test_conv_vjp_with_empty_output_window(lhs_shape, rhs_shape, padding):
    # the filter cotangent convolved the input with the (size 0) output cotangent as window
    lhs, rhs = np.ones(lhs_shape, np.float32), np.ones(rhs_shape, np.float32)
    ours = fe.jit(fe.grad(_conv(lax, padding), (0, 1)))(lhs, rhs)
    assert_same(ours, jax.jit(jax.grad(_conv(jax.lax, padding), (0, 1)))(lhs, rhs))


def test_batched_conv_vjp_with_empty_output():
    """vmap of the gradient of a convolution whose result is empty (the fuzzer's programs
    that once failed to lower: the filter cotangent's window had size 0)."""
    lhs, rhs = np.ones((3, 2, 1, 3), np.float32), np.ones((3, 1, 1, 4), np.float32)
    ours = fe.jit(fe.vmap(fe.grad(_conv(lax, "VALID"), (0, 1))))(lhs, rhs)
    assert_same(ours, jax.jit(jax.vmap(jax.grad(_conv(jax.lax, "VALID"), (0, 1))))(lhs, rhs))


def test_conv_grad_bfloat16_with_float32_accumulation():
    def prog(L):
        return lambda lhs, rhs: L.conv_general_dilated(
            lhs, rhs, (1,), "SAME", preferred_element_type=np.float32).sum()
    rng = np.random.default_rng(0)
    lhs = rng.normal(size=(2, 3, 6)).astype(jnp.bfloat16)
    rhs = rng.normal(size=(4, 3, 3)).astype(jnp.bfloat16)
    assert_same(fe.jit(fe.grad(prog(lax), (0, 1)))(lhs, rhs),
                jax.jit(jax.grad(prog(jax.lax), (0, 1)))(lhs, rhs))


# ----------------------------------------------------------------------------- crashes


@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3)])
def test_sort_and_top_k_jvp_of_empty_arrays(shape):
    e = np.zeros(shape, np.float32)
    for (L, N, F), (JL, JN, JF) in [(OURS, JAX)]:
        assert_same(F.jvp(L.sort, (e,), (e,)), JF.jvp(JL.sort, (e,), (e,)), "sort jvp")
        assert_same(F.grad(lambda a: N.sort(a).sum())(e), JF.grad(lambda a: JN.sort(a).sum())(e))  # noqa: B023 (called in the same iteration)
        k = min(shape[-1], 2)
        assert_same(F.jvp(lambda a: L.top_k(a, k)[0], (e,), (e,)),  # noqa: B023 (called in the same iteration)
                    JF.jvp(lambda a: JL.top_k(a, k)[0], (e,), (e,)), "top_k jvp")  # noqa: B023 (called in the same iteration)


def test_pow_with_an_integer_exponent():
    v = np.array([1.0, 2.0, 3.0], np.float32)
    assert_same(fe.jacrev(fe.jit(lax.pow))(v, 2), jax.jacrev(jax.jit(jax.lax.pow))(v, 2))
    e = np.array([1, 2, 3], np.int32)
    for x, y in [(v, e), (v, np.int8(3)), (2.0, np.int8(3)), (np.float16(2), 3), (2.0, 3)]:
        assert_same(lax.pow(x, y), jax.lax.pow(x, y), f"pow({x!r}, {y!r})")
    assert_same(fe.jit(lax.pow)(v, 3), jax.jit(jax.lax.pow)(v, 3))
    assert_same(fe.vmap(lax.pow)(v, e), jax.vmap(jax.lax.pow)(v, e))
    assert_same(fe.grad(lax.pow, (0, 1), allow_int=True)(np.float32(2), 3)[0],
                jax.grad(jax.lax.pow, (0, 1), allow_int=True)(np.float32(2), 3)[0])


def test_device_put_of_a_traced_value():
    v = np.array([1.0, 2.0, 3.0], np.float32)

    def prog(F):
        return lambda a: (F.device_put(a) * 2).sum()
    assert_same(fe.jit(prog(fe))(v), jax.jit(prog(jax))(v))
    assert_same(fe.vmap(prog(fe))(v), jax.vmap(prog(jax))(v))
    assert_same(fe.grad(prog(fe))(v), jax.grad(prog(jax))(v))
    dev = fe.devices()[0]
    assert_same(fe.jit(lambda a: fe.device_put(a, dev) + 1)(v), v + 1)


# ----------------------------------------------------------------------------- too strict


def _scan_with_int_carry(L):
    return lambda x: L.scan(lambda c, a: ((c[0] + a, c[1] + 1), a * 2), (0.0, 0), x)


@pytest.mark.parametrize("int_ct", [np.zeros((), np.int32), np.int32(5), True, 0.0])
def test_scan_vjp_takes_any_cotangent_for_an_integer_output(int_ct):
    v = np.array([1.0, 2.0, 3.0], np.float32)
    ct = ((np.float32(1), int_ct), np.ones(3, np.float32))
    ours = fe.vjp(_scan_with_int_carry(lax), v)[1](ct)
    assert_same(ours, jax.vjp(_scan_with_int_carry(jax.lax), v)[1](ct))


def _cond_passthrough(L):
    return lambda p, x, y: L.cond(p, lambda a, b: (a + 1, b), lambda a, b: (a - 1, b), x, y)


def _switch_passthrough(L):
    return lambda i, x, y: L.switch(i, [lambda a, b: (a + 1, b, a), lambda a, b: (a - 1, b, a),
                                        lambda a, b: (a * 2, b, a)], x, y)


def test_cond_with_batched_predicate_keeps_passed_through_operands_unbatched():
    v = np.array([1.0, 2.0, 3.0], np.float32)
    p = np.array([True, False, True])
    ours = fe.vmap(_cond_passthrough(lax), in_axes=(0, 0, None), out_axes=(0, None))(p, v, np.float32(2))
    theirs = jax.vmap(_cond_passthrough(jax.lax), in_axes=(0, 0, None), out_axes=(0, None))(
        p, v, np.float32(2))
    assert_same(ours, theirs)
    i = np.array([2, 0, 1], np.int32)
    y = np.float32(5)
    ours = fe.vmap(_switch_passthrough(lax), in_axes=(0, 0, None), out_axes=(0, None, 0))(i, v, y)
    theirs = jax.vmap(_switch_passthrough(jax.lax), in_axes=(0, 0, None), out_axes=(0, None, 0))(i, v, y)
    assert_same(ours, theirs)


FORI_GRADS = {
    "identity body": lambda L: (lambda x, n: L.fori_loop(0, n, lambda i, c: c, x)),
    "identity times x": lambda L: (lambda x, n: L.fori_loop(0, n, lambda i, c: c, x) * x),
    "counter carry": lambda L: (lambda x, n: L.fori_loop(0, n, lambda i, c: (c[0] + 1.0, c[1]),
                                                         (0.0, x))[1]),
    "while passthrough": lambda L: (lambda x, n: L.while_loop(
        lambda c: c[0] < n, lambda c: (c[0] + 1, c[1]), (0, x))[1] * 3.0),
}


@pytest.mark.parametrize("name", list(FORI_GRADS))
def test_reverse_mode_through_loop_with_traced_bounds_and_read_only_carry(name):
    prog = FORI_GRADS[name]
    ours = fe.jit(fe.grad(prog(lax)))(np.float32(2), 3)
    assert_same(ours, jax.jit(jax.grad(prog(jax.lax)))(np.float32(2), 3))


def test_reverse_mode_through_loop_with_traced_bounds_still_refused():
    def prog(L):
        return lambda x, n: L.fori_loop(0, n, lambda i, c: c * 2.0, x)
    with pytest.raises(ValueError) as theirs:
        jax.jit(jax.grad(prog(jax.lax)))(np.float32(2), 3)
    with pytest.raises(ValueError) as ours:
        fe.jit(fe.grad(prog(lax)))(np.float32(2), 3)
    assert str(ours.value) == str(theirs.value)


def test_while_loop_returns_read_only_carries_as_given():
    # JAX: a carry the body passes through and the condition ignores is returned as it came
    for init in [(0, 2.0), (0, np.float32(2.0))]:
        ours = lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1]), init)
        theirs = jax.lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1]), init)
        assert_same(ours, theirs)
        assert type(ours[1]) is type(theirs[1])


def _scan_unroll(L, unroll):
    return L.scan(lambda c, a: (c + a, c), 0.0, np.arange(3.0, dtype=np.float32), unroll=unroll)


@pytest.mark.parametrize("unroll", [-1, 1.5, None, "a", 2.0])
def test_scan_refuses_bad_unroll_as_jax(unroll):
    with pytest.raises(Exception) as theirs:
        _scan_unroll(jax.lax, unroll)
    with pytest.raises(Exception) as ours:
        _scan_unroll(lax, unroll)
    assert type(ours.value) is type(theirs.value)
    if unroll in (-1, 2.0):
        assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("unroll", [0, 1, 2, 5, True, False, np.int32(2)])
def test_scan_accepts_good_unroll_as_jax(unroll):
    assert_same(_scan_unroll(lax, unroll), _scan_unroll(jax.lax, unroll))


def test_scan_refuses_traced_unroll_and_fori_loop_unroll_with_traced_bounds():
    with pytest.raises(jax.errors.ConcretizationTypeError) as theirs:
        jax.jit(lambda u: _scan_unroll(jax.lax, u))(2)
    with pytest.raises(ConcretizationTypeError) as ours:
        fe.jit(lambda u: _scan_unroll(lax, u))(2)
    assert str(ours.value).splitlines()[:2] == str(theirs.value).splitlines()[:2]

    def fori(L, unroll):
        return lambda n: L.fori_loop(0, n, lambda i, c: c + i, 0.0, unroll=unroll)
    for unroll in (-1, 2):
        with pytest.raises(ValueError) as theirs:
            jax.jit(fori(jax.lax, unroll))(3)
        with pytest.raises(ValueError) as ours:
            fe.jit(fori(lax, unroll))(3)
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(ValueError) as theirs:
        jax.lax.fori_loop(0, 3, lambda i, c: c + i, 0.0, unroll=-1)
    with pytest.raises(ValueError) as ours:
        lax.fori_loop(0, 3, lambda i, c: c + i, 0.0, unroll=-1)
    assert str(ours.value) == str(theirs.value)


# ----------------------------------------------------------------------------- trace caching


def _calls(L, kind, body, body_i):
    """A call of ``kind`` running the counted functions on (x, n): n is a loop bound."""
    xs = np.arange(3.0, dtype=np.float32)
    return {
        "while_loop": lambda x, n: L.while_loop(lambda c: c < 3, body, x),
        "cond": lambda x, n: L.cond(True, body, body, x),
        "switch": lambda x, n: L.switch(1, [body, body, body], x),
        "scan": lambda x, n: L.scan(body_i, x, xs),
        "fori_loop static": lambda x, n: L.fori_loop(0, 3, body_i, x),
        "fori_loop traced": lambda x, n: L.fori_loop(0, n, body_i, x),
    }[kind]


@pytest.mark.parametrize("kind", ["while_loop", "cond", "switch", "scan", "fori_loop static",
                                  "fori_loop traced"])
def test_control_flow_functions_traced_once_per_signature(kind):
    counts = []
    for L, _, F in (OURS, JAX):
        n = [0]

        def body(c):
            n[0] += 1  # noqa: B023 (called in the same iteration)
            return c + 1

        def body_i(i, c):
            n[0] += 1  # noqa: B023 (called in the same iteration)
            return (c + i, i) if kind == "scan" else c + 1
        run = _calls(L, kind, body, body_i)
        for _ in range(3):
            if kind != "fori_loop traced":
                run(np.float32(1), 3)
            F.jit(lambda x, n: run(x, n))(np.float32(1), 3)  # each a new jit trace  # noqa: B023 (called in the same iteration)
        counts.append(n[0])
    assert counts[0] == counts[1] == 1


def test_trace_cache_holds_functions_weakly_and_keys_on_types():
    import gc
    import weakref
    n = [0]

    def body(c):
        n[0] += 1
        return c + 1
    lax.while_loop(lambda c: c < 3, body, np.float32(1))
    lax.while_loop(lambda c: c < 3, body, np.float64(1).astype(np.float16))  # new avals: a trace
    lax.while_loop(lambda c: c.sum() < 3, body, np.zeros(2, np.float32))  # new shape: a trace
    assert n[0] == 3
    ref = weakref.ref(body)
    del body
    gc.collect()
    assert ref() is None


def test_trace_cache_does_not_reuse_captured_tracers_across_traces():
    def make(L):
        def f(x, w):
            def body(c):
                return c + w  # w is a tracer of this jit's trace
            return L.while_loop(lambda c: c < 10.0, body, x), L.while_loop(lambda c: c < 20.0, body, x)
        return f
    for w in (1.0, 2.0, 4.0):
        assert_same(fe.jit(make(lax))(np.float32(0), np.float32(w)),
                    jax.jit(make(jax.lax))(np.float32(0), np.float32(w)))


# ----------------------------------------------------------------------------- error texts

_x, _v = np.float32(1), np.ones(3, np.float32)


def _nt():
    import collections
    return collections.namedtuple("P", "a b")


BAD_CALLS = {
    "cond structure": lambda L, N: L.cond(True, lambda a: a, lambda a: (a, a), _x),
    "cond dict keys": lambda L, N: L.cond(True, lambda a: {"a": a}, lambda a: {"b": a}, _x),
    "cond dict count": lambda L, N: L.cond(True, lambda a: {"a": a}, lambda a: {"a": a, "b": a}, _x),
    "cond namedtuple": lambda L, N: L.cond(True, lambda a: _nt()(a, a), lambda a: (a, a), _x),
    "cond list vs tuple": lambda L, N: L.cond(True, lambda a: [a, a], lambda a: (a, a), _x),
    "cond None": lambda L, N: L.cond(True, lambda a: None, lambda a: a, _x),
    "cond nested": lambda L, N: L.cond(True, lambda a: ([a], (a, a)), lambda a: ((a,), (a,)), _x),
    "cond dtype": lambda L, N: L.cond(True, lambda a: a, lambda a: N.int32(1), _x),
    "cond shape": lambda L, N: L.cond(True, lambda a: a, lambda a: N.ones(2), _x),
    "cond two types": lambda L, N: L.cond(True, lambda a: (a, a.astype(np.int32)),
                                          lambda a: (N.ones(2), a), _x),
    "cond pred shape": lambda L, N: L.cond(np.array([True, False]), lambda a: a, lambda a: a, _x),
    "cond pred str": lambda L, N: L.cond("a", lambda a: a, lambda a: a, _x),
    "cond pred complex": lambda L, N: L.cond(np.complex64(1), lambda a: a, lambda a: a, _x),
    "cond not callable": lambda L, N: L.cond(True, 1, lambda a: a, _x),
    "switch index float": lambda L, N: L.switch(1.0, [lambda a: a, lambda a: a], _x),
    "switch index shape": lambda L, N: L.switch(np.array([0, 1]), [lambda a: a, lambda a: a], _x),
    "switch index bool": lambda L, N: L.switch(True, [lambda a: a, lambda a: a], _x),
    "switch empty": lambda L, N: L.switch(0, [], _x),
    "switch dtype": lambda L, N: L.switch(0, [lambda a: a, lambda a: a, lambda a: a.astype(np.int32)], _x),
    "switch structure": lambda L, N: L.switch(0, [lambda a: a, lambda a: [a]], _x),
    "while cond float": lambda L, N: L.while_loop(lambda c: c, lambda c: c + 1, _x),
    "while cond weak": lambda L, N: L.while_loop(lambda c: 1.0, lambda c: c, _x),
    "while cond vector": lambda L, N: L.while_loop(lambda c: c < 3, lambda c: c + 1, _v),
    "while cond pair": lambda L, N: L.while_loop(lambda c: (c < 3, c < 3), lambda c: c + 1, _x),
    "while body dtype": lambda L, N: L.while_loop(lambda c: c < 3, lambda c: c.astype(np.int32), _x),
    "while body shape": lambda L, N: L.while_loop(lambda c: c < 3, lambda c: N.ones(2), _x),
    "while body structure": lambda L, N: L.while_loop(lambda c: c < 3, lambda c: (c, c), _x),
    "while body nested": lambda L, N: L.while_loop(lambda c: c[0] < 3,
                                                   lambda c: (c[0], (c[1][0], c[1][0])), (_x, (_x,))),
    "while body component": lambda L, N: L.while_loop(
        lambda c: c[0] < 3, lambda c: (c[0], c[1].astype(np.int32)), (_x, _x)),
    "while not callable": lambda L, N: L.while_loop(1, lambda c: c, _x),
    "scan carry dtype": lambda L, N: L.scan(lambda c, a: (c.astype(np.int32), a), _x, _v),
    "scan carry shape": lambda L, N: L.scan(lambda c, a: (N.ones(2), a), _x, _v),
    "scan carry structure": lambda L, N: L.scan(lambda c, a: ((c, c), a), _x, _v),
    "scan carry dict": lambda L, N: L.scan(lambda c, a: ({"b": c["a"]}, a), {"a": _x}, _v),
    "scan carry nested": lambda L, N: L.scan(lambda c, a: ((c[0], [c[1][0]]), a), (_x, (_x,)), _v),
    "scan xs lengths": lambda L, N: L.scan(lambda c, a: (c, a), _x, (_v, np.ones(4, np.float32))),
    "scan length": lambda L, N: L.scan(lambda c, a: (c, a), _x, _v, length=4),
    "scan nothing": lambda L, N: L.scan(lambda c, a: (c, a), _x, None),
    "scan not a pair": lambda L, N: L.scan(lambda c, a: c, _x, _v),
    "scan a triple": lambda L, N: L.scan(lambda c, a: (c, a, 1.0), _x, _v),
    "scan a dict": lambda L, N: L.scan(lambda c, a: {"a": c}, _x, _v),
    "scan not callable": lambda L, N: L.scan(1, _x, _v),
    "fori bound dtypes": lambda L, N: L.fori_loop(np.int32(0), np.int16(3), lambda i, c: c, _x),
    "fori carry dtype": lambda L, N: L.fori_loop(0, 3, lambda i, c: c.astype(np.int32), _x),
    "fori not callable": lambda L, N: L.fori_loop(0, 3, 1, _x),
}


def _error(call, L, N):
    with pytest.raises(Exception) as e:
        call(L, N)
    # a loop carry's leaf is named by its class: JAX's ShapedArray, our Aval
    return type(e.value), str(e.value).replace("jax._src.core.ShapedArray", "frontend.core.ir.Aval")


@pytest.mark.parametrize("name", list(BAD_CALLS))
def test_control_flow_errors_as_jax(name):
    call = BAD_CALLS[name]
    assert _error(call, lax, fnp) == _error(call, jax.lax, jnp)
