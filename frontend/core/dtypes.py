"""Dtypes as JAX's numpy has them: 32-bit defaults (64-bit ones when
``config.enable_x64``, frontend.core.config, is on), weakly typed Python scalars, the same
promotion lattice (``result_type``)."""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np

from .config import config, on_x64_change

bool_ = np.dtype(np.bool_)
int8, int16, int32, int64 = (np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64))
uint8, uint16, uint32, uint64 = (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
float16, float32, float64 = (np.dtype(t) for t in (np.float16, np.float32, np.float64))
bfloat16 = np.dtype(ml_dtypes.bfloat16)
# the narrow types (ml_dtypes' numpy types; StableHLO i4/ui4, f4E2M1FN, f8E4M3FN, ...): each
# promotes only with bool, weak Python scalars and itself, as JAX's. (Not int2/uint2: XLA CPU
# aborts the process on their concatenate and sorts them wrongly, JAX's arrays too.)
int4, uint4 = np.dtype(ml_dtypes.int4), np.dtype(ml_dtypes.uint4)
FLOAT8_NAMES = ("float8_e3m4", "float8_e4m3", "float8_e8m0fnu", "float8_e4m3b11fnuz",
                "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz")
float8 = {n: np.dtype(getattr(ml_dtypes, n)) for n in FLOAT8_NAMES}
float4_e2m1fn = np.dtype(ml_dtypes.float4_e2m1fn)
# kind, StableHLO element type and short (graph printer) name of each narrow type
NARROW_TYPES: dict[np.dtype, tuple[str, str, str]] = {
    int4: ("i", "i4", "i4"), uint4: ("u", "ui4", "u4"), float4_e2m1fn: ("f", "f4E2M1FN", "f4_e2m1fn"),
    **{d: ("f", "f8" + n[len("float8_"):].upper(), "f8" + n[len("float8"):])
       for n, d in float8.items()},
}
complex64, complex128 = np.dtype(np.complex64), np.dtype(np.complex128)
# the tangent dtype of integer and boolean values (as JAX's dtypes.float0): no data
float0 = np.dtype([("float0", np.void, 0)])


_canon_cache: dict[Any, np.dtype] = {}  # dtype -> canonicalize(dtype), for the current enable_x64
on_x64_change(_canon_cache.clear)

_NARROW: dict[np.dtype, np.dtype] = {int64: int32, uint64: uint32, float64: float32, complex128: complex64}


def canonicalize(dtype: Any) -> np.dtype:
    """The dtype an array of ``dtype`` gets: 64-bit types narrow to 32 bits unless x64 is on."""
    try:
        return _canon_cache[dtype]
    except (KeyError, TypeError):
        pass
    d = np.dtype(dtype)
    check_supported(d)
    out = d if config.enable_x64 else _NARROW.get(d, d)
    try:
        _canon_cache[dtype] = out
    except TypeError:
        pass
    return out


def check_supported(d: np.dtype, where: str = "") -> None:
    """TypeError (JAX's wording) unless arrays can have dtype ``d``: bool and the numeric
    dtypes XLA has (not longdouble, strings, objects, datetimes, void or structured)."""
    if d not in _NODE_OF and d != float0:
        raise TypeError(f"vmaplab only supports number and bool dtypes, got dtype {d}"
                        + (f" in {where}" if where else ""))


def iinfo(d: Any) -> Any:
    """numpy's iinfo, also for ml_dtypes' int2/int4/uint2/uint4."""
    return ml_dtypes.iinfo(np.dtype(d))


def finfo(d: Any) -> Any:
    """numpy's finfo, also for bfloat16 and ml_dtypes' 4- and 8-bit floats."""
    return ml_dtypes.finfo(np.dtype(d))


def default_int() -> np.dtype:
    return int64 if config.enable_x64 else int32


def default_float() -> np.dtype:
    return float64 if config.enable_x64 else float32


def default_complex() -> np.dtype:
    return complex128 if config.enable_x64 else complex64


def to_numeric(d: Any) -> np.dtype:
    """JAX's number type for a dtype: bool becomes int32 (also with 64-bit types on)."""
    d = np.dtype(d)
    return int32 if is_bool(d) else d


def to_inexact(d: Any) -> np.dtype:
    """JAX's float for a dtype that is not inexact: float32, even with 64-bit types on, except
    float64 for 64-bit integers (inexact dtypes are kept, canonicalized: a float64 array made
    under x64 computes in float32 once x64 is off, as JAX's)."""
    d = np.dtype(d)
    if is_inexact(d):
        return canonicalize(d)
    return canonicalize(float64) if d.itemsize == 8 and is_int(d) else float32


class _KindTable(dict[Any, str]):
    def __missing__(self, d: Any) -> str:
        dt = np.dtype(d)
        k = self[d] = "f" if dt == bfloat16 else NARROW_TYPES[dt][0] if dt in NARROW_TYPES \
            else dt.kind
        return k


# _kind(d): 'b', 'i', 'u', 'f' (bfloat16 included) or 'c'. A dict hit per dtype seen before,
# made in C (no Python call): it is asked several times per traced equation.
_kind: Callable[[Any], str] = _KindTable().__getitem__


def is_float(d: Any) -> bool:
    return _kind(d) == "f"


def is_int(d: Any) -> bool:
    return _kind(d) in "iu"


def is_unsigned(d: Any) -> bool:
    return _kind(d) == "u"


def is_complex(d: Any) -> bool:
    return _kind(d) == "c"


def is_bool(d: Any) -> bool:
    return _kind(d) == "b"


def is_inexact(d: Any) -> bool:
    return _kind(d) in "fc"


# The promotion lattice of JAX's numpy: an edge a -> b means b is the next type up from a.
# "i*", "f*", "c*" are the weakly typed Python int, float and complex.
_SMALL_INTS = ("i4", "u4")
_SMALL_FLOATS = tuple(NARROW_TYPES[d][2] for d in (float4_e2m1fn, *float8.values()))
_EDGES: dict[str, list[str]] = {
    "b1": ["i*"],
    "i*": ["u8", "i8", *_SMALL_INTS],
    "u8": ["i16", "u16"], "u16": ["i32", "u32"], "u32": ["i64", "u64"], "u64": ["f*"],
    "i8": ["i16"], "i16": ["i32"], "i32": ["i64"], "i64": ["f*"],
    "f*": ["bf16", "f16", "c*", *_SMALL_FLOATS],
    "bf16": ["f32"], "f16": ["f32"], "f32": ["f64", "c64"], "f64": ["c128"],
    "c*": ["c64"], "c64": ["c128"], "c128": [],
    **{n: [] for n in _SMALL_INTS + _SMALL_FLOATS},
}
_NODE_OF: dict[np.dtype, str] = {bool_: "b1", int8: "i8", int16: "i16", int32: "i32", int64: "i64", uint8: "u8",
            uint16: "u16", uint32: "u32", uint64: "u64", bfloat16: "bf16", float16: "f16",
            float32: "f32", float64: "f64", complex64: "c64", complex128: "c128",
            **{d: t[2] for d, t in NARROW_TYPES.items()}}
_DTYPE_OF = {v: k for k, v in _NODE_OF.items()}


def _upper_sets(edges: dict[str, list[str]] = _EDGES) -> dict[str, frozenset[str]]:
    ups: dict[str, frozenset[str]] = {}

    def walk(n: str) -> frozenset[str]:
        if n not in ups:
            s = {n}
            for m in edges[n]:
                s |= walk(m)
            ups[n] = frozenset(s)
        return ups[n]

    for n in edges:
        walk(n)
    return ups


_UP = _upper_sets()

# numpy_dtype_promotion="strict": only weak types promote (JAX's strict lattice)
_STRICT_EDGES: dict[str, list[str]] = {
    **{n: [] for n in _EDGES},
    "i*": ["f*", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", *_SMALL_INTS],
    "f*": ["c*", "bf16", "f16", "f32", "f64", *_SMALL_FLOATS], "c*": ["c64", "c128"]}
_UP_STRICT = _upper_sets(_STRICT_EDGES)


def _node(dtype: Any, weak: bool) -> str:
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


class TypePromotionError(ValueError):
    """Dtypes with no implicit promotion path (JAX's ``jax.dtypes.TypePromotionError``)."""


_WEAK_NAMES = {"i*": "<class 'int'>", "f*": "<class 'float'>", "c*": "<class 'complex'>"}


@functools.lru_cache(maxsize=4096)
def _join(nodes: tuple[str, ...], strict: bool = False) -> str | None:
    """The least upper bound of lattice nodes (None: there is none); ``strict``: in the
    lattice of numpy_dtype_promotion="strict", where only weak types promote."""
    common = frozenset.intersection(*((_UP_STRICT if strict else _UP)[n] for n in nodes))
    # the element of `common` that every other element is above
    for c in common:
        if all(o in _UP[c] for o in common):
            return c
    return None


def join_nodes(nodes: list[str]) -> str:
    """The lattice node of a combination (TypePromotionError, JAX's, where there is none)."""
    n = _join(tuple(sorted(set(nodes))))
    if n is None:
        raise _no_promotion(list(dict.fromkeys(nodes)))
    return n


def promote_types(a: Any, b: Any) -> np.dtype:
    """JAX's promote_types of two strongly typed dtypes (not narrowed to 32 bits)."""
    return _DTYPE_OF[join_nodes([_node(a, False), _node(b, False)])]


def _no_promotion(nodes: list[str]) -> TypePromotionError:
    names = tuple(_WEAK_NAMES.get(n) or _DTYPE_OF[n].name for n in nodes)
    kind = next((k for k, group in (("8-bit floats", [NARROW_TYPES[d][2] for d in float8.values()]),
                                    ("4-bit floats", ["f4_e2m1fn"]),
                                    ("1-bit, 2-bit and 4-bit integers", _SMALL_INTS))
                 if any(n in group for n in nodes)), None)
    to = "int32" if kind and kind.endswith("integers") else "float32"
    return TypePromotionError(
        f"Input dtypes {names} have no available implicit dtype promotion path. To avoid "
        f"unintended promotion, {kind} do not support implicit promotion. If you'd like your "
        f"inputs to be promoted to another type, you can do so explicitly using e.g. "
        f"x.astype('{to}')")


def promote(*typed: tuple[Any, bool]) -> tuple[np.dtype, bool]:
    """(dtype, weak) pairs -> the (dtype, weak) JAX's numpy gives their combination
    (TypePromotionError where there is none, or under numpy_dtype_promotion="strict")."""
    nodes = [_node(d, w) for d, w in typed]
    if config.numpy_dtype_promotion == "strict" and len(set(nodes)) > 1:
        n = _join(tuple(sorted(set(nodes))), True)
        if n is None:
            names = tuple(_WEAK_NAMES.get(m) or _DTYPE_OF[m].name
                          for m in dict.fromkeys(nodes))
            raise TypePromotionError(
                f"Input dtypes {names} have no available implicit dtype promotion path when "
                f"jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to the "
                f"desired output type, or set jax_numpy_dtype_promotion=standard.")
    else:
        n = join_nodes(nodes)
    if n == "i*":
        return default_int(), True
    if n == "f*":
        return default_float(), True
    if n == "c*":
        return default_complex(), True
    return canonicalize(_DTYPE_OF[n]), False


def dtype_and_weak(x: Any) -> tuple[np.dtype, bool]:
    """The (dtype, weak_type) of a value: arrays, tracers, numpy scalars, Python scalars."""
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval.dtype, aval.weak_type
    if isinstance(x, bool):
        return bool_, False
    if isinstance(x, int) or type(x).__name__ == "DimExpr":  # (a symbolic dimension)
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


def result_type(*args: Any, return_weak_type: bool = False) -> np.dtype | tuple[np.dtype, bool]:
    """frontend.numpy.result_type: the promoted dtype of values and dtypes."""
    if not args:
        raise ValueError("at least one array or dtype is required")
    d, w = promote(*(dtype_and_weak(a) for a in args))
    return (d, w) if return_weak_type else d


def short_name(dtype: Any) -> str:
    """f32, i32, bf16, bool ... as in the graph printer."""
    d = np.dtype(dtype)
    if d == float0:
        return "float0"
    if d == bool_:
        return "bool"
    if d == bfloat16:
        return "bf16"
    if d in NARROW_TYPES:
        return NARROW_TYPES[d][2]
    return {"f": "f", "i": "i", "u": "u", "c": "c"}[d.kind] + str(d.itemsize * 8)
