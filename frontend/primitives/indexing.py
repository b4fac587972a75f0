"""Indexing primitives: dynamic_slice, dynamic_update_slice, gather and the scatter family
(scatter, scatter_add, scatter_mul, scatter_min, scatter_max).

Start indices of the dynamic ops are scalar integer operands of one dtype; out-of-bounds
starts are clamped to ``[0, dim - size]`` (XLA's semantics). ``gather`` follows StableHLO's
gather (the start of each slice is clamped so the slice fits); the ``scatter`` family follows
StableHLO's scatter as XLA runs it (an update window that does not fit is dropped).

Batching: unbatched start indices keep a dynamic_slice / dynamic_update_slice (the batch axis
is sliced whole); batched start indices turn them into a gather / scatter whose batch axis is
an ``operand_batching_dims`` / ``input_batching_dims`` entry (no iota indices).
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.ir import Aval, Primitive, aval_of, literal
from ..interpreters import batching
from ..interpreters.ad_util import is_undefined_primal
from ..interpreters.batching import ndim, shape
from .elementwise import (
    add_p,
    and_p,
    div_p,
    eq_p,
    ge_p,
    jvp_by_operand,
    le_p,
    max_p,
    min_p,
    mul_p,
    select_p,
    sub_p,
)
from .padding import concatenate_p
from .shape import (
    bdim_at,
    broadcast_in_dim_p,
    instantiate_zeros,
    iota_p,
    linear_jvp,
    reshape_p,
    zeros_like_aval,
)

# ----------------------------------------------------------------------------- helpers


def _check_start_indices(name, operand, starts):
    if any(s.ndim != 0 for s in starts):
        raise TypeError(f"{name} start_indices must be scalars, got indices with shapes "
                        f"{[s.shape for s in starts]}")
    if any(not dtypes.is_int(s.dtype) for s in starts) or len({s.dtype for s in starts}) > 1:
        raise TypeError(f"index arguments to {name} must be integers of the same type, got: "
                        f"{', '.join(s.dtype.name for s in starts)}")


def _index_dtype(starts):
    return aval_of(starts[0]).dtype if starts else dtypes.canonicalize(np.dtype(np.int32))


def _zero_index(dtype):
    return literal(0, dtype)


def _stack_indices(axis_size, starts, dims):
    """Scalar start indices (batched ones have their batch axis at ``dims[i]``, i.e. 0) as one
    ``(axis_size, k)`` index array: batch axis 0, index vector along axis 1."""
    cols = []
    for s, d in zip(starts, dims, strict=True):
        if d is None:  # the index array is one tensor: an unbatched scalar must fill its column
            cols.append(broadcast_in_dim_p.bind(s, shape=(axis_size, 1), broadcast_dimensions=()))
        else:
            cols.append(reshape_p.bind(s, new_sizes=(axis_size, 1), dimensions=None))
    if len(cols) == 1:
        return cols[0]
    return concatenate_p.bind(*cols, dimension=1)


def _clamp_scalar(s, lo, hi, dt):
    s = max_p.bind(s, literal(int(lo), dt))
    return min_p.bind(s, literal(int(hi), dt))


def clamp_indices(indices, index_vector_dim, highest):
    """Index vectors clamped componentwise to [0, highest[k]] (component k along
    ``index_vector_dim``; without that dim the indices are the one component)."""
    ia = aval_of(indices)
    if index_vector_dim >= ia.ndim:
        hi = literal(int(highest[0]), ia.dtype)
    else:
        shp = [1] * ia.ndim
        shp[index_vector_dim] = len(highest)
        hi = np.asarray(highest, ia.dtype).reshape(shp)
        if hi.shape != ia.shape:
            hi = broadcast_in_dim_p.bind(hi, shape=ia.shape, broadcast_dimensions=tuple(range(ia.ndim)))
    return min_p.bind(max_p.bind(indices, literal(0, ia.dtype)), hi)


def in_bounds_mask(indices, index_vector_dim, start_index_map, operand_shape, slice_sizes):
    """bool of the index batch shape: every start of the slice fits in the operand."""
    ia = aval_of(indices)
    ivd = index_vector_dim
    batch_shape = tuple(s for i, s in enumerate(ia.shape) if i != ivd)
    dt = ia.dtype
    mask = None
    for k, d in enumerate(start_index_map):
        if ivd < ia.ndim:
            starts = [literal(0, dt)] * ia.ndim
            starts[ivd] = literal(k, dt)
            sizes = list(ia.shape)
            sizes[ivd] = 1
            col = dynamic_slice_p.bind(indices, *starts, slice_sizes=tuple(sizes))
            col = reshape_p.bind(col, new_sizes=batch_shape, dimensions=None)
        else:
            col = indices
        ok = and_p.bind(ge_p.bind(col, literal(0, dt)),
                        le_p.bind(col, literal(operand_shape[d] - slice_sizes[d], dt)))
        mask = ok if mask is None else and_p.bind(mask, ok)
    return mask, batch_shape


# ----------------------------------------------------------------------------- dynamic_slice


# operand[start_0 : start_0 + size_0, ...] with each start clamped to [0, dim - size].
dynamic_slice_p = Primitive("dynamic_slice")


@dynamic_slice_p.def_abstract_eval
def _dynamic_slice_abstract_eval(operand, *starts, slice_sizes):
    slice_sizes = tuple(slice_sizes)
    if operand.ndim != len(starts):
        raise TypeError("dynamic_slice start_indices must have length equal to the number of "
                        f"dimensions of the operand, got {len(starts)} indices for operand "
                        f"shape {operand.shape}.")
    if len(starts) != len(slice_sizes):
        raise TypeError("dynamic_slice slice_sizes must have the same length as start_indices, "
                        f"got start_indices length {len(starts)} and slice_sizes {slice_sizes}.")
    if any(s > d for s, d in zip(slice_sizes, operand.shape, strict=True)):
        raise TypeError("slice slice_sizes must be less than or equal to operand shape, got "
                        f"slice_sizes {slice_sizes} for operand shape {operand.shape}.")
    if any(s < 0 for s in slice_sizes):
        raise TypeError("slice slice_sizes must be greater than or equal to zero, got "
                        f"slice_sizes of {slice_sizes}.")
    _check_start_indices("dynamic_slice", operand, starts)
    return Aval(slice_sizes, operand.dtype, operand.weak_type)


@dynamic_slice_p.def_batching
def _dynamic_slice_batch(args, dims, *, slice_sizes):
    axis_size = batching.axis_size(args, dims)
    x, *starts = args
    xd, *sds = dims
    if all(d is None for d in sds):
        # unbatched starts: one dynamic_slice; the batch axis stays at xd, sliced whole
        starts.insert(xd, _zero_index(_index_dtype(starts)))
        sizes = list(slice_sizes)
        sizes.insert(xd, axis_size)
        return dynamic_slice_p.bind(x, *starts, slice_sizes=tuple(sizes)), xd
    # batched starts: a gather with batch axis 0 (gather clamps starts exactly as
    # dynamic_slice does); a batched operand's axis is an operand batching dim
    idx = _stack_indices(axis_size, starts, [None if d is None else 0 for d in sds])
    k = len(starts)
    if xd is None:
        out = gather_p.bind(x, idx, offset_dims=tuple(range(1, k + 1)), collapsed_slice_dims=(),
                            start_index_map=tuple(range(k)), operand_batching_dims=(),
                            start_indices_batching_dims=(), index_vector_dim=1,
                            slice_sizes=tuple(slice_sizes), indices_are_sorted=False,
                            mode="clip")
        return out, 0
    sizes = list(slice_sizes)
    sizes.insert(xd, min(1, axis_size))  # a batching dim's slice is 1 (0 on an empty batch)
    out = gather_p.bind(x, idx, offset_dims=tuple(range(1, k + 1)), collapsed_slice_dims=(),
                        start_index_map=tuple(j + (j >= xd) for j in range(k)),
                        operand_batching_dims=(xd,), start_indices_batching_dims=(0,),
                        index_vector_dim=1, slice_sizes=tuple(sizes),
                        indices_are_sorted=False, mode="clip")
    return out, 0


dynamic_slice_p.def_jvp(linear_jvp(dynamic_slice_p, linear=(0,)))


@dynamic_slice_p.def_transpose
def _dynamic_slice_transpose(ct, x, *starts, slice_sizes):
    # the cotangent written into zeros at the same (equally clamped) starts
    zeros = zeros_like_aval(aval_of(ct).update(shape=x.aval.shape))
    return [dynamic_update_slice_p.bind(zeros, ct, *starts)] + [None] * len(starts)


# ----------------------------------------------------------------------------- dynamic_update_slice


# operand with ``update`` written at the starts (each clamped to [0, dim - update dim]).
dynamic_update_slice_p = Primitive("dynamic_update_slice")


@dynamic_update_slice_p.def_abstract_eval
def _dynamic_update_slice_abstract_eval(operand, update, *starts):
    if operand.ndim != update.ndim:
        raise TypeError("dynamic_update_slice update must have the same rank as operand, got "
                        f"update shape {update.shape} for operand shape {operand.shape}.")
    if operand.ndim != len(starts):
        raise TypeError("dynamic_update_slice start_indices must have length equal to the rank "
                        f"of operand, got {len(starts)} indices for operand shape "
                        f"{operand.shape}.")
    if any(u > d for u, d in zip(update.shape, operand.shape, strict=True)):
        raise TypeError("dynamic_update_slice update shape must be smaller than operand shape, "
                        f"got update shape {update.shape} for operand shape {operand.shape}.")
    if operand.dtype != update.dtype:
        raise TypeError("dynamic_update_slice update and operand dtypes must match, got "
                        f"{operand.dtype.name} and {update.dtype.name}.")
    _check_start_indices("dynamic_update_slice", operand, starts)
    return Aval(operand.shape, operand.dtype, operand.weak_type)


@dynamic_update_slice_p.def_batching
def _dynamic_update_slice_batch(args, dims):
    axis_size = batching.axis_size(args, dims)
    x, u, *starts = args
    xd, ud, *sds = dims
    if all(d is None for d in sds):
        # unbatched starts: one dynamic_update_slice; the batch axis ends up at the operand's
        # (else the update's) position. StableHLO needs equal ranks, so an unbatched side is
        # broadcast.
        bd = xd if xd is not None else ud
        x = bdim_at(x, xd, axis_size, bd)
        u = bdim_at(u, ud, axis_size, bd)
        starts.insert(bd, _zero_index(_index_dtype(starts)))
        return dynamic_update_slice_p.bind(x, u, *starts), bd
    # batched starts: a scatter (replace). Scatter drops out-of-bounds windows, so clamp the
    # starts first as dynamic_update_slice does. The batch axis stays at the operand's
    # (axis 0 when the operand is unbatched and must be broadcast: the result is batched).
    xs = shape(x)
    us = shape(u)
    x_full = [s for i, s in enumerate(xs) if i != xd]
    u_full = [s for i, s in enumerate(us) if i != ud]
    dt = _index_dtype(starts)
    starts = [_clamp_scalar(s, 0, x_full[j] - u_full[j], dt) for j, s in enumerate(starts)]
    idx = _stack_indices(axis_size, starts, [None if d is None else 0 for d in sds])
    od = 0 if xd is None else xd
    x = bdim_at(x, xd, axis_size, od)
    if ud is None:
        u = bdim_at(u, None, axis_size, 0)
        ud = 0
    k = len(starts)
    out = scatter_p.bind(
        x, idx, u,
        update_window_dims=tuple(i for i in range(k + 1) if i != ud),
        inserted_window_dims=(), input_batching_dims=(od,),
        scatter_indices_batching_dims=(0,),
        scatter_dims_to_operand_dims=tuple(j + (j >= od) for j in range(k)),
        index_vector_dim=1, indices_are_sorted=False, unique_indices=True)
    return out, od


dynamic_update_slice_p.def_jvp(linear_jvp(dynamic_update_slice_p, linear=(0, 1)))


@dynamic_update_slice_p.def_transpose
def _dynamic_update_slice_transpose(ct, x, u, *starts):
    # the operand gets the cotangent outside the update, the update its window
    ua = aval_of(u)
    ct_x = ct_u = None
    if is_undefined_primal(x):
        ct_x = dynamic_update_slice_p.bind(ct, zeros_like_aval(aval_of(ct).update(shape=ua.shape)),
                                           *starts)
    if is_undefined_primal(u):
        ct_u = dynamic_slice_p.bind(ct, *starts, slice_sizes=ua.shape)
    return [ct_x, ct_u] + [None] * len(starts)


# ----------------------------------------------------------------------------- gather


def gather_batch_positions(out_rank, offset_dims):
    """The output positions of a gather that are index batch dims (not offset dims)."""
    return [p for p in range(out_rank) if p not in offset_dims]


# StableHLO gather. Output dims: ``offset_dims`` hold the slice dims (operand dims not
# collapsed nor batching, in order); the others are the index batch dims (indices dims
# except ``index_vector_dim``, in order). Each slice start is clamped so the slice fits
# (``mode`` 'clip' or 'promise_in_bounds'; 'fill' is built by the ``gather`` wrapper).
gather_p = Primitive("gather")


@gather_p.def_abstract_eval
def _gather_abstract_eval(operand, indices, *, offset_dims, collapsed_slice_dims,
                          start_index_map, operand_batching_dims, start_indices_batching_dims,
                          index_vector_dim, slice_sizes, indices_are_sorted=False, mode="clip"):
    if not dtypes.is_int(indices.dtype):
        raise TypeError(f"gather indices must have an integer type, got {indices.dtype.name}")
    if mode not in ("clip", "promise_in_bounds"):
        raise ValueError(f"gather primitive mode must be 'clip' or 'promise_in_bounds', got {mode!r}")
    ivd = index_vector_dim
    if not 0 <= ivd <= indices.ndim:
        raise TypeError(f"Gather index leaf dimension must be within [0, rank(indices) + 1). "
                        f"rank(indices) is {indices.ndim} and gather index leaf dimension "
                        f"is {ivd}.")
    nvec = indices.shape[ivd] if ivd < indices.ndim else 1
    if len(start_index_map) != nvec:
        raise TypeError(f"Gather op has {len(start_index_map)} elements in start_index_map and "
                        f"the bound of dimension index_vector_dim={ivd} of indices is {nvec}. "
                        "These two numbers must be equal.")
    if len(slice_sizes) != operand.ndim:
        raise TypeError("Gather op must have one slice size for every input dimension; got: "
                        f"len(slice_sizes)={len(slice_sizes)}, input_shape.rank={operand.ndim}")
    for i, (s, d) in enumerate(zip(slice_sizes, operand.shape, strict=True)):
        if not 0 <= s <= d:
            raise TypeError(f"Slice size at index {i} in gather op is out of range, must be "
                            f"within [0, {d} + 1), got {s}.")
    if list(offset_dims) != sorted(set(offset_dims)):
        raise TypeError(f"offset_dims in gather op must be sorted; got {tuple(offset_dims)}.")
    for name, dd in (("collapsed_slice_dims", collapsed_slice_dims),
                     ("operand_batching_dims", operand_batching_dims)):
        if list(dd) != sorted(set(dd)):
            raise TypeError(f"{name} in gather op must be sorted; got {tuple(dd)}.")
        for d in dd:
            if not 0 <= d < operand.ndim:
                raise TypeError(f"Invalid {name} set in gather op; valid range is [0, "
                                f"{operand.ndim}), got: {d}.")
            if slice_sizes[d] > 1:
                raise TypeError(f"Gather op can only have {name} with bound 1, but bound is "
                                f"{slice_sizes[d]} for index {d} at position "
                                f"{list(dd).index(d)}.")
    if set(collapsed_slice_dims) & set(operand_batching_dims):
        raise TypeError("gather collapsed_slice_dims and operand_batching_dims must be disjoint")
    if len(operand_batching_dims) != len(start_indices_batching_dims):
        raise TypeError("gather operand_batching_dims and start_indices_batching_dims must have "
                        f"the same length; got {tuple(operand_batching_dims)} and "
                        f"{tuple(start_indices_batching_dims)}.")
    for od, sd in zip(operand_batching_dims, start_indices_batching_dims, strict=True):
        if not 0 <= sd < indices.ndim or sd == ivd or operand.shape[od] != indices.shape[sd]:
            raise TypeError("gather operand_batching_dims and start_indices_batching_dims must "
                            f"have matching sizes; got operand dim {od} and indices dim {sd} "
                            f"for operand shape {operand.shape} and indices shape "
                            f"{indices.shape}.")
    for d in start_index_map:
        if not 0 <= d < operand.ndim or d in operand_batching_dims:
            raise TypeError(f"Invalid start_index_map in gather op; got {tuple(start_index_map)} "
                            f"for operand rank {operand.ndim}.")
    removed = set(collapsed_slice_dims) | set(operand_batching_dims)
    offset_sizes = [s for i, s in enumerate(slice_sizes) if i not in removed]
    if len(offset_sizes) != len(offset_dims):
        raise TypeError("All components of the offset index in a gather op must either be a "
                        "offset dimension or explicitly collapsed/batching; got "
                        f"len(slice_sizes)={len(slice_sizes)}, output_slice_sizes="
                        f"{tuple(offset_sizes)}, collapsed_slice_dims="
                        f"{tuple(collapsed_slice_dims)}, operand_batching_dims="
                        f"{tuple(operand_batching_dims)}.")
    batch_shape = [s for i, s in enumerate(indices.shape) if i != ivd]
    out_rank = len(batch_shape) + len(offset_dims)
    if offset_dims and offset_dims[-1] >= out_rank:
        raise TypeError(f"Offset dimension {offset_dims[-1]} in gather op is out of bounds; "
                        f"got output rank {out_rank}.")
    out = []
    bi = iter(batch_shape)
    oi = iter(offset_sizes)
    for p in range(out_rank):
        out.append(next(oi) if p in offset_dims else next(bi))
    return Aval(tuple(out), operand.dtype, operand.weak_type)


@gather_p.def_batching
def _gather_batch(args, dims, *, offset_dims, collapsed_slice_dims, start_index_map,
                  operand_batching_dims, start_indices_batching_dims, index_vector_dim,
                  slice_sizes, indices_are_sorted=False, mode="clip"):
    axis_size = batching.axis_size(args, dims)
    (x, idx), (xd, id_) = args, dims
    ivd = index_vector_dim
    obd, sibd = list(operand_batching_dims), list(start_indices_batching_dims)
    coll, sim, sizes = list(collapsed_slice_dims), list(start_index_map), list(slice_sizes)
    offs = list(offset_dims)
    idx_rank = ndim(idx) - (id_ is not None)
    out_rank = idx_rank - (ivd < idx_rank) + len(offs)
    if xd is not None:  # renumber operand dims around the batch axis
        sh = lambda j: j + (j >= xd)  # noqa: E731
        coll, sim, obd = [sh(j) for j in coll], [sh(j) for j in sim], [sh(j) for j in obd]
    if id_ is None:
        # batched operand only: its batch axis is one more slice (offset) dim, taken whole;
        # the batch axis ends up at the output position p of that offset dim
        removed = set(collapsed_slice_dims) | set(operand_batching_dims)
        j_r = sum(1 for j in range(len(slice_sizes)) if j not in removed and j < xd)
        p = offs[j_r - 1] + 1 if j_r > 0 else 0
        offs = sorted([o + (o >= p) for o in offs] + [p])
        sizes.insert(xd, axis_size)
        out = gather_p.bind(x, idx, offset_dims=tuple(offs), collapsed_slice_dims=tuple(coll),
                        start_index_map=tuple(sim), operand_batching_dims=tuple(obd),
                        start_indices_batching_dims=tuple(sibd), index_vector_dim=ivd,
                        slice_sizes=tuple(sizes), indices_are_sorted=indices_are_sorted,
                        mode=mode)
        return out, p
    # batched indices: their batch axis is one more index batch dim, ending up at output
    # position q (placed between the neighbouring batch dims, so nothing is transposed)
    r_e = id_ - (ivd < id_)
    bpos = gather_batch_positions(out_rank, offs)
    q = bpos[r_e - 1] + 1 if r_e > 0 else 0
    offs = [o + (o >= q) for o in offs]
    sibd = [s + (s >= id_) for s in sibd]
    new_ivd = ivd + (ivd >= id_)
    if xd is not None:
        # both batched: the operand's batch axis pairs with the indices' as batching dims
        # (operand_batching_dims stays sorted; its partner keeps the same position)
        k = sum(1 for j in obd if j < xd)
        obd.insert(k, xd)
        sibd.insert(k, id_)
        sizes.insert(xd, min(1, axis_size))  # 0 on an empty batch: the slice must fit
    out = gather_p.bind(x, idx, offset_dims=tuple(offs), collapsed_slice_dims=tuple(coll),
                    start_index_map=tuple(sim), operand_batching_dims=tuple(obd),
                    start_indices_batching_dims=tuple(sibd), index_vector_dim=new_ivd,
                    slice_sizes=tuple(sizes), indices_are_sorted=indices_are_sorted,
                    mode=mode)
    return out, q


def _scatter_params(offset_dims, collapsed_slice_dims, start_index_map, operand_batching_dims,
                    start_indices_batching_dims, index_vector_dim, indices_are_sorted):
    """The scatter that writes back what this gather reads."""
    return dict(update_window_dims=offset_dims, inserted_window_dims=collapsed_slice_dims,
                input_batching_dims=operand_batching_dims,
                scatter_indices_batching_dims=start_indices_batching_dims,
                scatter_dims_to_operand_dims=start_index_map, index_vector_dim=index_vector_dim,
                indices_are_sorted=indices_are_sorted)


gather_p.def_jvp(linear_jvp(gather_p, linear=(0,)))


@gather_p.def_transpose
def _gather_transpose(ct, x, idx, *, offset_dims, collapsed_slice_dims, start_index_map,
                      operand_batching_dims, start_indices_batching_dims, index_vector_dim,
                      slice_sizes, indices_are_sorted=False, mode="clip"):
    # scatter-add the cotangent into zeros at the slice starts: clamped as the gather did in
    # mode 'clip'; with 'promise_in_bounds' a slice that does not fit is dropped (as JAX)
    a = x.aval
    if mode == "clip":
        idx = clamp_indices(idx, index_vector_dim,
                            [a.shape[d] - slice_sizes[d] for d in start_index_map])
    zeros = zeros_like_aval(aval_of(ct).update(shape=a.shape))
    out = scatter_add_p.bind(zeros, idx, ct, unique_indices=False, **_scatter_params(
        offset_dims, collapsed_slice_dims, start_index_map, operand_batching_dims,
        start_indices_batching_dims, index_vector_dim, indices_are_sorted))
    return [out, None]


# ----------------------------------------------------------------------------- scatter family


def scatter_family(name: str, check_extra=None) -> Primitive:
    """StableHLO scatter with one combiner (replace, add, mul, min, max; the lowering knows
    which) or, for ``scatter_apply``, a ``computation`` parameter (the update region).
    ``updates`` dims: ``update_window_dims`` hold the window dims (operand dims not
    inserted nor batching, in order); the others are the scatter dims (indices dims except
    ``index_vector_dim``, in order). A window that does not fit in the operand is dropped.
    ``check_extra(operand, updates, **extra)`` checks the parameters beyond StableHLO's."""
    prim = Primitive(name)

    @prim.def_abstract_eval
    def abstract_eval(operand, indices, updates, *, update_window_dims, inserted_window_dims,
                      input_batching_dims, scatter_indices_batching_dims,
                      scatter_dims_to_operand_dims, index_vector_dim, indices_are_sorted=False,
                      unique_indices=False, **extra):
        if not dtypes.is_int(indices.dtype):
            raise TypeError(f"{name} indices must have an integer type, got {indices.dtype.name}")
        if operand.dtype != updates.dtype:
            raise TypeError(f"{name} requires operand and updates to have the same dtype, got "
                            f"{operand.dtype.name} and {updates.dtype.name}.")
        ivd = index_vector_dim
        if not 0 <= ivd <= indices.ndim:
            raise TypeError(f"{name} index_vector_dim {ivd} is out of range for indices of rank "
                            f"{indices.ndim}.")
        nvec = indices.shape[ivd] if ivd < indices.ndim else 1
        if len(scatter_dims_to_operand_dims) != nvec:
            raise TypeError(f"Scatter op has {len(scatter_dims_to_operand_dims)} elements in "
                            f"scatter_dims_to_operand_dims and the bound of dimension "
                            f"index_vector_dim={ivd} of indices is {nvec}. These two numbers must "
                            "be equal.")
        uwd = list(update_window_dims)
        if uwd != sorted(set(uwd)):
            raise TypeError(f"update_window_dims in scatter op must be sorted; got {tuple(uwd)}.")
        for what, dd in (("inserted_window_dims", inserted_window_dims),
                         ("input_batching_dims", input_batching_dims)):
            if list(dd) != sorted(set(dd)) or any(not 0 <= d < operand.ndim for d in dd):
                raise TypeError(f"{what} in scatter op must be sorted and in range; got {tuple(dd)}.")
        removed = set(inserted_window_dims) | set(input_batching_dims)
        if len(removed) != len(inserted_window_dims) + len(input_batching_dims):
            raise TypeError("scatter inserted_window_dims and input_batching_dims must be disjoint")
        window_operand_dims = [j for j in range(operand.ndim) if j not in removed]
        scatter_shape = [s for i, s in enumerate(indices.shape) if i != ivd]
        if updates.ndim != len(scatter_shape) + len(uwd) or len(uwd) != len(window_operand_dims):
            raise TypeError(f"{name} updates shape {updates.shape} does not match: expected "
                            f"{len(scatter_shape)} scatter dims {tuple(scatter_shape)} and "
                            f"{len(window_operand_dims)} window dims for operand shape "
                            f"{operand.shape} and indices shape {indices.shape}.")
        spos = [p for p in range(updates.ndim) if p not in uwd]
        for p, s in zip(spos, scatter_shape, strict=True):
            if updates.shape[p] != s:
                raise TypeError(f"Bounds of the scatter dimensions of updates must be the same as "
                                f"the bounds of the corresponding dimensions of scatter indices; "
                                f"got updates shape {updates.shape} and indices shape "
                                f"{indices.shape}.")
        for p, j in zip(uwd, window_operand_dims, strict=True):
            if updates.shape[p] > operand.shape[j]:
                raise TypeError(f"Bounds of the window dimensions of updates must not exceed the "
                                f"bounds of the corresponding dimensions of operand; got updates "
                                f"shape {updates.shape} and operand shape {operand.shape}.")
        if len(input_batching_dims) != len(scatter_indices_batching_dims):
            raise TypeError("scatter input_batching_dims and scatter_indices_batching_dims must have "
                            "the same length.")
        for od, sd in zip(input_batching_dims, scatter_indices_batching_dims, strict=True):
            if not 0 <= sd < indices.ndim or sd == ivd or operand.shape[od] != indices.shape[sd]:
                raise TypeError("scatter input_batching_dims and scatter_indices_batching_dims "
                                "must have matching sizes.")
        for d in scatter_dims_to_operand_dims:
            if not 0 <= d < operand.ndim or d in input_batching_dims:
                raise TypeError("Invalid scatter_dims_to_operand_dims in scatter op; got "
                                f"{tuple(scatter_dims_to_operand_dims)} for operand rank "
                                f"{operand.ndim}.")
        if check_extra is not None:
            check_extra(operand, updates, **extra)
        return Aval(operand.shape, operand.dtype, operand.weak_type)

    @prim.def_batching
    def batch(args, dims, *, update_window_dims, inserted_window_dims, input_batching_dims,
              scatter_indices_batching_dims, scatter_dims_to_operand_dims, index_vector_dim,
              indices_are_sorted=False, unique_indices=False, **extra):
        (x, idx, u), (xd, id_, ud) = args, dims
        axis_size = batching.axis_size(args, dims)
        # the result is batched: an unbatched operand gets the batch axis at 0 (forced)
        od = 0 if xd is None else xd
        x = bdim_at(x, xd, axis_size, od)
        sh = lambda j: j + (j >= od)  # noqa: E731
        ins = [sh(j) for j in inserted_window_dims]
        ibd = [sh(j) for j in input_batching_dims]
        sdod = [sh(j) for j in scatter_dims_to_operand_dims]
        sibd = list(scatter_indices_batching_dims)
        uwd = list(update_window_dims)
        ivd = index_vector_dim
        u_rank = ndim(u) - (ud is not None)
        if id_ is None:
            # unbatched indices: the operand's batch axis is one more window dim, written whole
            removed = set(inserted_window_dims) | set(input_batching_dims)
            j_r = sum(1 for j in range(ndim(x) - 1) if j not in removed and j < od)
            lo = uwd[j_r - 1] + 1 if j_r > 0 else 0
            hi = uwd[j_r] if j_r < len(uwd) else u_rank
        else:
            # batched indices: their batch axis pairs with the operand's as batching dims, and
            # is one more scatter dim of the updates
            r_e = id_ - (ivd < id_)
            spos = [p for p in range(u_rank) if p not in uwd]
            lo = spos[r_e - 1] + 1 if r_e > 0 else 0
            hi = spos[r_e] if r_e < len(spos) else u_rank
            k = sum(1 for j in ibd if j < od)
            ibd.insert(k, od)
            sibd = [s + (s >= id_) for s in sibd]
            sibd.insert(k, id_)
            ivd = ivd + (ivd >= id_)
        # the updates' batch axis goes where it belongs among their dims (moved only if needed;
        # an unbatched update must be broadcast: StableHLO needs one update per window)
        p = ud if ud is not None and lo <= ud <= hi else lo
        u = bdim_at(u, ud, axis_size, p)
        if id_ is None:
            uwd = sorted([w + (w >= p) for w in uwd] + [p])
        else:
            uwd = [w + (w >= p) for w in uwd]
        out = prim.bind(x, idx, u, update_window_dims=tuple(uwd), inserted_window_dims=tuple(ins),
                        input_batching_dims=tuple(ibd), scatter_indices_batching_dims=tuple(sibd),
                        scatter_dims_to_operand_dims=tuple(sdod), index_vector_dim=ivd,
                        indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                        **extra)
        return out, od  # the batch axis stays at the operand's

    return prim


def _gather_params(operand_shape, updates_shape, *, update_window_dims, inserted_window_dims,
                   input_batching_dims, scatter_indices_batching_dims,
                   scatter_dims_to_operand_dims, index_vector_dim, indices_are_sorted=False,
                   unique_indices=False):
    """The gather that reads each scatter window back (its slice_sizes are the windows)."""
    removed = set(inserted_window_dims) | set(input_batching_dims)
    it = iter(update_window_dims)
    sizes = tuple(1 if j in removed else updates_shape[next(it)] for j in range(len(operand_shape)))
    return dict(offset_dims=update_window_dims, collapsed_slice_dims=inserted_window_dims,
                start_index_map=scatter_dims_to_operand_dims,
                operand_batching_dims=input_batching_dims,
                start_indices_batching_dims=scatter_indices_batching_dims,
                index_vector_dim=index_vector_dim, slice_sizes=sizes,
                indices_are_sorted=indices_are_sorted, mode="clip")


def _window_gather(x, idx, operand_shape, updates_shape, params, *, masked=False):
    """Each scatter window of x, read back (zero for windows the scatter drops, if masked)."""
    out = gather_p.bind(x, idx, **_gather_params(operand_shape, updates_shape, **params))
    if not masked:
        return out
    oa = aval_of(out)
    return select_p.bind(_kept_windows(idx, operand_shape, updates_shape, params), out,
                         literal(0, oa.dtype, oa.weak_type))


def _kept_windows(idx, operand_shape, updates_shape, params):
    """bool of the updates' shape: whether each update's window is in bounds (the scatter
    drops the others)."""
    gp = _gather_params(operand_shape, updates_shape, **params)
    mask, _ = in_bounds_mask(idx, gp["index_vector_dim"], gp["start_index_map"], operand_shape,
                             gp["slice_sizes"])
    spos = tuple(p for p in range(len(updates_shape)) if p not in gp["offset_dims"])
    return broadcast_in_dim_p.bind(mask, shape=tuple(updates_shape), broadcast_dimensions=spos)


def _scatter_updates_ct(ct, x, idx, u, params):
    """The cotangent of the updates of a scatter(-add): the cotangent of their windows."""
    return _window_gather(ct, idx, aval_of(x).shape, aval_of(u).shape, params, masked=True)


def _full(aval, v):
    return broadcast_in_dim_p.bind(literal(v, aval.dtype, aval.weak_type), shape=aval.shape,
                                   broadcast_dimensions=())


scatter_p = scatter_family("scatter")


@scatter_p.def_jvp
def _scatter_jvp(primals, tangents, **params):
    x, idx, u = primals
    tx, tu = instantiate_zeros(tangents[0]), instantiate_zeros(tangents[2])
    if params["unique_indices"]:
        return scatter_p.bind(x, idx, u, **params), scatter_p.bind(tx, idx, tu, **params)
    # Which update wins a contended location is XLA's choice: scatter an id per update,
    # read the ids back, and keep (by a scatter-add, which needs no choosing) only the
    # operand elements nobody overwrote and the updates that won (JAX's scheme).
    xa, ua = aval_of(x), aval_of(u)
    uwd = params["update_window_dims"]
    ids_shape = tuple(1 if p in uwd else d for p, d in enumerate(ua.shape))
    i32 = np.dtype(np.int32)
    n = int(np.prod(ids_shape, dtype=np.int64))
    ids = reshape_p.bind(iota_p.bind(dtype=i32, shape=(n,), dimension=0), new_sizes=ids_shape,
                         dimensions=None)
    ids = add_p.bind(ids, literal(1, i32))
    if ids_shape != ua.shape:
        keep = tuple(p for p in range(len(ids_shape)) if p not in uwd)
        ids = broadcast_in_dim_p.bind(reshape_p.bind(ids, new_sizes=tuple(ids_shape[p] for p in keep),
                                                     dimensions=None),
                                      shape=ua.shape, broadcast_dimensions=keep)
    scattered = scatter_p.bind(_full(Aval(xa.shape, i32), 0), idx, ids, **params)
    won = eq_p.bind(ids, _window_gather(scattered, idx, xa.shape, ua.shape, params))
    kept = eq_p.bind(scattered, literal(0, i32))
    add = dict(params, unique_indices=False)

    def masked(a, b):
        za, zb = literal(0, aval_of(a).dtype, aval_of(a).weak_type), literal(0, aval_of(b).dtype,
                                                                           aval_of(b).weak_type)
        return scatter_add_p.bind(select_p.bind(kept, a, za), idx, select_p.bind(won, b, zb), **add)

    return masked(x, u), masked(tx, tu)


@scatter_p.def_transpose
def _scatter_transpose(ct, x, idx, u, **params):
    if not params["unique_indices"]:
        raise NotImplementedError("scatter transpose is only implemented where unique_indices=True")
    ct_x = ct_u = None
    if is_undefined_primal(x):
        ct_x = scatter_p.bind(ct, idx, zeros_like_aval(aval_of(ct).update(shape=u.aval.shape)),
                              **params)
    if is_undefined_primal(u):
        ct_u = _scatter_updates_ct(ct, x, idx, u, params)
    return [ct_x, None, ct_u]


scatter_add_p = scatter_family("scatter_add")
scatter_add_p.def_jvp(linear_jvp(scatter_add_p, linear=(0, 2)))


@scatter_add_p.def_transpose
def _scatter_add_transpose(ct, x, idx, u, **params):
    return [ct if is_undefined_primal(x) else None, None,
            _scatter_updates_ct(ct, x, idx, u, params) if is_undefined_primal(u) else None]


scatter_mul_p = scatter_family("scatter_mul")


def _scatter_mul_jvp_updates(g, x, idx, u, **params):
    if not params["unique_indices"]:
        raise NotImplementedError("scatter_mul gradients are only implemented if "
                                  "`unique_indices=True`")
    zeros = zeros_like_aval(aval_of(x))
    return mul_p.bind(x, scatter_add_p.bind(zeros, idx, g, **params))


scatter_mul_p.def_jvp(jvp_by_operand(
    scatter_mul_p, lambda g, x, idx, u, **params: scatter_mul_p.bind(g, idx, u, **params), None,
    _scatter_mul_jvp_updates))


@scatter_mul_p.def_transpose
def _scatter_mul_transpose(ct, x, idx, u, **params):
    if is_undefined_primal(u):
        raise NotImplementedError("scatter_mul gradients are only implemented if `updates` is "
                                  "not an undefined primal.")
    return [scatter_mul_p.bind(ct, idx, u, **params), None, None]


def _scatter_extremal_jvp(prim):
    """scatter_min/max: the tangent of the value that ends up at each location; a tie
    between the operand and updates (or among updates) shares it equally (as JAX)."""

    def rule(primals, tangents, **params):
        x, idx, u = primals
        out = prim.bind(x, idx, u, **params)
        tx, tu = instantiate_zeros(tangents[0]), instantiate_zeros(tangents[2])
        xa, ua = aval_of(x), aval_of(u)
        add = dict(params, unique_indices=False)

        def back(v):
            return _window_gather(v, idx, xa.shape, ua.shape, params)

        ones, zero = _full(ua, 1), literal(0, ua.dtype, ua.weak_type)
        target = back(out)
        won = eq_p.bind(u, target)
        kept = eq_p.bind(back(x), target)
        zeros_x = zeros_like_aval(xa)
        n_won = back(scatter_add_p.bind(zeros_x, idx, select_p.bind(won, ones, zero), **add))
        n_refs = back(scatter_add_p.bind(zeros_x, idx, ones, **add))
        one = literal(1, ua.dtype, ua.weak_type)
        share_kept = div_p.bind(one, add_p.bind(n_won, one))
        u_coef = select_p.bind(won, select_p.bind(kept, share_kept, div_p.bind(one, n_won)), zero)
        x_coef = div_p.bind(sub_p.bind(select_p.bind(kept, share_kept, zero), one), n_refs)
        # a dropped (out of bounds) update counts nowhere: its coefficients (0/0 or 1/0 from
        # counts it is not part of) are zero, or a second derivative meets 0 * inf
        inb = _kept_windows(idx, xa.shape, ua.shape, params)
        u_coef, x_coef = (select_p.bind(inb, c, zero) for c in (u_coef, x_coef))
        t_upd = add_p.bind(mul_p.bind(back(tx), x_coef), mul_p.bind(tu, u_coef))
        return out, scatter_add_p.bind(tx, idx, t_upd, **add)

    return rule


scatter_min_p = scatter_family("scatter_min")
scatter_min_p.def_jvp(_scatter_extremal_jvp(scatter_min_p))
scatter_max_p = scatter_family("scatter_max")
scatter_max_p.def_jvp(_scatter_extremal_jvp(scatter_max_p))


# scatter_apply (JAX's scatter_p with an update_jaxpr): each location a window covers is
# replaced by ``computation(old, update)``, once per covering window, in XLA's order; the
# updates are a placeholder of zeros that lax.scatter_apply's func ignores.


def _check_update_computation(operand, updates, *, computation):
    s = Aval((), operand.dtype)
    ins = [Aval(v.aval.shape, v.aval.dtype) for v in computation.invars]
    outs = [Aval(a.shape, a.dtype) for a in computation.out_avals]
    if ins != [s, s] or outs != [s]:
        raise TypeError(f"scatter_apply func must map a scalar {s.str_short()} (the operand's "
                        f"dtype) to one of the same type; it takes {[a.str_short() for a in ins]}"
                        f" and returns {[a.str_short() for a in outs]}")


scatter_apply_p = scatter_family("scatter_apply", _check_update_computation)


@scatter_apply_p.def_jvp
def _scatter_apply_jvp(primals, tangents, **params):
    raise NotImplementedError("scatter_apply JVP not implemented")
