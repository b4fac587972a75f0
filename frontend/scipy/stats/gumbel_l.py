"""scipy.stats.gumbel_l: the left-skewed Gumbel distribution (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from ._common import exp_of, promote, standardize


def logpdf(x, loc=0, scale=1):
    y, ls = standardize("gumbel_l.logpdf", x, loc, scale)
    return y - fnp.exp(y) - ls


pdf = exp_of(logpdf, "pdf")


def cdf(x, loc=0, scale=1):
    y, _ = standardize("gumbel_l.cdf", x, loc, scale)
    return -fnp.expm1(-fnp.exp(y))


def logcdf(x, loc=0, scale=1):
    return fnp.log(cdf(x, loc, scale))


def logsf(x, loc=0, scale=1):
    y, _ = standardize("gumbel_l.logsf", x, loc, scale)
    return -fnp.exp(y)


sf = exp_of(logsf, "sf")


def ppf(p, loc=0, scale=1):
    p, loc, scale = promote("gumbel_l.ppf", p, loc, scale)
    return fnp.log(-fnp.log1p(-p)) * scale + loc
