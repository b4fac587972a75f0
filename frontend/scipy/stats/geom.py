"""scipy.stats.geom: the geometric distribution (support 1, 2, ...) (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from .. import special as sp
from ._common import exp_of, promote, where


def logpmf(k, p, loc=0):
    k, p, loc = promote("geom.logpmf", k, p, loc)
    x = k - loc
    ok = x > 0
    return where(ok, sp.xlog1py(where(ok, x, 1.0) - 1, -p) + fnp.log(p), -fnp.inf)


pmf = exp_of(logpmf, "pmf")
