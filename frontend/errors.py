"""JAX's error classes (``frontend.errors``, as ``jax.errors``), so that ``except``
clauses written for JAX catch vmaplab's errors: a traced value's ``bool()`` raises
``TracerBoolConversionError``, its ``__index__`` ``TracerIntegerConversionError``,
``numpy.asarray`` of it ``TracerArrayConversionError`` (these two also subclass
``ConcretizationTypeError`` here), a leaked tracer ``UnexpectedTracerError``, a traced
boolean mask ``NonConcreteBooleanIndexError``; ``JaxRuntimeError`` is the XLA runtime's
error (jaxlib's class: execution failures raise it)."""
from __future__ import annotations

from .core.ir import (
    ConcretizationTypeError,
    JAXIndexError,
    JaxprTypeError,
    JAXTypeError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
    UnexpectedTracerError,
)
from .device import seam as _backend
from .numpy._indexing import NonConcreteBooleanIndexError


class KeyReuseError(JAXTypeError):
    """JAX's error for a PRNG key used twice under ``debug_key_reuse``. vmaplab does not
    check key reuse, so it never raises it; the class is here for ``except`` clauses."""


class InconclusiveDimensionOperation(Exception):
    """An operation on symbolic dimensions whose result depends on their values (JAX's
    class; raised by shape polymorphism)."""


def __getattr__(name):
    if name == "JaxRuntimeError":  # (jaxlib's class: the backend is loaded to name it)
        return _backend.get().JaxRuntimeError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ConcretizationTypeError", "InconclusiveDimensionOperation", "JAXIndexError",
           "JAXTypeError", "JaxRuntimeError", "JaxprTypeError", "KeyReuseError",  # noqa: F822
           "NonConcreteBooleanIndexError", "TracerArrayConversionError",
           "TracerBoolConversionError", "TracerIntegerConversionError", "UnexpectedTracerError"]
