"""Operands of lax functions: typed literals and dtype conversion.

lax (unlike numpy) does not promote: operands must already agree in dtype; Python scalars
take the dtype of the typed operands (weakly, as in JAX's lax).
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.ir import Literal, Tracer, aval_of, literal
from ..core.shape_poly import DimExpr
from ..device.array import Array, host_const
from ..primitives.elementwise import convert_element_type_p
from ..primitives.shape import dim_as_value_p

SCALARS = (bool, int, float, complex)
# operands that take the typed operands' dtype: Python scalars and symbolic dimensions
# (shape-polymorphic export: a DimExpr is a weakly typed int computed at run time)
SCALAR_LIKE = (*SCALARS, DimExpr)


def as_operand(x):
    """An array operand: arrays, tracers and literals pass; Python and numpy scalars, numpy
    arrays and (nested) lists of numbers go to the device with JAX's canonical dtypes."""
    if isinstance(x, (Array, Tracer, Literal)):
        return x
    if type(x) is DimExpr:
        return dim_as_value_p.bind(dim=x)
    if isinstance(x, SCALARS):
        d, weak = dtypes.dtype_and_weak(x)
        return host_const(np.asarray(x, d), weak)
    if isinstance(x, (list, tuple)):
        x = np.asarray(x)
    if isinstance(x, (np.ndarray, np.generic)):
        return host_const(np.asarray(x, dtypes.canonicalize(x.dtype)))
    if hasattr(x, "__array__"):
        return as_operand(np.asarray(x))
    raise TypeError(f"Value {x!r} of type {type(x).__name__} is not a valid array type")


def convert(x, dtype, weak: bool = False):
    """x as ``dtype`` (a convert_element_type only when the dtype or weak type changes)."""
    dtype = np.dtype(dtype)
    if isinstance(x, SCALARS):
        return literal(x, dtype, weak)
    if type(x) is DimExpr:
        x = dim_as_value_p.bind(dim=x)
    if isinstance(x, Literal):
        if x.aval.dtype == dtype and x.aval.weak_type == weak:
            return x
        return literal(x.val, dtype, weak)
    if isinstance(x, (np.ndarray, np.generic)):
        x = as_operand(x)
    a = x.aval
    if a.dtype == dtype and a.weak_type == weak:
        return x
    return convert_element_type_p.bind(x, new_dtype=dtype, weak_type=weak)


def convert_element_type(operand, new_dtype):
    """lax.convert_element_type: ``operand`` as ``new_dtype`` (canonicalized)."""
    return convert(operand, dtypes.canonicalize(np.dtype(new_dtype)), False)


def lax_operands(args) -> list:
    """Python scalars take the dtype of the typed operands (weak when all typed ones are);
    with only Python scalars, JAX's promotion of their kinds (weakly typed)."""
    typed = [a for a in args if not isinstance(a, SCALAR_LIKE)]
    if not typed:
        d, weak = dtypes.promote(*(dtypes.dtype_and_weak(1 if type(a) is DimExpr else a)
                                   for a in args))
        return [convert(a, d, weak) for a in args]
    if len(typed) == len(args):
        return list(args)
    a0 = aval_of(typed[0])
    weak = all(aval_of(a).weak_type for a in typed)
    return [convert(a, a0.dtype, weak) if isinstance(a, SCALAR_LIKE) else a for a in args]
