"""Operators and numpy-style methods shared by frontend.Array and every Tracer; each one
forwards to the frontend.numpy function of the same meaning.

frontend.numpy loads on first use: until then the operators are stand-ins that import it,
install the direct ones on every class (``install``) and forward."""
from __future__ import annotations

import importlib

_fnp = []  # frontend.numpy, once imported
_classes: list = []  # the classes the methods are installed on


def _np():
    if not _fnp:
        _fnp.append(importlib.import_module("frontend.numpy"))
        for cls in _classes:
            _install_direct(cls)
    return _fnp[0]


def _stub(name):
    def op(self, *args, **kwargs):
        _np()
        return getattr(type(self), name)(self, *args, **kwargs)
    op.__name__ = name
    return op


def _binop(name, reflected=False):
    fnp = _np()  # (the numpy module is complete when the methods are installed)
    f = getattr(fnp, name)
    f = getattr(f, "_call", f)  # (a ufunc's own function: no ufunc call checks per operator)
    array_like = fnp._core.ArrayLike

    def known(other) -> bool:
        """Operand types the operators take (others: NotImplemented, so Python tries the
        other operand's reflected operator and then raises its own TypeError, as with JAX's
        arrays)."""
        return isinstance(other, array_like) or hasattr(other, "__jax_array__")
    if reflected:
        def op(self, other):
            return f(other, self) if known(other) else NotImplemented
    else:
        def op(self, other):
            return f(self, other) if known(other) else NotImplemented
    return op


def _unop(name):
    f = getattr(_np(), name)
    f = getattr(f, "_call", f)

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
    "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "left_shift",
    "rshift": "right_shift", "divmod": "divmod",
}
_COMPARE = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
            "gt": "greater", "ge": "greater_equal"}
_METHODS = ["sum", "mean", "max", "min", "prod", "argmax", "argmin", "dot", "squeeze",
            "transpose", "astype", "clip", "cumsum", "cumprod", "swapaxes", "all", "any", "var",
            "std", "round", "ravel", "copy", "repeat", "take", "trace", "diagonal", "nonzero",
            "sort", "argsort", "searchsorted", "ptp", "conj", "conjugate", "argpartition",
            "choose"]


def _compress(self, condition, axis=None, *, size=None, fill_value=0, out=None):
    fnp = _np()
    return fnp.compress(condition, self, axis, size=size, fill_value=fill_value, out=out)


def _contains(self, item):
    fnp = _np()
    if self.ndim != 1:
        raise ValueError(f"Array.__contains__: search array must be one-dimensional, got "
                         f"arr.shape={self.shape}.")
    return bool(fnp.any(self == item))


def _round(self, ndigits=None):
    """Python's round: to an int array without ``ndigits``."""
    fnp = _np()
    if ndigits is None:
        return fnp.astype(fnp.round(self), fnp.int_)
    return fnp.round(self, ndigits)


def _setitem(self, index, value):  # noqa: ARG001
    raise TypeError("JAX arrays are immutable and do not support in-place item assignment. "
                    "Instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
                    "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")


def install(cls) -> None:
    """Operators and methods on ``cls``: stand-ins until frontend.numpy is imported."""
    if cls not in _classes:
        _classes.append(cls)
    if _fnp:
        _install_direct(cls)
        return
    names = [f"__{k}__" for k in _BINARY] + [f"__r{k}__" for k in _BINARY]
    names += [f"__{k}__" for k in _COMPARE] + ["__neg__", "__pos__", "__abs__", "__invert__",
                                               "__getitem__", "__round__", "__contains__",
                                               "__copy__", "__deepcopy__", "__setitem__",
                                               "compress", "view", "byteswap"]
    for n in names:
        setattr(cls, n, _stub(n))
    for m in _METHODS:
        setattr(cls, m, _method(m))
    cls.reshape = _stub("reshape")
    cls.transpose = _stub("transpose")
    cls.flatten = _stub("flatten")
    for p in ("T", "mT", "at", "real", "imag"):
        setattr(cls, p, property(lambda self, p=p: (_np(), getattr(self, p))[1]))
    cls.itemsize = property(lambda self: self.dtype.itemsize)
    cls.nbytes = property(lambda self: self.size * self.dtype.itemsize)


def _install_direct(cls) -> None:
    for k, v in _BINARY.items():
        setattr(cls, f"__{k}__", _binop(v))
        setattr(cls, f"__r{k}__", _binop(v, reflected=True))
    for k, v in _COMPARE.items():
        setattr(cls, f"__{k}__", _binop(v))
    cls.__neg__ = _unop("negative")
    cls.__pos__ = _unop("positive")
    cls.__abs__ = _unop("absolute")
    cls.__invert__ = _unop("invert")
    cls.__round__ = _round
    cls.__contains__ = _contains
    cls.__copy__ = lambda self: _np().copy(self)
    cls.__deepcopy__ = lambda self, memo: _np().copy(self)  # noqa: ARG005
    cls.__setitem__ = _setitem
    cls.compress = _compress
    cls.view = lambda self, dtype=None, type=None: _np()._manip.array_view(self, dtype, type)  # noqa: A006
    cls.byteswap = lambda self, inplace=False: _np()._manip.array_byteswap(self, inplace)
    cls.__getitem__ = lambda self, idx: _np()._getitem(self, idx)
    for m in _METHODS:
        if hasattr(_np(), m):  # (sort & co. arrive with their functions)
            setattr(cls, m, _method(m))
        elif m in cls.__dict__:
            delattr(cls, m)
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
        elif part in cls.__dict__:
            delattr(cls, part)
