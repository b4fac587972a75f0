"""Functions over sequences and piecewise definitions: diff, ediff1d, bincount, select,
piecewise (JAX's numpy's semantics; every branch of select/piecewise is computed and the
result picked elementwise, as JAX does under vmap)."""
from __future__ import annotations

import operator

import numpy as np

from ..core import dtypes
from ..core.ir import Tracer, aval_of
from ..lax._convert import convert
from ..lax._ops import select_n
from ._core import asarray, canonical_axis, check_arraylike, promote_args
from ._creation import zeros, zeros_like
from ._elementwise import maximum, not_equal, subtract
from ._reductions import argmax, cumsum
from ._shape import broadcast_arrays, broadcast_to, concatenate, ravel, stack


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The n-th discrete difference along ``axis`` (``!=`` for booleans)."""
    check_arraylike("diff", a)
    arr = asarray(a)
    n, axis = operator.index(n), operator.index(axis)
    if n == 0:
        return arr
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    nd = aval_of(arr).ndim
    if nd == 0:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
    axis = canonical_axis(axis, nd)
    def edge(extra):  # prepend/append: a scalar is one slice along axis
        check_arraylike("diff", extra)
        e = asarray(extra)
        if aval_of(e).ndim == 0:
            shape = list(aval_of(arr).shape)
            shape[axis] = 1
            e = broadcast_to(e, tuple(shape))
        return e

    parts = ([edge(prepend)] if prepend is not None else []) + [arr] + \
        ([edge(append)] if append is not None else [])
    if len(parts) > 1:
        arr = concatenate(parts, axis)
    hi = tuple(slice(1, None) if i == axis else slice(None) for i in range(nd))
    lo = tuple(slice(None, -1) if i == axis else slice(None) for i in range(nd))
    op = not_equal if dtypes.is_bool(aval_of(arr).dtype) else subtract
    for _ in range(n):
        arr = op(arr[hi], arr[lo])
    return arr


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of consecutive elements of the flattened array, with optional values
    before and after."""
    check_arraylike("ediff1d", ary)
    arr = ravel(asarray(ary))
    d = aval_of(arr).dtype
    result = subtract(arr[1:], arr[:-1])
    if to_begin is not None:
        result = concatenate((ravel(convert(asarray(to_begin), d)), result))
    if to_end is not None:
        result = concatenate((result, ravel(convert(asarray(to_end), d))))
    return result


def bincount(x, weights=None, minlength=0, *, length=None):
    """Counts (or summed ``weights``) of each non-negative integer in the 1-D ``x``. Under
    jit/vmap ``length`` must be given (the output size cannot depend on the values)."""
    check_arraylike("bincount", x)
    x = asarray(x)
    xa = aval_of(x)
    if dtypes.is_bool(xa.dtype):
        x = convert(x, dtypes.int32)
    elif not dtypes.is_int(xa.dtype):
        raise TypeError(f"x argument to bincount must have an integer type; got {xa.dtype}")
    if xa.ndim != 1:
        raise ValueError("only 1-dimensional input supported.")
    minlength = operator.index(minlength)
    if length is None:
        if isinstance(x, Tracer):
            raise TypeError("bincount: the output length depends on the values of x, which "
                            "are traced here; pass a static `length` argument")
        xv = np.asarray(x)
        length = max(minlength, xv.size and int(max(0, xv.max())) + 1)
    else:
        length = operator.index(length)
    if weights is None:
        w = convert(1, dtypes.default_int())
        w_dtype = dtypes.default_int()
    else:
        check_arraylike("bincount", weights)
        w = asarray(weights)
        if aval_of(w).shape != xa.shape:
            raise ValueError(f"type of weights must match type of x. Got typeof(x)="
                             f"{xa.str_short()} and typeof(weights)={aval_of(w).str_short()}")
        w_dtype = aval_of(w).dtype
    return zeros(length, w_dtype).at[maximum(x, 0)].add(w, mode="drop")


def select(condlist, choicelist, default=0):
    """choicelist[i] where condlist[i] is the first true condition, else ``default``."""
    if len(condlist) != len(choicelist):
        raise ValueError("condlist must have length equal to choicelist "
                         f"({len(condlist)} vs {len(choicelist)})")
    if len(condlist) == 0:
        raise ValueError("condlist must be non-empty")
    check_arraylike("select", *condlist, *choicelist, default)
    conds = [asarray(c) for c in condlist]
    choices = promote_args("select", default, *[asarray(c) for c in choicelist],
                           broadcast=False)
    # the default first, with condition False: argmax of all-False is 0
    conditions = stack(broadcast_arrays(False, *conds))
    idx = argmax(convert(conditions, dtypes.bool_), axis=0)
    return select_n(*broadcast_arrays(idx, *choices))


def piecewise(x, condlist, funclist, *args, **kw):
    """``funclist[i](x)`` (or the constant ``funclist[i]``) where ``condlist[i]`` holds (the
    last holding one wins); the extra function of funclist, or 0, elsewhere."""
    check_arraylike("piecewise", x)
    x = asarray(x)
    nc, nf = len(condlist), len(funclist)
    if nf == nc + 1:
        funclist = list(funclist[-1:]) + list(funclist[:-1])
    elif nf == nc:
        funclist = [0] + list(funclist)
    else:
        raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions are "
                         f"expected; got {nf}")
    conds = convert(asarray(condlist) if not isinstance(condlist, (list, tuple)) else
                    stack([asarray(c) for c in condlist]), dtypes.bool_)
    d = aval_of(x).dtype
    first = zeros_like(conds[:1])
    indices = argmax(cumsum(concatenate([first, conds], 0), 0), 0)
    branches = [convert(f(x, *args, **kw), d) if callable(f)
                else broadcast_to(convert(asarray(f), d), aval_of(x).shape) for f in funclist]
    branches = [broadcast_to(b, aval_of(x).shape) for b in branches]
    return select_n(convert(indices, dtypes.int32), *branches)


__all__ = ["bincount", "diff", "ediff1d", "piecewise", "select"]
