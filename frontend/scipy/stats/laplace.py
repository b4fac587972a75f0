"""scipy.stats.laplace: the Laplace distribution (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from ._common import exp_of, standardize, where


def logpdf(x, loc=0, scale=1):
    y, ls = standardize("laplace.logpdf", x, loc, scale)
    return -fnp.log(2.0) - ls - fnp.abs(y)


pdf = exp_of(logpdf, "pdf")


def cdf(x, loc=0, scale=1):
    y, _ = standardize("laplace.cdf", x, loc, scale)
    return where(y < 0, 0.5 * fnp.exp(y), 1 - 0.5 * fnp.exp(-y))
