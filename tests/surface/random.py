"""jax.random: the samplers are compared bit for bit with JAX in tests/test_random*.py (one
compiled program per family); here the key helpers, bit for bit, on a raw uint32 key."""
import numpy as np

from surface.common import c

JAX, OURS, REQUIRED = "jax.random", "frontend.random", 0.95
KEY = np.array([0, 42], np.uint32)
N = np.float32([0, 1, 5, 20, 50, 100, 1000, 3.7, np.nan, -1, np.inf, 30])
P = np.float32([0.3, 0.5, 0.9, 0.1, 0.6, 0.02, 0.5, 0.4, 0.5, 0.5, 0.5, np.nan])
PS = np.float32([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])


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
    # counts where count * min(p, 1-p) <= 10 (inversion) and above (BTRS), p > 1/2, the
    # nan/negative/infinite counts and p outside [0, 1]
    "binomial": [c(KEY, N, P), c(KEY, N, P, _compare=_bits),
                 c(KEY, 40.0, 0.3, (3, 50), _compare=_bits),
                 c(KEY, 200.0, np.float32([0.0, 1.0, 0.99, 1.5, -0.5]), _compare=_bits),
                 c(KEY, np.int32([3, 30]), np.float32(0.7), dtype=np.float32, _compare=_bits),
                 c(KEY, 5.0, 0.5, (2, 3), np.int32, _raises=ValueError),
                 c(KEY, N, P, (3,), _raises=ValueError)],
    "multinomial": [c(KEY, 10.0, PS), c(KEY, 10.0, PS, _compare=_bits),
                    c(KEY, np.float32([100, 1000]), PS, dtype=np.int32, _compare=_bits),
                    c(KEY, 50.0, PS[0], shape=(4, 3), _compare=_bits),
                    c(KEY, 7.0, np.float32([0.5, 0.0, 0.5, 0.0]), unroll=2, _compare=_bits)],
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
ABSENT = {}
