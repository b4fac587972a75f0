"""scipy.stats.expon: the exponential distribution (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from ._common import exp_of, promote, standardize, where


def logpdf(x, loc=0, scale=1):
    y, ls = standardize("expon.logpdf", x, loc, scale)
    return where(y < 0, -fnp.inf, -y - ls)


pdf = exp_of(logpdf, "pdf")


def cdf(x, loc=0, scale=1):
    y, _ = standardize("expon.cdf", x, loc, scale)
    return where(y < 0, 0.0, -fnp.expm1(-y))


def logcdf(x, loc=0, scale=1):
    return fnp.log(cdf(x, loc, scale))



def logsf(x, loc=0, scale=1):
    y, _ = standardize("expon.logsf", x, loc, scale)
    return where(y < 0, 0.0, -y)


sf = exp_of(logsf, "sf")


def ppf(q, loc=0, scale=1):
    q, loc, scale = promote("expon.ppf", q, loc, scale)
    return where((q < 0) | (q > 1), fnp.nan, -fnp.log1p(-q) * scale + loc)
