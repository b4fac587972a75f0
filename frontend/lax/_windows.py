"""Window reductions: lax.reduce_window (with ``lax.add``, ``lax.max`` or ``lax.min`` one
window primitive each; with any other computation, or several operands, the general
``reduce_window`` primitive holding the traced computation), and lax.cumlogsumexp."""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.ir import aval_of
from ..core.pytree import tree_unflatten
from ..device.array import Array
from ..primitives import elementwise as ew
from ..primitives import reductions as red
from ..primitives import windows as win
from ._conv import padtype_to_pads
from ._convert import as_operand, convert
from ._ops import add, max, min  # noqa: A004
from ._other import logaddexp
from ._reduce import flat_operands, reduction_graph

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
    ``init_value``, dilated) reduced by ``computation`` starting from ``init_value``.
    ``operand`` and ``init_value`` may be pytrees of one structure (arrays of one shape,
    scalars); ``computation(accumulators, elements)`` returns the accumulators. A single
    operand with ``lax.add``, ``lax.max`` or ``lax.min`` is a monoid window reduction;
    anything else one stablehlo.reduce_window with the traced computation as its body.

    >>> import numpy as np
    >>> from frontend import lax
    >>> lax.reduce_window(np.arange(6.), 0., lax.add, (3,), (1,), "VALID")
    Array([ 3.,  6.,  9., 12.], dtype=float32)
    """
    flat_ops, flat_inits, op_td = flat_operands(operand, init_value)
    if len(flat_ops) != len(flat_inits):
        raise ValueError("Must have same total number of operands as init_values: "
                         f" {len(flat_ops)} vs. {len(flat_inits)}")
    if not flat_ops:
        raise ValueError("reduce_window must have at least one operand.")
    xs = [as_operand(x) for x in flat_ops]
    a = aval_of(xs[0])
    nd = a.ndim
    if len(window_dimensions) != nd:
        raise TypeError(f"reduce_window: window_dimensions {tuple(window_dimensions)} must have "
                        f"one entry per axis of the operand of shape {a.shape}")
    for name, v in (("window_strides", window_strides), ("base_dilation", base_dilation),
                    ("window_dilation", window_dilation)):
        if v is not None and len(v) != nd:  # (JAX's wording)
            raise TypeError(f"reduce_window got inconsistent {name} and window_dimensions: got "
                            f"{name} {tuple(v)} and window_dimensions {tuple(window_dimensions)}.")
    strides = tuple(window_strides) if window_strides is not None else (1,) * nd
    if isinstance(padding, str):
        wd = window_dilation if window_dilation is not None else (1,) * nd
        dilated = tuple(0 if w == 0 else 1 + d * (w - 1)
                        for w, d in zip(window_dimensions, wd, strict=True))
        padding = padtype_to_pads(a.shape, dilated, strides, padding)
    params = win.window_params(nd, window_dimensions, strides, padding, base_dilation,
                               window_dilation)
    if len(xs) == 1 and computation in _MONOIDS:
        return _monoid_window(xs[0], flat_inits[0], computation, params)
    inits = [as_operand(i) for i in flat_inits]
    dts = [aval_of(x).dtype for x in xs]
    inits = [i if aval_of(i).dtype == d or not aval_of(i).weak_type else convert(i, d)
             for i, d in zip(inits, dts, strict=True)]
    g = reduction_graph("reduce_window", computation, op_td, dts)
    outs = win.reduce_window_p.bind(*xs, *inits, computation=g, **params)
    return tree_unflatten(op_td, outs)


def _monoid_window(x, init_value, computation, params):
    prim, identity, combine = _MONOIDS[computation]
    a = aval_of(x)
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


def cumlogsumexp(operand, axis: int = 0, reverse: bool = False):
    """lax.cumlogsumexp: ``log(cumsum(exp(x)))`` along ``axis``, computed stably (a
    log-depth scan of logaddexp over built-in primitives, so it batches and differentiates
    as they do).

    >>> import numpy as np
    >>> from frontend import lax
    >>> lax.cumlogsumexp(np.zeros(3, np.float32))
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
    return red.associative_scan(logaddexp, x, axis, reverse)


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None) -> tuple:
    """lax.reduce_window_shape_tuple: reduce_window's output shape (``padding``: (low, high)
    pairs; the operand dilated by ``base_dilation``, the window by ``window_dilation``)."""
    from ._conv import _window_out
    n = len(operand_shape)
    base = base_dilation or (1,) * n
    wdil = window_dilation or (1,) * n
    return tuple(_window_out((d - 1) * b + 1 if d else 0, (w - 1) * wd + 1, s, lo, hi)
                 for d, w, s, (lo, hi), b, wd in zip(operand_shape, window_dimensions,
                                                     window_strides, padding, base, wdil,
                                                     strict=True))
