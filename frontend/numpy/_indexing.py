"""numpy indexing as JAX's numpy does it: ``x[idx]``, ``take``, ``take_along_axis`` and
``x.at[idx].set/add/multiply/min/max/get``.

Lowering choices: static slices and static ints become one ``slice`` (+ ``rev`` for negative
steps) and a ``reshape``; traced scalar ints one ``dynamic_slice`` (negative indices wrapped,
then clamped); integer arrays one ``gather`` (negative indices wrapped, then clamped);
``.at[...]`` updates one ``scatter`` (out-of-bounds updates dropped).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.ir import JAXIndexError, Tracer, aval_of, literal
from ..core.shape_poly import DimExpr
from ..device.array import Array
from ..interpreters.ragged import axis_length, is_ragged
from ..lax import _indexing as lax_ix
from ..lax._convert import convert
from ..primitives import indexing as ix
from ._core import asarray, broadcast_to_shape, canonical_axis, is_array
from ._elementwise import remainder
from ._shape import broadcast_shapes

__all__ = ["take", "take_along_axis", "NonConcreteBooleanIndexError"]


class NonConcreteBooleanIndexError(JAXIndexError):
    """A boolean mask index whose value is not known while tracing."""

    def __init__(self, aval):
        super().__init__(
            f"Array boolean indices must be concrete; got {aval.str_short()}\n\n"
            "Boolean indexing selects a data-dependent number of elements, so the mask must be "
            "known when the function is traced (not an argument of jit or vmap). Use "
            "fnp.where(mask, x, fill) to keep the shape static instead.")


_INT = np.dtype(np.int32)


# ----------------------------------------------------------------------------- index parsing


class _Entry(NamedTuple):
    """One index element after Ellipsis expansion, by ``kind``:
    "none" newaxis; "slice" a static slice of operand dim ``dim``: ``size`` elements from
    ``start`` by ``step``; "int" a static int ``index`` (wrapped, bounds-checked); "dyn" a
    traced scalar integer ``index``; "adv" an integer array ``index`` (numpy or traced), any
    rank."""

    kind: str
    dim: int = -1
    start: int = 0
    size: int = 1
    step: int = 1
    index: object = None


class _Label(NamedTuple):
    """One dim of an indexing result (no None dims): "adv" the ``adv_dim``-th dim of the
    broadcast index arrays; "win" (step-1 or size <= 1) or "strided" the dims of a slice
    ``entry``."""

    kind: str
    adv_dim: int = 0
    entry: _Entry | None = None


def _float_index_error(dt):
    return TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                     f"{np.dtype(dt).name}")


def _expand(i):
    """One index element -> list of raw entries (a bool mask can become several)."""
    if i is None or i is Ellipsis or isinstance(i, slice):
        return [i]
    if isinstance(i, str):
        raise TypeError(f"JAX does not support string indexing; got idx={i!r}")
    if _is_scalar_bool(i):  # x.at[True]: a new axis of length 1, as x[None]
        return [None]  # (x[b] reads index arrays instead; x.at[False] updates nothing)
    if isinstance(i, (int, np.integer)):
        return [int(i)]
    if isinstance(i, float):
        raise _float_index_error(np.float64)
    if isinstance(i, (list, tuple)):
        if len(i) == 0:
            return [np.zeros((0,), _INT)]
        i = asarray(i) if any(is_array(v) for v in _leaves(i)) else np.asarray(i)
    if isinstance(i, np.generic):
        i = np.asarray(i)
    if isinstance(i, (np.ndarray, Array, Tracer)):
        dt = i.dtype
        if dtypes.is_bool(dt):
            if isinstance(i, Tracer):
                raise NonConcreteBooleanIndexError(i.aval)
            return [np.asarray(k, _INT) for k in np.nonzero(np.asarray(i))]
        if not dtypes.is_int(dt):
            raise _float_index_error(dt)
        if isinstance(i, np.ndarray) and i.ndim == 0:
            return [int(i)]
        return [i]
    raise TypeError(f"Indexer must have integer or boolean type, got indexer of type "
                    f"{type(i).__name__}")


def _leaves(xs):
    for x in xs:
        if isinstance(x, (list, tuple)):
            yield from _leaves(x)
        else:
            yield x


def _static_int(v, what):
    if v is None or isinstance(v, (int, np.integer)):
        return None if v is None else int(v)
    if isinstance(v, Array) and v.ndim == 0 and dtypes.is_int(v.dtype):
        return int(v)
    raise IndexError(f"Array slice indices must have static start/stop/step to be used with NumPy "
                     f"indexing syntax. Found slice {what}. To index a statically sized array at "
                     "a dynamic position, try lax.dynamic_slice / lax.dynamic_update_slice.")


def _parse(shape, idx, x=None):
    """``x``: the indexed value, where a ragged axis (under vmap of a ragged batch) counts
    negative and traced indices from the example's own length."""
    if isinstance(idx, list):
        raise TypeError("Using a non-tuple sequence for multidimensional indexing is not allowed; "
                        "use `arr[array(seq)]` instead of `arr[seq]`.")
    if not isinstance(idx, tuple):
        idx = (idx,)
    raw = [e for i in idx for e in _expand(i)]
    n_ell = sum(1 for e in raw if e is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(1 for e in raw if e is not None and e is not Ellipsis)
    nd = len(shape)
    if used > nd:
        raise IndexError(f"Too many indices: array is {nd}-dimensional, but {used} were indexed")
    if n_ell == 0:
        raw.append(Ellipsis)
    entries = []
    dim = 0
    for e in raw:
        if e is None:
            entries.append(_Entry("none"))
        elif e is Ellipsis:
            for _ in range(nd - used):
                entries.append(_Entry("slice", dim, 0, shape[dim], 1))
                dim += 1
        elif isinstance(e, slice):
            s = slice(_static_int(e.start, e), _static_int(e.stop, e), _static_int(e.step, e))
            if type(shape[dim]) is DimExpr:  # (shape-polymorphic export)
                if (s.start, s.stop, s.step) not in ((None, None, None), (None, None, 1)):
                    raise IndexError(f"slicing the symbolic dimension '{shape[dim]}' (axis "
                                     f"{dim}) supports only ':', got {s}")
                entries.append(_Entry("slice", dim, 0, shape[dim], 1))
                dim += 1
                continue
            start, stop, step = s.indices(shape[dim])
            entries.append(_Entry("slice", dim, start, len(range(start, stop, step)), step))
            dim += 1
        elif isinstance(e, int):
            n = shape[dim]
            if -n <= e < n:
                if e < 0 and x is not None and is_ragged(x, dim):  # from the example's own end
                    entries.append(_Entry("dyn", dim, index=lax.add(axis_length(x, dim),
                                                                    literal(e, _INT))))
                else:
                    entries.append(_Entry("int", dim, index=e % n))
            else:  # out of bounds: JAX's rules, as for a traced index (get clamps, set drops)
                entries.append(_Entry("dyn", dim, index=asarray(np.int32(e))))
            dim += 1
        elif isinstance(e, (Array, Tracer)) and e.ndim == 0:
            if x is not None and is_ragged(x, dim):
                e = _wrap_index(e, axis_length(x, dim))
            entries.append(_Entry("dyn", dim, index=e))
            dim += 1
        else:
            entries.append(_Entry("adv", dim, index=e))
            dim += 1
    return entries


def _wrap_index(i, n):
    """An integer index array as int32 with negative entries counting from the end."""
    if isinstance(i, (np.ndarray, int)):
        i = np.asarray(i)
        return np.where(i < 0, i + n, i).astype(_INT)
    i = convert(i, _INT, False)
    neg = lax.lt(i, literal(0, _INT))
    n = literal(int(n), _INT) if isinstance(n, (int, np.integer)) else n
    return lax.select(neg, lax.add(i, n), i)


def _static_slicing(x, entries):
    """Apply the static slices (one ``slice``, one ``rev`` for negative steps); int entries are
    sliced to size 1. Returns the new x."""
    shp = aval_of(x).shape
    st, lim, strides, rev = list(0 for _ in shp), list(shp), [1] * len(shp), []
    for e in entries:
        if e.kind == "slice":
            d, start, m, step = e.dim, e.start, e.size, e.step
            if m == 0:
                st[d], lim[d] = 0, 0
            elif step > 0:
                st[d], lim[d], strides[d] = start, start + (m - 1) * step + 1, step
            else:
                last = start + (m - 1) * step
                st[d], lim[d], strides[d] = last, start + 1, -step
                if m > 1:
                    rev.append(d)
            if m == 1:
                strides[d] = 1
        elif e.kind == "int":
            st[e.dim], lim[e.dim] = e.index, e.index + 1
    if st != [0] * len(shp) or lim != list(shp) or strides != [1] * len(shp):
        x = lax.slice(x, start_indices=tuple(st), limit_indices=tuple(lim),
                             strides=None if strides == [1] * len(shp) else tuple(strides))
    if rev:
        x = lax.rev(x, dimensions=tuple(rev))
    return x


def _reshape(x, shape):
    shape = tuple(shape)
    return x if aval_of(x).shape == shape else lax.reshape(x, new_sizes=shape, dimensions=None)


def _broadcast_index_shapes(arrs) -> tuple:
    return broadcast_shapes(*[tuple(np.shape(a)) if not is_array(a) else a.shape for a in arrs])


def _bcast_index(i, shape):
    if isinstance(i, np.ndarray):
        return np.broadcast_to(i, shape)
    return broadcast_to_shape(i, tuple(shape))


def _adv_positions(entries):
    pos = [k for k, e in enumerate(entries) if e.kind in ("adv", "int", "dyn")]
    return pos, bool(pos) and pos[-1] - pos[0] + 1 == len(pos)


def _result_layout(entries, bshape):
    """numpy's result shape (with None dims) and the gather-output position of the index
    batch block (dims without None)."""
    pos, contiguous = _adv_positions(entries)
    out, batch_at = [], 0
    if not contiguous:
        out.extend(bshape)
    n_slices = 0
    for k, e in enumerate(entries):
        if e.kind == "none":
            out.append(1)
        elif e.kind == "slice":
            out.append(e.size)
            n_slices += 1
        elif contiguous and k == pos[0]:
            out.extend(bshape)
            batch_at = n_slices
    return out, batch_at


def _stack_columns(cols, bshape):
    """Index arrays of shape bshape -> one (*bshape, k) index array."""
    if all(isinstance(c, np.ndarray) for c in cols):
        return np.stack(cols, axis=-1).astype(_INT)
    parts = [_reshape(c if not isinstance(c, np.ndarray) else asarray(c), tuple(bshape) + (1,))
             for c in cols]
    return lax.concatenate(parts, dimension=len(bshape))


def _gather_index(x, entries, mode=None, fill_value=None):
    """Integer-array indexing (ints and traced scalars join the advanced indices)."""
    x = _static_slicing(x, [e for e in entries if e.kind == "slice"])
    shp = aval_of(x).shape
    adv = [(e.dim, e.index) for e in entries if e.kind in ("adv", "int", "dyn")]
    cols = [_wrap_index(i, shp[d]) for d, i in adv]
    bshape = _broadcast_index_shapes(cols)
    cols = [_bcast_index(c, bshape) for c in cols]
    out_shape, batch_at = _result_layout(entries, bshape)
    if 0 in out_shape:  # nothing to gather (also from an empty axis): zeros, as JAX's
        return lax.broadcast_in_dim(convert(0, aval_of(x).dtype), shape=tuple(out_shape),
                                    broadcast_dimensions=())
    adv_dims = tuple(d for d, _ in adv)
    if len(cols) == 1:
        idx, ivd = cols[0], len(bshape)
        if isinstance(idx, np.ndarray):
            idx = np.ascontiguousarray(idx, _INT)
    else:
        idx, ivd = _stack_columns(cols, bshape), len(bshape)
    n_off = len(shp) - len(adv_dims)
    offset_dims = tuple(range(batch_at)) + tuple(range(batch_at + len(bshape),
                                                       len(bshape) + n_off))
    sizes = tuple(1 if d in adv_dims else s for d, s in enumerate(shp))
    out = lax_ix._gather(x, idx, (offset_dims, sorted(adv_dims), adv_dims), sizes,
                         index_vector_dim=ivd,
                         mode="clip" if mode == "clip" else "promise_in_bounds")
    if mode == "fill":
        mask = None
        for (d, _), c in zip(adv, cols, strict=True):
            c = c if not isinstance(c, np.ndarray) else asarray(c)
            ok = lax.bitwise_and(lax.ge(c, literal(0, _INT)),
                                 lax.lt(c, literal(int(shp[d]), _INT)))
            mask = ok if mask is None else lax.bitwise_and(mask, ok)
        oa = aval_of(out)
        mask = lax.broadcast_in_dim(mask, shape=oa.shape, broadcast_dimensions=tuple(
            range(batch_at, batch_at + len(bshape))))
        fv = lax_ix.default_fill_value(oa.dtype) if fill_value is None else fill_value
        fill = lax.broadcast_in_dim(convert(fv, oa.dtype, False), shape=oa.shape,
                                           broadcast_dimensions=())
        out = lax.select(mask, out, fill)
    return _reshape(out, out_shape)


def _is_scalar_bool(i) -> bool:
    """A 0-d boolean index (Python or numpy bool, or a concrete 0-d boolean array)."""
    return (isinstance(i, (bool, np.bool_)) or isinstance(i, (np.ndarray, Array))
            and i.ndim == 0 and dtypes.is_bool(i.dtype))


def _scalar_bools_as_arrays(x, idx):
    """numpy's (and JAX's) reading of 0-d boolean indices: each is an advanced index
    ``arange(1)`` (True) or ``arange(0)`` (False) into a new length-1 axis of ``x`` at its
    place, so it broadcasts with the other advanced indices. -> (x, idx)."""
    idx = idx if isinstance(idx, tuple) else (idx,)
    nd = aval_of(x).ndim
    consumed = [0 if (i is None or i is Ellipsis or _is_scalar_bool(i)) else
                np.ndim(i) if getattr(i, "dtype", None) == np.bool_ else 1 for i in idx]
    at, new, dim = [], [], 0
    for i, n in zip(idx, consumed, strict=True):
        if i is Ellipsis:
            dim += nd - sum(consumed)
        elif _is_scalar_bool(i):
            at.append(dim + len(at))
            i = np.arange(int(bool(i)), dtype=_INT)
        new.append(i)
        dim += n
    shape = list(aval_of(x).shape)
    for d in at:
        shape.insert(d, 1)
    return _reshape(x, shape), tuple(new)


def _getitem(x, idx, mode=None, fill_value=None):
    """``x[idx]`` with numpy's basic and advanced indexing, as JAX's numpy does it."""
    if not is_array(x):
        x = asarray(x)
    if any(_is_scalar_bool(i) for i in (idx if isinstance(idx, tuple) else (idx,))):
        x, idx = _scalar_bools_as_arrays(x, idx)
    entries = _parse(aval_of(x).shape, idx, x)
    has_adv = any(e.kind == "adv" for e in entries)
    has_dyn = any(e.kind == "dyn" for e in entries)
    if has_adv or (has_dyn and mode == "fill"):
        return _gather_index(x, entries, mode, fill_value)
    # basic indexing: slice (+ rev), dynamic_slice for traced scalars, reshape
    x = _static_slicing(x, entries)
    if has_dyn:
        shp = aval_of(x).shape
        starts, sizes = [0] * len(shp), list(shp)
        for e in entries:
            if e.kind == "dyn":
                starts[e.dim] = convert(e.index, _INT, False)
                sizes[e.dim] = 1
        x = lax_ix.dynamic_slice(x, starts, sizes)
    out_shape = []
    for e in entries:
        if e.kind == "none":
            out_shape.append(1)
        elif e.kind == "slice":
            out_shape.append(e.size)
    return _reshape(x, out_shape)


# ----------------------------------------------------------------------------- take


def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    """Elements of ``a`` at ``indices`` along ``axis`` (flattened ``a`` when None).

    ``mode``: 'fill' (default, as JAX's numpy: out-of-bounds indices give ``fill_value``, NaN
    for floats), 'clip' (clamp) or 'wrap' (modulo). Negative indices count from the end.

    >>> import frontend.numpy as fnp
    >>> fnp.take(fnp.arange(5.0), fnp.array([4, 0, 7]))
    Array([ 4.,  0., nan], dtype=float32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    a = asarray(a) if not is_array(a) else a
    indices = asarray(indices) if not is_array(indices) else indices
    if not dtypes.is_int(indices.dtype):
        raise TypeError(f"take: indices must have an integer dtype, got {indices.dtype.name}")
    if axis is None:
        a = _reshape(a, (aval_of(a).size,))
        axis = 0
    shp = aval_of(a).shape
    axis = canonical_axis(axis, len(shp))
    n = shp[axis]
    m = mode or "fill"
    if m == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    if n == 0:
        if aval_of(indices).size:
            raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
        return lax.broadcast_in_dim(convert(0, aval_of(a).dtype), broadcast_dimensions=(),
                                    shape=shp[:axis] + aval_of(indices).shape + shp[axis + 1:])
    if m not in ("fill", "clip", "wrap"):
        raise ValueError(f"Invalid mode value '{mode}'")
    i = convert(indices, _INT, False)
    if m == "wrap":
        i = remainder(i, literal(int(n), _INT))
    elif m == "fill":  # negative indices count from the end ('clip' clamps them to 0)
        i = _wrap_index(i, n)
    ishape = aval_of(i).shape
    offset_dims = tuple(range(axis)) + tuple(range(axis + len(ishape), len(shp) - 1 + len(ishape)))
    sizes = tuple(1 if d == axis else s for d, s in enumerate(shp))
    res = lax_ix._gather(a, i, (offset_dims, (axis,), (axis,)), sizes,
                         index_vector_dim=len(ishape), indices_are_sorted=indices_are_sorted,
                         mode="clip" if m == "clip" else "promise_in_bounds")
    if m != "fill":
        return res
    ra = aval_of(res)
    ok = lax.bitwise_and(lax.ge(i, literal(0, _INT)),
                         lax.lt(i, literal(int(n), _INT)))
    ok = lax.broadcast_in_dim(ok, shape=ra.shape,
                                     broadcast_dimensions=tuple(range(axis, axis + len(ishape))))
    fv = lax_ix.default_fill_value(ra.dtype) if fill_value is None else fill_value
    fill = lax.broadcast_in_dim(convert(fv, ra.dtype, False), shape=ra.shape,
                                       broadcast_dimensions=())
    return lax.select(ok, res, fill)


def take_along_axis(arr, indices, axis=-1, mode=None, fill_value=None, *,
                    wrap_negative_indices=None):
    """``out[..., j, ...] = arr[..., indices[..., j, ...], ...]`` along ``axis`` (the other
    dims broadcast). One gather whose other dims are batching dims.

    >>> import frontend.numpy as fnp
    >>> fnp.take_along_axis(fnp.array([[10, 20], [30, 40]]), fnp.array([[1], [0]]), axis=1)
    Array([[20],
           [30]], dtype=int32)
    """
    arr = asarray(arr) if not is_array(arr) else arr
    indices = asarray(indices) if not is_array(indices) else indices
    if not dtypes.is_int(indices.dtype):
        raise TypeError(f"take_along_axis indices must be of integer type, got {indices.dtype.name}")
    if axis is None:
        if aval_of(indices).ndim != 1:
            raise ValueError(f"take_along_axis indices must be 1D if axis=None, got shape "
                             f"{aval_of(indices).shape}")
        arr = _reshape(arr, (aval_of(arr).size,))
        axis = 0
    ashp, ishp = aval_of(arr).shape, aval_of(indices).shape
    if len(ashp) != len(ishp):
        raise ValueError("indices and arr must have the same number of dimensions; "
                         f"{len(ishp)} vs. {len(ashp)}")
    axis = canonical_axis(axis, len(ashp))
    nd = len(ashp)
    # the non-axis dims broadcast against each other
    bshape = []
    for d in range(nd):
        if d == axis:
            continue
        a_, i_ = ashp[d], ishp[d]
        if a_ != i_ and 1 not in (a_, i_):
            raise ValueError(f"Incompatible shapes for broadcasting: {ashp} and {ishp}")
        bshape.append(max(a_, i_) if 0 not in (a_, i_) else 0)
    a_target = tuple(ashp[d] if d == axis else bshape[d - (d > axis)] for d in range(nd))
    i_target = tuple(ishp[d] if d == axis else bshape[d - (d > axis)] for d in range(nd))
    arr = broadcast_to_shape(arr, a_target) if a_target != ashp else arr
    indices = broadcast_to_shape(indices, i_target) if i_target != ishp else indices
    n = ashp[axis]
    m = mode or "fill"
    if m not in ("fill", "clip", "promise_in_bounds", "one_hot"):
        raise ValueError(f"Invalid mode value '{mode}'")
    if n == 0:  # (nothing to gather: zeros of the result's shape, as JAX's)
        return lax.broadcast_in_dim(convert(0, aval_of(arr).dtype), shape=aval_of(indices).shape,
                                    broadcast_dimensions=())
    if wrap_negative_indices is None:  # (JAX's default: wrap unless promised in bounds)
        wrap_negative_indices = m != "promise_in_bounds"
    i = _wrap_index(indices, n) if wrap_negative_indices else indices
    if m == "one_hot":
        return _take_one_hot(arr, i, axis)
    others = tuple(d for d in range(nd) if d != axis)
    res = lax_ix._gather(arr, i, ((), (axis,), (axis,), others, others), (1,) * nd,
                         index_vector_dim=nd,
                         mode="clip" if m == "clip" else "promise_in_bounds")
    if m != "fill":
        return res
    ok = lax.bitwise_and(lax.ge(i, literal(0, _INT)),
                         lax.lt(i, literal(int(n), _INT)))
    ra = aval_of(res)
    fv = lax_ix.default_fill_value(ra.dtype) if fill_value is None else fill_value
    fill = lax.broadcast_in_dim(convert(fv, ra.dtype, False), shape=ra.shape,
                                       broadcast_dimensions=())
    return lax.select(ok, res, fill)


def _take_one_hot(arr, i, axis):
    """take_along_axis(mode="one_hot"): a contraction of ``arr`` with the one-hot rows of the
    (already wrapped) indices along ``axis``, as JAX's (out-of-range indices give 0, and an
    inf or nan anywhere on the row spreads, as in a dot)."""
    from ._linalg import einsum
    ia, dt = aval_of(i), aval_of(arr).dtype
    n = aval_of(arr).shape[axis]
    iota = lax.broadcasted_iota(dtype=ia.dtype, shape=(*ia.shape, n), dimension=ia.ndim)
    hot = convert(lax.eq(lax.broadcast_in_dim(i, shape=(*ia.shape, n),
                                              broadcast_dimensions=tuple(range(ia.ndim))),
                         iota), dt, False)
    labels = "".join(chr(ord("a") + k) for k in range(axis))
    eq = f"{labels}y...z,{labels}z...->{labels}y..."
    return einsum(eq, hot, arr, precision=lax.Precision.HIGHEST, preferred_element_type=dt)


# ----------------------------------------------------------------------------- x.at[idx]


def _scatter_index(x, idx, values, prim, mode, indices_are_sorted=False, unique_indices=False,
                   **extra):
    """x.at[idx].<op>(values) as one scatter. Window dims: step-1 slices (and Ellipsis);
    inserted dims: ints, traced scalars, integer arrays; strided slices become index arrays
    of their own scatter dim. Updates keep numpy's indexing-result layout."""
    xa = aval_of(x)
    shp = xa.shape
    if any(_is_scalar_bool(i) and not i for i in (idx if isinstance(idx, tuple) else (idx,))):
        return x  # (a 0-d False index selects nothing to update)
    entries = _parse(shp, idx)
    values = values if is_array(values) else asarray(values) if not isinstance(
        values, (bool, int, float, complex)) else values
    values = convert(values, xa.dtype, xa.weak_type)
    pos, contiguous = _adv_positions(entries)
    advs = [e for e in entries if e.kind in ("adv", "int", "dyn")]
    cols = [_wrap_index(e.index, shp[e.dim]) for e in advs]
    bshape = _broadcast_index_shapes(cols) if cols else ()
    # labels of the result (no None dims), in numpy's order
    labels = []
    if not contiguous and advs:
        labels += [_Label("adv", k) for k in range(len(bshape))]
    for k, e in enumerate(entries):
        if e.kind == "slice":
            labels.append(_Label("win" if e.step == 1 or e.size <= 1 else "strided", entry=e))
        elif contiguous and advs and k == pos[0]:
            labels += [_Label("adv", j) for j in range(len(bshape))]
    res_shape = [bshape[lab.adv_dim] if lab.kind == "adv" else lab.entry.size for lab in labels]
    full_shape, _ = _result_layout(entries, bshape)
    # values broadcast to the indexing result (with None dims), then None dims dropped
    va = aval_of(values)
    try:
        np.broadcast_shapes(va.shape, tuple(full_shape))
        if len(va.shape) > len(full_shape):
            raise ValueError
    except ValueError:
        raise ValueError(f"shape mismatch: value array of shape {va.shape} could not be broadcast "
                         f"to indexing result of shape {tuple(full_shape)}") from None
    upd = broadcast_to_shape(values, tuple(full_shape))
    upd = _reshape(upd, res_shape)
    # the scatter grid: the non-window result dims, in order
    grid_pos = [p for p, lab in enumerate(labels) if lab.kind != "win"]
    grid = tuple(res_shape[p] for p in grid_pos)
    comps, sdod = [], []
    adv_grid = [grid_pos.index(p) for p, lab in enumerate(labels) if lab.kind == "adv"]
    for e, c in zip(advs, cols, strict=True):
        c = _bcast_index(c, bshape)
        sdod.append(e.dim)
        comps.append(c if len(bshape) == len(grid) else _grid(c, grid, adv_grid))
    for p, lab in enumerate(labels):
        if lab.kind == "win" and lab.entry.start != 0:
            sdod.append(lab.entry.dim)
            comps.append(np.full(grid, lab.entry.start, _INT))
        elif lab.kind == "strided":
            d, start, m, step = lab.entry.dim, lab.entry.start, lab.entry.size, lab.entry.step
            sdod.append(d)
            comps.append(_grid(np.arange(start, start + m * step, step, dtype=_INT)[:m], grid,
                               [grid_pos.index(p)]))
    if not comps:
        if not shp:  # a 0-d x: the op is elementwise
            return _combine_scalar(prim, x, upd)
        sdod.append(0)
        comps.append(np.zeros(grid, _INT))
    if mode == "clip":
        win_sizes = {lab.entry.dim: lab.entry.size for lab in labels if lab.kind == "win"}
        comps = [_clip(c, shp[d] - win_sizes.get(d, 1)) for c, d in zip(comps, sdod, strict=True)]
    indices = _stack_columns(comps, grid) \
        if len(comps) > 1 else comps[0]
    ivd = len(grid)
    win_dims = [lab.entry.dim for lab in labels if lab.kind == "win"]
    inserted = tuple(sorted(d for d in range(len(shp)) if d not in win_dims))
    uwd = tuple(p for p, lab in enumerate(labels) if lab.kind == "win")
    # window updates must cover the whole window dim of the operand in size: windows start at
    # the slice start (in sdod) or 0
    return lax_ix._scatter(prim, x, indices, upd, (uwd, inserted, sdod), index_vector_dim=ivd,
                           indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                           **extra)


def _grid(c, grid, positions):
    """Index array c (dims = grid dims at ``positions``) broadcast over the whole grid."""
    if isinstance(c, np.ndarray):
        shape = [1] * len(grid)
        for k, p in enumerate(positions):
            shape[p] = c.shape[k]
        return np.broadcast_to(c.reshape(shape), grid)
    return lax.broadcast_in_dim(c, shape=tuple(grid), broadcast_dimensions=tuple(positions))


def _clip(c, hi):
    if isinstance(c, np.ndarray):
        return np.clip(c, 0, hi).astype(_INT)
    c = lax.max(c, literal(0, _INT))
    return lax.min(c, literal(int(hi), _INT))


def _combine_scalar(prim, x, upd):
    combine = {ix.scatter_p: None, ix.scatter_add_p: lax.add, ix.scatter_mul_p: lax.mul,
               ix.scatter_min_p: lax.min, ix.scatter_max_p: lax.max}[prim]
    if combine is None:
        return upd if is_array(upd) else asarray(upd)
    return combine(x, upd)


def _negated(values):
    v = values if is_array(values) else asarray(values)
    return lax.neg(v)  # (booleans: neg's TypeError, as JAX's subtract)


class _IndexUpdateHelper:
    """``x.at``: ``x.at[idx].set(v)``, ``.add``, ``.multiply``, ``.min``, ``.max``, ``.get``.
    Functional updates (a new array); out-of-bounds updates are dropped.

    >>> import frontend.numpy as fnp
    >>> fnp.zeros(3).at[1].set(5.0)
    Array([0., 5., 0.], dtype=float32)
    """

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index):
        return _IndexUpdateRef(self.array, index)

    def __repr__(self):
        return f"_IndexUpdateHelper({self.array!r})"


class _IndexUpdateRef:
    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array = array
        self.index = index

    def __repr__(self):
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None, fill_value=None):
        """``x[idx]``; ``mode='fill'`` gives ``fill_value`` at out-of-bounds indices."""
        m = lax_ix.canonical_mode(mode)
        return _getitem(self.array, self.index, mode=m, fill_value=fill_value)

    def _update(self, prim, values, mode, indices_are_sorted, unique_indices):
        x = self.array if is_array(self.array) else asarray(self.array)
        return _scatter_index(x, self.index, values, prim, lax_ix.canonical_mode(mode),
                              indices_are_sorted, unique_indices)

    def set(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """x with ``x[idx] = values``."""
        return self._update(ix.scatter_p, values, mode, indices_are_sorted, unique_indices)

    def add(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """x with ``x[idx] += values`` (repeated indices accumulate)."""
        return self._update(ix.scatter_add_p, values, mode, indices_are_sorted, unique_indices)

    def multiply(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """x with ``x[idx] *= values``."""
        return self._update(ix.scatter_mul_p, values, mode, indices_are_sorted, unique_indices)

    mul = multiply

    def subtract(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """x with ``x[idx] -= values`` (repeated indices accumulate)."""
        return self.add(_negated(values), indices_are_sorted=indices_are_sorted,
                        unique_indices=unique_indices, mode=mode)

    def divide(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """x with ``x[idx] /= values`` (inexact x, as JAX's)."""
        return self._update_by("divide", values, mode, indices_are_sorted, unique_indices)

    def power(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """x with ``x[idx] **= values``."""
        return self._update_by("power", values, mode, indices_are_sorted, unique_indices)

    def _update_by(self, fname, values, mode, indices_are_sorted, unique_indices):
        from . import _elementwise
        x = self.array if is_array(self.array) else asarray(self.array)
        if fname == "divide":  # (an integer x becomes inexact, as JAX's)
            (x,) = _elementwise.promote_dtypes_inexact("divide", x)
        cur = _getitem(x, self.index, mode=lax_ix.canonical_mode(mode))
        new = getattr(_elementwise, fname)(cur, values if is_array(values) else asarray(values))
        return _IndexUpdateRef(x, self.index)._update(
            ix.scatter_p, convert(new, aval_of(x).dtype, aval_of(x).weak_type), mode,
            indices_are_sorted, unique_indices)

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """x with ``x[idx] = func(x[idx])``, once per occurrence of an index (one scatter whose
        update region is ``func``)."""
        x = self.array if is_array(self.array) else asarray(self.array)
        if aval_of(x).ndim == 0:  # (the one element)
            return convert(func(x), aval_of(x).dtype, aval_of(x).weak_type)
        g = lax_ix.apply_graph(func, aval_of(x).dtype)
        cur = _getitem(x, self.index, mode=lax_ix.canonical_mode(mode))
        return _scatter_index(x, self.index, lax.mul(cur, convert(0, aval_of(x).dtype)),
                              ix.scatter_apply_p, lax_ix.canonical_mode(mode), indices_are_sorted,
                              unique_indices, computation=g)

    def min(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """x with ``x[idx] = minimum(x[idx], values)``."""
        return self._update(ix.scatter_min_p, values, mode, indices_are_sorted, unique_indices)

    def max(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """x with ``x[idx] = maximum(x[idx], values)``."""
        return self._update(ix.scatter_max_p, values, mode, indices_are_sorted, unique_indices)
