"""Elementwise primitives from factories: unary math, binary arithmetic, comparisons,
select and convert_element_type. Operands share one shape; a rank-0 operand broadcasts (as a
literal does in a jaxpr). Batching: ``vectorized_batch`` (batch axis of the first batched
full-rank operand)."""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..batching import vectorized_batch
from ..core import Aval, Primitive

# dtype classes a primitive accepts
_ANY = "any"
_NUM = "number"      # ints and inexact
_INEXACT = "inexact"  # floats and complex
_FLOAT = "float"
_INT_BOOL = "int_or_bool"
_NUM_BOOL = "number_or_bool"

_OK = {
    _ANY: lambda d: True,
    _NUM: lambda d: dtypes.is_int(d) or dtypes.is_inexact(d),
    _INEXACT: dtypes.is_inexact,
    _FLOAT: dtypes.is_float,
    _INT_BOOL: lambda d: dtypes.is_int(d) or dtypes.is_bool(d),
    _NUM_BOOL: lambda d: True,
}
_KIND_NAME = {_NUM: "numeric", _INEXACT: "floating or complex", _FLOAT: "floating",
              _INT_BOOL: "integer or boolean", _NUM_BOOL: "numeric or boolean", _ANY: "any"}


def _check_dtype(name, kind, d):
    if not _OK[kind](d):
        raise TypeError(f"{name} does not accept dtype {np.dtype(d).name}. Accepted dtypes are "
                        f"subtypes of {_KIND_NAME[kind]}.")


def broadcast_shapes_nary(name, avals) -> tuple:
    """The common shape of elementwise operands: equal shapes, rank-0 operands broadcast."""
    shapes = [a.shape for a in avals if a.shape != ()]
    if not shapes:
        return ()
    s0 = shapes[0]
    for s in shapes[1:]:
        if s != s0:
            raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                            + ", ".join(str(a.shape) for a in avals) + ".")
    return s0


class Unary(Primitive):
    """x -> f(x), same shape and dtype (``abs`` of complex gives the real dtype)."""

    def __init__(self, name, kind, hlo):
        super().__init__(name)
        self.kind = kind
        self.hlo = hlo  # StableHLO op name, read by lowering/emit

    def abstract_eval(self, x):
        _check_dtype(self.name, self.kind, x.dtype)
        if self.name == "abs" and dtypes.is_complex(x.dtype):
            return x.update(dtype=np.finfo(x.dtype).dtype)
        return x

    def batch(self, axis_size, args, dims):
        # the batch axis stays where it is
        return self.bind(args[0]), dims[0]


class Nary(Primitive):
    """Elementwise op over operands of one dtype; ``out_dtype`` fixes the result (compare)."""

    def __init__(self, name, kind, hlo, out_dtype=None):
        super().__init__(name)
        self.kind = kind
        self.hlo = hlo
        self.out_dtype = out_dtype

    def abstract_eval(self, *avals):
        a0 = avals[0]
        if len(avals) == 2 and a0 == avals[1] and _OK[self.kind](a0.dtype):
            # the common case: identical operands
            return Aval(a0.shape, self.out_dtype, a0.weak_type) if self.out_dtype is not None else a0
        d = a0.dtype
        for a in avals:
            _check_dtype(self.name, self.kind, a.dtype)
        if any(a.dtype != d for a in avals):
            raise TypeError(f"{self.name} requires arguments to have the same dtypes, got "
                            + ", ".join(a.dtype.name for a in avals) + ".")
        shape = broadcast_shapes_nary(self.name, avals)
        weak = all(a.weak_type for a in avals)
        if self.out_dtype is not None:  # weak when every operand is (as JAX's comparisons)
            return Aval(shape, self.out_dtype, weak)
        return Aval(shape, d, weak)

    def batch(self, axis_size, args, dims):
        return vectorized_batch(self, axis_size, args, dims)


_unary = [
    ("neg", _NUM, "negate"), ("abs", _NUM, "abs"), ("sign", _NUM, "sign"),
    ("exp", _INEXACT, "exponential"), ("log", _INEXACT, "log"),
    ("log1p", _INEXACT, "log_plus_one"), ("expm1", _INEXACT, "exponential_minus_one"),
    ("tanh", _INEXACT, "tanh"), ("logistic", _INEXACT, "logistic"),
    ("sin", _INEXACT, "sine"), ("cos", _INEXACT, "cosine"), ("tan", _INEXACT, "tan"),
    ("sqrt", _INEXACT, "sqrt"), ("rsqrt", _INEXACT, "rsqrt"),
    ("floor", _FLOAT, "floor"), ("ceil", _FLOAT, "ceil"), ("round", _FLOAT, "round_nearest_even"),
    ("not", _INT_BOOL, "not"),
]
_binary = [
    ("add", _NUM, "add"), ("sub", _NUM, "subtract"), ("mul", _NUM, "multiply"),
    ("div", _NUM, "divide"), ("rem", _NUM, "remainder"), ("pow", _INEXACT, "power"),
    ("max", _NUM_BOOL, "maximum"), ("min", _NUM_BOOL, "minimum"), ("atan2", _FLOAT, "atan2"),
    ("and", _INT_BOOL, "and"), ("or", _INT_BOOL, "or"), ("xor", _INT_BOOL, "xor"),
]
_compare = [("eq", "EQ"), ("ne", "NE"), ("lt", "LT"), ("le", "LE"), ("gt", "GT"), ("ge", "GE")]

UNARY = {n: Unary(n, k, h) for n, k, h in _unary}
BINARY = {n: Nary(n, k, h) for n, k, h in _binary}
COMPARE = {n: Nary(n, _NUM_BOOL, d, out_dtype=dtypes.bool_) for n, d in _compare}

globals().update({f"{n}_p": p for n, p in {**UNARY, **BINARY, **COMPARE}.items()})


class Select(Primitive):
    """select(pred, on_true, on_false): pred is bool, of the operands' shape or rank 0."""

    name = "select"

    def abstract_eval(self, pred, on_true, on_false):
        if pred.dtype != dtypes.bool_:
            raise TypeError(f"select requires a boolean predicate, got {pred.dtype.name}.")
        if on_true.dtype != on_false.dtype:
            raise TypeError("select requires on_true and on_false to have the same dtypes, got "
                            f"{on_true.dtype.name}, {on_false.dtype.name}.")
        shape = broadcast_shapes_nary("select", (pred, on_true, on_false))
        return Aval(shape, on_true.dtype, on_true.weak_type and on_false.weak_type)

    def batch(self, axis_size, args, dims):
        return vectorized_batch(self, axis_size, args, dims)


select_p = Select()


class ConvertElementType(Primitive):
    """convert_element_type(x, new_dtype, weak_type): same shape, new dtype."""

    name = "convert_element_type"

    def abstract_eval(self, x, *, new_dtype, weak_type=False):
        return Aval(x.shape, new_dtype, weak_type)

    def batch(self, axis_size, args, dims, **params):
        # elementwise: the batch axis stays where it is
        return self.bind(args[0], **params), dims[0]


convert_element_type_p = ConvertElementType()
