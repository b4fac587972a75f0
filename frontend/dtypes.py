"""Dtypes as JAX's numpy has them: 32-bit defaults, weakly typed Python scalars, the same
promotion lattice (``result_type``) and the 64-bit switch (``config.enable_x64``)."""
from __future__ import annotations

import functools
import os

import ml_dtypes
import numpy as np

bool_ = np.dtype(np.bool_)
int8, int16, int32, int64 = (np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64))
uint8, uint16, uint32, uint64 = (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
float16, float32, float64 = (np.dtype(t) for t in (np.float16, np.float32, np.float64))
bfloat16 = np.dtype(ml_dtypes.bfloat16)
complex64, complex128 = np.dtype(np.complex64), np.dtype(np.complex128)
# the tangent dtype of integer and boolean values (as JAX's dtypes.float0): no data
float0 = np.dtype([("float0", np.void, 0)])


# the persistent compilation cache (lowering/runtime/cache.py), as JAX's options of these
# names: option -> (environment variable, parser of a value, default)
_CACHE_OPTIONS = {
    "compilation_cache_dir": ("VMAPLAB_COMPILATION_CACHE_DIR", lambda v: str(v) if v else None, None),
    "compilation_cache_max_size": ("VMAPLAB_COMPILATION_CACHE_MAX_SIZE", int, -1),
    "persistent_cache_min_compile_time_secs": ("VMAPLAB_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS",
                                               float, 1.0),
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
    default is smaller, ours keeps small weights in the text, where XLA can fold them)."""

    def __init__(self):
        self.enable_x64 = False
        self.embedded_constants_max_bytes = 1 << 16
        for name, (env, parse, default) in _CACHE_OPTIONS.items():
            raw = os.environ.get(env)
            try:
                setattr(self, name, default if raw is None else parse(raw))
            except ValueError:
                raise ValueError(f"environment variable {env}={raw!r} is not a valid {name}") from None

    def update(self, name: str, value) -> None:
        key = name[4:] if name.startswith("jax_") else name
        if key == "enable_x64":
            flipped = self.enable_x64 != bool(value)
            self.enable_x64 = bool(value)
            _canon_cache.clear()
            if flipped:
                for fn in _x64_listeners:
                    fn()
        elif key in _CACHE_OPTIONS:
            setattr(self, key, _CACHE_OPTIONS[key][1](value) if value is not None else
                    _CACHE_OPTIONS[key][2])
        elif key == "embedded_constants_max_bytes":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"embedded_constants_max_bytes must be a non-negative int, "
                                 f"got {value!r}")
            self.embedded_constants_max_bytes = value
        else:
            raise ValueError(f"unknown config option {name!r}")


config = _Config()
_canon_cache: dict = {}
_x64_listeners: list = []


def on_x64_change(fn) -> None:
    """Call ``fn()`` whenever ``enable_x64`` flips (caches of what was built under the other
    setting drop it)."""
    _x64_listeners.append(fn)

_NARROW = {int64: int32, uint64: uint32, float64: float32, complex128: complex64}


def canonicalize(dtype) -> np.dtype:
    """The dtype an array of ``dtype`` gets: 64-bit types narrow to 32 bits unless x64 is on."""
    try:
        return _canon_cache[dtype]
    except (KeyError, TypeError):
        pass
    d = np.dtype(dtype)
    out = d if config.enable_x64 else _NARROW.get(d, d)
    try:
        _canon_cache[dtype] = out
    except TypeError:
        pass
    return out


def default_int() -> np.dtype:
    return int64 if config.enable_x64 else int32


def default_float() -> np.dtype:
    return float64 if config.enable_x64 else float32


def default_complex() -> np.dtype:
    return complex128 if config.enable_x64 else complex64


def to_numeric(d) -> np.dtype:
    """JAX's number type for a dtype: bool becomes int32 (also with 64-bit types on)."""
    d = np.dtype(d)
    return int32 if is_bool(d) else d


def to_inexact(d) -> np.dtype:
    """JAX's float for a dtype that is not inexact: float32, even with 64-bit types on, except
    float64 for 64-bit integers (inexact dtypes are kept)."""
    d = np.dtype(d)
    if is_inexact(d):
        return d
    return canonicalize(float64) if d.itemsize == 8 and is_int(d) else float32


class _KindTable(dict):
    def __missing__(self, d):
        dt = np.dtype(d)
        k = self[d] = "f" if dt == bfloat16 else dt.kind
        return k


# _kind(d): 'b', 'i', 'u', 'f' (bfloat16 included) or 'c'. A dict hit per dtype seen before,
# made in C (no Python call): it is asked several times per traced equation.
_kind = _KindTable().__getitem__


def is_float(d) -> bool:
    return _kind(d) == "f"


def is_int(d) -> bool:
    return _kind(d) in "iu"


def is_unsigned(d) -> bool:
    return _kind(d) == "u"


def is_complex(d) -> bool:
    return _kind(d) == "c"


def is_bool(d) -> bool:
    return _kind(d) == "b"


def is_inexact(d) -> bool:
    return _kind(d) in "fc"


# The promotion lattice of JAX's numpy: an edge a -> b means b is the next type up from a.
# "i*", "f*", "c*" are the weakly typed Python int, float and complex.
_EDGES = {
    "b1": ["i*"],
    "i*": ["u8", "i8"],
    "u8": ["i16", "u16"], "u16": ["i32", "u32"], "u32": ["i64", "u64"], "u64": ["f*"],
    "i8": ["i16"], "i16": ["i32"], "i32": ["i64"], "i64": ["f*"],
    "f*": ["bf16", "f16", "c*"],
    "bf16": ["f32"], "f16": ["f32"], "f32": ["f64", "c64"], "f64": ["c128"],
    "c*": ["c64"], "c64": ["c128"], "c128": [],
}
_NODE_OF = {bool_: "b1", int8: "i8", int16: "i16", int32: "i32", int64: "i64", uint8: "u8",
            uint16: "u16", uint32: "u32", uint64: "u64", bfloat16: "bf16", float16: "f16",
            float32: "f32", float64: "f64", complex64: "c64", complex128: "c128"}
_DTYPE_OF = {v: k for k, v in _NODE_OF.items()}


def _upper_sets() -> dict:
    ups = {}

    def walk(n):
        if n not in ups:
            s = {n}
            for m in _EDGES[n]:
                s |= walk(m)
            ups[n] = frozenset(s)
        return ups[n]

    for n in _EDGES:
        walk(n)
    return ups


_UP = _upper_sets()


def _node(dtype, weak: bool) -> str:
    dtype = np.dtype(dtype)
    if weak:
        if is_bool(dtype):
            return "b1"
        if is_int(dtype):
            return "i*"
        if is_float(dtype):
            return "f*"
        if is_complex(dtype):
            return "c*"
    try:
        return _NODE_OF[dtype]
    except KeyError:
        raise TypeError(f"dtype {dtype} is not a valid vmaplab array type") from None


@functools.lru_cache(maxsize=4096)
def _join(nodes: tuple) -> str:
    common = frozenset.intersection(*(_UP[n] for n in nodes))
    # the least upper bound: the element of `common` that every other element is above
    for c in common:
        if all(o in _UP[c] for o in common):
            return c
    raise TypeError(f"no common type for {nodes}")


def promote(*typed: tuple) -> tuple:
    """(dtype, weak) pairs -> the (dtype, weak) JAX's numpy gives their combination."""
    n = _join(tuple(sorted({_node(d, w) for d, w in typed})))
    if n == "i*":
        return default_int(), True
    if n == "f*":
        return default_float(), True
    if n == "c*":
        return default_complex(), True
    return canonicalize(_DTYPE_OF[n]), False


def dtype_and_weak(x) -> tuple:
    """The (dtype, weak_type) of a value: arrays, tracers, numpy scalars, Python scalars."""
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval.dtype, aval.weak_type
    if isinstance(x, bool):
        return bool_, False
    if isinstance(x, int):
        return default_int(), True
    if isinstance(x, float):
        return default_float(), True
    if isinstance(x, complex):
        return default_complex(), True
    if isinstance(x, (np.ndarray, np.generic)):
        return canonicalize(x.dtype), False
    if isinstance(x, (type, np.dtype, str)):
        return canonicalize(np.dtype(x)), False
    raise TypeError(f"Cannot determine dtype of {type(x).__name__} value {x!r}")


def result_type(*args, return_weak_type: bool = False):
    """frontend.numpy.result_type: the promoted dtype of values and dtypes."""
    if not args:
        raise ValueError("at least one array or dtype is required")
    d, w = promote(*(dtype_and_weak(a) for a in args))
    return (d, w) if return_weak_type else d


def short_name(dtype) -> str:
    """f32, i32, bf16, bool ... as in the graph printer."""
    d = np.dtype(dtype)
    if d == float0:
        return "float0"
    if d == bool_:
        return "bool"
    if d == bfloat16:
        return "bf16"
    return {"f": "f", "i": "i", "u": "u", "c": "c"}[d.kind] + str(d.itemsize * 8)
