"""jit and make_graph: a function traced once per input signature, its graph passed
through the graph passes, compiled and cached, and served by the C++ call path where it can
(with the pytree node types that path must flatten); ``eval_shape`` traces only. The
stages (Lowered, Compiled) are in frontend.transforms.stages."""
from __future__ import annotations

import functools
import gc
import inspect
import logging
import threading
import time
import warnings
import weakref

import numpy as np

from .. import passes as _passes
from .. import sharding as fs
from ..core import monitoring
from ..core.arguments import abstractify, leaf_paths
from ..core.config import config, disable_jit, on_change, on_x64_change, user_context_key
from ..core.graph_utils import has_side_effects
from ..core.ir import (
    EVAL,
    Graph,
    ShapeDtypeStruct,
    Tracer,
    _trace_var,
    on_rule_change,
    reset_current,
    set_current,
    subgraphs,
)
from ..core.pytree import broadcast_prefix, key_paths, set_on_register, tree_flatten, tree_unflatten
from ..core.tracing import trace_pytree
from ..device import seam as _backend
from ..device.array import (
    DELETED,
    PYTHON_PATH_OPTIONS,
    Array,
    adopt_foreign,
    check_device,
    check_execution,
    default_device,
    deleted_error,
    mark_donated,
    nonfinite,
    python_path_only,
)
from ..lax._convert import as_operand
from ..lax._sharding import with_sharding_constraint
from . import cache_misses
from .stages import Lowered, Traced, arg_buffers


def _trace_flat(fun, static: dict, in_avals, td):
    """Trace ``fun`` on abstract leaves (of ``td``, the treedef of (dynamic args, kwargs));
    return (graph, out_treedef)."""
    def call(dyn, kw):
        a, kw = _with_static(dyn, kw, static)
        return fun(*a, **kw)
    return trace_pytree(call, td, in_avals)


def _with_static(dyn, kwargs, static: dict) -> tuple:
    """(args, kwargs) of the call: the static values ({position or name: value}) put back
    among the dynamic ones."""
    a, kw = list(dyn), dict(kwargs)
    for i, v in static.items():
        if isinstance(i, int):
            a.insert(i, v)
        else:
            kw[i] = v
    return a, kw


def _check_hashable(static: dict) -> None:
    for i, v in static.items():
        try:
            hash(v)
        except TypeError:
            which = f"argument {i}" if isinstance(i, int) else f"argument {i!r}"
            raise ValueError(f"Non-hashable static arguments are not supported: {which} "
                             f"of type {type(v).__name__}") from None


def _static_args(fun, argnums: tuple, argnames: tuple, kind: str = "static") -> tuple:
    """(static_argnums, static_argnames), each completed from the other by ``fun``'s
    signature (a static positional parameter is static when passed by keyword too); also
    for ``kind="donate"`` (donate_argnums, donate_argnames)."""
    if not argnums and not argnames:
        return (), ()  # (no signature to read: most jitted functions have no static argument)
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return argnums, argnames
    pos = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    kinds = {p.name: p.kind for p in params}
    for why, invalid in (
            ("Function does not take these args.", set() if inspect.Parameter.VAR_KEYWORD in
             kinds.values() else {n for n in argnames if n not in kinds}),
            ("These are positional-only",
             {n for n in argnames if kinds.get(n) is inspect.Parameter.POSITIONAL_ONLY})):
        if invalid:
            raise ValueError(f"Jitted function has invalid argnames {invalid} in "
                             f"{kind}_argnames. {why}")
    if not any(p.kind is p.VAR_POSITIONAL for p in params):
        for i in argnums:
            if not -len(pos) <= i < len(pos):
                raise ValueError(f"Jitted function has {kind}_argnums={argnums}, but only "
                                 f"accepts {len(pos)} positional arguments.")
    names = list(argnames)
    for i in argnums:
        if -len(pos) <= i < len(pos) and pos[i].kind is not pos[i].POSITIONAL_ONLY \
                and pos[i].name not in names:
            names.append(pos[i].name)
    nums = list(argnums)
    for n in argnames:
        k = next((j for j, p in enumerate(pos) if p.name == n), None)
        if k is not None and k not in nums and k - len(pos) not in nums:
            nums.append(k)
    return tuple(nums), tuple(names)


def _split_static(args, static_argnums):
    """(dynamic args, {position: static value}); static positions beyond the arguments
    given are left to their keywords or defaults."""
    if not static_argnums:
        return args, {}
    n = len(args)
    idx = sorted({i % n for i in static_argnums if -n <= i < n})
    static = {i: args[i] for i in idx}
    _check_hashable(static)
    dyn = tuple(a for i, a in enumerate(args) if i not in static)
    return dyn, static


# registered pytree node types: the C++ call path flattens them as we do. Types registered
# while the frontend itself is imported (typed PRNG keys) wait for the backend's first use:
# loading it then would be an import cycle when lowering is imported first.
_pending_nodes: list = []


def _register_node(cls, flatten, unflatten):
    _pending_nodes.append((cls, flatten, unflatten))
    if _backend.loaded():
        _flush_nodes(_backend.get())


def _flush_nodes(be):
    while _pending_nodes:
        be.register_pytree_node(*_pending_nodes.pop(0))


set_on_register(_register_node)

# argument types the C++ call path handles exactly as our own path does
_FAST_TYPES = {np.ndarray, Array, float, int, bool, complex}


class Jitted:
    """``jit(f)``: traces once per input signature and reuses the compiled executable."""

    def __init__(self, fun, static_argnums=(), device=None, passes=None, in_shardings=None,
                 out_shardings=None, static_argnames=(), donate_argnums=(), donate_argnames=()):
        if not callable(fun):
            raise TypeError(f"jit expects a callable, got {type(fun).__name__}")
        check_device(device, "jit", shardings=False)
        if device is not None and (in_shardings is not None or out_shardings is not None):
            raise ValueError("If device is specified on jit, then in_shardings and "
                             "out_shardings should not be specified.")
        self.in_shardings = in_shardings
        self.out_shardings = out_shardings
        self.fun = fun
        self.passes = _passes.DEFAULT if passes is None else \
            passes if isinstance(passes, _passes.Pipeline) else _passes.Pipeline(passes)
        if isinstance(static_argnums, int):
            static_argnums = (static_argnums,)
        if isinstance(static_argnames, str):
            static_argnames = (static_argnames,)
        self.static_argnums, self.static_argnames = _static_args(
            fun, tuple(static_argnums), tuple(static_argnames))
        if isinstance(donate_argnums, int):
            donate_argnums = (donate_argnums,)
        if isinstance(donate_argnames, str):
            donate_argnames = (donate_argnames,)
        self.donate_argnums, self.donate_argnames = _static_args(
            fun, tuple(donate_argnums), tuple(donate_argnames), "donate")
        self.device = device
        self._cache: dict = {}
        _live_jits.add(self)
        self._lock = threading.RLock()
        functools.update_wrapper(self, fun, updated=())  # not __dict__: it would clobber ours
        self._cpp = None  # (a weak reference to) the C++ callable serving it, see public()

    def _split(self, args, kwargs):
        """(dynamic args, dynamic kwargs, {position or name: static value}); the static ones
        checked hashable."""
        dyn, static = _split_static(args, self.static_argnums)
        if self.static_argnames and kwargs:
            named = {k: kwargs[k] for k in self.static_argnames if k in kwargs}
            if named:
                _check_hashable(named)
                kwargs = {k: v for k, v in kwargs.items() if k not in named}
                static.update(named)
        return dyn, kwargs, static

    def _signature(self, args, kwargs):
        dyn, kwargs, static = self._split(args, kwargs)
        leaves, td = tree_flatten((dyn, kwargs))
        leaves = adopt_foreign(leaves)
        sig = []
        for x in leaves:
            if type(x) is Array and x._buf is DELETED:
                raise deleted_error(x)
            try:
                sig.append(abstractify(x, "", self.fun))
            except TypeError:
                sig.append(None)  # reported with its path by _specialize
        return dyn, static, leaves, td, sig

    def _in_shardings(self, dyn, leaves, td, sig):
        """One Sharding or None per leaf: ``in_shardings`` where given (checked against the
        argument, as JAX's), else the argument's own when it spans several devices; None
        when no argument has one."""
        be = _backend.get()
        own = be.arg_shardings([x._buf if isinstance(x, Array) else None for x in leaves])
        if self.in_shardings is None:
            return own
        n_pos = td.children[0].num_leaves
        given = broadcast_prefix(self.in_shardings, td.children[0], "jit in_shardings",
                                 is_leaf=_is_spec)
        paths = leaf_paths(self.fun, dyn, td)
        out = []
        for i, a in enumerate(sig):
            s = fs.resolve(given[i], "jit in_shardings") if i < n_pos else None
            mine = own[i] if own is not None else None
            if isinstance(s, fs.NamedSharding) and a is not None:
                s.check_rank(a.ndim, f"One of pjit arguments with pytree key path {paths[i]}")
                s.check_divisible(a.shape)
                if mine is not None and mine != s:
                    raise ValueError(
                        "Sharding passed to jit does not match the sharding on the respective "
                        f"arg. Got jit sharding: {s!r},\narg sharding: {mine!r} for arg type: "
                        f"{a.dtype.name}[{','.join(map(str, a.shape))}]")
            out.append(s if s is not None else mine)
        return tuple(out) if any(s is not None for s in out) else None

    def _out_shardings(self, out_td, out_avals):
        if self.out_shardings is None:
            return None
        given = broadcast_prefix(self.out_shardings, out_td, "jit out_shardings",
                                 is_leaf=_is_spec)
        out = []
        for s, a, p in zip(given, out_avals, key_paths(out_td), strict=True):
            s = fs.resolve(s, "jit out_shardings")
            if isinstance(s, fs.NamedSharding):
                s.check_rank(a.ndim, f"One of pjit outputs with pytree key path result{p}")
                s.check_divisible(a.shape)
            out.append(s)
        return tuple(out)

    def _specialize(self, dyn, static, leaves, td, record=False):
        paths = None
        avals = []
        for i, x in enumerate(leaves):
            try:
                avals.append(abstractify(x, "", self.fun))
            except TypeError:
                paths = paths or leaf_paths(self.fun, dyn, td)
                abstractify(x, paths[i] if i < len(paths) else f"leaf {i}", self.fun)
        if config.check_tracer_leaks:
            graph, out_td = _check_leaks(self.fun, lambda: _trace_flat(self.fun, static, avals, td))
        else:
            graph, out_td = _trace_flat(self.fun, static, avals, td)
        if record:  # a PipelineResult: the graph and what each pass did
            return self.passes.run(graph), out_td
        graph = self.passes(graph)
        if config.enable_checks:
            _typecheck(graph)
        return graph, out_td

    def __call__(self, *args, **kwargs):
        """The Python path (``jit`` hands out the C++ callable where it can serve)."""
        return self._run(args, kwargs, False)[0]

    def _inline(self, args, kwargs):
        """Under another transformation: the function traced inline, its array arguments
        made values of the current trace (numpy and Python scalars as constants, the latter
        weakly typed, as inside jit); its shardings become sharding constraints (as JAX's)."""
        dyn, kw, static = self._split(args, kwargs)
        leaves, td = tree_flatten((tuple(dyn), kw))
        dyn, kw = tree_unflatten(td, [as_operand(x) for x in adopt_foreign(leaves)])
        if self.in_shardings is not None:
            dyn = with_sharding_constraint(tuple(dyn), _as_tree(self.in_shardings))
        a, kw = _with_static(dyn, kw, static)
        out = self.fun(*a, **kw)
        if self.out_shardings is not None:
            out = with_sharding_constraint(out, self.out_shardings)
        return out

    def _make_cpp(self):
        """The C++ callable (jaxlib's PjitFunction) serving this function, or None where
        only the Python path can: negative static argnums, a named non-XLA device (the
        interpreter)."""
        be = _backend.get()
        if any(i < 0 for i in self.static_argnums) or isinstance(self.device, str) \
                or self.donate_argnums or self.donate_argnames:
            return None  # (donated arrays are marked deleted by our path)
        be.register_arrays()
        _flush_nodes(be)
        return be.dispatcher(getattr(self.fun, "__name__", "fun"), self.fun, self._cache_miss,
                             self.static_argnums, self.static_argnames)

    def _cache_miss(self, *args, **kwargs):
        """Every call the C++ path does not serve: under another transformation (a traced
        argument, which the C++ path does not take) the function is traced inline; else our
        own path traces, lowers, compiles (once per signature) and runs, and hands the
        executable to the C++ path for later calls with the same signature."""
        return self._run(args, kwargs, True)

    def _run(self, args, kwargs, for_cpp: bool):
        """(outputs, what the C++ path keeps for this signature or None, False)."""
        if _trace_var.get() is not EVAL:
            return self._inline(args, kwargs), None, False
        if config.disable_jit:
            return self.fun(*args, **kwargs), None, False
        dyn, static, leaves, td, sig = self._signature(args, kwargs)
        donated = self._donated(args, td)
        compiled, in_avals, out_avals, out_td, effects = \
            self._entry(dyn, static, leaves, td, sig, donated)
        name = getattr(self.fun, "__name__", "fun")
        check_execution(f"jit({name})")
        bufs = compiled(arg_buffers(compiled, leaves, in_avals, self.device
                                    if self.device is not None else default_device()))
        outs = [Array(b, a) for b, a in zip(bufs, out_avals, strict=True)]
        for x, d in zip(leaves, donated, strict=False):
            if d:
                mark_donated(x)
        if python_path_only():
            if config.debug_nans or config.debug_infs:
                _debug_rerun(self.fun, name, outs, args, kwargs)
            return tree_unflatten(out_td, outs), None, False
        outs = tree_unflatten(out_td, outs)
        fast = None
        be = _backend.get()
        # The C++ path converts numpy and Python scalar arguments by JAX's x64 setting (ours
        # flipping clears every C++ cache, see _forget_signatures). Its cache key includes
        # whether a trace is current (set when one is entered), so a call under a trace never
        # reaches it; a call made while a batching rule computes eagerly (that key still set)
        # is not handed to it either. Programs with side effects stay off it (as JAX's).
        if for_cpp and not effects and config.enable_x64 == be.jax_x64_enabled() \
                and not be.dispatch_in_trace() and all(type(x) in _FAST_TYPES for x in leaves):
            fast = be.fastpath_data(compiled, len(leaves), outs, out_avals)
        return outs, fast, False

    def _donated(self, args, td) -> tuple:
        """Per leaf of the dynamic arguments (treedef ``td``): whether it is donated."""
        if not self.donate_argnums and not self.donate_argnames:
            return ()
        n = len(args)
        static = {i % n for i in self.static_argnums if -n <= i < n}
        donate = {i % n for i in self.donate_argnums if -n <= i < n}
        mask: list = []
        pos = [i for i in range(n) if i not in static]
        for i, sub in zip(pos, td.children[0].children, strict=True):
            mask += [i in donate] * sub.num_leaves
        kw = td.children[1]
        for k, sub in zip(kw.meta or (), kw.children, strict=True):
            mask += [k in self.donate_argnames] * sub.num_leaves
        return tuple(mask)

    def _entry(self, dyn, static, leaves, td, sig, donated=()):
        ins = self._in_shardings(dyn, leaves, td, sig)
        # (the options' order is cache_misses.CONFIG_NAMES')
        key = ((config.enable_x64, config.numpy_rank_promotion, config.numpy_dtype_promotion,
                config.default_matmul_precision, config.enable_checks, config.default_device,
                config.legacy_prng_key, config.allow_f16_reductions, user_context_key(), donated),
               td, tuple(sig), tuple(static.items()), ins,
               fs.get_mesh() if self.out_shardings is not None else None)
        entry = self._cache.get(key)
        if entry is None:
            with self._lock:  # one trace and compile per signature, also across threads
                entry = self._cache.get(key)
                if entry is None:
                    if config.explain_cache_misses:
                        cache_misses.explain(self, key, self._cache, dyn, td)
                    if config.no_tracing:
                        raise RuntimeError(f"re-tracing function {_describe(self.fun)} for "
                                           f"`jit`, but 'no_tracing' is set")
                    cache_misses.STATS["traces"] += 1
                    t0 = time.perf_counter()
                    graph, out_td = self._specialize(dyn, static, leaves, td)
                    t1 = time.perf_counter()
                    outs = self._out_shardings(out_td, graph.out_avals)
                    dev = self.device if self.device is not None or ins is not None \
                        else default_device()
                    compiled = _backend.get().compile_graph(graph, dev, None, ins, outs,
                                                            _aliases(graph, donated))
                    _compiled(self.fun, graph, t1 - t0, time.perf_counter() - t1)
                    entry = self._cache[key] = (compiled, graph.in_avals, graph.out_avals,
                                                out_td, has_side_effects(graph))
        return entry

    def trace(self, *args, **kwargs) -> Traced:
        """The traced stage of this specialization (JAX's ``jit(f).trace``): its graph,
        ``out_info``, and ``lower(lowering_platforms=...)`` for any platforms."""
        dyn, static, leaves, td, sig = self._signature(args, kwargs)
        ins = self._in_shardings(dyn, leaves, td, sig)
        res, out_td = self._specialize(dyn, static, leaves, td, record=True)
        outs = self._out_shardings(out_td, res.graph.out_avals)
        return Traced(res.graph, out_td, self.device, td, res.stats, (ins, outs),
                      _aliases(res.graph, self._donated(args, td)))

    def lower(self, *args, **kwargs) -> Lowered:
        t = self.trace(*args, **kwargs)
        ins, outs = t._shardings
        return Lowered(t.jaxpr, _backend.get().lower(t.jaxpr, ins, outs, aliases=t._aliases),
                       t.out_tree, self.device, t.in_tree, t._pass_stats,
                       shardings=(ins, outs), aliases=t._aliases)

    def make_graph(self, *args, **kwargs) -> Graph:
        dyn, static, leaves, td, _ = self._signature(args, kwargs)
        return self._specialize(dyn, static, leaves, td)[0]

    def eval_shape(self, *args, **kwargs):
        """The shapes and dtypes of the result (a pytree of ShapeDtypeStruct), found by
        tracing; arguments may be ShapeDtypeStructs."""
        dyn, static, leaves, td, _ = self._signature(args, kwargs)
        graph, out_td = self._specialize(dyn, static, leaves, td)
        return tree_unflatten(out_td, [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                                       for a in graph.out_avals])

    def _cache_size(self) -> int:
        """How many signatures have been traced and compiled (JAX's ``_cache_size``)."""
        return len(self._cache)

    def clear_cache(self) -> None:
        """Forget every compiled signature (the next calls trace and compile again)."""
        self._cache.clear()
        cpp = self._cpp() if self._cpp is not None else None
        if cpp is not None:
            cpp._clear_cache()

    def public(self):
        """What ``jit`` hands out: the C++ callable itself where it can serve (as JAX's jit
        returns its PjitFunction; a traced argument, which it does not take, lands in
        ``_cache_miss``), with this object's methods attached; else this object."""
        cpp = self._make_cpp()
        if cpp is None:
            return self
        functools.update_wrapper(cpp, self.fun, updated=())
        # (instance attributes: JAX sets lower, eval_shape, trace and clear_cache on the class)
        cpp.lower, cpp.make_graph = self.lower, self.make_graph
        cpp.eval_shape, cpp.clear_cache = self.eval_shape, self.clear_cache
        cpp.trace = self.trace
        try:
            cpp._cache_size = self._cache_size
        except AttributeError:  # (a jaxlib whose callable fixes it: its own count)
            pass
        cpp._jitted = self
        self._cpp = weakref.ref(cpp)
        return cpp


_log = logging.getLogger(__name__)


def _aliases(graph, donated) -> tuple:
    """(argument, result) pairs: each donated argument's buffer may become the first result
    not yet taken of its shape and dtype (JAX's rule); JAX's warning for the others."""
    pairs, unused, taken = [], [], set()
    for i, d in enumerate(donated):
        if not d:
            continue
        a = graph.in_avals[i]
        j = next((j for j, o in enumerate(graph.out_avals) if j not in taken
                  and (o.shape, o.dtype) == (a.shape, a.dtype)), None)
        if j is None:
            unused.append(f"{a.dtype.name}[{','.join(map(str, a.shape))}]")
        else:
            taken.add(j)
            pairs.append((i, j))
    if unused:
        warnings.warn(f"Some donated buffers were not usable: {', '.join(unused)}.\nSee an "
                      "explanation at https://docs.jax.dev/en/latest/faq.html#buffer-donation.",
                      stacklevel=4)
    return tuple(pairs)


def _typecheck(graph) -> None:
    """``enable_checks``: the graph and its sub-graphs type-check (JaxprTypeError)."""
    graph.typecheck()
    for e in graph.nested:
        for sub in subgraphs(e):
            _typecheck(sub)


def _live_tracers() -> list:
    gc.collect()
    return [o for o in gc.get_objects() if isinstance(o, Tracer)]


def _check_leaks(fun, trace):
    """``check_tracer_leaks``: trace, then raise JAX's error if a tracer made while tracing
    is still referenced (kept in a global, a closure, a list outside the function)."""
    before = {id(o) for o in _live_tracers()}
    out = trace()
    current = _trace_var.get()
    leaked = [t for t in _live_tracers() if id(t) not in before
              and not t._trace.is_ancestor_of(current)]
    if leaked:
        raise Exception(f"Leaked trace {type(leaked[0]._trace).__name__}. Leaked tracer(s):\n\n"
                        + "\n".join(repr(t) for t in leaked) + "\nThe error occurred while "
                        f"tracing the function {_describe(fun)} for jit.")
    return out


def _debug_rerun(fun, name, outs, args, kwargs) -> None:
    """debug_nans / debug_infs found a nan or inf among a jitted function's outputs: run it
    again operation by operation (as without jit), so the first operation making one raises
    FloatingPointError; JAX's error naming the function if none does."""
    bad = nonfinite(outs)
    if bad is None:
        return
    _log.warning("Invalid %s value encountered in the output of a jax.jit function. Calling "
                 "the de-optimized version.", bad)
    token = set_current(EVAL)
    try:
        with disable_jit():
            fun(*args, **kwargs)
    finally:
        reset_current(token)
    raise FloatingPointError(
        f"('jit({name})', '{bad}'). Because jax_config.debug_nans.value and/or "
        "config.jax_debug_infs is set, the de-optimized function (i.e., the function as if "
        "the `jit` decorator were removed) was called in an attempt to get a more precise "
        "error message. However, the de-optimized function did not produce invalid values "
        "during its execution. This behavior can result from `jit` optimizations causing the "
        "invalid value to be produced. It may also arise from having nan/inf literals as "
        "inputs or outputs, like `jax.jit(lambda ...: jax.numpy.nan)(...)`. \n\nIt may be "
        "possible to avoid the invalid value by removing the `jit` decorator, at the cost of "
        "losing optimizations.")


def _describe(fun) -> str:
    code = getattr(fun, "__code__", None)
    where = f" at {code.co_filename}:{code.co_firstlineno}" if code is not None else ""
    return f"{getattr(fun, '__name__', fun)}{where}"


def _compiled(fun, graph, trace_secs: float, compile_secs: float) -> None:
    """A signature was traced and compiled: JAX's log lines under ``log_compiles``, and the
    durations ``frontend.monitoring`` reports."""
    monitoring.record_event_duration_secs("/jax/core/compile/jaxpr_trace_duration", trace_secs)
    monitoring.record_event_duration_secs("/jax/core/compile/backend_compile_duration",
                                          compile_secs)
    if config.log_compiles:
        name = getattr(fun, "__name__", "fun")
        _log.warning("Finished tracing %s for jit in %s sec", name, trace_secs)
        _log.warning("Compiling jit(%s) with global shapes and types %s.", name,
                     tuple(graph.in_avals))
        _log.warning("Finished XLA compilation of jit(%s) in %s sec", name, compile_secs)


def jitted_of(f) -> Jitted | None:
    """The Jitted behind a result of ``jit`` (None for anything else)."""
    return f if isinstance(f, Jitted) else getattr(f, "_jitted", None)


def _forget_signatures() -> None:
    """Our x64 switch flipped: every C++ callable forgets the signatures it has seen (JAX's
    own switch is part of their signature; ours is not)."""
    if _backend.loaded():
        _backend.get().clear_dispatchers()


on_x64_change(_forget_signatures)
for _option in ("disable_jit", "numpy_rank_promotion", "numpy_dtype_promotion",
                "default_matmul_precision", "enable_checks", "legacy_prng_key", "user_context",
                "allow_f16_reductions",
                *PYTHON_PATH_OPTIONS):
    on_change(_option, _forget_signatures)  # (calls must reach our path: its key has them)

def cache_stats() -> dict:
    """Counts of the caches of compiled programs, in this process: ``jit_traces`` (the
    signatures jit traced and compiled: its cache misses), ``jit_signatures`` (those the
    live jitted functions hold; ``jit(f)._cache_size()`` for one), ``eager_programs`` (the
    one-primitive programs of eager calls) and ``persistent`` (the persistent compilation
    cache: ``hits``, ``misses``, ``writes``, ``errors``)."""
    from ..device.array import _eager_cache
    return {"jit_traces": cache_misses.STATS["traces"],
            "jit_signatures": sum(len(j._cache) for j in list(_live_jits)),
            "eager_programs": len(_eager_cache),
            "persistent": _backend.get().compilation_cache_stats()}


_live_jits: weakref.WeakSet = weakref.WeakSet()  # every Jitted: a rule change reaches them


def _forget_programs() -> None:
    """A primitive's rule was replaced: every jitted signature is traced and compiled again
    (a graph may hold the primitive anywhere, inside control flow or a custom rule)."""
    for j in list(_live_jits):
        j._cache.clear()
    _forget_signatures()


on_rule_change(_forget_programs)


def jit(fun=None, *, static_argnums=(), static_argnames=(), device=None, passes=None,
        in_shardings=None, out_shardings=None, donate_argnums=(), donate_argnames=()):
    """Compile ``fun`` once per input signature (shapes, dtypes, weak types, shardings, static
    args, pytree structure). ``passes`` (beyond JAX): the graph passes run after tracing, a
    ``frontend.passes.Pipeline`` or a sequence of passes or their names (default:
    ``frontend.passes.DEFAULT``, fold_transposes then dce).

    ``in_shardings`` / ``out_shardings`` (JAX's): a Sharding (or a PartitionSpec under a
    context mesh), or a pytree prefix of the positional arguments / of the result; None
    leaves the layout to XLA's partitioner. Arguments without one keep their own sharding.
    A program with shardings is compiled for the devices of their mesh by XLA's SPMD
    partitioner (Shardy) and runs one partition per device.

    ``donate_argnums`` / ``donate_argnames`` (JAX's): arguments whose buffers the program
    may reuse for results of the same shape and dtype (``tf.aliasing_output`` in the module,
    on one device); a donated Array whose buffer was taken is deleted after the call (using
    it raises JAX's error), and JAX's warning names the donations no result could take.

    >>> import numpy as np
    >>> import frontend as fe
    >>> f = fe.jit(lambda x: x * 2 + 1)
    >>> f(np.arange(3.0, dtype=np.float32))
    Array([1., 3., 5.], dtype=float32)
    """
    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums,
                                 static_argnames=static_argnames, device=device, passes=passes,
                                 in_shardings=in_shardings, out_shardings=out_shardings,
                                 donate_argnums=donate_argnums, donate_argnames=donate_argnames)
    return Jitted(fun, static_argnums, device, passes, in_shardings, out_shardings,
                  static_argnames, donate_argnums, donate_argnames).public()


def make_graph(fun, static_argnums=(), *, passes=None):
    """``make_graph(f)(*args)``: the traced Graph of f, printed like a jaxpr.

    >>> import numpy as np
    >>> import frontend as fe
    >>> print(fe.make_graph(lambda x: x * 2.0)(np.ones(3, np.float32)))
    { lambda ; a:f32[3]. let
        b:f32[3] = mul a 2.0:f32[]
      in (b,) }
    """
    j = Jitted(fun, static_argnums, passes=passes)

    @functools.wraps(fun)
    def graph_of(*args, **kwargs):
        return j.make_graph(*args, **kwargs)

    return graph_of


def make_jaxpr(fun, static_argnums=(), axis_env=None, return_shape: bool = False,
               abstracted_axes=None):
    """JAX's name for ``make_graph``: ``make_jaxpr(f)(*args)`` is the traced Graph of f,
    printed like a jaxpr; with ``return_shape`` also the output's ShapeDtypeStructs."""
    if axis_env is not None or abstracted_axes is not None:
        raise NotImplementedError("make_jaxpr(axis_env=..., abstracted_axes=...) is not "
                                  "supported by vmaplab.")
    j = Jitted(fun, static_argnums)

    @functools.wraps(fun)
    def graph_of(*args, **kwargs):
        if return_shape:
            return j.make_graph(*args, **kwargs), j.eval_shape(*args, **kwargs)
        return j.make_graph(*args, **kwargs)

    return graph_of


def eval_shape(fun, *args, **kwargs):
    """The shapes and dtypes of ``fun(*args, **kwargs)`` (a pytree of ShapeDtypeStruct),
    found by tracing without running anything; arguments may be arrays or anything with
    ``shape`` and ``dtype`` (ShapeDtypeStruct).

    >>> import numpy as np
    >>> import frontend as fe
    >>> fe.eval_shape(lambda x: x.sum(0), fe.ShapeDtypeStruct((3, 4), np.float32))
    ShapeDtypeStruct(shape=(4,), dtype=float32)
    """
    j = jitted_of(fun)
    if j is not None:  # (its static arguments stay static, as JAX's)
        return j.eval_shape(*args, **kwargs)
    leaves, td = tree_flatten((args, kwargs))
    avals = []
    for i, x in enumerate(leaves):
        if not isinstance(x, (Array, Tracer, ShapeDtypeStruct)) and hasattr(x, "shape") \
                and hasattr(x, "dtype") and not isinstance(x, (np.ndarray, np.generic)):
            x = ShapeDtypeStruct(x.shape, x.dtype, weak_type=getattr(x, "weak_type", False))
        avals.append(abstractify(x, leaf_paths(fun, args, td)[i], fun))
    graph, out_td = _trace_flat(fun, {}, avals, td)
    return tree_unflatten(out_td, [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                                   for a in graph.out_avals])


def _is_spec(p) -> bool:
    return isinstance(p, fs.PartitionSpec)


def _as_tree(shardings):
    """in_shardings as a prefix of the tuple of positional arguments."""
    return tuple(shardings) if isinstance(shardings, list) else shardings
