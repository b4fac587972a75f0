"""scipy.stats.norm: the normal distribution (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from .. import special as sp
from ._common import LOG_2PI, exp_of, of_quantile, of_standard, standardize


def logpdf(x, loc=0, scale=1):
    y, ls = standardize("norm.logpdf", x, loc, scale)
    return -0.5 * y * y - ls - 0.5 * LOG_2PI


pdf = exp_of(logpdf, "pdf")
cdf = of_standard("norm.cdf", sp.ndtr)
logcdf = of_standard("norm.logcdf", sp.log_ndtr)
sf = of_standard("norm.sf", lambda y: sp.ndtr(-y))
logsf = of_standard("norm.logsf", lambda y: sp.log_ndtr(-y))
ppf = of_quantile("norm.ppf", sp.ndtri)
isf = of_quantile("norm.isf", lambda q: sp.ndtri(1 - q))
