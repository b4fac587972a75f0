"""Pytrees: tuples, lists, dicts (sorted keys), namedtuples and None containers, plus the
node types users register (``register_node``: custom classes, dataclasses, ``Partial``);
everything else is a leaf. Treedefs are hashable so they can be part of a jit cache key.

The public face is ``frontend.tree_util`` (JAX's ``tree_util`` names) and this module's
short names at the end (``frontend.core.pytree.map`` is ``jax.tree.map``). Nothing in this module
calls the builtins those short names shadow (``map``, ``all``)."""
from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

FlattenFn = Callable[[Any], tuple[Any, Any]]
UnflattenFn = Callable[[Any, Any], Any]
IsLeaf = Callable[[Any], bool] | None


class _Node:
    """A registered node type: ``flatten(x) -> (children, aux)``, ``unflatten(aux,
    children) -> x``; ``names``: the children's attribute names (dataclasses), for key
    paths; ``with_keys(x) -> ((key, child) pairs, aux)``: the keys of one value's children
    (``register_pytree_with_keys``)."""

    __slots__ = ("cls", "flatten", "unflatten", "names", "with_keys")

    def __init__(self, cls: type, flatten: FlattenFn, unflatten: UnflattenFn,
                 names: Sequence[str] | None = None, with_keys: FlattenFn | None = None) -> None:
        self.cls, self.flatten, self.unflatten, self.names = cls, flatten, unflatten, names
        self.with_keys = with_keys


_REGISTRY: dict[type, _Node] = {}


class NodeData:
    """The static part of a custom node in a treedef: its type and auxiliary data (compared
    with ==, hashed when hashable)."""

    __slots__ = ("cls", "aux", "_hash")

    def __init__(self, cls: type, aux: Any) -> None:
        self.cls, self.aux = cls, aux
        try:
            self._hash = hash((cls, aux))
        except TypeError:  # unhashable aux data: equal treedefs still compare equal
            self._hash = hash(cls)

    __name__ = property(lambda self: self.cls.__name__)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NodeData) or self.cls is not other.cls:
            return False
        if self.aux is other.aux:
            return True
        try:
            return bool(self.aux == other.aux)
        except (TypeError, ValueError):  # e.g. numpy arrays in the aux data
            return False

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"{self.cls.__name__}[{self.aux!r}]"


class TreeDef:
    __slots__ = ("kind", "meta", "children", "num_leaves", "_hash")
    num_leaves: int

    def __init__(self, kind: str, meta: Any, children: tuple[TreeDef, ...]) -> None:
        self.kind = kind          # "leaf", "none", "tuple", "list", "dict", "namedtuple", "custom"
        self.meta = meta          # dict keys / namedtuple class / NodeData
        self.children = children  # tuple of TreeDef
        self.num_leaves = 1 if kind == "leaf" else sum(c.num_leaves for c in children)
        self._hash = hash((kind, meta, children))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, TreeDef) and self._hash == other._hash and self.kind == other.kind
                and self.meta == other.meta and self.children == other.children)

    def __hash__(self) -> int:
        return self._hash

    @property
    def num_nodes(self) -> int:
        return 1 + sum(c.num_nodes for c in self.children)

    def __repr__(self) -> str:
        if self.kind == "leaf":
            return "*"
        if self.kind == "none":
            return "None"
        inner = ", ".join([repr(c) for c in self.children])
        if self.kind == "dict":
            inner = ", ".join([f"{k!r}: {c!r}" for k, c in zip(self.meta, self.children, strict=True)])
            return "{" + inner + "}"
        if self.kind == "list":
            return "[" + inner + "]"
        if self.kind == "custom":
            return f"CustomNode({self.meta!r}, [{inner}])"
        return "(" + inner + ("," if len(self.children) == 1 else "") + ")"

    def unflatten(self, leaves: Any) -> Any:
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"Too {'few' if len(leaves) < self.num_leaves else 'many'} "
                             f"leaves for PyTreeDef; expected {self.num_leaves}, got "
                             f"{len(leaves)}.")
        return self._build(iter(leaves))

    def _build(self, it: Iterator[Any]) -> Any:
        k = self.kind
        if k == "leaf":
            return next(it)
        if k == "none":
            return None
        kids = [c._build(it) for c in self.children]
        if k == "tuple":
            return tuple(kids)
        if k == "list":
            return kids
        if k == "dict":
            return dict(zip(self.meta, kids, strict=True))
        if k == "custom":
            return _REGISTRY[self.meta.cls].unflatten(self.meta.aux, kids)
        return self.meta(*kids)

    def flatten_up_to(self, x: Any) -> list[Any]:
        """The subtrees of ``x`` at this treedef's leaves (x has this structure as a prefix);
        a ValueError where the structures differ."""
        out: list = []
        _up_to(self, x, out, "")
        return out


LEAF = TreeDef("leaf", None, ())
NONE = TreeDef("none", None, ())


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _node_of(x: Any) -> tuple[str, Any, Sequence[Any]] | None:
    """(kind, meta, children) of a container node, or None for a leaf."""
    if x is None:
        return "none", None, ()
    t = type(x)
    if t is tuple or t is list:
        return ("tuple" if t is tuple else "list"), None, x
    if t is dict:
        keys = tuple(sorted(x))
        return "dict", keys, [x[k] for k in keys]
    node = _REGISTRY.get(t)
    if node is not None:
        kids, aux = node.flatten(x)
        return "custom", NodeData(t, aux), kids
    if _is_namedtuple(x):
        return "namedtuple", t, x
    _LEAF_TYPES.add(t)
    return None


# types whose values were found to be leaves (arrays, tracers, scalars): one set lookup for
# them next time (registering a type as a node removes it)
_LEAF_TYPES: set[type] = set()


def _flatten(x: Any, leaves: list[Any], is_leaf: IsLeaf) -> TreeDef:
    if is_leaf is not None and is_leaf(x) or type(x) in _LEAF_TYPES:
        leaves.append(x)
        return LEAF
    n = _node_of(x)
    if n is None:
        leaves.append(x)
        return LEAF
    kind, meta, kids = n
    if kind == "none":
        return NONE
    return TreeDef(kind, meta, tuple([_flatten(c, leaves, is_leaf) for c in kids]))


def _up_to(td: TreeDef, x: Any, out: list[Any], path: str) -> None:
    if td.kind == "leaf":
        out.append(x)
        return
    n = _node_of(x)
    if n is None or n[0] != td.kind or (td.kind in ("namedtuple", "custom", "dict")
                                        and n[1] != td.meta) \
            or len(n[2]) != len(td.children):
        raise ValueError(f"Tuple arity mismatch or structure mismatch at {path or 'the top'}: "
                         f"expected {td}, got {x!r}")
    for i, (c, k) in enumerate(zip(td.children, n[2], strict=True)):
        _up_to(c, k, out, f"{path}[{i}]")


def tree_flatten(x: Any, is_leaf: IsLeaf = None) -> tuple[list[Any], TreeDef]:
    leaves: list = []
    return leaves, _flatten(x, leaves, is_leaf)


def tree_unflatten(treedef: TreeDef, leaves: Any) -> Any:
    return treedef.unflatten(leaves)


def tree_leaves(x: Any, is_leaf: IsLeaf = None) -> list[Any]:
    return tree_flatten(x, is_leaf)[0]


def tree_structure(x: Any, is_leaf: IsLeaf = None) -> TreeDef:
    return tree_flatten(x, is_leaf)[1]


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: IsLeaf = None) -> Any:
    """``f`` applied to the leaves of ``tree`` and the corresponding subtrees of ``rest``
    (which have ``tree``'s structure, or it as a prefix)."""
    leaves, td = tree_flatten(tree, is_leaf)
    others = [td.flatten_up_to(r) for r in rest]
    return td.unflatten([f(*xs) for xs in zip(leaves, *others, strict=True)])


def tree_reduce(function: Callable[[Any, Any], Any], tree: Any, initializer: Any = None,
                is_leaf: IsLeaf = None) -> Any:
    leaves = tree_leaves(tree, is_leaf)
    if initializer is None:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_all(tree: Any, *, is_leaf: IsLeaf = None) -> bool:
    for x in tree_leaves(tree, is_leaf):
        if not x:
            return False
    return True


# ----------------------------------------------------------------------------- registration


def register_node(cls: type, flatten: FlattenFn | None, unflatten: UnflattenFn,
                  names: Sequence[str] | None = None, with_keys: FlattenFn | None = None) -> None:
    """Make ``cls`` a pytree node: ``flatten(x) -> (children, aux_data)`` and
    ``unflatten(aux_data, children) -> x`` (JAX's ``register_pytree_node``); ``with_keys(x) ->
    ((key, child) pairs, aux_data)`` names the children in key paths (``flatten`` defaults to
    it without the keys)."""
    if not isinstance(cls, type):
        raise TypeError(f"register_pytree_node expects a type, got {cls!r}")
    if cls in _REGISTRY or cls in (tuple, list, dict, type(None)):
        raise ValueError(f"Duplicate custom PyTreeDef type registration for {cls}.")
    if flatten is None:
        if with_keys is None:
            raise TypeError(f"register_pytree_node: {cls.__name__} needs a flatten function")

        def flatten(x: Any, _with_keys: Any = with_keys) -> tuple[list[Any], Any]:
            pairs, aux = _with_keys(x)
            return [child for _, child in pairs], aux
    _REGISTRY[cls] = _Node(cls, flatten, unflatten, names, with_keys)
    _LEAF_TYPES.discard(cls)
    if _on_register is not None:
        _on_register(cls, flatten, unflatten)


_on_register: Callable[[type, FlattenFn, UnflattenFn], object] | None = None  # set by frontend.transforms.jit: tells the jit fast path about a new node type


def set_on_register(fn: Callable[[type, FlattenFn, UnflattenFn], object]) -> None:
    """Install ``fn(cls, flatten, unflatten)``, called for each registered node type (those
    registered already included)."""
    global _on_register
    _on_register = fn
    for node in list(_REGISTRY.values()):
        fn(node.cls, node.flatten, node.unflatten)


# ----------------------------------------------------------------------------- key paths


class SequenceKey:
    __slots__ = ("idx",)

    def __init__(self, idx: Any) -> None:
        self.idx = idx

    def __str__(self) -> str:
        return f"[{self.idx!r}]"

    def __repr__(self) -> str:
        return f"SequenceKey(idx={self.idx!r})"

    def __eq__(self, o: object) -> bool:
        return type(o) is type(self) and o.idx == self.idx

    def __hash__(self) -> int:
        return hash((type(self), self.idx))


class DictKey(SequenceKey):
    __slots__ = ()

    def __repr__(self) -> str:
        return f"DictKey(key={self.idx!r})"

    key = property(lambda self: self.idx)


class GetAttrKey(SequenceKey):
    __slots__ = ()

    def __str__(self) -> str:
        return f".{self.idx}"

    def __repr__(self) -> str:
        return f"GetAttrKey(name={self.idx!r})"

    name = property(lambda self: self.idx)


class FlattenedIndexKey(SequenceKey):
    __slots__ = ()

    def __str__(self) -> str:
        return f"[<flat index {self.idx!r}>]"

    def __repr__(self) -> str:
        return f"FlattenedIndexKey(key={self.idx!r})"

    key = property(lambda self: self.idx)


def child_keys(td: TreeDef) -> list[SequenceKey]:
    """The keys of a node's children as its treedef tells them (a custom node's keys that
    depend on its value, ``with_keys``, come from ``keyed_children``)."""
    return _keys_of(td.kind, td.meta, len(td.children))


def _keys_of(kind: str, meta: Any, n: int) -> list[SequenceKey]:
    if kind == "dict":
        return [DictKey(k) for k in meta]
    if kind == "namedtuple":
        return [GetAttrKey(name) for name in meta._fields]
    if kind == "custom":
        names = _REGISTRY[meta.cls].names
        if names is not None:
            return [GetAttrKey(name) for name in names]
        return [FlattenedIndexKey(i) for i in range(n)]
    return [SequenceKey(i) for i in range(n)]


def keyed_children(x: Any) -> tuple[str, Any, list[tuple[Any, Any]]] | None:
    """(kind, meta, [(key, child), ...]) of the node ``x`` one level down (the keys a
    ``with_keys`` node gives for this value), or None for a leaf."""
    node = _REGISTRY.get(type(x))
    if node is not None and node.with_keys is not None:
        pairs, aux = node.with_keys(x)
        return "custom", NodeData(type(x), aux), [tuple(p) for p in pairs]
    n = _node_of(x)
    if n is None:
        return None
    kind, meta, kids = n
    return kind, meta, list(zip(_keys_of(kind, meta, len(kids)), kids, strict=True))


def _flatten_keyed(x: Any, prefix: tuple, out: list, is_leaf: IsLeaf) -> TreeDef:
    if is_leaf is not None and is_leaf(x) or type(x) in _LEAF_TYPES:
        out.append((prefix, x))
        return LEAF
    n = keyed_children(x)
    if n is None:
        out.append((prefix, x))
        return LEAF
    kind, meta, pairs = n
    if kind == "none":
        return NONE
    return TreeDef(kind, meta, tuple([_flatten_keyed(c, prefix + (k,), out, is_leaf)
                                      for k, c in pairs]))


def leaf_key_paths(td: TreeDef, prefix: tuple[SequenceKey, ...] = ()) \
        -> list[tuple[SequenceKey, ...]]:
    """The key path (a tuple of keys) of each leaf of ``td``, in flattening order."""
    if td.kind == "leaf":
        return [prefix]
    out: list[tuple[SequenceKey, ...]] = []
    for k, c in zip(child_keys(td), td.children, strict=True):
        out += leaf_key_paths(c, prefix + (k,))
    return out


def keystr(path: Sequence[Any], *, simple: bool = False, separator: str = "") -> str:
    """A key path as text: ``['a'][0].b`` (``simple``: the bare keys, ``a/0/b`` with
    ``separator='/'``), as JAX's keystr."""
    if simple:
        return separator.join([str(k.idx) if isinstance(k, SequenceKey) else str(k) for k in path])
    return separator.join([str(k) for k in path])


def key_paths(td: TreeDef, prefix: str = "") -> list[str]:
    """Readable paths of the leaves of ``td``: ``[0]['w']``, in flattening order."""
    return [prefix + keystr(p) for p in leaf_key_paths(td)]


def tree_flatten_with_path(tree: Any, is_leaf: IsLeaf = None) \
        -> tuple[list[tuple[tuple[SequenceKey, ...], Any]], TreeDef]:
    out: list = []
    td = _flatten_keyed(tree, (), out, is_leaf)
    return out, td


def tree_leaves_with_path(tree: Any, is_leaf: IsLeaf = None) \
        -> list[tuple[tuple[SequenceKey, ...], Any]]:
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any,
                       is_leaf: IsLeaf = None) -> Any:
    pairs, td = tree_flatten_with_path(tree, is_leaf)
    others = [td.flatten_up_to(r) for r in rest]
    return td.unflatten([f(p, x, *xs) for (p, x), *xs in zip(pairs, *others, strict=True)])


# ----------------------------------------------------------------------------- prefixes


def broadcast_prefix(prefix: Any, full_td: TreeDef, name: str, is_leaf: IsLeaf = None) -> list[Any]:
    """Expand a pytree prefix (e.g. in_axes) to one entry per leaf of ``full_td``; None and
    ints in the prefix are leaves, and so are the entries for which ``is_leaf`` is true (e.g.
    PartitionSpecs, which are tuples)."""
    out: list = []

    def go(p: Any, td: TreeDef, path: str) -> None:
        leafy = is_leaf is not None and p is not None and is_leaf(p)
        n = None if p is None or leafy else _node_of(p)
        if n is None or td.kind == "leaf":
            if n is not None and td.kind == "leaf":
                raise ValueError(f"{name} specification {prefix!r} does not match the argument "
                                 f"structure: got a container at {path or 'the top'} where the "
                                 "argument is a single array")
            out.extend([p] * td.num_leaves)
            return
        if td.kind == "none":
            return
        kind, meta, kids = n
        if td.kind == "dict":
            if kind != "dict" or set(meta) != set(td.meta):
                raise ValueError(f"{name} specification {prefix!r} does not match the argument "
                                 f"structure {td} at {path or 'the top'}")
            for k, c in zip(td.meta, td.children, strict=True):
                go(p[k], c, f"{path}[{k!r}]")
            return
        if kind == "custom" or td.kind == "custom":
            if kind != td.kind or meta != td.meta:
                raise ValueError(f"{name} specification {prefix!r} does not match the argument "
                                 f"structure {td} at {path or 'the top'}: expected a "
                                 f"{td.meta.__name__ if td.kind == 'custom' else td.kind} node, "
                                 f"got {type(p).__name__}")
        elif kind == "dict" or len(kids) != len(td.children):
            raise ValueError(f"{name} specification {prefix!r} does not match the argument "
                             f"structure {td} at {path or 'the top'}: expected "
                             f"{len(td.children)} entries, got "
                             f"{len(kids) if kind != 'dict' else 'a dict'}")
        for i, (q, c) in enumerate(zip(kids, td.children, strict=True)):
            go(q, c, f"{path}[{i}]")

    go(prefix, full_td, "")
    return out
