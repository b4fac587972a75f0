"""jax.random: the samplers are compared bit for bit with JAX in tests/test_random*.py (one
compiled program per family); here the key helpers, bit for bit, on a raw uint32 key."""
import numpy as np

from surface.common import c

JAX, OURS, REQUIRED = "jax.random", "frontend.random", 0.95
KEY = np.array([0, 42], np.uint32)


def _bits(ours, theirs):
    assert np.asarray(ours).dtype == np.asarray(theirs).dtype
    assert np.asarray(ours).tobytes() == np.asarray(theirs).tobytes()


CASES = {
    "PRNGKey": [c(0, _jit=False), c(2**40 + 5, _jit=False)],
    "split": [c(KEY, 3), c(KEY, (2, 2))],
    "fold_in": [c(KEY, 7)],
    "bits": [c(KEY, (5,), _compare=_bits), c(KEY, (2, 2), np.uint8, _compare=_bits)],
    "uniform": [c(KEY, (4,), _compare=_bits), c(KEY, (3,), np.float32, -2.0, 5.0, _compare=_bits)],
    "normal": [c(KEY, (2, 3), _compare=_bits)],
    "exponential": [c(KEY, (4,), _compare=_bits)],
    "laplace": [c(KEY, (4,), _compare=_bits)],
    "logistic": [c(KEY, (4,), _compare=_bits)],
    "rademacher": [c(KEY, (6,), _compare=_bits)],
}
_R = "test_random.py::"
_G = "test_random_gamma.py::"
ELSEWHERE = {
    **{n: _R + "test_every_sampler_bit_for_bit"
       for n in ["bernoulli", "categorical", "cauchy", "choice", "gumbel", "randint"]},
    **{n: _R + "test_transformed_samplers_bit_for_bit"
       for n in ["double_sided_maxwell", "geometric", "lognormal", "maxwell", "orthogonal",
                 "pareto", "rayleigh", "triangular", "wald", "weibull_min"]},
    **{n: _R + "test_sort_based_samplers_bit_for_bit"
       for n in ["multivariate_normal", "permutation"]},
    **{n: _R + "test_typed_keys" for n in ["key", "key_data", "wrap_key_data"]},
    "key_dtype": _R + "test_key_dtype",
    "truncated_normal": _R + "test_truncated_normal_bit_for_bit",
    **{n: _G + "test_gamma_family_bit_for_bit" for n in ["beta", "gamma", "poisson"]},
    **{n: _G + "test_more_gamma_samplers_bit_for_bit"
       for n in ["ball", "chisquare", "dirichlet", "f", "generalized_normal", "loggamma", "t"]},
    "random_gamma_p": _G + "test_gamma_float64_and_gradient",
    "clone": "test_surface_extra.py::test_random_clone_and_key_impl",
    "key_impl": "test_surface_extra.py::test_random_clone_and_key_impl",
}
TODO = "not implemented yet (issue 26)"
ABSENT = {n: TODO for n in ["binomial", "multinomial"]}
