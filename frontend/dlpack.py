"""DLPack exchange (``frontend.dlpack``, as ``jax.dlpack``): ``from_dlpack`` takes any
object with ``__dlpack__`` (numpy, torch, JAX arrays) as a ``frontend.Array``;
``is_supported_dtype`` says which dtypes travel."""
from __future__ import annotations

from typing import Any

import numpy as np

from .core.dtypes import bfloat16
from .device.array import from_dlpack

_SUPPORTED = frozenset(np.dtype(d) for d in (
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, bfloat16, np.float32, np.float64, np.complex64, np.complex128, np.bool_))


def is_supported_dtype(dtype: Any) -> bool:
    """Whether arrays of ``dtype`` can be exchanged through DLPack."""
    if dtype is None:
        raise TypeError(f"Expected a string or dtype-like object; got {dtype=}")
    return np.dtype(dtype) in _SUPPORTED


__all__ = ["from_dlpack", "is_supported_dtype"]
