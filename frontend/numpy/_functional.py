"""numpy's function-applying helpers over vmap (vectorize, apply_along_axis, apply_over_axes,
fromfunction) and the calculus helpers (gradient, trapezoid, unwrap), as JAX's numpy has them."""
from __future__ import annotations

import functools
import operator
import re

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.ir import aval_of
from ..lax._convert import convert
from ..transforms.vmap import vmap
from ._core import asarray, canonical_axis, check_arraylike, promote_dtypes_inexact
from ._elementwise import _where3, abs, less, logical_and, multiply, remainder
from ._reductions import cumsum
from ._reductions import sum as _sum
from ._shape import broadcast_shapes, broadcast_to, expand_dims, moveaxis, reshape

__all__ = ["vectorize", "apply_along_axis", "apply_over_axes", "fromfunction", "gradient",
           "trapezoid", "unwrap", "ufunc", "frompyfunc"]

_DIMS = r"\((\w*(?:,\w+)*)\)"
_SIGNATURE = re.compile(rf"^{_DIMS}(?:,{_DIMS})*->{_DIMS}(?:,{_DIMS})*$")


def _parse_signature(signature):
    """'(m,n),(n)->(m)' -> ([('m', 'n'), ('n',)], [('m',)])."""
    sig = signature.replace(" ", "")
    if not _SIGNATURE.match(sig):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    ins, outs = sig.split("->")

    def side(text):
        return [tuple(d for d in group.split(",") if d) for group in re.findall(_DIMS, text)]
    return side(ins), side(outs)


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    """``pyfunc`` (written for one element, or for core dimensions given by a gufunc
    ``signature``) mapped over the broadcast leading dimensions of its arguments with vmap.
    ``excluded``: positions or keywords passed through as they are."""
    if any(not isinstance(e, (int, str)) for e in excluded):
        raise TypeError("jax.numpy.vectorize can only exclude integer or string arguments, "
                        f"but excluded={excluded!r}")
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f"excluded={excluded!r} contains negative numbers")
    core_in, core_out = _parse_signature(signature) if signature is not None else (None, None)

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        static_kw = {k: v for k, v in kwargs.items() if k in excluded}
        dyn_kw = {k: v for k, v in kwargs.items() if k not in excluded}
        pos = [i for i in range(len(args)) if i not in excluded]
        names = list(dyn_kw)
        arrays = [asarray(args[i]) for i in pos] + [asarray(dyn_kw[k]) for k in names]
        cores = core_in if core_in is not None else [()] * len(arrays)
        if len(cores) != len(arrays):
            raise TypeError(f"wrong number of positional arguments: expected {len(cores)}, got "
                            f"{len(arrays)}")
        sizes = {}
        loop_shapes = []
        for a, dims in zip(arrays, cores, strict=True):
            shp = aval_of(a).shape
            if len(shp) < len(dims):
                raise ValueError(f"input with shape {shp} does not have enough dimensions for "
                                 f"its core dimensions {dims} in signature {signature}")
            for name, size in zip(dims, shp[len(shp) - len(dims):], strict=True):
                if sizes.setdefault(name, size) != size:
                    raise ValueError(f"inconsistent size for core dimension {name!r}: "
                                     f"{sizes[name]} vs {size}")
            loop_shapes.append(shp[:len(shp) - len(dims)])
        loop = broadcast_shapes(*loop_shapes)
        flat = []
        for a, ls in zip(arrays, loop_shapes, strict=True):
            core_shape = aval_of(a).shape[len(ls):]
            b = broadcast_to(a, loop + core_shape)
            flat.append(reshape(b, (int(np.prod(loop, dtype=np.int64)),) + core_shape))

        def one(*xs):
            call = list(args)
            for i, x in zip(pos, xs[:len(pos)], strict=True):
                call[i] = x
            kw = dict(static_kw, **dict(zip(names, xs[len(pos):], strict=True)))
            return pyfunc(*call, **kw)

        out = vmap(one)(*flat) if flat else pyfunc(*args, **kwargs)
        if not flat:
            return out

        def unflat(o):
            o = asarray(o)
            return reshape(o, loop + aval_of(o).shape[1:])
        if isinstance(out, tuple):
            return tuple(unflat(o) for o in out)
        return unflat(out)
    return wrapped


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` applied to the 1-D slices of ``arr`` along ``axis`` (its result's axes take
    that axis's place)."""
    check_arraylike("apply_along_axis", arr)
    arr = asarray(arr)
    nd = aval_of(arr).ndim
    axis = canonical_axis(operator.index(axis), nd)

    def f(x):
        return func1d(x, *args, **kwargs)
    for i in range(1, nd - axis):  # vmap the axes after ``axis`` (innermost first) ...
        f = vmap(f, in_axes=i, out_axes=-1)
    for _ in range(axis):  # ... then those before it
        f = vmap(f, in_axes=0, out_axes=0)
    return f(arr)


def apply_over_axes(func, a, axes):
    """``func(a, axis)`` for each axis in turn, each result keeping its dimensions."""
    check_arraylike("apply_over_axes", a)
    a = asarray(a)
    nd = aval_of(a).ndim
    for axis in axes:
        b = asarray(func(a, axis))
        if aval_of(b).ndim == nd - 1:
            b = expand_dims(b, axis)
        elif aval_of(b).ndim != nd:
            raise ValueError("function is not returning an array of the correct shape")
        a = b
    return a


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """``function(*indices)`` evaluated at every index of ``shape`` (vmapped over each axis;
    the indices have ``dtype``)."""
    shape = tuple(operator.index(s) for s in shape)
    d = dtypes.canonicalize(np.dtype(dtype))
    f = functools.partial(function, **kwargs)
    for i in range(len(shape) - 1, -1, -1):
        f = vmap(f, in_axes=tuple(None if j != i else 0 for j in range(len(shape))))
    return f(*(lax.broadcasted_iota(dtype=d, shape=(n,), dimension=0) for n in shape))


def _slice(a, start, stop, axis):
    return lax.slice_in_dim(a, start, stop, 1, axis)


def gradient(f, *varargs, axis=None, edge_order=None):
    """The gradient of sampled values: central differences inside, one-sided at the edges
    (unit spacing, a scalar spacing or coordinates per axis)."""
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
    check_arraylike("gradient", f)
    (a,) = promote_dtypes_inexact("gradient", f)
    a = asarray(a)
    nd = aval_of(a).ndim
    axes = tuple(range(nd)) if axis is None else (
        (canonical_axis(axis, nd),) if isinstance(axis, int) else tuple(canonical_axis(x, nd)
                                                                        for x in axis))
    if not varargs:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        spacing = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        spacing = list(varargs)
    else:
        raise TypeError("Invalid number of spacing arguments")
    out = []
    for ax, h in zip(axes, spacing, strict=True):
        n = aval_of(a).shape[ax]
        if n < 2:
            raise ValueError("Shape of array too small to calculate a numerical gradient, at "
                             "least (edge_order + 1) elements are required.")
        if np.ndim(h) == 0:
            h = convert(asarray(h), aval_of(a).dtype, False)
            inner = lax.div(lax.sub(_slice(a, 2, n, ax), _slice(a, 0, n - 2, ax)),
                            lax.mul(convert(2, aval_of(a).dtype), h))
            first = lax.div(lax.sub(_slice(a, 1, 2, ax), _slice(a, 0, 1, ax)), h)
            last = lax.div(lax.sub(_slice(a, n - 1, n, ax), _slice(a, n - 2, n - 1, ax)), h)
        else:
            x = asarray(h)
            if aval_of(x).ndim != 1 or aval_of(x).shape[0] != n:
                raise ValueError("Spacing arrays must be 1D arrays of the same length as the "
                                 "corresponding dimension of f")
            x = convert(x, aval_of(a).dtype, False)
            dx = lax.sub(_slice(x, 1, n, 0), _slice(x, 0, n - 1, 0))
            shape = [1] * nd
            shape[ax] = n - 1
            dx = reshape(dx, tuple(shape))
            dx1, dx2 = _slice(dx, 0, n - 2, ax), _slice(dx, 1, n - 1, ax)
            a0, a1, a2 = _slice(a, 0, n - 2, ax), _slice(a, 1, n - 1, ax), _slice(a, 2, n, ax)
            # second-order central differences on a nonuniform grid (numpy's weights)
            inner = lax.div(
                lax.add(lax.sub(lax.mul(lax.mul(dx1, dx1), a2), lax.mul(lax.mul(dx2, dx2), a0)),
                        lax.mul(lax.sub(lax.mul(dx2, dx2), lax.mul(dx1, dx1)), a1)),
                lax.mul(lax.mul(dx1, dx2), lax.add(dx1, dx2)))
            first = lax.div(lax.sub(_slice(a, 1, 2, ax), _slice(a, 0, 1, ax)), _slice(dx, 0, 1, ax))
            last = lax.div(lax.sub(_slice(a, n - 1, n, ax), _slice(a, n - 2, n - 1, ax)),
                           _slice(dx, n - 2, n - 1, ax))
        out.append(lax.concatenate((first, inner, last), dimension=ax))
    return out[0] if len(out) == 1 else out


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of y (along ``axis``) by the trapezoidal rule, at points x or spacing dx."""
    if x is None:
        check_arraylike("trapezoid", y)
        (y,) = promote_dtypes_inexact("trapezoid", y)
        y = asarray(y)
        d = convert(asarray(dx), aval_of(y).dtype, False)
    else:
        check_arraylike("trapezoid", y, x)
        y, x = (asarray(v) for v in promote_dtypes_inexact("trapezoid", y, x, broadcast=False))
        if aval_of(x).ndim == 1:
            d = lax.sub(_slice(x, 1, aval_of(x).shape[0], 0), _slice(x, 0, aval_of(x).shape[0] - 1, 0))
        else:
            ax = canonical_axis(axis, aval_of(x).ndim)
            n = aval_of(x).shape[ax]
            d = moveaxis(lax.sub(_slice(x, 1, n, ax), _slice(x, 0, n - 1, ax)), ax, -1)
    y = moveaxis(y, axis, -1)
    n = aval_of(y).shape[-1]
    last = aval_of(y).ndim - 1
    mid = lax.add(_slice(y, 1, n, last), _slice(y, 0, n - 1, last))
    return lax.mul(convert(0.5, aval_of(mid).dtype), _sum(multiply(d, mid), axis=-1))


def unwrap(p, discont=None, axis=-1, period=2 * np.pi):
    """p with jumps larger than ``discont`` (default period / 2) along ``axis`` replaced by
    their complement modulo ``period``."""
    check_arraylike("unwrap", p)
    (p,) = promote_dtypes_inexact("unwrap", p)
    p = asarray(p)
    d = aval_of(p).dtype
    if dtypes.is_complex(d):
        raise ValueError("jnp.unwrap does not support complex inputs.")
    if aval_of(p).shape[axis] == 0:
        return p
    ax = canonical_axis(axis, aval_of(p).ndim)
    n = aval_of(p).shape[ax]
    period = convert(asarray(period), d, False)
    discont = lax.div(period, convert(2, d)) if discont is None else \
        convert(asarray(discont), d, False)
    dd = lax.sub(_slice(p, 1, n, ax), _slice(p, 0, n - 1, ax))
    half = lax.div(period, convert(2, d))
    ddmod = lax.sub(remainder(lax.add(dd, half), period), half)
    ddmod = _where3(logical_and(lax.eq(ddmod, lax.neg(half)), lax.gt(dd, convert(0, d))),
                    half, ddmod)
    correct = _where3(less(abs(dd), discont), convert(0, d), lax.sub(ddmod, dd))
    zero = lax.mul(_slice(p, 0, 1, ax), convert(0, d))
    return lax.add(p, lax.concatenate((zero, cumsum(correct, axis=ax)), dimension=ax))




class ufunc:
    """A universal function from a scalar function of ``nin`` arguments (JAX's numpy's
    ``ufunc``): calls broadcast with ``vectorize``; a binary one with one output also has
    ``outer``, ``reduce``, ``accumulate``, ``reduceat`` (scans along an axis) and ``at``."""

    def __init__(self, func, /, nin, nout, *, name=None, nargs=None, identity=None, call=None,
                 reduce=None, accumulate=None, at=None, reduceat=None):
        self._func = func
        self.nin, self.nout = operator.index(nin), operator.index(nout)
        self.nargs = self.nin if nargs is None else operator.index(nargs)
        self.identity = identity
        self.__name__ = name or getattr(func, "__name__", "ufunc")
        self._call = call or vectorize(func)
        self._reduce, self._accumulate, self._at, self._reduceat = reduce, accumulate, at, reduceat

    def __repr__(self):
        return f"<jnp.ufunc '{self.__name__}'>"

    def __call__(self, *args, out=None, where=None):
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if where is not None:
            raise NotImplementedError(f"where argument of {self}")
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} positional argument(s) but "
                            f"{len(args)} were given")
        return self._call(*args)

    def _binary(self, method):
        if self.nin != 2 or self.nout != 1:
            raise ValueError(f"{method} only supported for binary ufuncs with a single "
                             f"output; got nin={self.nin}, nout={self.nout}")

    def outer(self, A, B, /):
        """``self(A[i...], B[j...])`` for every pair: shape A.shape + B.shape."""
        self._binary("outer")
        A, B = asarray(A), asarray(B)
        na, nb = aval_of(A).ndim, aval_of(B).ndim
        return self(reshape(A, aval_of(A).shape + (1,) * nb),
                    reshape(B, (1,) * na + aval_of(B).shape))

    def _scan_axis(self, a, axis):
        a = asarray(a)
        if axis is None:
            return reshape(a, (-1,))
        return moveaxis(a, canonical_axis(operator.index(axis), aval_of(a).ndim), 0)

    def _result_dtype(self, *args):
        """The dtype ``self`` gives for operands of the dtypes of ``args`` (JAX's eval_shape
        of the function on ones)."""
        ones = [lax.full((), 1, aval_of(asarray(a)).dtype) for a in args]
        return aval_of(self._call(*ones)).dtype

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=None,
               where=None):
        """``self`` folded over ``axis`` from the left (from ``initial``, else the identity,
        else the first element), in the dtype ``self`` gives (or ``dtype``); ``where``: the
        elements folded in."""
        self._binary("reduce")
        check_arraylike(f"{self.__name__}.reduce", a)
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduce()")
        if where is not None:
            check_arraylike(f"{self.__name__}.reduce", where)
            if self.identity is None and initial is None:
                raise ValueError(f"reduction operation {self.__name__!r} does not have an "
                                 "identity, so to use a where mask one has to specify 'initial'.")
            if not dtypes.is_bool(dtypes.dtype_and_weak(where)[0]):
                raise ValueError("where argument must have dtype=bool; got dtype="
                                 f"{dtypes.dtype_and_weak(where)[0]}")
        fold = self._reduce or self._reduce_via_scan
        return fold(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)

    def _reduce_via_scan(self, a, axis=0, dtype=None, keepdims=False, initial=None, where=None):
        a0 = asarray(a)
        if initial is None:
            initial = self.identity
        dtype = self._result_dtype(a0, a0) if dtype is None else dtypes.canonicalize(dtype)
        if where is not None:
            where = broadcast_to(asarray(where), aval_of(a0).shape)
        if isinstance(axis, tuple):
            raise NotImplementedError("tuple of axes")
        x = self._scan_axis(a0, axis)
        w = None if where is None else self._scan_axis(where, axis)
        nd = aval_of(a0).ndim
        if keepdims:
            kept = [1] * nd if axis is None else list(aval_of(a0).shape)
            if axis is not None:
                kept[canonical_axis(operator.index(axis), nd)] = 1
        n = aval_of(x).shape[0]
        if n == 0:
            if initial is None:
                raise ValueError(f"zero-size array to reduction operation {self.__name__} "
                                 "which has no identity")
            shape = tuple(kept) if keepdims else aval_of(x).shape[1:]
            return broadcast_to(convert(asarray(initial), dtype, False), shape)
        x = convert(x, dtype, False)
        if initial is None:
            init = lax.index_in_dim(x, 0, 0, keepdims=False)
            rest, w = lax.slice_in_dim(x, 1, n, 1, 0), None if w is None else \
                lax.slice_in_dim(w, 1, n, 1, 0)
        else:
            init = broadcast_to(convert(asarray(initial), dtype, False), aval_of(x).shape[1:])
            rest = x

        def step(c, vw):
            v, m = vw
            new = convert(self(c, v), dtype, False)
            return (new if m is None else lax.select(m, new, c)), None
        carry, _ = lax.scan(step, init, (rest, w))
        return reshape(carry, tuple(kept)) if keepdims else carry

    def accumulate(self, a, axis=0, dtype=None, out=None):
        """The running fold of ``self`` along ``axis`` (in the dtype ``self`` gives, or
        ``dtype``)."""
        self._binary("accumulate")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.accumulate()")
        return (self._accumulate or self._accumulate_via_scan)(a, axis=axis, dtype=dtype)

    def _accumulate_via_scan(self, a, axis=0, dtype=None):
        check_arraylike(f"{self.__name__}.accumulate", a)
        a = asarray(a)
        dtype = self._result_dtype(a, a) if dtype is None else dtypes.canonicalize(dtype)
        if axis is None or isinstance(axis, tuple):
            raise ValueError("accumulate does not allow multiple axes")
        k = canonical_axis(operator.index(axis), aval_of(a).ndim)
        x = convert(moveaxis(a, k, 0), dtype, False)
        n = aval_of(x).shape[0]
        if n == 0:
            return moveaxis(x, 0, k)
        first = lax.index_in_dim(x, 0, 0, keepdims=False)

        def step(c, v):
            c = convert(self(c, v), dtype, False)
            return c, c
        _, ys = lax.scan(step, first, lax.slice_in_dim(x, 1, n, 1, 0))
        return moveaxis(lax.concatenate((lax.index_in_dim(x, 0, 0), ys), dimension=0), 0, k)

    def at(self, a, indices, b=None, /, *, indices_are_sorted=False, unique_indices=False,
           inplace=True):
        """``a`` with ``a[indices] = self(a[indices], b)`` (``inplace=False``, as JAX asks)."""
        if inplace:
            raise NotImplementedError("jnp.ufunc.at operation requires inplace=False")
        if self._at is not None:
            return self._at(a, indices, b)
        a = asarray(a)
        cur = a[indices]
        new = self(cur) if b is None else self(cur, b)
        return a.at[indices].set(convert(new, aval_of(a).dtype, False),
                                 indices_are_sorted=indices_are_sorted,
                                 unique_indices=unique_indices)

    def reduceat(self, a, indices, axis=0, dtype=None, out=None):
        """``reduce`` over the slices [indices[i], indices[i + 1]) along ``axis`` (the
        element at indices[i] where the next index is not larger); concrete indices."""
        self._binary("reduceat")
        if out is not None:
            raise NotImplementedError(f"out argument of {self}.reduceat()")
        if self._reduceat is not None:
            return self._reduceat(a, indices, axis)
        a = asarray(a)
        k = canonical_axis(operator.index(axis), aval_of(a).ndim)
        idx = [operator.index(i) for i in np.asarray(indices).ravel()]
        n = aval_of(a).shape[k]
        parts = []
        for j, s in enumerate(idx):
            e = idx[j + 1] if j + 1 < len(idx) else n
            if e > s:
                parts.append(self.reduce(lax.slice_in_dim(a, s, e, 1, k), axis=k, dtype=dtype,
                                         keepdims=True))
            else:
                parts.append(lax.slice_in_dim(a, s, s + 1, 1, k))
        return lax.concatenate(parts, dimension=k)


def frompyfunc(func, /, nin, nout, *, identity=None):
    """A ``ufunc`` from a Python function of ``nin`` scalars."""
    return ufunc(func, nin, nout, identity=identity)
