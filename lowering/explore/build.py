"""The explorer's data: every stage of compiling one function, cross-linked by keys.

A stage's items (graph nodes, printed lines, StableHLO and HLO lines, Python lines) carry
keys: ``py:F:L`` (line L of source file F) and ``q:ID`` (the equation of id ID of the graph
that was lowered, as its locations name it: lowering/explore/locations.py). Clicking an item highlights every item sharing its first key strongly and those
sharing its other keys lightly."""
from __future__ import annotations

import collections
import difflib
import functools
import inspect
import linecache
import os
import re

from frontend.core.ir import Graph, Literal, Var, param_graphs

from .locations import equation_ids, python_line, split_locations

_HLO_OP_NAME = re.compile(r'op_name="(?:[^"/]*/)*[^":]*:([\d.]+)"')
_HLO_TEXT_LINE = re.compile(r'source_file="-" source_line=(\d+)')
_HLO_OPCODE = re.compile(r"^\s*(?:ROOT )?%\S+ = .*? ([a-z][a-z0-9-]*)\(")
_MLIR_OP = re.compile(r"\b((?:stablehlo|chlo|sdy)\.[a-z_]+|func\.call)\b")


def all_eqns(g: Graph):
    """The equations of ``g`` and of its sub-graphs, in printing order."""
    return (e for _, e in equation_ids(g))


@functools.cache
def _vmap_code():
    """The code object of the functions ``vmap`` returns."""
    from frontend.transforms import vmap as V
    return V.vmap(abs).__code__


def _per_example(fn, args, kwargs):
    """(the function vmap wraps, the arguments of one example) when ``fn`` is a ``vmap``
    of something (read from vmap's closure: its ``fun`` and ``in_axes``), else None."""
    from frontend.core.arguments import abstractify
    from frontend.core.ir import ShapeDtypeStruct
    from frontend.core.pytree import tree_unflatten
    from frontend.transforms import vmap as V
    if getattr(fn, "__code__", None) is not _vmap_code():
        return None
    free = inspect.getclosurevars(fn).nonlocals
    try:
        inner, in_axes, axis_size = free["fun"], free["in_axes"], free["axis_size"]
    except KeyError:  # (vmap's closure changed: show the function as it is)
        return None
    leaves, td, axes, _ = V._mapped_leaves(inner, in_axes, axis_size, args, kwargs)
    one = []
    for x, ax in zip(leaves, axes, strict=True):
        a = abstractify(x, "", inner)
        shape = a.shape if ax is None else a.shape[:ax] + a.shape[ax + 1:]
        one.append(ShapeDtypeStruct(shape, a.dtype, weak_type=a.weak_type))
    a, kw = tree_unflatten(td, one)
    return inner, a, kw


def _short(v, n: int = 48) -> str:
    s = " ".join(repr(v).split())
    return s if len(s) <= n else s[:n - 1] + "\u2026"


class Keys:
    """The keys of equations: their Python line (with ``lines``) and, for those of the
    lowered graph, q:ID (ID: the equation id its StableHLO ops and HLO instructions are
    named by)."""

    def __init__(self, lowered_graph: Graph | None, lines: bool = True):
        self.lines = lines
        self.files: list = []
        self.codes: set = set()  # the code objects of the user's lines met
        self.by_id = dict(equation_ids(lowered_graph)) if lowered_graph is not None else {}
        self.q: dict = {}
        for eid, e in self.by_id.items():
            self.q.setdefault(e, f"q:{eid}")

    def py(self, filename: str, line: int) -> str:
        if filename not in self.files:
            self.files.append(filename)
        return f"py:{self.files.index(filename)}:{line}"

    def of(self, e) -> list:
        keys = [self.q[e]] if e in self.q else []
        src = python_line(e) if self.lines else None
        if src is not None:
            self.codes.add(src[2])
            keys.append(self.py(src[0], src[1]))
        return keys


def graph_json(g: Graph, keys: Keys) -> dict:
    """Nodes (equations, arguments, constants, results), edges (values, labelled with
    their types) and clusters (an equation with sub-graphs: one cluster holding the
    equation and a cluster per sub-graph) of ``g``, for the page's layout."""
    nodes, edges, clusters = [], [], []

    def walk(g: Graph, prefix: str, parent):
        made = {}
        for k, v in enumerate(g.constvars):
            made[v] = f"{prefix}c{k}"
            nodes.append(dict(id=made[v], label="const", sub=v.aval.str_short(), kind="const",
                              parent=parent))
        for k, v in enumerate(g.invars):
            made[v] = f"{prefix}i{k}"
            nodes.append(dict(id=made[v], label=f"arg {k}", sub=v.aval.str_short(), kind="in",
                              parent=parent))
        for k, e in enumerate(g.eqns):
            nid = f"{prefix}e{k}"
            params = [f"{p}={_short(v)}" for p, v in sorted(e.params.items())
                      if not param_graphs(v)]
            lits = [repr(x) for x in e.inputs if type(x) is Literal]
            node = dict(id=nid, label=e.prim.name, sub=" ".join(params + lits), kind="eqn",
                        parent=parent, keys=keys.of(e),
                        out=", ".join(o.aval.str_short() for o in e.outs))
            nodes.append(node)
            for x in e.inputs:
                if type(x) is Var and x in made:
                    edges.append(dict(s=made[x], t=nid, label=x.aval.str_short()))
            subs = [(p, s) for p, v in sorted(e.params.items()) for s in param_graphs(v)]
            if subs:
                cid = node["cluster"] = f"{nid}x"
                node["parent"] = cid
                clusters.append(dict(id=cid, label=e.prim.name, parent=parent, owner=nid))
                for j, (p, s) in enumerate(subs):
                    sid = f"{nid}g{j}"
                    clusters.append(dict(id=sid, label=p, parent=cid, owner=nid))
                    first = walk(s, f"{sid}.", sid)
                    for t in first:
                        edges.append(dict(s=nid, t=t, label="", sub=True))
            for o in e.outs:
                made[o] = nid
        for k, o in enumerate(g.outvars):
            oid = f"{prefix}o{k}"
            nodes.append(dict(id=oid, label=f"out {k}", sub=o.aval.str_short(), kind="out",
                              parent=parent))
            if type(o) is Var and o in made:
                edges.append(dict(s=made[o], t=oid, label=o.aval.str_short()))
        return [made[v] for v in g.invars] or [f"{prefix}o0"] * bool(g.outvars)

    walk(g, "", None)
    return dict(nodes=nodes, edges=edges, clusters=clusters)


def _eqn_lines(e) -> int:
    return 1 + sum(_graph_lines(s) for _, v in sorted(e.params.items()) for s in param_graphs(v))


def _graph_lines(g: Graph) -> int:
    return 2 + sum(_eqn_lines(e) for e in g.eqns)


def text_json(g: Graph, keys: Keys) -> list:
    """The printed graph as [line, keys] pairs (each line of an equation, and of its
    sub-graphs' headers, carries the equation's keys)."""
    lines = str(g).split("\n")
    if len(lines) != _graph_lines(g):  # a parameter printed on several lines: no links
        return [[line, []] for line in lines]
    out = []

    def graph(g):
        out.append([lines[len(out)], []])
        for e in g.eqns:
            eqn(e)
        out.append([lines[len(out)], []])

    def eqn(e):
        k = keys.of(e)
        out.append([lines[len(out)], k])
        for _, v in sorted(e.params.items()):
            for s in param_graphs(v):
                start = len(out)
                graph(s)
                out[start][1] = out[-1][1] = k

    graph(g)
    return out


def graph_stats(g: Graph) -> dict:
    kinds = collections.Counter(e.prim.name for e in all_eqns(g))
    return dict(eqns=sum(kinds.values()), kinds=dict(kinds.most_common()))


def stage(name: str, title: str, g: Graph, keys: Keys, note: str = "") -> dict:
    return dict(name=name, title=title, note=note, graph=graph_json(g, keys),
                text=text_json(g, keys), stats=graph_stats(g))


def _source_files(keys: Keys, fns) -> list:
    """[name, first line, [[text, keys]]] per source file: the span of the functions whose
    lines equations came from (and of the explored functions)."""
    spans: dict = {}
    codes = [getattr(inspect.unwrap(f), "__code__", None) for f in fns]
    for f in [c for c in codes if c is not None]:
        keys.py(f.co_filename, f.co_firstlineno)
    for filename in keys.files:
        spans[filename] = None
    for code in [c for c in codes if c is not None]:
        _widen(spans, code.co_filename, code)
    for code in keys.codes:
        _widen(spans, code.co_filename, code)
    out = []
    for i, filename in enumerate(keys.files):
        text = linecache.getlines(filename)
        lo, hi = spans.get(filename) or (1, len(text))
        lo, hi = max(1, lo), min(len(text), hi)
        lines = [[text[n - 1].rstrip("\n"), [f"py:{i}:{n}"]] for n in range(lo, hi + 1)]
        out.append(dict(name=_shown(filename), first=lo, lines=lines))
    return out


def _widen(spans, filename, code):
    lines = [n for _, _, n in code.co_lines() if n is not None] + [code.co_firstlineno]
    lo, hi = spans.get(filename) or (min(lines), max(lines))
    spans[filename] = (min(lo, *lines), max(hi, *lines))


def _shown(filename: str) -> str:
    try:
        rel = os.path.relpath(filename)
    except ValueError:
        return filename
    return filename if rel.startswith("..") else rel


def _mlir_stats(text: str) -> dict:
    kinds = collections.Counter(m for line in text.split("\n") if not line.lstrip().startswith(
        ("module", "func.func", "//")) for m in _MLIR_OP.findall(line))
    return dict(ops=sum(kinds.values()), kinds=dict(kinds.most_common()))


def _hlo_json(hlo: str, mlir_keys: list, keys: Keys) -> tuple:
    """HLO lines linked through their metadata: ``op_name`` names the equation (its last
    part, for an instruction of a region: "scan:1/add:1.0.2"); an instruction of an op
    without one has the line of the StableHLO text it came from (source_file="-")."""
    lines, kinds = [], collections.Counter()
    for line in hlo.split("\n"):
        k: list = []
        m = _HLO_OP_NAME.search(line)
        if m and m.group(1) in keys.by_id:
            k = keys.of(keys.by_id[m.group(1)])
        elif (m := _HLO_TEXT_LINE.search(line)) is not None:
            n = int(m.group(1))
            k = list(mlir_keys[n - 1]) if 0 < n <= len(mlir_keys) else []
        op = _HLO_OPCODE.match(line)
        if op and op.group(1) != "parameter":
            kinds[op.group(1)] += 1
        lines.append([line, k])
    return lines, dict(instructions=sum(kinds.values()), kinds=dict(kinds.most_common()))


def cost_of(compiled) -> dict:
    """XLA's cost analysis of a Compiled: flops, bytes accessed, transcendentals."""
    try:
        cost = compiled.cost_analysis()
    except Exception as e:  # a backend without cost analysis: say so on the page
        return {"unavailable": str(e)}
    cost = cost[0] if isinstance(cost, (list, tuple)) else cost
    return {k: float(v) for k, v in (cost or {}).items()
            if k in ("flops", "bytes accessed", "transcendentals", "optimal_seconds")}


def code_json(lowered, keys: Keys) -> tuple:
    """(StableHLO, HLO, the StableHLO text) of a page: the plain module of ``lowered``, each
    op's lines linked to the equation its location names (read from the module lowered
    with ``debug_info=True``), and XLA's optimized HLO, linked through its metadata."""
    text = lowered.as_text()
    located, owner = split_locations(lowered.as_text(debug_info=True), keys.by_id)
    if located != text:  # (a module from text, or a lowering that is not deterministic)
        owner = {}
    compiled = lowered.compile()
    mlir = [[line, keys.of(owner[i]) if i in owner else []] for i, line in enumerate(text.split("\n"))]
    hlo, stats = _hlo_json(compiled.as_text(), [k for _, k in mlir], keys)
    return (dict(lines=mlir, stats=_mlir_stats(text)),
            dict(lines=hlo, stats=stats, cost=cost_of(compiled)), text)


def explore_data(fn, args=(), kwargs=None, *, passes=None, title=None) -> dict:
    """Every stage of ``jit(fn, passes=passes).lower(*args, **kwargs)``: the graph of one
    example (when ``fn`` is a vmap), the vmapped graph, the graph after each pass, the
    StableHLO module, XLA's optimized HLO, statistics, linked by keys."""
    import frontend as fe
    from frontend import passes as P
    from frontend.transforms.jit import Jitted, jitted_of
    kwargs = dict(kwargs or {})
    j = jitted_of(fn)
    if j is None or passes is not None:
        base = j.fun if j is not None else fn
        j = Jitted(base, j.static_argnums if j is not None else (), passes=passes)
    user = j.fun
    peeled, inner = [], (user, tuple(args), kwargs)
    while True:
        nxt = _per_example(*inner)
        if nxt is None:
            break
        peeled.append(inner)
        inner = nxt
    static = j.static_argnums
    traced = fe.make_graph(inner[0], static_argnums=static if not peeled else (),
                           passes=())(*inner[1], **inner[2])
    batched = fe.make_graph(user, static_argnums=static, passes=())(*args, **kwargs) \
        if peeled else traced
    run = P.Pipeline(j.passes.passes, keep_graphs=True).run(batched)
    lowered = j.lower(*args, **kwargs)
    final = lowered.graph
    keys = Keys(final)
    name = title or getattr(inspect.unwrap(user), "__name__", "function")
    stages = [stage("traced", "Traced (one example)" if peeled else "Traced", traced, keys,
                    "the graph of one example" if peeled else "")]
    if peeled:
        stages.append(stage("vmapped", "Vmapped", batched, keys,
                            f"{len(peeled)} vmap{'s' * (len(peeled) > 1)} applied"))
    pipeline = ", ".join(P.pass_name(p) for p in j.passes.passes) or "(none)"
    stages.append(stage("passes", "After passes", final, keys, f"pipeline: {pipeline}"))
    diffs = []
    for (_, before), (pname, after) in zip(run.graphs[:-1], run.graphs[1:], strict=True):
        d = dict(name=pname, changed=after is not before)
        if after is not before:
            a, b = str(before).split("\n"), str(after).split("\n")
            d["diff"] = [line for line in difflib.unified_diff(a, b, "before", "after", n=2,
                                                               lineterm="")]
            d["before"], d["after"] = graph_json(before, keys), graph_json(after, keys)
        diffs.append(d)
    stablehlo, hlo, text = code_json(lowered, keys)
    files = _source_files(keys, [user, inner[0]])
    return dict(
        title=name, files=files, stages=stages, diffs=diffs,
        passes=[dict(name=s.name, before=s.eqns_before, after=s.eqns_after,
                     ms=round(s.seconds * 1e3, 3)) for s in run.stats],
        stablehlo=stablehlo, hlo=hlo,
        args=_arg_avals(args, kwargs, static),
        stablehlo_text=text)


def _arg_avals(args, kwargs, static=()) -> list:
    """How the page names the arguments: types, static arguments by value."""
    from frontend.core.arguments import abstractify
    from frontend.core.pytree import tree_leaves
    static = {i % len(args) for i in static if -len(args) <= i < len(args)}

    def types(x):
        out = []
        for leaf in tree_leaves(x):
            try:
                out.append(abstractify(leaf, "", None).str_short())
            except (TypeError, ValueError):
                out.append(type(leaf).__name__)
        return ", ".join(out)

    return [_short(a, 40) if i in static else types(a) for i, a in enumerate(args)] + \
        [f"{k}={types(v)}" for k, v in kwargs.items()]
