"""Sorting lax functions: sort, sort_key_val, top_k (one primitive each)."""
from __future__ import annotations

from collections.abc import Sequence

from ..core import dtypes
from ..core.ir import aval_of
from ..primitives.sort import sort_p, top_k_p
from ._convert import as_operand
from ._ops import neg


def _axis(axis: int, ndim: int) -> int:
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def sort(operand, dimension: int = -1, is_stable: bool = True, num_keys: int = 1):
    """lax.sort: sort ``operand`` (an array, or a sequence of equal-shape arrays sorted
    together by the lexicographic order of the first ``num_keys``) along ``dimension``.
    NaNs sort last.

    >>> import numpy as np
    >>> from frontend import lax
    >>> lax.sort(np.array([3., 1., 2.]))
    Array([1., 2., 3.], dtype=float32)
    """
    single = not isinstance(operand, Sequence)
    ops = [as_operand(o) for o in ([operand] if single else operand)]
    if not ops:
        raise TypeError("Sort requires at least one operand")
    nd = aval_of(ops[0]).ndim
    if nd == 0:
        raise ValueError(f"axis {dimension} is out of bounds for array of dimension 0")
    outs = sort_p.bind(*ops, dimension=_axis(dimension, nd), is_stable=bool(is_stable),
                       num_keys=int(num_keys))
    return outs[0] if single else tuple(outs)


def sort_key_val(keys, values, dimension: int = -1, is_stable: bool = True):
    """lax.sort_key_val: ``values`` reordered as ``keys`` is sorted; returns both."""
    return sort((keys, values), dimension=dimension, is_stable=is_stable, num_keys=1)


def top_k(operand, k: int, *, axis: int = -1):
    """lax.top_k: the ``k`` largest entries along ``axis`` (in descending order) and their
    int32 indices, as a list ``[values, indices]`` (as JAX's).

    >>> import numpy as np
    >>> from frontend import lax
    >>> lax.top_k(np.array([1., 4., 2.]), 2)
    [Array([4., 2.], dtype=float32), Array([1, 2], dtype=int32)]
    """
    x = as_operand(operand)
    nd = aval_of(x).ndim
    if nd == 0:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension 0")
    k = int(k)
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    return list(top_k_p.bind(x, k=k, axis=_axis(axis, nd)))


def _approx_k(operand, k, reduction_dimension, largest: bool):
    x = as_operand(operand)
    a = aval_of(x)
    if not dtypes.is_inexact(a.dtype) or dtypes.is_complex(a.dtype):
        raise ValueError("operand must be a floating type")
    axis = _axis(reduction_dimension, a.ndim)
    if largest:
        return top_k(x, k, axis=axis)
    values, idx = top_k(neg(x), k, axis=axis)
    return [neg(values), idx]


def approx_max_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
    """lax.approx_max_k: the ``k`` largest entries along ``reduction_dimension`` and their
    int32 indices. On CPU, as JAX's, this is the exact top_k (recall 1)."""
    return _approx_k(operand, k, reduction_dimension, True)


def approx_min_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
    """lax.approx_min_k: the ``k`` smallest entries (ascending) and their int32 indices
    (exact on CPU, as JAX's)."""
    return _approx_k(operand, k, reduction_dimension, False)
