"""Values, dtypes and weak types that must equal JAX's where they once did not: division and
remainders at zero, signed zeros and infinities; linspace/logspace/geomspace with broadcast
endpoints; reduction dtypes; fnp.array's dtype inference and weak types; second derivatives
of scatter_max/min out of bounds; lax.complex's VJP with broadcasting; grad of a vmapped cond
with a batched predicate."""
from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from harness import assert_same

import frontend as fe
import frontend.numpy as fnp

# ----------------------------------------------------------------------------- division at zero

_DIVISION = ("floor_divide", "remainder", "mod", "fmod", "divmod")
_FLOATS = (ml_dtypes.bfloat16, np.float16, np.float32)
_INTS = (np.int8, np.int32, np.uint8, np.uint32)


def _float_pairs(dtype):
    """Every (x, y) of dividends and divisors at zero, signed zero, infinity and nan."""
    xs = [-2.0, -1.0, -0.0, 0.0, 1.0, 2.0, 5.5, np.inf, -np.inf, np.nan]
    ys = [0.0, -0.0, 2.0, -2.0, 1.5, -1.5, np.inf, -np.inf, np.nan]
    x, y = zip(*itertools.product(xs, ys), strict=True)
    return np.array(x, dtype), np.array(y, dtype)


def _int_pairs(dtype):
    lo = 0 if np.dtype(dtype).kind == "u" else -7
    xs = [v for v in (-7, -2, -1, 0, 1, 2, 7, np.iinfo(dtype).max) if v >= lo]
    ys = [v for v in (0, 1, -1, 2, -2, 3, -3) if v >= lo]
    x, y = zip(*itertools.product(xs, ys), strict=True)
    return np.array(x, dtype), np.array(y, dtype)


def _same_with_zero_signs(ours, theirs, what):
    """assert_same, and signed zeros (and the nan positions) in the same places."""
    assert_same(ours, theirs, what)
    for o, t in zip(jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs), strict=True):
        o, t = np.asarray(o), np.asarray(t)
        if o.dtype.kind in "fV" or o.dtype == ml_dtypes.bfloat16:
            o64, t64 = o.astype(np.float64), t.astype(np.float64)
            np.testing.assert_array_equal(np.signbit(o64), np.signbit(t64), err_msg=f"{what}: signs")
            np.testing.assert_array_equal(np.isnan(o64), np.isnan(t64), err_msg=f"{what}: nans")


def _all_divisions(np_):
    return lambda x, y: {name: getattr(np_, name)(x, y) for name in _DIVISION}


def _check_division(dtypes_, pairs, eager=(np.float32, np.int32)):
    """One program per dtype computes every function of the family on every pair."""
    for dtype in dtypes_:
        x, y = pairs(dtype)
        what = np.dtype(dtype).name
        _same_with_zero_signs(fe.jit(_all_divisions(fnp))(x, y),
                              jax.jit(_all_divisions(jnp))(x, y), f"jit {what}")
        if dtype in eager:
            _same_with_zero_signs(_all_divisions(fnp)(x, y), _all_divisions(jnp)(x, y),
                                  f"eager {what}")


def test_floor_divide_by_zero_is_x_over_zero():
    """The issue's case: [-2, -1, 0, 1, 2] // 0.0 is [-inf, -inf, nan, inf, inf] (and the
    other way round for -0.0), not nan everywhere; a weakly typed Python divisor."""
    x = np.array([-2, -1, 0, 1, 2], np.float32)
    for y in (0.0, -0.0):
        got = fnp.floor_divide(x, y)
        _same_with_zero_signs(got, jnp.floor_divide(x, y), f"x // {y}")
        with np.errstate(divide="ignore", invalid="ignore"):
            np.testing.assert_array_equal(np.asarray(got), np.floor_divide(x, np.float32(y)))


def test_division_family_floats_vs_jax():
    _check_division(_FLOATS, _float_pairs)


def test_division_family_float64_vs_jax(x64):
    _check_division((np.float64,), _float_pairs)


def test_division_family_ints_vs_jax():
    _check_division(_INTS, _int_pairs)


def test_division_family_weak_scalars_booleans_and_refusals():
    x = np.array([-3.0, -0.0, 0.0, 4.0], np.float16)
    b = np.array([True, False])
    for a, c in ((x, 0.0), (x, -0.0), (7, x), (7, 0), (-7.5, 0.0), (np.int8(5), 0), (b, True),
                 (True, True), (b, 2)):
        _same_with_zero_signs(fe.jit(_all_divisions(fnp))(a, c),
                              jax.jit(_all_divisions(jnp))(a, c), f"({a!r}, {c!r})")
    for name in _DIVISION:
        with pytest.raises(TypeError):
            getattr(jnp, name)(np.array([1j]), 2)
        with pytest.raises(TypeError, match="floor_divide does not support complex" if
                           name == "floor_divide" else "rem does not accept dtype complex64"):
            getattr(fnp, name)(np.array([1j]), 2)


# ----------------------------------------------------------------------------- reduction dtypes

_REDUCTIONS = ("sum", "prod", "max", "min", "all", "any", "mean", "var", "std", "nansum",
               "nanprod", "nanmean", "nanvar", "nanstd", "count_nonzero", "ptp", "average")
_CUMULATIVE = ("cumsum", "cumprod")
_REDUCTION_KWARGS = ({}, {"promote_integers": False}, {"dtype": np.uint8}, {"dtype": np.bool_},
                     {"dtype": np.float16})
_REDUCTION_INPUTS = (np.bool_, np.int8, np.uint8, np.float16)


def _accepts(name, kw, x) -> bool:
    """Whether JAX takes this input and keyword set for this function (its errors are not
    checked here)."""
    try:
        jax.eval_shape(lambda x: getattr(jnp, name)(x, axis=1, **kw), x)
        return True
    except (TypeError, ValueError):
        return False


def _all_reductions(np_, cases):
    return lambda x: {f"{name} {kw}": getattr(np_, name)(x, axis=1, **kw) for name, kw in cases}


@pytest.mark.parametrize("dtype", _REDUCTION_INPUTS, ids=lambda d: np.dtype(d).name)
def test_reduction_dtypes_vs_jax(dtype):
    """Every reduction and cumulative function with and without promote_integers and with
    each dtype= JAX accepts: dtypes, weak types and values (one program per input dtype).
    The issue's case: sum/prod of bool with promote_integers=False are int32 (were bool)."""
    x = (np.arange(6).reshape(2, 3) % 3).astype(dtype)
    cases = [(name, kw) for name in _REDUCTIONS + _CUMULATIVE for kw in _REDUCTION_KWARGS
             if _accepts(name, kw, x) and not (kw.get("dtype") is not None and name == "nanvar"
                                                 and not np.issubdtype(kw["dtype"], np.inexact))]
    assert_same(fe.jit(_all_reductions(fnp, cases))(x), jax.jit(_all_reductions(jnp, cases))(x),
                np.dtype(dtype).name)


def test_reduction_dtype_edges_vs_jax(x64):
    """With 64-bit types on: a boolean sum with promote_integers=False is still int32, and the
    mean/average/sin of small integers float32 (JAX's to_inexact), not float64."""
    fns = {"sum": lambda n, x: n.sum(x, promote_integers=False),
           "prod": lambda n, x: n.prod(x, promote_integers=False),
           "average": lambda n, x: n.average(x), "sin": lambda n, x: n.sin(x),
           "floor_divide": lambda n, x: n.floor_divide(x, x),
           "nanvar_int": lambda n, x: n.nanvar(x, dtype=np.int32)}
    for dtype in (np.bool_, np.int8, np.uint32, np.int64):
        x = np.array([1, 0, 1, 1]).astype(dtype)
        assert_same(fe.jit(lambda x: {k: f(fnp, x) for k, f in fns.items()})(x),
                    jax.jit(lambda x: {k: f(jnp, x) for k, f in fns.items()})(x),
                    np.dtype(dtype).name)
    with pytest.raises(ValueError, match="dtype argument to jnp.std must be inexact; got int32"):
        fnp.std(np.ones(3), dtype=np.int32)


# ----------------------------------------------------------------------------- array's dtypes

_ARRAY_ITEMS = [
    1, 1.0, True, 1j, np.int8(1), np.float16(1), [1], [1.0], [True], [1, 2.0], [np.int8(1), 2],
    [True, 1], [np.float16(1), 1.5], [0, np.float16(1)], [np.int8(1), np.uint8(2)],
    [np.float16(1), np.int32(3)], [[1, 2], np.array([3, 4], np.int8)],
    [np.array([1.0, 2.0], np.float16), [3, 4]], [np.array(1, np.int8), 2.5], [1, 1j],
    [ml_dtypes.bfloat16(1), 2], [ml_dtypes.bfloat16(1), np.float16(2)], [True, np.int8(3)],
    (1, 2.0), [[1], [2.5]], [np.float64(1), 2], [np.int64(3)], [], [[]],
]


def _typed(x):
    return np.asarray(x).dtype, x.weak_type, np.asarray(x).tolist()


@pytest.mark.parametrize("fn", ["array", "asarray"])
def test_array_dtype_inference_vs_jax(fn):
    """dtype and weak type of fnp.array/asarray of Python scalars, numpy scalars, arrays and
    (nested) lists of them, eagerly and under jit. The issue's case: [0, np.float16(1)] is
    float16 (was float32)."""
    ours, theirs = getattr(fnp, fn), getattr(jnp, fn)
    for item in _ARRAY_ITEMS:
        expected = _typed(theirs(item))
        assert _typed(ours(item)) == expected, f"{fn}({item!r})"
        assert _typed(fe.jit(lambda: ours(item))()) == expected, f"jit: {fn}({item!r})"  # noqa: B023 (called in the same iteration)
    # an Array (of ours or JAX's) among the items counts as strong
    for item in ([fnp.asarray(np.int8(1)), 2], [jnp.asarray(np.int8(1)), 2],
                 [fnp.asarray(np.float16(1)), np.array(2.0)], [fnp.asarray(1.5), 2]):
        assert _typed(ours(item)) == _typed(theirs([jnp.asarray(np.asarray(x)) if isinstance(x, fe.Array) else x
                                                    for x in item])), repr(item)


@pytest.mark.parametrize("fn", ["array", "asarray"])
def test_array_of_traced_items_is_strong_as_jax(fn):
    """fe.jit(fnp.array)([1]) is strongly typed (a list makes a strong array; a traced scalar
    alone keeps its weak type), as in JAX."""
    ours, theirs = getattr(fnp, fn), getattr(jnp, fn)
    for args in ([1], 1, 1.0, [1, 2.0], np.int8(3), [[1.5], [2]], (True, 2)):
        assert _typed(fe.jit(ours)(args)) == _typed(jax.jit(theirs)(args)), f"jit({fn})({args!r})"


def test_array_out_of_range_ints_vs_jax():
    for item, dtype in (([np.uint8(1), -1], None), ([np.array([1, 2], np.uint8), [300, 2]], None),
                        ([300], np.uint8), (300, np.uint8), ([2**40], None)):
        with pytest.raises(OverflowError) as theirs:
            jnp.array(item, dtype)
        with pytest.raises(OverflowError, match=str(theirs.value)):
            fnp.array(item, dtype)


# ----------------------------------------------------------------------------- vmap of cond


def _cond_grads(np_, lax_, api):
    """grads of a vmapped cond with a batched predicate whose untaken branch has a nan
    derivative in the other lanes (sqrt / log of negatives), w.r.t. the batched operand and an
    unbatched closed-over scale."""
    def one(x, c):
        return lax_.cond(x > 0, lambda v: np_.sqrt(v * c), lambda v: v * 0.0, x)

    def two(x, c):
        return lax_.cond(x > 0, lambda v: np_.log(v) * c, lambda v: np_.sqrt(-v * c), x)

    def three(x, c):  # a switch over three branches
        i = np_.clip(x, -1, 1).astype(np.int32) + 1
        return lax_.switch(i, [lambda v: np_.sqrt(-v), lambda v: v * c, lambda v: np_.log(v)], x)

    def grads(xs, c):
        return [api.grad(lambda xs, c: api.vmap(f, in_axes=(0, None))(xs, c).sum(), argnums=(0, 1))(xs, c)  # noqa: B023 (called in the same iteration)
                for f in (one, two, three)]
    return grads


def test_grad_of_vmapped_cond_masks_untaken_branch_vs_jax():
    """The issue's case: [nan, nan, .5, .25] is JAX's [0, 0, .5, .25]: the untaken branch's
    derivative (nan) must not reach the operand in the lanes that did not take it."""
    from frontend import lax
    xs = np.array([-2.0, -1.0, 1.0, 4.0], np.float32)
    c = np.float32(1.0)
    ours = fe.jit(_cond_grads(fnp, lax, fe))(xs, c)
    assert_same(ours, jax.jit(_cond_grads(jnp, jax.lax, jax))(xs, c), "jit")
    np.testing.assert_array_equal(np.asarray(ours[0][0]), [0, 0, 0.5, 0.25])


# ----------------------------------------------------------------------------- scatter_max/min


def _scatter_extremal_derivatives(lax_, api, op):
    dn = lax_.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(),
                                      scatter_dims_to_operand_dims=(0,))

    def derivatives(x, u, idx):
        def f(x, u):
            return (getattr(lax_, op)(x, idx, u, dn) ** 2).sum()
        gx, gu = api.grad(f), api.grad(f, argnums=1)
        return {"x": gx(x, u), "u": gu(x, u),
                "xx": api.grad(lambda x: gx(x, u).sum())(x),
                "uu": api.grad(lambda u: gu(x, u).sum())(u),
                "xu": api.grad(lambda u: gx(x, u).sum())(u)}
    return derivatives


@pytest.mark.parametrize("op", ["scatter_max", "scatter_min"])
def test_scatter_extremal_second_derivatives_out_of_bounds_vs_jax(op):
    """Windows partly out of bounds (dropped by the scatter) and in bounds, with ties: first
    and second derivatives as JAX's (one program per op, the indices its argument). The
    issue's case: the second derivative was nan."""
    from frontend import lax
    x = np.array([0.0, 1, 2, 3, 4], np.float32)
    u = np.array([[5.0, 6.0], [7.0, 8.0], [-1.0, 1.0]], np.float32)
    ours = fe.jit(_scatter_extremal_derivatives(lax, fe, op))
    theirs = jax.jit(_scatter_extremal_derivatives(jax.lax, jax, op))
    for idx in ([[4], [1], [0]], [[-1], [0], [3]], [[3], [4], [9]], [[1], [1], [1]]):
        idx = np.array(idx, np.int32)
        assert_same(ours(x, u, idx), theirs(x, u, idx), f"{idx.ravel()}")


# ----------------------------------------------------------------------------- lax.complex VJP


def _complex_grads(lax_, api):
    def f(a, b):
        z = lax_.complex(a, b) * (1 + 2j)
        return (lax_.real(z) * 3 + lax_.imag(z) * 5).sum()
    return api.grad(f, argnums=(0, 1))


@pytest.mark.parametrize("shapes", [((), (3,)), ((3, 1), (1, 4)), ((2, 3), ()), ((2, 1), (2, 5))],
                         ids=str)
def test_complex_vjp_sums_broadcast_cotangents_vs_jax(shapes):
    """An operand broadcast by lax.complex gets its cotangent summed back to its shape."""
    from frontend import lax
    a = np.arange(1, 1 + int(np.prod(shapes[0]))).reshape(shapes[0]).astype(np.float32)
    b = np.arange(2, 2 + int(np.prod(shapes[1]))).reshape(shapes[1]).astype(np.float32)
    assert_same(fe.jit(_complex_grads(lax, fe))(a, b), jax.jit(_complex_grads(jax.lax, jax))(a, b),
                str(shapes))


# ----------------------------------------------------------------------------- linspace family

_SPACE_ENDS = [(0, 1), (np.zeros(2), np.ones((3, 2))), (np.array([1.0, 2.0]), 10.0),
               (2, np.array([[4], [8]], np.float32)), (np.float16(1), 3),
               (np.array([-1.0, 2.0]), np.array([[-8.0, 16.0]]))]
_SPACE_KWARGS = [{}, {"retstep": True}, {"endpoint": False, "retstep": True}, {"axis": -1},
                 {"axis": 1, "endpoint": False}, {"num": 1, "retstep": True},
                 {"num": 1, "endpoint": False, "retstep": True}, {"num": 0},
                 {"dtype": np.int32, "retstep": True}, {"dtype": np.float16}]


@pytest.mark.parametrize("fn,full", [(fn, False) for fn in ("linspace", "logspace", "geomspace")]
                         + [pytest.param(fn, True, marks=pytest.mark.slow)
                            for fn in ("linspace", "logspace", "geomspace")])
def test_spaces_broadcast_array_end_points_vs_jax(fn, full):
    """Array end points of different shapes broadcast ((2,) and (3, 2) give (4, 3, 2), not
    (4, 2)), with axis=, endpoint=False, retstep (linspace), num 0 and 1 and dtype=: each
    keyword set with end points in turn (every end point used); -m slow: every pair."""
    pairs = (itertools.product(_SPACE_ENDS, _SPACE_KWARGS) if full else
             [(_SPACE_ENDS[i % len(_SPACE_ENDS)], kw) for i, kw in enumerate(_SPACE_KWARGS)])
    for (start, stop), kw in pairs:
        if fn != "linspace":
            kw = {k: v for k, v in kw.items() if k != "retstep"}
        kw = {"num": 4, **kw}
        if kw.get("axis") == 1 and np.ndim(np.broadcast_arrays(start, stop)[0]) == 0:
            continue  # (JAX raises an IndexError of its own; ours is a ValueError naming the axis)
        what = f"{fn}({start!r}, {stop!r}, **{kw})"
        ours, theirs = getattr(fnp, fn)(start, stop, **kw), getattr(jnp, fn)(start, stop, **kw)
        if fn == "logspace" and kw.get("dtype") is np.int32:
            # JAX's float32 exponent of 10 ** 7 is one ulp off (10000011): equal to 2e-6
            assert (ours.dtype, ours.shape) == (theirs.dtype, theirs.shape), what
            np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=2e-6, err_msg=what)
            continue
        assert_same(ours, theirs, what)
