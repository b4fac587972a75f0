"""Static type annotations (``frontend.typing``, as ``jax.typing``): ``ArrayLike`` (what
the functions accept as an array) and ``DTypeLike`` (what they accept as a dtype)."""
from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from .device.array import Array


class _SupportsDType(Protocol):
    @property
    def dtype(self) -> np.dtype: ...


ArrayLike = Array | np.ndarray | np.bool_ | np.number | bool | int | float | complex
DTypeLike = str | type[Any] | np.dtype | _SupportsDType

__all__ = ["ArrayLike", "DTypeLike"]
