"""scipy.stats.multivariate_normal: the multivariate normal distribution (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from ... import numpy as fnp
from ._common import LOG_2PI, exp_of, promote_dtypes


def logpdf(x, mean, cov, allow_singular=None):
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = promote_dtypes("multivariate_normal.logpdf", x, mean, cov)
    if mean.ndim == 0 and cov.ndim == 0:
        return -0.5 * (x - mean) ** 2 / cov - 0.5 * (LOG_2PI + fnp.log(cov))
    k = mean.shape[-1]
    if cov.ndim < 2 or cov.shape[-2:] != (k, k):
        raise ValueError("multivariate_normal.logpdf got incompatible shapes")
    from .. import linalg
    L = fnp.linalg.cholesky(cov)
    d = x - mean
    flat = fnp.reshape(d, (-1, k)).T
    z = linalg.solve_triangular(L, flat, lower=True)
    maha = fnp.reshape(fnp.sum(z * z, axis=0), d.shape[:-1])
    logdet = fnp.sum(fnp.log(fnp.diagonal(L, axis1=-2, axis2=-1)), axis=-1)
    return -0.5 * maha - logdet - 0.5 * k * LOG_2PI


pdf = exp_of(logpdf, "pdf")
