"""scipy.stats.gamma: the gamma distribution (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from .. import special as sp
from ._common import exp_of, standardize, where


def logpdf(x, a, loc=0, scale=1):
    y, ls, a = standardize("gamma.logpdf", x, loc, scale, a)
    ok = y >= 0
    ys = where(ok, y, 1.0)
    return where(ok, sp.xlogy(a - 1, ys) - ys - sp.gammaln(a) - ls, -fnp.inf)


pdf = exp_of(logpdf, "pdf")


def cdf(x, a, loc=0, scale=1):
    y, _, a = standardize("gamma.cdf", x, loc, scale, a)
    return sp.gammainc(a, fnp.maximum(y, 0))


def logcdf(x, a, loc=0, scale=1):
    return fnp.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
    y, _, a = standardize("gamma.sf", x, loc, scale, a)
    return sp.gammaincc(a, fnp.maximum(y, 0))


def logsf(x, a, loc=0, scale=1):
    return fnp.log(sf(x, a, loc, scale))
