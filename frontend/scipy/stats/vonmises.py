"""scipy.stats.vonmises: the von Mises distribution (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from .. import special as sp
from ._common import LOG_2PI, exp_of, promote


def logpdf(x, kappa):
    x, kappa = promote("vonmises.logpdf", x, kappa)
    return kappa * (fnp.cos(x) - 1) - LOG_2PI - fnp.log(sp.i0e(kappa))


pdf = exp_of(logpdf, "pdf")
