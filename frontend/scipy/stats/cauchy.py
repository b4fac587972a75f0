"""scipy.stats.cauchy: the Cauchy distribution (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from ._common import exp_of, promote, standardize


def logpdf(x, loc=0, scale=1):
    y, ls = standardize("cauchy.logpdf", x, loc, scale)
    return -fnp.log(fnp.pi) - ls - fnp.log1p(y * y)


pdf = exp_of(logpdf, "pdf")


def cdf(x, loc=0, scale=1):
    y, _ = standardize("cauchy.cdf", x, loc, scale)
    return 0.5 + fnp.arctan(y) / fnp.pi


def logcdf(x, loc=0, scale=1):
    return fnp.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    y, _ = standardize("cauchy.sf", x, loc, scale)
    return 0.5 - fnp.arctan(y) / fnp.pi


def logsf(x, loc=0, scale=1):
    return fnp.log(sf(x, loc, scale))


def ppf(q, loc=0, scale=1):
    q, loc, scale = promote("cauchy.ppf", q, loc, scale)
    return loc + scale * fnp.tan(fnp.pi * (q - 0.5))


def isf(q, loc=0, scale=1):
    q, loc, scale = promote("cauchy.isf", q, loc, scale)
    return loc + scale * fnp.tan(fnp.pi * (0.5 - q))
