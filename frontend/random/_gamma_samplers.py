"""jax.random's samplers built on gamma draws (``random_gamma_p``): gamma, loggamma, beta,
dirichlet, chisquare, f, t, generalized_normal and ball, each as JAX builds it (the same
key splits, draws and arithmetic), so the bits are JAX's."""
from __future__ import annotations

import operator

import numpy as np

from .. import lax
from .. import numpy as fnp
from ..device.fusion import eager_jit
from ..lax._convert import convert
from ._gamma import random_gamma_p
from ._prng import check_key, split_data
from ._samplers import (
    _as_device,
    _exponential,
    _normal,
    _rademacher,
    _row,
    _shape_of,
    at_run_time,
    canonical_shape,
    check_shape,
    float_dtype,
)
from ._transforms import _bcast, _float_param, _ranked


def _gamma_args(name: str, key, a, shape, dtype, dtype_name=None):
    data, _ = check_key(name, key)
    d = float_dtype(dtype_name or name, dtype)
    return data, _as_device(a), None if shape is None else canonical_shape(shape), d


def gamma(key, a, shape=None, dtype=None):
    """Gamma(a, 1) samples (Marsaglia–Tsang, one rejection loop per element); differentiable
    in ``a`` (implicit reparameterization)."""
    return _gamma(*_gamma_args("gamma", key, a, shape, dtype), False)


def loggamma(key, a, shape=None, dtype=None):
    """The logs of Gamma(a, 1) samples, computed in log space (accurate for small ``a``)."""
    return _gamma(*_gamma_args("loggamma", key, a, shape, dtype, "gamma"), True)


@eager_jit
def _gamma(key, a, shape, dtype, log_space):
    if shape is None:
        shape = _shape_of(a)
    else:
        check_shape("gamma", shape, _shape_of(a))
    a = convert(a, dtype)
    if _shape_of(a) != shape:
        a = fnp.broadcast_to(a, shape)
    return random_gamma_p.bind(key, a, log_space=log_space)


def beta(key, a, b, shape=None, dtype=None):
    """Beta(a, b) samples: the ratio of two gamma draws, computed from log-gamma draws."""
    data, shape, d, (a, b) = _float_param("beta", key, shape, dtype, (a, b))
    return _beta(data, a, b, shape, d)


@eager_jit
def _beta(key, a, b, shape, dtype):
    keys = split_data(key, (2,))
    log_a = _gamma(_row(keys, 0), _bcast(a, dtype, shape), shape, dtype, True)
    log_b = _gamma(_row(keys, 1), _bcast(b, dtype, shape), shape, dtype, True)
    log_max = lax.max(log_a, log_b)
    a_scaled, b_scaled = fnp.exp(log_a - log_max), fnp.exp(log_b - log_max)
    return a_scaled / (a_scaled + b_scaled)


def dirichlet(key, alpha, shape=None, dtype=None):
    """Dirichlet(alpha) samples over alpha's last axis (a softmax of log-gamma draws);
    ``shape`` is the batch shape, without that axis."""
    return _dirichlet(*_gamma_args("dirichlet", key, alpha, shape, dtype))


@eager_jit
def _dirichlet(key, alpha, shape, dtype):
    alpha_shape = _shape_of(alpha)
    if len(alpha_shape) < 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == {len(alpha_shape)}")
    if shape is None:
        shape = alpha_shape[:-1]
    else:
        check_shape("dirichlet", shape, alpha_shape[:-1])
    log_g = _gamma(key, convert(alpha, dtype), shape + alpha_shape[-1:], dtype, True)
    # the softmax over the last axis, as jax.nn.softmax computes it
    unnormalized = fnp.exp(log_g - fnp.max(log_g, -1, keepdims=True, initial=-np.inf))
    return unnormalized / fnp.sum(unnormalized, -1, keepdims=True)


def chisquare(key, df, shape=None, dtype=None):
    """Chi-square samples of ``df`` degrees of freedom: 2 Gamma(df / 2)."""
    data, shape, d, (df,) = _float_param("chisquare", key, shape, dtype, (df,))
    return _chisquare(data, df, shape, d)


@eager_jit
def _chisquare(key, df, shape, dtype):
    two = fnp.full((), 2, dtype)
    log_g = _gamma(key, lax.div(convert(df, dtype), two), shape, dtype, True)
    return lax.mul(fnp.exp(log_g), two)


def f(key, dfnum, dfden, shape=None, dtype=None):
    """F-distribution samples: the ratio of two chi-squares over their degrees of freedom."""
    data, shape, d, (dfnum, dfden) = _float_param("f", key, shape, dtype, (dfnum, dfden))
    return _f(data, dfnum, dfden, shape, d)


@eager_jit
def _f(key, dfnum, dfden, shape, dtype):
    dfden, dfnum = convert(dfden, dtype), convert(dfnum, dtype)
    keys = split_data(key, (2,))
    chi2_num = _chisquare(_row(keys, 1), dfnum, shape, dtype)
    chi2_den = _chisquare(_row(keys, 0), dfden, shape, dtype)
    return fnp.divide(fnp.divide(*_ranked(chi2_num, dfnum)), fnp.divide(*_ranked(chi2_den, dfden)))


def t(key, df, shape=None, dtype=None):
    """Student's t samples of ``df`` degrees of freedom: normal * sqrt(df / 2 / Gamma(df / 2))."""
    data, shape, d, (df,) = _float_param("t", key, shape, dtype, (df,))
    return _t(data, df, shape, d)


@eager_jit
def _t(key, df, shape, dtype):
    keys = split_data(key, (2,))
    n = _normal(_row(keys, 0), shape, dtype)
    half_df = lax.div(convert(df, dtype), fnp.full((), 2, dtype))
    g = _gamma(_row(keys, 1), half_df, shape, dtype, False)
    return fnp.multiply(*_ranked(n, fnp.sqrt(fnp.divide(*_ranked(half_df, g)))))


def generalized_normal(key, p, shape=(), dtype=None):
    """Samples of density proportional to exp(-|x| ** p): a random sign times
    Gamma(1 / p) ** (1 / p)."""
    data, _ = check_key("generalized_normal", key)
    return _generalized_normal(data, _as_device(p), canonical_shape(shape),
                               float_dtype("generalized_normal", dtype))


@eager_jit
def _generalized_normal(key, p, shape, dtype):
    keys = split_data(key, (2,))
    inv_p = fnp.divide(1, at_run_time(p))
    g = _gamma(_row(keys, 0), inv_p, shape, dtype, False)
    r = _rademacher(_row(keys, 1), shape, dtype)
    return r * fnp.power(g, inv_p)


def ball(key, d, p=2, shape=(), dtype=None):
    """Uniform samples from the unit Lp ball in ``d`` dimensions (shape ``shape + (d,)``)."""
    data, _ = check_key("ball", key)
    return _ball(data, _as_device(p), operator.index(d), canonical_shape(shape),
                 float_dtype("ball", dtype))


@eager_jit
def _ball(key, p, d, shape, dtype):
    keys = split_data(key, (2,))
    g = _generalized_normal(_row(keys, 0), p, (*shape, d), dtype)
    e = _exponential(_row(keys, 1), shape, dtype)
    p = at_run_time(p)
    norm = fnp.power(fnp.sum(fnp.power(fnp.abs(g), p), -1) + e, fnp.divide(1, p))
    return g / fnp.expand_dims(norm, -1)

