"""Linearize by partial evaluation: the JVP trace runs with a ``LinearizeTrace`` as its
parent. Tangent inputs are arguments of that trace, so everything computed from them (the
tangent half of every jvp rule) is recorded into a graph, while a primitive none of whose
operands is recorded (the primal half) is handed on to the enclosing trace and runs there.
The recorded graph is linear in its arguments; the primal values it reads (residuals) are
its constvars, values of the enclosing trace.

    primal outputs, Linearized = linearize_fun(f, primals, nonzero)
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.ir import (
    Aval,
    Graph,
    GraphTrace,
    GraphTracer,
    Primitive,
    Trace,
    aval_of,
    new_trace,
    reset_current,
    set_current,
)
from .ad_util import Zero, tangent_aval
from .jvp import jvp_fun


class LinearizeTrace(GraphTrace):
    """A graph trace that records only equations reading one of its own values."""

    parent: Trace  # (never the root)

    def process(self, prim: Primitive, args: Sequence[Any], params: dict[str, Any]) -> Any:
        for a in args:
            if type(a) is GraphTracer and a._trace is self:
                return GraphTrace.process(self, prim, args, params)
        token = set_current(self.parent)  # (a local token: the parent may be the eager trace)
        try:
            return prim.bind(*args, **params)
        finally:
            reset_current(token)

    def const(self, x: Any, weak: bool = False) -> Any:
        # a constant is known: a value of the enclosing trace, not of the linear graph
        return self.parent.const(x, weak)


@dataclass(frozen=True, eq=False)
class Linearized:
    """The linear map of a linearization: ``graph`` takes the nonzero input tangents and
    returns the nonzero output tangents (its constvars/consts are the residuals);
    ``in_nonzero``/``out_nonzero`` say which inputs/outputs have a tangent at all, and
    ``out_tangent_avals`` gives every output's tangent aval."""

    graph: Graph
    in_nonzero: tuple[bool, ...]
    out_nonzero: tuple[bool, ...]
    out_tangent_avals: tuple[Aval, ...]


def linearize_fun(fun: Callable[..., Sequence[Any]], primals: Sequence[Any], nonzero: Sequence[bool],
                  instantiate: bool | Sequence[bool] = False,
                  zeros: Callable[[Aval], Any] | None = None) -> tuple[list[Any], Linearized]:
    """``fun`` (flat values in, flat list out) at ``primals``, differentiated with respect to
    the inputs where ``nonzero[i]``. Returns (primal outputs, Linearized). ``instantiate``
    (a bool or one per output) gives an output with a zero tangent an explicit zero tangent
    ``zeros(aval)`` (a value the enclosing trace computes, hence a residual)."""
    with new_trace(LinearizeTrace) as lin:
        t_in = [lin.new_arg(tangent_aval(aval_of(p))) for p, nz in zip(primals, nonzero, strict=True) if nz]
        it = iter(t_in)
        tangents = [next(it) if nz else Zero(tangent_aval(aval_of(p)))
                    for p, nz in zip(primals, nonzero, strict=True)]
        p_out, t_out = jvp_fun(fun, primals, tangents)
        inst = instantiate if isinstance(instantiate, (list, tuple)) else [instantiate] * len(t_out)
        out_nz = tuple(type(t) is not Zero or bool(i) for t, i in zip(t_out, inst, strict=True))
        if zeros is not None:
            t_out = [zeros(t.aval) if type(t) is Zero and nz else t
                     for t, nz in zip(t_out, out_nz, strict=True)]
        elif any(type(t) is Zero and nz for t, nz in zip(t_out, out_nz, strict=True)):
            raise ValueError("linearize_fun: instantiating a zero output tangent needs zeros(aval), "
                             "the function that makes one")
    graph = lin.to_graph(t_in, [t for t, nz in zip(t_out, out_nz, strict=True) if nz])
    return p_out, Linearized(graph, tuple(bool(n) for n in nonzero), out_nz,
                             tuple(tangent_aval(aval_of(o)) for o in p_out))
