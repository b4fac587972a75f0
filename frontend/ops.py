"""frontend.ops: JAX's segment reductions (``jax.ops``): ``segment_sum``, ``segment_prod``,
``segment_max``, ``segment_min`` over the leading axes of ``data`` given by ``segment_ids``.
Ids outside [0, num_segments) are dropped (negative ones too, as in JAX); an empty segment
holds the reduction's identity.

>>> import frontend.numpy as fnp
>>> from frontend.ops import segment_sum
>>> segment_sum(fnp.arange(5.0), fnp.array([0, 0, 1, 1, 1]), num_segments=2)
Array([1., 9.], dtype=float32)
"""
from __future__ import annotations

import operator

import numpy as np

from . import numpy as fnp
from .core import dtypes
from .core import jax_names as _jax_names
from .core.ir import Tracer
from .numpy._core import check_arraylike


def _identity(kind: str, dtype):
    d = np.dtype(dtype)
    if kind == "sum":
        return 0
    if kind == "prod":
        return 1
    if dtypes.is_bool(d):
        return kind == "min"
    if dtypes.is_int(d):
        info = np.iinfo(d)
        return int(info.min) if kind == "max" else int(info.max)
    return -np.inf if kind == "max" else np.inf


def _segment(kind: str, data, segment_ids, num_segments, mode):
    name = f"segment_{kind}"
    check_arraylike(name, data, segment_ids)
    data, ids = fnp.asarray(data), fnp.asarray(segment_ids)
    if not dtypes.is_int(ids.dtype):
        raise TypeError(f"{name}: segment_ids must be integers, got {ids.dtype}")
    if tuple(data.shape[:ids.ndim]) != tuple(ids.shape):
        raise ValueError(f"{name}: segment_ids of shape {ids.shape} must match the leading "
                         f"axes of data, of shape {data.shape}")
    if num_segments is None:
        if isinstance(ids, Tracer):
            raise TypeError(f"{name}() `num_segments` argument: give it when segment_ids is a "
                            "traced value (the output shape must be static)")
        num_segments = int(np.max(np.asarray(ids), initial=-1)) + 1
    num_segments = operator.index(num_segments)
    if num_segments < 0:
        raise ValueError("num_segments must be non-negative.")
    if mode not in (None, "drop", "fill", "promise_in_bounds", "clip"):
        raise ValueError(f"{name}: unknown mode {mode!r}")
    out = fnp.full((num_segments,) + tuple(data.shape[ids.ndim:]),
                   _identity(kind, data.dtype), dtype=data.dtype)
    if mode == "clip":
        ids = fnp.clip(ids, 0, max(num_segments - 1, 0))
    else:  # negative ids are dropped, not counted from the end
        ids = fnp.where(ids < 0, num_segments, ids)
    ref = out.at[ids]
    update = {"sum": ref.add, "prod": ref.multiply, "max": ref.max, "min": ref.min}[kind]
    return update(data, mode="clip" if mode == "clip" else "drop")


def _make(kind: str, what: str):
    def fn(data, segment_ids, num_segments=None, indices_are_sorted=False,
           unique_indices=False, bucket_size=None, mode=None):
        return _segment(kind, data, segment_ids, num_segments, mode)
    fn.__name__ = fn.__qualname__ = f"segment_{kind}"
    fn.__doc__ = (f"The {what} of ``data`` over each segment (``num_segments`` static; by "
                  "default 1 + the largest id, which must then be concrete).")
    return fn


segment_sum = _make("sum", "sum")
segment_prod = _make("prod", "product")
segment_max = _make("max", "maximum")
segment_min = _make("min", "minimum")

__all__ = ["segment_max", "segment_min", "segment_prod", "segment_sum"]


def __getattr__(name):
    raise _jax_names.missing(__name__, name)
