"""Local simplifications (rules for ``rewrite``) and the passes built from them.

Every rule keeps the values exactly, with one caveat shared with XLA's own algebraic
simplifier: ``x + 0.0 -> x`` keeps the sign of a zero ``x`` (``-0.0 + 0.0`` is ``+0.0``).
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from ..core import dtypes
from ..core.ir import Eqn, Literal
from ..primitives import elementwise as ew
from ..primitives.linalg import dot_general_p
from ..primitives.shape import broadcast_in_dim_p, reshape_p, squeeze_p, transpose_p
from .rewrite import forward, on, rewrite_pass

# ----------------------------------------------------------------------------- shape chains


@on(transpose_p)
def transpose_chain(e, rw):
    """transpose(transpose(x, p1), p2) -> transpose(x, p1[p2]); identity transposes vanish."""
    if e.prim is not transpose_p:
        return None
    src, perm = e.inputs[0], tuple(e.params["permutation"])
    inner = rw.producer(src)
    if inner is not None and inner.prim is transpose_p:
        src = inner.inputs[0]
        perm = tuple(inner.params["permutation"][p] for p in perm)
        if perm != tuple(range(len(perm))):
            return Eqn(transpose_p, (src,), {**e.params, "permutation": perm}, e.outs, e.loc)
    if perm == tuple(range(len(perm))):
        return forward(e, src)
    return None


_RESHAPES = (reshape_p, squeeze_p)


@on(*_RESHAPES)
def reshape_chain(e, rw):
    """reshape(reshape(x)) -> reshape(x) (squeeze counts as a reshape); a reshape to the
    operand's own shape vanishes."""
    if e.prim not in _RESHAPES:
        return None
    src, out = e.inputs[0], e.outs[0]
    if src.aval.shape == out.aval.shape:
        return forward(e, src)
    inner = rw.producer(src)
    if inner is not None and inner.prim in _RESHAPES:
        return Eqn(reshape_p, (inner.inputs[0],), {"new_sizes": out.aval.shape, "dimensions": None},
                   e.outs, e.loc)
    return None


@on(broadcast_in_dim_p)
def broadcast_chain(e, rw):
    """broadcast_in_dim(broadcast_in_dim(x)) -> one broadcast_in_dim; a broadcast to the
    operand's own shape vanishes."""
    if e.prim is not broadcast_in_dim_p:
        return None
    x, out = e.inputs[0], e.outs[0]
    bd = tuple(e.params["broadcast_dimensions"])
    if x.aval.shape == out.aval.shape and bd == tuple(range(len(bd))):
        return forward(e, x)
    inner = rw.producer(x)
    if inner is not None and inner.prim is broadcast_in_dim_p:
        dims = tuple(bd[d] for d in inner.params["broadcast_dimensions"])
        return Eqn(broadcast_in_dim_p, (inner.inputs[0],),
                   {"shape": tuple(e.params["shape"]), "broadcast_dimensions": dims}, e.outs, e.loc)
    return None


# ----------------------------------------------------------------------------- conversions


def _float_range(d):
    f = ml_dtypes.finfo(d)
    return f.nmant, f.maxexp, f.minexp


def _value_bits(d) -> int:
    """Bits of magnitude of an integer dtype."""
    return d.itemsize * 8 - (dtypes._kind(d) == "i")


def exact_cast(src, dst) -> bool:
    """True when every value of dtype ``src`` is exactly a value of dtype ``dst``."""
    s, d = np.dtype(src), np.dtype(dst)
    if s == d:
        return True
    ks, kd = dtypes._kind(s), dtypes._kind(d)
    if ks == "b":
        return True
    if kd == "b":
        return False
    if kd == "c":  # into complex: exact when the real part holds it
        if ks == "c":
            return d.itemsize >= s.itemsize
        return exact_cast(s, np.float32 if d.itemsize == 8 else np.float64)
    if ks == "c":
        return False
    if ks in "iu":
        if kd in "iu":
            return not (ks == "i" and kd == "u") and _value_bits(d) >= _value_bits(s)
        return _float_range(d)[0] + 1 >= _value_bits(s)
    if kd != "f":
        return False
    (sm, sx, sn), (dm, dx, dn) = _float_range(s), _float_range(d)
    return dm >= sm and dx >= sx and dn <= sn


def _py(value, dtype):
    kind = dtypes._kind(dtype)
    v = np.asarray(value, dtype).reshape(())
    return {"b": bool, "i": int, "u": int, "f": float, "c": complex}[kind](v)


@on(ew.convert_element_type_p)
def convert_chain(e, rw):
    """convert(x, T) with T x's own type vanishes; convert(convert(x, T1), T2) ->
    convert(x, T2) when T1 holds every value of x's type exactly; an exact conversion of a
    Literal (or of a broadcast Literal) becomes a Literal (broadcast)."""
    if e.prim is not ew.convert_element_type_p:
        return None
    x, out = e.inputs[0], e.outs[0]
    if x.aval == out.aval:
        return [x]
    if type(x) is Literal and exact_cast(x.aval.dtype, out.aval.dtype):
        src = np.asarray(x.val, x.aval.dtype)
        return [Literal(_py(src.astype(out.aval.dtype), out.aval.dtype), out.aval)]
    inner = rw.producer(x)
    if inner is None:
        return None
    if inner.prim is ew.convert_element_type_p and exact_cast(inner.inputs[0].aval.dtype, x.aval.dtype):
        return Eqn(e.prim, (inner.inputs[0],), e.params, e.outs, e.loc)
    lit = inner.inputs[0]
    if inner.prim is broadcast_in_dim_p and type(lit) is Literal \
            and exact_cast(lit.aval.dtype, out.aval.dtype):
        # convert(broadcast(Literal)) -> broadcast(converted Literal)
        new = Literal(_py(np.asarray(lit.val, lit.aval.dtype).astype(out.aval.dtype), out.aval.dtype),
                      out.aval.update(shape=()))
        return Eqn(broadcast_in_dim_p, (new,), inner.params, e.outs, e.loc)
    return None


# ----------------------------------------------------------------------------- algebra

# (unit, the unit may stand on either side)
_UNITS = {ew.add_p: (0, True), ew.sub_p: (0, False), ew.mul_p: (1, True), ew.div_p: (1, False)}
_IDEMPOTENT = (ew.and_p, ew.or_p, ew.max_p, ew.min_p)


def _is(v, unit) -> bool:
    return v is not None and type(v) is not bool and v == unit


def _same_atom(a, b) -> bool:
    if a is b:
        return True
    return type(a) is Literal and type(b) is Literal and a.aval == b.aval \
        and repr(a.val) == repr(b.val)


@on(ew.neg_p, ew.select_p, *_UNITS, *_IDEMPOTENT)
def algebra(e, rw):
    """x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1 -> x (the constant may be a broadcast of a
    Literal or a splat constant); neg(neg(x)) -> x; and/or/max/min(x, x) -> x;
    select(p, x, x) -> x."""
    p = e.prim
    if p is ew.neg_p:
        inner = rw.producer(e.inputs[0])
        if inner is not None and inner.prim is ew.neg_p:
            return forward(e, inner.inputs[0])
        return None
    spec = _UNITS.get(p)
    if spec is not None and len(e.inputs) == 2:
        unit, either = spec
        a, b = e.inputs
        if _is(rw.scalar(b), unit):
            return forward(e, a)
        if either and _is(rw.scalar(a), unit):
            return forward(e, b)
        return None
    if p in _IDEMPOTENT and len(e.inputs) == 2 and _same_atom(*e.inputs):
        return forward(e, e.inputs[0])
    if p is ew.select_p and _same_atom(e.inputs[1], e.inputs[2]):
        return forward(e, e.inputs[1])
    return None


# elementwise primitives whose operands may be rank 0 (broadcast, as a Literal in a jaxpr)
_NARY = (ew.add_p, ew.sub_p, ew.mul_p, ew.div_p, ew.rem_p, ew.pow_p, ew.max_p, ew.min_p,
         ew.atan2_p, ew.and_p, ew.or_p, ew.xor_p, ew.eq_p, ew.ne_p, ew.lt_p, ew.le_p, ew.gt_p,
         ew.ge_p, ew.select_p)


@on(*_NARY)
def literal_operands(e, rw):
    """An elementwise operand that is a broadcast of a Literal becomes the Literal itself
    (elementwise primitives broadcast rank-0 operands), as long as another operand still
    has the result's shape."""
    if e.prim not in _NARY or e.outs[0].aval.ndim == 0:
        return None
    new = list(e.inputs)
    for i, a in enumerate(e.inputs):
        inner = rw.producer(a)
        if inner is not None and inner.prim is broadcast_in_dim_p and type(inner.inputs[0]) is Literal:
            new[i] = inner.inputs[0]
    if all(a is b for a, b in zip(new, e.inputs, strict=True)) or all(a.aval.ndim == 0 for a in new):
        return None
    return Eqn(e.prim, tuple(new), e.params, e.outs, e.loc)


# ----------------------------------------------------------------------------- dot_general


def _fold_operand(x, contract, batch, rw):
    """(source, contract, batch) when ``x`` is a transpose whose free dims keep their order."""
    t = rw.producer(x)
    if t is None or t.prim is not transpose_p:
        return None
    perm = tuple(t.params["permutation"])
    free = [perm[i] for i in range(len(perm)) if i not in contract and i not in batch]
    if free != sorted(free):
        return None  # the result's dims would come out in another order
    return t.inputs[0], tuple(perm[i] for i in contract), tuple(perm[i] for i in batch)


@on(dot_general_p)
def dot_transposes(e, rw):
    """dot_general(transpose(a), b) -> dot_general(a, b) with the contracting and batch
    dimensions read through the permutation (when the free dims keep their order)."""
    if e.prim is not dot_general_p:
        return None
    (lc, rc), (lb, rb) = e.params["dimension_numbers"]
    lhs, rhs = e.inputs
    fl = _fold_operand(lhs, lc, lb, rw)
    fr = _fold_operand(rhs, rc, rb, rw)
    if fl is None and fr is None:
        return None
    if fl is not None:
        lhs, lc, lb = fl
    if fr is not None:
        rhs, rc, rb = fr
    params = {**e.params, "dimension_numbers": ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))}
    return Eqn(dot_general_p, (lhs, rhs), params, e.outs, e.loc)


# ----------------------------------------------------------------------------- passes

fold_transposes = rewrite_pass(
    transpose_chain, name="fold_transposes",
    doc="Fold chains of transposes: transpose(transpose(x, p1), p2) -> transpose(x, p1[p2]); "
        "identity transposes vanish.")

fold_dot_transposes = rewrite_pass(
    dot_transposes, name="fold_dot_transposes",
    doc="Fold a transpose feeding dot_general into its dimension numbers (when the free dims "
        "keep their order).")

simplify = rewrite_pass(
    transpose_chain, reshape_chain, broadcast_chain, convert_chain, algebra, literal_operands,
    name="simplify",
    doc="Algebraic simplification: x+0, x-0, x*1, x/1, neg(neg x), and/or/max/min(x, x), "
        "select(p, x, x); reshape, transpose, broadcast and convert chains; broadcasts of "
        "Literals as elementwise operands.")
