"""scipy.stats.wrapcauchy: the wrapped Cauchy distribution (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from ._common import LOG_2PI, exp_of, promote


def logpdf(x, c):
    x, c = promote("wrapcauchy.logpdf", x, c)
    return fnp.log1p(-c * c) - LOG_2PI - fnp.log1p(c * c - 2 * c * fnp.cos(x))


pdf = exp_of(logpdf, "pdf")
