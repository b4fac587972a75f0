"""frontend.nn.initializers: JAX's parameter initializers (same names, same random bits).
Each returns ``init(key, shape, dtype=None)``.

>>> from frontend import random
>>> from frontend.nn.initializers import glorot_uniform
>>> w = glorot_uniform()(random.PRNGKey(0), (3, 2))
>>> w.shape, w.dtype
((3, 2), dtype('float32'))
"""
from __future__ import annotations

import math
from typing import Protocol

import numpy as np

from .. import numpy as fnp
from .. import random
from ..core import dtypes
from ..core import jax_names as _jax_names
from ..random._samplers import canonical_shape


def _dtype(dtype):
    return dtypes.default_float() if dtype is None else dtype


def zeros(key, shape, dtype=None):
    return fnp.zeros(shape, _dtype(dtype))


def ones(key, shape, dtype=None):
    return fnp.ones(shape, _dtype(dtype))


def constant(value, dtype=None):
    def init(key, shape, dtype=dtype):
        return fnp.full(shape, value, dtype=_dtype(dtype))
    return init


def uniform(scale=1e-2, dtype=None):
    """Uniform in [0, scale)."""
    def init(key, shape, dtype=dtype):
        d = _dtype(dtype)
        return random.uniform(key, shape, d) * fnp.array(scale, d)
    return init


def normal(stddev=1e-2, dtype=None):
    """Normal with mean 0 and standard deviation ``stddev``."""
    def init(key, shape, dtype=dtype):
        d = _dtype(dtype)
        return random.normal(key, shape, d) * fnp.array(stddev, d)
    return init


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0):
    """Normal truncated to [lower, upper], times ``stddev``."""
    def init(key, shape, dtype=dtype):
        d = _dtype(dtype)
        return random.truncated_normal(key, lower, upper, shape, d) * fnp.array(stddev, d)
    return init


def _compute_fans(shape, in_axis=-2, out_axis=-1, batch_axis=()):
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-dimensional "
                         "weights tensor with default in_axis. Must be at least 2D or specify "
                         "in_axis explicitly.")

    def size(axes):
        return shape[axes] if isinstance(axes, int) else math.prod([shape[i] for i in axes])

    receptive = math.prod(shape) / size(in_axis) / size(out_axis) / size(batch_axis)
    return size(in_axis) * receptive, size(out_axis) * receptive


def variance_scaling(scale, mode, distribution, in_axis=-2, out_axis=-1, batch_axis=(),
                     dtype=None):
    """Samples scaled to variance ``scale / fan`` (fan by ``mode``: fan_in, fan_out,
    fan_avg, fan_geo_avg) from ``distribution`` (truncated_normal, normal, uniform)."""
    def init(key, shape, dtype=dtype):
        shape = canonical_shape(shape)
        d = _dtype(dtype)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        denominators = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2,
                        "fan_geo_avg": (fan_in * fan_out) ** 0.5}
        if mode not in denominators:
            raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
        variance = fnp.array(scale / denominators[mode], dtype=d)
        if dtypes.is_complex(np.dtype(d)):
            raise NotImplementedError("complex variance_scaling initializers are not in "
                                      "vmaplab yet")
        if distribution == "truncated_normal":
            stddev = fnp.sqrt(variance) / fnp.array(.87962566103423978, d)
            return random.truncated_normal(key, -2, 2, shape, d) * stddev
        if distribution == "normal":
            return random.normal(key, shape, d) * fnp.sqrt(variance)
        if distribution == "uniform":
            return random.uniform(key, shape, d, -1) * fnp.sqrt(3 * variance)
        raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")
    return init


def _preset(scale, mode, distribution, doc):
    def make(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
        return variance_scaling(scale, mode, distribution, in_axis, out_axis, batch_axis, dtype)
    make.__doc__ = doc
    return make


glorot_uniform = xavier_uniform = _preset(1.0, "fan_avg", "uniform", "Glorot (Xavier) uniform.")
glorot_normal = xavier_normal = _preset(1.0, "fan_avg", "truncated_normal",
                                        "Glorot (Xavier) truncated normal.")
lecun_uniform = _preset(1.0, "fan_in", "uniform", "LeCun uniform.")
lecun_normal = _preset(1.0, "fan_in", "truncated_normal", "LeCun truncated normal.")
he_uniform = kaiming_uniform = _preset(2.0, "fan_in", "uniform", "He (Kaiming) uniform.")
he_normal = kaiming_normal = _preset(2.0, "fan_in", "truncated_normal",
                                     "He (Kaiming) truncated normal.")

__all__ = ["constant", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform",
           "kaiming_normal", "kaiming_uniform", "lecun_normal", "lecun_uniform", "normal", "ones",
           "truncated_normal", "uniform", "variance_scaling", "xavier_normal", "xavier_uniform",
           "zeros"]


class Initializer(Protocol):
    """The type of an initializer: ``init(key, shape, dtype) -> Array`` (JAX's protocol)."""

    def __call__(self, key, shape, dtype=None):
        ...


def orthogonal(scale=1.0, column_axis: int = -1, dtype=None):
    """An initializer of (scaled) orthogonal matrices: the Q of a normal matrix's QR, its
    columns' signs fixed by R's diagonal; other axes are flattened into the rows."""
    def init(key, shape, dtype=dtype):
        dtype = _dtype(dtype)
        shape = canonical_shape(shape)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        n_cols = shape[column_axis]
        n_rows = math.prod(shape) // n_cols
        wide = n_rows < n_cols
        a = random.normal(key, (n_cols, n_rows) if wide else (n_rows, n_cols), dtype)
        q, r = fnp.linalg.qr(a)
        q = q * fnp.sign(fnp.diagonal(r))
        if wide:
            q = q.T
        rest = tuple(d for i, d in enumerate(shape) if i != column_axis % len(shape))
        q = fnp.moveaxis(fnp.reshape(q, rest + (n_cols,)), -1, column_axis)
        return fnp.asarray(scale, dtype) * q
    return init


def delta_orthogonal(scale=1.0, column_axis: int = -1, dtype=None):
    """An initializer of convolution kernels (3-D to 5-D) that are zero except at the
    spatial center, which holds an orthogonal (in, out) matrix (the delta-orthogonal scheme)."""
    def init(key, shape, dtype=dtype):
        dtype = _dtype(dtype)
        shape = canonical_shape(shape)
        if len(shape) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        ortho = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(key, shape[-2:])
        center = tuple((k - 1) // 2 for k in shape[:-2])
        return fnp.zeros(shape, dtype).at[center].set(ortho)
    return init


def __getattr__(name):
    raise _jax_names.missing(__name__, name)
