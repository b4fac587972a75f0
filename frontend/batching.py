"""vmap: the batching trace and the helpers batching rules share.

A BatchTracer holds a value with the batch axis at ``bdim`` (None: not batched). A rule
``prim.batch(axis_size, args, dims, **params)`` runs under the parent trace and returns
``(out, out_dim)`` (lists of both for multi-output primitives).
"""
from __future__ import annotations

import numpy as np

from .core import PRIMITIVES, Aval, Literal, Trace, Tracer, current_trace, escaped_tracer_error


class BatchTracer(Tracer):
    __slots__ = ("val", "bdim", "_aval")

    def __init__(self, trace, val, bdim):
        self._trace = trace
        self.val = val
        self.bdim = bdim
        a = val.aval if hasattr(val, "aval") else _aval(val)
        if bdim is not None:
            a = Aval(a.shape[:bdim] + a.shape[bdim + 1:], a.dtype, a.weak_type)
        self._aval = a

    @property
    def aval(self):
        return self._aval

    def __repr__(self):
        return f"BatchTracer<{self._aval.str_short()}, bdim={self.bdim}>"


def _aval(x):
    from .core import aval_of
    return aval_of(x)


class BatchTrace(Trace):
    def __init__(self, parent, axis_size: int):
        super().__init__(parent)
        self.axis_size = axis_size

    def process(self, prim, args, params):
        vals, dims = [], []
        for a in args:
            if isinstance(a, BatchTracer) and a._trace is self:
                vals.append(a.val)
                dims.append(a.bdim)
            else:
                if isinstance(a, Tracer) and not a._trace.is_ancestor_of(self):
                    raise escaped_tracer_error(a)
                vals.append(a)
                dims.append(None)
        with self.parent:
            if all(d is None for d in dims):
                return prim.bind(*vals, **params)
            if prim.has_batch_rule():
                out, out_dim = prim.batch(self.axis_size, tuple(vals), tuple(dims), **params)
            else:  # generic fallback: a sequential loop over the lanes (frontend.control)
                from .control import batch_fallback
                out, out_dim = batch_fallback(self, prim, tuple(vals), tuple(dims), params)
        if prim.multiple_results:
            return [BatchTracer(self, o, d) for o, d in zip(out, out_dim, strict=True)]
        return BatchTracer(self, out, out_dim)


# ----------------------------------------------------------------------------- rule helpers
# Each runs under the current (parent) trace and binds ordinary primitives.


def _p(name):
    return PRIMITIVES[name]


def ndim(x) -> int:
    return len(x.aval.shape) if hasattr(x, "aval") else np.ndim(x)


def shape(x) -> tuple:
    return x.aval.shape if hasattr(x, "aval") else np.shape(x)


def moveaxis(x, src: int, dst: int):
    """Move axis ``src`` of x to ``dst`` with one transpose (none when src == dst)."""
    if src == dst:
        return x
    perm = [i for i in range(ndim(x)) if i != src]
    perm.insert(dst, src)
    return _p("transpose").bind(x, permutation=tuple(perm))


def bdim_at(x, d, size: int, dst: int = 0):
    """x with its batch axis at ``dst``; an unbatched x (d None) is broadcast to the batch."""
    if d is None:
        shp = shape(x)
        out_shape = shp[:dst] + (size,) + shp[dst:]
        dims = tuple(i if i < dst else i + 1 for i in range(len(shp)))
        return _p("broadcast_in_dim").bind(x, shape=out_shape, broadcast_dimensions=dims)
    return moveaxis(x, d, dst)


def bdim_to_front(x, d, size: int):
    return bdim_at(x, d, size, 0)


def vectorized_batch(prim, axis_size, args, dims, **params):
    """Batching rule of an elementwise n-ary primitive. Operands of full per-example rank
    share one batch axis: the first such batched operand's (others are moved only where they
    differ; unbatched ones are broadcast along it, as StableHLO elementwise ops take equal
    shapes). Unbatched scalars stay scalars; batched scalars are broadcast over the rest.
    The batch axis ends up where the first full-rank batched operand had it (else 0)."""
    ranks = [ndim(a) - (d is not None) for a, d in zip(args, dims, strict=True)]
    r = max(ranks)
    d0 = next((d for d, k in zip(dims, ranks) if d is not None and k == r), 0)
    full = None
    for a, d, k in zip(args, dims, ranks):
        if d is not None and k == r:
            full = moved_shape(shape(a), d, d0)
            break
    if full is None:  # only batched scalars: the batch shape comes from an unbatched array
        ref = next((a for a, k in zip(args, ranks) if k == r), None)
        s = list(shape(ref)) if r else []
        s.insert(d0, axis_size)
        full = tuple(s)
    new = []
    for a, d, k in zip(args, dims, ranks):
        if d is None:
            new.append(a if k == 0 else bdim_at(a, None, axis_size, d0))
        elif k == 0 and r > 0:
            new.append(_p("broadcast_in_dim").bind(a, shape=full, broadcast_dimensions=(d0,)))
        else:
            new.append(moveaxis(a, d, d0))
    return prim.bind(*new, **params), d0


def moved_shape(shp, src: int, dst: int) -> tuple:
    """The shape after moveaxis(src, dst)."""
    shp = list(shp)
    shp.insert(dst, shp.pop(src))
    return tuple(shp)


def broadcast_batched_scalar(x, d, target_shape, target_bdim):
    return _p("broadcast_in_dim").bind(x, shape=tuple(target_shape), broadcast_dimensions=(target_bdim,))


def is_literal(x) -> bool:
    return isinstance(x, (Literal, bool, int, float, complex))


def current_is(trace_cls) -> bool:
    return isinstance(current_trace(), trace_cls)
