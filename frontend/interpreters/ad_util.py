"""What autodiff rules pass around besides arrays: the symbolic zero tangent, the
undefined-primal marker of transpose rules, and tangent avals (float0 for integers).

- ``Zero(aval)``: a tangent (or cotangent) known to be zero; costs nothing. jvp rules get
  one for every operand whose tangent is zero and may return one; ``instantiate_zeros``
  (frontend.primitives.shape) turns it into an array when a rule needs one.
- ``UndefinedPrimal(aval)``: in a transpose rule, marks the operands the primitive is
  linear in (their value is not known, only their aval).
- ``tangent_aval(aval)``: the aval of a tangent of a value of ``aval``: the same for inexact
  dtypes, ``float0`` for integers and booleans (they have no tangent space).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.dtypes import float0, is_inexact
from ..core.ir import Aval


class Zero:
    """A symbolic zero tangent of ``aval``."""

    __slots__ = ("aval",)

    def __init__(self, aval: Aval) -> None:
        self.aval = aval

    def __repr__(self) -> str:
        return f"Zero({self.aval})"


class UndefinedPrimal:
    """A linear operand of a transpose rule: only its aval is known."""

    __slots__ = ("aval",)

    def __init__(self, aval: Aval) -> None:
        self.aval = aval

    def __repr__(self) -> str:
        return f"UndefinedPrimal({self.aval})"


def is_undefined_primal(x: Any) -> bool:
    return type(x) is UndefinedPrimal


_TANGENT_AVALS: dict[Aval, Aval] = {}


def tangent_aval(aval: Aval) -> Aval:
    """The tangent aval of ``aval``: itself for inexact dtypes, float0 otherwise."""
    if is_inexact(aval.dtype) or aval.dtype == float0:
        return aval
    t = _TANGENT_AVALS.get(aval)
    if t is None:
        t = _TANGENT_AVALS[aval] = Aval(aval.shape, float0, False)
    return t


def zero_of(aval: Aval) -> Zero:
    """The symbolic zero tangent of a value of ``aval``."""
    return Zero(tangent_aval(aval))


def float0_zeros(shape: Sequence[int]) -> np.ndarray:
    """The concrete tangent of an integer or boolean array: a float0 array (no data)."""
    return np.zeros(shape, float0)


__all__ = ["Zero", "UndefinedPrimal", "float0", "float0_zeros", "is_undefined_primal",
           "tangent_aval", "zero_of"]
