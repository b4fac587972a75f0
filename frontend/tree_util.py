"""frontend.tree_util: JAX's pytree utilities (same names, same semantics).

Containers (tuple, list, dict, namedtuple, None) and registered node types are pytrees;
registered types work as jit/vmap arguments and outputs and in ``in_axes`` prefixes.

>>> import dataclasses, frontend as fe, frontend.numpy as fnp
>>> @fe.tree_util.register_dataclass
... @dataclasses.dataclass
... class Layer:
...     w: object
...     b: object
>>> fe.tree_util.tree_map(lambda x: x * 2, Layer(fnp.ones(2), 1.0)).b
2.0
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Any

from .core import jax_names as _jax_names
from .core.pytree import (  # noqa: F401
    _REGISTRY,
    DictKey,
    FlattenedIndexKey,
    GetAttrKey,
    SequenceKey,
    TreeDef,
    _node_of,
    broadcast_prefix,
    keyed_children,
    keystr,
    register_node,
    tree_all,
    tree_flatten,
    tree_flatten_with_path,
    tree_leaves,
    tree_leaves_with_path,
    tree_map,
    tree_map_with_path,
    tree_reduce,
    tree_structure,
    tree_unflatten,
)

PyTreeDef = TreeDef


def register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys_func=None):
    """Make ``nodetype`` a pytree node: ``flatten_func(x) -> (children, aux_data)``,
    ``unflatten_func(aux_data, children) -> x``. ``aux_data`` is static (part of the
    treedef, so of jit's cache key): make it hashable. ``flatten_with_keys_func(x) ->
    ((key, child) pairs, aux_data)`` names the children in key paths."""
    register_node(nodetype, flatten_func, unflatten_func, with_keys=flatten_with_keys_func)
    return nodetype


def register_pytree_with_keys(nodetype, flatten_with_keys, unflatten_func, flatten_func=None):
    """Make ``nodetype`` a pytree node whose children have keys:
    ``flatten_with_keys(x) -> (((key, child), ...), aux_data)`` (keys such as ``GetAttrKey``,
    shown by ``keystr`` and the ``*_with_path`` functions), ``unflatten_func(aux_data,
    children) -> x``; ``flatten_func`` (the same children without keys) is optional.

    >>> from frontend import tree_util as tu
    >>> class Pair:
    ...     def __init__(self, a, b): self.a, self.b = a, b
    >>> _ = tu.register_pytree_with_keys(
    ...     Pair, lambda p: (((tu.GetAttrKey("a"), p.a), (tu.GetAttrKey("b"), p.b)), None),
    ...     lambda _, kids: Pair(*kids))
    >>> [tu.keystr(k) for k, _ in tu.tree_leaves_with_path(Pair(1, 2))]
    ['.a', '.b']
    """
    register_node(nodetype, flatten_func, unflatten_func, with_keys=flatten_with_keys)
    return nodetype


def register_pytree_with_keys_class(cls):
    """Class decorator: ``cls`` is a pytree node with keys through its
    ``tree_flatten_with_keys(self)`` method and ``tree_unflatten(cls, aux_data, children)``
    classmethod (and ``tree_flatten(self)`` when it has one)."""
    flatten = (lambda x: x.tree_flatten()) if hasattr(cls, "tree_flatten") else None
    return register_pytree_with_keys(cls, lambda x: x.tree_flatten_with_keys(),
                                     cls.tree_unflatten, flatten)


def register_pytree_node_class(cls):
    """Class decorator: ``cls`` is a pytree node through its ``tree_flatten(self) ->
    (children, aux_data)`` method and ``tree_unflatten(cls, aux_data, children)``
    classmethod."""
    register_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)
    return cls


def register_dataclass(nodetype, data_fields=None, meta_fields=None, drop_fields=()):
    """Make the dataclass ``nodetype`` a pytree node: ``data_fields`` are children (arrays),
    ``meta_fields`` static data. Without them, fields marked
    ``dataclasses.field(metadata=dict(static=True))`` are static and the others data."""
    if data_fields is None and meta_fields is None:
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError("register_dataclass: data_fields and meta_fields are required "
                            f"when {nodetype!r} is not a dataclass")
        fields = [f for f in dataclasses.fields(nodetype) if f.init and f.name not in drop_fields]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
    elif data_fields is None or meta_fields is None:
        raise TypeError("register_dataclass: pass both data_fields and meta_fields, or neither")
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
    if dataclasses.is_dataclass(nodetype):
        init = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
        given = set(data_fields) | set(meta_fields)
        if init != given:
            raise ValueError(f"register_dataclass: data_fields and meta_fields of {nodetype.__name__} "
                             f"must be its init fields {sorted(init)}, got {sorted(given)}")

    def flatten(x):
        return [getattr(x, f) for f in data_fields], tuple(getattr(x, f) for f in meta_fields)

    def unflatten(aux, children):
        return nodetype(**dict(zip(data_fields, children, strict=True)),
                        **dict(zip(meta_fields, aux, strict=True)))

    register_node(nodetype, flatten, unflatten, names=data_fields)
    return nodetype


def register_static(cls):
    """Make instances of ``cls`` pytree nodes with no children: the whole object is static
    data (hashable), as JAX's ``register_static``."""
    register_node(cls, lambda x: ((), x), lambda aux, _: aux)
    return cls


class Partial(functools.partial):
    """A ``functools.partial`` that is a pytree: the bound arguments are its children (arrays
    pass through jit and vmap), the function is static.

    >>> from frontend.tree_util import Partial, tree_leaves
    >>> add = Partial(lambda x, y: x + y, 1.0)
    >>> tree_leaves(add)
    [1.0]
    """

    def __new__(cls, func, *args, **kwargs):
        return super().__new__(cls, func, *args, **kwargs)


register_node(Partial, lambda p: ((p.args, p.keywords), p.func),
              lambda func, kids: Partial(func, *kids[0], **kids[1]))


def treedef_is_leaf(treedef: TreeDef) -> bool:
    return treedef.kind == "leaf"


def treedef_children(treedef: TreeDef) -> list:
    return list(treedef.children)


def all_leaves(iterable, is_leaf=None) -> bool:
    """Whether every element of ``iterable`` is a leaf."""
    return all(tree_structure(x, is_leaf).kind == "leaf" for x in iterable)


def tree_transpose(outer_treedef: TreeDef, inner_treedef: TreeDef | None, pytree_to_transpose):
    """An outer tree of inner trees -> an inner tree of outer trees."""
    flat, td = tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
    n_in, n_out = inner_treedef.num_leaves, outer_treedef.num_leaves
    if td.num_leaves != n_in * n_out:
        raise TypeError(f"Mismatch\n{td}\n != \n{outer_treedef} composed with {inner_treedef}")
    rows = [inner_treedef.flatten_up_to(t) for t in outer_treedef.flatten_up_to(pytree_to_transpose)]
    return inner_treedef.unflatten([outer_treedef.unflatten(list(col)) for col in zip(*rows, strict=True)])


KeyEntry = Any  # one key of a key path (DictKey, SequenceKey, GetAttrKey, FlattenedIndexKey)
KeyPath = tuple[KeyEntry, ...]


def treedef_tuple(treedefs) -> TreeDef:
    """The structure of a tuple whose elements have the structures ``treedefs``."""
    return TreeDef("tuple", None, tuple(treedefs))


def flatten_one_level(tree):
    """The children of the node ``tree`` and its node data (dict keys, a namedtuple's type,
    a custom node's aux data; None for tuples and lists): one level only."""
    n = _node_of(tree)
    if n is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    kind, meta, kids = n
    return _one_level(kind, meta, kids)


def _one_level(kind, meta, kids):
    if kind == "custom":
        meta = meta.aux
    return list(kids) if kind in ("custom", "namedtuple") else tuple(kids), meta


def flatten_one_level_with_keys(tree):
    """``flatten_one_level`` with each child paired with its key: ``([(key, child), ...],
    node data)``."""
    n = keyed_children(tree)
    if n is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return _one_level(*n)


def is_tree_node(typ) -> bool:
    """Whether the type ``typ`` is a pytree node type (a container, a namedtuple type or a
    registered type; NoneType too, as JAX's)."""
    if not isinstance(typ, type):
        return False
    if typ in (tuple, list, dict, type(None)) or typ in _REGISTRY:
        return True
    return issubclass(typ, tuple) and hasattr(typ, "_fields")


def tree_broadcast(prefix_tree, full_tree, is_leaf=None):
    """``prefix_tree`` with each of its leaves repeated over the subtree of ``full_tree`` it
    stands for (the result has ``full_tree``'s structure)."""
    td = tree_structure(full_tree, is_leaf)
    return td.unflatten(broadcast_prefix(prefix_tree, td, "tree_broadcast", is_leaf))


class _DefaultRegistry:
    """``default_registry``: the one registry of node types, with the methods of JAX's
    ``PyTreeRegistry`` (``flatten``, ``flatten_with_path``, ``flatten_one_level``,
    ``flatten_one_level_with_keys``, ``is_node``, ``register_node``,
    ``register_dataclass_node``)."""

    def flatten(self, tree, leaf_predicate=None):
        return tree_flatten(tree, leaf_predicate)

    def flatten_with_path(self, tree, leaf_predicate=None):
        return tree_flatten_with_path(tree, leaf_predicate)

    def flatten_one_level(self, tree):
        return flatten_one_level(tree)

    def flatten_one_level_with_keys(self, tree):
        return flatten_one_level_with_keys(tree)

    def is_node(self, typ):
        return is_tree_node(typ)

    def register_node(self, type, to_iterable, from_iterable, to_iterable_with_keys=None):  # noqa: A002
        register_pytree_node(type, to_iterable, from_iterable, to_iterable_with_keys)

    def register_dataclass_node(self, type, data_fields, meta_fields, /):  # noqa: A002
        register_dataclass(type, data_fields, meta_fields)

    def __repr__(self):
        return "<frontend.tree_util.default_registry>"


default_registry = _DefaultRegistry()


def tree_reduce_associative(operation, tree, *, identity=None, is_leaf=None):
    """The leaves of ``tree`` combined by the associative ``operation`` as a balanced tree
    (each half reduced, then the halves combined, as JAX's); ``identity`` for a tree without
    leaves."""
    leaves = tree_leaves(tree, is_leaf)
    if not leaves:
        if identity is None:
            raise TypeError("Must specify identity for parallel reduction of empty sequence.")
        return identity
    def reduce(xs):
        if len(xs) == 1:
            return xs[0]
        mid = len(xs) // 2
        return operation(reduce(xs[:mid]), reduce(xs[mid:]))
    return reduce(leaves)


__all__ = [
    "DictKey", "FlattenedIndexKey", "GetAttrKey", "Partial", "PyTreeDef", "SequenceKey",
    "all_leaves", "keystr", "register_dataclass", "register_pytree_node",
    "register_pytree_node_class", "register_static", "tree_all", "tree_flatten",
    "tree_flatten_with_path", "tree_leaves", "tree_leaves_with_path", "tree_map",
    "tree_map_with_path", "tree_reduce", "tree_structure", "tree_transpose", "tree_unflatten",
    "treedef_children", "treedef_is_leaf", "KeyEntry", "KeyPath", "treedef_tuple",
    "flatten_one_level", "is_tree_node", "tree_broadcast", "tree_reduce_associative",
    "register_pytree_with_keys", "register_pytree_with_keys_class", "default_registry",
    "flatten_one_level_with_keys",
]


def __getattr__(name):
    raise _jax_names.missing(__name__, name)
