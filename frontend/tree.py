"""Pytrees: tuples, lists, dicts (sorted keys), namedtuples and None containers; everything
else is a leaf. Treedefs are hashable so they can be part of a jit cache key."""
from __future__ import annotations


class TreeDef:
    __slots__ = ("kind", "meta", "children", "num_leaves", "_hash")

    def __init__(self, kind, meta, children):
        self.kind = kind          # "leaf", "none", "tuple", "list", "dict", "namedtuple"
        self.meta = meta          # dict keys / namedtuple class
        self.children = children  # tuple of TreeDef
        self.num_leaves = 1 if kind == "leaf" else sum(c.num_leaves for c in children)
        self._hash = hash((kind, meta, children))

    def __eq__(self, other):
        return (isinstance(other, TreeDef) and self._hash == other._hash and self.kind == other.kind
                and self.meta == other.meta and self.children == other.children)

    def __hash__(self):
        return self._hash

    def __repr__(self):
        if self.kind == "leaf":
            return "*"
        if self.kind == "none":
            return "None"
        inner = ", ".join(map(repr, self.children))
        if self.kind == "dict":
            inner = ", ".join(f"{k!r}: {c!r}" for k, c in zip(self.meta, self.children))
            return "{" + inner + "}"
        if self.kind == "list":
            return "[" + inner + "]"
        return "(" + inner + ("," if len(self.children) == 1 else "") + ")"

    def unflatten(self, leaves):
        it = iter(leaves)
        out = self._build(it)
        return out

    def _build(self, it):
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
            return dict(zip(self.meta, kids))
        return self.meta(*kids)


LEAF = TreeDef("leaf", None, ())
NONE = TreeDef("none", None, ())


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _flatten(x, leaves, is_leaf):
    if is_leaf is not None and is_leaf(x):
        leaves.append(x)
        return LEAF
    if x is None:
        return NONE
    t = type(x)
    if t is tuple or t is list:
        kids = tuple(_flatten(c, leaves, is_leaf) for c in x)
        return TreeDef("tuple" if t is tuple else "list", None, kids)
    if t is dict:
        keys = tuple(sorted(x))
        return TreeDef("dict", keys, tuple(_flatten(x[k], leaves, is_leaf) for k in keys))
    if _is_namedtuple(x):
        return TreeDef("namedtuple", t, tuple(_flatten(c, leaves, is_leaf) for c in x))
    leaves.append(x)
    return LEAF


def tree_flatten(x, is_leaf=None):
    leaves: list = []
    return leaves, _flatten(x, leaves, is_leaf)


def tree_unflatten(treedef: TreeDef, leaves):
    return treedef.unflatten(leaves)


def tree_leaves(x):
    return tree_flatten(x)[0]


def tree_map(f, x, *rest):
    leaves, td = tree_flatten(x)
    others = [td_flatten_as(td, r) for r in rest]
    return td.unflatten([f(*xs) for xs in zip(leaves, *others)])


def td_flatten_as(td: TreeDef, x):
    leaves, td2 = tree_flatten(x)
    if td2 != td:
        raise ValueError(f"pytree structure {td2} does not match {td}")
    return leaves


def key_paths(td: TreeDef, prefix: str = ""):
    """Readable paths of the leaves of ``td``: ``[0]['w']``, in flattening order."""
    if td.kind == "leaf":
        return [prefix]
    if td.kind == "none":
        return []
    out = []
    keys = td.meta if td.kind == "dict" else range(len(td.children))
    for k, c in zip(keys, td.children):
        out += key_paths(c, f"{prefix}[{k!r}]")
    return out


def broadcast_prefix(prefix, full_td: TreeDef, name: str, is_leaf=None):
    """Expand a pytree prefix (e.g. in_axes) to one entry per leaf of ``full_td``; None and
    ints in the prefix are leaves, and so are the entries for which ``is_leaf`` is true (e.g.
    PartitionSpecs, which are tuples)."""
    out: list = []

    def go(p, td, path):
        if p is None or not isinstance(p, (tuple, list, dict)) or td.kind == "leaf" or (
                is_leaf is not None and is_leaf(p)):
            if isinstance(p, (tuple, list, dict)) and td.kind == "leaf" and not (
                    is_leaf is not None and is_leaf(p)):
                raise ValueError(f"{name} specification {prefix!r} does not match the argument "
                                 f"structure: got a container at {path or 'the top'} where the "
                                 "argument is a single array")
            out.extend([p] * td.num_leaves)
            return
        if td.kind == "none":
            return
        if td.kind == "dict":
            if not isinstance(p, dict) or set(p) != set(td.meta):
                raise ValueError(f"{name} specification {prefix!r} does not match the argument "
                                 f"structure {td} at {path or 'the top'}")
            for k, c in zip(td.meta, td.children):
                go(p[k], c, f"{path}[{k!r}]")
            return
        if isinstance(p, dict) or len(p) != len(td.children):
            raise ValueError(f"{name} specification {prefix!r} does not match the argument "
                             f"structure {td} at {path or 'the top'}: expected "
                             f"{len(td.children)} entries, got "
                             f"{len(p) if not isinstance(p, dict) else 'a dict'}")
        for i, (q, c) in enumerate(zip(p, td.children)):
            go(q, c, f"{path}[{i}]")

    go(prefix, full_td, "")
    return out
