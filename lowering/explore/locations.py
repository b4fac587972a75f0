"""Where the explorer's links come from: the source locations every equation records
(``Eqn.loc``, docs/testbed.md "Source locations"), nothing of its own.

An equation's Python line is its ``loc`` (the backward pass, the passes and the batching
rules give the equations they make the line of the equation they come from). Its
StableHLO lines are those of the ops that end with ``loc(#locK)`` in the module lowered
with ``debug_info=True``, where ``#locK = loc("<primitive>:<equation id>"(...))`` names
the equation by its id in the lowered graph ("3.0.2": equation 2 of sub-graph 0 of
equation 3); its HLO instructions are those whose ``op_name`` names that id."""
from __future__ import annotations

import re

from frontend.core.ir import Graph, source_info, subgraphs

_LOC_REF = re.compile(r" loc\((#loc\d+)\)$")
_LOC_DEF = re.compile(r'^(#loc\d+) = loc\("[^"]*:([\d.]+)"')
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def python_line(e):
    """(file, line, code object) of the user's line that made equation ``e``, or None
    (no location, or a module's top level: not a function the page can show)."""
    info = source_info(e.loc)
    if info is None or info[4] == "<module>":
        return None
    return info[0], info[1], e.loc[0]


def equation_ids(g: Graph, prefix: str = ""):
    """(equation id, Eqn) of ``g``'s equations and of their sub-graphs', in printing
    order: the ids the lowering names them by in its locations."""
    for k, e in enumerate(g.eqns):
        eid = f"{prefix}{k}"
        yield eid, e
        for j, s in enumerate(subgraphs(e)):
            yield from equation_ids(s, f"{eid}.{j}.")


def split_locations(text: str, by_id: dict) -> tuple:
    """(the module ``text`` (lowered with ``debug_info=True``) without its locations, as
    the plain module prints, {0-based line: Eqn}): every line of an op goes to the equation
    its location names, from the op's first line to the one ending with ``loc(#locK)``
    (the ops inside a region keep their own equations; the lines of a region that have
    none, the region's op's). ``by_id``: equation id -> Eqn of the lowered graph."""
    lines = text.split("\n")
    eqn_of = {}
    while lines and (lines[-1] == "" or _LOC_DEF.match(lines[-1])):
        m = _LOC_DEF.match(lines.pop())
        if m and m.group(2) in by_id:
            eqn_of[m.group(1)] = by_id[m.group(2)]
    spans, opened = [], []
    for i, line in enumerate(lines):
        m = _LOC_REF.search(line)
        if m:
            lines[i] = line = line[:m.start()]
        bare = _STRING.sub("", line)
        depth = bare.count("{") - bare.count("}")
        start = i
        if depth > 0:
            opened += [i] * depth
        elif depth < 0 and opened:
            start = opened[max(depth, -len(opened))]  # (where the op it closes began)
            del opened[depth:]
        if m and m.group(1) in eqn_of:
            spans.append((start, i, eqn_of[m.group(1)]))
    owner: dict = {}
    for start, end, e in sorted(spans, key=lambda s: s[0] - s[1]):  # widest first
        for k in range(start, end + 1):
            owner[k] = e
    return "\n".join(lines) + "\n", owner
