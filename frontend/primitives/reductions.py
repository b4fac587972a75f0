"""Reduction primitives, from three small factories:

- ``Reduce``: monoid reductions over ``axes`` (reduce_sum, reduce_prod, reduce_max,
  reduce_min, reduce_and, reduce_or, reduce_xor). The reduced axes disappear; dtype and weak
  type are kept. Lowered to one ``stablehlo.reduce`` with the monoid's identity as init.
- ``ArgReduce``: argmax / argmin over ``axes=(k,)`` giving ``index_dtype`` indices; the first
  index wins ties and NaN counts as the extreme value (as in JAX). Lowered to a variadic
  ``stablehlo.reduce`` over (values, iota).
- ``Cumulative``: cumsum / cumprod / cummax / cummin along ``axis`` (``reverse`` scans from
  the end). Same shape and dtype. Lowered to ``stablehlo.reduce_window``.

Batching never reduces (or scans over) the batch axis: the operation's axes are renumbered
around it, so no transpose is ever needed.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..core import Aval, Primitive

# dtype classes
_NUMBER = "number"
_ANY = "any"
_INT_BOOL = "int_or_bool"


def _accepts(kind, d) -> bool:
    if kind == _NUMBER:
        return dtypes.is_int(d) or dtypes.is_inexact(d)
    if kind == _INT_BOOL:
        return dtypes.is_int(d) or dtypes.is_bool(d)
    return True


def _check_axes(name, x: Aval, axes) -> tuple:
    axes = tuple(axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"duplicate value in 'axes' of reduction: {axes}")
    if any(not isinstance(a, (int, np.integer)) or not 0 <= a < x.ndim for a in axes):
        raise ValueError(f"reduction axes {axes} contains out-of-bounds indices for "
                         f"{x.dtype.name}[{','.join(map(str, x.shape))}].")
    return axes


def _shift_axes(axes, bdim) -> tuple:
    """Per-example axes -> axes of the batched operand whose batch axis is at ``bdim``."""
    return tuple(a + (a >= bdim) for a in axes)


def _reduced_bdim(axes, bdim) -> int:
    """Where the batch axis lands once ``axes`` (of the batched operand) are removed."""
    return bdim - sum(1 for a in axes if a < bdim)


class Reduce(Primitive):
    """reduce_<monoid>(x, axes=(...)): ``axes`` (distinct, in range) are removed.

    ``hlo`` is the StableHLO op of the reduction body; ``identity(dtype)`` the init value.
    """

    def __init__(self, name, kind, hlo, identity):
        super().__init__(name)
        self.kind = kind
        self.hlo = hlo
        self.identity = identity

    def abstract_eval(self, x, *, axes):
        if not _accepts(self.kind, x.dtype):
            if self.kind == _INT_BOOL:
                raise TypeError(f"logical reduction requires operand dtype bool or int, got "
                                f"{x.dtype.name}.")
            raise TypeError(f"{self.name} does not accept dtype {x.dtype.name}. Accepted dtypes "
                            f"are subtypes of number.")
        axes = _check_axes(self.name, x, axes)
        shape = tuple(s for i, s in enumerate(x.shape) if i not in axes)
        return Aval(shape, x.dtype, x.weak_type)

    def batch(self, axis_size, args, dims, *, axes):
        # the batch axis is never reduced: it stays, shifted left by the reduced axes before it
        (x,), (d,) = args, dims
        new_axes = _shift_axes(axes, d)
        return self.bind(x, axes=new_axes), _reduced_bdim(new_axes, d)


def _zero(d):
    return False if dtypes.is_bool(d) else 0


def _one(d):
    return True if dtypes.is_bool(d) else 1


def _lowest(d):
    d = np.dtype(d)
    if dtypes.is_bool(d):
        return False
    if dtypes.is_int(d):
        return int(np.iinfo(d).min)
    return -np.inf


def _highest(d):
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


reduce_sum_p = Reduce("reduce_sum", _NUMBER, "add", _zero)
reduce_prod_p = Reduce("reduce_prod", _NUMBER, "multiply", _one)
reduce_max_p = Reduce("reduce_max", _ANY, "maximum", _lowest)
reduce_min_p = Reduce("reduce_min", _ANY, "minimum", _highest)
reduce_and_p = Reduce("reduce_and", _INT_BOOL, "and", _all_ones)
reduce_or_p = Reduce("reduce_or", _INT_BOOL, "or", _zero)
reduce_xor_p = Reduce("reduce_xor", _INT_BOOL, "xor", _zero)

REDUCE = {p.name: p for p in (reduce_sum_p, reduce_prod_p, reduce_max_p, reduce_min_p,
                              reduce_and_p, reduce_or_p, reduce_xor_p)}


class ArgReduce(Primitive):
    """argmax/argmin(x, axes=(k,), index_dtype): axis k removed, result ``index_dtype``.
    The first index wins ties; NaN beats every number (the first NaN is returned)."""

    def __init__(self, name, is_max):
        super().__init__(name)
        self.is_max = is_max

    def abstract_eval(self, x, *, axes, index_dtype):
        axes = tuple(axes)
        if len(axes) != 1:
            raise ValueError(f"{self.name} takes exactly one axis, got axes={axes}")
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
            raise TypeError(f"{self.name} does not accept dtype {x.dtype.name}. Accepted dtypes "
                            "are subtypes of integer, floating, bool.")
        shape = tuple(s for i, s in enumerate(x.shape) if i != k)
        return Aval(shape, np.dtype(index_dtype), False)

    def batch(self, axis_size, args, dims, *, axes, index_dtype):
        # the batch axis is never reduced: it stays, shifted left if it followed the axis
        (x,), (d,) = args, dims
        new_axes = _shift_axes(axes, d)
        return self.bind(x, axes=new_axes, index_dtype=index_dtype), _reduced_bdim(new_axes, d)


argmax_p = ArgReduce("argmax", True)
argmin_p = ArgReduce("argmin", False)


class Cumulative(Primitive):
    """cum<monoid>(x, axis, reverse): inclusive scan along ``axis``; same shape and dtype.
    ``monoid`` names the Reduce primitive whose body and identity the lowering uses."""

    def __init__(self, name, monoid: Reduce):
        super().__init__(name)
        self.monoid = monoid

    def abstract_eval(self, x, *, axis, reverse=False):
        if dtypes.is_bool(x.dtype) or not _accepts(_NUMBER, x.dtype):
            raise TypeError(f"{self.name} does not accept dtype {x.dtype.name}. Accepted dtypes "
                            f"are subtypes of number.")
        if not isinstance(axis, (int, np.integer)):
            raise TypeError(f"{self.name} axis must be an int, got {axis!r}")
        if axis < 0:
            raise ValueError("XLA operations do not allow negative axes")
        if axis >= x.ndim:
            raise ValueError(f"axis {axis} is out of bounds for array of shape {x.shape}")
        return x

    def batch(self, axis_size, args, dims, *, axis, reverse=False):
        # the batch axis stays where it is; the scanned axis is renumbered around it
        (x,), (d,) = args, dims
        return self.bind(x, axis=axis + (axis >= d), reverse=reverse), d


cumsum_p = Cumulative("cumsum", reduce_sum_p)
cumprod_p = Cumulative("cumprod", reduce_prod_p)
cummax_p = Cumulative("cummax", reduce_max_p)
cummin_p = Cumulative("cummin", reduce_min_p)

CUMULATIVE = {p.name: p for p in (cumsum_p, cumprod_p, cummax_p, cummin_p)}


# ----------------------------------------------------------------------------- wrappers


def _reduce_wrapper(prim):
    def fn(operand, axes):
        return prim.bind(operand, axes=tuple(int(a) for a in axes))
    fn.__name__ = prim.name
    fn.__doc__ = (f"lax.{prim.name}: reduce ``operand`` over ``axes`` (non-negative, distinct).\n\n"
                  f"    >>> {prim.name}(x, (1,))  # x: f32[2,3] -> f32[2]")
    return fn


reduce_sum = _reduce_wrapper(reduce_sum_p)
reduce_prod = _reduce_wrapper(reduce_prod_p)
reduce_max = _reduce_wrapper(reduce_max_p)
reduce_min = _reduce_wrapper(reduce_min_p)
reduce_and = _reduce_wrapper(reduce_and_p)
reduce_or = _reduce_wrapper(reduce_or_p)
reduce_xor = _reduce_wrapper(reduce_xor_p)


def argmax(operand, axis: int, index_dtype):
    """lax.argmax: index of the largest element along ``axis`` (first on ties; NaN wins).

    >>> argmax(x, 1, np.int32)  # x: f32[2,3] -> i32[2]
    """
    return argmax_p.bind(operand, axes=(int(axis),), index_dtype=dtypes.canonicalize(np.dtype(index_dtype)))


def argmin(operand, axis: int, index_dtype):
    """lax.argmin: index of the smallest element along ``axis`` (first on ties; NaN wins)."""
    return argmin_p.bind(operand, axes=(int(axis),), index_dtype=dtypes.canonicalize(np.dtype(index_dtype)))


def _cum_wrapper(prim):
    def fn(operand, axis: int = 0, reverse: bool = False):
        return prim.bind(operand, axis=int(axis), reverse=bool(reverse))
    fn.__name__ = prim.name
    fn.__doc__ = (f"lax.{prim.name}: inclusive scan along ``axis`` (from the end if ``reverse``)."
                  f"\n\n    >>> {prim.name}(x, axis=1)  # same shape and dtype as x")
    return fn


cumsum = _cum_wrapper(cumsum_p)
cumprod = _cum_wrapper(cumprod_p)
cummax = _cum_wrapper(cummax_p)
cummin = _cum_wrapper(cummin_p)

__all__ = ["reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_and", "reduce_or",
           "reduce_xor", "argmax", "argmin", "cumsum", "cumprod", "cummax", "cummin"]
