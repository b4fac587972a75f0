"""frontend.scipy.interpolate: ``RegularGridInterpolator`` (linear or nearest interpolation
on a rectilinear grid; a pytree, so it passes through jit and vmap), as JAX's.

>>> import numpy as np
>>> from frontend.scipy.interpolate import RegularGridInterpolator
>>> f = RegularGridInterpolator((np.float32([0, 1, 2]),), np.float32([0, 10, 40]))
>>> f(np.float32([0.5, 1.5]))
Array([ 5., 25.], dtype=float32)
"""
from __future__ import annotations

import itertools

import numpy as np

from .. import numpy as fnp
from ..core.ir import aval_of
from ..core.pytree import register_node
from ..numpy._core import check_arraylike, promote_dtypes_inexact

__all__ = ["RegularGridInterpolator"]

_METHODS = ("linear", "nearest")


def _check_method(method):
    if method not in _METHODS:
        raise ValueError(f"method {method!r} is not defined")


def _points(xi, ndim):
    """The sample points as one (..., ndim) array (a tuple of coordinate arrays is stacked)."""
    if isinstance(xi, tuple) and len(xi) == 1:
        xi = xi[0]
    if isinstance(xi, tuple):
        parts = fnp.broadcast_arrays(*xi)
        return fnp.stack([fnp.asarray(p, float) for p in parts], axis=-1)
    check_arraylike("_ndim_coords_from_arrays", xi)
    xi = fnp.asarray(xi)
    return fnp.reshape(xi, (-1, ndim)) if aval_of(xi).ndim == 1 else xi


class RegularGridInterpolator:
    """Interpolation of ``values`` given on the grid ``points`` (one increasing 1-D array per
    leading axis of ``values``); points outside the grid get ``fill_value`` (None:
    extrapolate). ``bounds_error=True`` is JAX's NotImplementedError."""

    def __init__(self, points, values, method="linear", bounds_error=False,
                 fill_value=np.nan):
        _check_method(method)
        self.method = method
        self.bounds_error = bounds_error
        if bounds_error:
            raise NotImplementedError("`bounds_error` takes no effect under JIT")
        check_arraylike("RegularGridInterpolator", values)
        if len(points) > np.ndim(values):
            raise ValueError(f"there are {len(points)} point arrays, but values has "
                             f"{np.ndim(values)} dimensions")
        (values,) = promote_dtypes_inexact("RegularGridInterpolator", values)
        if fill_value is not None:
            check_arraylike("RegularGridInterpolator", fill_value)
            fill_value = fnp.asarray(fill_value)
            if not fnp.can_cast(aval_of(fill_value).dtype, aval_of(values).dtype,
                                casting="same_kind"):
                raise ValueError("fill_value must be either 'None' or of a type compatible "
                                 "with values")
        self.fill_value = fill_value
        check_arraylike("RegularGridInterpolator", *points)
        self.grid = tuple(fnp.asarray(p) for p in points)
        self.values = values

    def __call__(self, xi, method=None):
        method = self.method if method is None else method
        _check_method(method)
        ndim = len(self.grid)
        xi = _points(xi, ndim)
        shape = aval_of(xi).shape
        if shape[-1] != ndim:
            raise ValueError(f"the requested sample points xi have dimension {shape[1]}, but "
                             f"this RegularGridInterpolator has dimension {ndim}")
        xi = fnp.reshape(xi, (-1, shape[-1]))
        indices, fractions, outside = self._find_indices(xi.T)
        if method == "linear":
            out = self._linear(indices, fractions)
        else:
            out = self.values[tuple(fnp.where(f <= 0.5, i, i + 1)
                                    for i, f in zip(indices, fractions, strict=True))]
        if self.fill_value is not None:
            rank = aval_of(out).ndim
            out = fnp.where(fnp.reshape(outside, (-1,) + (1,) * (rank - 1)), self.fill_value, out)
        return fnp.reshape(out, shape[:-1] + aval_of(self.values).shape[ndim:])

    def _linear(self, indices, fractions):
        trailing = (slice(None),) + (None,) * (aval_of(self.values).ndim - len(indices))
        out = fnp.asarray(0.0)
        for corner in itertools.product(*[[i, i + 1] for i in indices]):
            weight = fnp.asarray(1.0)
            for ci, i, f in zip(corner, indices, fractions, strict=True):
                weight = weight * fnp.where(ci == i, 1 - f, f)
            out = out + self.values[corner] * weight[trailing]
        return out

    def _find_indices(self, xi):
        """Per axis: the grid cell of each point, the fraction across it, and whether the
        point is outside the grid."""
        indices, fractions = [], []
        outside = fnp.zeros((aval_of(xi).shape[1],), dtype=bool)
        for x, g in zip(xi, self.grid, strict=False):
            i = fnp.clip(fnp.searchsorted(g, x) - 1, 0, aval_of(g).size - 2)
            indices.append(i)
            fractions.append((x - g[i]) / (g[i + 1] - g[i]))
            outside = outside | (x < g[0]) | (x > g[-1])
        return indices, fractions, outside


register_node(RegularGridInterpolator,
              lambda r: ((r.grid, r.values, r.fill_value), (r.method, r.bounds_error)),
              lambda aux, kids: RegularGridInterpolator(*kids[:2], *aux, *kids[2:]))


def __getattr__(name):
    from ..core import jax_names
    raise jax_names.missing(__name__, name)
