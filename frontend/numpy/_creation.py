"""Array creation: array, asarray, zeros, ones, full, *_like, arange, linspace, logspace,
geomspace, eye."""
from __future__ import annotations

import operator
import warnings

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.ir import Tracer, aval_of
from ..core.shape_poly import is_symbolic_shape, max_dim
from ..device.array import Array
from ..lax._convert import convert
from ._core import _SCALARS, asarray, astype, canonical_axis, check_arraylike
from ._core import placed as _placed
from ._elementwise import copy as _copy
from ._elementwise import multiply, power
from ._shape import _shape_arg, broadcast_shapes, broadcast_to, moveaxis, reshape


def array(object, dtype=None, *args, copy=True, order="K", ndmin=0, device=None,  # noqa: A002
          out_sharding=None):
    """frontend.numpy.array: like asarray; a Python scalar gives a weakly typed 0-d array.
    With ``copy=True`` (the default) an Array argument gives a new buffer, as JAX's;
    ``ndmin``: leading axes added up to that many dimensions. (``copy``, ``order`` and
    ``ndmin`` by position: deprecated, as in JAX.)"""
    if args:
        if len(args) > 3:
            raise TypeError(f"array() takes at most 5 positional arguments but {len(args) + 2} "
                            "were given")
        for i, (name, given, default) in enumerate(zip(("copy", "order", "ndmin"),
                                                       (copy, order, ndmin), (True, "K", 0),
                                                       strict=True)):
            if i < len(args) and given != default:
                raise TypeError(f"array() got multiple values for argument '{name}'")
        copy, order, ndmin = (*args, *(copy, order, ndmin)[len(args):])
        warnings.warn("Passing the copy, order, and ndmin arguments to jnp.array positionally "
                      "is deprecated. Use keyword arguments instead.", DeprecationWarning,
                      stacklevel=2)
    if order is not None and order != "K":
        raise NotImplementedError("Only implemented for order='K'")
    out = asarray(object, dtype)
    if copy and out is object and isinstance(out, Array):
        out = _copy(out)
    nd = aval_of(out).ndim
    if ndmin > nd:
        out = reshape(out, (1,) * (ndmin - nd) + aval_of(out).shape)
    return _placed(out, device, out_sharding)


def _shape(shape) -> tuple:
    out = _shape_arg(shape)
    if any(s < 0 for s in out):
        raise TypeError(f"broadcast_in_dim shape must have every element be nonnegative, got "
                        f"{out}.")
    return out


def full(shape, fill_value, dtype=None, *, device=None, out_sharding=None):
    """An array of ``shape`` filled with ``fill_value`` (one broadcast_in_dim)."""
    shape = _shape(shape)
    if dtype is None:
        d, weak = dtypes.dtype_and_weak(fill_value)
    else:
        d, weak = dtypes.canonicalize(np.dtype(dtype)), False
    v = convert(fill_value if isinstance(fill_value, _SCALARS) else asarray(fill_value), d, weak)
    nd = aval_of(v).ndim
    return _placed(lax.broadcast_in_dim(
        v, shape=shape, broadcast_dimensions=tuple(range(len(shape) - nd, len(shape)))), device,
        out_sharding)


def zeros(shape, dtype=None, *, device=None, out_sharding=None):
    return full(shape, 0, dtype or dtypes.default_float(), device=device,
                out_sharding=out_sharding)


def ones(shape, dtype=None, *, device=None, out_sharding=None):
    return full(shape, 1, dtype or dtypes.default_float(), device=device,
                out_sharding=out_sharding)


def empty(shape, dtype=None, *, device=None, out_sharding=None):
    """As JAX's: XLA has no uninitialized arrays, so this is ``zeros``."""
    return zeros(shape, dtype, device=device, out_sharding=out_sharding)


def _like(a, dtype, shape):
    av = aval_of(a, host=False) or aval_of(asarray(a))
    return (av.shape if shape is None else _shape(shape)), (av.dtype if dtype is None else dtype), \
        (av.weak_type and dtype is None)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None, out_sharding=None):
    shp, d, weak = _like(a, dtype, shape)
    out = full(shp, fill_value, d)
    return _placed(convert(out, d, True) if weak else out, device, out_sharding)


def zeros_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    return full_like(a, 0, dtype, shape, device=device, out_sharding=out_sharding)


def ones_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    return full_like(a, 1, dtype, shape, device=device, out_sharding=out_sharding)


def empty_like(prototype, dtype=None, shape=None, *, device=None):
    """As JAX's: ``zeros_like``."""
    return zeros_like(prototype, dtype, shape, device=device)


def _concrete(x, name):
    if isinstance(x, Tracer):
        raise x._concrete_error(f"jnp.{name}")
    return x


def arange(start, stop=None, step=None, dtype=None, *, device=None, out_sharding=None):
    """Evenly spaced values (computed on the host: the bounds must be concrete)."""
    for v in (start, stop, step):
        _concrete(v, "arange")
    if is_symbolic_shape((start, stop, step)):
        return _symbolic_arange(start, stop, step, dtype)
    if dtype is None:
        vals = [v for v in (start, stop, step) if v is not None]
        dtype = dtypes.result_type(*vals)
        if all(isinstance(v, (int, np.integer)) for v in vals):
            dtype = dtypes.default_int()
    dtype = dtypes.canonicalize(np.dtype(dtype))
    if stop is None:
        out = np.arange(start, dtype=dtype) if step is None else np.arange(0, start, step, dtype=dtype)
    else:
        out = np.arange(start, stop, step if step is not None else 1, dtype=dtype)
    return _placed(asarray(out, dtype), device, out_sharding)


def _symbolic_arange(start, stop, step, dtype):
    """arange(n) / arange(start, n) of a symbolic size n (shape-polymorphic export): an
    iota of n - start elements, offset by ``start``."""
    if stop is None:
        start, stop = 0, start
    if step not in (None, 1) or is_symbolic_shape((start,)):
        raise ValueError(f"arange with a symbolic dimension supports arange(n) and "
                         f"arange(start, n) with a constant start and step 1, got "
                         f"arange({start}, {stop}, {step})")
    dtype = dtypes.default_int() if dtype is None else dtypes.canonicalize(np.dtype(dtype))
    out = lax.iota(dtype, max_dim(stop - start, 0))
    return out if start == 0 else lax.add(out, convert(start, dtype))


def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype=None, axis: int = 0, *, device=None):
    """``num`` evenly spaced samples over [start, stop] along a new ``axis``; array end points
    broadcast together, and may be traced. Computed as JAX's numpy does, in the inexact
    dtype: start * (1 - t) + stop * t for t = i / div, then ``stop`` itself (``endpoint``).
    ``retstep``: also the step (nan for num == 1 with ``endpoint``)."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    check_arraylike("linspace", start, stop)
    dt = dtypes.canonicalize(np.dtype(dtype)) if dtype is not None else \
        dtypes.to_inexact(dtypes.result_type(start, stop))
    comp = dtypes.to_inexact(dt)
    s, e = convert(asarray(start), comp, False), convert(asarray(stop), comp, False)
    bshape = broadcast_shapes(aval_of(s).shape, aval_of(e).shape)
    s, e = broadcast_to(s, bshape), broadcast_to(e, bshape)
    axis = canonical_axis(operator.index(axis), len(bshape) + 1)
    one_shape = bshape[:axis] + (1,) + bshape[axis:]
    div = (num - 1) if endpoint else num
    if num > 1:
        delta = lax.div(lax.sub(e, s), convert(div, comp))
        real = np.finfo(comp).dtype
        t_shape = tuple(div if i == axis else 1 for i in range(len(one_shape)))
        t = lax.div(lax.broadcasted_iota(dtype=real, shape=t_shape, dimension=axis),
                    convert(div, real))
        t = convert(t, comp, False)
        full_shape = bshape[:axis] + (div,) + bshape[axis:]
        s1, e1 = reshape(s, one_shape), reshape(e, one_shape)
        out = lax.add(broadcast_to(lax.mul(s1, lax.sub(convert(1, comp), t)), full_shape),
                      broadcast_to(lax.mul(e1, t), full_shape))
        if endpoint:
            out = lax.concatenate((out, e1), dimension=axis)
    elif num == 1:
        delta = asarray(np.nan, comp) if endpoint else lax.sub(e, s)
        out = reshape(s, one_shape)
    else:
        delta = asarray(np.nan, comp)
        out = asarray(np.zeros(bshape[:axis] + (0,) + bshape[axis:], comp))
    if dtypes.is_int(dt) and not dtypes.is_int(comp):
        out = lax.floor(out)
    res = _placed(convert(out, dt, False), device)
    return (res, delta) if retstep else res


def logspace(start, stop, num: int = 50, endpoint: bool = True, base=10.0, dtype=None,
             axis: int = 0):
    """``base ** linspace(start, stop, ...)`` in the float of ``dtype`` (array end points
    broadcast; the exponents must be concrete)."""
    dt = dtypes.to_inexact(dtypes.result_type(start, stop)) if dtype is None else \
        dtypes.canonicalize(np.dtype(dtype))
    comp = dtypes.to_inexact(dt)
    lin = linspace(np.asarray(start, comp), np.asarray(stop, comp), num, endpoint, axis=axis)
    return astype(power(base, lin), dt)


def geomspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None, axis: int = 0):
    """Samples evenly spaced on a log scale from ``start`` to ``stop`` (each of one sign;
    array end points broadcast; concrete), in the float of ``dtype``."""
    _concrete(start, "geomspace"), _concrete(stop, "geomspace")
    dt = dtypes.to_inexact(dtypes.result_type(start, stop)) if dtype is None else \
        dtypes.canonicalize(np.dtype(dtype))
    comp = dtypes.to_inexact(dt)
    s, e = np.asarray(start, comp), np.asarray(stop, comp)
    sign = np.sign(s)
    with np.errstate(divide="ignore", invalid="ignore"):
        exps = (np.log10(s / sign), np.log10(e / sign))
    res = multiply(asarray(sign), logspace(*exps, num, endpoint, base=10.0, dtype=comp))
    return astype(moveaxis(res, 0, axis), dt)


def eye(N: int, M: int | None = None, k=0, dtype=None, *, device=None):
    """Ones on the k-th diagonal of an (N, M) matrix (``k`` may be traced)."""
    N = operator.index(N)
    M = N if M is None else operator.index(M)
    if not isinstance(k, Tracer):
        k = operator.index(k)
    d = dtypes.canonicalize(np.dtype(dtype or dtypes.default_float()))
    i32 = dtypes.int32
    row = lax.broadcasted_iota(dtype=i32, shape=(N, M), dimension=0)
    col = lax.broadcasted_iota(dtype=i32, shape=(N, M), dimension=1)
    return _placed(convert(lax.eq(lax.add(row, convert(k, i32)), col), d, False), device)


def identity(n: int, dtype=None):
    return eye(n, dtype=dtype)
