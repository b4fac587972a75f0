"""The gamma family of frontend.random (gamma, loggamma, beta, dirichlet, chisquare, f, t,
generalized_normal, ball) and poisson against jax.random, bit for bit; the derivative of a
gamma sample in its shape parameter against jax.grad and finite differences. (Apart from
test_random.py: each rejection loop costs about a second of XLA compile a side, so these run
on their own test worker.)"""
import jax
import numpy as np
import pytest
from harness import assert_same_bits

import frontend as fe
from frontend import random as fr

ALPHA = np.array([[0.01, 0.3, 1.0], [2.5, 7.0, 100.0]], np.float32)


def gamma_draws(r, key, a):
    """The gamma family and poisson (each rejection loop costs about a second of XLA compile a side:
    the default run has one of each kind, the slow run the rest). The parameters are
    arguments of the program: XLA folds constant ones into the loops, and JAX's own jit
    then rounds differently from its eager run; ours follows the run-time form."""
    k = r.split(key, 5)
    return {"gamma": r.gamma(k[0], a), "beta": r.beta(k[2], a, a[::-1]),
            "poisson": r.poisson(k[1], a * 10, (4, 2, 3))}


def more_gamma_draws(r, key, a):
    k = r.split(key, 6)
    return {"gamma16": r.gamma(k[0], 0.7, (5,), np.float16), "chisquare": r.chisquare(k[1], a),
            "loggamma": r.loggamma(k[5], a, (4, 2, 3)), "t": r.t(k[3], a[0], (2, 3)),
            "f": r.f(k[2], a, 3.0), "dirichlet": r.dirichlet(k[3], a),
            "generalized_normal": r.generalized_normal(k[4], 0.7, (3,)),
            "ball": r.ball(k[4], 3, 1.3, (2,))}


_JAX_GAMMA = jax.jit(lambda k, a: gamma_draws(jax.random, k, a))


def test_gamma_family_bit_for_bit():
    """Under jit (several keys), eagerly, and under vmap over keys, over the shape
    parameters and over both."""
    ours = fe.jit(lambda k, a: gamma_draws(fr, k, a))
    for seed in (0, 2**40 + 5):
        assert_same_bits(ours(fr.PRNGKey(seed), ALPHA), _JAX_GAMMA(jax.random.PRNGKey(seed), ALPHA),
                    f"gamma family, seed {seed}")
    eager = {"gamma": fr.gamma(fr.split(fr.PRNGKey(0), 5)[0], ALPHA)}
    assert_same_bits(eager, {"gamma": _JAX_GAMMA(jax.random.PRNGKey(0), ALPHA)["gamma"]}, "gamma eagerly")

    def batched(r, vmap, keys, a):  # (poisson under vmap: in the slow run)
        return {"keys": vmap(lambda kk: r.gamma(kk, a[0], (2, 3)))(keys),
                "both": vmap(lambda kk, b: r.loggamma(kk, b, (2,)))(keys[:3], a[1])}
    keys = fr.split(fr.PRNGKey(3), 4)
    assert_same_bits(fe.jit(lambda ks, a: batched(fr, fe.vmap, ks, a))(keys, ALPHA),
                jax.jit(lambda ks, a: batched(jax.random, jax.vmap, ks, a))(np.asarray(keys), ALPHA),
                "vmapped gamma")


@pytest.mark.slow
def test_more_gamma_samplers_bit_for_bit():
    got = fe.jit(lambda k, a: more_gamma_draws(fr, k, a))(fr.PRNGKey(1), ALPHA)
    assert_same_bits(got, jax.jit(lambda k, a: more_gamma_draws(jax.random, k, a))(jax.random.PRNGKey(1), ALPHA),
                "more of the gamma family")
    keys = fr.split(fr.PRNGKey(3), 4)
    got = fe.vmap(lambda kk: fr.poisson(kk, ALPHA[1], dtype=np.int16))(keys)
    want = jax.vmap(lambda kk: jax.random.poisson(kk, ALPHA[1], dtype=np.int16))(np.asarray(keys))
    np.testing.assert_array_equal(np.asarray(got), want)
    a = ALPHA.T  # a key shared by the batch (the batching rule broadcasts it)
    got = fe.vmap(lambda b: fr.gamma(fr.PRNGKey(1), b, (2,)))(a)
    np.testing.assert_array_equal(np.asarray(got), jax.vmap(lambda b: jax.random.gamma(jax.random.PRNGKey(1), b, (2,)))(a))


def test_gamma_float64_and_gradient(x64):
    """float64 draws bit for bit; d sample / d a (implicit reparameterization) against
    jax.grad and against float64 finite differences of the implicit function x(a) with
    P(a, x(a)) fixed (scipy's regularized incomplete gamma and its inverse); vmapped."""
    from scipy import special
    a = np.array([0.2, 0.9, 1.0, 3.5, 40.0])

    def f(api, r, a):
        k = r.PRNGKey(2)  # (gamma is elementwise in a: its jvp along ones is the gradient)
        sample, grad = api.jvp(lambda a: r.gamma(k, a), (a,), (api.numpy.ones_like(a),))
        return {"gamma": sample, "dirichlet": r.dirichlet(k, a), "rayleigh": r.rayleigh(k, 2.0, (3,)),
                "wald": r.wald(k, a), "grad": grad, "vmap_grad": api.vmap(api.grad(lambda b: r.loggamma(k, b)))(a)}
    ours = fe.jit(lambda a: f(fe, fr, a))(a)
    theirs = jax.jit(lambda a: f(jax, jax.random, a))(a)
    exact = ("gamma", "dirichlet", "rayleigh", "wald")
    assert_same_bits({n: ours[n] for n in exact}, {n: theirs[n] for n in exact}, "float64")
    for n in ("grad", "vmap_grad"):
        np.testing.assert_allclose(np.asarray(ours[n]), theirs[n], rtol=1e-9, err_msg=n)
    x, h = np.asarray(ours["gamma"]), 1e-6
    p = special.gammainc(a, x)
    fd = (special.gammaincinv(a + h, p) - special.gammaincinv(a - h, p)) / (2 * h)
    np.testing.assert_allclose(np.asarray(ours["grad"]), fd, rtol=1e-6)
