"""JAX's numpy set functions over sort: isin, intersect1d, union1d, setdiff1d, setxor1d and
the array API's unique_values/counts/inverse/all. Results have a data-dependent size: give
``size=`` (and ``fill_value=``) under a transformation, as JAX asks."""
from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.ir import Tracer, aval_of
from ..lax._convert import convert
from ._core import asarray, check_arraylike
from ._elementwise import _where3, equal
from ._indexing import take
from ._sorting import _iota, _ravel, argsort, nonzero, searchsorted, sort, unique

__all__ = ["isin", "intersect1d", "union1d", "setdiff1d", "setxor1d", "unique_values",
           "unique_counts", "unique_inverse", "unique_all"]


def _flat(name, a):
    check_arraylike(name, a)
    return _ravel(asarray(a))


def isin(element, test_elements, assume_unique=False, invert=False, *, method="auto"):
    """True where an element of ``element`` is one of ``test_elements`` (shape of element)."""
    check_arraylike("isin", element, test_elements)
    e, t = asarray(element), _ravel(asarray(test_elements))
    shp = aval_of(e).shape
    ec = lax.broadcast_in_dim(e, shape=shp + aval_of(t).shape,
                              broadcast_dimensions=tuple(range(len(shp))))
    tc = lax.broadcast_in_dim(t, shape=shp + aval_of(t).shape, broadcast_dimensions=(len(shp),))
    hit = lax.reduce_or(equal(ec, tc), axes=(len(shp),))
    return lax.bitwise_not(hit) if invert else hit


def _first_of_runs(s):
    """True at the first element of each run of equal values of the sorted 1-D ``s``."""
    n = aval_of(s).shape[0]
    if n == 0:
        return convert(s, dtypes.bool_)
    diff = lax.ne(lax.slice(s, start_indices=(1,), limit_indices=(n,), strides=None),
                  lax.slice(s, start_indices=(0,), limit_indices=(n - 1,), strides=None))
    return lax.concatenate((asarray(np.ones(1, bool)), diff), dimension=0)


def _compact(name, values, mask, size, fill_value, default_first=True):
    """values[mask] (1-D), or with ``size``: its first ``size`` entries, padded with
    ``fill_value`` (default: the first kept value, or zero)."""
    if size is None:
        if isinstance(mask, Tracer):
            raise mask._concrete_error(
                f"The error arose in jnp.{name}(). To make it compatible with JIT and other "
                "transforms, specify a concrete value for the size argument.")
        size = int(np.count_nonzero(np.asarray(mask)))
        return take(values, nonzero(mask, size=size)[0], axis=0, mode="clip"), None
    size = operator.index(size)
    idx = nonzero(mask, size=size)[0]
    if aval_of(values).shape[0] == 0:
        fv = 0 if fill_value is None else fill_value
        return lax.broadcast_in_dim(convert(fv, aval_of(values).dtype), shape=(size,),
                                    broadcast_dimensions=()), idx
    out = take(values, idx, axis=0, mode="clip")
    if fill_value is None:
        fill_value = (lax.slice(out, start_indices=(0,), limit_indices=(1,), strides=None)
                      if default_first and size else 0)
    total = lax.reduce_sum(convert(mask, dtypes.default_int()), axes=(0,))
    valid = lax.lt(_iota(dtypes.default_int(), (size,), 0), total)
    fv = convert(asarray(fill_value), aval_of(out).dtype, False)
    return _where3(valid, out, fv), idx


def union1d(ar1, ar2, *, size=None, fill_value=None):
    """The sorted unique values of either array."""
    both = lax.concatenate((_flat("union1d", ar1), _flat("union1d", ar2)), dimension=0)
    return unique(both, size=size, fill_value=fill_value)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                fill_value=None):
    """The sorted unique values in both arrays (with ``return_indices``, the index of the first
    occurrence of each in ar1 and in ar2)."""
    a1, a2 = _flat("intersect1d", ar1), _flat("intersect1d", ar2)
    perm1 = argsort(a1)
    s1 = take(a1, perm1, axis=0)
    mask = lax.bitwise_and(_first_of_runs(s1), isin(s1, a2))
    out, idx = _compact("intersect1d", s1, mask, size, fill_value)
    if not return_indices:
        return out
    if idx is None:
        idx = nonzero(mask, size=aval_of(out).shape[0])[0]
    perm2 = argsort(a2)
    s2 = take(a2, perm2, axis=0)
    ind1 = take(perm1, idx, axis=0, mode="clip")
    ind2 = take(perm2, searchsorted(s2, out), axis=0, mode="clip")
    return out, ind1, ind2


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted unique values of ar1 that are not in ar2 (padding: zero by default)."""
    s1 = sort(_flat("setdiff1d", ar1))
    mask = lax.bitwise_and(_first_of_runs(s1), isin(s1, _flat("setdiff1d", ar2), invert=True))
    return _compact("setdiff1d", s1, mask, size, fill_value, default_first=False)[0]


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted unique values in exactly one of the arrays."""
    a1, a2 = _flat("setxor1d", ar1), _flat("setxor1d", ar2)
    s = sort(lax.concatenate((a1, a2), dimension=0))
    mask = lax.bitwise_and(_first_of_runs(s), lax.bitwise_xor(isin(s, a1), isin(s, a2)))
    return _compact("setxor1d", s, mask, size, fill_value)[0]


class _UniqueAllResult(NamedTuple):
    values: object
    indices: object
    inverse_indices: object
    counts: object


class _UniqueCountsResult(NamedTuple):
    values: object
    counts: object


class _UniqueInverseResult(NamedTuple):
    values: object
    inverse_indices: object


def unique_values(x, /, *, size=None, fill_value=None):
    """The sorted unique values of x (flattened)."""
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


def unique_counts(x, /, *, size=None, fill_value=None):
    """(values, counts) of x's unique values."""
    return _UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False, size=size,
                                       fill_value=fill_value))


def unique_inverse(x, /, *, size=None, fill_value=None):
    """(values, inverse_indices): values[inverse_indices] is x (inverse of x's shape)."""
    v, inv = unique(x, return_inverse=True, equal_nan=False, size=size, fill_value=fill_value)
    return _UniqueInverseResult(v, lax.reshape(inv, new_sizes=np.shape(x) if not hasattr(
        x, "shape") else tuple(x.shape), dimensions=None))


def unique_all(x, /, *, size=None, fill_value=None):
    """(values, indices, inverse_indices, counts) of x's unique values."""
    v, i, inv, c = unique(x, return_index=True, return_inverse=True, return_counts=True,
                          equal_nan=False, size=size, fill_value=fill_value)
    shape = tuple(x.shape) if hasattr(x, "shape") else np.shape(x)
    return _UniqueAllResult(v, i, lax.reshape(inv, new_sizes=shape, dimensions=None), c)
