"""Collectives over named axes (JAX's lax.psum and friends): ``vmap(f, axis_name='i')``
names its axis, and inside ``f`` a collective works across the lanes of that axis.

>>> import numpy as np
>>> import frontend as fe
>>> from frontend import lax
>>> fe.vmap(lambda x: x - lax.pmean(x, "i"), axis_name="i")(np.arange(3.0, dtype=np.float32))
Array([-1.,  0.,  1.], dtype=float32)

``axis_name`` may be a tuple of names (the combined axis, the first name major). Each
function maps over a pytree ``x``. A name that no enclosing vmap or shard_map binds is a
NameError.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.ir import Tracer, aval_of
from ..core.pytree import tree_map
from ..interpreters.named_axes import axis_size_of
from ..primitives import collectives as co
from ..primitives.shape import moveaxis, reshape_p
from ._convert import SCALARS, as_operand, convert
from ._indexing import dynamic_index_in_dim, dynamic_slice_in_dim
from ._shape import _normalize_axes, concatenate, expand_dims


def _names(axis_name) -> tuple:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _size(names, api: str) -> int:
    n = 1
    for name in names:
        n *= axis_size_of(name, api)
    return n


def _no_groups(axis_index_groups, api: str):
    if axis_index_groups is not None:
        raise NotImplementedError(f"{api}: axis_index_groups is not supported in vmap or "
                                  "shard_map collectives")


def _shape(x) -> tuple:
    return aval_of(x).shape


def _reshape(x, new_sizes):
    return reshape_p.bind(x, new_sizes=tuple(new_sizes), dimensions=None)


# ----------------------------------------------------------------------------- all-reduce


def psum(x, axis_name, *, axis_index_groups=None):
    """The sum of ``x`` over the lanes of the named axis (every lane gets it). Booleans are
    summed as int32; a value that is the same in every lane (not traced) is multiplied by
    the axis size."""
    _no_groups(axis_index_groups, "psum")
    names = _names(axis_name)
    if not names:
        return x

    def leaf(v):
        if dtypes.is_bool(aval_of(v).dtype):
            v = convert(v if isinstance(v, Tracer) else as_operand(v), np.int32)
        if isinstance(v, Tracer):
            return co.psum_p.bind(v, axes=names)
        size = _size(names, "psum")
        if isinstance(v, SCALARS):
            return type(v)(size) * v
        return v * np.asarray(size, aval_of(v).dtype)

    return tree_map(leaf, x)


def pmean(x, axis_name, *, axis_index_groups=None):
    """The mean of ``x`` over the lanes of the named axis."""
    n = axis_size(axis_name)
    return tree_map(lambda v: v / n, psum(x, axis_name, axis_index_groups=axis_index_groups))


def _all_reduce(prim, api):
    def fn(x, axis_name, *, axis_index_groups=None):
        _no_groups(axis_index_groups, api)
        names = _names(axis_name)
        return tree_map(lambda v: prim.bind(v, axes=names), x)
    fn.__name__ = fn.__qualname__ = api
    fn.__doc__ = f"The {api[1:]}imum of ``x`` over the lanes of the named axis."
    return fn


pmax = _all_reduce(co.pmax_p, "pmax")
pmin = _all_reduce(co.pmin_p, "pmin")


# ----------------------------------------------------------------------------- axis queries


def axis_size(axis_name) -> int:
    """The size of the named axis (a Python int; a tuple of names: the product)."""
    return _size(_names(axis_name), "axis_size")


def axis_index(axis_name):
    """The int32 position of this lane along the named axis (a tuple of names: along the
    combined axis, the first name major)."""
    names = _names(axis_name)
    if not isinstance(axis_name, (tuple, list)):
        return co.axis_index_p.bind(axis_name=axis_name)
    index, inner = 0, 1
    for name in reversed(names):
        index = index + co.axis_index_p.bind(axis_name=name) * inner
        inner *= axis_size_of(name, "axis_index")
    return index if not isinstance(index, int) else as_operand(np.int32(index))


# ----------------------------------------------------------------------------- all_gather


def all_gather(x, axis_name, *, axis_index_groups=None, axis=0, tiled=False):
    """Every lane gets the lanes' ``x`` stacked along a new axis ``axis`` (``tiled=True``:
    concatenated along the existing axis ``axis``)."""
    _no_groups(axis_index_groups, "all_gather")
    names = _names(axis_name)
    if not names:
        return x

    def leaf(v):
        nd = len(_shape(v))
        (a,) = _normalize_axes((axis,), nd if tiled else nd + 1)
        sizes = [axis_size_of(n, "all_gather") for n in names]
        for name, size in zip(reversed(names), reversed(sizes), strict=True):  # the first name ends major
            v = co.all_gather_p.bind(v, all_gather_dimension=a, axis_name=(name,),
                                     axis_size=size, tiled=tiled)
        if not tiled and len(names) > 1:
            s = _shape(v)
            v = _reshape(v, s[:a] + (int(np.prod(sizes)),) + s[a + len(names):])
        return v

    return tree_map(leaf, x)


# ----------------------------------------------------------------------------- psum_scatter


def psum_scatter(x, axis_name, *, scatter_dimension=0, axis_index_groups=None, tiled=False):
    """The psum of ``x``, lane k keeping block k of ``scatter_dimension``: untiled, that
    dimension has the axis size and is dropped; tiled, it is divided by the axis size."""
    _no_groups(axis_index_groups, "psum_scatter")
    names = _names(axis_name)
    if not names:
        return x

    def leaf(v):
        shp = _shape(v)
        (sd,) = _normalize_axes((scatter_dimension,), len(shp))
        sizes = [axis_size_of(n, "psum_scatter") for n in names]
        total = int(np.prod(sizes))
        if len(names) > 1:  # the block of the combined lane: one name after the other
            if tiled and not co.divides(total, shp[sd]):
                raise ValueError(f"tiled reduce_scatter operand scatter dimension size "
                                 f"{shp[sd]} must be divisible by shard_count {total}")
            if not tiled:
                if shp[sd] != total:
                    raise ValueError(f"reduce_scatter operand scatter dimension size {shp[sd]} "
                                     f"must match shard count {total}")
                v = _reshape(v, shp[:sd] + tuple(sizes) + shp[sd + 1:])
        for name, size in zip(names, sizes, strict=True):
            v = co.reduce_scatter_p.bind(v, scatter_dimension=sd, axis_name=(name,),
                                         axis_size=size, tiled=tiled)
        return v

    return tree_map(leaf, x)


# ----------------------------------------------------------------------------- all_to_all


def all_to_all(x, axis_name, split_axis, concat_axis, *, axis_index_groups=None, tiled=False):
    """Lane k gets block k of every lane's ``split_axis``, stacked (``tiled``: concatenated)
    along ``concat_axis`` in lane order. Untiled, ``split_axis`` must have the axis size and
    the result has shape ``insert(delete(x.shape, split_axis), concat_axis, size)``."""
    _no_groups(axis_index_groups, "all_to_all")
    names = _names(axis_name)

    def leaf(v, sa=split_axis, ca=concat_axis):
        shp = _shape(v)
        sa, ca = _normalize_axes((sa, ca), len(shp))
        size = _size(names, "all_to_all")
        n = shp[sa]
        if tiled:
            if not co.divides(size, n):
                raise ValueError(f"The size of all_to_all split_axis ({n}) has to be divisible "
                                 f"by the size of the named axis {axis_name} ({size})")
        else:
            if size != n:
                raise ValueError("all_to_all requires the size of the mapped axis axis_name to "
                                 "equal x.shape[split_axis], but they are "
                                 f"{size} and {n} respectively.")
        out = list(shp)  # the untiled result: split_axis dropped, the lanes at concat_axis
        del out[sa]
        out.insert(ca, size)
        if not tiled and sa < ca:
            ca += 1  # concat_axis is a position after split_axis is removed
            v = expand_dims(v, (ca,))
        elif not tiled and ca < sa:
            v = expand_dims(v, (ca,))
            sa += 1
        v = _all_to_all_tiled(v, names, sa, ca, size)
        if not tiled and sa != ca:  # split_axis is now of size 1 (0 over no lanes)
            v = _reshape(v, out)
        return v

    return tree_map(leaf, x)


def _all_to_all_tiled(v, names, sa, ca, size):
    if len(names) == 1:
        return co.all_to_all_p.bind(v, split_axis=sa, concat_axis=ca, axis_name=names,
                                    axis_size=size)
    # a tuple of names: every lane's x gathered (one shared copy), then this lane's block of
    # split_axis from each, stacked in lane order into concat_axis
    g = all_gather(v, names, axis=0)
    m = co.block(_shape(v)[sa], size)
    blocks = dynamic_slice_in_dim(g, axis_index(names) * m, m, 1 + sa)
    y = moveaxis(blocks, 0, ca)
    s = _shape(y)
    return _reshape(y, s[:ca] + (s[ca] * s[ca + 1],) + s[ca + 2:])


def pswapaxes(x, axis_name, axis, *, axis_index_groups=None):
    """all_to_all with split_axis = concat_axis = ``axis``."""
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


# ----------------------------------------------------------------------------- ppermute


def ppermute(x, axis_name, perm):
    """Lane ``dst`` gets lane ``src``'s ``x`` for each ``(src, dst)`` pair of ``perm``;
    lanes that are no destination get zeros."""
    names = _names(axis_name)
    perm = tuple((int(s), int(d)) for s, d in perm)
    size = _size(names, "ppermute")
    co.check_perm(perm, size, axis_name)

    def leaf(v):
        if len(names) == 1:
            return co.ppermute_p.bind(v, axis_name=names, perm=perm)
        # a tuple of names: every lane's x gathered (one shared copy), this lane's source
        # picked by its combined index (a zero row for lanes that receive nothing)
        g = all_gather(v, names, axis=0)
        g = concatenate([g, np.zeros((1,) + _shape(g)[1:], aval_of(g).dtype)], 0)
        src = np.full(size, size, np.int32)
        for s, d in perm:
            src[d] = s
        k = dynamic_index_in_dim(src, axis_index(names), 0, keepdims=False)
        return dynamic_index_in_dim(g, k, 0, keepdims=False)

    return tree_map(leaf, x)


def pshuffle(x, axis_name, perm):
    """Lane ``i`` gets lane ``perm[i]``'s ``x`` (``perm`` a permutation of the lanes)."""
    if set(perm) != set(range(len(perm))):
        raise ValueError(f"`perm` does not represent a permutation: {perm}")
    return ppermute(x, axis_name, list(zip(perm, range(len(perm)), strict=True)))
