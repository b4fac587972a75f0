"""scipy.stats.beta: the beta distribution (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from .. import special as sp
from ._common import exp_of, standardize, where


def logpdf(x, a, b, loc=0, scale=1):
    y, ls, a, b = standardize("beta.logpdf", x, loc, scale, a, b)
    ok = (y >= 0) & (y <= 1)
    ys = where(ok, y, 0.5)
    return where(ok, sp.xlogy(a - 1, ys) + sp.xlog1py(b - 1, -ys) - sp.betaln(a, b) - ls,
                 -fnp.inf)


pdf = exp_of(logpdf, "pdf")


def cdf(x, a, b, loc=0, scale=1):
    y, _, a, b = standardize("beta.cdf", x, loc, scale, a, b)
    return sp.betainc(a, b, fnp.clip(y, 0, 1))


def logcdf(x, a, b, loc=0, scale=1):
    return fnp.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
    y, _, a, b = standardize("beta.sf", x, loc, scale, a, b)
    return sp.betainc(b, a, 1 - fnp.clip(y, 0, 1))


def logsf(x, a, b, loc=0, scale=1):
    return fnp.log(sf(x, a, b, loc, scale))
