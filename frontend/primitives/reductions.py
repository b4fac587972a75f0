"""Reduction primitives, rows of three small families:

- monoid reductions over ``axes`` (reduce_sum, reduce_prod, reduce_max, reduce_min,
  reduce_and, reduce_or, reduce_xor): the reduced axes disappear; dtype and weak type stay.
- argmax / argmin over ``axes=(k,)`` giving ``index_dtype`` indices; the first index wins
  ties and NaN counts as the extreme value (as in JAX).
- cumulative scans (cumsum, cumprod, cummax, cummin) along ``axis`` (``reverse`` scans from
  the end): same shape and dtype.

Batching never reduces (or scans over) the batch axis: the operation's axes are renumbered
around it, so no transpose is ever needed.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..core import Aval, Primitive
from .shape import (  # noqa: F401
    ANY_KIND,
    INT_BOOL_KIND,
    NUMBER_KIND,
    accepts,
    reduce_sum_p,
    reduced_bdim,
    reduction,
    shift_axes,
)

reduce_prod_p = reduction("reduce_prod", NUMBER_KIND)
reduce_max_p = reduction("reduce_max", ANY_KIND)
reduce_min_p = reduction("reduce_min", ANY_KIND)
reduce_and_p = reduction("reduce_and", INT_BOOL_KIND)
reduce_or_p = reduction("reduce_or", INT_BOOL_KIND)
reduce_xor_p = reduction("reduce_xor", INT_BOOL_KIND)


def arg_reduction(name: str) -> Primitive:
    """argmax/argmin(x, axes=(k,), index_dtype): axis k removed, result ``index_dtype``."""
    p = Primitive(name)

    @p.def_abstract_eval
    def abstract_eval(x, *, axes, index_dtype):
        axes = tuple(axes)
        if len(axes) != 1:
            raise ValueError(f"{name} takes exactly one axis, got axes={axes}")
        (k,) = axes
        if not isinstance(k, (int, np.integer)) or not 0 <= k < x.ndim:
            raise ValueError(f"Invalid axis {k} for operand shape {x.shape}")
        if x.shape[k] == 0:
            raise ValueError(f"argmin and argmax require non-empty reduced dimension. "
                             f"operand.shape={x.shape} axis={k}")
        if not dtypes.is_int(index_dtype):
            raise TypeError(f"index_dtype must be an integer type, but got "
                            f"{np.dtype(index_dtype).name}")
        if dtypes.is_complex(x.dtype):
            raise TypeError(f"{name} does not accept dtype {x.dtype.name}. Accepted dtypes "
                            "are subtypes of integer, floating, bool.")
        shape = tuple(s for i, s in enumerate(x.shape) if i != k)
        return Aval(shape, np.dtype(index_dtype), False)

    @p.def_batching
    def batch(args, dims, *, axes, index_dtype):
        # the batch axis is never reduced: it stays, shifted left if it followed the axis
        (x,), (d,) = args, dims
        new_axes = shift_axes(axes, d)
        return p.bind(x, axes=new_axes, index_dtype=index_dtype), reduced_bdim(new_axes, d)

    return p


argmax_p = arg_reduction("argmax")
argmin_p = arg_reduction("argmin")


def cumulative(name: str) -> Primitive:
    """cum<monoid>(x, axis, reverse): inclusive scan along ``axis``; same shape and dtype."""
    p = Primitive(name)

    @p.def_abstract_eval
    def abstract_eval(x, *, axis, reverse=False):
        if dtypes.is_bool(x.dtype) or not accepts(NUMBER_KIND, x.dtype):
            raise TypeError(f"{name} does not accept dtype {x.dtype.name}. Accepted dtypes "
                            f"are subtypes of number.")
        if not isinstance(axis, (int, np.integer)):
            raise TypeError(f"{name} axis must be an int, got {axis!r}")
        if axis < 0:
            raise ValueError("XLA operations do not allow negative axes")
        if axis >= x.ndim:
            raise ValueError(f"axis {axis} is out of bounds for array of shape {x.shape}")
        return x

    @p.def_batching
    def batch(args, dims, *, axis, reverse=False):
        # the batch axis stays where it is; the scanned axis is renumbered around it
        (x,), (d,) = args, dims
        return p.bind(x, axis=axis + (axis >= d), reverse=reverse), d

    return p


# ----------------------------------------------------------------------------- identities


def _zero(d):
    return False if dtypes.is_bool(d) else 0


def _one(d):
    return True if dtypes.is_bool(d) else 1


def lowest(d):
    """The smallest value of a dtype (-inf for floats)."""
    d = np.dtype(d)
    if dtypes.is_bool(d):
        return False
    if dtypes.is_int(d):
        return int(np.iinfo(d).min)
    return -np.inf


def highest(d):
    """The largest value of a dtype (inf for floats)."""
    d = np.dtype(d)
    if dtypes.is_bool(d):
        return True
    if dtypes.is_int(d):
        return int(np.iinfo(d).max)
    return np.inf


def _all_ones(d):
    d = np.dtype(d)
    if dtypes.is_bool(d):
        return True
    return int(np.iinfo(d).max) if dtypes.is_unsigned(d) else -1


# the identity of each monoid reduction (its init value; the fill of masked elements)
IDENTITY = {reduce_sum_p: _zero, reduce_prod_p: _one, reduce_max_p: lowest,
            reduce_min_p: highest, reduce_and_p: _all_ones, reduce_or_p: _zero,
            reduce_xor_p: _zero}

cumsum_p = cumulative("cumsum")
cumprod_p = cumulative("cumprod")
cummax_p = cumulative("cummax")
cummin_p = cumulative("cummin")
