"""vmap: JAX's in_axes/out_axes semantics over the batching trace (frontend.interpreters.batching), its
bounded-memory form (``vmap(..., batch_size=k)``, also behind ``lax.map(batch_size=k)``), and
the sequential fallback that batches a primitive without a batching rule.

The loops run ``k`` lanes at a time through one scan (one stablehlo.while) and vmap inside a
chunk; when k does not divide the length, the remainder is one more vmapped piece after the
loop. Results are the same for every k.
"""
from __future__ import annotations

import functools
import warnings

import numpy as np

from ..core import dtypes
from ..core.arguments import abstractify, leaf_paths
from ..core.ir import Literal, Tracer, aval_of, literal
from ..core.pytree import broadcast_prefix, key_paths, tree_flatten, tree_map, tree_unflatten
from ..core.tracing import flatten_fun, trace_pytree
from ..device.array import Array, adopt_foreign
from ..interpreters import batching
from ..interpreters.batching import BatchTracer
from ..interpreters.ragged import batch_fun_ragged
from ..primitives.control import scan_lanes
from ..primitives.padding import concatenate_p, slice_p
from ..primitives.ragged import Ragged, zero_padding_gradient
from ..primitives.shape import bdim_at, moveaxis, reshape_p

_SCALARS = (bool, int, float, complex)


def vmap(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, spmd_axis_name=None, *,
         batch_size=None):
    """Vectorize ``fun`` over an axis of its inputs, with JAX's ``in_axes``/``out_axes``
    semantics (ints, negative ints, None, pytree prefixes). ``axis_name`` names the mapped
    axis for collectives (``lax.psum(x, axis_name)``, ``lax.axis_index``, ...).
    ``spmd_axis_name`` (a mesh axis name or a tuple of them): where ``fun`` constrains a
    sharding (``lax.with_sharding_constraint``, ``shard_map``, ``jit`` with shardings), the
    batch axis is sharded over those mesh axes (as JAX's).
    ``batch_size=k`` (beyond JAX) computes k lanes at a time in a loop, for bounded memory.

    >>> import numpy as np
    >>> import frontend as fe
    >>> from frontend import lax
    >>> fe.vmap(lambda x, y: x @ y)(np.ones((3, 5), np.float32), np.ones((3, 5), np.float32))
    Array([5., 5., 5.], dtype=float32)
    >>> fe.vmap(lambda x: x - lax.pmean(x, "i"), axis_name="i")(np.arange(3.0, dtype=np.float32))
    Array([-1.,  0.,  1.], dtype=float32)
    """
    if not callable(fun):
        raise TypeError(f"vmap expects a callable, got {type(fun).__name__}")
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    _check_axes_spec(in_axes, "in_axes")
    _check_axes_spec(out_axes, "out_axes")
    if spmd_axis_name is not None:
        spmd_axis_name = tuple(spmd_axis_name) if isinstance(spmd_axis_name, (tuple, list)) \
            else (spmd_axis_name,)
    if axis_size is not None:
        if isinstance(axis_size, bool) or not isinstance(axis_size, (int, np.integer)):
            raise TypeError(f"vmap axis_size must be an int, got {axis_size!r} of type "
                            f"{type(axis_size).__name__}")
        if axis_size < 0:
            raise TypeError(f"vmap axis_size must be nonnegative, got {axis_size}")
        axis_size = int(axis_size)
    try:
        hash(axis_name)
    except TypeError as e:  # (JAX's own message, at call time)
        raise TypeError(f"vmap axis_name must be hashable, got {axis_name!r}: {e}") from None
    if axis_name is not None and batch_size is not None:
        raise ValueError("vmap batch_size cannot be combined with axis_name: collectives over "
                         "the named axis need every lane of it at once")

    @functools.wraps(fun)
    def batched(*args, **kwargs):
        if Ragged.made and any(type(x) is Ragged for x in
                               tree_flatten((args, kwargs), is_leaf=_is_ragged)[0]):
            return _ragged_vmap(fun, in_axes, out_axes, axis_name, axis_size, spmd_axis_name,
                                batch_size, args, kwargs)
        leaves, td, axes, size = _mapped_leaves(fun, in_axes, axis_size, args, kwargs)
        if batch_size is not None:
            return chunked_vmap(fun, in_axes, out_axes, size, batch_size, leaves, td, axes)
        flat, out_tree = flatten_fun(lambda a, kw: fun(*a, **kw), td)
        vals, dims = batching.batch_fun(lambda *xs: [_check_output(o) for o in flat(*xs)],
                                        size, leaves, axes, axis_name, spmd_axis_name)
        return _place_outputs(vals, dims, out_tree(), out_axes, size)

    return batched


def _is_ragged(x):
    return type(x) is Ragged


def _place_outputs(vals, dims, otd, out_axes, size, ragged=None):
    """The outputs of the batched function (values and batch dims, of the treedef ``otd``)
    with their batch axes moved to ``out_axes``; ``ragged[i]``: None or (ragged axes,
    lengths) of output i, which comes back as a Ragged."""
    oaxes = broadcast_prefix(out_axes, otd, "vmap out_axes")
    res = []
    for i, (val, d, ax, p) in enumerate(zip(vals, dims, oaxes, key_paths(otd), strict=True)):
        if ragged is not None and ragged[i] is not None:
            raxes, lengths = ragged[i]
            if ax is None or ax % (batching.ndim(val)) != 0:
                raise ValueError(f"vmap has a ragged output (at output{p}): its out_axes must "
                                 f"be 0 (a Ragged has the batch axis first), got {ax}")
            res.append(Ragged(moveaxis(val, d, 0), lengths, tuple(r + 1 for r in raxes)))
            continue
        if ax is None:
            if d is not None:
                raise ValueError(
                    f"vmap has mapped output (at output{p}) but out_axes is None: only an "
                    "output that does not depend on a mapped input can have out_axes=None")
            res.append(val)
            continue
        ax = _out_axis(ax, batching.ndim(val) + (d is None))
        if d is None:
            if isinstance(val, np.ndarray) and val.dtype == dtypes.float0:
                # the tangent of an integer (no data): a float0 array of the batched shape
                res.append(np.zeros(np.insert(val.shape, ax, size).astype(int), dtypes.float0))
                continue
            if isinstance(val, _SCALARS):
                val = literal(val, *dtypes.dtype_and_weak(val))
            res.append(bdim_at(val, None, size, ax))
        else:
            res.append(moveaxis(val, d, ax))
    return tree_unflatten(otd, res)


def _ragged_vmap(fun, in_axes, out_axes, axis_name, axis_size, spmd_axis_name, batch_size,
                 args, kwargs):
    """vmap with Ragged arguments: each is mapped along its batch axis, the function sees its
    padded data, and the batching trace tracks its ragged axes (frontend.interpreters.ragged)."""
    rleaves, rtd = tree_flatten((args, kwargs), is_leaf=_is_ragged)
    a2, kw2 = tree_map(lambda x: x.data if type(x) is Ragged else x, (args, kwargs),
                       is_leaf=_is_ragged)
    leaves, td, axes, size = _mapped_leaves(fun, in_axes, axis_size, a2, kw2)
    rag = []
    for i, (x, ax) in enumerate(zip(rleaves, axes, strict=True)):
        if type(x) is not Ragged:
            rag.append(None)
            continue
        if ax != 0:
            path = leaf_paths(fun, a2, td)[i]
            raise ValueError(f"vmap maps a Ragged argument along its batch axis 0, but in_axes "
                             f"gives {ax} for {path}")
        rag.append((tuple(a - 1 for a in x.axes), x.lengths))
    if batch_size is not None:
        return _ragged_chunked(fun, out_axes, axis_name, spmd_axis_name, batch_size, rleaves,
                               rtd, axes, size)
    flat, out_tree = flatten_fun(lambda a, kw: fun(*a, **kw), td)

    def entry(*xs):
        return [_check_output(o) for o in flat(*map(zero_padding_gradient, xs))]

    vals, dims, orag = batch_fun_ragged(entry, size, leaves, axes, rag, axis_name, spmd_axis_name)
    return _place_outputs(vals, dims, out_tree(), out_axes, size, orag)


def _ragged_chunked(fun, out_axes, axis_name, spmd_axis_name, batch_size, rleaves, rtd, axes,
                    size):
    """``vmap(fun, batch_size=k)`` with Ragged arguments (``rleaves``, Raggeds as leaves, of
    the treedef ``rtd``; ``axes`` their mapped axes): a loop over chunks of k lanes, each a
    ragged vmap of its chunk of data and lengths."""
    k = _check_batch_size(batch_size, "vmap")
    idx = [i for i, a in enumerate(axes) if a is not None]
    mapped = []
    for i in idx:
        x = rleaves[i]
        mapped += [x.data, x.lengths] if type(x) is Ragged else [moveaxis(x, axes[i], 0)]
    flat, out_tree = flatten_fun(lambda a, kw: fun(*a, **kw), rtd)
    info = []  # per output: None, or (ragged axes of the data, index of the input Ragged)

    def chunk(*cols):
        full, it, lens = list(rleaves), iter(cols), {}
        for i in idx:
            x = rleaves[i]
            if type(x) is Ragged:
                data, n = next(it), next(it)
                full[i] = Ragged(data, n, x.axes)
                lens[id(n)] = i
            else:
                full[i] = next(it)
        outs = vmap(lambda *ls: flat(*ls), in_axes=tuple(0 if a is not None else None for a in axes),
                    axis_name=axis_name, spmd_axis_name=spmd_axis_name)(*full)
        info[:] = [(o.axes, lens[id(o.lengths)]) if type(o) is Ragged else None for o in outs]
        return [o.data if type(o) is Ragged else o for o in outs]

    ys = _map_chunked(None, mapped, size, k, inner=chunk)
    rag = [None if r is None else (tuple(a - 1 for a in r[0]), rleaves[r[1]].lengths) for r in info]
    return _place_outputs(ys, [0] * len(ys), out_tree(), out_axes, size, rag)


def _out_axis(ax: int, nd: int) -> int:
    """An out_axes entry for an output of rank ``nd`` (batch axis included), as numpy's
    normalize_axis does (JAX's wording)."""
    if not -nd <= ax < nd:
        raise ValueError(f"axis {ax} is out of bounds for array of dimension {nd}")
    return ax % nd


def _check_output(o):
    """An output leaf of the batched function: arrays and scalars (JAX's TypeError else)."""
    if isinstance(o, (Tracer, Array, np.ndarray, np.generic, Literal)) or isinstance(o, _SCALARS):
        return o
    raise TypeError(f"Output from batched function {o!r} with type {type(o)} is not a valid "
                    "JAX type")


def _mapped_leaves(fun, in_axes, axis_size, args, kwargs):
    """(leaves, treedef, per-leaf axis or None, batch size), checked with JAX's errors."""
    if isinstance(in_axes, tuple) and len(in_axes) != len(args):
        raise ValueError(
            "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
            f"positional arguments passed to the function, but got len(in_axes)="
            f"{len(in_axes)}, len(args)={len(args)}")
    leaves, td = tree_flatten((args, kwargs))
    leaves = adopt_foreign(leaves)
    spec = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    axes = broadcast_prefix((spec, {k: 0 for k in kwargs}), td, "vmap in_axes")
    sizes = []
    for i, (x, ax) in enumerate(zip(leaves, axes, strict=True)):
        if ax is None:
            continue
        try:
            a = aval_of(x, host=False) or abstractify(x, "?", fun)
        except TypeError:  # (again, naming the argument: its path is only worked out here)
            abstractify(x, leaf_paths(fun, args, td)[i], fun)
            raise
        if not -a.ndim <= ax < a.ndim:
            path = leaf_paths(fun, args, td)[i]
            raise ValueError(
                f"vmap was requested to map its argument along axis {ax}, which implies "
                f"that its rank should be at least {ax + 1 if ax >= 0 else -ax}, but is only "
                f"{a.ndim} (its shape is {a.shape}); the argument is {path}")
        ax = ax % a.ndim
        axes[i] = ax
        sizes.append((i, ax, a.shape[ax]))
    distinct = {s for _, _, s in sizes}
    if axis_size is not None:
        distinct.add(axis_size)
    if len(distinct) > 1:
        paths = leaf_paths(fun, args, td)
        lines = [f"  * one axis had size {s}: axis {ax} of argument {paths[i]} of type "
                 f"{_mapped_desc(leaves[i])}" for i, ax, s in sizes]
        if axis_size is not None:
            lines.append(f"  * axis_size was given as {axis_size}")
        raise ValueError("vmap got inconsistent sizes for array axes to be mapped:\n"
                         + ";\n".join(lines))
    if not distinct:
        raise ValueError("vmap must have at least one non-None value in in_axes "
                         "(or an axis_size when no argument is mapped)")
    return leaves, td, axes, distinct.pop()


def _mapped_desc(x) -> str:
    a = aval_of(x, host=False) or abstractify(x, "?", None)
    return f"{a.dtype.name}{list(a.shape)}".replace(" ", "")


def _check_axes_spec(spec, name):
    leaves, _ = tree_flatten(spec)
    for x in leaves:
        if x is not None and not (isinstance(x, (int, np.integer)) and not isinstance(x, bool)):
            raise TypeError(f"vmap {name} must be an int, None, or (nested) container with those "
                            f"types as leaves, but got {spec!r}")


# ----------------------------------------------------------------------------- chunked loops


def _check_batch_size(batch_size, what):
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"{what} batch_size must be a positive integer, got {batch_size!r}")
    return int(batch_size)


def _rows(x, start, stop):
    """x[start:stop] along axis 0 (x itself when that is all of it)."""
    shp = batching.shape(x)
    if start == 0 and stop == shp[0]:
        return x
    return slice_p.bind(x, start_indices=(start,) + (0,) * (len(shp) - 1),
                        limit_indices=(stop,) + tuple(shp[1:]), strides=None)


def _map_chunked(flat_fun, mapped, size, k, inner=None):
    """flat_fun vmapped over axis 0 of every array in ``mapped`` (lists of outputs, batch axis
    0), k lanes at a time: a scan over the full chunks, then one vmapped remainder.
    ``inner``: the function of a chunk, instead of ``vmap(flat_fun)``."""
    inner = inner or vmap(flat_fun)
    if k >= size:
        return inner(*mapped)
    n_full, rem = divmod(size, k)
    chunks = [reshape_p.bind(_rows(x, 0, n_full * k),
                             new_sizes=(n_full, k) + tuple(batching.shape(x)[1:]), dimensions=None)
              for x in mapped]
    ys = scan_lanes(lambda *xc: inner(*xc), chunks)
    ys = [reshape_p.bind(y, new_sizes=(n_full * k,) + tuple(batching.shape(y)[2:]), dimensions=None)
          for y in ys]
    if rem:
        tail = inner(*[_rows(x, n_full * k, size) for x in mapped])
        ys = [concatenate_p.bind(y, t, dimension=0) for y, t in zip(ys, tail, strict=True)]
    return ys


def chunked_vmap(fun, in_axes, out_axes, size, batch_size, leaves, td, axes):
    """``vmap(fun, in_axes, out_axes)`` of the flattened arguments ``leaves`` (of ``(args,
    kwargs)``'s treedef ``td``, mapped along ``axes`` as ``_mapped_leaves`` worked them out)
    computed ``batch_size`` lanes at a time through a loop (bounded memory), identical
    results for every batch size."""
    k = _check_batch_size(batch_size, "vmap")
    mapped_idx = [i for i, a in enumerate(axes) if a is not None]
    mapped = [moveaxis(leaves[i], axes[i], 0) for i in mapped_idx]
    flat, out_tree = flatten_fun(lambda a, kw: fun(*a, **kw), td)

    def flat_fun(*xs):  # the mapped leaves in, the others as they are
        full = list(leaves)
        for i, x in zip(mapped_idx, xs, strict=True):
            full[i] = x
        return [_check_output(o) for o in flat(*full)]

    ys = _map_chunked(flat_fun, mapped, size, k)
    otd = out_tree()
    oaxes = broadcast_prefix(out_axes, otd, "vmap out_axes")
    if any(ax is None for ax in oaxes):
        # out_axes=None promises an unbatched output: let an (untransformed) vmap check it,
        # under an abstract trace so nothing runs; it raises vmap's own error for a batched one
        trace_pytree(lambda a, kw: vmap(fun, in_axes, out_axes)(*a, **kw), td,
                     [abstractify(x, "?", fun) for x in leaves])
    res = []
    for y, ax in zip(ys, oaxes, strict=True):
        if ax is None:
            res.append(_first_row(y))
        else:
            res.append(moveaxis(y, 0, _out_axis(ax, batching.ndim(y))))
    return tree_unflatten(otd, res)


def _first_row(y):
    shp = batching.shape(y)
    return reshape_p.bind(_rows(y, 0, 1), new_sizes=tuple(shp[1:]), dimensions=None)


def chunked_map(f, xs, batch_size):
    """``lax.map(f, xs, batch_size=k)``: a loop over chunks of k, vmapped inside a chunk."""
    k = _check_batch_size(batch_size, "map")
    leaves, td = tree_flatten(xs)
    if not leaves:
        raise ValueError("map got no values to map over")
    size = batching.shape(leaves[0])[0]
    flat, out_tree = flatten_fun(f, tree_flatten((xs,))[1])
    ys = _map_chunked(flat, leaves, size, k)
    return tree_unflatten(out_tree(), ys)


# ----------------------------------------------------------------------------- no batching rule


def batch_fallback(trace, prim, vals, dims, params):
    """Batch ``prim`` (which has no batching rule) by a sequential loop over the lanes (see
    ``sequential_batch``). Warns once per primitive and vmap."""
    warned = trace.__dict__.setdefault("_no_rule_warned", set())
    if prim not in warned:
        warned.add(prim)
        warnings.warn(f"primitive {prim.name!r} has no batching rule; vmap runs it in a "
                      f"sequential loop over the {trace.axis_size} lanes of the batch",
                      RuntimeWarning, stacklevel=5)
    return sequential_batch(prim, vals, dims, params)


def sequential_batch(prim, vals, dims, params):
    """The batching rule 'one lane at a time': a scan whose body applies ``prim`` to one lane
    of each batched operand. Outputs have the batch axis at 0."""
    idx = [i for i, d in enumerate(dims) if d is not None]
    xs = [moveaxis(vals[i], dims[i], 0) for i in idx]

    def body(*lane):
        full = list(vals)
        for i, x in zip(idx, lane, strict=True):
            full[i] = x
        out = prim.bind(*full, **params)
        return list(out) if prim.multiple_results else [out]

    ys = scan_lanes(body, xs)
    if prim.multiple_results:
        return ys, [0] * len(ys)
    return ys[0], 0


batching.set_fallback(batch_fallback)

__all__ = ["vmap", "chunked_vmap", "chunked_map", "batch_fallback", "sequential_batch",
           "BatchTracer"]
