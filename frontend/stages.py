"""The stages of ``jit`` (``frontend.stages``, as ``jax.stages``): ``jit(f).trace(*args)``
is a ``Traced``, ``.lower()`` a ``Lowered``, ``.compile()`` a ``Compiled``; ``Wrapped`` is
what ``jit`` returns; ``ArgInfo`` describes one argument of a lowered function."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from .transforms.stages import Compiled, Lowered, Traced

CompilerOptions = dict[str, str | bool]


class Wrapped(Protocol):
    """A function ready to be traced, lowered and compiled (what ``jit`` returns)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...

    def trace(self, *args: Any, **kwargs: Any) -> Traced: ...

    def lower(self, *args: Any, **kwargs: Any) -> Lowered: ...


@dataclass(frozen=True)
class ArgInfo:
    """One argument of a lowered function: its aval (``shape``, ``dtype``) and whether it
    is donated."""
    _aval: Any
    donated: bool

    @property
    def shape(self) -> tuple:
        return self._aval.shape

    @property
    def dtype(self):
        return self._aval.dtype


__all__ = ["ArgInfo", "Compiled", "CompilerOptions", "Lowered", "Traced", "Wrapped"]
