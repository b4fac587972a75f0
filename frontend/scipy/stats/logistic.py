"""scipy.stats.logistic: the logistic distribution (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from .. import special as sp
from ._common import exp_of, of_quantile, of_standard, standardize


def logpdf(x, loc=0, scale=1):
    y, ls = standardize("logistic.logpdf", x, loc, scale)
    return -y - 2 * fnp.logaddexp(0.0, -y) - ls


pdf = exp_of(logpdf, "pdf")


cdf = of_standard("logistic.cdf", sp.expit)
sf = of_standard("logistic.sf", lambda y: sp.expit(-y))


ppf = of_quantile("logistic.ppf", sp.logit)
isf = of_quantile("logistic.isf", lambda q: -sp.logit(q))
