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
    x, y = zip(*itertools.product(xs, ys))
    return np.array(x, dtype), np.array(y, dtype)


def _int_pairs(dtype):
    lo = 0 if np.dtype(dtype).kind == "u" else -7
    xs = [v for v in (-7, -2, -1, 0, 1, 2, 7, np.iinfo(dtype).max) if v >= lo]
    ys = [v for v in (0, 1, -1, 2, -2, 3, -3) if v >= lo]
    x, y = zip(*itertools.product(xs, ys))
    return np.array(x, dtype), np.array(y, dtype)


def _same_with_zero_signs(ours, theirs, what):
    """assert_same, and signed zeros (and the nan positions) in the same places."""
    assert_same(ours, theirs, what)
    for o, t in zip(jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)):
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
