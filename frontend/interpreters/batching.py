"""The batching trace: the core of vmap.

A BatchTracer holds a value of the enclosing trace whose batch axis is at ``bdim`` (None:
not batched). Binding a primitive with some batched operand calls the primitive's batching
rule, ``rule(batched_args, batch_dims, **params) -> (out, out_dim)``, under the enclosing
trace. A primitive without a rule goes to the fallback installed with ``set_fallback`` (the
sequential loop of frontend.transforms.vmap), so this module needs no primitive.

Named axes: ``vmap(f, axis_name='i')`` gives its BatchTrace a name. Collectives
(``CollectivePrimitive``: psum, all_gather, axis_index, ...) name the axes they work across;
the trace whose name they carry runs their batching rule even when no operand is batched
there (so do control-flow primitives whose sub-graphs hold such a collective), and a rule
reads the name and size of the trace running it with ``rule_axis()``. The body of a
shard_map is traced with the mesh axes bound as names (``ManualTrace``): there the
collectives are recorded, and lowered to XLA's. A name that nothing binds is a NameError when
the collective is bound. ``vmap(spmd_axis_name=...)`` records the mesh axes its batch axis is
sharded over (``BatchTrace.spmd_axis_name``), read by the sharding primitives' rules.
"""
from __future__ import annotations

import contextvars
import weakref
from typing import Callable

import numpy as np

from ..core.ir import (
    EVAL,
    Aval,
    Graph,
    GraphTrace,
    GraphTracer,
    Primitive,
    Trace,
    Tracer,
    _trace_var,
    aval_of,
    current_trace,
    escaped_tracer_error,
    new_trace,
    param_graphs,
)


class BatchTracer(Tracer):
    """``aval``: the per-example aval (``val``'s without the batch axis ``bdim``)."""

    __slots__ = ("val", "bdim", "aval")

    def __init__(self, trace, val, bdim, aval=None):
        self._trace = trace
        self.val = val
        self.bdim = bdim
        if aval is None:  # (a caller that checked bdim against val's aval passes the result)
            aval = aval_of(val)
            aval = aval if bdim is None else per_example_aval(aval, bdim)
        self.aval = aval

    def __repr__(self):
        return f"BatchTracer<{self.aval.str_short()}, bdim={self.bdim}>"


_PER_EXAMPLE: dict = {}  # (batched aval, bdim) -> per-example aval (avals are interned)


def per_example_aval(a: Aval, bdim: int) -> Aval:
    """``a`` without its axis ``bdim``."""
    key = (a, bdim)
    out = _PER_EXAMPLE.get(key)
    if out is None:
        s = a.shape
        out = Aval(s[:bdim] + s[bdim + 1:], a.dtype, a.weak_type)
        if len(_PER_EXAMPLE) > 100_000:
            _PER_EXAMPLE.clear()
        _PER_EXAMPLE[key] = out
    return out


_fallback: Callable | None = None


def set_fallback(fn) -> None:
    """Install ``fn(trace, prim, vals, dims, params) -> (out, out_dim)``, used for primitives
    without a batching rule."""
    global _fallback
    _fallback = fn


# The BatchTrace whose batching rule is running (read by rules with rule_axis()). A rule
# computes with the parent trace current, so the parent holds it (``_batch_rule``): a trace
# belongs to the thread that made it, and an attribute costs a fraction of a context variable
# on this per-equation path. The eager trace is every thread's, so for a vmap of eager code
# the context variable holds it.
_rule_trace: contextvars.ContextVar = contextvars.ContextVar("vmaplab_batch_rule", default=None)


class BatchTrace(Trace):
    """``spmd_axis_name``: the mesh axes (a tuple of names) the batch axis is sharded over
    where a sharding is given inside (vmap's ``spmd_axis_name``), or None."""

    def __init__(self, parent, axis_size: int, axis_name=None, spmd_axis_name=None):
        super().__init__(parent)
        self.axis_size = axis_size
        self.axis_name = axis_name
        self.spmd_axis_name = spmd_axis_name

    def process(self, prim, args, params):
        vals, dims = [], []
        batched = False
        for a in args:
            if type(a) is BatchTracer and a._trace is self:
                vals.append(a.val)
                dims.append(a.bdim)
                batched = batched or a.bdim is not None
            else:
                if isinstance(a, Tracer) and not a._trace.is_ancestor_of(self):
                    raise escaped_tracer_error(a)
                vals.append(a)
                dims.append(None)
        rule = prim.batching_rule
        token = _trace_var.set(self.parent)  # the rule computes with the enclosing trace
        try:
            if not batched and (self.axis_name is None or rule is None
                                or not uses_axis(prim, params, self.axis_name)):
                return prim.bind(*vals, **params)
            parent = self.parent
            if parent is EVAL:
                rule_token = _rule_trace.set(self)
            else:
                saved, parent._batch_rule = parent._batch_rule, self
            try:
                if rule is not None:
                    out, out_dim = rule(tuple(vals), tuple(dims), **params)
                else:
                    if _fallback is None:
                        raise NotImplementedError(f"primitive {prim.name!r} has no batching rule")
                    prim.looped = True  # (a batching rule set later drops these programs)
                    out, out_dim = _fallback(self, prim, tuple(vals), tuple(dims), params)
            finally:
                if parent is EVAL:
                    _rule_trace.reset(rule_token)
                else:
                    parent._batch_rule = saved
        finally:
            _trace_var.reset(token)
        if prim.multiple_results:
            return [self._result(prim, o, d) for o, d in zip(out, out_dim, strict=True)]
        return self._result(prim, out, out_dim)

    def _result(self, prim, out, d) -> BatchTracer:
        """A rule's result as a tracer, its out_dim checked (a user's rule may return
        anything)."""
        a = out.aval if type(out) is GraphTracer else aval_of(out)
        if d is None:
            return BatchTracer(self, out, None, a)
        if type(d) is int and 0 <= d < len(a.shape):
            e = _PER_EXAMPLE.get((a, d))
            return BatchTracer(self, out, d, e if e is not None else per_example_aval(a, d))
        raise _bad_out_dim(prim, out, d)


def _bad_out_dim(prim, out, d) -> ValueError:
    return ValueError(f"the batching rule of primitive {prim.name!r} returned out_dim={d!r} for "
                      f"a result of shape {shape(out)}: it must be None (not batched) or an axis "
                      f"of the result, in [0, {ndim(out)})")


def batch_fun(fun, axis_size: int, args, in_dims, axis_name=None, spmd_axis_name=None) -> tuple:
    """Run ``fun`` (flat values in, flat list out) with ``args[i]`` batched at ``in_dims[i]``
    (None: not batched) over an axis named ``axis_name`` (None: anonymous), sharded over the
    mesh axes ``spmd_axis_name`` (a tuple, or None). Returns (values, batch dims) of the
    outputs, values of the enclosing trace; an output that does not depend on a batched input
    (nor on the axis through a collective) has dim None."""
    with new_trace(BatchTrace, axis_size, axis_name, spmd_axis_name) as tr:
        tracers = [BatchTracer(tr, a, d) if d is not None else a for a, d in zip(args, in_dims)]
        outs = fun(*tracers)
    vals, dims = [], []
    for o in outs:
        if isinstance(o, BatchTracer) and o._trace is tr:
            vals.append(o.val)
            dims.append(o.bdim)
        else:
            vals.append(o)
            dims.append(None)
    return vals, dims


# ----------------------------------------------------------------------------- rule helpers
# (helpers that bind primitives, e.g. moveaxis, live with the shape primitives)


def ndim(x) -> int:
    a = aval_of(x, host=False)
    return len(a.shape) if a is not None else np.ndim(x)


def shape(x) -> tuple:
    a = aval_of(x, host=False)
    return a.shape if a is not None else np.shape(x)


def axis_size(args, dims) -> int:
    """The size of the batch axis, read off the first batched argument (or, when none is,
    off the vmap whose rule is running: a collective or a loop over its named axis)."""
    for a, d in zip(args, dims):
        if d is not None:
            return shape(a)[d]
    t = rule_axis()
    if t is not None:
        return t.axis_size
    raise ValueError("axis_size: no argument is batched")


def rule_axis() -> BatchTrace | None:
    """The vmap trace whose batching rule is running (``.axis_name``, ``.axis_size``): asked
    by the rule itself (with the trace it computes with current), not from inside a function
    the rule traces."""
    t = _trace_var.get()
    return _rule_trace.get() if t is EVAL else t._batch_rule


# ----------------------------------------------------------------------------- named axes


class ManualTrace(GraphTrace):
    """Records the body of a shard_map: a graph of one device's work, in which the mesh axes
    (``mesh_axes``: name -> size) are bound names for collectives (lowered to XLA's).
    ``check_vma``: the user's body of a shard_map with check_vma=True (JAX types its values
    by the mesh axes they vary over, which changes derivatives taken inside it)."""

    def __init__(self, parent, mesh_axes: dict, check_vma: bool = False):
        super().__init__(parent)
        self.mesh_axes = mesh_axes
        self.check_vma = check_vma


def check_vma_body() -> bool:
    """Whether the innermost enclosing shard_map body being traced has check_vma=True."""
    t = current_trace()
    while t is not None:
        if isinstance(t, ManualTrace):
            return t.check_vma
        t = t.parent
    return False


def find_axis_size(name) -> int | None:
    """The size of the innermost enclosing axis named ``name``: a named vmap, or a mesh axis
    of an enclosing shard_map (None when nothing binds it)."""
    t = current_trace()
    while t is not None:
        if isinstance(t, BatchTrace):
            if t.axis_name is not None and t.axis_name == name:
                return t.axis_size
        elif isinstance(t, ManualTrace) and name in t.mesh_axes:
            return t.mesh_axes[name]
        t = t.parent
    return None


def bound_axis_names() -> list:
    """The axis names the enclosing vmaps and shard_maps bind, innermost first."""
    out, t = [], current_trace()
    while t is not None:
        if isinstance(t, BatchTrace) and t.axis_name is not None:
            out.append(t.axis_name)
        elif isinstance(t, ManualTrace):
            out.extend(t.mesh_axes)
        t = t.parent
    return out


def unbound_axis_error(name, api: str) -> NameError:
    return NameError(f"Found an unbound axis name: {name}. To fix this, please call {api} "
                     f"under a vmap that binds it: vmap(f, axis_name={name!r}), or a shard_map "
                     f"over a mesh with that axis (axis names bound here: {bound_axis_names()})")


def axis_size_of(name, api: str) -> int:
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

    def __init__(self, name: str, names_param: str = "axis_name"):
        super().__init__(name)
        self.names_param = names_param

    def axis_names(self, params) -> tuple:
        names = params[self.names_param]
        return names if isinstance(names, tuple) else (names,)

    def bind(self, *args, **params):
        for n in self.axis_names(params):
            if find_axis_size(n) is None:
                raise unbound_axis_error(n, self.name)
        self.abstract_eval(*(aval_of(a) for a in args), **params)
        return super().bind(*args, **params)


_GRAPH_NAMES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def names_in_params(params) -> frozenset:
    out: frozenset = frozenset()
    for v in params.values():
        for g in param_graphs(v):
            out |= graph_axis_names(g)
    return out


def graph_axis_names(g: Graph) -> frozenset:
    """The axis names the collectives of ``g`` (sub-graphs included) work across."""
    names = _GRAPH_NAMES.get(g)
    if names is None:
        names = frozenset()
        for e in g.eqns:
            if isinstance(e.prim, CollectivePrimitive):
                names |= frozenset(e.prim.axis_names(e.params))
            names |= names_in_params(e.params)
        _GRAPH_NAMES[g] = names
    return names


def uses_axis(prim, params, name) -> bool:
    """Whether binding ``prim`` refers to the named axis: a collective over it, or a primitive
    with sub-graphs (loops, branches) holding one."""
    if isinstance(prim, CollectivePrimitive):
        return name in prim.axis_names(params)
    return name in names_in_params(params)


def moved_shape(shp, src: int, dst: int) -> tuple:
    """The shape after moving axis ``src`` to ``dst``."""
    shp = list(shp)
    shp.insert(dst, shp.pop(src))
    return tuple(shp)
