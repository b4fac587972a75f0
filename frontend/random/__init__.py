"""frontend.random: JAX's random numbers, bit for bit under JAX's default configuration
(threefry2x32, ``jax_threefry_partitionable`` on).

Keys are JAX's: ``PRNGKey(seed)`` is a uint32 array of shape (2,), ``key(seed)`` a typed
key (``key_data`` gives its bits). Split keys rather than reusing them; keys vmap like any
array.

>>> import frontend as fe
>>> from frontend import random
>>> k1, k2 = random.split(random.PRNGKey(0))
>>> random.uniform(k1, (2,))
Array([0.8423141 , 0.18237865], dtype=float32)
>>> fe.vmap(lambda k: random.bits(k, (2,)))(random.split(k2, 3)).shape
(3, 2)
"""
from ..core import jax_names as _jax_names
from ._binomial import binomial, multinomial  # noqa: F401
from ._gamma import random_gamma_p  # noqa: F401
from ._gamma_samplers import (  # noqa: F401
    ball,
    beta,
    chisquare,
    dirichlet,
    f,
    gamma,
    generalized_normal,
    loggamma,
    t,
)
from ._poisson import poisson  # noqa: F401
from ._prng import KeyArray  # noqa: F401
from ._samplers import (  # noqa: F401
    PRNGKey,
    bernoulli,
    bits,
    categorical,
    cauchy,
    choice,
    clone,
    exponential,
    fold_in,
    gumbel,
    key,
    key_data,
    key_impl,
    laplace,
    logistic,
    multivariate_normal,
    normal,
    permutation,
    rademacher,
    randint,
    split,
    truncated_normal,
    uniform,
    wrap_key_data,
)
from ._transforms import (  # noqa: F401
    double_sided_maxwell,
    geometric,
    key_dtype,
    lognormal,
    maxwell,
    orthogonal,
    pareto,
    rayleigh,
    triangular,
    wald,
    weibull_min,
)

__all__ = ["KeyArray", "PRNGKey", "ball", "bernoulli", "beta", "binomial", "bits", "categorical",
           "cauchy", "chisquare", "choice", "clone", "dirichlet",
           "double_sided_maxwell", "exponential", "f", "fold_in", "gamma",
           "generalized_normal", "geometric", "gumbel", "key", "key_data", "key_dtype",
           "key_impl", "laplace", "loggamma", "logistic", "lognormal", "maxwell",
           "multinomial", "multivariate_normal", "normal", "orthogonal", "pareto", "permutation",
           "poisson", "rademacher", "randint", "random_gamma_p", "rayleigh", "split",
           "t", "triangular", "truncated_normal", "uniform", "wald", "weibull_min",
           "wrap_key_data"]


def __getattr__(name):
    raise _jax_names.missing(__name__, name)
