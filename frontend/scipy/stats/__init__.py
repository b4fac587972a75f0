"""frontend.scipy.stats: JAX's scipy.stats distributions (one module each, with the
logpdf/pdf/cdf/... functions JAX's has), a few statistics and gaussian_kde.

>>> from frontend.scipy.stats import norm
>>> norm.cdf(0.0)
Array(0.5, dtype=float32)
"""
from __future__ import annotations

from . import (  # noqa: F401
    bernoulli,
    beta,
    betabinom,
    binom,
    cauchy,
    chi2,
    dirichlet,
    expon,
    gamma,
    gennorm,
    geom,
    gumbel_l,
    gumbel_r,
    laplace,
    logistic,
    multinomial,
    multivariate_normal,
    nbinom,
    norm,
    pareto,
    poisson,
    t,
    truncnorm,
    uniform,
    vonmises,
    wrapcauchy,
)
from ._kde import gaussian_kde  # noqa: F401
from ._statistics import mode, rankdata, sem  # noqa: F401


def __getattr__(name):
    from ...core import jax_names
    raise jax_names.missing(__name__, name)
