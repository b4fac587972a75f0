"""gaussian_kde: kernel density estimation with Gaussian kernels, as
jax.scipy.stats.gaussian_kde (a pytree: it passes through jit and vmap)."""
from __future__ import annotations

import functools

import numpy as np

from ... import numpy as fnp
from ... import random
from ...core import dtypes
from ...core.ir import aval_of
from ...core.pytree import register_node
from ...numpy._core import check_arraylike, promote_dtypes_inexact
from ...transforms.vmap import vmap
from .. import linalg, special

_FIELDS = ("neff", "dataset", "weights", "covariance", "inv_cov")


class gaussian_kde:  # noqa: N801 (JAX's name)
    """A Gaussian kernel density estimate of ``dataset`` (d, n) (1-D: d = 1), optionally
    ``weights``-weighted; ``bw_method`` 'scott' (default), 'silverman', a scalar factor or
    a callable of the kde."""
    __slots__ = _FIELDS

    def __init__(self, dataset, bw_method=None, weights=None):
        check_arraylike("gaussian_kde", dataset)
        dataset = fnp.atleast_2d(dataset)
        if dtypes.is_complex(aval_of(dataset).dtype):
            raise NotImplementedError("gaussian_kde does not support complex data")
        if not aval_of(dataset).size > 1:
            raise ValueError("`dataset` input should have multiple elements.")
        d, n = aval_of(dataset).shape
        if weights is not None:
            check_arraylike("gaussian_kde", weights)
            dataset, weights = promote_dtypes_inexact("gaussian_kde", dataset, weights,
                                                      broadcast=False)
            weights = fnp.atleast_1d(weights)
            weights = weights / fnp.sum(weights)
            if aval_of(weights).ndim != 1:
                raise ValueError("`weights` input should be one-dimensional.")
            if aval_of(weights).shape[0] != n:
                raise ValueError("`weights` input should be of length n")
        else:
            (dataset,) = promote_dtypes_inexact("gaussian_kde", dataset)
            weights = fnp.full(n, 1.0 / n, dtype=aval_of(dataset).dtype)
        self.dataset, self.weights = dataset, weights
        self.neff = neff = 1 / fnp.sum(weights ** 2)
        bw_method = "scott" if bw_method is None else bw_method
        if isinstance(bw_method, str) and bw_method == "scott":
            factor = fnp.power(neff, -1.0 / (d + 4))
        elif isinstance(bw_method, str) and bw_method == "silverman":
            factor = fnp.power(neff * (d + 2) / 4.0, -1.0 / (d + 4))
        elif not isinstance(bw_method, str) and not callable(bw_method) \
                and np.ndim(bw_method) == 0:
            factor = bw_method
        elif callable(bw_method):
            factor = bw_method(self)
        else:
            raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a "
                             "callable.")
        cov = fnp.atleast_2d(fnp.cov(dataset, rowvar=1, bias=False, aweights=weights))
        self.covariance = cov * factor ** 2
        self.inv_cov = fnp.linalg.inv(cov) / factor ** 2

    @property
    def d(self):
        return aval_of(self.dataset).shape[0]

    @property
    def n(self):
        return aval_of(self.dataset).shape[1]

    def evaluate(self, points):
        """The estimated density at ``points`` (d, m)."""
        check_arraylike("evaluate", points)
        points = self._reshape_points(points)
        return _kernel_eval(False, self.dataset.T, self.weights[:, None], points.T,
                            self.inv_cov)[:, 0]

    __call__ = pdf = evaluate

    def logpdf(self, x):
        """The log of the estimated density at ``x`` (d, m)."""
        check_arraylike("logpdf", x)
        x = self._reshape_points(x)
        return _kernel_eval(True, self.dataset.T, self.weights[:, None], x.T, self.inv_cov)[:, 0]

    def integrate_gaussian(self, mean, cov):
        """The integral of the density times a Gaussian of ``mean`` and ``cov``."""
        mean = fnp.atleast_1d(fnp.squeeze(mean))
        cov = fnp.atleast_2d(cov)
        if aval_of(mean).shape != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}")
        if aval_of(cov).shape != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}")
        chol, norm = self._chol_and_norm(cov)
        return _kernel_convolve(chol, norm, self.dataset, self.weights, mean)

    def integrate_box_1d(self, low, high):
        """The integral of a 1-D density between the scalars ``low`` and ``high``."""
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise ValueError("the limits of integration in integrate_box_1d must be scalars")
        sigma = fnp.squeeze(fnp.sqrt(self.covariance))
        low = fnp.squeeze((low - self.dataset) / sigma)
        high = fnp.squeeze((high - self.dataset) / sigma)
        return fnp.sum(self.weights * (special.ndtr(high) - special.ndtr(low)))

    def integrate_kde(self, other):
        """The integral of the product of two densities."""
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        chol, norm = self._chol_and_norm(other.covariance)
        sm, lg = (self, other) if self.n < other.n else (other, self)
        conv = functools.partial(_kernel_convolve, chol, norm, lg.dataset, lg.weights)
        return fnp.sum(vmap(conv, in_axes=1)(sm.dataset) * sm.weights)

    def resample(self, key, shape=()):
        """Draws from the density: data points picked by weight, plus Gaussian noise."""
        ind_key, eps_key = random.split(key)
        ind = random.choice(ind_key, self.n, shape=shape, p=self.weights)
        d = aval_of(self.covariance).dtype
        eps = random.multivariate_normal(eps_key, fnp.zeros(self.d, d), self.covariance,
                                         shape=shape, dtype=aval_of(self.dataset).dtype).T
        return self.dataset[:, ind] + eps

    def integrate_box(self, low_bounds, high_bounds, maxpts=None):
        """Not supported, as in JAX (integrate_box_1d is)."""
        raise NotImplementedError("only 1D box integrations are supported; use "
                                  "`integrate_box_1d`")

    def set_bandwidth(self, bw_method=None):
        """Not supported, as in JAX."""
        raise NotImplementedError("dynamically changing the bandwidth method is not supported")

    def _chol_and_norm(self, cov):
        chol = linalg.cho_factor(self.covariance + cov)
        norm = fnp.sqrt(2 * np.pi) ** self.d * fnp.prod(fnp.diag(chol[0]))
        return chol, 1.0 / norm

    def _reshape_points(self, points):
        if dtypes.is_complex(dtypes.dtype_and_weak(points)[0]):
            raise NotImplementedError("gaussian_kde does not support complex coordinates")
        points = fnp.atleast_2d(points)
        d, m = aval_of(points).shape
        if d != self.d:
            if d == 1 and m == self.d:
                return fnp.reshape(points, (self.d, 1))
            raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
        return points


def _unflatten(_, children):
    kde = gaussian_kde.__new__(gaussian_kde)
    for name, value in zip(_FIELDS, children, strict=True):
        setattr(kde, name, value)
    return kde


register_node(gaussian_kde, lambda k: (tuple(getattr(k, f) for f in _FIELDS), None), _unflatten)


def _kernel_convolve(chol, norm, target, weights, mean):
    diff = target - mean[:, None]
    alpha = linalg.cho_solve(chol, diff)
    arg = 0.5 * fnp.sum(diff * alpha, axis=0)
    return norm * fnp.sum(fnp.exp(-arg) * weights)


def _kernel_eval(in_log, points, values, xi, precision):
    """The weighted sum (log: logsumexp) of Gaussian kernels at each row of ``xi``."""
    points, values, xi, precision = promote_dtypes_inexact(
        "gaussian_kde", points, values, xi, precision, broadcast=False)
    d = aval_of(points).shape[1]
    if aval_of(xi).shape[1] != d:
        raise ValueError("points and xi must have same trailing dim")
    if aval_of(precision).shape != (d, d):
        raise ValueError("precision matrix must match data dims")
    whitening = linalg.cholesky(precision, lower=True)
    points, xi = fnp.dot(points, whitening), fnp.dot(xi, whitening)
    log_norm = fnp.sum(fnp.log(fnp.diag(whitening))) - 0.5 * d * fnp.log(2 * np.pi)

    def kernel(x_test, x_train, y_train):
        arg = log_norm - 0.5 * fnp.sum(fnp.square(x_train - x_test))
        return fnp.log(y_train) + arg if in_log else y_train * fnp.exp(arg)

    reduce = special.logsumexp if in_log else fnp.sum
    return vmap(lambda x: reduce(vmap(kernel, in_axes=(None, 0, 0))(x, points, values),
                                 axis=0))(xi)
