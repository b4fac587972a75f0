"""JAX's numpy ufunc objects: ``add``, ``multiply``, ``maximum``, ... are ``ufunc``s, callable
as the elementwise functions, with ``outer``, ``reduce``, ``accumulate``, ``reduceat`` and
``at``; their reductions are the numpy reductions JAX uses (``add.reduce`` is ``sum``, ...).
The library's own code calls the plain functions of _elementwise."""
from __future__ import annotations

from ..core import dtypes
from . import _elementwise as ew
from . import _reductions as red
from ._core import asarray
from ._functional import ufunc


def _u(call, identity=None, nin=2, reduce=None, accumulate=None, at=None):
    return ufunc(call, nin, 1, name=call.__name__, identity=identity, call=call, reduce=reduce,
                 accumulate=accumulate, at=at)


def _extremum(fold):
    """max/min as ``reduce`` (``dtype`` converts first; ``initial`` joins the result)."""
    def reduce(a, axis=0, dtype=None, keepdims=False, initial=None, where=None):
        a = asarray(a) if dtype is None else asarray(a).astype(dtype)
        return fold(a, axis=axis, keepdims=keepdims, initial=initial, where=where)
    return reduce


def _logical(fold, combine):
    def reduce(a, axis=0, dtype=None, keepdims=False, initial=None, where=None):
        r = fold(a, axis=axis, keepdims=keepdims, where=where)
        r = r if initial is None else combine(r, asarray(initial).astype(bool))
        return r if dtype is None else r.astype(dtype)
    return reduce


def _updating(method, via_int_for_bool=False):
    """``at`` as an ``x.at[indices]`` update (booleans added as int32, as JAX's)."""
    def at(a, indices, b):
        a = asarray(a)
        if via_int_for_bool and dtypes.is_bool(a.dtype):
            b = asarray(b).astype(bool).astype(dtypes.int32)
            return getattr(a.astype(dtypes.int32).at[indices], method)(b).astype(bool)
        return getattr(a.at[indices], method)(b)
    return at


add = _u(ew.add, 0, reduce=red.sum, accumulate=red.cumsum, at=_updating("add", True))
multiply = _u(ew.multiply, 1, reduce=red.prod, accumulate=red.cumprod,
              at=_updating("multiply", True))
subtract = _u(ew.subtract, at=_updating("subtract"))
maximum = _u(ew.maximum, reduce=_extremum(red.max))
minimum = _u(ew.minimum, reduce=_extremum(red.min))
logical_and = _u(ew.logical_and, True, reduce=_logical(red.all, ew.logical_and))
logical_or = _u(ew.logical_or, False, reduce=_logical(red.any, ew.logical_or))
logical_xor = _u(ew.logical_xor, False)


def _integers_only(u):
    """``u.reduce`` refusing inexact operands, as JAX's bitwise reductions."""
    def reduce(a, **kwargs):
        d = dtypes.dtype_and_weak(asarray(a))[0]
        if not (dtypes.is_int(d) or dtypes.is_bool(d)):
            raise ValueError(f"integer argument required; got dtype={d}")
        return u._reduce_via_scan(a, **kwargs)
    u._reduce = reduce
    return u


bitwise_and = _integers_only(_u(ew.bitwise_and, -1))
bitwise_or = _integers_only(_u(ew.bitwise_or, 0))
bitwise_xor = _integers_only(_u(ew.bitwise_xor, 0))
logaddexp = _u(ew.logaddexp, -float("inf"))
logaddexp2 = _u(ew.logaddexp2, -float("inf"))
negative = _u(ew.negative, nin=1)

__all__ = ["add", "bitwise_and", "bitwise_or", "bitwise_xor", "logaddexp", "logaddexp2",
           "logical_and", "logical_or", "logical_xor", "maximum", "minimum", "multiply",
           "negative", "subtract"]
