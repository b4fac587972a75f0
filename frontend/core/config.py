"""The global config, as JAX's ``jax.config`` (``frontend.config``): the 64-bit switch
``enable_x64``, the persistent compilation cache's options, the size above which closed-over
constants become program arguments; ``on_x64_change`` tells caches when the switch flips."""
from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Any


def _directory(v: object) -> str | None:
    """A directory option's value: a str or os.PathLike of one (None or "": off). Bytes and
    other types are refused, as JAX's string options refuse them (str() of bytes would name
    a directory "b'/tmp/x'")."""
    p = os.fspath(v) if isinstance(v, os.PathLike) else v
    if not isinstance(p, str):
        raise ValueError(f"new string config value must be None, a str or an os.PathLike of "
                         f"one, got {v!r} of type {type(v)}.")
    return p or None


# the persistent compilation cache (lowering/runtime/cache.py), as JAX's options of these
# names: option -> (environment variable, parser of a value, default)
_CACHE_OPTIONS: dict[str, tuple[str, Callable[[Any], Any], Any]] = {
    "compilation_cache_dir": ("VMAPLAB_COMPILATION_CACHE_DIR", _directory, None),
    "compilation_cache_max_size": ("VMAPLAB_COMPILATION_CACHE_MAX_SIZE", int, -1),
    "persistent_cache_min_compile_time_secs": ("VMAPLAB_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS",
                                               float, 1.0),
}


def _enum(*values: str) -> Callable[[Any], str]:
    def parse(v: Any) -> str:
        if v not in values:
            raise ValueError(f"new enum value must be in {list(values)}, got {v} of type "
                             f"{type(v)}.")
        return v
    return parse


def _only(option: str, supported: Any, others: tuple, why: str) -> Callable[[Any], Any]:
    """The parser of an option of which vmaplab implements one of JAX's values."""
    def parse(v: Any) -> Any:
        if v == supported:
            return v
        if v in others:
            raise NotImplementedError(f"{option}={v!r} is not supported by vmaplab: {why}")
        raise ValueError(f"new value for {option} must be {supported!r}, got {v!r}")
    return parse


def _optional_enum(*values: str) -> Callable[[Any], str | None]:
    parse = _enum(*values)
    return lambda v: None if v is None else parse(v)


_GUARD_LEVELS = ("allow", "log", "disallow", "log_explicit", "disallow_explicit")

# JAX's options honoured here with no side effect beyond their value: option -> (parser,
# default). Where each is read: disable_jit (frontend/transforms/jit.py), log_compiles and
# no_tracing and enable_checks (jit's cache miss), numpy_rank_promotion and
# numpy_dtype_promotion (frontend/numpy/_core.py, frontend/core/dtypes.py), debug_nans,
# debug_infs, no_execution and the transfer guards (frontend/device/array.py: where programs
# run and host data moves), default_matmul_precision (lax's dot_general and conv).
_SIMPLE: dict[str, tuple[Callable[[Any], Any], Any]] = {
    "disable_jit": (bool, False),
    "log_compiles": (bool, False),
    "no_tracing": (bool, False),
    "numpy_rank_promotion": (_enum("allow", "warn", "raise"), "allow"),
    "numpy_dtype_promotion": (_enum("standard", "strict"), "standard"),
    "debug_nans": (bool, False),
    "debug_infs": (bool, False),
    "enable_checks": (bool, False),
    "no_execution": (bool, False),
    "default_matmul_precision": (_optional_enum(
        "default", "high", "highest", "bfloat16", "tensorfloat32", "float32"), None),
    **{f"transfer_guard_{k}": (_optional_enum(*_GUARD_LEVELS), None)
       for k in ("host_to_device", "device_to_host", "device_to_device")},
    "default_device": (lambda v: v, None),  # (a Device, a platform name or None)
    "check_tracer_leaks": (bool, False),
    "allow_f16_reductions": (bool, True),
    "legacy_prng_key": (_enum("allow", "warn", "error"), "allow"),
    "default_prng_impl": (_only("jax_default_prng_impl", "threefry2x32", ("rbg", "unsafe_rbg"),
                                "its PRNG is threefry2x32 only"), "threefry2x32"),
    "threefry_partitionable": (_only("jax_threefry_partitionable", True, (False,),
                                     "it implements the partitionable threefry key derivation "
                                     "(JAX's default) only"), True),
}


class _Config:
    """Global switches. ``enable_x64`` turns on 64-bit default dtypes, as ``jax_enable_x64``;
    ``compilation_cache_dir`` (a directory; None: off), ``compilation_cache_max_size`` (bytes,
    -1: no limit) and ``persistent_cache_min_compile_time_secs`` set the persistent
    compilation cache, as JAX's options of these names (also from the environment variables
    VMAPLAB_COMPILATION_CACHE_DIR, VMAPLAB_COMPILATION_CACHE_MAX_SIZE and
    VMAPLAB_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS); closed-over constants larger than
    ``embedded_constants_max_bytes`` are passed to the compiled program as arguments instead
    of being written into its module text (as ``jax_embedded_constants_max_bytes``; JAX's
    default is smaller, ours keeps small weights in the text, where XLA can fold them).
    ``vmap_cond`` (beyond JAX): how vmap batches a cond/switch whose predicate is batched:
    "select" runs every branch on every lane and selects (JAX's way), "guarded" runs each
    branch only when some lane takes it, "auto" (default) guards the branches a cost model
    finds expensive (loops, dots, convolutions, custom calls, much work). Under "auto" and
    "guarded" a batched while loop with such a body also compacts its active lanes into a
    quarter-size batch once at most a quarter are left; "select" steps every lane.
    ``ragged_bucket`` (beyond JAX) is the padded length ``frontend.ragged.stack`` gives the
    ragged axis: "pow2" (the next power of two, the default), "exact" (the longest example) or
    an int m (the next multiple of m), so batches of different longest lengths share programs."""

    compilation_cache_dir: str | None
    compilation_cache_max_size: int
    persistent_cache_min_compile_time_secs: float
    # (set from _SIMPLE in __init__)
    disable_jit: bool
    log_compiles: bool
    no_tracing: bool
    numpy_rank_promotion: str
    numpy_dtype_promotion: str
    debug_nans: bool
    debug_infs: bool
    enable_checks: bool
    no_execution: bool
    default_matmul_precision: str | None
    transfer_guard_host_to_device: str | None
    transfer_guard_device_to_host: str | None
    transfer_guard_device_to_device: str | None
    default_device: Any
    check_tracer_leaks: bool
    allow_f16_reductions: bool
    legacy_prng_key: str
    default_prng_impl: str
    threefry_partitionable: bool

    def __init__(self) -> None:
        self.enable_x64 = False
        self.embedded_constants_max_bytes = 1 << 16
        self.vmap_cond = "auto"
        self.explain_cache_misses = False  # log why jit traces again (frontend/transforms/cache_misses.py)
        self.ragged_bucket: str | int = "pow2"
        for name, (_, default) in _SIMPLE.items():
            setattr(self, name, default)
        for name, (env, parse, default) in _CACHE_OPTIONS.items():
            raw = os.environ.get(env)
            try:
                setattr(self, name, default if raw is None else parse(raw))
            except ValueError:
                raise ValueError(f"environment variable {env}={raw!r} is not a valid {name}") from None

    def update(self, name: str, value: Any) -> None:
        key = name[4:] if name.startswith("jax_") else name
        if key == "enable_x64":
            flipped = self.enable_x64 != bool(value)
            self.enable_x64 = bool(value)
            if flipped:
                for fn in _x64_listeners:
                    fn()
        elif key in _CACHE_OPTIONS:
            setattr(self, key, _CACHE_OPTIONS[key][1](value) if value is not None else
                    _CACHE_OPTIONS[key][2])
        elif key in _SIMPLE:
            new = _SIMPLE[key][0](value)
            if new is not getattr(self, key) and new != getattr(self, key):
                setattr(self, key, new)
                _changed(key)
        elif key == "explain_cache_misses":
            self.explain_cache_misses = bool(value)
        elif key == "embedded_constants_max_bytes":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"embedded_constants_max_bytes must be a non-negative int, "
                                 f"got {value!r}")
            self.embedded_constants_max_bytes = value
        elif key == "vmap_cond":
            if value not in _VMAP_COND:
                raise ValueError(f"vmap_cond must be one of {', '.join(map(repr, _VMAP_COND))}, "
                                 f"got {value!r}")
            if value != self.vmap_cond:
                self.vmap_cond = value
                for fn in _vmap_cond_listeners:
                    fn()
        elif key == "ragged_bucket":
            ok = value in ("pow2", "exact") or (isinstance(value, int) and not isinstance(value, bool)
                                                and value > 0)
            if not ok:
                raise ValueError(f"ragged_bucket must be 'pow2', 'exact' or a positive int, got "
                                 f"{value!r}")
            self.ragged_bucket = value
        else:
            raise ValueError(f"unknown config option {name!r}")


_VMAP_COND = ("auto", "select", "guarded")
_vmap_cond_listeners: list[Callable[[], object]] = []

config = _Config()


_x64_listeners: list[Callable[[], object]] = []


_listeners: dict[str, list[Callable[[], object]]] = {}


def _changed(name: str) -> None:
    for fn in _listeners.get(name, ()):
        fn()


def on_change(name: str, fn: Callable[[], object]) -> None:
    """Call ``fn()`` whenever option ``name`` (one of ``_SIMPLE``) changes value."""
    _listeners.setdefault(name, []).append(fn)


class State:
    """A config option as JAX's top-level names (``enable_x64``, ``numpy_rank_promotion``,
    ...): ``.value`` is its value; ``State(value)`` is a context manager setting it for the
    with-block (``with fe.numpy_rank_promotion("raise"): ...``), as ``config.update`` does
    (for the whole process: vmaplab's options are not per thread). Called with no value, a
    boolean option is switched on."""

    def __init__(self, name: str, doc: str = "") -> None:
        self.name = name
        self._key = name[4:] if name.startswith("jax_") else name
        self.__doc__ = doc or f"Context manager for `{name}` config option."

    @property
    def value(self) -> Any:
        return getattr(config, self._key)

    @contextlib.contextmanager
    def __call__(self, new_val: Any = True) -> Iterator[None]:
        old = self.value
        config.update(self._key, new_val)
        try:
            yield
        finally:
            config.update(self._key, old)

    def __repr__(self) -> str:
        return f"State({self.name!r}, value={self.value!r})"


def on_x64_change(fn: Callable[[], object]) -> None:
    """Call ``fn()`` whenever ``enable_x64`` flips (caches of what was built under the other
    setting drop it)."""
    _x64_listeners.append(fn)


def on_vmap_cond_change(fn: Callable[[], object]) -> None:
    """Call ``fn()`` whenever ``vmap_cond`` changes (programs batched the other way are
    stale)."""
    _vmap_cond_listeners.append(fn)


# JAX's top-level names of the options (``fe.enable_x64``, ...)
enable_x64 = State("jax_enable_x64")
explain_cache_misses = State("jax_explain_cache_misses")
log_compiles = State("jax_log_compiles")
no_tracing = State("jax_no_tracing")
numpy_rank_promotion = State("jax_numpy_rank_promotion")
numpy_dtype_promotion = State("jax_numpy_dtype_promotion")
_disable_jit = State("jax_disable_jit")
debug_nans = State("jax_debug_nans")
debug_infs = State("jax_debug_infs")
enable_checks = State("jax_enable_checks")
no_execution = State("jax_no_execution")
default_matmul_precision = State("jax_default_matmul_precision")
transfer_guard_host_to_device = State("jax_transfer_guard_host_to_device")
transfer_guard_device_to_host = State("jax_transfer_guard_device_to_host")
transfer_guard_device_to_device = State("jax_transfer_guard_device_to_device")
default_device = State("jax_default_device")
check_tracer_leaks = State("jax_check_tracer_leaks")
legacy_prng_key = State("jax_legacy_prng_key")
default_prng_impl = State("jax_default_prng_impl")
threefry_partitionable = State("jax_threefry_partitionable")
allow_f16_reductions = State("jax_allow_f16_reductions")


def checking_leaks() -> contextlib.AbstractContextManager[None]:
    """``check_tracer_leaks(True)`` for a with-block (``jax.checking_leaks``)."""
    return check_tracer_leaks(True)


_user_contexts: list[Any] = []


class _UserContext:
    """A value that is part of every jit cache key (``make_user_context``)."""

    def __init__(self, default_value: Any) -> None:
        self.value = default_value

    @contextlib.contextmanager
    def __call__(self, new_val: Any) -> Iterator[None]:
        hash(new_val)  # (a key of jit's cache: it must hash)
        old, self.value = self.value, new_val
        try:
            _changed("user_context")
            yield
        finally:
            self.value = old
            _changed("user_context")


def make_user_context(default_value: Any = None) -> _UserContext:
    """A context whose value jit's caches see, as ``jax.make_user_context``: under
    ``with ctx(value):`` a jitted function is traced and compiled again for each value
    (so code may read ``ctx.value`` while tracing)."""
    ctx = _UserContext(default_value)
    _user_contexts.append(ctx)
    return ctx


def user_context_key() -> tuple:
    """The values of every user context (a part of jit's cache key)."""
    return tuple(c.value for c in _user_contexts) if _user_contexts else ()


@contextlib.contextmanager
def transfer_guard(new_val: str) -> Iterator[None]:
    """The three transfer guards at once (``jax.transfer_guard``): "allow", "log"
    (implicit transfers are logged), "disallow" (implicit transfers raise), "log_explicit",
    "disallow_explicit" (explicit ones, ``device_put``, too)."""
    with contextlib.ExitStack() as stack:
        for guard in (transfer_guard_host_to_device, transfer_guard_device_to_host,
                      transfer_guard_device_to_device):
            stack.enter_context(guard(new_val))
        yield


def disable_jit(disable: bool = True) -> contextlib.AbstractContextManager[None]:
    """A context manager under which ``jit`` calls the function itself instead of compiling
    it (values are concrete inside, ``print`` shows them), as ``jax.disable_jit``; also the
    option ``config.update("jax_disable_jit", True)``."""
    return _disable_jit(disable)
