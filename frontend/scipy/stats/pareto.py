"""scipy.stats.pareto: the Pareto distribution (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from ._common import exp_of, promote, standardize, where


def logpdf(x, b, loc=0, scale=1):
    y, ls, b = standardize("pareto.logpdf", x, loc, scale, b)
    ok = y >= 1
    ys = where(ok, y, 1.0)
    return where(ok, fnp.log(b) - (b + 1) * fnp.log(ys) - ls, -fnp.inf)


pdf = exp_of(logpdf, "pdf")


def cdf(x, b, loc=0, scale=1):
    y, _, b = standardize("pareto.cdf", x, loc, scale, b)
    return where(y < 1, 0.0, 1 - fnp.power(fnp.maximum(y, 1), -b))


def logcdf(x, b, loc=0, scale=1):
    return fnp.log(cdf(x, b, loc, scale))



def logsf(x, b, loc=0, scale=1):
    y, _, b = standardize("pareto.logsf", x, loc, scale, b)
    return where(y < 1, 0.0, -b * fnp.log(fnp.maximum(y, 1)))


sf = exp_of(logsf, "sf")


def ppf(q, b, loc=0, scale=1):
    q, b, loc, scale = promote("pareto.ppf", q, b, loc, scale)
    return fnp.power(1 - q, -1 / b) * scale + loc
