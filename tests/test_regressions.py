"""Regression tests for bugs found by the differential fuzzer (tests/test_fuzz.py) and the
other trust checks. Each test names the bug; the fix is in the commit named alike."""
import jax
import jax.numpy as jnp
import numpy as np
from harness import assert_same

import frontend as fe
import frontend.numpy as fnp


def test_power_python_int_exponent_keeps_weak_type():
    # bug: power(3, 2) was a strong int32 (the square-and-multiply path); jax.numpy takes its
    # integer_pow path for a Python int exponent, which keeps x's (weak) type
    assert_same(fnp.power(3, 2), jnp.power(3, 2))
    assert_same(fe.jit(lambda: fnp.power(3, 2))(), jnp.power(3, 2))
    for args in [(3, 2), (np.int32(3), 2), (3.0, 2.0)]:  # traced exponent: general path
        assert_same(fe.jit(fnp.power)(*args), jax.jit(jnp.power)(*args), str(args))
    out = fe.vmap(lambda x: (x, fnp.power(3, 2)), out_axes=(0, 0))(np.ones(3, np.float32))
    assert_same(out, jax.vmap(lambda x: (x, jnp.power(3, 2)))(np.ones(3, np.float32)))


def test_power_bool_array_python_int_exponent_is_strong_int():
    # bug: power(bool_array, 2) promoted with the weak exponent to a weak int32; jax.numpy's
    # integer_pow path gives x's numeric dtype (strong int32)
    x = np.array([True, False])
    for args in [(x, 2), (np.array([2], np.int8), 2), (np.float32(2), 3), (x, 2.0)]:
        assert_same(fnp.power(*args), jnp.power(*args), str(args))
        assert_same(fe.jit(lambda x: fnp.power(x, args[1]))(args[0]),  # noqa: B023
                    jax.jit(lambda x: jnp.power(x, args[1]))(args[0]), str(args))  # noqa: B023


def test_comparison_of_weak_operands_is_weak():
    # bug: comparisons always returned a strong bool; JAX's is weak when every (promoted)
    # operand is weak, e.g. less(bool_array, -1) compares two weak int32 values
    cases = [(np.array([True, False]), -1), (2, 3), (2, 3.0), (np.float32(1), 2.0)]
    for a, b in cases:
        for op in ("less", "equal", "greater_equal", "not_equal"):
            assert_same(getattr(fnp, op)(a, b), getattr(jnp, op)(a, b), f"{op}{(a, b)}")
    f = lambda x: fnp.less(fnp.invert(x), -1)
    assert_same(fe.vmap(fe.vmap(f))(np.ones((2, 3), bool)),
                jax.vmap(jax.vmap(lambda x: jnp.less(jnp.invert(x), -1)))(np.ones((2, 3), bool)))


def test_new_threads_start_in_the_eval_trace():
    # bug: the current-trace context variable had no default, so any op or jitted call in a
    # new thread raised LookupError(<ContextVar name='vmaplab_trace'>)
    import threading
    out = {}

    def work():
        try:
            out["eager"] = np.asarray(fnp.sin(np.zeros(2, np.float32)) + 1)
            out["jit"] = np.asarray(fe.jit(lambda x: x * 2)(np.ones(2, np.float32)))
            out["vmap"] = np.asarray(fe.vmap(lambda x: x.sum())(np.ones((2, 3), np.float32)))
        except BaseException as e:  # noqa: BLE001
            out["error"] = e

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert "error" not in out, out.get("error")
    assert out["eager"].tolist() == [1, 1] and out["jit"].tolist() == [2, 2]
    assert out["vmap"].tolist() == [3, 3]


def test_logical_ops_of_weak_bools_are_strong():
    # bug (exposed once comparisons became weak): logical_and/or/xor of weak bool arrays
    # stayed weak; jax.numpy treats bool operands as strong (non-bool ones become x != 0)
    for m_ours, m_jax in [(fnp, jnp)]:
        w_ours = m_ours.not_equal(m_ours.broadcast_to(2.0, (2,)), 0.0)
        w_jax = m_jax.not_equal(m_jax.broadcast_to(2.0, (2,)), 0.0)
        for n in ("logical_and", "logical_or", "logical_xor"):
            assert_same(getattr(m_ours, n)(w_ours, w_ours), getattr(m_jax, n)(w_jax, w_jax), n)
    a = np.array([1, 0], np.int32)
    assert_same(fnp.logical_or(a, 1.5), jnp.logical_or(a, 1.5))
    assert_same(fnp.logical_and(np.array([True, False]), 1), jnp.logical_and(np.array([True, False]), 1))


def test_scan_over_zero_length_xs_lowers_without_a_loop():
    # found by the slow fuzz run: the loop body sliced one row of a zero-length axis, which
    # the StableHLO verifier rejects; with no iteration the carry passes through
    import jax

    from frontend import lax as flax

    def f(x):
        return flax.scan(lambda c, v: (c + v, c * v), fnp.zeros((1,), np.float32), x[0:0])

    def g(x):
        return jax.lax.scan(lambda c, v: (c + v, c * v), jax.numpy.zeros((1,), np.float32), x[0:0])

    x = np.ones((2, 1), np.float32)
    c, ys = fe.jit(fe.vmap(f))(np.ones((3, 2, 1), np.float32))
    jc, jys = jax.vmap(g)(np.ones((3, 2, 1), np.float32))
    assert c.shape == jc.shape and ys.shape == jys.shape == (3, 0, 1)
    np.testing.assert_array_equal(np.asarray(c), np.asarray(jc))
    c1, ys1 = fe.jit(f)(x)
    assert ys1.shape == (0, 1) and np.asarray(c1).tolist() == [0.0]


def test_floor_divide_and_remainder_keep_weak_types():
    # found by the slow fuzz run: the internal constants were strong, so a weak int result
    # of floor_divide/remainder came out strong (JAX keeps it weak)
    import jax
    x = np.array([True, False])
    for op in ("floor_divide", "remainder"):
        for c in (2, 2.5):
            ours = fe.vmap(lambda v: getattr(fnp, op)(fnp.add(c, v), 2))(x)  # noqa: B023
            theirs = jax.vmap(lambda v: getattr(jnp, op)(jnp.add(c, v), 2))(x)  # noqa: B023
            assert_same(ours, theirs, f"{op} {c}")


def test_jit_of_a_callable_whose_dict_has_a_fun_attribute():
    # functools.update_wrapper copied the wrapped object's __dict__ over jit's own attributes,
    # so jit(vmap(obj)) with obj.fun set ran obj.fun unbatched (found with custom_vmap)
    class Callable:
        def __init__(self):
            self.fun = lambda x: x.sum()    # not what __call__ does

        def __call__(self, x):
            return x * 2.0

    x = np.ones((3, 2), np.float32)
    np.testing.assert_array_equal(np.asarray(fe.jit(fe.vmap(Callable()))(x)), x * 2)
    np.testing.assert_array_equal(np.asarray(fe.jit(Callable())(x)), x * 2)


def test_float_constants_in_exponent_notation_lower():
    """repr(1e-06) has no '.', which MLIR's float literal syntax needs (found by the
    autodiff finite-difference table)."""
    x = np.float32(3.0)
    got = fe.jit(lambda x: x * 1e-6 + 1e20)(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(jnp.float32(3.0) * 1e-6 + 1e20))


def test_inexact_function_of_a_weak_bool_is_strong():
    """sin(x >= -0.5) for a bool x: the comparison is a weak bool, its float is strong, as in
    JAX (found by the slow autodiff fuzz run)."""
    for f, fj in [(lambda x: fnp.sin(x >= -0.5), lambda x: jnp.sin(x >= -0.5)),
                  (lambda x: fnp.exp(fnp.greater_equal(x, -0.5)), lambda x: jnp.exp(jnp.greater_equal(x, -0.5)))]:
        x = np.array([True, False])
        assert_same(fe.jit(f)(x), jax.jit(fj)(x))


def test_empty_constants_with_dims_after_the_zero():
    """A captured empty constant of shape (2, 0, 3) was written as dense<[[[]]]>, whose
    inferred shape (1, 1, 0) the parser rejects; empty constants are splats now (found by
    the constant-folding pass on a fuzz program)."""
    consts = [np.zeros((2, 0, 3), np.float32), np.zeros((0, 2), np.bool_),
              np.zeros((1, 0), np.complex64), np.zeros((0,), np.int32)]
    outs = fe.jit(lambda: [c for c in consts])()
    for o, c in zip(outs, consts, strict=True):
        assert o.shape == c.shape and o.dtype == c.dtype


def test_vjp_primal_output_reading_a_numpy_constant_under_jit():
    """A numpy constant inside a function differentiated in reverse mode is a value of the
    enclosing trace (the linear graph's trace handed it on as its own, so the primal output
    escaped: found by the op table after main's Trace.const)."""
    idx = np.array([3, 0, 3, -1], np.int32)
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    f = lambda m: lambda v: m.take(v, idx, axis=0, mode="clip") * 2.0  # noqa: E731
    got = fe.jit(lambda v: fe.vjp(f(fnp), v)[0])(x)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(jax.vjp(f(jnp), x)[0]))


def test_power_of_a_python_scalar_adds_no_constant():
    """x ** 2.0 keeps 2.0 a literal of the graph (reading the exponent's dtype made an
    unused constant of it, which a graph without passes, as the CLI prints, showed)."""
    g = fe.make_graph(lambda h: h ** 2.0, passes=())(fe.ShapeDtypeStruct((3,), np.float32))
    assert not g.constvars and [e.prim.name for e in g.eqns] == ["pow"], g


def test_top_k_returns_a_list_as_jax():
    """lax.top_k gives [values, indices] (a list, as JAX's), eagerly and from a jit."""
    from frontend import lax
    x = np.array([1.0, 4.0, 2.0], np.float32)
    ours, theirs = lax.top_k(x, 2), jax.lax.top_k(x, 2)
    assert type(ours) is type(theirs) is list
    assert type(fe.jit(lambda v: lax.top_k(v, 2))(x)) is list
    assert_same(ours, theirs)
