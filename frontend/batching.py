"""The batching trace: the core of vmap.

A BatchTracer holds a value of the enclosing trace whose batch axis is at ``bdim`` (None:
not batched). Binding a primitive with some batched operand calls the primitive's batching
rule, ``rule(batched_args, batch_dims, **params) -> (out, out_dim)``, under the enclosing
trace. A primitive without a rule goes to the fallback installed with ``set_fallback`` (the
sequential loop of frontend.vectorize), so this module needs no primitive.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .core import Aval, Trace, Tracer, _trace_var, aval_of, escaped_tracer_error, new_trace


class BatchTracer(Tracer):
    __slots__ = ("val", "bdim", "_aval")

    def __init__(self, trace, val, bdim):
        self._trace = trace
        self.val = val
        self.bdim = bdim
        self._aval = None

    @property
    def aval(self):
        """The per-example aval (made when first asked for)."""
        a = self._aval
        if a is None:
            a = aval_of(self.val)
            d = self.bdim
            if d is not None:
                a = Aval(a.shape[:d] + a.shape[d + 1:], a.dtype, a.weak_type)
            self._aval = a
        return a

    def __repr__(self):
        return f"BatchTracer<{self.aval.str_short()}, bdim={self.bdim}>"


_fallback: Callable | None = None


def set_fallback(fn) -> None:
    """Install ``fn(trace, prim, vals, dims, params) -> (out, out_dim)``, used for primitives
    without a batching rule."""
    global _fallback
    _fallback = fn


class BatchTrace(Trace):
    def __init__(self, parent, axis_size: int):
        super().__init__(parent)
        self.axis_size = axis_size

    def process(self, prim, args, params):
        vals, dims = [], []
        for a in args:
            if type(a) is BatchTracer and a._trace is self:
                vals.append(a.val)
                dims.append(a.bdim)
            else:
                if isinstance(a, Tracer) and not a._trace.is_ancestor_of(self):
                    raise escaped_tracer_error(a)
                vals.append(a)
                dims.append(None)
        token = _trace_var.set(self.parent)  # the rule computes with the enclosing trace
        try:
            if dims.count(None) == len(dims):
                return prim.bind(*vals, **params)
            rule = prim.batching_rule
            if rule is not None:
                out, out_dim = rule(tuple(vals), tuple(dims), **params)
            else:
                if _fallback is None:
                    raise NotImplementedError(f"primitive {prim.name!r} has no batching rule")
                out, out_dim = _fallback(self, prim, tuple(vals), tuple(dims), params)
        finally:
            _trace_var.reset(token)
        if prim.multiple_results:
            return [BatchTracer(self, o, _check_dim(prim, o, d))
                    for o, d in zip(out, out_dim, strict=True)]
        return BatchTracer(self, out, _check_dim(prim, out, out_dim))


def _check_dim(prim, out, d):
    """The rule's out_dim, checked (a user's rule may return anything)."""
    if d is None or (type(d) is int and 0 <= d < len(aval_of(out).shape)):
        return d
    raise ValueError(f"the batching rule of primitive {prim.name!r} returned out_dim={d!r} for "
                     f"a result of shape {shape(out)}: it must be None (not batched) or an axis "
                     f"of the result, in [0, {ndim(out)})")


def batch_fun(fun, axis_size: int, args, in_dims) -> tuple:
    """Run ``fun`` (flat values in, flat list out) with ``args[i]`` batched at ``in_dims[i]``
    (None: not batched). Returns (values, batch dims) of the outputs, values of the enclosing
    trace; an output that does not depend on a batched input has dim None."""
    with new_trace(BatchTrace, axis_size) as tr:
        tracers = [BatchTracer(tr, a, d) if d is not None else a for a, d in zip(args, in_dims)]
        outs = fun(*tracers)
    vals, dims = [], []
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


def ndim(x) -> int:
    a = getattr(x, "aval", None)
    return len(a.shape) if a is not None else np.ndim(x)


def shape(x) -> tuple:
    a = getattr(x, "aval", None)
    return a.shape if a is not None else np.shape(x)


def axis_size(args, dims) -> int:
    """The size of the batch axis, read off the first batched argument."""
    for a, d in zip(args, dims):
        if d is not None:
            return shape(a)[d]
    raise ValueError("axis_size: no argument is batched")


def moved_shape(shp, src: int, dst: int) -> tuple:
    """The shape after moving axis ``src`` to ``dst``."""
    shp = list(shp)
    shp.insert(dst, shp.pop(src))
    return tuple(shp)
