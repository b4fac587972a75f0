"""The JVP trace: forward-mode differentiation, built like the batching trace.

A JVPTracer carries a primal value of the enclosing trace and its tangent (never a symbolic
zero: a value whose tangent is zero is not wrapped at all). Binding a primitive with some
nonzero tangent calls the primitive's jvp rule, JAX's signature
``rule(primals, tangents, **params) -> (primal_out, tangent_out)``, under the enclosing
trace; ``tangents[i]`` is a ``Zero`` (frontend.interpreters.ad_util) where operand i has none, and the
rule may return ``Zero`` tangents (lists of both for ``multiple_results``). When every
tangent is zero the primitive is just bound on the primals, so untouched values cost
nothing.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..core.ir import (
    Primitive,
    Trace,
    Tracer,
    aval_of,
    escaped_tracer_error,
    new_trace,
    reset_current,
    set_current,
)
from .ad_util import Zero, zero_of
from .named_axes import check_vma_body


class JVPTracer(Tracer):
    __slots__ = ("primal", "tangent", "aval")

    def __init__(self, trace: JVPTrace, primal: Any, tangent: Any) -> None:
        self._trace = trace
        self.primal = primal
        self.tangent = tangent
        self.aval = aval_of(primal)

    def __repr__(self) -> str:
        return f"JVPTracer<{self.aval.str_short()}>"


class JVPTrace(Trace):
    parent: Trace  # (never the root)

    def process(self, prim: Primitive, args: Sequence[Any], params: dict[str, Any]) -> Any:
        primals: list[Any] = []
        tangents: list[Any] = []
        nonzero = False
        for a in args:
            if type(a) is JVPTracer and a._trace is self:
                primals.append(a.primal)
                tangents.append(a.tangent)
                nonzero = True
            else:
                if isinstance(a, Tracer) and not a._trace.is_ancestor_of(self):
                    raise escaped_tracer_error(a)
                primals.append(a)
                tangents.append(None)
        token = set_current(self.parent)  # (a local token: the parent may be the eager trace)
        try:
            if not nonzero:
                return prim.bind(*primals, **params)
            rule = prim.jvp_rule
            if rule is None:
                raise NotImplementedError(f"Differentiation rule for '{prim.name}' not implemented")
            for i, t in enumerate(tangents):
                if t is None:
                    tangents[i] = zero_of(aval_of(primals[i]))
            out, tout = rule(tuple(primals), tuple(tangents), **params)
        finally:
            reset_current(token)
        if prim.multiple_results:
            return [self.wrap(o, t) for o, t in zip(out, tout, strict=True)]
        return self.wrap(out, tout)

    def wrap(self, primal: Any, tangent: Any) -> Any:
        return primal if type(tangent) is Zero else JVPTracer(self, primal, tangent)


def jvp_fun(fun: Callable[..., Sequence[Any]], primals: Sequence[Any],
            tangents: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """Run ``fun`` (flat values in, flat list out) on ``primals`` with ``tangents`` (``Zero``
    where there is none). Returns (primal outputs, tangent outputs), values of the enclosing
    trace; an output that does not depend on a nonzero tangent has a ``Zero`` tangent."""
    if check_vma_body():
        raise NotImplementedError(
            "Differentiating inside the body of a shard_map with check_vma=True is not "
            "supported: there JAX types values by the mesh axes they vary over and sums the "
            "gradient of a value replicated over some of them across those devices, which "
            "vmaplab does not do. Pass check_vma=False to shard_map (derivatives inside are "
            "then each device's own, as JAX's with check_vma=False), or differentiate the "
            "whole shard_map from outside.")
    with new_trace(JVPTrace) as tr:
        ins = [p if type(t) is Zero else JVPTracer(tr, p, t) for p, t in zip(primals, tangents,
                                                                         strict=True)]
        outs = fun(*ins)
    p_out: list[Any] = []
    t_out: list[Any] = []
    for o in outs:
        if type(o) is JVPTracer and o._trace is tr:
            p_out.append(o.primal)
            t_out.append(o.tangent)
        else:
            p_out.append(o)
            t_out.append(zero_of(aval_of(o)))
    return p_out, t_out
