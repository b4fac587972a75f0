"""vmap over a ragged batch: examples whose lengths differ along some axes.

The batch is padded: along each ragged axis every example has the padded length, and the
lane's own length says how much of it is data. A ``RaggedTracer`` is a BatchTracer that also
knows its ragged axes (``raxes``, per-example numbering) and the ``lengths`` (a value of the
enclosing trace, int32, one per lane). Invariant: along a ragged axis, the positions at or
past the lane's length hold padding of any value (possibly NaN); only a rule that knows it
may let a result depend on them.

``RaggedBatchTrace`` binds a primitive with no ragged operand as the dense BatchTrace does
(the same code, no cost). One with a ragged operand goes through the primitive's ragged rule
(``Primitive.def_ragged``), ``rule(args, raxes, lane_length, **params) -> (out, out_raxes)``,
written for ONE example like user code: ``args`` are the operands as plain per-example values
of this trace, ``raxes[i]`` the ragged axes of operand i (a tuple, () when dense),
``lane_length`` the lane's length (a per-example int32 scalar). The rule masks what must not
see padding (binding ordinary primitives, which the batching rules batch) and says which axes
of the result are ragged (lists for multiple results). A primitive without a ragged rule
raises RaggedError naming it: its result would see the padding.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from ..core.ir import Aval, Primitive, Tracer, new_trace
from .batching import BatchTrace, BatchTracer

_I32 = np.dtype(np.int32)


class RaggedError(ValueError):
    """An operation vmap cannot make ragged-safe (its result would see the padding)."""


class RaggedTracer(BatchTracer):
    """A batched value with ragged axes ``raxes`` (per-example axes) of lengths ``lengths``."""

    __slots__ = ("raxes", "lengths")

    def __init__(self, trace: RaggedBatchTrace, val: Any, bdim: int, aval: Aval,
                 raxes: tuple[int, ...], lengths: Any) -> None:
        super().__init__(trace, val, bdim, aval)
        self.raxes = raxes
        self.lengths = lengths

    def __repr__(self) -> str:
        return f"RaggedTracer<{self.aval.str_short()}, bdim={self.bdim}, ragged axes={self.raxes}>"


class RaggedBatchTrace(BatchTrace):
    """The batching trace of a vmap that has a ragged argument."""

    def __init__(self, parent: Any, axis_size: int, axis_name: Hashable | None = None,
                 spmd_axis_name: tuple[Hashable, ...] | None = None) -> None:
        super().__init__(parent, axis_size, axis_name, spmd_axis_name)
        self._lane_lengths: dict[int, tuple[Any, BatchTracer]] = {}
        self.masks: dict[Any, Any] = {}  # the rules' padding masks, made once per shape

    def lane_length(self, lengths: Any) -> BatchTracer:
        """The lane's length: a per-example int32 scalar of this trace (one per lengths)."""
        hit = self._lane_lengths.get(id(lengths))
        if hit is None:
            hit = (lengths, BatchTracer(self, lengths, 0))
            self._lane_lengths[id(lengths)] = hit
        return hit[1]

    def process(self, prim: Primitive, args: Sequence[Any], params: dict[str, Any]) -> Any:
        lengths = None
        for a in args:
            if type(a) is RaggedTracer and a._trace is self:
                if lengths is None:
                    lengths = a.lengths
                elif a.lengths is not lengths:
                    raise RaggedError(
                        f"vmap over a ragged batch: primitive {prim.name!r} got ragged operands "
                        "with different lengths; ragged values combined in one operation must "
                        "share their lengths (make them with one frontend.ragged.stack, or "
                        "from_padded with the same lengths array)")
        if lengths is None:
            return super().process(prim, args, params)
        rule = prim.ragged_rule
        if rule is None:
            raise unsupported(prim, args, "it has no ragged rule")
        plain, raxes = [], []
        for a in args:
            if type(a) is RaggedTracer and a._trace is self:
                plain.append(BatchTracer(self, a.val, a.bdim, a.aval))
                raxes.append(a.raxes)
            else:
                plain.append(a)
                raxes.append(())
        out, out_raxes = rule(plain, tuple(raxes), self.lane_length(lengths), **params)
        if prim.multiple_results:
            return [self._ragged(prim, o, r, lengths) for o, r in zip(out, out_raxes, strict=True)]
        return self._ragged(prim, out, out_raxes, lengths)

    def _ragged(self, prim: Primitive, out: Any, raxes: tuple[int, ...], lengths: Any) -> Any:
        if not raxes:
            return out
        if not (isinstance(out, BatchTracer) and out._trace is self and out.bdim is not None):
            raise ValueError(f"the ragged rule of primitive {prim.name!r} marked a result that "
                             "is not batched as ragged")
        return RaggedTracer(self, out.val, out.bdim, out.aval, tuple(sorted(raxes)), lengths)


def with_raxes(x: Any, raxes: tuple[int, ...], lane_length: BatchTracer) -> Any:
    """The plain per-example ``x`` a ragged rule got, ragged again along ``raxes`` (with the
    lengths behind ``lane_length``): for rules that re-bind a call's equations one by one."""
    if not raxes:
        return x
    return RaggedTracer(x._trace, x.val, x.bdim, x.aval, raxes, lane_length.val)


def unsupported(prim: Primitive, args: Sequence[Any], why: str) -> RaggedError:
    """The error for a primitive that cannot take a ragged operand (``why``: the reason)."""
    where = ", ".join(f"operand {i} ({a.aval.str_short()}) along axis "
                      + "/".join(map(str, a.raxes))
                      for i, a in enumerate(args) if type(a) is RaggedTracer)
    return RaggedError(
        f"vmap over a ragged batch: primitive {prim.name!r} cannot take a ragged operand "
        f"({where}): {why}, so its result would see the padding past each example's length. "
        "See docs/ragged.md for the supported operations.")


def batch_fun_ragged(fun: Callable[..., Sequence[Any]], axis_size: int, args: Sequence[Any],
                     in_dims: Sequence[int | None], ragged: Sequence[tuple[tuple[int, ...], Any] | None],
                     axis_name: Hashable | None = None,
                     spmd_axis_name: tuple[Hashable, ...] | None = None) -> tuple[Any, Any, Any]:
    """``batching.batch_fun`` where ``ragged[i]`` is None (a dense argument) or (ragged axes
    in per-example numbering, lengths) for argument i (batched at ``in_dims[i]``). Returns
    (values, batch dims, (ragged axes, lengths) or None) of the outputs."""
    with new_trace(RaggedBatchTrace, axis_size, axis_name, spmd_axis_name) as tr:
        tracers = []
        for a, d, r in zip(args, in_dims, ragged, strict=True):
            if d is None:
                tracers.append(a)
            elif r is None:
                tracers.append(BatchTracer(tr, a, d))
            else:
                t = BatchTracer(tr, a, d)
                tracers.append(RaggedTracer(tr, a, d, t.aval, r[0], r[1]))
        outs = fun(*tracers)
    vals, dims, rag = [], [], []
    for o in outs:
        if isinstance(o, BatchTracer) and o._trace is tr:
            vals.append(o.val)
            dims.append(o.bdim)
            rag.append((o.raxes, o.lengths) if type(o) is RaggedTracer else None)
        else:
            vals.append(o)
            dims.append(None)
            rag.append(None)
    return vals, dims, rag


def _ragged_axis(x: Any, axis: int | None) -> tuple[RaggedTracer | None, int | None]:
    """The RaggedTracer behind ``x`` and where ``axis`` of ``x`` is in it: through tracers of
    traces above it (a JVP tracer's primal; a dense vmap's value, its batch axis skipped).
    (None, None) when there is none."""
    while isinstance(x, Tracer):
        if type(x) is RaggedTracer:
            return x, axis
        if isinstance(x, BatchTracer):
            if axis is not None and x.bdim is not None and x.bdim <= axis:
                axis += 1
            x = x.val
        else:
            x = getattr(x, "primal", None)
    return None, None


def _shape(x: Any) -> tuple[int, ...]:
    return x.aval.shape if isinstance(x, Tracer) or hasattr(x, "aval") else np.shape(x)


def axis_length(x: Any, axis: int) -> Any:
    """The length of ``x`` along ``axis`` as one example sees it: under a vmap over a ragged
    batch, along a ragged axis, the lane's own length (a traced int32 scalar); else the size
    of the axis (a Python int)."""
    shape = _shape(x)
    axis = axis % len(shape) if shape else axis
    t, a = _ragged_axis(x, axis)
    if t is not None and a in t.raxes:
        trace = t._trace
        assert isinstance(trace, RaggedBatchTrace)
        return trace.lane_length(t.lengths)
    return shape[axis]


def is_ragged(x: Any, axis: int | None = None) -> bool:
    """Whether ``x`` is ragged (along ``axis``, when given) under a vmap over a ragged batch."""
    if axis is not None:
        shape = _shape(x)
        axis = axis % len(shape) if shape else axis
    t, a = _ragged_axis(x, axis)
    return t is not None and (axis is None or a in t.raxes)


def ragged_axes(x: Any) -> tuple[int, ...]:
    """The ragged axes of a value of a vmap over a ragged batch (its own tracer)."""
    return x.raxes if type(x) is RaggedTracer else ()
