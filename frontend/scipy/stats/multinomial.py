"""scipy.stats.multinomial: the multinomial distribution, counts on the last axis (logpmf/pmf
as JAX's, whose check that the counts sum to n reads all of x)."""
from __future__ import annotations

from ... import numpy as fnp
from .. import special as sp
from ._common import exp_of, promote_dtypes, where


def logpmf(x, n, p):
    x, n, p = fnp.asarray(x), fnp.asarray(n), fnp.asarray(p)
    if not (fnp.issubdtype(x.dtype, fnp.integer) and fnp.issubdtype(n.dtype, fnp.integer)):
        raise ValueError(f"x and n must be of integer type; got x.dtype={x.dtype}, "
                         f"n.dtype={n.dtype}")
    x, n, p = promote_dtypes("multinomial.logpmf", x, n, p)
    lp = sp.gammaln(n + 1) + fnp.sum(sp.xlogy(x, p) - sp.gammaln(x + 1), axis=-1)
    return where(fnp.sum(x) == n, lp, -fnp.inf)  # (all of x sums to n, as in JAX's)


pmf = exp_of(logpmf, "pmf")
