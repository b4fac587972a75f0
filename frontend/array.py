"""frontend.Array: a device buffer with numpy-style methods; eager primitive execution."""
from __future__ import annotations

import numpy as np

from . import _backend, dtypes
from .core import Aval, Eqn, Graph, Literal, Var, aval_of, set_eager_apply


class Array:
    """An array on an XLA device. Operations on it outside ``jit`` run on the device, one
    cached single-primitive executable each.

    >>> import frontend.numpy as fnp
    >>> fnp.arange(3) * 2
    Array([0, 2, 4], dtype=int32)
    """

    __slots__ = ("_buf", "aval", "_host")
    __array_priority__ = 100

    def __init__(self, buf, aval: Aval):
        self._buf = buf
        self.aval = aval
        self._host = None

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)

    def _value(self) -> np.ndarray:
        if self._host is None:
            self._host = _backend.get().to_host(self._buf)
        return self._host

    def __array__(self, dtype=None, copy=None):
        v = self._value()
        if dtype is not None and np.dtype(dtype) != v.dtype:
            return v.astype(dtype)
        return v.copy() if copy else v

    @property
    def device(self):
        return self._buf.devices().pop() if hasattr(self._buf, "devices") else None

    def block_until_ready(self):
        self._buf.block_until_ready()
        return self

    def item(self):
        return self._value().item()

    def tolist(self):
        return self._value().tolist()

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def _scalar(self, kind):
        if self.size != 1:
            raise TypeError(f"only size-1 arrays can be converted to Python scalars, got shape {self.shape}")
        return kind(self._value().reshape(()))

    def __bool__(self):
        return self._scalar(bool)

    def __int__(self):
        return self._scalar(int)

    def __float__(self):
        return self._scalar(float)

    def __complex__(self):
        return self._scalar(complex)

    def __index__(self):
        if not dtypes.is_int(self.dtype) or self.ndim:
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self._value())

    def __hash__(self):
        raise TypeError("unhashable type: 'Array'")

    def __repr__(self):
        v = self._value()
        extra = ", weak_type=True" if self.weak_type else ""
        if v.size == 0:
            body = f"[], shape={v.shape}"
        else:
            body = np.array2string(v, separator=", ", prefix="Array(")
        return f"Array({body}, dtype={self.dtype.name}{extra})"

    __str__ = lambda self: str(self._value())  # noqa: E731

    def __format__(self, spec):
        if self.ndim == 0:
            return format(self._value().item(), spec)
        return format(str(self), spec)

    def __reduce__(self):
        return (_rebuild, (self._value(), self.weak_type))


def _rebuild(value, weak):
    return device_put(value, weak_type=weak)


def device_put(x, device=None, *, weak_type=None) -> Array:
    """Put ``x`` (numpy array, Python scalar, Array) on ``device`` (default: the first one)."""
    be = _backend.get()
    if isinstance(x, Array) and device is None:
        return x
    aval = aval_of(x) if not isinstance(x, (list, tuple)) else aval_of(np.asarray(x))
    if weak_type is not None:
        aval = aval.update(weak_type=weak_type)
    host = np.asarray(x._value() if isinstance(x, Array) else x, aval.dtype)
    return Array(be.to_device(host, device), aval)


def to_buffer(x, aval: Aval | None = None, device=None):
    """The device buffer for an argument: an Array's own, or a transfer of a host value."""
    if isinstance(x, Array):
        return x._buf
    if isinstance(x, Literal):
        x, aval = x.val, x.aval
    if aval is None:
        aval = aval_of(x)
    if isinstance(x, np.ndarray) and x.dtype == aval.dtype:
        return _backend.get().to_device(x, device)
    return _backend.get().to_device(np.asarray(x, aval.dtype), device)


# ----------------------------------------------------------------------------- eager apply

_eager_cache: dict = {}


def _freeze(v):
    if isinstance(v, list):
        return tuple(map(_freeze, v))
    if isinstance(v, dict):
        return tuple(sorted((k, _freeze(x)) for k, x in v.items()))
    return v


def eager_apply(prim, args, params):
    avals = tuple(aval_of(a) for a in args)
    key = (prim, _freeze(params), avals)
    hit = _eager_cache.get(key)
    if hit is None:
        invars = tuple(Var(a) for a in avals)
        out_avals = prim.abstract_eval(*avals, **params)
        out_avals = tuple(out_avals) if prim.multiple_results else (out_avals,)
        outs = tuple(Var(a) for a in out_avals)
        g = Graph(invars, (), (), (Eqn(prim, invars, params, outs),), outs)
        hit = _eager_cache[key] = (_backend.get().compile_graph(g), out_avals)
    compiled, out_avals = hit
    bufs = compiled([to_buffer(a, av) for a, av in zip(args, avals)])
    outs = [Array(b, av) for b, av in zip(bufs, out_avals)]
    return outs if prim.multiple_results else outs[0]


set_eager_apply(eager_apply)
