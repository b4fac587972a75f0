"""Loops over the batch: bounded-memory vmap (``vmap(..., batch_size=k)``), ``lax.map`` with
``batch_size``, and the sequential fallback that batches a primitive without a batching rule.

Each runs ``k`` lanes at a time through one loop (a scan: one stablehlo.while) and vmaps
inside a chunk; when k does not divide the length, the remainder is one more vmapped piece
after the loop. Results are the same for every k.
"""
from __future__ import annotations

import warnings

from .batching import moveaxis
from .tree import broadcast_prefix, tree_flatten, tree_unflatten


def _shape(x):
    import numpy as np
    return x.aval.shape if hasattr(x, "aval") else np.shape(x)


def _check_batch_size(batch_size, what):
    import numpy as np
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"{what} batch_size must be a positive integer, got {batch_size!r}")
    return int(batch_size)


def _leading(x, n):
    """x[:n] along axis 0 (no op when n is the whole axis)."""
    return x if _shape(x)[0] == n else x[:n]


def _chunks(x, n_full, k):
    """The first n_full*k rows of x as (n_full, k, ...)."""
    from .primitives.shape import reshape
    x = _leading(x, n_full * k)
    return reshape(x, (n_full, k) + tuple(_shape(x)[1:]))


def _map_chunked(flat_fun, mapped, size, k):
    """flat_fun vmapped over axis 0 of every array in ``mapped`` (lists of outputs, batch axis
    0), k lanes at a time: a scan over the full chunks, then one vmapped remainder."""
    from .api import vmap
    from .primitives.control import scan
    from .primitives.shape import reshape
    inner = vmap(flat_fun)
    if k >= size:
        return inner(*mapped)
    n_full, rem = divmod(size, k)
    xs = tuple(_chunks(x, n_full, k) for x in mapped)
    _, ys = scan(lambda c, xc: (c, inner(*xc)), (), xs)
    ys = [reshape(y, (n_full * k,) + tuple(_shape(y)[2:])) for y in ys]
    if rem:
        from .numpy import concatenate
        tail = inner(*[x[n_full * k:] for x in mapped])
        ys = [concatenate([y, t], axis=0) for y, t in zip(ys, tail)]
    return ys


def chunked_vmap(fun, in_axes, out_axes, size, batch_size, args, kwargs):
    """``vmap(fun, in_axes, out_axes)(*args, **kwargs)`` computed ``batch_size`` lanes at a
    time through a loop (bounded memory), identical results for every batch size."""
    k = _check_batch_size(batch_size, "vmap")
    leaves, td = tree_flatten((args, kwargs))
    spec = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    axes = broadcast_prefix((spec, {key: 0 for key in kwargs}), td, "vmap in_axes")
    mapped_idx = [i for i, a in enumerate(axes) if a is not None]
    mapped = []
    for i in mapped_idx:
        nd = len(_shape(leaves[i]))
        mapped.append(moveaxis(leaves[i], axes[i] % nd, 0))
    box = []

    def flat_fun(*xs):
        full = list(leaves)
        for i, x in zip(mapped_idx, xs):
            full[i] = x
        a, kw = tree_unflatten(td, full)
        outs, otd = tree_flatten(fun(*a, **kw))
        box.append(otd)
        return outs

    ys = _map_chunked(flat_fun, mapped, size, k)
    otd = box[-1]
    oaxes = broadcast_prefix(out_axes, otd, "vmap out_axes")
    if any(ax is None for ax in oaxes):
        # out_axes=None promises an unbatched output: let an (untransformed) vmap trace check
        # it, which raises vmap's own error for a batched one
        from .api import make_graph, vmap
        make_graph(vmap(fun, in_axes, out_axes))(*args, **kwargs)
    res = []
    for y, ax in zip(ys, oaxes):
        if ax is None:
            res.append(y[0])
        else:
            nd = len(_shape(y))
            res.append(moveaxis(y, 0, ax % nd))
    return tree_unflatten(otd, res)


def chunked_map(f, xs, batch_size):
    """``lax.map(f, xs, batch_size=k)``: a loop over chunks of k, vmapped inside a chunk."""
    k = _check_batch_size(batch_size, "map")
    leaves, td = tree_flatten(xs)
    if not leaves:
        raise ValueError("map got no values to map over")
    size = _shape(leaves[0])[0]
    box = []

    def flat_fun(*ls):
        outs, otd = tree_flatten(f(tree_unflatten(td, ls)))
        box.append(otd)
        return outs

    ys = _map_chunked(flat_fun, leaves, size, k)
    return tree_unflatten(box[-1], ys)


# ----------------------------------------------------------------------------- no batching rule


def batch_fallback(trace, prim, vals, dims, params):
    """Batch ``prim`` (which has no batching rule) by a sequential loop over the lanes: a scan
    whose body applies the primitive to one lane of each batched operand. Outputs have the
    batch axis at 0. Warns once per primitive and vmap."""
    warned = trace.__dict__.setdefault("_no_rule_warned", set()) if hasattr(trace, "__dict__") else set()
    if prim.name not in warned:
        warned.add(prim.name)
        warnings.warn(f"primitive {prim.name!r} has no batching rule; vmap runs it in a "
                      f"sequential loop over the {trace.axis_size} lanes of the batch",
                      RuntimeWarning, stacklevel=4)
    from .primitives.control import scan
    idx = [i for i, d in enumerate(dims) if d is not None]
    xs = tuple(moveaxis(vals[i], dims[i], 0) for i in idx)

    def body(c, lane):
        full = list(vals)
        for i, x in zip(idx, lane):
            full[i] = x
        out = prim.bind(*full, **params)
        return c, (list(out) if prim.multiple_results else out)

    _, ys = scan(body, (), xs)
    if prim.multiple_results:
        return ys, [0] * len(ys)
    return ys, 0


__all__ = ["chunked_vmap", "chunked_map", "batch_fallback"]
