"""scipy.stats.gennorm: the generalized normal distribution (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from .. import special as sp
from ._common import exp_of, promote


def logpdf(x, beta):
    x, beta = promote("gennorm.logpdf", x, beta)
    return fnp.log(0.5 * beta) - sp.gammaln(1 / beta) - fnp.abs(x) ** beta


pdf = exp_of(logpdf, "pdf")


def cdf(x, beta):
    x, beta = promote("gennorm.cdf", x, beta)
    return 0.5 * (1 + fnp.sign(x) * sp.gammainc(1 / beta, fnp.abs(x) ** beta))
