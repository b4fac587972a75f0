"""The header of vmaplab's export artifacts (frontend/export.py): types (symbolic dimensions
as their text), pytrees and dtypes as JSON, each field checked when read (a ValueError
"corrupt artifact: ..." for anything malformed), and the namedtuple registry of
``register_namedtuple_serialization``."""
from __future__ import annotations

import numpy as np

from .core import dtypes
from .core.ir import Aval
from .core.pytree import tree_flatten
from .core.shape_poly import SymbolicScope, symbolic_shape


def _kind(v) -> str:
    """How a JSON value is named in an error: 'the string', 'the list', ..."""
    return {str: "the string", list: "the list", dict: "the object", bool: "the bool",
            float: "the number", int: "the int", type(None): "null"}.get(type(v), "the value")


def _header_fields(h: dict) -> tuple:
    """(fun_name, in_tree, in_avals, out_tree, out_avals, platforms, module_kept_var_idx)
    of a header, each checked: a ValueError "corrupt artifact: ..." for anything malformed."""
    def need(key, kind, what):
        if key not in h:
            raise ValueError(f"corrupt artifact: the header has no {key}")
        v = h[key]
        if not isinstance(v, kind) or isinstance(v, bool) and kind is not bool:
            raise ValueError(f"corrupt artifact: {key} must be {what}, got {_kind(v)} "
                             f"{str(v)[:100]}")
        return v

    fun_name = need("fun_name", str, "a string")
    platforms = need("platforms", list, "a list of platform names")
    if not platforms or not all(isinstance(p, str) for p in platforms):
        raise ValueError(f"corrupt artifact: platforms must be a non-empty list of platform "
                         f"names, got {str(platforms)[:100]}")
    avals = {}
    scope = None
    if "symbolic_constraints" in h:
        cons = need("symbolic_constraints", list, "a list of constraint strings")
        try:
            scope = SymbolicScope([c if isinstance(c, str) else repr(c) for c in cons])
        except (ValueError, TypeError) as e:
            raise ValueError(f"corrupt artifact: symbolic_constraints: {e}") from None
    for key in ("in_avals", "out_avals"):
        lst = need(key, list, "a list of [shape, dtype, weak_type]")
        avals[key] = [_aval_from(a, f"{key}[{i}]", scope) for i, a in enumerate(lst)]
    in_tree = _tree_from_json(need("in_tree", (dict, str, type(None)), "a pytree"), "in_tree")
    out_tree = _tree_from_json(need("out_tree", (dict, str, type(None)), "a pytree"), "out_tree")
    for key, tree, n in (("in_tree", in_tree, len(avals["in_avals"])),
                         ("out_tree", out_tree, len(avals["out_avals"]))):
        if tree.num_leaves != n:
            other = key.replace("tree", "avals")
            raise ValueError(f"corrupt artifact: {key} has {tree.num_leaves} leaves but {other} "
                             f"has {n} types")
    if in_tree.kind != "tuple" or len(in_tree.children) != 2 or \
            in_tree.children[0].kind != "tuple" or in_tree.children[1].kind != "dict":
        raise ValueError(f"corrupt artifact: in_tree must be a pair (positional arguments "
                         f"tuple, keyword arguments dict), got {in_tree}")
    kept = need("module_kept_var_idx", list, "a list of argument indices")
    n_in = len(avals["in_avals"])
    if not all(type(i) is int and 0 <= i < n_in for i in kept) or kept != sorted(set(kept)):
        raise ValueError(f"corrupt artifact: module_kept_var_idx must be increasing argument "
                         f"indices below {n_in}, got {str(kept)[:100]}")
    return (fun_name, in_tree, avals["in_avals"], out_tree, avals["out_avals"], platforms, kept)


_NAMEDTUPLE_NAMES: dict = {}
_NAMEDTUPLES: dict = {}


def register_namedtuple_serialization(nodetype, *, serialized_name: str):
    """Let pytrees holding the namedtuple class ``nodetype`` be serialized, under
    ``serialized_name`` (as JAX's ``register_namedtuple_serialization``)."""
    if not (isinstance(nodetype, type) and issubclass(nodetype, tuple) and hasattr(nodetype, "_fields")):
        raise ValueError(f"{nodetype!r} is not a namedtuple class")
    _NAMEDTUPLE_NAMES[nodetype] = serialized_name
    _NAMEDTUPLES[serialized_name] = nodetype
    return nodetype


# the dtypes an artifact's types may have, by name
_DTYPES = {np.dtype(d).name: np.dtype(d) for d in dtypes._NODE_OF}


def _dtype_from(name):
    if not isinstance(name, str) or name not in _DTYPES:
        raise ValueError(f"corrupt artifact: unknown dtype {name!r}")
    return _DTYPES[name]


def _aval_json(a: Aval) -> list:
    return [[d if type(d) is int else str(d) for d in a.shape], a.dtype.name, a.weak_type]


def _aval_from(j, where: str = "aval", scope=None) -> Aval:
    """The Aval of a header's [shape, dtype, weak_type]; a symbolic dimension is its text,
    read in ``scope`` (one per artifact: the symbols of its avals are shared)."""
    if not isinstance(j, list) or len(j) != 3:
        raise ValueError(f"corrupt artifact: {where} must be [shape, dtype, weak_type], got "
                         f"{str(j)[:100]}")
    shape, name, weak = j
    if not isinstance(shape, list) or not all(
            (type(d) is int and 0 <= d < 2**62) or (type(d) is str and scope is not None)
            for d in shape):
        raise ValueError(f"corrupt artifact: {where} has the shape {str(shape)[:100]}: a shape "
                         "is a list of non-negative ints (and symbolic dimensions' texts)")
    if type(weak) is not bool:
        raise ValueError(f"corrupt artifact: {where} has weak_type {weak!r}: true or false")
    return Aval(_shape_from(shape, scope, where), _dtype_from(name), weak)


def _shape_from(shape, scope, where: str) -> tuple:
    """A shape of ints and symbolic dimensions' texts, the texts read in ``scope``."""
    if all(type(d) is int for d in shape):
        return tuple(shape)
    try:
        dims = [d if type(d) is int else symbolic_shape(d, scope=scope) for d in shape]
    except (ValueError, TypeError) as e:
        raise ValueError(f"corrupt artifact: {where} has the shape {str(shape)[:100]}: {e}") \
            from None
    if any(type(d) is tuple and len(d) != 1 for d in dims):
        raise ValueError(f"corrupt artifact: {where} has the shape {str(shape)[:100]}")
    return tuple(d if type(d) is int else d[0] for d in dims)


def _aval_triple(a: Aval) -> tuple:
    return tuple(d if type(d) is int else str(d) for d in a.shape), a.dtype, a.weak_type


def _tree_to_json(td):
    k = td.kind
    if k == "leaf":
        return "*"
    if k == "none":
        return None
    kids = [_tree_to_json(c) for c in td.children]
    if k in ("tuple", "list"):
        return {k: kids}
    if k == "dict":
        for key in td.meta:
            if not isinstance(key, str):
                raise ValueError(f"cannot serialize a pytree with the dict key {key!r}: only str "
                                 "keys are supported")
        return {"dict": [[key, c] for key, c in zip(td.meta, kids, strict=True)]}
    name = _NAMEDTUPLE_NAMES.get(td.meta)
    if name is None:
        raise ValueError(f"cannot serialize a pytree holding the namedtuple "
                         f"{td.meta.__qualname__}: register it with "
                         "frontend.export.register_namedtuple_serialization(cls, serialized_name=...)")
    return {"namedtuple": name, "children": kids}


_MAX_DEPTH = 100


def _tree_from_json(j, where: str = "pytree"):
    count = iter(range(1 << 62))

    def bad(what):
        return ValueError(f"corrupt artifact: {where} {what}")

    def kids(v, depth):
        if not isinstance(v, list):
            raise bad(f"has children {str(v)[:100]}, not a list")
        return [build(c, depth + 1) for c in v]

    def build(j, depth):
        if depth > _MAX_DEPTH:
            raise bad(f"is nested deeper than {_MAX_DEPTH} levels")
        if j == "*":
            return next(count)
        if j is None:
            return None
        if not isinstance(j, dict) or len(j) not in (1, 2):
            raise bad(f"holds {str(j)[:100]}, which is no pytree node")
        if len(j) == 1 and "tuple" in j:
            return tuple(kids(j["tuple"], depth))
        if len(j) == 1 and "list" in j:
            return kids(j["list"], depth)
        if len(j) == 1 and "dict" in j:
            items = j["dict"]
            if not isinstance(items, list) or not all(
                    isinstance(it, list) and len(it) == 2 and isinstance(it[0], str) for it in items) \
                    or len({it[0] for it in items}) != len(items):
                raise bad(f"holds the dict {str(items)[:100]}: a list of distinct [str key, node]")
            return {k: build(c, depth + 1) for k, c in items}
        if set(j) != {"namedtuple", "children"} or not isinstance(j["namedtuple"], str):
            raise bad(f"holds {str(j)[:100]}, which is no pytree node")
        cls = _NAMEDTUPLES.get(j["namedtuple"])
        if cls is None:
            raise ValueError(f"the artifact's pytree holds the namedtuple registered as "
                             f"{j['namedtuple']!r}: register that class with "
                             "frontend.export.register_namedtuple_serialization first")
        children = kids(j["children"], depth)
        if len(children) != len(cls._fields):
            raise bad(f"gives the namedtuple {j['namedtuple']!r} {len(children)} children, "
                      f"it has {len(cls._fields)} fields")
        return cls(*children)

    return tree_flatten(build(j, 0))[1]
