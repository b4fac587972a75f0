"""Named axes: which traces bind axis names, and which primitives use them.

``vmap(f, axis_name='i')`` gives its BatchTrace a name; the body of a shard_map is traced
with the mesh axes bound as names (``ManualTrace``): both are ``AxisBinder``s. Collectives
(``CollectivePrimitive``: psum, all_gather, axis_index, ...) name the axes they work across;
a name that nothing binds is JAX's NameError when the collective is bound. The axis scan of
graphs (``graph_axis_names``, ``uses_axis``) tells a named vmap which equations it must run
its batching rule for even when no operand is batched (a collective over its axis, or a
control-flow primitive whose sub-graphs hold one).
"""
from __future__ import annotations

import weakref
from collections.abc import Hashable
from typing import Any

from ..core.ir import Graph, GraphTrace, Primitive, Trace, aval_of, current_trace, param_graphs


class AxisBinder:
    """A trace that binds axis names for collectives: a named vmap (frontend.interpreters.
    batching.BatchTrace) or the body of a shard_map (``ManualTrace``)."""

    __slots__ = ()

    def bound_axis_size(self, name: Hashable) -> int | None:
        """The size of the axis ``name`` when this trace binds it, else None."""
        raise NotImplementedError

    def bound_axis_names(self) -> tuple:
        """The names this trace binds."""
        raise NotImplementedError


class ManualTrace(AxisBinder, GraphTrace):
    """Records the body of a shard_map: a graph of one device's work, in which the mesh axes
    (``mesh_axes``: name -> size) are bound names for collectives (lowered to XLA's).
    ``check_vma``: the user's body of a shard_map with check_vma=True (JAX types its values
    by the mesh axes they vary over, which changes derivatives taken inside it)."""

    def __init__(self, parent: Trace, mesh_axes: dict[Any, int], check_vma: bool = False) -> None:
        super().__init__(parent)
        self.mesh_axes = mesh_axes
        self.check_vma = check_vma

    def bound_axis_size(self, name: Hashable) -> int | None:
        return self.mesh_axes.get(name)

    def bound_axis_names(self) -> tuple:
        return tuple(self.mesh_axes)


def check_vma_body() -> bool:
    """Whether the innermost enclosing shard_map body being traced has check_vma=True."""
    t: Trace | None = current_trace()
    while t is not None:
        if isinstance(t, ManualTrace):
            return t.check_vma
        t = t.parent
    return False


def find_axis_size(name: Hashable) -> int | None:
    """The size of the innermost enclosing axis named ``name``: a named vmap, or a mesh axis
    of an enclosing shard_map (None when nothing binds it)."""
    t: Trace | None = current_trace()
    while t is not None:
        if isinstance(t, AxisBinder):
            size = t.bound_axis_size(name)
            if size is not None:
                return size
        t = t.parent
    return None


def bound_axis_names() -> list[Hashable]:
    """The axis names the enclosing vmaps and shard_maps bind, innermost first."""
    out: list[Hashable] = []
    t: Trace | None = current_trace()
    while t is not None:
        if isinstance(t, AxisBinder):
            out.extend(t.bound_axis_names())
        t = t.parent
    return out


def unbound_axis_error(name: Hashable, api: str) -> NameError:
    return NameError(f"Found an unbound axis name: {name}. To fix this, please call {api} "
                     f"under a vmap that binds it: vmap(f, axis_name={name!r}), or a shard_map "
                     f"over a mesh with that axis (axis names bound here: {bound_axis_names()})")


def axis_size_of(name: Hashable, api: str) -> int:
    """The size of the named axis ``name``; JAX's NameError when nothing binds it."""
    size = find_axis_size(name)
    if size is None:
        raise unbound_axis_error(name, api)
    return size


class CollectivePrimitive(Primitive):
    """A primitive over named axes (psum, all_gather, axis_index, ...): its static param
    ``names_param`` holds the axis name (or a tuple of them). Binding it checks that an
    enclosing vmap binds every name (JAX's NameError otherwise) and runs its abstract
    evaluation (JAX's shape checks) on whatever trace it is bound to."""

    def __init__(self, name: str, names_param: str = "axis_name") -> None:
        super().__init__(name)
        self.names_param = names_param

    def axis_names(self, params: dict[str, Any]) -> tuple[Hashable, ...]:
        names = params[self.names_param]
        return names if isinstance(names, tuple) else (names,)

    def bind(self, *args: Any, **params: Any) -> Any:
        for n in self.axis_names(params):
            if find_axis_size(n) is None:
                raise unbound_axis_error(n, self.name)
        self.abstract_eval(*(aval_of(a) for a in args), **params)
        return super().bind(*args, **params)


_GRAPH_NAMES: weakref.WeakKeyDictionary[Graph, frozenset[Hashable]] = weakref.WeakKeyDictionary()


def names_in_params(params: dict[str, Any]) -> frozenset[Hashable]:
    out: frozenset[Hashable] = frozenset()
    for v in params.values():
        for g in param_graphs(v):
            out |= graph_axis_names(g)
    return out


def graph_axis_names(g: Graph) -> frozenset[Hashable]:
    """The axis names the collectives of ``g`` (sub-graphs included) work across."""
    names: frozenset[Hashable] | None = _GRAPH_NAMES.get(g)
    if names is None:
        names = frozenset()
        for e in g.eqns:
            if isinstance(e.prim, CollectivePrimitive):
                names |= frozenset(e.prim.axis_names(e.params))
            names |= names_in_params(e.params)
        _GRAPH_NAMES[g] = names
    return names


def uses_axis(prim: Primitive, params: dict[str, Any], name: Hashable) -> bool:
    """Whether binding ``prim`` refers to the named axis: a collective over it, or a primitive
    with sub-graphs (loops, branches) holding one."""
    if isinstance(prim, CollectivePrimitive):
        return name in prim.axis_names(params)
    return name in names_in_params(params)
