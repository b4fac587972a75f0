"""scipy.special's functions beyond the lax primitives (issue 26): values against scipy on
wide ranges and tails (float64), JAX's derivatives, edge values and errors."""
import jax
import jax.scipy.special as jss
import numpy as np
import pytest
import scipy.special as ss

import frontend as fe
import frontend.scipy.special as fs

X = np.concatenate([np.linspace(0.01, 60, 97), [1e-6, 0.5, 0.999, 1.0, 1.001, 4, 4.001, 49.9,
                                                 50.1, 200]])
R = np.random.default_rng(0)
A, B = R.uniform(0.2, 5, 40), R.uniform(0.2, 5, 40)

SWEEPS = [
    ("erfcx", (np.concatenate([-X[:40] / 3, X]),)), ("dawsn", (np.concatenate([-X, X]),)),
    ("fresnel", (np.concatenate([-X, X]),)), ("sici", (np.concatenate([-X, X]),)),
    ("exp1", (X,)), ("expi", (np.concatenate([-X, X[:-1]]),)), ("spence", (X,)),
    ("expn", (np.int32([0, 1, 2, 5, 30])[:, None], X)),
    ("hyp1f1", (A, B, R.uniform(-30, 30, 40))),
    ("hyp2f1", (A, B, R.uniform(0.3, 6, 40), R.uniform(-3, 0.999, 40))),
    ("owens_t", (R.uniform(-8, 8, 40), R.uniform(-5, 5, 40))),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "args"), SWEEPS, ids=[s[0] for s in SWEEPS])
def test_against_scipy_in_float64(name, args, x64):
    ours = fe.jit(getattr(fs, name))(*args)
    theirs = getattr(ss, name)(*args)
    for o, t in zip(ours if isinstance(ours, tuple) else (ours,),
                    theirs if isinstance(theirs, tuple) else (theirs,), strict=True):
        assert np.asarray(o).dtype == np.float64
        np.testing.assert_allclose(np.asarray(o), t, rtol=1e-11, atol=1e-13, err_msg=name)


def test_wofz_and_edges():
    z = np.complex64([1 + 1j, -1 - 2j, 3 + 0.01j, 0.5j])
    np.testing.assert_allclose(fs.wofz(z), ss.wofz(z.astype(np.complex128)), rtol=2e-6)
    assert fs.wofz(np.float32(1)).dtype == np.complex64
    np.testing.assert_array_equal(fs.dawsn(np.float32([np.inf, -np.inf, 0])), [0, -0.0, 0])
    s, c = fs.fresnel(np.float32([np.inf, -np.inf]))
    np.testing.assert_array_equal(s, [0.5, -0.5])
    np.testing.assert_array_equal(c, [0.5, -0.5])
    # E_n(0) = 1/(n - 1) for n >= 2 (scipy's; JAX 0.10 gives 1/n), inf for n <= 1
    np.testing.assert_array_equal(fs.expn(np.int32([0, 1, 2, 3]), np.float32(0)),
                                  [np.inf, np.inf, 1.0, 0.5])
    assert np.isnan(fs.expn(np.float32([-1, 1.5, 2]), np.float32([1, 1, -1]))).all()
    assert fs.hyp1f1(0.0, 0.0, 2.0) == 1.0 and fs.hyp1f1(1.0, 0.0, 2.0) == np.inf
    assert not fs.erfcx(1.0).weak_type  # (JAX's are strongly typed too)
    with pytest.raises(TypeError, match="not supported"):
        fs.spence(np.int32(2))
    with pytest.raises(ValueError, match="complex"):
        fs.dawsn(np.complex64(1))


@pytest.mark.parametrize("name", ["erfcx", "hyp1f1"] + [  # (the rest with -m slow)
    pytest.param(n, marks=pytest.mark.slow) for n in ("dawsn", "expi", "exp1", "spence")])
def test_grad_matches_jax(name):
    x = np.float32([0.3, 0.9, 2.5])  # (JAX 0.10: spence's grad at 1.7 is NaN)
    extra = {"hyp1f1": (np.float32(1.5), np.float32(2.5))}.get(name, ())
    ours = fe.vmap(fe.grad(lambda v: getattr(fs, name)(*extra, v)))(x)
    theirs = jax.vmap(jax.grad(lambda v: getattr(jss, name)(*extra, v)))(x)
    np.testing.assert_allclose(ours, theirs, rtol=1e-4)


def test_missing_name_hint():
    # (every name of jax.scipy.special exists now: the "exists in JAX" form of the message is
    # checked on modules that still lack some, tests/test_bad_inputs.py)
    with pytest.raises(AttributeError, match=r"nor does jax\.scipy\.special"):
        fs.not_a_function  # noqa: B018
