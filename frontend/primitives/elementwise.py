"""Elementwise primitives: unary math, binary arithmetic, comparisons, select and
convert_element_type. Operands share one shape; a rank-0 operand broadcasts (as a literal
does in a jaxpr), and the n-ary ops broadcast size-1 dimensions as JAX's lax does (equal
ranks: ``add`` of (3, 4) and (3, 1) is (3, 4)). The families are rows of small tables built by ``unary``/``nary``; every
row is batched by ``vectorized_batch`` (or keeps the batch axis where it is, for one operand).
"""
from __future__ import annotations

import numpy as np

from .. import batching, dtypes
from ..batching import moved_shape, ndim
from ..core import Aval, Primitive
from .shape import bdim_at, broadcast_in_dim_p, moveaxis

# dtype classes a primitive accepts
ANY = "any"
NUMBER = "number"      # ints and inexact
INEXACT = "inexact"    # floats and complex
FLOAT = "float"
INT_BOOL = "int_or_bool"
INT = "int"
REAL = "real"          # ints and floats
NUM_BOOL = "number_or_bool"

_OK = {
    ANY: lambda d: True,
    NUMBER: lambda d: dtypes.is_int(d) or dtypes.is_inexact(d),
    INEXACT: dtypes.is_inexact,
    FLOAT: dtypes.is_float,
    INT_BOOL: lambda d: dtypes.is_int(d) or dtypes.is_bool(d),
    INT: dtypes.is_int,
    REAL: lambda d: dtypes.is_int(d) or dtypes.is_float(d),
    NUM_BOOL: lambda d: True,
}
_KIND_NAME = {NUMBER: "numeric", INEXACT: "floating or complex", FLOAT: "floating",
              INT_BOOL: "integer or boolean", INT: "integer", REAL: "integer or floating", NUM_BOOL: "numeric or boolean", ANY: "any"}


def check_dtype(name, kind, d):
    if not _OK[kind](d):
        raise TypeError(f"{name} does not accept dtype {np.dtype(d).name}. Accepted dtypes are "
                        f"subtypes of {_KIND_NAME[kind]}.")


def broadcast_shapes_nary(name, avals, size_one: bool = True) -> tuple:
    """The common shape of elementwise operands, as JAX's lax: rank-0 operands broadcast,
    the others have one rank and each dimension equal or (``size_one``) 1."""
    shapes = [a.shape for a in avals if a.shape != ()]
    if not shapes:
        return ()
    s0 = shapes[0]
    if all(s == s0 for s in shapes):
        return s0
    if not size_one:
        raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                        + ", ".join(str(a.shape) for a in avals) + ".")
    ranks = {len(s) for s in shapes}
    if len(ranks) > 1:
        raise TypeError(f"{name}: arrays must have the same number of dimensions, got {ranks}")
    out = []
    for sizes in zip(*shapes):
        big = {d for d in sizes if d != 1}
        if len(big) > 1:
            raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                            + ", ".join(str(a.shape) for a in avals) + ".")
        out.append(big.pop() if big else 1)
    return tuple(out)


# ----------------------------------------------------------------------------- batching


def vectorized_batch(prim):
    """The batching rule of an elementwise n-ary primitive. Operands of full per-example rank
    share one batch axis: the first such batched operand's (others are moved only where they
    differ; unbatched ones are broadcast along it, as StableHLO elementwise ops take equal
    shapes). Unbatched scalars stay scalars; batched scalars are broadcast over the rest.
    The batch axis ends up where the first full-rank batched operand had it (else 0)."""

    def rule(args, dims, **params):
        d0 = _common_bdim(args, dims)
        if d0 is not None:  # nothing to move or broadcast
            return prim.bind(*args, **params), d0
        size = batching.axis_size(args, dims)
        ranks = [ndim(a) - (d is not None) for a, d in zip(args, dims, strict=True)]
        r = max(ranks)
        d0 = next((d for d, k in zip(dims, ranks) if d is not None and k == r), 0)
        full = None
        for a, d, k in zip(args, dims, ranks):
            if d is not None and k == r:
                full = moved_shape(batching.shape(a), d, d0)
                break
        if full is None:  # only batched scalars: the batch shape comes from an unbatched array
            ref = next((a for a, k in zip(args, ranks) if k == r), None)
            s = list(batching.shape(ref)) if r else []
            s.insert(d0, size)
            full = tuple(s)
        new = []
        for a, d, k in zip(args, dims, ranks):
            if d is None:
                new.append(a if k == 0 else bdim_at(a, None, size, d0))
            elif k == 0 and r > 0:
                new.append(broadcast_in_dim_p.bind(a, shape=full, broadcast_dimensions=(d0,)))
            else:
                new.append(moveaxis(a, d, d0))
        return prim.bind(*new, **params), d0

    return rule


def _common_bdim(args, dims):
    """The batch axis when every batched operand has it there at one rank and every
    unbatched operand is rank 0 (the common case: arrays and scalar constants); else None."""
    d0 = n0 = None
    for a, d in zip(args, dims):
        n = ndim(a)
        if d is None:
            if n:
                return None
        elif d0 is None:
            d0, n0 = d, n
        elif d != d0 or n != n0:
            return None
    return d0


def same_axis_batch(prim):
    """The batching rule of a one-operand elementwise primitive: the batch axis stays."""

    def rule(args, dims, **params):
        return prim.bind(args[0], **params), dims[0]

    return rule


# ----------------------------------------------------------------------------- families


def unary(name: str, kind: str) -> Primitive:
    """x -> f(x): same shape and dtype; ``kind`` is the dtype class accepted."""
    p = Primitive(name)

    @p.def_abstract_eval
    def abstract_eval(x):
        check_dtype(name, kind, x.dtype)
        return x

    p.def_batching(same_axis_batch(p))
    return p


def nary(name: str, kind: str, out_dtype=None) -> Primitive:
    """An elementwise op over operands of one dtype (``out_dtype`` fixes the result dtype, as
    for comparisons; the result is weak when every operand is)."""
    p = Primitive(name)

    @p.def_abstract_eval
    def abstract_eval(*avals):
        a0 = avals[0]
        d, shape, weak, full = a0.dtype, a0.shape, a0.weak_type, a0
        for a in avals:  # the common case: one dtype, equal shapes or rank-0 operands
            if a.dtype != d or (a.shape != shape and a.shape and shape):
                break
            if a.shape:
                shape, full = a.shape, a
            weak = weak and a.weak_type
        else:
            if _OK[kind](d):
                if out_dtype is None and full.weak_type == weak:
                    return full
                return Aval(shape, d if out_dtype is None else out_dtype, weak)
        for a in avals:
            check_dtype(name, kind, a.dtype)
        if any(a.dtype != d for a in avals):
            raise TypeError(f"{name} requires arguments to have the same dtypes, got "
                            + ", ".join(a.dtype.name for a in avals) + ".")
        shape = broadcast_shapes_nary(name, avals)
        weak = all(a.weak_type for a in avals)
        return Aval(shape, d if out_dtype is None else out_dtype, weak)

    p.def_batching(vectorized_batch(p))
    return p


def compare(name: str) -> Primitive:
    return nary(name, NUM_BOOL, out_dtype=dtypes.bool_)


neg_p = unary("neg", NUMBER)
sign_p = unary("sign", NUMBER)
exp_p = unary("exp", INEXACT)
log_p = unary("log", INEXACT)
log1p_p = unary("log1p", INEXACT)
expm1_p = unary("expm1", INEXACT)
tanh_p = unary("tanh", INEXACT)
logistic_p = unary("logistic", INEXACT)
sin_p = unary("sin", INEXACT)
cos_p = unary("cos", INEXACT)
tan_p = unary("tan", INEXACT)
sqrt_p = unary("sqrt", INEXACT)
rsqrt_p = unary("rsqrt", INEXACT)
floor_p = unary("floor", FLOAT)
ceil_p = unary("ceil", FLOAT)
round_p = unary("round", FLOAT)
not_p = unary("not", INT_BOOL)

# abs of a complex number is real
abs_p = Primitive("abs")


@abs_p.def_abstract_eval
def _abs_abstract_eval(x):
    check_dtype("abs", NUMBER, x.dtype)
    if dtypes.is_complex(x.dtype):
        return x.update(dtype=np.finfo(x.dtype).dtype)
    return x


abs_p.def_batching(same_axis_batch(abs_p))

add_p = nary("add", NUMBER)
sub_p = nary("sub", NUMBER)
mul_p = nary("mul", NUMBER)
div_p = nary("div", NUMBER)
rem_p = nary("rem", REAL)
pow_p = nary("pow", INEXACT)
max_p = nary("max", NUM_BOOL)
min_p = nary("min", NUM_BOOL)
atan2_p = nary("atan2", FLOAT)
and_p = nary("and", INT_BOOL)
or_p = nary("or", INT_BOOL)
xor_p = nary("xor", INT_BOOL)
shift_left_p = nary("shift_left", INT)
shift_right_arithmetic_p = nary("shift_right_arithmetic", INT)
shift_right_logical_p = nary("shift_right_logical", INT)

eq_p = compare("eq")
ne_p = compare("ne")
lt_p = compare("lt")
le_p = compare("le")
gt_p = compare("gt")
ge_p = compare("ge")


# ----------------------------------------------------------------------------- select, convert

# select(pred, on_true, on_false): pred is bool, of the operands' shape or rank 0.
select_p = Primitive("select")


@select_p.def_abstract_eval
def _select_abstract_eval(pred, on_true, on_false):
    if pred.dtype != dtypes.bool_:
        raise TypeError(f"select requires a boolean predicate, got {pred.dtype.name}.")
    if on_true.dtype != on_false.dtype:
        raise TypeError("select requires on_true and on_false to have the same dtypes, got "
                        f"{on_true.dtype.name}, {on_false.dtype.name}.")
    shape = broadcast_shapes_nary("select", (pred, on_true, on_false), size_one=False)
    return Aval(shape, on_true.dtype, on_true.weak_type and on_false.weak_type)


select_p.def_batching(vectorized_batch(select_p))

# convert_element_type(x, new_dtype, weak_type): same shape, new dtype.
convert_element_type_p = Primitive("convert_element_type")


@convert_element_type_p.def_abstract_eval
def _convert_element_type_abstract_eval(x, *, new_dtype, weak_type=False):
    return Aval(x.shape, new_dtype, weak_type)


convert_element_type_p.def_batching(same_axis_batch(convert_element_type_p))
