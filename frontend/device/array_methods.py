"""Operators and numpy-style methods shared by frontend.Array and every Tracer; each one
forwards to the frontend.numpy function of the same meaning."""
from __future__ import annotations

from .. import numpy as fnp


def _np():
    return fnp


def _binop(name, reflected=False):
    f = getattr(fnp, name)  # (the numpy module is complete when the methods are installed)
    if reflected:
        def op(self, other):
            return f(other, self)
    else:
        def op(self, other):
            return f(self, other)
    return op


def _unop(name):
    f = getattr(fnp, name)

    def op(self):
        return f(self)
    return op


def _method(name):
    def m(self, *args, **kwargs):
        return getattr(_np(), name)(self, *args, **kwargs)
    m.__name__ = name
    return m


_BINARY = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "matmul": "matmul",
    "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
}
_COMPARE = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
            "gt": "greater", "ge": "greater_equal"}
_METHODS = ["sum", "mean", "max", "min", "prod", "argmax", "argmin", "dot", "squeeze",
            "transpose", "astype", "clip", "cumsum", "cumprod", "swapaxes", "all", "any", "var",
            "std", "round", "ravel", "copy", "repeat", "take", "trace", "diagonal", "nonzero",
            "sort", "argsort", "searchsorted", "ptp", "conj", "conjugate"]


def install(cls) -> None:
    for k, v in _BINARY.items():
        setattr(cls, f"__{k}__", _binop(v))
        setattr(cls, f"__r{k}__", _binop(v, reflected=True))
    for k, v in _COMPARE.items():
        setattr(cls, f"__{k}__", _binop(v))
    cls.__neg__ = _unop("negative")
    cls.__pos__ = _unop("positive")
    cls.__abs__ = _unop("absolute")
    cls.__invert__ = _unop("invert")
    cls.__getitem__ = lambda self, idx: _np()._getitem(self, idx)
    for m in _METHODS:
        if hasattr(_np(), m):  # (sort & co. arrive with their functions)
            setattr(cls, m, _method(m))
    cls.reshape = lambda self, *shape, order="C": _np().reshape(
        self, shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape, order=order)
    cls.transpose = lambda self, *axes: _np().transpose(
        self, None if not axes else axes[0] if len(axes) == 1 and not isinstance(axes[0], int) else axes)
    cls.T = property(lambda self: _np().transpose(self))
    cls.mT = property(lambda self: _np().matrix_transpose(self))
    cls.flatten = lambda self, order="C": _np().ravel(self, order=order)
    cls.at = property(lambda self: _np()._IndexUpdateHelper(self))
    for part in ("real", "imag"):  # (with the complex-part functions of frontend.numpy)
        if hasattr(_np(), part):
            setattr(cls, part, property(lambda self, f=part: getattr(_np(), f)(self)))
    cls.itemsize = property(lambda self: self.dtype.itemsize)
    cls.nbytes = property(lambda self: self.size * self.dtype.itemsize)
