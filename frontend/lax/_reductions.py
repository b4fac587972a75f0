"""Reduction lax functions: reduce_<monoid>, argmax/argmin, cumulative scans."""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..primitives.reductions import (
    argmax_p,
    argmin_p,
    cummax_p,
    cummin_p,
    cumprod_p,
    cumsum_p,
    reduce_and_p,
    reduce_max_p,
    reduce_min_p,
    reduce_or_p,
    reduce_prod_p,
    reduce_sum_p,
    reduce_xor_p,
)


def _reduce_wrapper(prim):
    def fn(operand, axes):
        return prim.bind(operand, axes=tuple(map(int, axes)))
    fn.__name__ = prim.name
    dt = "bool" if prim.name in ("reduce_and", "reduce_or", "reduce_xor") else "np.float32"
    fn.__doc__ = (f"lax.{prim.name}: reduce ``operand`` over ``axes`` (non-negative, distinct).\n\n"
                  f"    >>> import numpy as np\n    >>> from frontend import lax\n"
                  f"    >>> y = lax.{prim.name}(np.ones((2, 3), {dt}), (1,))\n"
                  f"    >>> y.shape, y.dtype == {dt}\n    ((2,), True)\n")
    return fn


reduce_sum = _reduce_wrapper(reduce_sum_p)
reduce_prod = _reduce_wrapper(reduce_prod_p)
reduce_max = _reduce_wrapper(reduce_max_p)
reduce_min = _reduce_wrapper(reduce_min_p)
reduce_and = _reduce_wrapper(reduce_and_p)
reduce_or = _reduce_wrapper(reduce_or_p)
reduce_xor = _reduce_wrapper(reduce_xor_p)


def argmax(operand, axis: int, index_dtype):
    """lax.argmax: index of the largest element along ``axis`` (first on ties; NaN wins).

    >>> import numpy as np
    >>> from frontend import lax
    >>> lax.argmax(np.array([[1., 3., 2.], [4., 0., 4.]], np.float32), 1, np.int32)
    Array([1, 0], dtype=int32)
    """
    return argmax_p.bind(operand, axes=(int(axis),), index_dtype=dtypes.canonicalize(np.dtype(index_dtype)))


def argmin(operand, axis: int, index_dtype):
    """lax.argmin: index of the smallest element along ``axis`` (first on ties; NaN wins)."""
    return argmin_p.bind(operand, axes=(int(axis),), index_dtype=dtypes.canonicalize(np.dtype(index_dtype)))


def _cum_wrapper(prim):
    def fn(operand, axis: int = 0, reverse: bool = False):
        return prim.bind(operand, axis=int(axis), reverse=bool(reverse))
    fn.__name__ = prim.name
    fn.__doc__ = (f"lax.{prim.name}: inclusive scan along ``axis`` (from the end if ``reverse``)."
                  f"\n\n    >>> import numpy as np\n    >>> from frontend import lax\n"
                  f"    >>> lax.{prim.name}(np.ones((2, 3), np.float32), axis=1).shape\n    (2, 3)\n")
    return fn


cumsum = _cum_wrapper(cumsum_p)
cumprod = _cum_wrapper(cumprod_p)
cummax = _cum_wrapper(cummax_p)
cummin = _cum_wrapper(cummin_p)
