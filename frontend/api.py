"""Public transformations: jit, make_graph (and vmap, from frontend.vectorize)."""
from __future__ import annotations

import functools
import threading

import numpy as np

from . import _backend, dtypes
from .array import Array, to_buffer
from .core import EVAL, Graph, _trace_var
from .passes import simplify
from .tracing import abstractify, leaf_paths, trace_graph
from .tree import tree_flatten, tree_unflatten
from .vectorize import vmap  # noqa: F401  (public here, as jax.vmap)


def _trace_flat(fun, args, kwargs, static: dict, in_avals, td):
    """Trace ``fun`` on abstract leaves; return (graph, out_treedef)."""
    out_td_box = []

    def flat_fun(*leaves):
        a, kw = tree_unflatten(td, leaves)
        a = list(a)
        for i, v in static.items():
            a.insert(i, v)
        outs, otd = tree_flatten(fun(*a, **kw))
        out_td_box.append(otd)
        return outs

    return trace_graph(flat_fun, in_avals), out_td_box[0]


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
        functools.update_wrapper(self, fun, updated=())  # not __dict__: it would clobber ours
        self._cpp = self._make_cpp()

    def _signature(self, args, kwargs):
        dyn, static = _split_static(args, self.static_argnums)
        leaves, td = tree_flatten((dyn, kwargs))
        sig = []
        for x in leaves:
            try:
                sig.append(abstractify(x, "", self.fun))
            except TypeError:
                sig.append(None)  # reported with its path by _specialize
        return dyn, static, leaves, td, sig

    def _specialize(self, dyn, static, leaves, td, kwargs):
        paths = None
        avals = []
        for i, x in enumerate(leaves):
            try:
                avals.append(abstractify(x, "", self.fun))
            except TypeError:
                paths = paths or leaf_paths(self.fun, dyn, kwargs, td)
                abstractify(x, paths[i] if i < len(paths) else f"leaf {i}", self.fun)
        graph, out_td = _trace_flat(self.fun, dyn, kwargs, static, avals, td)
        return simplify(graph), out_td

    def __call__(self, *args, **kwargs):
        if _trace_var.get() is not EVAL:
            # under another transformation: trace the function inline
            return self.fun(*args, **kwargs)
        cpp = self._cpp
        if cpp is None:
            return self._cache_miss(*args, **kwargs)[0]
        if self._cpp_x64 is not dtypes.config.enable_x64:
            # its entries were made under the other setting (JAX's own setting is part of
            # the C++ signature; ours is not)
            cpp._clear_cache()
            self._cpp_x64 = dtypes.config.enable_x64
        # the C++ call path: signature check, transfers and execution without Python
        return cpp(*args, **kwargs)

    def _make_cpp(self):
        be = _backend.get()
        if any(i < 0 for i in self.static_argnums) or isinstance(self.device, str):
            return None  # negative static argnums, or a named non-XLA device (interpreter)
        self._cpp_x64 = dtypes.config.enable_x64
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
        be = _backend.get()
        # the C++ path converts numpy and Python scalar arguments by JAX's x64 setting
        if dtypes.config.enable_x64 == be.jax_x64_enabled() \
                and all(type(x) in _FAST_TYPES for x in leaves):
            fast = be.fastpath_data(compiled, len(leaves), outs, out_avals)
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
