"""The batching trace: the core of vmap.

A BatchTracer holds a value of the enclosing trace whose batch axis is at ``bdim`` (None:
not batched). Binding a primitive with some batched operand calls the primitive's batching
rule, ``rule(batched_args, batch_dims, **params) -> (out, out_dim)``, under the enclosing
trace. A primitive without a rule goes to the fallback installed with ``set_fallback`` (the
sequential loop of frontend.transforms.vmap), so this module needs no primitive.

A named vmap (``vmap(f, axis_name='i')``) binds its name for collectives (see
frontend.interpreters.named_axes): it runs the batching rule of a primitive that uses its
axis even when no operand is batched there, and a rule reads the name and size of the trace
running it with ``rule_axis()``. ``vmap(spmd_axis_name=...)`` records the mesh axes its batch
axis is sharded over (``BatchTrace.spmd_axis_name``), read by the sharding primitives' rules.
"""
from __future__ import annotations

import contextvars
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from ..core.ir import (
    EVAL,
    Aval,
    GraphTracer,
    Primitive,
    Trace,
    Tracer,
    _trace_var,
    aval_of,
    escaped_tracer_error,
    new_trace,
)
from .named_axes import (
    AxisBinder,
    uses_axis,
)


class BatchTracer(Tracer):
    """``aval``: the per-example aval (``val``'s without the batch axis ``bdim``)."""

    __slots__ = ("val", "bdim", "aval")

    def __init__(self, trace: BatchTrace, val: Any, bdim: int | None, aval: Aval | None = None) -> None:
        self._trace = trace
        self.val = val
        self.bdim = bdim
        if aval is None:  # (a caller that checked bdim against val's aval passes the result)
            aval = aval_of(val)
            aval = aval if bdim is None else per_example_aval(aval, bdim)
        self.aval = aval

    def __repr__(self) -> str:
        return f"BatchTracer<{self.aval.str_short()}, bdim={self.bdim}>"


_PER_EXAMPLE: dict[tuple[Aval, int], Aval] = {}  # (batched aval, bdim) -> per-example aval (avals are interned)


def per_example_aval(a: Aval, bdim: int) -> Aval:
    """``a`` without its axis ``bdim``."""
    key = (a, bdim)
    out = _PER_EXAMPLE.get(key)
    if out is None:
        s = a.shape
        out = Aval(s[:bdim] + s[bdim + 1:], a.dtype, a.weak_type)
        if len(_PER_EXAMPLE) > 100_000:
            _PER_EXAMPLE.clear()
        _PER_EXAMPLE[key] = out
    return out


# fn(trace, prim, vals, dims, params) -> (out, out_dim)
Fallback = Callable[["BatchTrace", Primitive, tuple[Any, ...], tuple[int | None, ...], dict[str, Any]],
                    tuple[Any, Any]]
_fallback: Fallback | None = None


def set_fallback(fn: Fallback) -> None:
    """Install ``fn(trace, prim, vals, dims, params) -> (out, out_dim)``, used for primitives
    without a batching rule."""
    global _fallback
    _fallback = fn


# The BatchTrace whose batching rule is running (read by rules with rule_axis()). A rule
# computes with the parent trace current, so the parent holds it (``_batch_rule``): a trace
# belongs to the thread that made it, and an attribute costs a fraction of a context variable
# on this per-equation path. The eager trace is every thread's, so for a vmap of eager code
# the context variable holds it.
_rule_trace: contextvars.ContextVar[BatchTrace | None] = contextvars.ContextVar("vmaplab_batch_rule", default=None)


class BatchTrace(AxisBinder, Trace):
    """``spmd_axis_name``: the mesh axes (a tuple of names) the batch axis is sharded over
    where a sharding is given inside (vmap's ``spmd_axis_name``), or None. ``lane_mask``: a
    bool[axis_size] value of the parent trace, the lanes whose results count (None: all)."""

    parent: Trace  # (never the root)

    def __init__(self, parent: Trace, axis_size: int, axis_name: Hashable | None = None,
                 spmd_axis_name: tuple[Hashable, ...] | None = None, lane_mask: Any = None) -> None:
        super().__init__(parent)
        self.axis_size = axis_size
        self.axis_name = axis_name
        self.spmd_axis_name = spmd_axis_name
        self.lane_mask = lane_mask

    def bound_axis_size(self, name: Hashable) -> int | None:
        return self.axis_size if self.axis_name is not None and self.axis_name == name else None

    def bound_axis_names(self) -> tuple[Hashable, ...]:
        return () if self.axis_name is None else (self.axis_name,)

    def process(self, prim: Primitive, args: Sequence[Any], params: dict[str, Any]) -> Any:
        vals: list[Any] = []
        dims: list[int | None] = []
        batched = False
        for a in args:
            if type(a) is BatchTracer and a._trace is self:
                vals.append(a.val)
                dims.append(a.bdim)
                batched = batched or a.bdim is not None
            else:
                if isinstance(a, Tracer) and not a._trace.is_ancestor_of(self):
                    raise escaped_tracer_error(a)
                vals.append(a)
                dims.append(None)
        rule = prim.batching_rule
        token = _trace_var.set(self.parent)  # the rule computes with the enclosing trace
        try:
            if not batched and (self.axis_name is None or rule is None
                                or not uses_axis(prim, params, self.axis_name)):
                return prim.bind(*vals, **params)
            parent = self.parent
            if parent is EVAL:
                rule_token = _rule_trace.set(self)
            else:
                saved, parent._batch_rule = parent._batch_rule, self
            try:
                if rule is not None:
                    out, out_dim = rule(tuple(vals), tuple(dims), **params)
                else:
                    if _fallback is None:
                        raise NotImplementedError(f"primitive {prim.name!r} has no batching rule")
                    prim.looped = True  # (a batching rule set later drops these programs)
                    out, out_dim = _fallback(self, prim, tuple(vals), tuple(dims), params)
            finally:
                if parent is EVAL:
                    _rule_trace.reset(rule_token)
                else:
                    parent._batch_rule = saved
        finally:
            _trace_var.reset(token)
        if prim.multiple_results:
            return [self._result(prim, o, d) for o, d in zip(out, out_dim, strict=True)]
        return self._result(prim, out, out_dim)

    def _result(self, prim: Primitive, out: Any, d: Any) -> BatchTracer:
        """A rule's result as a tracer, its out_dim checked (a user's rule may return
        anything)."""
        a = out.aval if type(out) is GraphTracer else aval_of(out)
        if d is None:
            return BatchTracer(self, out, None, a)
        if type(d) is int and 0 <= d < len(a.shape):
            e = _PER_EXAMPLE.get((a, d))
            return BatchTracer(self, out, d, e if e is not None else per_example_aval(a, d))
        raise _bad_out_dim(prim, out, d)


def _bad_out_dim(prim: Primitive, out: Any, d: Any) -> ValueError:
    return ValueError(f"the batching rule of primitive {prim.name!r} returned out_dim={d!r} for "
                      f"a result of shape {shape(out)}: it must be None (not batched) or an axis "
                      f"of the result, in [0, {ndim(out)})")


def batch_fun(fun: Callable[..., Sequence[Any]], axis_size: int, args: Sequence[Any],
              in_dims: Sequence[int | None], axis_name: Hashable | None = None,
              spmd_axis_name: tuple[Hashable, ...] | None = None,
              lane_mask: Any = None) -> tuple[list[Any], list[int | None]]:
    """Run ``fun`` (flat values in, flat list out) with ``args[i]`` batched at ``in_dims[i]``
    (None: not batched) over an axis named ``axis_name`` (None: anonymous), sharded over the
    mesh axes ``spmd_axis_name`` (a tuple, or None). Returns (values, batch dims) of the
    outputs, values of the enclosing trace; an output that does not depend on a batched input
    (nor on the axis through a collective) has dim None. ``lane_mask``: the lanes that run
    ``fun`` (a bool[axis_size] value of the current trace; None: all)."""
    with new_trace(BatchTrace, axis_size, axis_name, spmd_axis_name, lane_mask) as tr:
        tracers = [BatchTracer(tr, a, d) if d is not None else a for a, d in zip(args, in_dims, strict=True)]
        outs = fun(*tracers)
    vals: list[Any] = []
    dims: list[int | None] = []
    for o in outs:
        if isinstance(o, BatchTracer) and o._trace is tr:
            vals.append(o.val)
            dims.append(o.bdim)
        else:
            vals.append(o)
            dims.append(None)
    return vals, dims


# ----------------------------------------------------------------------------- rule helpers
# (helpers that bind primitives, e.g. moveaxis, live with the shape primitives)


def ndim(x: Any) -> int:
    a = aval_of(x, host=False)
    return len(a.shape) if a is not None else np.ndim(x)


def shape(x: Any) -> tuple[int, ...]:
    a = aval_of(x, host=False)
    return a.shape if a is not None else np.shape(x)


def axis_size(args: Sequence[Any], dims: Sequence[int | None]) -> int:
    """The size of the batch axis, read off the first batched argument (or, when none is,
    off the vmap whose rule is running: a collective or a loop over its named axis)."""
    for a, d in zip(args, dims, strict=True):
        if d is not None:
            return shape(a)[d]
    t = rule_axis()
    if t is not None:
        return t.axis_size
    raise ValueError("axis_size: no argument is batched")


def rule_axis() -> BatchTrace | None:
    """The vmap trace whose batching rule is running (``.axis_name``, ``.axis_size``): asked
    by the rule itself (with the trace it computes with current), not from inside a function
    the rule traces."""
    t = _trace_var.get()
    return _rule_trace.get() if t is EVAL else t._batch_rule


def lane_mask() -> Any:
    """The lanes that run the code being batched (a bool[axis_size] value of the trace the
    running rule computes with), or None when every lane does: set for a cond branch and a
    loop body under a batched predicate (``batch_fun(lane_mask=...)``)."""
    t = rule_axis()
    return None if t is None else t.lane_mask


def moved_shape(shp: Sequence[int], src: int, dst: int) -> tuple[int, ...]:
    """The shape after moving axis ``src`` to ``dst``."""
    s = list(shp)
    s.insert(dst, s.pop(src))
    return tuple(s)
