"""dtype promotion, weak types and the 64-bit switch, against jax.numpy."""
import itertools

import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import frontend as fe
import frontend.numpy as fnp
from frontend.core import dtypes

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32,
          np.float16, ml_dtypes.bfloat16, np.float32]
SCALARS = [True, 2, 2.5]


def _val(d):
    return np.ones((2,), d)


@pytest.mark.parametrize("a,b", list(itertools.combinations_with_replacement(range(len(DTYPES)), 2)))
def test_promotion_table_matches_jax(a, b):
    x, y = _val(DTYPES[a]), _val(DTYPES[b])
    assert fnp.result_type(x, y) == jnp.result_type(x, y)
    ours = fnp.add(x, y) if DTYPES[a] is not np.bool_ or DTYPES[b] is not np.bool_ else fnp.logical_or(x, y)
    theirs = jnp.add(x, y) if DTYPES[a] is not np.bool_ or DTYPES[b] is not np.bool_ else jnp.logical_or(x, y)
    assert ours.dtype == theirs.dtype


@pytest.mark.parametrize("d", DTYPES)
@pytest.mark.parametrize("s", SCALARS)
def test_weak_scalars_follow_arrays(d, s):
    x = _val(d)
    ours, theirs = fnp.multiply(x, s), jnp.multiply(x, s)
    assert ours.dtype == theirs.dtype
    assert ours.weak_type == theirs.weak_type


@pytest.mark.parametrize("a,b", list(itertools.product(SCALARS, SCALARS)))
def test_scalar_scalar(a, b):
    ours, theirs = fnp.add(a, b), jnp.add(a, b)
    assert ours.dtype == theirs.dtype and ours.weak_type == theirs.weak_type
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))


def test_creation_dtypes_match_jax():
    cases = [
        (lambda m: m.array(1.0), ()), (lambda m: m.asarray(1), ()), (lambda m: m.array([1.0]), ()),
        (lambda m: m.zeros(3), ()), (lambda m: m.ones((2, 2), m.int32), ()),
        (lambda m: m.full(3, 2.0), ()), (lambda m: m.full(3, 2), ()), (lambda m: m.arange(3), ()),
        (lambda m: m.arange(3.0), ()), (lambda m: m.linspace(0, 1, 5), ()), (lambda m: m.eye(3), ()),
        (lambda m: m.zeros_like(m.ones(2, m.int32)), ()), (lambda m: m.full_like(m.ones(2), 3), ()),
        (lambda m: m.array(np.arange(3, dtype=np.int64)), ()),
    ]
    for f, _ in cases:
        o, t = f(fnp), f(jnp)
        assert o.dtype == t.dtype and o.shape == t.shape and o.weak_type == t.weak_type, (o, t)
        np.testing.assert_allclose(np.asarray(o), np.asarray(t), rtol=1e-6)


def test_x64_switch(x64):
    x = fnp.arange(3)
    assert x.dtype == np.int64
    assert fnp.ones(2).dtype == np.float64
    assert (fnp.ones(2, np.float32) * 2.0).dtype == np.float32
    f = fe.jit(lambda a: a * 2)
    assert f(np.ones(2)).dtype == np.float64


def test_x32_narrows_64bit_inputs():
    assert fe.jit(lambda a: a + 1)(np.arange(3, dtype=np.int64)).dtype == np.int32
    assert fnp.asarray(np.ones(2, np.float64)).dtype == np.float32


def test_overflowing_python_int():
    with pytest.raises(OverflowError, match="too large to convert to int32"):
        fnp.add(np.ones(2, np.int32), 2 ** 40)


def test_lattice_is_a_lattice():
    # (the narrow types join only bool, weak scalars and themselves: test_narrow_dtypes.py)
    nodes = [n for n in dtypes._EDGES if n not in dtypes._SMALL_INTS + dtypes._SMALL_FLOATS]
    for a in nodes:
        for b in nodes:
            assert dtypes._join(tuple(sorted({a, b}))) is not None, (a, b)
