"""scipy.stats.poisson: the Poisson distribution (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from .. import special as sp
from ._common import exp_of, promote, where


def logpmf(k, mu, loc=0):
    k, mu, loc = promote("poisson.logpmf", k, mu, loc)
    x = k - loc
    ok = (x >= 0) & (x == fnp.floor(x))
    xs = where(ok, x, 0.0)
    return where(ok, sp.xlogy(xs, mu) - sp.gammaln(xs + 1) - mu, -fnp.inf)


pmf = exp_of(logpmf, "pmf")


def cdf(k, mu, loc=0):
    k, mu, loc = promote("poisson.cdf", k, mu, loc)
    x = k - loc
    return where(x < 0, 0.0, sp.gammaincc(fnp.floor(fnp.maximum(x, 0)) + 1, mu))
