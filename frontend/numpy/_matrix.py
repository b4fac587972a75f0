"""Triangles and diagonals of matrices (the last two axes, or the given pair) and the
Kronecker product: tri, tril, triu, tril_indices, triu_indices, diag, diagflat, diagonal,
trace, kron. Masks are computed from iotas on the device (no constant matrices)."""
from __future__ import annotations

import operator

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.ir import Tracer, aval_of
from ..device.fusion import eager_fused
from ..lax._convert import convert
from ._core import asarray, broadcast_to_shape, canonical_axis, check_arraylike, promote_args
from ._creation import zeros_like
from ._elementwise import multiply
from ._reductions import sum as _sum
from ._shape import expand_dims, moveaxis, ravel, reshape


def _arr(name, a):
    check_arraylike(name, a)
    return asarray(a)


def _tri_mask(n: int, m: int, k: int):
    """bool (n, m): True where column <= row + k."""
    i32 = dtypes.int32
    row = lax.broadcasted_iota(dtype=i32, shape=(n, m), dimension=0)
    col = lax.broadcasted_iota(dtype=i32, shape=(n, m), dimension=1)
    return lax.ge(lax.add(row, convert(k, i32)), col)


def tri(N, M=None, k=0, dtype=None):
    """Ones at and below the k-th diagonal of an (N, M) matrix."""
    N = operator.index(N)
    k = k if isinstance(k, Tracer) else operator.index(k)  # (a traced k: JAX's too)
    M = N if M is None else operator.index(M)
    d = dtypes.canonicalize(np.dtype(dtypes.default_float() if dtype is None else dtype))
    return convert(_tri_mask(N, M, k), d)


def _triangle(name, lower):
    @eager_fused(1)
    def fn(m, k=0):
        m = _arr(name, m)
        a = aval_of(m)
        if a.ndim < 2:
            raise ValueError(f"Argument to jax.numpy.{name} must be at least 2D")
        n, mm = a.shape[-2:]
        k = operator.index(k)
        mask = _tri_mask(n, mm, k) if lower else lax.bitwise_not(_tri_mask(n, mm, k - 1))
        return lax.select(broadcast_to_shape(mask, a.shape), m, zeros_like(m))
    fn.__name__ = name
    fn.__doc__ = f"The {'lower' if lower else 'upper'} triangle of the last two axes " \
                 f"({'below' if lower else 'above'} and on the k-th diagonal); zeros elsewhere."
    return fn


tril = _triangle("tril", True)
triu = _triangle("triu", False)


def _indices(np_fn, *args):
    return tuple(asarray(np.asarray(i, dtypes.default_int())) for i in np_fn(*args))


def tril_indices(n, k=0, m=None):
    """Row and column indices of the lower triangle of an (n, m) matrix."""
    return _indices(np.tril_indices, operator.index(n), operator.index(k),
                    None if m is None else operator.index(m))


def triu_indices(n, k=0, m=None):
    """Row and column indices of the upper triangle of an (n, m) matrix."""
    return _indices(np.triu_indices, operator.index(n), operator.index(k),
                    None if m is None else operator.index(m))


def _shape_2d(arr):
    s = np.shape(arr)
    if len(s) != 2:
        raise ValueError("input array must be 2-d")
    return s


def tril_indices_from(arr, k=0):
    n, m = _shape_2d(arr)
    return tril_indices(n, k, m)


def triu_indices_from(arr, k=0):
    n, m = _shape_2d(arr)
    return triu_indices(n, k, m)


@eager_fused(1)
def diagonal(a, offset=0, axis1=0, axis2=1):
    """The ``offset`` diagonal of the matrices over (axis1, axis2), on a new last axis."""
    a = _arr("diagonal", a)
    av = aval_of(a)
    if av.ndim < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    offset = operator.index(offset)
    ax1, ax2 = canonical_axis(axis1, av.ndim, "axis1"), canonical_axis(axis2, av.ndim, "axis2")
    if ax1 == ax2:
        raise ValueError("axis1 and axis2 cannot be the same")
    n, m = av.shape[ax1], av.shape[ax2]
    a = moveaxis(a, (ax1, ax2), (-2, -1))
    lead = aval_of(a).shape[:-2]
    size = max(0, min(n + min(offset, 0), m - max(offset, 0)))
    # the diagonal of the row-major (n, m) block is a strided slice of its flattening
    flat = reshape(a, lead + (n * m,))
    start = offset if offset >= 0 else -offset * m
    if size == 0:
        start = 0
    limit = start + (size - 1) * (m + 1) + 1 if size else 0
    nl = len(lead)
    return lax.slice(flat, start_indices=(0,) * nl + (start,),
                     limit_indices=tuple(lead) + (limit,), strides=(1,) * nl + (m + 1,))


@eager_fused(1)
def diag(v, k=0):
    """A 1-D ``v`` placed on the k-th diagonal of a square matrix; the k-th diagonal of a
    2-D ``v``."""
    v = _arr("diag", v)
    av = aval_of(v)
    k = operator.index(k)
    if av.ndim == 2:
        return diagonal(v, k)
    if av.ndim != 1:
        raise ValueError("diag input must be 1d or 2d")
    n = av.shape[0] + abs(k)
    zero = convert(0, av.dtype, av.weak_type)
    row = lax.pad(v, zero, padding_config=((max(0, k), max(0, -k), 0),))
    on = lax.bitwise_and(_tri_mask(n, n, k), lax.bitwise_not(_tri_mask(n, n, k - 1)))
    return lax.select(on, broadcast_to_shape(row, (n, n)), broadcast_to_shape(zero, (n, n)))


def diagflat(v, k=0):
    """The flattened ``v`` on the k-th diagonal of a square matrix."""
    return diag(ravel(_arr("diagflat", v)), k)


@eager_fused(1)
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """The sum of the ``offset`` diagonal over (axis1, axis2)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.trace is not supported.")
    a = _arr("trace", a)
    av = aval_of(a)
    if av.ndim < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    ax1, ax2 = canonical_axis(axis1, av.ndim, "axis1"), canonical_axis(axis2, av.ndim, "axis2")
    if ax1 == ax2:
        raise ValueError(f"axis1 and axis2 can not be same. axis1={axis1} and axis2={axis2}")
    n, m = av.shape[ax1], av.shape[ax2]
    a = moveaxis(a, (ax1, ax2), (-2, -1))
    on = lax.bitwise_and(_tri_mask(n, m, offset), lax.bitwise_not(_tri_mask(n, m, offset - 1)))
    a = lax.select(broadcast_to_shape(on, aval_of(a).shape), a, zeros_like(a))
    return _sum(a, axis=(-2, -1), dtype=dtype)


@eager_fused(2)
def kron(a, b):
    """The Kronecker product: blocks a[i, j] * b."""
    check_arraylike("kron", a, b)
    a, b = promote_args("kron", asarray(a), asarray(b), broadcast=False)
    na, nb = aval_of(a).ndim, aval_of(b).ndim
    if na < nb:
        a = expand_dims(a, tuple(range(nb - na)))
    elif nb < na:
        b = expand_dims(b, tuple(range(na - nb)))
    nd = max(na, nb)
    a2 = expand_dims(a, tuple(range(1, 2 * nd, 2)))
    b2 = expand_dims(b, tuple(range(0, 2 * nd, 2)))
    shape = tuple(int(x) * int(y) for x, y in zip(aval_of(a).shape, aval_of(b).shape, strict=True))
    return lax.reshape(multiply(a2, b2), new_sizes=shape, dimensions=None)


__all__ = ["diag", "diagflat", "diagonal", "kron", "trace", "tri", "tril", "tril_indices",
           "tril_indices_from", "triu", "triu_indices", "triu_indices_from"]
