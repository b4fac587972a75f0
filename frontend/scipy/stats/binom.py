"""scipy.stats.binom: the binomial distribution (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from .. import special as sp
from ._common import exp_of, promote, where


def logpmf(k, n, p, loc=0):
    k, n, p, loc = promote("binom.logpmf", k, n, p, loc)
    y = k - loc
    ok = (y >= 0) & (y <= n)
    ys = where(ok, y, 0.0)
    comb = sp.gammaln(n + 1) - sp.gammaln(ys + 1) - sp.gammaln(n - ys + 1)
    return where(ok, comb + sp.xlogy(ys, p) + sp.xlog1py(n - ys, -p), -fnp.inf)


pmf = exp_of(logpmf, "pmf")
