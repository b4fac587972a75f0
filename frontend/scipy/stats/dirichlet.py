"""scipy.stats.dirichlet: the Dirichlet distribution (categories on the first axis of x) (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from .. import special as sp
from ._common import exp_of, promote_dtypes


def logpdf(x, alpha):
    x, alpha = promote_dtypes("dirichlet.logpdf", x, alpha)
    a = fnp.reshape(alpha, alpha.shape + (1,) * (x.ndim - alpha.ndim))
    norm = fnp.sum(sp.gammaln(alpha)) - sp.gammaln(fnp.sum(alpha))
    return fnp.sum(sp.xlogy(a - 1, x), axis=0) - norm


pdf = exp_of(logpdf, "pdf")
