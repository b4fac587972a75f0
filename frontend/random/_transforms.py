"""jax.random's samplers that are transformations of uniform, normal and exponential draws
(lognormal, rayleigh, weibull_min, pareto, maxwell, double_sided_maxwell, triangular, wald,
geometric, orthogonal) and ``key_dtype``: JAX's formulas operation for operation, so the
bits are JAX's."""
from __future__ import annotations

import operator

import numpy as np

from .. import lax
from .. import numpy as fnp
from ..core import dtypes
from ..core.dtypes import TypePromotionError
from ..core.ir import aval_of
from ..device.fusion import eager_jit
from ..lax._convert import convert
from ..numpy._core import check_arraylike, promote_dtypes_inexact
from ._prng import KEY_DTYPE, KeyDtype, check_key, split_data
from ._samplers import (
    _as_device,
    _dtype,
    _exponential,
    _normal,
    _rademacher,
    _row,
    _shape_of,
    _to_rank,
    _uniform,
    canonical_shape,
    check_shape,
    float_dtype,
)

# ----------------------------------------------------------------------------- arguments


def param_shape(name: str, shape, *params) -> tuple:
    """The sample shape: the parameters' broadcast shape when ``shape`` is None, else
    ``shape``, which must be that broadcast (JAX's ``_check_broadcast_shapes``)."""
    shapes = [_shape_of(p) for p in params]
    if shape is None:
        return tuple(np.broadcast_shapes(*shapes)) if shapes else ()
    shape = canonical_shape(shape)
    check_shape(name, shape, *shapes)
    return shape


def check_safe_casts(name: str, dtype, *params) -> None:
    """Each parameter must cast to ``dtype`` without promotion (a weak Python scalar does)."""
    for p in params:
        if isinstance(p, (list, tuple)):
            p = np.asarray(p)
        d, weak = dtypes.dtype_and_weak(p)
        if d != dtype and dtypes.promote((d, weak), (dtype, False))[0] != dtype:
            raise TypePromotionError(f"In arguments to {name}, cannot safely cast argument of "
                                     f"type {d} to {dtype}")


def _float_param(name: str, key, shape, dtype, params, inexact=False):
    """(raw key, shape, dtype, device params) of a sampler of float parameters."""
    data, _ = check_key(name, key)
    d = _dtype(name, dtype, dtypes.default_float, dtypes.is_inexact, "a float or complex") \
        if inexact else float_dtype(name, dtype)
    shape = param_shape(name, shape, *params)
    check_safe_casts(name, d, *params)
    return data, shape, d, [_as_device(p) for p in params]


def _ranked(*xs) -> list:
    """The operands with leading size-1 axes up to their common rank (rank-0 ones left
    alone), as JAX's numpy promotes ranks before broadcasting (XLA simplifies the forms
    differently, so the bits follow the form)."""
    xs = [fnp.asarray(x) if isinstance(x, (int, float)) else x for x in xs]
    n = max(aval_of(x).ndim for x in xs)
    return [_to_rank(x, n) if aval_of(x).ndim else x for x in xs]


def _unchecked_params(name: str, key, shape, dtype, *params) -> tuple:
    """(raw key, *device params, shape, dtype) of a sampler whose parameters JAX leaves to
    broadcast against its samples (no shape or cast check)."""
    data, _ = check_key(name, key)
    d = float_dtype(name, dtype)
    return (data, *(_as_device(p) for p in params), canonical_shape(shape), d)


def _bcast(x, dtype, shape):
    return fnp.broadcast_to(convert(x, dtype), shape)


def key_dtype(impl_spec=None) -> KeyDtype:
    """The dtype of typed keys of a PRNG implementation (vmaplab has threefry2x32)."""
    if impl_spec is None or isinstance(impl_spec, KeyDtype):
        return KEY_DTYPE
    if type(impl_spec) is str:
        if impl_spec == "threefry2x32":
            return KEY_DTYPE
        raise ValueError(f'unrecognized PRNG implementation "{impl_spec}". Did you mean one of: '
                         '"threefry2x32"? (vmaplab implements threefry2x32 only)')
    raise TypeError(f"unrecognized type {type(impl_spec)} for specifying PRNG implementation.")


# ----------------------------------------------------------------------------- samplers


def lognormal(key, sigma=np.float32(1), shape=None, dtype=None):
    """exp(sigma * normal): lognormal samples."""
    data, shape, d, (sigma,) = _float_param("lognormal", key, shape, dtype, (sigma,), True)
    return _lognormal(data, sigma, shape, d)


@eager_jit
def _lognormal(key, sigma, shape, dtype):
    return fnp.exp(fnp.multiply(*_ranked(_normal(key, shape, dtype), convert(sigma, dtype))))


def rayleigh(key, scale, shape=None, dtype=None):
    """scale * sqrt(-2 log u): Rayleigh samples."""
    data, shape, d, (scale,) = _float_param("rayleigh", key, shape, dtype, (scale,))
    return _rayleigh(data, scale, shape, d)


@eager_jit
def _rayleigh(key, scale, shape, dtype):
    u = _uniform(key, 0.0, 1.0, shape, dtype)
    return lax.mul(_bcast(scale, dtype, shape), fnp.sqrt(lax.log(u) * -2))


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """scale * (-log1p(-u)) ** (1 / concentration): Weibull samples (the parameters broadcast
    against ``shape``, as JAX's)."""
    return _weibull_min(*_unchecked_params("weibull_min", key, shape, dtype, scale, concentration))


@eager_jit
def _weibull_min(key, scale, concentration, shape, dtype):
    u = _uniform(key, 0.0, 1.0, shape, dtype)
    return fnp.multiply(*_ranked(fnp.power(*_ranked(-fnp.log1p(-u), 1.0 / fnp.asarray(concentration))),
                                 scale))


def pareto(key, b, shape=None, dtype=None):
    """exp(exponential / b): Pareto samples."""
    data, shape, d, (b,) = _float_param("pareto", key, shape, dtype, (b,))
    return _pareto(data, b, shape, d)


@eager_jit
def _pareto(key, b, shape, dtype):
    return fnp.exp(_exponential(key, shape, dtype) / convert(b, dtype))


def maxwell(key, shape=(), dtype=None):
    """The norm of three standard normals: one-sided Maxwell samples."""
    data, _ = check_key("maxwell", key)
    return _maxwell(data, canonical_shape(shape), float_dtype("maxwell", dtype))


@eager_jit
def _maxwell(key, shape, dtype):
    return fnp.linalg.norm(_normal(key, shape + (3,), dtype), axis=-1)


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """Maxwell samples with a random sign, scaled and shifted. As JAX's, the result shape is
    ``shape`` (or the parameters' shape when empty) followed by the parameters' shape."""
    return _double_sided_maxwell(*_unchecked_params("double_sided_maxwell", key, shape, dtype,
                                                    loc, scale))


@eager_jit
def _double_sided_maxwell(key, loc, scale, shape, dtype):
    params = tuple(np.broadcast_shapes(_shape_of(loc), _shape_of(scale)))
    shape = (shape or params) + params
    keys = split_data(key, (2,))
    rvs = _maxwell(_row(keys, 0), shape, dtype)
    sign = _rademacher(_row(keys, 1), shape, dtype)
    return fnp.add(*_ranked(fnp.multiply(*_ranked(sign * rvs, scale)), loc))


def triangular(key, left, mode, right, shape=None, dtype=None):
    """Triangular samples on [left, right] peaking at ``mode`` (the inverse CDF)."""
    data, shape, d, params = _float_param("triangular", key, shape, dtype, (left, mode, right))
    return _triangular(data, *params, shape, d)


@eager_jit
def _triangular(key, left, mode, right, shape, dtype):
    left, mode, right = (_bcast(x, dtype, shape) for x in (left, mode, right))
    fc = (mode - left) / (right - left)
    u = _uniform(key, 0.0, 1.0, shape, dtype)
    out1 = left + fnp.sqrt(u * (right - left) * (mode - left))
    out2 = right - fnp.sqrt((1 - u) * (right - left) * (right - mode))
    return fnp.where(u < fc, out1, out2)


def wald(key, mean, shape=None, dtype=None):
    """Wald (inverse Gaussian) samples of mean ``mean`` (Michael, Schucany and Haas)."""
    data, shape, d, (mean,) = _float_param("wald", key, shape, dtype, (mean,))
    return _wald(data, mean, shape, d)


@eager_jit
def _wald(key, mean, shape, dtype):
    keys = split_data(key, (2,))
    mean = _bcast(mean, dtype, shape)
    v = _normal(_row(keys, 0), shape, dtype)
    z = _uniform(_row(keys, 1), 0.0, 1.0, shape, dtype)
    y = v * v
    y_sq = y * y
    mean_sq = mean * mean
    sqrt_term = fnp.sqrt(4 * mean * y + mean_sq * y_sq)
    x = mean + mean_sq * y / 2 - mean / 2 * sqrt_term
    return fnp.where(z <= mean / (mean + x), x, mean_sq / x)


def geometric(key, p, shape=None, dtype=None):
    """The number of Bernoulli(p) trials up to the first success (an integer >= 1)."""
    data, _ = check_key("geometric", key)
    d = _dtype("geometric", dtype, dtypes.default_int, dtypes.is_int, "an int")
    shape = param_shape("geometric", shape, p)
    check_arraylike("geometric", p)
    (p,) = promote_dtypes_inexact("geometric", fnp.asarray(_as_device(p)))
    return _geometric(data, p, shape, d)


@eager_jit
def _geometric(key, p, shape, dtype):
    u = _uniform(key, 0.0, 1.0, shape, aval_of(p).dtype)
    u = fnp.where(u == 0, 1, u)
    log_one_minus_p = fnp.broadcast_to(fnp.log1p(-p), shape)
    return fnp.astype(fnp.floor(fnp.log(u) / log_one_minus_p) + 1, dtype)


def orthogonal(key, n, shape=(), dtype=None, m=None):
    """Haar-random orthogonal (unitary, for complex dtypes) n x m matrices (semi-orthogonal
    when n != m): the QR of a normal matrix with R's diagonal signs moved into Q."""
    shape = canonical_shape(shape)
    data, _ = check_key("orthogonal", key)
    d = dtypes.canonicalize(np.dtype(dtypes.default_float() if dtype is None else dtype))
    n = operator.index(n)
    m = n if m is None else operator.index(m)
    return _orthogonal(data, n, m, shape, d)


@eager_jit
def _orthogonal(key, n, m, shape, dtype):
    z = _normal(key, (*shape, max(n, m), min(n, m)), dtype)
    q, r = fnp.linalg.qr(z)
    x = q * fnp.expand_dims(fnp.sign(fnp.diagonal(r, axis1=-2, axis2=-1)), -2)
    return fnp.matrix_transpose(x) if n < m else x
