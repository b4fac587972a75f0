"""scipy.stats.gumbel_r: the right-skewed Gumbel distribution (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from ._common import exp_of, promote, standardize


def logpdf(x, loc=0, scale=1):
    y, ls = standardize("gumbel_r.logpdf", x, loc, scale)
    return -(y + fnp.exp(-y)) - ls


pdf = exp_of(logpdf, "pdf")


def logcdf(x, loc=0, scale=1):
    y, _ = standardize("gumbel_r.logcdf", x, loc, scale)
    return -fnp.exp(-y)


cdf = exp_of(logcdf, "cdf")


def sf(x, loc=0, scale=1):
    y, _ = standardize("gumbel_r.sf", x, loc, scale)
    return -fnp.expm1(-fnp.exp(-y))


def logsf(x, loc=0, scale=1):
    return fnp.log(sf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    p, loc, scale = promote("gumbel_r.ppf", p, loc, scale)
    return -fnp.log(-fnp.log(p)) * scale + loc
