"""Public transformations: jit, vmap, make_graph."""
from __future__ import annotations

import functools
import inspect
import threading

import numpy as np

from . import _backend, dtypes
from .array import Array, to_buffer
from .batching import BatchTrace, BatchTracer, bdim_at, moveaxis
from .core import EVAL, Aval, Graph, GraphTrace, Literal, Tracer, _trace_var, aval_of, new_trace
from .passes import simplify
from .tree import broadcast_prefix, key_paths, tree_flatten, tree_unflatten

_SCALARS = (bool, int, float, complex)


def _arg_names(fun, n_args: int, kw: dict) -> list:
    """Parameter names of the positional arguments (for error messages)."""
    try:
        ps = [p.name for p in inspect.signature(fun).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        ps = []
    return [ps[i] if i < len(ps) else f"args[{i}]" for i in range(n_args)]


def _leaf_paths(fun, args, kwargs, td) -> list:
    """Readable names of the flattened leaves of (args, kwargs): ``x``, ``params['w']``."""
    names = _arg_names(fun, len(args), kwargs)
    paths = []
    arg_tds = td.children[0].children
    for name, atd in zip(names, arg_tds):
        paths += [name + p for p in key_paths(atd)]
    kw_td = td.children[1]
    for k, ktd in zip(kw_td.meta or (), kw_td.children):
        paths += [k + p for p in key_paths(ktd)]
    return paths


def _abstractify(x, path: str, fun) -> Aval:
    if isinstance(x, (Array, Tracer)):
        return x.aval
    if isinstance(x, np.ndarray) or isinstance(x, np.generic):
        try:
            return Aval(np.shape(x), dtypes.canonicalize(x.dtype), False)
        except TypeError:
            pass
    elif isinstance(x, _SCALARS):
        return aval_of(x)
    raise TypeError(
        f"Error interpreting argument to {getattr(fun, '__name__', fun)} as an abstract array. "
        f"The problematic value is of type {type(x)} and was passed to the function at path "
        f"{path}. Arguments must be arrays (frontend.Array, numpy.ndarray), Python scalars, "
        "or pytrees (tuple, list, dict) of them; mark other arguments static.")


def _trace_flat(fun, args, kwargs, static: dict, in_avals, td):
    """Trace ``fun`` on abstract leaves; return (graph, out_treedef)."""
    out_td_box = []

    def flat_fun(*leaves):
        a, kw = tree_unflatten(td, leaves)
        a = list(a)
        for i, v in static.items():
            a.insert(i, v)
        out = fun(*a, **kw)
        outs, otd = tree_flatten(out)
        out_td_box.append(otd)
        return [_as_traceable(o) for o in outs]

    with new_trace(GraphTrace) as tr:
        tracers = [tr.new_arg(a) for a in in_avals]
        outs = flat_fun(*tracers)
    return tr.to_graph(tracers, outs), out_td_box[0]


def _as_traceable(o):
    if isinstance(o, (Tracer, Array, np.ndarray, Literal)) or isinstance(o, _SCALARS):
        return o
    if isinstance(o, np.generic):
        return np.asarray(o)
    raise TypeError(f"function returned a value of type {type(o).__name__}: outputs must be "
                    "arrays, scalars, or pytrees of them")


def _split_static(args, static_argnums):
    if not static_argnums:
        return args, {}
    n = len(args)
    idx = sorted({i % n if -n <= i < n else i for i in static_argnums})
    for i in idx:
        if i >= n:
            raise ValueError(f"jitted function has static_argnums={static_argnums} but was "
                             f"called with only {n} positional arguments")
    static = {i: args[i] for i in idx}
    for i, v in static.items():
        try:
            hash(v)
        except TypeError:
            raise ValueError(f"Non-hashable static arguments are not supported: argument {i} "
                             f"of type {type(v).__name__}") from None
    dyn = tuple(a for i, a in enumerate(args) if i not in static)
    return dyn, static


# argument types the C++ call path handles exactly as our own path does
_FAST_TYPES = {np.ndarray, Array, float, int, bool, complex}


class Lowered:
    """The StableHLO of one specialization of a jitted function."""

    def __init__(self, graph: Graph, text: str, out_td, device):
        self.graph = graph
        self._text = text
        self.out_tree = out_td
        self.device = device

    def as_text(self) -> str:
        return self._text

    def compile(self) -> "Compiled":
        return Compiled(_backend.get().compile_graph(self.graph, self.device, self._text))


class Compiled:
    def __init__(self, compiled):
        self._c = compiled

    def as_text(self) -> str:
        """XLA's optimized HLO."""
        return self._c.as_text()

    def cost_analysis(self):
        return self._c.cost_analysis()


class Jitted:
    """``jit(f)``: traces once per input signature and reuses the compiled executable."""

    def __init__(self, fun, static_argnums=(), device=None):
        if not callable(fun):
            raise TypeError(f"jit expects a callable, got {type(fun).__name__}")
        self.fun = fun
        if isinstance(static_argnums, int):
            static_argnums = (static_argnums,)
        self.static_argnums = tuple(static_argnums)
        self.device = device
        self._cache: dict = {}
        self._lock = threading.RLock()
        functools.update_wrapper(self, fun)
        self._cpp = self._make_cpp()

    def _signature(self, args, kwargs):
        dyn, static = _split_static(args, self.static_argnums)
        leaves, td = tree_flatten((dyn, kwargs))
        sig = []
        for x in leaves:
            try:
                sig.append(_abstractify(x, "", self.fun))
            except TypeError:
                sig.append(None)  # reported with its path by _specialize
        return dyn, static, leaves, td, sig

    def _specialize(self, dyn, static, leaves, td, kwargs):
        paths = None
        avals = []
        for i, x in enumerate(leaves):
            try:
                avals.append(_abstractify(x, "", self.fun))
            except TypeError:
                paths = paths or _leaf_paths(self.fun, dyn, kwargs, td)
                _abstractify(x, paths[i] if i < len(paths) else f"leaf {i}", self.fun)
        graph, out_td = _trace_flat(self.fun, dyn, kwargs, static, avals, td)
        return simplify(graph), out_td

    def __call__(self, *args, **kwargs):
        if _trace_var.get() is not EVAL:
            # under another transformation: trace the function inline
            return self.fun(*args, **kwargs)
        if self._cpp is not None and not dtypes.config.enable_x64 and not self._jax_x64():
            # the C++ call path: signature check, transfers and execution without Python
            return self._cpp(*args, **kwargs)
        return self._cache_miss(*args, **kwargs)[0]

    def _make_cpp(self):
        be = _backend.get()
        if any(i < 0 for i in self.static_argnums) or isinstance(self.device, str):
            return None  # negative static argnums, or a named non-XLA device (interpreter)
        self._jax_x64 = be.jax_x64_enabled
        be.register_once(Array)
        return be.dispatcher(getattr(self.fun, "__name__", "fun"), self.fun, self._cache_miss,
                             self.static_argnums)

    def _cache_miss(self, *args, **kwargs):
        """Our own path: trace, lower, compile (once per signature) and run; the compiled
        executable is handed to the C++ path for later calls with the same signature."""
        dyn, static, leaves, td, sig = self._signature(args, kwargs)
        compiled, in_avals, out_avals, out_td = self._entry(dyn, static, leaves, td, sig, kwargs)
        bufs = compiled([to_buffer(x, a, self.device) for x, a in zip(leaves, in_avals)])
        outs = tree_unflatten(out_td, [Array(b, a) for b, a in zip(bufs, out_avals)])
        fast = None
        if not dtypes.config.enable_x64 and all(type(x) in _FAST_TYPES for x in leaves):
            fast = _backend.get().fastpath_data(compiled, len(leaves), outs, out_avals)
        return outs, fast, False

    def _entry(self, dyn, static, leaves, td, sig, kwargs):
        key = (dtypes.config.enable_x64, td, tuple(sig), tuple(static.items()))
        entry = self._cache.get(key)
        if entry is None:
            with self._lock:  # one trace and compile per signature, also across threads
                entry = self._cache.get(key)
                if entry is None:
                    graph, out_td = self._specialize(dyn, static, leaves, td, kwargs)
                    compiled = _backend.get().compile_graph(graph, self.device)
                    entry = self._cache[key] = (compiled, graph.in_avals, graph.out_avals, out_td)
        return entry

    def lower(self, *args, **kwargs) -> Lowered:
        dyn, static, leaves, td, _ = self._signature(args, kwargs)
        graph, out_td = self._specialize(dyn, static, leaves, td, kwargs)
        return Lowered(graph, _backend.get().lower(graph), out_td, self.device)

    def make_graph(self, *args, **kwargs) -> Graph:
        dyn, static, leaves, td, _ = self._signature(args, kwargs)
        return self._specialize(dyn, static, leaves, td, kwargs)[0]


def jit(fun=None, *, static_argnums=(), device=None):
    """Compile ``fun`` once per input signature (shapes, dtypes, weak types, static args,
    pytree structure).

    >>> f = jit(lambda x: x * 2 + 1)
    >>> f(np.arange(3.0, dtype=np.float32))
    Array([1., 3., 5.], dtype=float32)
    """
    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums, device=device)
    return Jitted(fun, static_argnums, device)


def make_graph(fun, static_argnums=()):
    """``make_graph(f)(*args)``: the traced Graph of f, printed like a jaxpr.

    >>> print(make_graph(lambda x: x * 2.0)(np.ones(3, np.float32)))
    { lambda ; a:f32[3]. let
        b:f32[3] = mul a 2.0:f32[]
      in (b,) }
    """
    j = Jitted(fun, static_argnums)

    @functools.wraps(fun)
    def graph_of(*args, **kwargs):
        return j.make_graph(*args, **kwargs)

    return graph_of


def devices(platform=None) -> list:
    """The XLA devices of ``platform`` ('cpu', 'gpu', 'tpu'; default: the default backend)."""
    return _backend.get().devices(platform)


# ----------------------------------------------------------------------------- vmap


def _mapped_desc(x) -> str:
    a = x.aval if hasattr(x, "aval") else aval_of(x)
    return f"{a.dtype.name}{list(a.shape)}".replace(" ", "")


def vmap(fun, in_axes=0, out_axes=0, axis_size=None, *, batch_size=None):
    """Vectorize ``fun`` over an axis of its inputs, with JAX's ``in_axes``/``out_axes``
    semantics (ints, negative ints, None, pytree prefixes).

    >>> vmap(lambda x, y: x @ y)(np.ones((3, 5), np.float32), np.ones((3, 5), np.float32))
    Array([5., 5., 5.], dtype=float32)
    """
    if not callable(fun):
        raise TypeError(f"vmap expects a callable, got {type(fun).__name__}")
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    _check_axes_spec(in_axes, "in_axes")
    _check_axes_spec(out_axes, "out_axes")

    @functools.wraps(fun)
    def batched(*args, **kwargs):
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise ValueError(
                "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
                f"positional arguments passed to the function, but got len(in_axes)="
                f"{len(in_axes)}, len(args)={len(args)}")
        leaves, td = tree_flatten((args, kwargs))
        axes = broadcast_prefix((in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args),
                                 {k: 0 for k in kwargs}), td, "vmap in_axes")
        paths = None
        size = None
        sizes = []
        for i, (x, ax) in enumerate(zip(leaves, axes)):
            if ax is None:
                continue
            a = x.aval if hasattr(x, "aval") else _abstractify(x, "?", fun)
            if not -a.ndim <= ax < a.ndim:
                paths = paths or _leaf_paths(fun, args, kwargs, td)
                raise ValueError(
                    f"vmap was requested to map its argument along axis {ax}, which implies "
                    f"that its rank should be at least {ax + 1 if ax >= 0 else -ax}, but is only "
                    f"{a.ndim} (its shape is {a.shape}); the argument is {paths[i]}")
            ax = ax % a.ndim
            axes[i] = ax
            sizes.append((i, ax, a.shape[ax]))
        distinct = {s for _, _, s in sizes}
        if axis_size is not None:
            distinct.add(axis_size)
        if len(distinct) > 1:
            paths = _leaf_paths(fun, args, kwargs, td)
            lines = []
            for i, ax, s in sizes:
                lines.append(f"  * one axis had size {s}: axis {ax} of argument {paths[i]} "
                             f"of type {_mapped_desc(leaves[i])}")
            if axis_size is not None:
                lines.append(f"  * axis_size was given as {axis_size}")
            raise ValueError("vmap got inconsistent sizes for array axes to be mapped:\n"
                             + ";\n".join(lines))
        if not distinct:
            raise ValueError("vmap must have at least one non-None value in in_axes "
                             "(or an axis_size when no argument is mapped)")
        size = distinct.pop()
        if batch_size is not None:
            from .control import chunked_vmap  # bounded-memory vmap (issue: control flow)
            return chunked_vmap(fun, in_axes, out_axes, size, batch_size, args, kwargs)
        with new_trace(BatchTrace, size) as tr:
            tracers = [BatchTracer(tr, x, ax) if ax is not None else x
                       for x, ax in zip(leaves, axes)]
            a, kw = tree_unflatten(td, tracers)
            out = fun(*a, **kw)
        outs, otd = tree_flatten(out)
        oaxes = broadcast_prefix(out_axes, otd, "vmap out_axes")
        res = []
        opaths = key_paths(otd)
        for o, ax, p in zip(outs, oaxes, opaths):
            if isinstance(o, BatchTracer) and o._trace is tr:
                val, d = o.val, o.bdim
            else:
                val, d = o, None
            if ax is None:
                if d is not None:
                    raise ValueError(
                        f"vmap has mapped output (at output{p}) but out_axes is None: only an "
                        "output that does not depend on a mapped input can have out_axes=None")
                res.append(val)
                continue
            nd = (val.aval.ndim if hasattr(val, "aval") else np.ndim(val)) + (d is None)
            if not -nd <= ax < nd:
                raise ValueError(f"vmap out_axes={ax} is out of range for output{p} of rank "
                                 f"{nd} (shape with the batch axis)")
            ax %= nd
            if d is None:
                if isinstance(val, _SCALARS):
                    from .numpy import asarray
                    val = asarray(val)
                res.append(bdim_at(val, None, size, ax))
            else:
                res.append(moveaxis(val, d, ax))
        return tree_unflatten(otd, res)

    return batched


def _check_axes_spec(spec, name):
    leaves, _ = tree_flatten(spec)
    for x in leaves:
        if x is not None and not (isinstance(x, (int, np.integer)) and not isinstance(x, bool)):
            raise TypeError(f"vmap {name} must be an int, None, or (nested) container with those "
                            f"types as leaves, but got {spec!r}")
