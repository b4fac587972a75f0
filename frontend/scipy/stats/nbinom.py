"""scipy.stats.nbinom: the negative binomial distribution (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from .. import special as sp
from ._common import exp_of, promote, where


def logpmf(k, n, p, loc=0):
    k, n, p, loc = promote("nbinom.logpmf", k, n, p, loc)
    y = k - loc
    ok = y >= 0
    ys = where(ok, y, 0.0)
    comb = sp.gammaln(n + ys) - sp.gammaln(ys + 1) - sp.gammaln(n)
    return where(ok, comb + n * fnp.log(p) + sp.xlog1py(ys, -p), -fnp.inf)


pmf = exp_of(logpmf, "pmf")
