"""scipy.stats.uniform: the uniform distribution on [loc, loc + scale] (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from ._common import exp_of, promote, standardize, where


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote("uniform.logpdf", x, loc, scale)
    inside = (x >= loc) & (x <= loc + scale)
    return where(inside, -fnp.log(scale), -fnp.inf)


pdf = exp_of(logpdf, "pdf")


def cdf(x, loc=0, scale=1):
    y, _ = standardize("uniform.cdf", x, loc, scale)
    return fnp.clip(y, 0, 1)


def ppf(q, loc=0, scale=1):
    q, loc, scale = promote("uniform.ppf", q, loc, scale)
    return where((q < 0) | (q > 1), fnp.nan, loc + q * scale)
