"""Lowering rules of the sort family: ``stablehlo.sort`` with a comparator region ordering
the keys lexicographically (NaNs last and equal to each other, -0.0 equal to 0.0, complex
keys by real, then imaginary part), and ``chlo.top_k`` (which selects along the last axis: another axis is
transposed there and back)."""
from __future__ import annotations

import numpy as np

from frontend.core import dtypes
from frontend.core.ir import Aval
from frontend.primitives.sort import sort_p, top_k_p

from .elementwise import compare_type
from .shape import ints

_BOOL = Aval((), np.dtype(np.bool_))


def _key_parts(ctx, x, s: Aval) -> list:
    """(value, scalar aval) of the parts a key orders by: complex by real, then imaginary."""
    if dtypes.is_complex(s.dtype):
        part = Aval((), np.finfo(s.dtype).dtype)
        return [(ctx.op(f"stablehlo.{f} {x} : ({ctx.type(s)}) -> {ctx.type(part)}"), part)
                for f in ("real", "imag")]
    return [(x, s)]


def _order(ctx, a, b, s: Aval) -> tuple:
    """(a < b, a == b) as i1 values in the sort order: for floats NaN is above everything
    and equal to NaN (FLOAT comparison already makes -0.0 equal 0.0). Written with FLOAT
    comparisons rather than TOTALORDER, which the reference interpreter gets wrong for NaN."""
    t, bt = ctx.type(s), ctx.type(_BOOL)

    def cmp(direction, p, q):
        return ctx.op(f"stablehlo.compare {direction}, {p}, {q}, {compare_type(s.dtype)} : "
                      f"({t}, {t}) -> {bt}")

    lt, eq = cmp("LT", a, b), cmp("EQ", a, b)
    if not dtypes.is_float(s.dtype):
        return lt, eq
    a_nan, b_nan = cmp("NE", a, a), cmp("NE", b, b)
    a_num = ctx.op(f"stablehlo.not {a_nan} : {bt}")
    lt = ctx.op(f"stablehlo.or {lt}, {ctx.op(f'stablehlo.and {a_num}, {b_nan} : {bt}')} : {bt}")
    eq = ctx.op(f"stablehlo.or {eq}, {ctx.op(f'stablehlo.and {a_nan}, {b_nan} : {bt}')} : {bt}")
    return lt, eq


def less_than(ctx, lhs: list, rhs: list, scalars: list) -> str:
    """The comparator's result: lhs < rhs in the lexicographic order of the keys."""
    bt = ctx.type(_BOOL)
    orders = []
    for a, b, s in zip(lhs, rhs, scalars, strict=True):
        for (pa, ps), (pb, _) in zip(_key_parts(ctx, a, s), _key_parts(ctx, b, s), strict=True):
            orders.append(_order(ctx, pa, pb, ps))
    out = orders[-1][0]
    for lt, eq in reversed(orders[:-1]):
        out = ctx.op(f"stablehlo.or {lt}, {ctx.op(f'stablehlo.and {eq}, {out} : {bt}')} : {bt}")
    return out


@sort_p.def_lowering
def _sort(ctx, *xs, dimension, is_stable, num_keys):
    scalars = [Aval((), a.dtype) for a in ctx.avals_in]
    arg_avals = [s for s in scalars for _ in (0, 1)]

    def body(args):
        lhs, rhs = args[0::2][:num_keys], args[1::2][:num_keys]
        return [less_than(ctx, lhs, rhs, scalars[:num_keys])], [_BOOL]

    region = ctx.region(body, arg_avals)
    types = ", ".join(ctx.type(a) for a in ctx.avals_in)
    stable = "true" if is_stable else "false"
    return ctx.op_results(f'"stablehlo.sort"({", ".join(xs)}) <{{dimension = {dimension} : i64, '
                          f'is_stable = {stable}}}> ({region}) : ({types}) -> ({types})', len(xs))


def _transpose(ctx, x, aval, perm) -> str:
    out = Aval(tuple(aval.shape[p] for p in perm), aval.dtype)
    return ctx.op(f"stablehlo.transpose {x}, dims = [{ints(perm)}] : ({ctx.type(aval)}) -> "
                  f"{ctx.type(out)}")


@top_k_p.def_lowering
def _top_k(ctx, x, *, k, axis):
    a = ctx.avals_in[0]
    last = a.ndim - 1
    perm = list(range(a.ndim))
    perm[axis], perm[last] = last, axis  # a swap: its own inverse
    if axis != last:
        x = _transpose(ctx, x, a, perm)
        a = Aval(tuple(a.shape[p] for p in perm), a.dtype)
    outs = [Aval(a.shape[:-1] + (k,), o.dtype) for o in ctx.avals_out]
    vals, idx = ctx.op_results(f"chlo.top_k({x}, k = {k}) : {ctx.type(a)} -> "
                               f"({ctx.type(outs[0])}, {ctx.type(outs[1])})", 2)
    if axis == last:
        return [vals, idx]
    return [_transpose(ctx, vals, outs[0], perm), _transpose(ctx, idx, outs[1], perm)]
