"""lax.associative_scan (the parallel prefix scan) and lax.composite."""
from __future__ import annotations

import functools

from ..core.pytree import tree_flatten, tree_unflatten
from ..interpreters.batching import shape as _shape
from ._shape import concatenate, pad, reshape, rev, slice_in_dim, stack


def associative_scan(fn, elems, reverse: bool = False, axis: int = 0):
    """lax.associative_scan: the inclusive scan of ``elems`` (a pytree of arrays of one length
    along ``axis``) by the associative ``fn``, in O(log n) depth: pairs are combined, the
    half-length scan recursed on, then the remaining positions filled in.

    >>> import numpy as np
    >>> from frontend import lax
    >>> lax.associative_scan(lax.add, np.arange(5.0))
    Array([ 0.,  1.,  3.,  6., 10.], dtype=float32)
    """
    leaves, td = tree_flatten(elems)
    if not leaves:
        raise ValueError("associative_scan requires at least one array.")
    nd = len(_shape(leaves[0]))
    ax = axis + nd if axis < 0 else axis
    sizes = {_shape(x)[ax] for x in leaves}
    if len(sizes) != 1:
        raise ValueError(f"Array inputs to associative_scan must have the same first "
                         f"dimension. (saw: {[_shape(x) for x in leaves]})")
    if reverse:
        leaves = [rev(x, (ax,)) for x in leaves]

    def combine(a, b):
        out, out_td = tree_flatten(fn(tree_unflatten(td, a), tree_unflatten(td, b)))
        if out_td != td:
            raise TypeError(f"associative_scan: fn must return a pytree of the elements' "
                            f"structure {td}, got {out_td}.")
        return out

    def cut(xs, start, stop, step=1):
        return [slice_in_dim(x, start, stop, step, ax) for x in xs]

    def scan(xs):
        n = _shape(xs[0])[ax]
        if n < 2:
            return xs
        odd = scan(combine(cut(xs, 0, n - 1, 2), cut(xs, 1, n, 2)))
        m = _shape(odd[0])[ax]
        evens = combine(cut(odd, 0, m - 1) if n % 2 == 0 else odd, cut(xs, 2, n, 2))
        evens = [concatenate([slice_in_dim(x, 0, 1, 1, ax), e], ax) for x, e in zip(xs, evens,
                                                                                   strict=True)]
        return [_interleave(e, o, ax) for e, o in zip(evens, odd, strict=True)]

    out = scan(leaves)
    if reverse:
        out = [rev(x, (ax,)) for x in out]
    return tree_unflatten(td, out)


def _interleave(a, b, axis: int):
    """a[0], b[0], a[1], b[1], ... along ``axis`` (``a`` may be one longer than ``b``)."""
    na, nb = _shape(a)[axis], _shape(b)[axis]
    if na == nb + 1:
        cfg = [(0, 0, 0)] * len(_shape(b))
        cfg[axis] = (0, 1, 0)
        b = pad(b, _zero_like(b), cfg)
    both = stack([a, b], axis + 1)
    shp = _shape(both)
    merged = reshape(both, shp[:axis] + (shp[axis] * 2,) + shp[axis + 2:])
    return slice_in_dim(merged, 0, na + nb, 1, axis)


def _zero_like(x):
    from ..core.ir import aval_of
    from ._convert import convert
    return convert(0, aval_of(x).dtype if aval_of(x) is not None else x.dtype, False)


def composite(decomposition, name: str, version: int = 0):
    """lax.composite: ``decomposition`` marked as the named operation ``name`` (vmaplab
    inlines the decomposition: the values are the decomposition's)."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"composite name must be a non-empty string, got {name!r}.")

    @functools.wraps(decomposition)
    def call(*args, **kwargs):
        return decomposition(*args, **kwargs)
    return call
