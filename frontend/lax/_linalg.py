"""Linear-algebra lax functions: dot_general, dot, and the precision parameter."""
from __future__ import annotations

import enum
from collections.abc import Sequence

import numpy as np

from ..core import dtypes
from ..core.config import config
from ..core.ir import aval_of
from ..primitives.dot_algorithms import DotAlgorithm, DotAlgorithmPreset, is_algorithm
from ..primitives.linalg import dot_general_p
from ._convert import as_operand


class Precision(str, enum.Enum):
    """lax.Precision: how precisely dots and convolutions compute (StableHLO's precision
    config): DEFAULT (fastest), HIGH, HIGHEST (full float32). Strings work too:
    'bfloat16'/'fastest', 'tensorfloat32', 'float32'/'highest'. The members are the
    StableHLO names (``Precision.HIGHEST == "HIGHEST"``), the values of dot_general's and
    conv's ``precision`` parameter, printed as JAX prints them (``Precision.HIGHEST``)."""
    DEFAULT = "DEFAULT"
    HIGH = "HIGH"
    HIGHEST = "HIGHEST"

    def __repr__(self) -> str:
        return f"Precision.{self.name}"

    def __str__(self) -> str:
        return self.name

    def __format__(self, spec: str) -> str:
        return format(self.name, spec)


# the type names JAX's signatures use
DotDimensionNumbers = tuple[tuple[Sequence[int], Sequence[int]],
                            tuple[Sequence[int], Sequence[int]]]
PrecisionLike = (None | str | Precision | tuple[str, str] | tuple[Precision, Precision]
                 | DotAlgorithm | DotAlgorithmPreset)

_PRECISIONS = {"DEFAULT": "DEFAULT", "BFLOAT16": "DEFAULT", "FASTEST": "DEFAULT",
               "HIGH": "HIGH", "TENSORFLOAT32": "HIGH",
               "HIGHEST": "HIGHEST", "FLOAT32": "HIGHEST"}


def canonicalize_precision(precision):
    """None, a string ('highest', 'float32', ...), an enum with a ``name`` (lax.Precision) or
    a pair of those -> None or a pair of Precision members (StableHLO's names, hashable); a
    DotAlgorithm, a DotAlgorithmPreset or a preset's name -> that algorithm. None is
    ``default_matmul_precision`` where that option is set."""
    if precision is None:
        precision = config.default_matmul_precision  # (None unless set)
        if precision is None:
            return None
    if is_algorithm(precision):
        return precision
    if isinstance(precision, str) and precision.upper() not in _PRECISIONS \
            and precision in DotAlgorithmPreset.__members__:
        return DotAlgorithmPreset[precision]

    def one(p):
        name = p if isinstance(p, str) else getattr(p, "name", None)
        if isinstance(name, str) and name.upper() in _PRECISIONS:
            return Precision(_PRECISIONS[name.upper()])
        raise ValueError(f"Precision argument must be None, a string in "
                         f"{sorted(k.lower() for k in _PRECISIONS)}, a lax.Precision value or "
                         f"a tuple of two of these; got {precision!r}.")

    if isinstance(precision, (tuple, list)):
        if len(precision) != 2:
            one(object())
        return (one(precision[0]), one(precision[1]))
    p = one(precision)
    return (p, p)


def _dims_tuple(ds, what) -> tuple:
    try:
        return tuple(map(int, ds))
    except TypeError:
        if isinstance(ds, (int, np.integer)):
            return (int(ds),)
        raise TypeError(f"dot_general {what} dimension numbers must be a sequence of ints, "
                        f"got {ds!r}.") from None


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None):
    """General tensor contraction (``stablehlo.dot_general``).

    ``dimension_numbers = ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))``.
    Result dims: batch dims, then lhs free dims, then rhs free dims.

    >>> import numpy as np
    >>> from frontend import lax
    >>> x, y = np.ones((2, 3, 4), np.float32), np.ones((2, 4, 5), np.float32)
    >>> lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))).shape
    (2, 3, 5)
    """
    try:
        (lc, rc), (lb, rb) = dimension_numbers
    except (TypeError, ValueError):
        raise TypeError("dot_general dimension_numbers must be ((lhs_contracting, "
                        "rhs_contracting), (lhs_batch, rhs_batch)), got "
                        f"{dimension_numbers!r}.") from None
    dn = ((_dims_tuple(lc, "lhs contracting"), _dims_tuple(rc, "rhs contracting")),
          (_dims_tuple(lb, "lhs batch"), _dims_tuple(rb, "rhs batch")))
    pref = None if preferred_element_type is None else dtypes.canonicalize(np.dtype(preferred_element_type))
    return dot_general_p.bind(as_operand(lhs), as_operand(rhs), dimension_numbers=dn,
                              precision=canonicalize_precision(precision),
                              preferred_element_type=pref)


def dot(lhs, rhs, *, dimension_numbers=None, precision=None, preferred_element_type=None):
    """lax.dot: vector/matrix products (``dimension_numbers`` optional, as in lax.dot)."""
    if dimension_numbers is None:
        ls, rs = aval_of(as_operand(lhs)).shape, aval_of(as_operand(rhs)).shape
        if 1 <= len(ls) <= 2 and 1 <= len(rs) <= 2 and ls[-1] == rs[0]:
            dimension_numbers = (((len(ls) - 1,), (0,)), ((), ()))
        else:
            raise ValueError("lax.dot: dimension_numbers must be specified when not "
                             "performing simple un-batched matrix-matrix, matrix-vector, or "
                             f"vector-vector products; got lhs_shape={ls} rhs_shape={rs}")
    return dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type)


def batch_matmul(lhs, rhs, precision=None):
    """lax.batch_matmul: matrix products over equal leading batch axes (rank >= 2)."""
    lhs, rhs = as_operand(lhs), as_operand(rhs)
    la, ra = aval_of(lhs), aval_of(rhs)
    if min(la.ndim, ra.ndim) < 2:
        raise ValueError(f"Arguments to batch_matmul must be at least 2D, got {la.ndim}, "
                         f"{ra.ndim}")
    if la.ndim != ra.ndim:
        raise ValueError(f"Arguments to batch_matmul must have same ndim, got {la.ndim}, "
                         f"{ra.ndim}")
    batch = tuple(range(la.ndim - 2))
    return dot_general(lhs, rhs, (((la.ndim - 1,), (ra.ndim - 2,)), (batch, batch)),
                       precision=precision)
