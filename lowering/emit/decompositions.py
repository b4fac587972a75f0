"""Lowering rules of the decompositions: the LAPACK kernels jaxlib registers for the CPU
as XLA FFI custom calls (``lapack_<s|d|c|z><routine>_ffi``). The matrices cross the
call in column-major layout (``operand_layouts``/``result_layouts``: XLA transposes where
needed), the leading axes are the kernels' batch; the kernels' status output becomes NaNs
in the results of failed problems (as JAX's), and the factors are masked to their
triangles. The reference interpreter cannot run these (native code)."""
from __future__ import annotations

import numpy as np

from frontend import dtypes
from frontend.core import Aval
from frontend.primitives import decompositions as dc

from .shape import ints

_PREFIX = {np.dtype(np.float32): "s", np.dtype(np.float64): "d",
           np.dtype(np.complex64): "c", np.dtype(np.complex128): "z"}
_BOOL = np.dtype(np.bool_)
_I32 = np.dtype(np.int32)


def _layout(aval: Aval, rank: int) -> str:
    """Minor-to-major layout: column-major matrices for operands of the problem's full rank
    (batch axes major), row-major for the others."""
    n = aval.ndim
    if n == rank and n >= 2:
        order = (n - 2, n - 1) + tuple(range(n - 3, -1, -1))
    else:
        order = tuple(range(n - 1, -1, -1))
    return f"dense<[{ints(order)}]> : tensor<{n}xindex>" if n else "dense<> : tensor<0xindex>"


def _char(c: str) -> str:
    return f"{ord(c)} : ui8"


def lapack(ctx, routine: str, operands, in_avals, out_avals, attrs=None, aliases=None) -> list:
    """One custom call of the LAPACK kernel ``routine`` (e.g. 'getrf') for the dtype of the
    first operand; ``attrs`` name -> MLIR attribute text, ``aliases`` result -> operand
    index (the kernel writes that result over that operand)."""
    target = f"lapack_{_PREFIX[np.dtype(in_avals[0].dtype)]}{routine}_ffi"
    rank = max(a.ndim for a in in_avals)
    config = ", ".join(f"{k} = {v}" for k, v in (attrs or {}).items())
    multi = len(out_avals) > 1
    alias = ", ".join(
        f"#stablehlo.output_operand_alias<output_tuple_indices = [{o if multi else ''}], "
        f"operand_index = {i}, operand_tuple_indices = []>" for o, i in (aliases or {}).items())
    fields = ["api_version = 4 : i32", f"backend_config = {{{config}}}",
              f"operand_layouts = [{', '.join(_layout(a, rank) for a in in_avals)}]",
              f"result_layouts = [{', '.join(_layout(a, rank) for a in out_avals)}]"]
    if alias:
        fields.append(f"output_operand_aliases = [{alias}]")
    ins = ", ".join(ctx.type(a) for a in in_avals)
    outs = [ctx.type(a) for a in out_avals]
    res = outs[0] if not multi else f"({', '.join(outs)})"
    return ctx.op_results(f"stablehlo.custom_call @{target}({', '.join(operands)}) "
                          f"{{{', '.join(fields)}}} : ({ins}) -> {res}", len(out_avals))


def _bcast(ctx, x, in_aval: Aval, out_aval: Aval) -> str:
    """x (of a leading-axes shape) broadcast along the trailing axes of ``out_aval``."""
    return ctx.broadcast(x, in_aval, out_aval.shape, tuple(range(in_aval.ndim)))


def _ok(ctx, info, batch: tuple, direction: str = "EQ") -> str:
    """info <direction> 0 per problem (i1 of the batch shape)."""
    ia = Aval(batch, _I32)
    zero = ctx.broadcast(ctx.constant(0, Aval((), _I32)), Aval((), _I32), batch, ())
    return ctx.op(f"stablehlo.compare {direction}, {info}, {zero}, SIGNED : ({ctx.type(ia)}, "
                  f"{ctx.type(ia)}) -> {ctx.type(Aval(batch, _BOOL))}")


def _nan_unless(ctx, ok, batch: tuple, x, aval: Aval) -> str:
    """x where its problem succeeded, NaN (of x's dtype) elsewhere."""
    s = Aval((), aval.dtype)
    nan = ctx.broadcast(ctx.constant(complex(np.nan, np.nan) if dtypes.is_complex(aval.dtype)
                                     else np.nan, s), s, aval.shape, ())
    mask = _bcast(ctx, ok, Aval(batch, _BOOL), Aval(aval.shape, _BOOL))
    return ctx.op(f"stablehlo.select {mask}, {x}, {nan} : {ctx.type(Aval(aval.shape, _BOOL))}, "
                  f"{ctx.type(aval)}")


def triangle(ctx, x, aval: Aval, lower: bool, k: int = 0) -> str:
    """x with the elements outside its lower (j <= i + k) or upper (j >= i + k) triangle
    zeroed, over the trailing two axes."""
    shp = aval.shape
    it = Aval(shp[-2:], _I32)
    rows = ctx.op(f"stablehlo.iota dim = 0 : {ctx.type(it)}")
    cols = ctx.op(f"stablehlo.iota dim = 1 : {ctx.type(it)}")
    if k:
        kk = ctx.broadcast(ctx.constant(k, Aval((), _I32)), Aval((), _I32), it.shape, ())
        rows = ctx.op(f"stablehlo.add {rows}, {kk} : {ctx.type(it)}")
    keep = ctx.op(f"stablehlo.compare {'GE' if lower else 'LE'}, {rows}, {cols}, SIGNED : "
                  f"({ctx.type(it)}, {ctx.type(it)}) -> {ctx.type(Aval(it.shape, _BOOL))}")
    if len(shp) > 2:
        keep = ctx.broadcast(keep, Aval(it.shape, _BOOL), shp, (len(shp) - 2, len(shp) - 1))
    s = Aval((), aval.dtype)
    zero = ctx.broadcast(ctx.constant(0, s), s, shp, ())
    return ctx.op(f"stablehlo.select {keep}, {x}, {zero} : {ctx.type(Aval(shp, _BOOL))}, "
                  f"{ctx.type(aval)}")


@dc.cholesky_p.def_lowering
def _cholesky(ctx, x):
    (a,) = ctx.avals_in
    batch = a.shape[:-2]
    info_a = Aval(batch, _I32)
    factor, info = lapack(ctx, "potrf", [x], [a], [a, info_a], {"uplo": _char("L")}, {0: 0})
    return [triangle(ctx, _nan_unless(ctx, _ok(ctx, info, batch), batch, factor, a), a, True)]


@dc.lu_p.def_lowering
def _lu(ctx, x):
    (a,) = ctx.avals_in
    batch = a.shape[:-2]
    piv_a = ctx.avals_out[1]
    lu, ipiv, info = lapack(ctx, "getrf", [x], [a], [a, piv_a, Aval(batch, _I32)], None, {0: 0})
    one = ctx.broadcast(ctx.constant(1, Aval((), _I32)), Aval((), _I32), piv_a.shape, ())
    pivots = ctx.op(f"stablehlo.subtract {ipiv}, {one} : {ctx.type(piv_a)}")  # 1-based -> 0
    # info > 0 is an exactly singular U (still a factorization); < 0 a bad argument
    return [_nan_unless(ctx, _ok(ctx, info, batch, "GE"), batch, lu, a), pivots]


@dc.geqrf_p.def_lowering
def _geqrf(ctx, x):
    (a,) = ctx.avals_in
    return lapack(ctx, "geqrf", [x], [a], list(ctx.avals_out), None, {0: 0})


@dc.householder_product_p.def_lowering
def _householder_product(ctx, a, taus):
    aa, ta = ctx.avals_in
    routine = "ungqr" if dtypes.is_complex(aa.dtype) else "orgqr"
    return lapack(ctx, routine, [a, taus], [aa, ta], [aa], None, {0: 0})


@dc.eigh_p.def_lowering
def _eigh(ctx, x, *, lower=True):
    (a,) = ctx.avals_in
    batch = a.shape[:-2]
    w_a = ctx.avals_out[1]
    routine = "heevd" if dtypes.is_complex(a.dtype) else "syevd"
    v, w, info = lapack(ctx, routine, [x], [a], [a, w_a, Aval(batch, _I32)],
                        {"mode": _char("V"), "uplo": _char("L" if lower else "U")}, {0: 0})
    ok = _ok(ctx, info, batch)
    return [_nan_unless(ctx, ok, batch, v, a), _nan_unless(ctx, ok, batch, w, w_a)]


@dc.svd_p.def_lowering
def _svd(ctx, x, *, full_matrices, compute_uv):
    (a,) = ctx.avals_in
    batch = a.shape[:-2]
    m, n = a.shape[-2:]
    s_a = ctx.avals_out[0]
    if compute_uv:
        mode = "A" if full_matrices else "S"
        u_a, vt_a = ctx.avals_out[1:]
    else:  # the kernel still takes (unwritten) square u and vt buffers
        mode = "N"
        u_a, vt_a = Aval(batch + (m, m), a.dtype), Aval(batch + (n, n), a.dtype)
    _, s, u, vt, info = lapack(ctx, "gesdd", [x], [a], [a, s_a, u_a, vt_a, Aval(batch, _I32)],
                               {"mode": _char(mode)}, {0: 0})
    ok = _ok(ctx, info, batch)
    outs = [_nan_unless(ctx, ok, batch, s, s_a)]
    if compute_uv:
        outs += [_nan_unless(ctx, ok, batch, u, u_a), _nan_unless(ctx, ok, batch, vt, vt_a)]
    return outs


@dc.triangular_solve_p.def_lowering
def _triangular_solve(ctx, a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    aa, ba = ctx.avals_in
    trans = ("C" if conjugate_a else "T") if transpose_a else "N"
    if conjugate_a and not transpose_a and dtypes.is_complex(aa.dtype):
        # the kernel conjugates only with the transpose: conj(a) explicitly
        part = Aval(aa.shape, np.finfo(aa.dtype).dtype)
        re = ctx.op(f"stablehlo.real {a} : ({ctx.type(aa)}) -> {ctx.type(part)}")
        im = ctx.op(f"stablehlo.imag {a} : ({ctx.type(aa)}) -> {ctx.type(part)}")
        im = ctx.op(f"stablehlo.negate {im} : {ctx.type(part)}")
        a = ctx.op(f"stablehlo.complex {re}, {im} : {ctx.type(aa)}")
    attrs = {"side": _char("L" if left_side else "R"), "uplo": _char("L" if lower else "U"),
             "trans_x": _char(trans), "diag": _char("U" if unit_diagonal else "N")}
    return lapack(ctx, "trsm", [a, b], [aa, ba], [ba], attrs, {0: 1})


@dc.qr_p.def_lowering
def _qr(ctx, x, *, full_matrices):
    # geqrf, then householder_product: two LAPACK calls
    return ctx.lower_fun(dc.qr_by_householder, [x], full_matrices=full_matrices)
