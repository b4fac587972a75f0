"""Static parameters as cache keys: ``param_key`` (equal keys, equal parameters; Graphs by
structure) and the interning of Graphs (one object per structure), so that caches keyed
by params hit when the same function is traced again."""
from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from .ir import Atom, Graph, Literal

_INTERNED: dict[Hashable, Graph] = {}


def param_key(v: Any) -> Hashable:
    """A hashable key of a static parameter: equal keys, equal parameters. Scalars carry
    their type (so 1, 1.0 and True differ) and floats their repr (so 0.0 and -0.0 differ);
    Graphs compare by structure. Raises TypeError for an unhashable value."""
    if isinstance(v, Graph):
        k = _graph_key(v)
        return ("G", id(v)) if k is None else k
    if isinstance(v, (tuple, list)):
        return (type(v).__name__,) + tuple(param_key(x) for x in v)
    if isinstance(v, float):
        return ("float", repr(v))
    if isinstance(v, (bool, int, complex, str)) or v is None:
        return (type(v).__name__, v)
    hash(v)
    return (type(v), v)


def literal_key(a: Literal) -> Hashable:
    """A hashable key of a Literal: its type, value (by repr) and aval."""
    return ("L", type(a.val).__name__, repr(a.val), a.aval)


def _graph_key(g: Graph) -> tuple[Any, ...] | None:
    """A structural key of a graph without constants (None when it has some): equal keys,
    equal computations."""
    if g.consts:
        return None
    ids: dict[int, int] = {}

    def atom(a: Atom) -> Hashable:
        if isinstance(a, Literal):
            return literal_key(a)
        k = ids.get(id(a))
        if k is None:
            k = ids[id(a)] = len(ids)
        return k

    parts = [tuple(v.aval for v in g.invars), tuple(atom(v) for v in g.invars)]
    for e in g.eqns:
        parts.append((id(e.prim), tuple(atom(x) for x in e.inputs),
                      tuple((k, param_key(v)) for k, v in sorted(e.params.items())),
                      tuple(v.aval for v in e.outs), tuple(atom(v) for v in e.outs)))
    parts.append(tuple(atom(v) for v in g.outvars))
    return tuple(parts)


def intern_graph(g: Graph) -> Graph:
    """One Graph object per structure, so that the eager executable cache (keyed by params,
    Graphs by identity) hits when the same function is traced again."""
    try:
        k = _graph_key(g)
        hash(k)
    except TypeError:
        return g
    if k is None:
        return g
    if len(_INTERNED) > 4096:
        _INTERNED.clear()
    return _INTERNED.setdefault(k, g)
