"""Scalar types, dtype classes and dtype information as JAX's numpy has them: ``float32``
etc. are callable types (``fnp.float32(2.0)`` is an Array) that stand for their dtype
anywhere a dtype is taken; ``finfo``/``iinfo`` know bfloat16; ``issubdtype`` too."""
from __future__ import annotations

import builtins

import ml_dtypes
import numpy as np

from ..core import dtypes
from ._core import asarray


class _ScalarMeta(type):
    """The metaclass of the scalar types: equal to (and hashed as) their numpy scalar type;
    calling one converts to an Array of its (canonical) dtype."""

    def __hash__(cls):
        return hash(cls.dtype.type)

    def __eq__(cls, other):
        return cls is other or cls.dtype.type == other

    def __ne__(cls, other):
        return not cls == other

    def __call__(cls, x=0):
        return asarray(x, dtype=cls.dtype)

    def __instancecheck__(cls, instance):
        return isinstance(instance, cls.dtype.type)

    def __repr__(cls):
        return f"<class 'frontend.numpy.{cls.__name__}'>"


def _scalar_type(name: str, dtype) -> type:
    return _ScalarMeta(name, (object,), {"dtype": np.dtype(dtype),
                                         "__doc__": f"The {name} scalar type: "
                                         f"``{name}(x)`` is an Array of dtype {name}."})


bool_ = bool = _scalar_type("bool", np.bool_)  # noqa: A001 (JAX's jnp.bool is jnp.bool_)
int8, int16, int32, int64 = (_scalar_type(n, n) for n in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (_scalar_type(n, n) for n in ("uint8", "uint16", "uint32", "uint64"))
float16, float32, float64 = (_scalar_type(n, n) for n in ("float16", "float32", "float64"))
bfloat16 = _scalar_type("bfloat16", dtypes.bfloat16)
complex64, complex128 = _scalar_type("complex64", np.complex64), _scalar_type("complex128", np.complex128)
int4, uint4 = _scalar_type("int4", dtypes.int4), _scalar_type("uint4", dtypes.uint4)
float4_e2m1fn = _scalar_type("float4_e2m1fn", dtypes.float4_e2m1fn)
(float8_e3m4, float8_e4m3, float8_e8m0fnu, float8_e4m3b11fnuz, float8_e4m3fn, float8_e4m3fnuz,
 float8_e5m2, float8_e5m2fnuz) = (_scalar_type(n, dtypes.float8[n]) for n in dtypes.FLOAT8_NAMES)
# JAX's aliases: the 64-bit types (narrowed to 32 bits unless 64-bit mode is on)
int_, uint, float_, complex_ = int64, uint64, float64, complex128
double, single, half, cdouble, csingle = float64, float32, float16, complex128, complex64

# the abstract classes of numpy's hierarchy, for issubdtype
generic, number, inexact, floating, complexfloating = (np.generic, np.number, np.inexact,
                                                      np.floating, np.complexfloating)
integer, signedinteger, unsignedinteger = np.integer, np.signedinteger, np.unsignedinteger
character, flexible, object_ = np.character, np.flexible, np.object_
ComplexWarning = np.exceptions.ComplexWarning


def _np_dtype(d):
    """The numpy dtype a dtype-like stands for (scalar types, dtypes, names, arrays)."""
    if isinstance(d, _ScalarMeta):
        return d.dtype
    if isinstance(getattr(d, "dtype", None), np.dtype):  # arrays and scalars
        return d.dtype
    return np.dtype(d)


_ML_CLASSES = {"f": (np.floating, np.inexact), "i": (np.signedinteger, np.integer),
               "u": (np.unsignedinteger, np.integer)}


def issubdtype(arg1, arg2) -> bool:
    """numpy's issubdtype, with bfloat16 and ml_dtypes' narrow floats floating types and its
    int2/int4/uint2/uint4 integer types."""
    d1 = arg1 if isinstance(arg1, type) and issubclass(arg1, np.generic) else _np_dtype(arg1)
    d1 = np.dtype(d1)
    if d1 == dtypes.bfloat16 or d1 in dtypes.NARROW_TYPES:
        t2 = arg2 if isinstance(arg2, type) and issubclass(arg2, np.generic) else None
        if t2 in (*_ML_CLASSES[dtypes._kind(d1)], np.number, np.generic):
            return True
        return t2 is None and _np_dtype(arg2) == d1
    if isinstance(arg2, _ScalarMeta):
        arg2 = arg2.dtype
    return builtins.bool(np.issubdtype(d1, arg2))


def finfo(dtype):
    """Machine limits of a floating dtype (bfloat16 included); the real part's for complex."""
    d = _np_dtype(dtype)
    if not dtypes.is_inexact(d):
        raise ValueError(f"data type {d} not inexact")
    return ml_dtypes.finfo(d)


def iinfo(int_type):
    """Machine limits of an integer dtype."""
    return ml_dtypes.iinfo(_np_dtype(int_type))


def promote_types(a, b) -> np.dtype:
    """The dtype JAX's numpy promotes two (strongly typed) dtypes to; as JAX's, not narrowed
    to 32 bits (``promote_types(int64, int32)`` is int64)."""
    return dtypes.promote_types(_np_dtype(a), _np_dtype(b))


def can_cast(from_, to, casting="safe") -> bool:
    """numpy's can_cast on dtypes (bfloat16's casts as ml_dtypes registers them)."""
    return builtins.bool(np.can_cast(_np_dtype(from_), _np_dtype(to), casting))


def isdtype(dtype, kind) -> bool:
    """The array API's dtype classification (``'real floating'``, ``'integral'``, ...)."""
    d = _np_dtype(dtype)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    table = {"bool": dtypes.is_bool, "signed integer": lambda x: dtypes._kind(x) == "i",
             "unsigned integer": dtypes.is_unsigned, "integral": dtypes.is_int,
             "real floating": dtypes.is_float, "complex floating": dtypes.is_complex,
             "numeric": lambda x: not dtypes.is_bool(x)}
    for k in kinds:
        if isinstance(k, str):
            if k not in table:
                raise ValueError(f"Unrecognized data type kind: {k!r}.")
            if table[k](d):
                return True
        elif _np_dtype(k) == d:
            return True
    return False


__all__ = ["ComplexWarning", "bool", "character", "flexible", "object_", "promote_types",
           "can_cast", "bfloat16", "bool_", "cdouble", "complex128", "complex64", "complex_", "complexfloating",
           "csingle", "double", "finfo", "float16", "float32", "float64", "float_", "floating",
           "generic", "half", "iinfo", "inexact", "int16", "int32", "int64", "int8", "int_",
           "integer", "isdtype", "issubdtype", "number", "signedinteger", "single", "uint",
           "uint16", "uint32", "uint64", "uint8", "unsignedinteger", "int4", "uint4",
           "float4_e2m1fn", *dtypes.FLOAT8_NAMES]
