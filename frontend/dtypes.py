"""JAX's dtype helpers (``frontend.dtypes``, as ``jax.dtypes``): the canonical dtype under
the 64-bit switch, the promotion lattice's ``result_type``, ``issubdtype`` that knows the
typed PRNG keys' dtypes (``extended``, ``prng_key``), ``float0`` (the tangent dtype of
integer values) and ``bfloat16``."""
from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from .core import dtypes as _dtypes
from .core.dtypes import TypePromotionError, bfloat16, float0
from .numpy._scalar_types import finfo, iinfo
from .numpy._scalar_types import issubdtype as _np_issubdtype


class extended(np.generic):
    """The scalar type of the dtypes beyond numpy's (typed PRNG keys' ``key<impl>``)."""


class prng_key(extended):
    """The scalar type of typed PRNG keys' dtypes: ``issubdtype(key.dtype, prng_key)``."""


def _is_key(d: Any) -> bool:
    from .random._prng import KeyDtype  # (the library layer: only when asked)
    return isinstance(d, KeyDtype)


def issubdtype(arg1: Any, arg2: Any) -> bool:
    """numpy's ``issubdtype``, also for typed PRNG keys' dtypes (subtypes of ``prng_key``
    and ``extended``), as ``jax.dtypes.issubdtype``."""
    if _is_key(arg1) or _is_key(arg2):
        if _is_key(arg2):
            return arg1 == arg2
        return arg2 in (extended, prng_key)
    if arg2 in (extended, prng_key):
        return False
    return _np_issubdtype(arg1, arg2)


def canonicalize_dtype(dtype: Any, allow_extended_dtype: bool = False):
    """The dtype arrays of ``dtype`` get (64-bit types narrowed unless ``enable_x64``)."""
    if _is_key(dtype):
        if not allow_extended_dtype:
            raise ValueError(f"Internal: canonicalize_dtype called on extended dtype {dtype} "
                             "with allow_extended_dtype=False")
        return dtype
    return _dtypes.canonicalize(np.dtype(dtype))


def result_type(*args: Any, return_weak_type_flag: bool = False):
    """The dtype JAX's promotion gives ``args`` (arrays, scalars, dtypes); with
    ``return_weak_type_flag``, (dtype, weak)."""
    return _dtypes.result_type(*args, return_weak_type=return_weak_type_flag)


def scalar_type_of(x: Any) -> type:
    """The Python scalar type of ``x``'s kind: bool, int, float or complex."""
    d = np.dtype(_dtypes.dtype_and_weak(x)[0])
    return {"b": bool, "i": int, "u": int, "f": float, "V": float, "c": complex}[d.kind]


def itemsize_bits(dtype: Any) -> int:
    """The bits of one element of ``dtype`` (4 for int4; 8 for bool)."""
    d = np.dtype(getattr(ml_dtypes, dtype) if isinstance(dtype, str) and
                 hasattr(ml_dtypes, dtype) else dtype)
    if d.kind in "bc":
        return d.itemsize * 8
    for info in (ml_dtypes.iinfo, ml_dtypes.finfo):  # (sub-byte types are kind "V")
        try:
            return info(d).bits
        except ValueError:
            pass
    return d.itemsize * 8


__all__ = ["TypePromotionError", "bfloat16", "canonicalize_dtype", "extended", "finfo",
           "float0", "iinfo", "issubdtype", "itemsize_bits", "prng_key", "result_type",
           "scalar_type_of"]
