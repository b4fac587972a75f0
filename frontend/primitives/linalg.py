"""Linear-algebra primitives: dot_general.

``dot_general`` is StableHLO's: result dims are the batch dims, then the lhs free dims, then
the rhs free dims, each group in increasing operand-axis order.
"""
from __future__ import annotations

import functools

import ml_dtypes
import numpy as np

from ..core import dtypes
from ..core.ir import Aval, Primitive, aval_of
from ..interpreters import batching
from ..interpreters.ad_util import is_undefined_primal
from .dot_algorithms import is_algorithm
from .elementwise import convert_element_type_p, jvp_by_operand
from .shape import transpose_p


def _type_rank(d) -> tuple:
    """XLA's 'higher precision type' order of a dtype: complex first, then float range and
    mantissa, then bit width, then signed over unsigned."""
    d = np.dtype(d)
    c = np.dtype(np.finfo(d).dtype) if dtypes.is_complex(d) else d
    if dtypes.is_float(c):
        fi = ml_dtypes.finfo(c)
        maxexp, nmant = int(fi.maxexp), int(fi.nmant)
    else:
        maxexp = nmant = -1
    bits = 1 if dtypes.is_bool(c) else c.itemsize * 8
    return (dtypes.is_complex(d), maxexp, nmant, bits, not dtypes.is_unsigned(c))


def dot_operand_dtype(ld, rd) -> np.dtype:
    """The dtype both operands are computed in (the 'higher' one when they differ)."""
    if ld == rd:
        return np.dtype(ld)
    lr, rr = _type_rank(ld), _type_rank(rd)
    if lr > rr:
        return np.dtype(ld)
    if rr > lr:
        return np.dtype(rd)
    if np.dtype(ld) != np.dtype(rd):
        raise TypeError(f"lax.dot_general argument type error: {np.dtype(ld)}, {np.dtype(rd)}")
    return np.dtype(ld)


def _free(ndim, contract, batch) -> list:
    return [i for i in range(ndim) if i not in contract and i not in batch]


def _distinct(dims) -> bool:
    return len(dims) < 2 or len(set(dims)) == len(dims)


def _dims_ok(lhs, rhs, lc, rc, lb, rb) -> bool:
    """The common case of ``_check_dims`` in one sweep: every rule holds."""
    ls, rs = lhs.shape, rhs.shape
    ln, rn = len(ls), len(rs)
    if len(lb) != len(rb) or len(lc) != len(rc):
        return False
    seen_l, seen_r = set(lb), set(rb)
    seen_l.update(lc)
    seen_r.update(rc)
    if len(seen_l) != len(lb) + len(lc) or len(seen_r) != len(rb) + len(rc):
        return False
    for i, j in zip(lb + lc, rb + rc, strict=True):
        if not (0 <= i < ln and 0 <= j < rn) or ls[i] != rs[j]:
            return False
    return True


def _check_dims(lhs, rhs, dn):
    (lc, rc), (lb, rb) = dn
    if _dims_ok(lhs, rhs, lc, rc, lb, rb):
        return
    for d in lc + lb:
        if not 0 <= d < lhs.ndim:
            raise TypeError("dot_general requires lhs dimension numbers to be nonnegative and "
                            "less than the number of axes of the lhs value, got lhs_batch of "
                            f"{lb} and lhs_contracting of {lc} for lhs of rank {lhs.ndim}")
    for d in rc + rb:
        if not 0 <= d < rhs.ndim:
            raise TypeError("dot_general requires rhs dimension numbers to be nonnegative and "
                            "less than the number of axes of the rhs value, got rhs_batch of "
                            f"{rb} and rhs_contracting of {rc} for rhs of rank {rhs.ndim}")
    if len(lb) != len(rb):
        raise TypeError("dot_general requires equal numbers of lhs_batch and rhs_batch "
                        f"dimensions, got lhs_batch {lb} and rhs_batch {rb}.")
    for side, dims, what in (("lhs", lb, "batch"), ("rhs", rb, "batch"),
                             ("lhs", lc, "contracting"), ("rhs", rc, "contracting")):
        if not _distinct(dims):
            raise TypeError(f"dot_general requires {side} {what} dimensions to be distinct, got "
                            f"{side}_{what} {dims}.")
    if lb and lc and set(lb) & set(lc):
        raise TypeError("dot_general requires lhs batch dimensions to be disjoint from "
                        f"contracting dimensions, got lhs_batch {lb} and lhs_contracting {lc}.")
    if rb and rc and set(rb) & set(rc):
        raise TypeError("dot_general requires rhs batch dimensions to be disjoint from "
                        f"contracting dimensions, got rhs_batch {rb} and rhs_contracting {rc}.")
    ls, rs = lhs.shape, rhs.shape
    if [ls[i] for i in lb] != [rs[i] for i in rb]:
        raise TypeError("dot_general requires lhs batch dimensions and rhs batch dimensions to "
                        f"have the same shape, got {tuple(ls[i] for i in lb)} and "
                        f"{tuple(rs[i] for i in rb)}.")
    if [ls[i] for i in lc] != [rs[i] for i in rc]:
        raise TypeError("dot_general requires contracting dimensions to have the same shape, "
                        f"got {tuple(ls[i] for i in lc)} and {tuple(rs[i] for i in rc)}.")


def _bits(d) -> int:
    d = np.dtype(d)
    return 1 if dtypes.is_bool(d) else d.itemsize * 8


def _shift(dims, bdim) -> tuple:
    """Per-example axis numbers -> axis numbers of the operand with a batch axis at bdim."""
    return tuple([d + (d >= bdim) for d in dims])


# dot_general(lhs, rhs, dimension_numbers=((lhs_contract, rhs_contract), (lhs_batch,
# rhs_batch)), precision, preferred_element_type). Result dims: batch dims, then lhs free
# dims, then rhs free dims (StableHLO order). Operands of different dtypes are computed in
# the 'higher' one (as XLA); ``preferred_element_type`` sets the result dtype.
dot_general_p = Primitive("dot_general")


@dot_general_p.def_abstract_eval
def _dot_general_abstract_eval(lhs, rhs, *, dimension_numbers, precision=None,
                               preferred_element_type=None):
    return remembered(_dot_general_aval, lhs, rhs, dimension_numbers, preferred_element_type)


def remembered(fn, *args):
    """``fn(*args)`` from its lru_cache; with an unhashable argument (lists where tuples are
    usual, from a user's bind) computed afresh (a TypeError of ``fn`` itself then comes again)."""
    try:
        return fn(*args)
    except TypeError:
        return fn.__wrapped__(*args)


@functools.lru_cache(maxsize=4096)
def _dot_general_aval(lhs, rhs, dimension_numbers, preferred_element_type) -> Aval:
    """The result aval (remembered per interned avals and dimension numbers: a chain of
    products asks the same question again and again; errors are raised every time)."""
    _check_dims(lhs, rhs, dimension_numbers)
    (lc, rc), (lb, rb) = dimension_numbers
    out_dtype = dot_operand_dtype(lhs.dtype, rhs.dtype)
    if preferred_element_type is not None and np.dtype(preferred_element_type) != out_dtype:
        pref = np.dtype(preferred_element_type)
        if not dtypes.is_float(out_dtype) and _bits(pref) < _bits(out_dtype):
            raise TypeError("`preferred_element_type` must not be narrower than the original "
                            f"type, got preferred_element_type of {pref} for result type of "
                            f"{out_dtype}.")
        out_dtype = pref
    ls, rs = lhs.shape, rhs.shape
    shape = ([ls[i] for i in lb] + [ls[i] for i in _free(len(ls), lc, lb)]
             + [rs[i] for i in _free(len(rs), rc, rb)])
    return Aval(tuple(shape), out_dtype, lhs.weak_type and rhs.weak_type)


@dot_general_p.def_batching
def _dot_general_batch(args, dims, *, dimension_numbers, precision=None,
                       preferred_element_type=None):
    (lhs, rhs), (ld, rd) = args, dims
    dn, out_dim = remembered(_batched_dimension_numbers, dimension_numbers, ld, rd,
                              batching.ndim(lhs), batching.ndim(rhs))
    out = dot_general_p.bind(lhs, rhs, dimension_numbers=dn, precision=precision,
                             preferred_element_type=preferred_element_type)
    return out, out_dim


@functools.lru_cache(maxsize=4096)
def _batched_dimension_numbers(dimension_numbers, ld, rd, lhs_ndim, rhs_ndim) -> tuple:
    """(dimension numbers of the batched operands, result batch axis), remembered per
    question (a chain of products asks the same one again and again).

    Both batched: the two batch axes become a new leading batching dimension (out dim 0).
    One batched: its batch axis becomes a free dimension of that operand, and the result
    batch axis is wherever dot_general puts that free dim: after the batch dims, among
    the lhs free dims in axis order (lhs batched) or after all lhs free dims, among the
    rhs free dims (rhs batched). The operand order is kept: swapping to put the batch
    axis first saves a final transpose but gives XLA CPU a batch-major layout that is
    measurably slower when a reduction follows (2.6x on the seed tanh model).
    Never a broadcast, never a transpose."""
    (lc, rc), (lb, rb) = dimension_numbers
    nb = len(lb)
    if ld is not None and rd is not None:
        return ((_shift(lc, ld), _shift(rc, rd)),
                ((ld,) + _shift(lb, ld), (rd,) + _shift(rb, rd))), 0
    lfree = _free(lhs_ndim - (ld is not None), lc, lb)
    if ld is not None:
        out_dim = nb + sum([i < ld for i in lfree])
        lc, lb = _shift(lc, ld), _shift(lb, ld)
    else:
        rfree = _free(rhs_ndim - 1, rc, rb)
        out_dim = nb + len(lfree) + sum([i < rd for i in rfree])
        rc, rb = _shift(rc, rd), _shift(rb, rd)
    return ((lc, rc), (lb, rb)), out_dim


dot_general_p.def_jvp(jvp_by_operand(
    dot_general_p, lambda g, x, y, **params: dot_general_p.bind(g, y, **params),
    lambda g, x, y, **params: dot_general_p.bind(x, g, **params)))


def _ranges(*sizes) -> list:
    """Consecutive ranges of the given sizes: [0..a), [a..a+b), ..."""
    out, k = [], 0
    for n in sizes:
        out.append(list(range(k, k + n)))
        k += n
    return out


def _transpose_lhs(ct, x_aval, y, dn, precision, preferred, swap=False):
    # ct contracted with y over y's free dims (batch dims stay batch dims), then x's dims
    # put back in order: the result is laid out (batch, x free, x contracting sorted by y)
    (xc, yc), (xb, yb) = dn
    x_free = _free(x_aval.ndim, xc, xb)
    y_free = _free(batching.ndim(y), yc, yb)
    if swap:
        ct_b, ct_y, _ = _ranges(len(xb), len(y_free), len(x_free))
    else:
        ct_b, _, ct_y = _ranges(len(xb), len(x_free), len(y_free))
    out = dot_general_p.bind(ct, y, dimension_numbers=((tuple(ct_y), tuple(y_free)),
                                                       (tuple(ct_b), tuple(yb))),
                             precision=precision, preferred_element_type=preferred)
    xc_by_y = [xc[i] for i in np.argsort(yc)]
    perm = tuple(int(i) for i in np.argsort(list(xb) + x_free + xc_by_y))
    if perm != tuple(range(len(perm))):
        out = transpose_p.bind(out, permutation=perm)
    oa = aval_of(out)
    if oa.dtype != x_aval.dtype:
        out = convert_element_type_p.bind(out, new_dtype=x_aval.dtype, weak_type=oa.weak_type)
    return out


@dot_general_p.def_transpose
def _dot_general_transpose(ct, x, y, *, dimension_numbers, precision=None,
                           preferred_element_type=None):
    (xc, yc), (xb, yb) = dimension_numbers
    if is_undefined_primal(x) and is_undefined_primal(y):
        raise TypeError("dot_general is nonlinear in both operands: it cannot be transposed")
    pref = None if preferred_element_type is None else np.dtype(preferred_element_type)
    if is_undefined_primal(x):
        return [_transpose_lhs(ct, x.aval, y, dimension_numbers, precision, pref), None]
    swapped = ((yc, xc), (yb, xb))
    p = precision if precision is None or is_algorithm(precision) else (precision[1], precision[0])
    return [None, _transpose_lhs(ct, y.aval, x, swapped, p, pref, swap=True)]
