"""Dot algorithms, as JAX's ``lax.DotAlgorithm`` and ``lax.DotAlgorithmPreset``: a
``precision=`` of dot_general that names the operand (rounding) types, the accumulation type
and the number of partial products, lowered to StableHLO's ``algorithm`` attribute of
``stablehlo.dot_general`` (the operands converted to the precision types, the result
converted back). On CPU only the presets JAX lets through compile (JAX's check and wording).
"""
from __future__ import annotations

import enum
from typing import NamedTuple

import ml_dtypes
import numpy as np

_F16, _BF16, _F32, _F64 = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16),
                           np.dtype(np.float32), np.dtype(np.float64))
TF32 = "tf32"   # a precision type with no storage dtype (spelled in the attribute only)


class DotAlgorithm(NamedTuple):
    """The algorithm of a dot product (JAX's fields): the types the operands are rounded to,
    the accumulation type, the components of each operand and the number of primitive
    products (> 1 emulates a higher precision), and whether accumulation may be imprecise."""

    lhs_precision_type: object
    rhs_precision_type: object
    accumulation_type: object
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False


class DotAlgorithmPreset(enum.Enum):
    """The dot algorithms known to some platform (JAX's names): ``IN_IN_ACC`` rounds the
    operands to IN and accumulates in ACC; ``_Xn``: n products emulate more precision;
    ``DEFAULT``: the platform's choice; ``ANY_F8``: float8 operands of any kind."""

    DEFAULT = enum.auto()
    ANY_F8_ANY_F8_F32 = enum.auto()
    ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
    ANY_F8_ANY_F8_ANY = enum.auto()
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
    F16_F16_F16 = enum.auto()
    F16_F16_F32 = enum.auto()
    BF16_BF16_BF16 = enum.auto()
    BF16_BF16_F32 = enum.auto()
    BF16_BF16_F32_X3 = enum.auto()
    BF16_BF16_F32_X6 = enum.auto()
    BF16_BF16_F32_X9 = enum.auto()
    TF32_TF32_F32 = enum.auto()
    TF32_TF32_F32_X3 = enum.auto()
    F32_F32_F32 = enum.auto()
    F64_F64_F64 = enum.auto()

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"

    def __str__(self) -> str:
        return self.name

    @property
    def _parts(self) -> tuple:
        """(operand precision type, accumulation type, primitive products), by name."""
        name = self.name
        if name == "DEFAULT" or name.startswith("ANY_F8"):
            return None, (None if name.startswith("ANY_F8_ANY_F8_ANY") or name == "DEFAULT"
                          else _F32), 1
        t = {"F16": _F16, "BF16": _BF16, "TF32": TF32, "F32": _F32, "F64": _F64}
        parts = name.split("_")
        return t[parts[0]], t[parts[2]], int(parts[3][1:]) if len(parts) > 3 else 1

    @property
    def supported_lhs_types(self) -> tuple | None:
        name = self.name
        if name == "DEFAULT" or name.startswith("ANY_F8"):
            return None
        if name.startswith("F16"):
            return (np.float16,)
        if name in ("BF16_BF16_BF16", "BF16_BF16_F32"):
            return (ml_dtypes.bfloat16, np.float32)
        return (np.float64,) if name == "F64_F64_F64" else (np.float32,)

    @property
    def supported_rhs_types(self) -> tuple | None:
        return self.supported_lhs_types

    @property
    def accumulation_type(self):
        acc = self._parts[1]
        return None if acc is None else acc.type

    def supported_output_types(self, lhs_dtype, rhs_dtype) -> tuple | None:
        name = self.name
        if name in ("ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM"):
            return (np.float32, np.float16, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn,
                    ml_dtypes.float8_e5m2, ml_dtypes.float8_e5m2fnuz,
                    ml_dtypes.float8_e4m3fnuz, ml_dtypes.float8_e4m3b11fnuz)
        low = {"F16_F16_F32": _F16, "BF16_BF16_F32": _BF16}.get(name)
        if low is not None:
            both = np.promote_types(lhs_dtype, rhs_dtype)
            return (np.float32, low.type) if both == low else (np.float32,)
        acc = self.accumulation_type
        return None if acc is None else (acc,)


# the presets that compile on CPU (JAX's list: XLA's CPU backend ignores the others)
CPU_PRESETS = frozenset({
    DotAlgorithmPreset.DEFAULT, DotAlgorithmPreset.F16_F16_F16, DotAlgorithmPreset.F32_F32_F32,
    DotAlgorithmPreset.F64_F64_F64, DotAlgorithmPreset.BF16_BF16_F32,
    DotAlgorithmPreset.BF16_BF16_F32_X3, DotAlgorithmPreset.BF16_BF16_F32_X6})


def is_algorithm(precision) -> bool:
    return isinstance(precision, (DotAlgorithm, DotAlgorithmPreset))


def compute_types(algorithm, lhs_dtype, rhs_dtype, out_dtype) -> tuple:
    """(lhs, rhs, accumulation) dtypes a dot with ``algorithm`` computes in (JAX's rule: a
    preset keeps a supported dtype, else takes its first supported one)."""
    if isinstance(algorithm, DotAlgorithm):
        return tuple(np.dtype(t) for t in algorithm[:3])

    def pick(d, allowed):
        if allowed is None or np.dtype(d) in [np.dtype(a) for a in allowed]:
            return np.dtype(d)
        return np.dtype(allowed[0])
    lhs = pick(lhs_dtype, algorithm.supported_lhs_types)
    rhs = pick(rhs_dtype, algorithm.supported_rhs_types)
    return lhs, rhs, pick(out_dtype, algorithm.supported_output_types(lhs, rhs))


def attribute_fields(algorithm, lhs_dtype, rhs_dtype) -> tuple | None:
    """(lhs type, rhs type, accumulation type, lhs components, rhs components, products,
    imprecise accumulation) of the StableHLO ``algorithm`` attribute (dtypes, or TF32);
    None for DEFAULT (no attribute)."""
    if isinstance(algorithm, DotAlgorithm):
        return (np.dtype(algorithm[0]), np.dtype(algorithm[1]), np.dtype(algorithm[2]),
                *algorithm[3:])
    if algorithm is DotAlgorithmPreset.DEFAULT:
        return None
    if algorithm.name.startswith("ANY_F8"):
        f8 = [np.dtype(t) for t in (ml_dtypes.float8_e4m3b11fnuz, ml_dtypes.float8_e4m3fn,
                                    ml_dtypes.float8_e4m3fnuz, ml_dtypes.float8_e5m2,
                                    ml_dtypes.float8_e5m2fnuz, ml_dtypes.float8_e3m4,
                                    ml_dtypes.float8_e4m3, ml_dtypes.float8_e8m0fnu)]
        if np.dtype(lhs_dtype) not in f8 or np.dtype(rhs_dtype) not in f8:
            raise ValueError(f"The dot algorithm '{algorithm}' requires both inputs to have "
                             f"float8 dtypes. Got {lhs_dtype} and {rhs_dtype} instead.")
        return (np.dtype(lhs_dtype), np.dtype(rhs_dtype), _F32, 1, 1, 1,
                algorithm is DotAlgorithmPreset.ANY_F8_ANY_F8_F32_FAST_ACCUM)
    prec, acc, products = algorithm._parts
    return prec, prec, acc, 1, 1, products, False


__all__ = ["CPU_PRESETS", "DotAlgorithm", "DotAlgorithmPreset", "TF32", "attribute_fields",
           "compute_types", "is_algorithm"]
