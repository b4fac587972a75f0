"""Window reductions: lax.reduce_window with ``lax.add``, ``lax.max`` or ``lax.min`` as the
computation (one window primitive each), and lax.cumlogsumexp."""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..array import Array
from ..core import aval_of
from ..primitives import elementwise as ew
from ..primitives import reductions as red
from ..primitives import windows as win
from ._conv import padtype_to_pads
from ._convert import as_operand, convert
from ._ops import abs, add, exp, log1p, max, min, neg, select, sub  # noqa: A004

# computation -> (window primitive, its monoid's identity, the monoid's binary primitive)
_MONOIDS = {add: (win.reduce_window_sum_p, red.IDENTITY[red.reduce_sum_p], ew.add_p),
            max: (win.reduce_window_max_p, red.lowest, ew.max_p),
            min: (win.reduce_window_min_p, red.highest, ew.min_p)}


def _is_identity(init, value) -> bool:
    if not isinstance(init, (Array, np.ndarray, np.generic, int, float, bool)):
        return False  # traced: not known
    v = np.asarray(init)
    return v.shape == () and bool(v == value)


def reduce_window(operand, init_value, computation, window_dimensions, window_strides=None,
                  padding="VALID", base_dilation=None, window_dilation=None):
    """lax.reduce_window: every window of ``window_dimensions`` (strided, padded with
    ``init_value``, dilated) reduced by ``computation`` (``lax.add``, ``lax.max`` or
    ``lax.min``) starting from ``init_value``.

    >>> reduce_window(np.arange(6.), 0., lax.add, (3,), (1,), "VALID")
    Array([ 3.,  6.,  9., 12.], dtype=float32)
    """
    if computation not in _MONOIDS:
        raise NotImplementedError(
            "reduce_window in vmaplab takes lax.add, lax.max or lax.min as its computation "
            f"(a window sum, max or min), got {getattr(computation, '__name__', computation)!r}")
    prim, identity, combine = _MONOIDS[computation]
    x = as_operand(operand)
    a = aval_of(x)
    nd = a.ndim
    if len(window_dimensions) != nd:
        raise TypeError(f"reduce_window: window_dimensions {tuple(window_dimensions)} must have "
                        f"one entry per axis of the operand of shape {a.shape}")
    strides = tuple(window_strides) if window_strides is not None else (1,) * nd
    if isinstance(padding, str):
        wd = window_dilation if window_dilation is not None else (1,) * nd
        dilated = tuple(0 if w == 0 else 1 + d * (w - 1) for w, d in zip(window_dimensions, wd))
        padding = padtype_to_pads(a.shape, dilated, strides, padding)
    params = win.window_params(nd, window_dimensions, strides, padding, base_dilation,
                               window_dilation)
    out = prim.bind(x, **params)
    if _is_identity(init_value, identity(a.dtype)):
        return out
    # another init value joins each window's reduction once (as XLA's reduce_window, which
    # JAX's general path lowers to: padding and dilation holes add nothing)
    init = convert(init_value, a.dtype)
    if aval_of(init).ndim:
        raise TypeError(f"reduce_window: init_value must be a scalar, got shape "
                        f"{aval_of(init).shape}")
    return combine.bind(out, init)


def _logaddexp(a, b):
    # log(exp(a) + exp(b)); where a - b is NaN (NaNs, or infinities of one sign) a + b
    delta = sub(a, b)
    return select(ew.ne_p.bind(delta, delta), add(a, b),
                  add(max(a, b), log1p(exp(neg(abs(delta))))))


def cumlogsumexp(operand, axis: int = 0, reverse: bool = False):
    """lax.cumlogsumexp: ``log(cumsum(exp(x)))`` along ``axis``, computed stably (a
    log-depth scan of logaddexp over built-in primitives, so it batches and differentiates
    as they do).

    >>> cumlogsumexp(np.zeros(3, np.float32))
    Array([0.       , 0.6931472, 1.0986123], dtype=float32)
    """
    x = as_operand(operand)
    a = aval_of(x)
    if not dtypes.is_inexact(a.dtype):
        raise TypeError(f"cumlogsumexp does not accept dtype {a.dtype.name}. "
                        "Accepted dtypes are subtypes of inexact.")
    if not -a.ndim <= int(axis) < a.ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of shape {a.shape}")
    axis = int(axis) % a.ndim
    return red.associative_scan(_logaddexp, x, axis, reverse)
