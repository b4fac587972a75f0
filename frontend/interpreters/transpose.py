"""Reverse mode and graph-level autodiff: the backward pass (transposition of a linear
graph), and the graph transforms the control-flow rules use on their sub-graphs.

- ``backward_pass(g, consts, args, cts)``: ``args[i]`` is an ``UndefinedPrimal`` for an
  input ``g`` is linear in, else its value. Equations reading only known values are
  evaluated forward; the others, in reverse order, call their primitive's transpose rule,
  JAX's signature ``rule(ct, *args, **params) -> [ct of each arg]`` (None or ``Zero`` for
  the known args; a list of cts in for ``multiple_results``). Cotangents of a value used
  several times are added.
- ``jvp_graph``: a graph computing outputs and tangents together (while loops).
- ``linearize_graph``: a primal graph computing outputs and residuals, and a linear graph
  from residuals and tangents to tangents (cond, scan: the primal half runs in the enclosing
  trace, the linear half is what reverse mode transposes).
- ``transpose_graph``: the graph of the backward pass of a linear graph (scan, cond).

This module binds add and broadcast_in_dim, so it sits with the primitives (the control-flow
rules import it).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.graph_utils import closure_convert, dce
from ..core.ir import Atom, Aval, Graph, Literal, Tracer, Var, aval_of, inline_graph, source_loc
from ..core.tracing import trace_graph
from ..primitives.elementwise import add_tangents
from ..primitives.shape import instantiate_zeros, zeros_like_aval
from .ad_util import UndefinedPrimal, Zero, tangent_aval
from .jvp import jvp_fun
from .partial_eval import linearize_fun


def backward_pass(g: Graph, consts: Sequence[Any], args: Sequence[Any],
                  cts: Sequence[Any]) -> list[Any]:
    """Cotangents of ``g``'s linear inputs (``Zero`` where none reaches them) from the
    cotangents ``cts`` of its outputs (``Zero`` allowed), under the current trace."""
    env: dict[int, Any] = {}
    linear: set[int] = set()
    for v, c in zip(g.constvars, consts, strict=True):
        env[id(v)] = c
    for v, a in zip(g.invars, args, strict=True):
        if type(a) is UndefinedPrimal:
            linear.add(id(v))
        else:
            env[id(v)] = a

    def read(x: Atom) -> Any:
        return x if type(x) is Literal else env[id(x)]

    lin_eqns = []
    for e in g.eqns:
        for x in e.inputs:
            if type(x) is Var and id(x) in linear:
                lin_eqns.append(e)
                for o in e.outs:
                    linear.add(id(o))
                break
        else:
            with source_loc(e.loc):
                out = e.prim.bind(*map(read, e.inputs), **e.params)  # known: evaluate forward
            for v, o in zip(e.outs, out if e.prim.multiple_results else (out,), strict=True):
                env[id(v)] = o
    ct_env: dict[int, Any] = {}

    def put(v: Atom, ct: Any) -> None:
        if type(ct) is Zero or ct is None:
            return
        k = id(v)
        ct_env[k] = add_tangents(ct_env[k], ct) if k in ct_env else ct

    for ov, ct in zip(g.outvars, cts, strict=True):
        if type(ov) is Var and id(ov) in linear:
            put(ov, ct)
    for e in reversed(lin_eqns):
        prim = e.prim
        if prim.multiple_results:
            outs = [ct_env.pop(id(o), None) for o in e.outs]
            if all(c is None for c in outs):
                continue
            outs = [Zero(tangent_aval(o.aval)) if c is None else c for o, c in zip(e.outs, outs, strict=True)]
        else:
            outs = ct_env.pop(id(e.outs[0]), None)
            if outs is None:
                continue
        rule = prim.transpose_rule
        if rule is None:
            raise NotImplementedError(f"Transpose rule (for reverse-mode differentiation) for "
                                      f"'{prim.name}' not implemented")
        ins = [UndefinedPrimal(x.aval) if type(x) is Var and id(x) in linear else read(x)
               for x in e.inputs]
        with source_loc(e.loc):  # (the backward equations name the forward one's line)
            ct_in = rule(outs, *ins, **e.params)
        for x, ct in zip(e.inputs, ct_in, strict=True):
            if type(x) is Var and id(x) in linear:
                put(x, ct)
    return [ct_env.get(id(v), Zero(tangent_aval(v.aval))) if id(v) in linear else None
            for v in g.invars]


# ----------------------------------------------------------------------------- graph transforms



def _closed(g: Graph) -> tuple:
    """(g with its constants as leading inputs, those constants): sub-graphs of primitives
    take what they capture as explicit operands."""
    g, consts = closure_convert(dce(g))
    return g, consts


def jvp_graph(g: Graph, nonzero: Sequence[bool], instantiate: Sequence[bool],
              mesh_axes: dict[Any, int] | None = None) -> tuple[Graph, list[bool], list[Any]]:
    """(graph, out_nonzero, consts): the graph takes [consts..., g's inputs..., tangents of
    the inputs with ``nonzero[i]``...] and returns [g's outputs..., tangents of the outputs
    with ``out_nonzero[j]``...]; ``instantiate[j]`` forces a (zeros) tangent for output j.
    ``mesh_axes``: ``g`` is a shard_map body (its mesh axes are bound names)."""
    box: list[list[bool]] = []

    def fn(*args: Any) -> list[Any]:
        n = len(g.invars)
        it = iter(args[n:])
        tangents = [next(it) if nz else Zero(tangent_aval(v.aval))
                    for v, nz in zip(g.invars, nonzero, strict=True)]
        outs, touts = jvp_fun(lambda *a: inline_graph(g, a), list(args[:n]), tangents)
        out_nz = [type(t) is not Zero or bool(i) for t, i in zip(touts, instantiate, strict=True)]
        box.append(out_nz)
        return list(outs) + [instantiate_zeros(t) for t, nz in zip(touts, out_nz, strict=True) if nz]

    in_avals = [v.aval for v in g.invars] + [tangent_aval(v.aval)
                                             for v, nz in zip(g.invars, nonzero, strict=True) if nz]
    jg, consts = _closed(trace_graph(fn, in_avals, mesh_axes))
    return jg, box[0], consts


@dataclass(frozen=True, eq=False)
class LinearizedGraph:
    """A graph split into its primal and linear halves.

    ``primal``: [consts..., g's inputs...] -> [g's outputs..., computed residuals...].
    ``linear``: [consts..., residuals..., nonzero tangents...] -> [tangents of the outputs
    with ``out_nonzero``...], where residual k is ``res[k]``: ``("out", j)`` the primal's
    j-th computed residual, ``("in", i)`` input i of g itself (no copy is made), or
    ``("const", value)`` a value known when the graph was split."""

    primal: Graph
    primal_consts: list[Any]
    linear: Graph
    linear_consts: list[Any]
    res: list[tuple[str, Any]]
    res_avals: list[Aval]
    out_nonzero: list[bool]


def linearize_graph(g: Graph, nonzero: Sequence[bool], instantiate: bool | Sequence[bool],
                    forward_inputs: Sequence[bool] | None = None,
                    mesh_axes: dict[Any, int] | None = None) -> LinearizedGraph:
    """Split ``g`` for differentiation with respect to the inputs with ``nonzero[i]``.
    ``forward_inputs[i]`` allows input i itself to serve as a residual (default: all).
    ``mesh_axes``: ``g`` is a shard_map body (its mesh axes are bound names)."""
    n = len(g.invars)
    fwd = [True] * n if forward_inputs is None else forward_inputs
    box: dict[str, Any] = {}

    def primal_fn(*xs: Any) -> list[Any]:
        outs, lin = linearize_fun(lambda *a: inline_graph(g, a), list(xs), nonzero, instantiate,
                                  zeros_like_aval)
        lg = lin.graph
        res: list[tuple[str, Any]] = []
        computed: list[Any] = []
        for c in lg.consts:
            i = next((i for i, x in enumerate(xs) if x is c and fwd[i]), None)
            if i is not None:
                res.append(("in", i))
            elif isinstance(c, Tracer):
                res.append(("out", len(computed)))
                computed.append(c)
            else:
                res.append(("const", c))
        box.update(lg=lg, res=res, out_nz=list(lin.out_nonzero))
        return list(outs) + computed

    primal, p_consts = _closed(trace_graph(primal_fn, [v.aval for v in g.invars], mesh_axes))
    lg = box["lg"]
    linear = Graph(tuple(lg.constvars) + tuple(lg.invars), (), (), lg.eqns, lg.outvars)
    linear, l_consts = _closed(linear)
    return LinearizedGraph(primal, p_consts, linear, l_consts, box["res"],
                           [v.aval for v in lg.constvars], box["out_nz"])


def transpose_graph(g: Graph, linear: Sequence[bool], mesh_axes: dict[Any, int] | None = None,
                    post: Callable[[int, Any], Any] | None = None) -> tuple[Graph, list[Any]]:
    """(graph, consts): the backward pass of ``g`` (linear in the inputs with ``linear[i]``):
    [consts..., g's other inputs..., cotangents of g's outputs...] -> [cotangents of the
    linear inputs...] (zeros where none reaches them). ``mesh_axes``: ``g`` is a shard_map
    body; ``post(i, ct)``, when given, maps the cotangent of linear input i in the graph."""
    nl_avals = [v.aval for v, lin in zip(g.invars, linear, strict=True) if not lin]
    ct_avals = [tangent_aval(aval_of(v)) for v in g.outvars]

    def fn(*args: Any) -> list[Any]:
        it = iter(args[:len(nl_avals)])
        ins = [UndefinedPrimal(v.aval) if lin else next(it) for v, lin in zip(g.invars, linear, strict=True)]
        cts = backward_pass(g, g.consts, ins, list(args[len(nl_avals):]))
        cts = [instantiate_zeros(c) if type(c) is Zero else c for c in cts]
        return [c if post is None else post(i, c) for i, (c, lin) in enumerate(zip(cts, linear, strict=True))
                if lin]

    return _closed(trace_graph(fn, nl_avals + ct_avals, mesh_axes))


__all__ = ["LinearizedGraph", "backward_pass", "jvp_graph", "linearize_graph",
           "transpose_graph"]
