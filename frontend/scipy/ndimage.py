"""frontend.scipy.ndimage: ``map_coordinates`` with JAX's orders (0: nearest, 1: linear)
and boundary modes (constant, nearest, wrap, mirror, reflect).

>>> import numpy as np
>>> from frontend.scipy import ndimage
>>> ndimage.map_coordinates(np.float32([0, 10, 20]), [np.float32([0.5, 1.25])], order=1)
Array([ 5. , 12.5], dtype=float32)
"""
from __future__ import annotations

import functools
import itertools
import operator

import numpy as np

from .. import lax
from .. import numpy as fnp
from ..core import dtypes
from ..core.ir import aval_of

__all__ = ["map_coordinates"]


def _mirror(index, size):
    """Fold an index into [0, size) as a triangle wave with the edge samples once."""
    s = size - 1
    return fnp.abs((index + s) % (2 * s) - s)


def _reflect(index, size):
    """Fold an index into [0, size) as a triangle wave with the edge samples twice."""
    return fnp.floor_divide(_mirror(2 * index + 1, 2 * size + 1) - 1, 2)


_FIXERS = {
    "constant": lambda index, _: index,
    "nearest": lambda index, size: fnp.clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror,
    "reflect": _reflect,
}


def _round(a):
    return a if dtypes.is_int(aval_of(a).dtype) else lax.round(a)


def _nearest(coordinate):
    d = aval_of(coordinate).dtype
    return [(_round(coordinate).astype(np.int32), np.asarray(1, d))]


def _linear(coordinate):
    lower = fnp.floor(coordinate)
    upper_weight = coordinate - lower
    index = lower.astype(np.int32)
    return [(index, 1 - upper_weight), (index + 1, upper_weight)]


def map_coordinates(input, coordinates, order, mode="constant", cval=0.0):  # noqa: A002
    """The values of ``input`` at the fractional indices ``coordinates`` (one array per axis
    of ``input``) by interpolation of ``order`` 0 or 1; outside the array per ``mode``
    (``cval`` for 'constant')."""
    x = fnp.asarray(input)
    coords = [fnp.asarray(c) for c in coordinates]
    cval = fnp.asarray(cval, aval_of(x).dtype)
    if len(coords) != aval_of(x).ndim:
        raise ValueError("coordinates must be a sequence of length input.ndim, but "
                         f"{len(coords)} != {aval_of(x).ndim}")
    fixer = _FIXERS.get(mode)
    if fixer is None:
        raise NotImplementedError(
            f"jax.scipy.ndimage.map_coordinates does not yet support mode {mode}. "
            f"Currently supported modes are {set(_FIXERS)}.")
    nodes = {0: _nearest, 1: _linear}.get(order)
    if nodes is None:
        raise NotImplementedError(
            "jax.scipy.ndimage.map_coordinates currently requires order<=1")
    per_axis = []
    for coordinate, size in zip(coords, aval_of(x).shape, strict=True):
        per_axis.append([(fixer(index, size),
                          (index >= 0) & (index < size) if mode == "constant" else None,
                          weight) for index, weight in nodes(coordinate)])
    terms = []
    for corner in itertools.product(*per_axis):
        indices, valid, weights = zip(*corner, strict=True)
        value = x[tuple(indices)]
        if mode == "constant":
            value = fnp.where(functools.reduce(operator.and_, valid), value, cval)
        terms.append(functools.reduce(operator.mul, weights) * value)
    out = functools.reduce(operator.add, terms)
    if dtypes.is_int(aval_of(x).dtype):
        out = _round(out)
    return out.astype(aval_of(x).dtype)


def __getattr__(name):
    from ..core import jax_names
    raise jax_names.missing(__name__, name)
