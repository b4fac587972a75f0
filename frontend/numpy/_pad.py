"""frontend.numpy.pad: JAX's padding modes, axis by axis: constant, empty, edge, wrap,
reflect and symmetric (``reflect_type`` even/odd), linear_ramp (``end_values``), maximum,
minimum, mean and median (``stat_length``), and a callable ``mode`` (numpy's padding
functions, applied along each axis)."""
from __future__ import annotations

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.ir import Tracer, aval_of
from ..device.array import Array
from ..lax import _shape as _ps
from ..lax._convert import convert
from ._core import asarray, broadcast_to_shape
from ._elementwise import add, multiply, subtract
from ._elementwise import round as _round
from ._functional import apply_along_axis
from ._quantiles import median as _median
from ._reductions import max as _max
from ._reductions import mean as _mean
from ._reductions import min as _min
from ._shape import _arr, broadcast_to, flip

_STATS = {"maximum": _max, "minimum": _min, "mean": _mean, "median": _median}


def _pairs(values, nd, name, integral=True):
    """A pad_width-like argument as one (before, after) pair per axis (numpy's shapes)."""
    if isinstance(values, Tracer):
        raise TypeError(f"`{name}` must be concrete (static) for jnp.pad")
    v = np.asarray(values.__array__() if isinstance(values, Array) else values)
    if integral and v.dtype.kind not in "iub":
        raise TypeError(f"`{name}` must be of integral type.")
    if v.shape not in ((nd, 2), (1, 2), (2,), (1,), ()):
        raise ValueError(f"jnp.pad: {name} with nd={nd} has unsupported shape {v.shape}. "
                         f"Valid shapes are ({nd}, 2), (1, 2), (2,), (1,), or ().")
    v = np.broadcast_to(v.astype(np.int64) if integral else v, (nd, 2))
    return [(v[i, 0].item(), v[i, 1].item()) for i in range(nd)]


def pad(array, pad_width, mode="constant", **kwargs):
    """Pads an array, as numpy's and JAX's ``pad`` (modes constant, empty, edge, wrap,
    reflect, symmetric, linear_ramp, maximum, minimum, mean, median, or a function
    ``mode(vector, (before, after), axis, kwargs)`` returning the padded vector).

    >>> import frontend.numpy as fnp
    >>> fnp.pad(fnp.arange(3), 2, mode="reflect")
    Array([2, 1, 0, 1, 2, 1, 0], dtype=int32)
    """
    a = _arr(array)
    nd = a.ndim
    pw = _pairs(pad_width, nd, "pad_width")
    if any(lo < 0 or hi < 0 for lo, hi in pw):
        raise ValueError("index can't contain negative values")
    if callable(mode):  # numpy's padding function: the zero-padded array, one axis at a time
        out = _pad_constant(a, pw, 0)
        for ax in range(nd):
            out = apply_along_axis(mode, ax, out, pw[ax], ax, kwargs)
        return out
    allowed = {"constant": ("constant_values",), "empty": (), "edge": (), "wrap": (),
               "reflect": ("reflect_type",), "symmetric": ("reflect_type",),
               "linear_ramp": ("end_values",), "maximum": ("stat_length",),
               "minimum": ("stat_length",), "mean": ("stat_length",),
               "median": ("stat_length",)}
    if mode not in allowed:
        raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.")
    extra = set(kwargs) - set(allowed[mode])
    if extra:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {extra}")
    if mode in ("constant", "empty"):
        return _pad_constant(a, pw, kwargs.get("constant_values", 0))
    for ax, (lo, hi) in enumerate(pw):
        if a.shape[ax] == 0 and (lo or hi):
            raise ValueError(f"can't extend empty axis {ax} using modes other than 'constant' "
                             "or 'empty'")
    if mode == "edge":
        return _each_axis(a, pw, lambda x, ax, w, before: _repeat(
            _edge(x, ax, before), ax, w))
    if mode == "wrap":
        return _each_axis(a, pw, lambda x, ax, w, before: _wrap(x, ax, w, before))
    if mode in ("reflect", "symmetric"):
        rt = kwargs.get("reflect_type", "even")
        if rt not in ("even", "odd"):
            raise ValueError(f"unsupported reflect_type: {rt!r}")
        return _pad_reflect(a, pw, mode, rt)
    if mode == "linear_ramp":
        ends = _pairs(kwargs.get("end_values", 0), nd, "end_values", integral=False)
        return _each_axis(a, pw, lambda x, ax, w, before: _ramp(
            x, ax, w, before, ends[ax][0 if before else 1]))
    stat = _STATS[mode]
    sl = kwargs.get("stat_length")
    lengths = None if sl is None else _pairs(sl, nd, "stat_length")
    out = a
    for ax, (lo, hi) in enumerate(pw):
        n = aval_of(out).shape[ax]
        if lengths is None:
            s_lo = s_hi = stat(out, axis=ax, keepdims=True)
        else:
            l_lo, l_hi = lengths[ax]
            if l_lo == 0 or l_hi == 0:
                raise ValueError("stat_length of 0 yields no value for padding")
            s_lo = stat(_ps.slice_in_dim(out, 0, min(l_lo, n), 1, ax), axis=ax, keepdims=True)
            s_hi = stat(_ps.slice_in_dim(out, n - min(l_hi, n), n, 1, ax), axis=ax,
                        keepdims=True)
        out = _ps.concatenate([_repeat(_as_of(s_lo, out), ax, lo), out,
                               _repeat(_as_of(s_hi, out), ax, hi)], ax)
    return out


def _as_of(stat, a):
    """A statistic in a's dtype and weak type (integers rounded)."""
    av = aval_of(a)
    if dtypes.is_int(av.dtype) and not dtypes.is_int(aval_of(stat).dtype):
        stat = _round(stat)
    return convert(stat, av.dtype, av.weak_type)


def _each_axis(a, pw, piece):
    """Concatenate piece(a, axis, width, before) on both sides of every padded axis."""
    for ax, (lo, hi) in enumerate(pw):
        parts = ([piece(a, ax, lo, True)] if lo else []) + [a] + \
            ([piece(a, ax, hi, False)] if hi else [])
        if len(parts) > 1:
            a = _ps.concatenate(parts, ax)
    return a


def _edge(a, ax, before):
    n = aval_of(a).shape[ax]
    return _ps.slice_in_dim(a, 0, 1, 1, ax) if before else _ps.slice_in_dim(a, n - 1, n, 1, ax)


def _repeat(piece, ax, count):
    s = list(aval_of(piece).shape)
    s[ax] = count
    return broadcast_to_shape(piece, tuple(s))


def _wrap(a, ax, count, from_end):
    n = aval_of(a).shape[ax]
    reps = -(-count // n)
    t = _ps.concatenate([a] * reps, ax) if reps > 1 else a
    m = aval_of(t).shape[ax]
    return _ps.slice_in_dim(t, m - count, m, 1, ax) if from_end else \
        _ps.slice_in_dim(t, 0, count, 1, ax)


def _pad_reflect(a, pw, mode, reflect_type):
    """Mirror images of the array about its edges (``reflect`` excludes the edge itself),
    repeated while the padding is wider than the axis; ``odd`` reflects the values about
    the edge value too."""
    for ax, (lo, hi) in enumerate(pw):
        n = aval_of(a).shape[ax]
        offset = 1 if (mode == "reflect" and n > 1) else 0
        for before, width in ((True, lo), (False, hi)):
            edge = _edge(a, ax, before)
            while width > 0:
                cur = min(width, n - offset)
                width -= cur
                m = aval_of(a).shape[ax]
                if before:
                    x = _ps.slice_in_dim(a, offset, offset + cur, 1, ax)
                else:
                    stop = m if (mode == "symmetric" or n == 1) else m - 1
                    x = _ps.slice_in_dim(a, stop - cur, stop, 1, ax)
                x = flip(x, ax)
                if reflect_type == "odd":
                    x = lax.sub(lax.mul(_repeat(edge, ax, cur),
                                        convert(2, aval_of(x).dtype)), x)
                    if n > 1:
                        edge = _edge(x, ax, before)
                a = _ps.concatenate([x, a] if before else [a, x], ax)
    return a


def _ramp(a, ax, width, before, end):
    """``width`` values from ``end`` toward the edge (exclusive), computed with the same
    operations as JAX's linspace (endpoint=False) so that XLA rounds them alike; reversed
    after the array."""
    av = aval_of(a)
    comp = av.dtype if dtypes.is_inexact(av.dtype) else dtypes.default_float()
    stop = convert(_edge(a, ax, before), comp)  # size 1 along ax
    start = broadcast_to_shape(convert(asarray(end), comp), aval_of(stop).shape)
    shape = list(av.shape)
    shape[ax] = width
    if width > 1:
        real = np.finfo(comp).dtype if dtypes.is_complex(comp) else comp
        iota_shape = tuple(width if i == ax else 1 for i in range(av.ndim))
        step = lax.reshape(lax.broadcasted_iota(dtype=real, shape=(width,), dimension=0),
                           new_sizes=iota_shape, dimensions=None)
        step = convert(lax.div(step, convert(width, real)), comp)
        out = add(multiply(start, subtract(1, step)), multiply(stop, step))
    else:
        out = broadcast_to_shape(start, tuple(shape))
    if dtypes.is_int(av.dtype):
        out = lax.floor(out)
    out = convert(out, av.dtype, av.weak_type)
    return out if before else flip(out, ax)


def _pad_constant(a, pw, cv):
    av = aval_of(a)
    nd = av.ndim
    if isinstance(cv, (list, tuple)):
        cv = np.asarray(cv)
    if np.ndim(cv) == 0:  # one padding value: one pad
        weak = dtypes.dtype_and_weak(cv)[1]
        pv = convert(cv if isinstance(cv, (bool, int, float, complex, Array, Tracer)) else asarray(cv),
                     av.dtype, av.weak_type and weak)
        return _ps.pad(a, pv, [(lo, hi, 0) for lo, hi in pw])
    if np.shape(cv) not in ((nd, 2), (1, 2), (2,), (1,)):
        raise ValueError(f"jnp.pad: constant_values with nd={nd} has unsupported shape "
                         f"{np.shape(cv)}. Valid shapes are ({nd}, 2), (1, 2), (2,), (1,), or ().")
    if not isinstance(cv, (Array, Tracer)):
        c = np.broadcast_to(np.asarray(cv), (nd, 2))
        if (c == c.flat[0]).all():
            return _pad_constant(a, pw, c.flat[0])
        vals = [[convert(asarray(c[i, j]), av.dtype, False) for j in range(2)] for i in range(nd)]
    else:  # traced values: one scalar slice each
        c = convert(broadcast_to(cv, (nd, 2)), av.dtype, False)
        vals = [[_ps.reshape(_ps.slice(c, (i, j), (i + 1, j + 1)), ()) for j in range(2)]
                for i in range(nd)]
    for i, (lo, hi) in enumerate(pw):
        for j, w in enumerate((lo, hi)):
            if w:
                cfg = [(0, 0, 0)] * nd
                cfg[i] = (w, 0, 0) if j == 0 else (0, w, 0)
                a = _ps.pad(a, vals[i][j], cfg)
    return a


__all__ = ["pad"]
