"""Shared tracing entry points: turning Python functions on pytrees into Graphs.

Used by jit/make_graph (frontend.transforms.jit), by the control-flow primitives and wrappers (loop
bodies and branches are traced into sub-Graphs, closed over values become explicit
operands), and by vmap's loop helpers.
"""
from __future__ import annotations

import functools
import inspect

import numpy as np

from ..device.array import Array, eager_fn, eager_fns, from_foreign
from ..interpreters.batching import ManualTrace
from . import dtypes
from .ir import (
    EVAL,
    Aval,
    Eqn,
    Graph,
    GraphTrace,
    Literal,
    ShapeDtypeStruct,
    Tracer,
    _trace_var,
    aval_of,
    new_trace,
    subgraphs,
)
from .pytree import TreeDef, key_paths, tree_flatten, tree_unflatten

_SCALARS = (bool, int, float, complex)


def arg_names(fun, n_args: int) -> list:
    """Parameter names of the positional arguments (for error messages)."""
    try:
        ps = [p.name for p in inspect.signature(fun).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        ps = []
    return [ps[i] if i < len(ps) else f"args[{i}]" for i in range(n_args)]


def leaf_paths(fun, args, kwargs, td) -> list:
    """Readable names of the flattened leaves of (args, kwargs): ``x``, ``params['w']``."""
    names = arg_names(fun, len(args))
    paths = []
    arg_tds = td.children[0].children
    for name, atd in zip(names, arg_tds):
        paths += [name + p for p in key_paths(atd)]
    kw_td = td.children[1]
    for k, ktd in zip(kw_td.meta or (), kw_td.children):
        paths += [k + p for p in key_paths(ktd)]
    return paths


_NATIVE = (Array, Tracer, ShapeDtypeStruct, np.ndarray, np.generic) + _SCALARS


def adopt_foreign(leaves: list) -> list:
    """Argument leaves with arrays of other libraries (jax.Array, DLPack, ``__array__``) as
    Arrays: a jax.Array's device buffer is taken as it is (no copy)."""
    if all(isinstance(x, _NATIVE) or x is None for x in leaves):
        return leaves
    out = []
    for x in leaves:
        f = None if isinstance(x, _NATIVE) else from_foreign(x)
        out.append(x if f is None else f)
    return out


def abstractify(x, path: str, fun) -> Aval:
    """The aval of a function argument; a TypeError naming its path when it is no array."""
    if isinstance(x, (Array, Tracer, ShapeDtypeStruct)):
        return x.aval
    why = ""
    if isinstance(x, np.ndarray) or isinstance(x, np.generic):
        try:
            return Aval(np.shape(x), dtypes.canonicalize(x.dtype), False)
        except TypeError as e:
            why = f" ({e})"
    elif isinstance(x, _SCALARS):
        return aval_of(x)
    raise TypeError(
        f"Error interpreting argument to {getattr(fun, '__name__', fun)} as an abstract array. "
        f"The problematic value is of type {type(x)} and was passed to the function at path "
        f"{path}{why}. Arguments must be arrays (frontend.Array, numpy.ndarray), Python "
        "scalars, or pytrees (tuple, list, dict) of them; mark other arguments static.")


def as_traceable(o):
    """A function output as something a trace can record (TypeError for anything else)."""
    if isinstance(o, (Tracer, Array, np.ndarray, Literal)) or isinstance(o, _SCALARS):
        return o
    if isinstance(o, np.generic):
        return np.asarray(o)
    raise TypeError(f"function returned a value of type {type(o).__name__}: outputs must be "
                    "arrays, scalars, or pytrees of them")


def leaf_aval(x) -> Aval:
    """The aval of a pytree leaf operand (JAX's wording for a non-array)."""
    if isinstance(x, (Tracer, Literal)) or hasattr(x, "aval"):
        return x.aval
    try:
        return aval_of(x)
    except TypeError as e:
        why = f" ({e})" if isinstance(x, (np.ndarray, np.generic)) else ""
        raise TypeError(f"Value {x!r} of type {type(x)} is not a valid JAX type{why}") from None


def trace_graph(fn, in_avals, mesh_axes=None, check_vma=False) -> Graph:
    """Trace ``fn`` (flat values in, flat list out) on abstract inputs into a Graph; what it
    closes over is in the graph's constvars/consts. ``mesh_axes`` (name -> size): trace the
    body of a shard_map, in which those names are bound for collectives (``check_vma``: the
    user's body of a shard_map with check_vma=True)."""
    with (new_trace(GraphTrace) if mesh_axes is None else
          new_trace(ManualTrace, mesh_axes, check_vma)) as tr:
        args = [tr.new_arg(a) for a in in_avals]
        outs = [as_traceable(o) for o in fn(*args)]
    return tr.to_graph(args, outs)


def eager_fused(n_arrays: int):
    """Decorate a numpy-style function whose first ``n_arrays`` positional arguments are
    arrays and whose other arguments are static: called eagerly on Arrays it runs as ONE
    compiled executable per signature (as JAX's jitted numpy functions), not one per
    primitive; otherwise (under a transformation, with Python scalars or host arrays, or an
    unhashable static argument) it is an ordinary call."""
    def wrap(fun):
        @functools.wraps(fun)
        def fused(*args, **kwargs):
            if _trace_var.get() is not EVAL or len(args) < n_arrays:
                return fun(*args, **kwargs)
            for a in args[:n_arrays]:
                if type(a) is not Array:
                    return fun(*args, **kwargs)
            if len(args) == n_arrays and not kwargs:
                # the common case: operands only, seen before (``fun`` is _run_fused's key)
                run = eager_fns.get(fun)
                if run is not None:
                    return run(*args)
            return _run_fused(fun, args, kwargs, range(n_arrays))
        return fused
    return wrap


def eager_jit(fun):
    """Decorate a function whose Array positional arguments are operands and whose other
    arguments (Python scalars, shapes, dtypes, keywords) are static: called eagerly it runs
    as ONE compiled executable per static values and operand signature (as a jitted
    function with static arguments); under a transformation, or with a host array or an
    unhashable static argument, it is an ordinary call."""
    @functools.wraps(fun)
    def fused(*args, **kwargs):
        if _trace_var.get() is not EVAL:
            return fun(*args, **kwargs)
        idx = [i for i, a in enumerate(args) if type(a) is Array]
        if len(idx) < len(args) and any(isinstance(a, (np.ndarray, Tracer)) for a in args):
            return fun(*args, **kwargs)
        return _run_fused(fun, args, kwargs, idx)
    return fused


def _run_fused(fun, args, kwargs, idx):
    """fun(*args, **kwargs) as one executable whose operands are ``args[i]`` for i in idx
    (Arrays); the other arguments are baked into the graph and its cache key."""
    n = len(args)
    if len(idx) == n and not kwargs:  # the common case: all operands
        key = fun
        static = ()
    else:
        idx = tuple(idx)
        static = tuple((i, a) for i, a in enumerate(args) if i not in idx)
        try:
            key = (fun, idx, tuple((i, param_key(a)) for i, a in static),
                   tuple((k, param_key(v)) for k, v in sorted(kwargs.items())))
            hash(key)
        except TypeError:  # an unhashable static argument
            return fun(*args, **kwargs)

    def call(*xs):
        full = [None] * n
        for i, x in zip(idx, xs):
            full[i] = x
        for i, a in static:
            full[i] = a
        return [fun(*full, **kwargs)]

    run = eager_fn(fun.__name__, key, lambda avals: trace_graph(call, avals))
    return run(*[args[i] for i in idx])


def flatten_fun(fun, in_td: TreeDef, box: list):
    """``fun`` on pytrees -> a function on flat leaves; the output treedef goes to ``box``."""
    def flat(*leaves):
        out = fun(*tree_unflatten(in_td, leaves))
        outs, td = tree_flatten(out)
        box.append(td)
        return outs
    return flat


def closure_convert(g: Graph):
    """(g with its captured values as leading invars, the captured values)."""
    return intern_graph(Graph(tuple(g.constvars) + tuple(g.invars), (), (), g.eqns, g.outvars)), \
        list(g.consts)


# ----------------------------------------------------------------------------- interning

_INTERNED: dict = {}


def param_key(v):
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


def literal_key(a: Literal):
    """A hashable key of a Literal: its type, value (by repr) and aval."""
    return ("L", type(a.val).__name__, repr(a.val), a.aval)


def _graph_key(g: Graph):
    """A structural key of a graph without constants (None when it has some): equal keys,
    equal computations."""
    if g.consts:
        return None
    ids: dict = {}

    def atom(a):
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


# ----------------------------------------------------------------------------- graph upkeep
# (the graph passes of frontend.passes and the autodiff graph transforms share these)


def _intern_unless_consts(g: Graph) -> Graph:
    return intern_graph(g) if not g.consts else g


def map_subgraphs(e: Eqn, fn) -> Eqn:
    """``e`` with ``fn`` (Graph -> Graph, keeping the signature) applied to every Graph in its
    params (cond branches, loop bodies); ``e`` itself when no sub-graph changed."""
    new = None
    for k, v in e.params.items():
        t = type(v)
        if t is not Graph and (t is not tuple or not v or type(v[0]) is not Graph):
            continue
        if t is Graph:
            nv = fn(v)
            if nv is v:
                continue
            nv = _intern_unless_consts(nv)
        else:
            nv = tuple(fn(x) for x in v)
            if all(a is b for a, b in zip(nv, v)):
                continue
            nv = tuple(_intern_unless_consts(x) for x in nv)
        if new is None:
            new = dict(e.params)
        new[k] = nv
    return e if new is None else Eqn(e.prim, e.inputs, new, e.outs)


def has_side_effects(g: Graph) -> bool:
    """Whether an equation of ``g`` (or of a sub-graph) declares ``has_side_effect``."""
    return any(e.params.get("has_side_effect") for e in g.eqns) \
        or any(has_side_effects(s) for e in g.nested for s in subgraphs(e))


def dce(g: Graph) -> Graph:
    """Dead-code elimination: drop equations none of whose outputs are used (primitives are
    pure; a call declaring ``has_side_effect`` is kept) and constants nobody reads, also
    inside sub-graphs."""
    live = {v for v in g.outvars if type(v) is not Literal}  # Vars (identity hashed)
    nested = g.nested
    kept = []
    changed = False
    for e in reversed(g.eqns):
        outs = e.outs
        if (outs[0] in live if len(outs) == 1 else not live.isdisjoint(outs)) \
                or e.params.get("has_side_effect"):
            if nested and e.params:
                e2 = map_subgraphs(e, dce)
                if e2 is not e:
                    changed, e = True, e2
            kept.append(e)
            live.update(e.inputs)  # (Literals too: harmless, never looked up)
    if not changed and len(kept) == len(g.eqns) and live.issuperset(g.constvars):
        return g
    kept.reverse()
    cv = [(v, c) for v, c in zip(g.constvars, g.consts) if v in live]
    return Graph(g.invars, tuple(v for v, _ in cv), tuple(c for _, c in cv), tuple(kept), g.outvars)
