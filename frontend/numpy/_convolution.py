"""JAX's numpy 1-D convolutions on ``conv_general_dilated``: convolve, correlate."""
from __future__ import annotations

from .. import lax
from ..core.ir import aval_of
from ..lax._conv import conv_general_dilated
from ._core import asarray, check_arraylike, promote_args, promote_dtypes_inexact
from ._numeric import conj

__all__ = ["convolve", "correlate"]


def _as_row(x):
    return lax.reshape(x, new_sizes=(1, 1) + aval_of(x).shape, dimensions=None)


def _conv1d(x, y, mode, op, precision, preferred_element_type):
    check_arraylike(op, x, y)
    x, y = asarray(x), asarray(y)
    if aval_of(x).ndim != 1 or aval_of(y).ndim != 1:
        raise ValueError(f"{op}() only support 1-dimensional inputs.")
    if preferred_element_type is None:  # inexact, as numpy's convolutions
        x, y = promote_dtypes_inexact(op, x, y, broadcast=False)
    else:
        x, y = promote_args(op, x, y, broadcast=False)
    nx, ny = aval_of(x).shape[0], aval_of(y).shape[0]
    if nx == 0 or ny == 0:
        raise ValueError(f"{op}: inputs cannot be empty, got shapes {aval_of(x).shape} and "
                         f"{aval_of(y).shape}.")
    reverse_out = False
    if op == "correlate":
        y = conj(y)
        if nx < ny:
            x, y, reverse_out = y, x, True
    else:
        if nx < ny:
            x, y = y, x
        y = lax.rev(y, dimensions=(0,))
    k = aval_of(y).shape[0]
    pads = {"valid": (0, 0), "same": (k // 2, k - k // 2 - 1), "full": (k - 1, k - 1)}
    if mode not in pads:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    out = conv_general_dilated(_as_row(x), _as_row(y), (1,), [pads[mode]], precision=precision,
                               preferred_element_type=preferred_element_type)
    n = aval_of(out).shape[2]
    out = lax.reshape(lax.slice(out, start_indices=(0, 0, 0), limit_indices=(1, 1, n),
                                strides=None), new_sizes=(n,), dimensions=None)
    return lax.rev(out, dimensions=(0,)) if reverse_out else out


def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    """The discrete linear convolution of two 1-D arrays (numpy.convolve; ``mode`` 'full',
    'same' or 'valid'), as one ``conv_general_dilated``.

    >>> import frontend.numpy as fnp
    >>> fnp.convolve(fnp.array([1., 2., 3.]), fnp.array([0., 1.]))
    Array([0., 1., 2., 3.], dtype=float32)
    """
    return _conv1d(a, v, mode, "convolve", precision, preferred_element_type)


def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    """The cross-correlation of two 1-D arrays (numpy.correlate), as one
    ``conv_general_dilated``."""
    return _conv1d(a, v, mode, "correlate", precision, preferred_element_type)
