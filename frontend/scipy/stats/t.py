"""scipy.stats.t: Student's t distribution (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from .. import special as sp
from ._common import exp_of, standardize


def logpdf(x, df, loc=0, scale=1):
    y, ls, df = standardize("t.logpdf", x, loc, scale, df)
    half = 0.5 * (df + 1)
    return (sp.gammaln(half) - sp.gammaln(0.5 * df) - 0.5 * fnp.log(df * fnp.pi) - ls
            - half * fnp.log1p(y * y / df))


pdf = exp_of(logpdf, "pdf")
