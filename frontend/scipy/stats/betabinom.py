"""scipy.stats.betabinom: the beta-binomial distribution (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from .. import special as sp
from ._common import exp_of, promote, where


def logpmf(k, n, a, b, loc=0):
    k, n, a, b, loc = promote("betabinom.logpmf", k, n, a, b, loc)
    y = fnp.floor(k) - loc  # (k rounded down, as JAX's)
    log_comb = -fnp.log1p(n) - sp.betaln(n - y + 1, y + 1)
    lp = where((y == 0) & (n == 0), 0.0, log_comb + sp.betaln(y + a, n - y + b) - sp.betaln(a, b))
    lp = where((y < -loc) | (y > n) | (y + a <= 0), -fnp.inf, lp)
    return where((n < 0) | (a <= 0) | (b <= 0), fnp.nan, lp)


pmf = exp_of(logpmf, "pmf")
