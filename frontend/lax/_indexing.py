"""Indexing lax functions: dynamic_slice/update (and their in-dim forms), gather and the
scatter family, with JAX's lax signatures (dimension-number tuples, modes, fill values)."""
from __future__ import annotations

import enum

import numpy as np

from ..core import dtypes
from ..core.ir import Aval, aval_of, literal
from ..primitives.elementwise import add_p, lt_p, select_p
from ..primitives.indexing import (
    clamp_indices,
    dynamic_slice_p,
    dynamic_update_slice_p,
    gather_batch_positions,
    gather_p,
    in_bounds_mask,
    scatter_add_p,
    scatter_apply_p,
    scatter_max_p,
    scatter_min_p,
    scatter_mul_p,
    scatter_p,
)
from ..primitives.shape import broadcast_in_dim_p, reshape_p
from ._convert import as_operand, convert
from ._reduce import computation_graph


def _ints(xs) -> tuple:
    return tuple(map(int, xs))


def _index_operands(name, operand, start_indices):
    """Start indices as scalars of one integer dtype, negative ones wrapped (as JAX's lax)."""
    start_indices = list(start_indices)
    if len(start_indices) != len(aval_of(operand).shape):
        raise TypeError(f"{name} start_indices must have length equal to the number of dimensions "
                        f"of the operand, got {len(start_indices)} indices for operand shape "
                        f"{aval_of(operand).shape}.")
    typed = [aval_of(s) for s in start_indices]
    for a in typed:
        if not (dtypes.is_int(a.dtype)):
            raise TypeError(f"index arguments to {name} must be integers, got {a.dtype.name}")
        if a.ndim != 0:
            raise TypeError(f"{name} start_indices must be scalars, got an index of shape {a.shape}")
    strong = [a.dtype for a in typed if not a.weak_type]
    dt = np.dtype(np.result_type(*strong)) if strong else dtypes.canonicalize(np.dtype(np.int32))
    dt = dtypes.canonicalize(dt)
    out = []
    for s, n in zip(start_indices, aval_of(operand).shape, strict=True):
        if isinstance(s, (int, np.integer)):
            s = int(s)
            out.append(literal(s + n if s < 0 else s, dt))
        else:
            s = convert(s, dt, False)
            if dtypes.is_unsigned(dt):
                out.append(s)
            else:
                neg = lt_p.bind(s, literal(0, dt))
                out.append(select_p.bind(neg, add_p.bind(s, literal(n, dt)), s))
    return out


def dynamic_slice(operand, start_indices, slice_sizes):
    """``operand[start : start + size]`` per dim, starts traced or static; a negative start
    counts from the end, then starts are clamped so the slice fits.

    >>> import numpy as np
    >>> from frontend import lax
    >>> lax.dynamic_slice(np.arange(5), (3,), (2,))
    Array([3, 4], dtype=int32)
    """
    operand = as_operand(operand)
    starts = _index_operands("dynamic_slice", operand, start_indices)
    return dynamic_slice_p.bind(operand, *starts, slice_sizes=_ints(slice_sizes))


def dynamic_update_slice(operand, update, start_indices):
    """``operand`` with ``update`` written at ``start_indices`` (wrapped, then clamped)."""
    operand, update = as_operand(operand), as_operand(update)
    starts = _index_operands("dynamic_update_slice", operand, start_indices)
    return dynamic_update_slice_p.bind(operand, update, *starts)


def _axis(axis, nd):
    if not -nd <= axis < nd:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {nd}")
    return axis % nd


def dynamic_slice_in_dim(operand, start_index, slice_size: int = 1, axis: int = 0):
    """dynamic_slice along one axis (the others taken whole)."""
    operand = as_operand(operand)
    shp = aval_of(operand).shape
    axis = _axis(axis, len(shp))
    starts = [0] * len(shp)
    starts[axis] = start_index
    sizes = list(shp)
    sizes[axis] = slice_size
    return dynamic_slice(operand, starts, sizes)


def dynamic_index_in_dim(operand, index, axis: int = 0, keepdims: bool = True):
    """dynamic_slice_in_dim of size 1; ``keepdims=False`` drops the axis."""
    operand = as_operand(operand)
    out = dynamic_slice_in_dim(operand, index, 1, axis)
    if keepdims:
        return out
    shp = list(aval_of(out).shape)
    del shp[_axis(axis, len(shp))]
    return reshape_p.bind(out, new_sizes=tuple(shp), dimensions=None)


def dynamic_update_slice_in_dim(operand, update, start_index, axis: int):
    """dynamic_update_slice along one axis."""
    operand = as_operand(operand)
    nd = len(aval_of(operand).shape)
    axis = _axis(axis, nd)
    starts = [0] * nd
    starts[axis] = start_index
    return dynamic_update_slice(operand, update, starts)


def dynamic_update_index_in_dim(operand, update, index, axis: int):
    """dynamic_update_slice_in_dim of a size-1 update (rank one less is expanded)."""
    operand, update = as_operand(operand), as_operand(update)
    nd = len(aval_of(operand).shape)
    axis = _axis(axis, nd)
    ushp = aval_of(update).shape
    if len(ushp) == nd - 1:
        ushp = ushp[:axis] + (1,) + ushp[axis:]
        update = reshape_p.bind(update, new_sizes=ushp, dimensions=None)
    return dynamic_update_slice_in_dim(operand, update, index, axis)


class GatherDimensionNumbers(tuple):
    """(offset_dims, collapsed_slice_dims, start_index_map, operand_batching_dims,
    start_indices_batching_dims), as lax.GatherDimensionNumbers."""

    def __new__(cls, offset_dims, collapsed_slice_dims, start_index_map,
                operand_batching_dims=(), start_indices_batching_dims=()):
        return super().__new__(cls, (_ints(offset_dims), _ints(collapsed_slice_dims),
                                     _ints(start_index_map), _ints(operand_batching_dims),
                                     _ints(start_indices_batching_dims)))

    offset_dims = property(lambda s: s[0])
    collapsed_slice_dims = property(lambda s: s[1])
    start_index_map = property(lambda s: s[2])
    operand_batching_dims = property(lambda s: s[3])
    start_indices_batching_dims = property(lambda s: s[4])


class ScatterDimensionNumbers(tuple):
    """(update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims,
    operand_batching_dims, scatter_indices_batching_dims), as lax.ScatterDimensionNumbers."""

    def __new__(cls, update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims,
                operand_batching_dims=(), scatter_indices_batching_dims=()):
        return super().__new__(cls, (_ints(update_window_dims), _ints(inserted_window_dims),
                                     _ints(scatter_dims_to_operand_dims),
                                     _ints(operand_batching_dims),
                                     _ints(scatter_indices_batching_dims)))

    update_window_dims = property(lambda s: s[0])
    inserted_window_dims = property(lambda s: s[1])
    scatter_dims_to_operand_dims = property(lambda s: s[2])
    operand_batching_dims = property(lambda s: s[3])
    scatter_indices_batching_dims = property(lambda s: s[4])


class GatherScatterMode(enum.Enum):
    """lax.GatherScatterMode: out-of-bounds handling of gather/scatter (JAX's members)."""
    CLIP = 0
    FILL_OR_DROP = 1
    PROMISE_IN_BOUNDS = 2
    ONE_HOT = 3


def canonical_mode(mode):
    if mode is None:
        return None
    m = str(getattr(mode, "name", mode)).lower()
    return {"fill_or_drop": "fill", "drop": "fill", "fill": "fill", "clip": "clip",
            "promise_in_bounds": "promise_in_bounds"}.get(m, m)


def default_fill_value(dtype):
    """JAX's numpy's fill value for out-of-bounds gathers: NaN, the int minimum, True."""
    d = np.dtype(dtype)
    if dtypes.is_inexact(d):
        return np.nan
    if dtypes.is_bool(d):
        return True
    if dtypes.is_unsigned(d):
        return int(dtypes.iinfo(d).max)
    return int(dtypes.iinfo(d).min)


def gather(operand, start_indices, dimension_numbers, slice_sizes, *, unique_indices=False,
           indices_are_sorted=False, mode=None, fill_value=None):
    """StableHLO gather (see ``gather_p``). ``mode``: 'clip' / 'promise_in_bounds' clamp each
    slice start so the slice fits; 'fill' (the default, as JAX's lax) returns ``fill_value``
    (NaN, the int minimum, True by default) for slices that do not fit."""
    operand, start_indices = as_operand(operand), as_operand(start_indices)
    dn = dimension_numbers
    if not isinstance(dn, GatherDimensionNumbers):
        dn = GatherDimensionNumbers(*dn)
    ia = aval_of(start_indices)
    m = canonical_mode(mode) or "fill"
    if m not in ("fill", "clip", "promise_in_bounds"):
        raise ValueError(f"Unknown gather mode {mode!r}")
    out = _gather(operand, start_indices, dn, slice_sizes, mode="clip" if m == "fill" else m,
                  indices_are_sorted=indices_are_sorted)
    if m != "fill":
        return out
    oa = aval_of(operand)
    mask, _ = in_bounds_mask(start_indices, ia.ndim - 1, dn.start_index_map, oa.shape,
                             _ints(slice_sizes))
    out_aval = aval_of(out)
    bpos = gather_batch_positions(out_aval.ndim, dn.offset_dims)
    mask = broadcast_in_dim_p.bind(mask, shape=out_aval.shape, broadcast_dimensions=tuple(bpos))
    fv = default_fill_value(oa.dtype) if fill_value is None else fill_value
    fill = convert(fv, oa.dtype, False)
    fill = broadcast_in_dim_p.bind(fill, shape=out_aval.shape, broadcast_dimensions=())
    return select_p.bind(mask, out, fill)


def _gather(operand, start_indices, dimension_numbers, slice_sizes, *, mode,
            index_vector_dim=None, indices_are_sorted=False):
    """The gather primitive alone: ``mode`` 'clip' or 'promise_in_bounds' (no fill).
    ``index_vector_dim`` None is the last axis of ``start_indices`` (lax.gather's); the numpy
    layer passes ``start_indices.ndim`` for one index per position (no index vector axis)."""
    dn = dimension_numbers
    if not isinstance(dn, GatherDimensionNumbers):
        dn = GatherDimensionNumbers(*dn)
    ivd = aval_of(start_indices).ndim - 1 if index_vector_dim is None else int(index_vector_dim)
    return gather_p.bind(operand, start_indices, offset_dims=dn.offset_dims,
                         collapsed_slice_dims=dn.collapsed_slice_dims,
                         start_index_map=dn.start_index_map,
                         operand_batching_dims=dn.operand_batching_dims,
                         start_indices_batching_dims=dn.start_indices_batching_dims,
                         index_vector_dim=ivd, slice_sizes=_ints(slice_sizes),
                         indices_are_sorted=bool(indices_are_sorted), mode=mode)


def _scatter(prim, operand, scatter_indices, updates, dimension_numbers, *,
             indices_are_sorted=False, unique_indices=False, mode=None, index_vector_dim=None,
             **extra):
    """One of the scatter primitives, ``prim``. ``index_vector_dim``: as in ``_gather``."""
    operand, scatter_indices, updates = map(as_operand, (operand, scatter_indices, updates))
    dn = dimension_numbers
    if not isinstance(dn, ScatterDimensionNumbers):
        dn = ScatterDimensionNumbers(*dn)
    ia = aval_of(scatter_indices)
    ivd = ia.ndim - 1 if index_vector_dim is None else int(index_vector_dim)
    m = canonical_mode(mode) or "fill"
    if m == "clip":
        # clamp each window start so the window fits (the window sizes come from updates)
        oa, ua = aval_of(operand), aval_of(updates)
        removed = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
        wdims = [j for j in range(oa.ndim) if j not in removed]
        win = {j: 1 for j in removed}
        win.update({j: ua.shape[p] for j, p in zip(wdims, dn.update_window_dims, strict=True)})
        scatter_indices = clamp_indices(scatter_indices, ivd, [
            oa.shape[d] - win[d] for d in dn.scatter_dims_to_operand_dims])
    return prim.bind(operand, scatter_indices, updates, update_window_dims=dn.update_window_dims,
                     inserted_window_dims=dn.inserted_window_dims,
                     input_batching_dims=dn.operand_batching_dims,
                     scatter_indices_batching_dims=dn.scatter_indices_batching_dims,
                     scatter_dims_to_operand_dims=dn.scatter_dims_to_operand_dims,
                     index_vector_dim=ivd, indices_are_sorted=bool(indices_are_sorted),
                     unique_indices=bool(unique_indices), **extra)


def apply_graph(func, dtype):
    """The update region of scatter_apply: ``func`` of one element (and an unused update)."""
    g, out_td = computation_graph("scatter_apply", lambda x, _: func(x), [Aval((), dtype)] * 2)
    if out_td.num_leaves != 1:
        raise ValueError(f"scatter_apply func must return one array, got {out_td}")
    return g


def _scatter_wrapper(prim, name: str, doc: str):
    def fn(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
           unique_indices=False, mode=None):
        return _scatter(prim, operand, scatter_indices, updates, dimension_numbers,
                        indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                        mode=mode)
    fn.__name__ = name
    fn.__doc__ = doc
    return fn


scatter = _scatter_wrapper(
    scatter_p, "scatter",
    """Write ``updates`` into ``operand`` at the windows given by ``scatter_indices`` (the last
    indices axis is the index vector). Out-of-bounds windows are dropped (mode 'clip' clamps
    them instead).""")
scatter_add = _scatter_wrapper(scatter_add_p, "scatter_add",
                               "scatter that adds ``updates`` to the windows (duplicates accumulate).")
scatter_mul = _scatter_wrapper(scatter_mul_p, "scatter_mul",
                               "scatter that multiplies the windows by ``updates``.")
scatter_min = _scatter_wrapper(scatter_min_p, "scatter_min",
                               "scatter that keeps the minimum of window and ``updates``.")
scatter_max = _scatter_wrapper(scatter_max_p, "scatter_max",
                               "scatter that keeps the maximum of window and ``updates``.")


def scatter_apply(operand, scatter_indices, func, dimension_numbers, *, update_shape=(),
                  indices_are_sorted=False, unique_indices=False, mode=None):
    """lax.scatter_apply: each element of ``operand`` a window at ``scatter_indices`` covers
    (windows of ``update_shape``'s window dims, as a scatter of updates of that shape) is
    replaced by ``func(element)``, once per window covering it (one stablehlo.scatter whose
    update region is ``func``).

    >>> import numpy as np
    >>> from frontend import lax
    >>> lax.scatter_apply(np.zeros(3), np.array([[1], [1]]), lambda v: v + 1,
    ...                   lax.ScatterDimensionNumbers((), (0,), (0,)), update_shape=(2,))
    Array([0., 2., 0.], dtype=float32)
    """
    operand = as_operand(operand)
    dt = aval_of(operand).dtype
    g = apply_graph(func, dt)
    unused = broadcast_in_dim_p.bind(literal(0, dt), shape=tuple(map(int, update_shape)),
                                     broadcast_dimensions=())
    return _scatter(scatter_apply_p, operand, scatter_indices, unused, dimension_numbers,
                    indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                    mode=mode, computation=g)


def scatter_sub(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
    """scatter that subtracts ``updates`` from the windows (a scatter_add of ``-updates``)."""
    from ._ops import neg
    return scatter_add(operand, scatter_indices, neg(as_operand(updates)), dimension_numbers,
                       indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                       mode=mode)


def index_take(src, idxs, axes):
    """lax.index_take: ``src[idxs[0], idxs[1], ...]`` along ``axes`` (one index array of
    length N per axis); the result has the N picks first, then the other axes in order."""
    from ._shape import concatenate, reshape
    src = as_operand(src)
    shp = aval_of(src).shape
    axes = tuple(int(a) for a in axes)
    cols = [as_operand(i) for i in idxs]
    indices = concatenate([reshape(i, (aval_of(i).shape[0], 1)) for i in cols], 1)
    rest = tuple(d for d in range(len(shp)) if d not in axes)
    dn = GatherDimensionNumbers(offset_dims=tuple(range(1, 1 + len(rest))),
                                collapsed_slice_dims=axes, start_index_map=axes)
    return gather(src, indices, dn, tuple(1 if d in axes else shp[d] for d in range(len(shp))))
