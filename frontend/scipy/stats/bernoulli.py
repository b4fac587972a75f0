"""scipy.stats.bernoulli: the Bernoulli distribution (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from ._common import exp_of, promote, where


def logpmf(k, p, loc=0):
    k, p, loc = promote("bernoulli.logpmf", k, p, loc)
    x = k - loc
    return where(x == 1, fnp.log(p), where(x == 0, fnp.log1p(-p), -fnp.inf))


pmf = exp_of(logpmf, "pmf")


def cdf(k, p):
    k, p = promote("bernoulli.cdf", k, p)
    return where(k < 0, 0.0, where(k < 1, 1 - p, 1.0))


def ppf(q, p):
    q, p = promote("bernoulli.ppf", q, p)
    zero, one = fnp.zeros_like(q), fnp.ones_like(q)
    return where((q < 0) | (q > 1), fnp.nan, where(q <= 1 - p, zero, one))
