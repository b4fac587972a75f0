"""A traced function's arguments: their names and pytree paths (for error messages) and
their avals (``abstractify`` for a function's arguments, ``leaf_aval`` for an operand leaf,
each with JAX's error for a value that is no array)."""
from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..device.array import Array
from .ir import Aval, ShapeDtypeStruct, Tracer, aval_of
from .pytree import TreeDef, key_paths

# what a traced function takes as an array argument
_ARGUMENTS = (Array, Tracer, ShapeDtypeStruct, np.ndarray, np.generic, bool, int, float, complex)


def arg_names(fun: Callable[..., Any], n_args: int) -> list[str]:
    """Parameter names of the positional arguments (for error messages)."""
    try:
        ps = [p.name for p in inspect.signature(fun).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        ps = []
    return [ps[i] if i < len(ps) else f"args[{i}]" for i in range(n_args)]


def leaf_paths(fun: Callable[..., Any], args: Sequence[Any], td: TreeDef) -> list[str]:
    """Readable names of the flattened leaves of (args, kwargs): ``x``, ``params['w']``."""
    names = arg_names(fun, len(args))
    paths = []
    arg_tds = td.children[0].children
    for name, atd in zip(names, arg_tds, strict=True):
        paths += [name + p for p in key_paths(atd)]
    kw_td = td.children[1]
    for k, ktd in zip(kw_td.meta or (), kw_td.children, strict=True):
        paths += [k + p for p in key_paths(ktd)]
    return paths


def abstractify(x: Any, path: str, fun: Callable[..., Any]) -> Aval:
    """The aval of a function argument; a TypeError naming its path when it is no array."""
    why = ""
    if isinstance(x, _ARGUMENTS):
        try:
            return aval_of(x)
        except TypeError as e:  # (a numpy array of a dtype XLA has not)
            why = f" ({e})"
    raise TypeError(
        f"Error interpreting argument to {getattr(fun, '__name__', fun)} as an abstract array. "
        f"The problematic value is of type {type(x)} and was passed to the function at path "
        f"{path}{why}. Arguments must be arrays (frontend.Array, numpy.ndarray), Python "
        "scalars, or pytrees (tuple, list, dict) of them; mark other arguments static.")


def leaf_aval(x: Any) -> Aval:
    """The aval of a pytree leaf operand (JAX's wording for a non-array)."""
    try:
        return aval_of(x)
    except TypeError as e:
        why = f" ({e})" if isinstance(x, (np.ndarray, np.generic)) else ""
        raise TypeError(f"Value {x!r} of type {type(x)} is not a valid JAX type{why}") from None
