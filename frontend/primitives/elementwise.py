"""Elementwise primitives: unary math, binary arithmetic, comparisons, select and
convert_element_type. Operands share one shape; a rank-0 operand broadcasts (as a literal
does in a jaxpr), and the n-ary ops broadcast size-1 dimensions as JAX's lax does (equal
ranks: ``add`` of (3, 4) and (3, 1) is (3, 4)). The families are rows of small tables built by ``unary``/``nary``; every
row is batched by ``vectorized_batch`` (or keeps the batch axis where it is, for one operand).
Beside each row: its jvp rule (JAX's formulas, so values match at ties and edges too) and,
for the linear ones, its transpose rule.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.ir import Aval, Literal, Primitive, aval_of, literal
from ..interpreters import batching
from ..interpreters.ad_util import Zero, is_undefined_primal, tangent_aval
from ..interpreters.batching import moved_shape, ndim
from .shape import (
    bdim_at,
    broadcast_in_dim_p,
    instantiate_zeros,
    linear_jvp,
    moveaxis,
    sum_to_aval,
    zero_jvp,
)

# dtype classes a primitive accepts
ANY = "any"
NUMBER = "number"      # ints and inexact
INEXACT = "inexact"    # floats and complex
FLOAT = "float"
INT_BOOL = "int_or_bool"
INT = "int"
REAL = "real"          # ints and floats
NUM_BOOL = "number_or_bool"

# the dtype kinds (dtypes._kind: b, i, u, f, c) each class accepts; None: every dtype
_OK_KINDS = {ANY: None, NUMBER: "iufc", INEXACT: "fc", FLOAT: "f", INT_BOOL: "biu", INT: "iu",
             REAL: "iuf", NUM_BOOL: None}


def _ok(kind, d) -> bool:
    ks = _OK_KINDS[kind]
    return ks is None or dtypes._kind(d) in ks


_KIND_NAME = {NUMBER: "numeric", INEXACT: "floating or complex", FLOAT: "floating",
              INT_BOOL: "integer or boolean", INT: "integer", REAL: "integer or floating", NUM_BOOL: "numeric or boolean", ANY: "any"}


def check_dtype(name, kind, d):
    if not _ok(kind, d):
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
    for sizes in zip(*shapes, strict=True):
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
        d0 = next((d for d, k in zip(dims, ranks, strict=True) if d is not None and k == r), 0)
        full = None
        for a, d, k in zip(args, dims, ranks, strict=True):
            if d is not None and k == r:
                full = moved_shape(batching.shape(a), d, d0)
                break
        if full is None:  # only batched scalars: the batch shape comes from an unbatched array
            ref = next((a for a, k in zip(args, ranks, strict=True) if k == r), None)
            s = list(batching.shape(ref)) if r else []
            s.insert(d0, size)
            full = tuple(s)
        new = []
        for a, d, k in zip(args, dims, ranks, strict=True):
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
    for a, d in zip(args, dims, strict=True):
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


# ----------------------------------------------------------------------------- autodiff helpers


def add_tangents(a, b):
    """The sum of two tangents (or cotangents), symbolic zeros skipped."""
    if type(a) is Zero:
        return b
    if type(b) is Zero:
        return a
    return add_p.bind(a, b)


def jvp_by_operand(prim, *rules, with_result=False):
    """The jvp rule of ``prim`` from one rule per operand (JAX's defjvp; defjvp2 with
    ``with_result``): ``rules[i](t_i, *primals, **params)`` (``(t_i, result, *primals,
    **params)``) is operand i's contribution to the result's tangent, linear in ``t_i``;
    None for an operand without a derivative. Contributions of zero tangents are skipped; a
    contribution of a rank-0 operand, or of one with size-1 dims, is broadcast to the result."""

    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        oa = aval_of(out)
        acc = Zero(tangent_aval(oa))
        for r, t in zip(rules, tangents, strict=True):
            if r is None or type(t) is Zero:
                continue
            c = r(t, out, *primals, **params) if with_result else r(t, *primals, **params)
            cs = aval_of(c).shape
            if cs != oa.shape:
                c = broadcast_in_dim_p.bind(c, shape=oa.shape,
                                            broadcast_dimensions=tuple(range(len(cs))))
            acc = add_tangents(acc, c)
        return out, acc

    return rule


def unbroadcast(ct, aval):
    """The cotangent of an operand of ``aval`` from the cotangent of the result it was
    broadcast into (a rank-0 operand of a higher-rank elementwise op, or one with size-1
    dims): the sum over the broadcast dims."""
    shp = aval_of(ct).shape
    if shp == aval.shape:
        return ct
    return sum_to_aval(ct, aval, shp, tuple(range(len(aval.shape))))


def _c(x, v):
    """The constant v as a weak literal of x's dtype (it does not change the result type)."""
    return literal(v, aval_of(x).dtype, True)


def _mul(a, b):
    return mul_p.bind(a, b)


def _div(a, b):
    return div_p.bind(a, b)


def _add(a, b):
    return add_p.bind(a, b)


def _sub(a, b):
    return sub_p.bind(a, b)


def _neg(a):
    return neg_p.bind(a)


def _nonlinear(name):
    return TypeError(f"{name} is nonlinear in both operands: it cannot be transposed (this "
                     "is a bug in a jvp rule that multiplies two tangents)")


def _add_transpose(ct, x, y):
    return [unbroadcast(ct, x.aval) if is_undefined_primal(x) else None,
            unbroadcast(ct, y.aval) if is_undefined_primal(y) else None]


def _sub_transpose(ct, x, y):
    return [unbroadcast(ct, x.aval) if is_undefined_primal(x) else None,
            unbroadcast(_neg(ct), y.aval) if is_undefined_primal(y) else None]


def _mul_transpose(ct, x, y):
    if is_undefined_primal(x) and is_undefined_primal(y):
        raise _nonlinear("mul")
    if is_undefined_primal(x):
        return [unbroadcast(_mul(ct, y), x.aval), None]
    return [None, unbroadcast(_mul(x, ct), y.aval)]


def _div_transpose(ct, x, y):
    if is_undefined_primal(y):
        raise _nonlinear("div") if is_undefined_primal(x) else TypeError(
            "div is not linear in its divisor: it cannot be transposed with respect to it")
    return [unbroadcast(_div(ct, y), x.aval), None]


def _balanced_eq(x, z, y):
    """1 where x == z (1/2 where y == z too), else 0: how max/min share a tie."""
    one, zero = _c(z, 1), _c(z, 0)
    return _div(select_p.bind(eq_p.bind(x, z), one, zero),
                select_p.bind(eq_p.bind(y, z), _c(z, 2), one))


def _replace_zero(x):
    return select_p.bind(eq_p.bind(x, _c(x, 0)), _c(x, 1), x)


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
    kinds = _OK_KINDS[kind]

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
            if kinds is None or dtypes._kind(d) in kinds:
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
    p = nary(name, NUM_BOOL, out_dtype=dtypes.bool_)
    p.def_jvp(zero_jvp(p))
    return p


neg_p = unary("neg", NUMBER)
neg_p.def_jvp(linear_jvp(neg_p))
neg_p.def_transpose(lambda ct, x: [_neg(ct)])
sign_p = unary("sign", NUMBER)
sign_p.def_jvp(zero_jvp(sign_p))
exp_p = unary("exp", INEXACT)
exp_p.def_jvp(jvp_by_operand(exp_p, lambda g, ans, x: _mul(g, ans), with_result=True))
log_p = unary("log", INEXACT)
log_p.def_jvp(jvp_by_operand(log_p, lambda g, x: _div(g, x)))
log1p_p = unary("log1p", INEXACT)
log1p_p.def_jvp(jvp_by_operand(log1p_p, lambda g, x: _div(g, _add(x, _c(x, 1)))))
expm1_p = unary("expm1", INEXACT)
expm1_p.def_jvp(jvp_by_operand(expm1_p, lambda g, ans, x: _mul(g, _add(ans, _c(ans, 1))),
                               with_result=True))
tanh_p = unary("tanh", INEXACT)
tanh_p.def_jvp(jvp_by_operand(
    tanh_p, lambda g, ans, x: _mul(_add(g, _mul(g, ans)), _sub(_c(x, 1), ans)), with_result=True))
logistic_p = unary("logistic", INEXACT)
logistic_p.def_jvp(jvp_by_operand(
    logistic_p, lambda g, ans, x: _mul(g, _mul(ans, _sub(_c(ans, 1), ans))), with_result=True))
sin_p = unary("sin", INEXACT)
sin_p.def_jvp(jvp_by_operand(sin_p, lambda g, x: _mul(g, cos_p.bind(x))))
cos_p = unary("cos", INEXACT)
cos_p.def_jvp(jvp_by_operand(cos_p, lambda g, x: _neg(_mul(g, sin_p.bind(x)))))
tan_p = unary("tan", INEXACT)
tan_p.def_jvp(jvp_by_operand(
    tan_p, lambda g, ans, x: _mul(g, _add(_c(x, 1), _mul(ans, ans))), with_result=True))
sqrt_p = unary("sqrt", INEXACT)
sqrt_p.def_jvp(jvp_by_operand(sqrt_p, lambda g, ans, x: _mul(g, _div(_c(x, 0.5), ans)),
                              with_result=True))
rsqrt_p = unary("rsqrt", INEXACT)
rsqrt_p.def_jvp(jvp_by_operand(
    rsqrt_p, lambda g, ans, x: _mul(g, _mul(_c(x, -0.5), _div(ans, x))), with_result=True))
floor_p = unary("floor", FLOAT)
floor_p.def_jvp(zero_jvp(floor_p))
ceil_p = unary("ceil", FLOAT)
ceil_p.def_jvp(zero_jvp(ceil_p))
round_p = unary("round", FLOAT)
round_p.def_jvp(zero_jvp(round_p))
not_p = unary("not", INT_BOOL)
not_p.def_jvp(zero_jvp(not_p))

# abs of a complex number is real
abs_p = Primitive("abs")


@abs_p.def_abstract_eval
def _abs_abstract_eval(x):
    check_dtype("abs", NUMBER, x.dtype)
    if dtypes.is_complex(x.dtype):
        return x.update(dtype=np.finfo(x.dtype).dtype)
    return x


abs_p.def_batching(same_axis_batch(abs_p))
# (abs_p's jvp rule is in numeric.py: of a complex value it takes the real part)

add_p = nary("add", NUMBER)
add_p.def_jvp(jvp_by_operand(add_p, lambda g, x, y: g, lambda g, x, y: g))
add_p.def_transpose(_add_transpose)
sub_p = nary("sub", NUMBER)
sub_p.def_jvp(jvp_by_operand(sub_p, lambda g, x, y: g, lambda g, x, y: _neg(g)))
sub_p.def_transpose(_sub_transpose)
mul_p = nary("mul", NUMBER)
mul_p.def_jvp(jvp_by_operand(mul_p, lambda g, x, y: _mul(g, y), lambda g, x, y: _mul(x, g)))
mul_p.def_transpose(_mul_transpose)
div_p = nary("div", NUMBER)
# (div_p's jvp rule is in numeric.py: it takes integer_pow(y, -2))
div_p.def_transpose(_div_transpose)
rem_p = nary("rem", REAL)
rem_p.def_jvp(jvp_by_operand(
    rem_p, lambda g, x, y: g,
    lambda g, x, y: _mul(_neg(g), _mul(sign_p.bind(_div(x, y)), floor_p.bind(abs_p.bind(_div(x, y)))))))
pow_p = nary("pow", INEXACT)


def _pow_jvp_base(g, ans, x, y):
    # g * y * x ** (y - 1); a literal exponent stays a literal (x ** 2 -> g * 2 * x)
    if type(y) is Literal:
        e = y.val - 1
        xe = x if e == 1 else pow_p.bind(x, literal(e, y.aval.dtype, y.aval.weak_type))
        return _mul(g, _mul(y, xe))
    return _mul(g, _mul(y, pow_p.bind(x, _sub(y, _c(y, 1)))))


pow_p.def_jvp(jvp_by_operand(
    pow_p, _pow_jvp_base, lambda g, ans, x, y: _mul(g, _mul(log_p.bind(_replace_zero(x)), ans)),
    with_result=True))
max_p = nary("max", NUM_BOOL)
max_p.def_jvp(jvp_by_operand(max_p, lambda g, ans, x, y: _mul(g, _balanced_eq(x, ans, y)),
                             lambda g, ans, x, y: _mul(g, _balanced_eq(y, ans, x)),
                             with_result=True))
min_p = nary("min", NUM_BOOL)
min_p.def_jvp(jvp_by_operand(min_p, lambda g, ans, x, y: _mul(g, _balanced_eq(x, ans, y)),
                             lambda g, ans, x, y: _mul(g, _balanced_eq(y, ans, x)),
                             with_result=True))
atan2_p = nary("atan2", FLOAT)
atan2_p.def_jvp(jvp_by_operand(
    atan2_p, lambda g, x, y: _mul(g, _div(y, _add(_mul(x, x), _mul(y, y)))),
    lambda g, x, y: _mul(g, _div(_neg(x), _add(_mul(x, x), _mul(y, y))))))
and_p = nary("and", INT_BOOL)
and_p.def_jvp(zero_jvp(and_p))
or_p = nary("or", INT_BOOL)
or_p.def_jvp(zero_jvp(or_p))
xor_p = nary("xor", INT_BOOL)
xor_p.def_jvp(zero_jvp(xor_p))
shift_left_p = nary("shift_left", INT)
shift_left_p.def_jvp(zero_jvp(shift_left_p))
shift_right_arithmetic_p = nary("shift_right_arithmetic", INT)
shift_right_arithmetic_p.def_jvp(zero_jvp(shift_right_arithmetic_p))
shift_right_logical_p = nary("shift_right_logical", INT)
shift_right_logical_p.def_jvp(zero_jvp(shift_right_logical_p))

eq_p = compare("eq")
ne_p = compare("ne")
lt_p = compare("lt")
le_p = compare("le")
gt_p = compare("gt")
ge_p = compare("ge")
# JAX's total-order comparisons (sort's): -nan < -inf < ... < -0.0 < 0.0 < ... < inf < nan
eq_to_p = compare("eq_to")
le_to_p = compare("le_to")
lt_to_p = compare("lt_to")


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


@select_p.def_jvp
def _select_jvp(primals, tangents):
    pred, a, b = primals
    _, ta, tb = tangents
    out = select_p.bind(pred, a, b)
    return out, select_p.bind(pred, instantiate_zeros(ta), instantiate_zeros(tb))


@select_p.def_transpose
def _select_transpose(ct, pred, a, b):
    # the predicate is a constant: each branch gets the cotangent where it was chosen
    if is_undefined_primal(pred):
        raise TypeError("select is not linear in its predicate")
    zero = _c(ct, 0)
    return [None,
            unbroadcast(select_p.bind(pred, ct, zero), a.aval) if is_undefined_primal(a) else None,
            unbroadcast(select_p.bind(pred, zero, ct), b.aval) if is_undefined_primal(b) else None]

# convert_element_type(x, new_dtype, weak_type): same shape, new dtype.
convert_element_type_p = Primitive("convert_element_type")


@convert_element_type_p.def_abstract_eval
def _convert_element_type_abstract_eval(x, *, new_dtype, weak_type=False):
    return Aval(x.shape, new_dtype, weak_type)


convert_element_type_p.def_batching(same_axis_batch(convert_element_type_p))


@convert_element_type_p.def_jvp
def _convert_element_type_jvp(primals, tangents, *, new_dtype, weak_type=False):
    out = convert_element_type_p.bind(primals[0], new_dtype=new_dtype, weak_type=weak_type)
    if not dtypes.is_inexact(new_dtype):
        return out, Zero(tangent_aval(aval_of(out)))
    return out, convert_element_type_p.bind(tangents[0], new_dtype=new_dtype, weak_type=weak_type)


@convert_element_type_p.def_transpose
def _convert_element_type_transpose(ct, x, *, new_dtype, weak_type=False):
    a = x.aval
    return [convert_element_type_p.bind(ct, new_dtype=a.dtype, weak_type=a.weak_type)]


# stop_gradient(x): x, with a zero derivative (lax.stop_gradient)
stop_gradient_p = unary("stop_gradient", ANY)
stop_gradient_p.def_jvp(zero_jvp(stop_gradient_p))
