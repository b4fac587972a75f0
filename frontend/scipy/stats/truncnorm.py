"""scipy.stats.truncnorm: the normal distribution truncated to [a, b] (standardized bounds) (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from .. import special as sp
from . import norm as _norm
from ._common import exp_of, standardize, where


def _mass(a, b):
    return sp.ndtr(b) - sp.ndtr(a)


def logpdf(x, a, b, loc=0, scale=1):
    y, ls, a, b = standardize("truncnorm.logpdf", x, loc, scale, a, b)
    ok = (y >= a) & (y <= b)
    return where(ok, _norm.logpdf(y) - ls - fnp.log(_mass(a, b)), -fnp.inf)


pdf = exp_of(logpdf, "pdf")


def cdf(x, a, b, loc=0, scale=1):
    y, _, a, b = standardize("truncnorm.cdf", x, loc, scale, a, b)
    return fnp.clip((sp.ndtr(y) - sp.ndtr(a)) / _mass(a, b), 0, 1)


def logcdf(x, a, b, loc=0, scale=1):
    return fnp.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
    y, _, a, b = standardize("truncnorm.sf", x, loc, scale, a, b)
    return fnp.clip((sp.ndtr(b) - sp.ndtr(y)) / _mass(a, b), 0, 1)


def logsf(x, a, b, loc=0, scale=1):
    return fnp.log(sf(x, a, b, loc, scale))
