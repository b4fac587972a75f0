"""Pass pipelines: run a list of graph passes, record what each did."""
from __future__ import annotations

import dataclasses
import time

from ..core.ir import Graph
from .registry import resolve
from .rewrite import count_eqns


def pass_name(p) -> str:
    f = getattr(p, "func", p)  # functools.partial
    return getattr(f, "__name__", None) or type(f).__name__


@dataclasses.dataclass(frozen=True)
class PassStat:
    """What one pass did: equations (sub-graphs included) before and after, seconds."""

    name: str
    eqns_before: int
    eqns_after: int
    seconds: float

    @property
    def changed(self) -> bool:
        return self.eqns_before != self.eqns_after

    def __str__(self):
        return (f"{self.name:<22} {self.eqns_before:>6} -> {self.eqns_after:<6} eqns "
                f"{self.seconds * 1e3:8.2f} ms")


@dataclasses.dataclass(frozen=True)
class PipelineResult:
    """The final graph, one PassStat per pass, and (with ``keep_graphs``) the graph after
    each pass as ``(name, graph)`` pairs, the input first as ``("input", graph)``."""

    graph: Graph
    stats: tuple
    graphs: tuple = ()

    def report(self) -> str:
        return "\n".join(str(s) for s in self.stats)


class Pipeline:
    """A list of graph passes (functions Graph -> Graph) run in order.

    >>> import numpy as np
    >>> import frontend as fe
    >>> import frontend.numpy as fnp
    >>> from frontend.passes import Pipeline, cse, dce
    >>> def f(x):
    ...     return fnp.sin(x) * fnp.sin(x)
    >>> x = np.ones(2, np.float32)
    >>> res = Pipeline([cse, dce], keep_graphs=True).run(fe.make_graph(f, passes=())(x))
    >>> print(res.report())           # equations before/after and time, per pass
    cse                         3 -> 2      eqns ... ms
    dce                         2 -> 2      eqns ... ms
    >>> fe.jit(f, passes=Pipeline([cse, dce]))(x)      # or passes=("cse", "dce")
    Array([0.7080734, 0.7080734], dtype=float32)

    With ``check`` (the default), each result is checked: a Graph with the same argument
    and result types whose equations type-check (abstract evaluation is re-run), so a broken
    pass is named at once."""

    def __init__(self, passes=(), *, keep_graphs: bool = False, check: bool = True):
        if isinstance(passes, (str, bytes)) or callable(passes):
            passes = (passes,)
        self.passes = tuple(resolve(p) for p in passes)
        self.keep_graphs = keep_graphs
        self.check = check

    @property
    def names(self) -> tuple:
        return tuple(pass_name(p) for p in self.passes)

    def __repr__(self):
        return f"Pipeline({', '.join(self.names)})"

    def __call__(self, g: Graph) -> Graph:
        if not self.check and not self.keep_graphs:
            for p in self.passes:
                g = p(g)
            return g
        return self.run(g).graph

    def run(self, g: Graph) -> PipelineResult:
        stats, graphs = [], [("input", g)] if self.keep_graphs else []
        n = count_eqns(g)
        for p in self.passes:
            t0 = time.perf_counter()
            out = p(g)
            dt = time.perf_counter() - t0
            if self.check:
                _check(p, g, out)
            m = n if out is g else count_eqns(out)
            stats.append(PassStat(pass_name(p), n, m, dt))
            if self.keep_graphs:
                graphs.append((pass_name(p), out))
            g, n = out, m
        return PipelineResult(g, tuple(stats), tuple(graphs))


def _check(p, before: Graph, after) -> None:
    name = pass_name(p)
    if not isinstance(after, Graph):
        raise TypeError(f"graph pass {name} returned {type(after).__name__}, not a Graph")
    if after.in_avals != before.in_avals or after.out_avals != before.out_avals:
        raise ValueError(f"graph pass {name} changed the graph's signature from "
                         f"{list(before.in_avals)} -> {list(before.out_avals)} to "
                         f"{list(after.in_avals)} -> {list(after.out_avals)}")
    try:
        after.typecheck()
    except TypeError as e:
        raise TypeError(f"graph pass {name} produced a graph that does not type-check: {e}") from None
