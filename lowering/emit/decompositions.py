"""Lowering rules of the decompositions: the LAPACK kernels jaxlib registers for the CPU
as XLA FFI custom calls (``lapack_<s|d|c|z><routine>_ffi``). The matrices cross the
call in column-major layout (``operand_layouts``/``result_layouts``: XLA transposes where
needed), the leading axes are the kernels' batch; the kernels' status output becomes NaNs
in the results of failed problems (as JAX's), and the factors are masked to their
triangles. The reference interpreter cannot run these (native code)."""
from __future__ import annotations

import numpy as np

from frontend.core import dtypes
from frontend.core.ir import Aval
from frontend.primitives import decompositions as dc

from . import dims
from .shape import ints

_PREFIX = {np.dtype(np.float32): "s", np.dtype(np.float64): "d",
           np.dtype(np.complex64): "c", np.dtype(np.complex128): "z"}
_BOOL = np.dtype(np.bool_)
_I32 = np.dtype(np.int32)


def _char(c: str) -> str:
    return f"{ord(c)} : ui8"


# ----------------------------------------------------------------------------- the kernels' types
# One rule per LAPACK routine: which dtypes it takes (one letter of _PREFIX each), its
# attributes (name -> the letters it may be), the result types its kernel writes for operand
# types (a ValueError when the kernel cannot take them), and which operand each result
# overwrites. ``lapack`` emits calls from these rules and lowering.custom_calls checks calls
# in modules from elsewhere against them: the kernels trust these types (a result smaller
# than the kernel writes is a heap overflow).


def _matrix(a: Aval, what: str = "operand") -> tuple:
    if a.ndim < 2:
        raise ValueError(f"the {what} must be a (batch of) matrices, got {a.str_short()}")
    return a.shape[:-2], a.shape[-2], a.shape[-1]


def _square(a: Aval, what: str = "operand") -> tuple:
    batch, m, n = _matrix(a, what)
    if m != n:
        raise ValueError(f"the {what} must be square, got {a.str_short()}")
    return batch, n


def _real(a: Aval) -> np.dtype:
    return np.finfo(a.dtype).dtype


def _potrf(ins, attrs):
    (a,) = ins
    batch, _ = _square(a)
    return [a, Aval(batch, _I32)]


def _getrf(ins, attrs):
    (a,) = ins
    batch, m, n = _matrix(a)
    return [a, Aval(batch + (min(m, n),), _I32), Aval(batch, _I32)]


def _geqrf(ins, attrs):
    (a,) = ins
    batch, m, n = _matrix(a)
    return [a, Aval(batch + (min(m, n),), a.dtype)]


def _orgqr(ins, attrs):
    a, taus = ins
    batch, m, n = _matrix(a)
    if not m >= n or taus.shape[:-1] != batch or taus.ndim != a.ndim - 1 or taus.shape[-1] > n:
        raise ValueError(f"the operands must be a (..., m, n) matrix with m >= n and (..., k) "
                         f"factors with k <= n, got {a.str_short()} and {taus.str_short()}")
    return [a]


def _syevd(ins, attrs):
    (a,) = ins
    batch, n = _square(a)
    return [a, Aval(batch + (n,), _real(a)), Aval(batch, _I32)]


def _geev(ins, attrs):
    (a,) = ins
    batch, n = _square(a)
    c = dc.complex_dtype(a.dtype)
    values = [Aval(batch + (n,), a.dtype)] * 2 if not dtypes.is_complex(a.dtype) else \
        [Aval(batch + (n,), a.dtype)]  # real kernels: real and imaginary parts
    return values + [Aval(batch + (n, n), c)] * 2 + [Aval(batch, _I32)]


def _gesdd(ins, attrs):
    (a,) = ins
    batch, m, n = _matrix(a)
    k = min(m, n)
    u, vt = ((m, k), (k, n)) if attrs.get("mode") == ord("S") else ((m, m), (n, n))
    return [a, Aval(batch + (k,), _real(a)), Aval(batch + u, a.dtype), Aval(batch + vt, a.dtype),
            Aval(batch, _I32)]


def _trsm(ins, attrs):
    a, b = ins
    batch, k = _square(a, "triangular matrix")
    b_batch, m, n = _matrix(b, "right-hand side")
    if b_batch != batch or k != (m if attrs.get("side") == ord("L") else n):
        raise ValueError(f"the triangular matrix {a.str_short()} does not fit the right-hand side "
                         f"{b.str_short()} (side {chr(attrs.get('side', 32))!r})")
    return [b]


def _gees(ins, attrs):
    (a,) = ins
    batch, n = _square(a)
    values = [Aval(batch + (n,), a.dtype)] * (1 if dtypes.is_complex(a.dtype) else 2)  # (wr, wi)
    return [a, a] + values + [Aval(batch, _I32)] * 2  # t, vs, eigenvalues, sdim, info


def _gehrd(ins, attrs):
    (a,) = ins
    batch, n = _square(a)
    return [a, Aval(batch + (max(n - 1, 0),), a.dtype), Aval(batch, _I32)]


def _gtsv(ins, attrs):
    dl, d, du, b = ins
    b_batch, m, _ = _matrix(b, "right-hand side")
    if not dl.shape == d.shape == du.shape == b_batch + (m,):
        raise ValueError(f"the diagonals must be (..., m) for a (..., m, n) right-hand side, got "
                         f"{dl.str_short()}, {d.str_short()}, {du.str_short()} and {b.str_short()}")
    return [dl, d, du, b, Aval(b_batch, _I32)]


class Routine:
    """A kernel's rule: its dtype prefixes, operand count, attributes (name -> the letters
    of a ui8 attribute, or ``int`` for an i32 one), result types, aliases."""
    __slots__ = ("prefixes", "operands", "attrs", "results", "aliases")

    def __init__(self, prefixes, operands, attrs, results, aliases):
        self.prefixes, self.operands, self.attrs = prefixes, operands, attrs
        self.results, self.aliases = results, aliases


ROUTINES = {
    "potrf": Routine("sdcz", 1, {"uplo": "LU"}, _potrf, {0: 0}),
    "getrf": Routine("sdcz", 1, {}, _getrf, {0: 0}),
    "geqrf": Routine("sdcz", 1, {}, _geqrf, {0: 0}),
    "orgqr": Routine("sd", 2, {}, _orgqr, {0: 0}),
    "ungqr": Routine("cz", 2, {}, _orgqr, {0: 0}),
    "syevd": Routine("sd", 1, {"mode": "V", "uplo": "LU"}, _syevd, {0: 0}),
    "heevd": Routine("cz", 1, {"mode": "V", "uplo": "LU"}, _syevd, {0: 0}),
    "gesdd": Routine("sdcz", 1, {"mode": "ASN"}, _gesdd, {0: 0}),
    "gtsv": Routine("sdcz", 4, {}, _gtsv, {0: 0, 1: 1, 2: 2, 3: 3}),
    "geev": Routine("sdcz", 1, {"compute_left": "NV", "compute_right": "NV"}, _geev, {}),
    "gees": Routine("sdcz", 1, {"mode": "NV", "sort": "NS"}, _gees, {0: 0}),
    "gehrd": Routine("sdcz", 1, {"low": int, "high": int}, _gehrd, {0: 0}),
    "trsm": Routine("sdcz", 2, {"side": "LR", "uplo": "LU", "trans_x": "NTC", "diag": "UN"}, _trsm,
                    {0: 1}),
}
DTYPE_OF_PREFIX = {v: k for k, v in _PREFIX.items()}


def target_name(routine: str, dtype) -> str:
    return f"lapack_{_PREFIX[np.dtype(dtype)]}{routine}_ffi"


def layout(aval: Aval, rank: int) -> tuple:
    """Minor-to-major layout: column-major matrices for operands of the problem's full rank
    (batch axes major), row-major for the others."""
    n = aval.ndim
    if n == rank and n >= 2:
        return (n - 2, n - 1) + tuple(range(n - 3, -1, -1))
    return tuple(range(n - 1, -1, -1))


def _layout(aval: Aval, rank: int) -> str:
    n = aval.ndim
    return f"dense<[{ints(layout(aval, rank))}]> : tensor<{n}xindex>" if n else \
        "dense<> : tensor<0xindex>"


def lapack(ctx, routine: str, operands, in_avals, attrs=None) -> list:
    """One custom call of the LAPACK kernel ``routine`` (e.g. 'getrf') for the dtype of the
    first operand; ``attrs`` name -> letter (an int for an i32 attribute). Its results are
    the routine's rule's (the kernel writes result ``o`` over operand ``aliases[o]``)."""
    rule = ROUTINES[routine]
    attrs = attrs or {}
    out_avals = rule.results(in_avals, {k: v if isinstance(v, int) else ord(v)
                                        for k, v in attrs.items()})
    target = target_name(routine, in_avals[0].dtype)
    rank = max(a.ndim for a in in_avals)
    config = ", ".join(f"{k} = {v} : i32" if isinstance(v, int) else f"{k} = {_char(v)}"
                       for k, v in attrs.items())
    multi = len(out_avals) > 1
    alias = ", ".join(
        f"#stablehlo.output_operand_alias<output_tuple_indices = [{o if multi else ''}], "
        f"operand_index = {i}, operand_tuple_indices = []>" for o, i in rule.aliases.items())
    fields = ["api_version = 4 : i32", f"backend_config = {{{config}}}",
              f"operand_layouts = [{', '.join(_layout(a, rank) for a in in_avals)}]",
              f"result_layouts = [{', '.join(_layout(a, rank) for a in out_avals)}]",
              f"output_operand_aliases = [{alias}]"]
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
    rows, cols = dims.iota(ctx, it, 0), dims.iota(ctx, it, 1)
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


def cholesky_rule(potrf):
    """The rule of cholesky from a kernel ``potrf(ctx, x, aval) -> (factor, info)`` (the
    lower factor; info 0 where a problem succeeded): failed problems NaN, the factor masked
    to its lower triangle."""
    def rule(ctx, x):
        (a,) = ctx.avals_in
        batch = a.shape[:-2]
        factor, info = potrf(ctx, x, a)
        return [triangle(ctx, _nan_unless(ctx, _ok(ctx, info, batch), batch, factor, a), a, True)]
    return rule


def lu_rule(getrf):
    """The rule of lu from a kernel ``getrf(ctx, x, aval) -> (lu, 1-based pivots, info)``."""
    def rule(ctx, x):
        (a,) = ctx.avals_in
        batch = a.shape[:-2]
        piv_a = ctx.avals_out[1]
        lu, ipiv, info = getrf(ctx, x, a)
        one = ctx.broadcast(ctx.constant(1, Aval((), _I32)), Aval((), _I32), piv_a.shape, ())
        pivots = ctx.op(f"stablehlo.subtract {ipiv}, {one} : {ctx.type(piv_a)}")  # 1-based -> 0
        # info > 0 is an exactly singular U (still a factorization); < 0 a bad argument
        return [_nan_unless(ctx, _ok(ctx, info, batch, "GE"), batch, lu, a), pivots]
    return rule


def eigh_rule(syevd):
    """The rule of eigh from a kernel ``syevd(ctx, x, aval, lower) -> (v, w, info)``."""
    def rule(ctx, x, *, lower=True):
        (a,) = ctx.avals_in
        batch = a.shape[:-2]
        v, w, info = syevd(ctx, x, a, lower)
        ok = _ok(ctx, info, batch)
        return [_nan_unless(ctx, ok, batch, v, a), _nan_unless(ctx, ok, batch, w, ctx.avals_out[1])]
    return rule


dc.cholesky_p.def_lowering(cholesky_rule(
    lambda ctx, x, a: lapack(ctx, "potrf", [x], [a], {"uplo": "L"})))
dc.lu_p.def_lowering(lu_rule(lambda ctx, x, a: lapack(ctx, "getrf", [x], [a])))
dc.eigh_p.def_lowering(eigh_rule(lambda ctx, x, a, lower: lapack(
    ctx, "heevd" if dtypes.is_complex(a.dtype) else "syevd", [x], [a],
    {"mode": "V", "uplo": "L" if lower else "U"})))


@dc.geqrf_p.def_lowering
def _geqrf(ctx, x):
    (a,) = ctx.avals_in
    return lapack(ctx, "geqrf", [x], [a])


@dc.householder_product_p.def_lowering
def _householder_product(ctx, a, taus):
    aa, ta = ctx.avals_in
    routine = "ungqr" if dtypes.is_complex(aa.dtype) else "orgqr"
    return lapack(ctx, routine, [a, taus], [aa, ta])


@dc.eig_p.def_lowering
def _eig(ctx, x, *, compute_left=True, compute_right=True, enable_eigvec_derivs=False):
    (a,) = ctx.avals_in
    outs = lapack(ctx, "geev", [x], [a], {"compute_left": "V" if compute_left else "N",
                                           "compute_right": "V" if compute_right else "N"})
    return eig_results(ctx, outs, compute_left, compute_right)


def eig_results(ctx, outs, compute_left: bool, compute_right: bool) -> list:
    """eig's results from a kernel's (eigenvalues as w, or as wr and wi for a real matrix;
    left and right eigenvectors; info): NaN where the kernel failed."""
    (a,) = ctx.avals_in
    batch = a.shape[:-2]
    w_a = ctx.avals_out[0]
    *values, vl, vr, info = outs
    if len(values) == 2:  # real kernels: w = wr + i wi
        values = [ctx.op(f"stablehlo.complex {values[0]}, {values[1]} : {ctx.type(w_a)}")]
    ok = _ok(ctx, info, batch)
    vec_a = Aval(a.shape, w_a.dtype)
    res = [_nan_unless(ctx, ok, batch, values[0], w_a)]
    if compute_left:
        res.append(_nan_unless(ctx, ok, batch, vl, vec_a))
    if compute_right:
        res.append(_nan_unless(ctx, ok, batch, vr, vec_a))
    return res


@dc.schur_p.def_lowering
def _schur(ctx, x):
    (a,) = ctx.avals_in
    batch = a.shape[:-2]
    t, vs, *_, info = lapack(ctx, "gees", [x], [a], {"mode": "V", "sort": "N"})
    ok = _ok(ctx, info, batch)
    return [_nan_unless(ctx, ok, batch, t, a), _nan_unless(ctx, ok, batch, vs, a)]


@dc.hessenberg_p.def_lowering
def _hessenberg(ctx, x):
    (a,) = ctx.avals_in
    batch = a.shape[:-2]
    packed, taus, info = lapack(ctx, "gehrd", [x], [a], {"low": 1, "high": a.shape[-1]})
    ok = _ok(ctx, info, batch)
    return [_nan_unless(ctx, ok, batch, packed, a), _nan_unless(ctx, ok, batch, taus, ctx.avals_out[1])]


def _cpu_only(name: str, platform: str):
    def rule(ctx, *args, **params):
        raise NotImplementedError(f"MLIR translation rule for primitive '{name}' not found for "
                                  f"platform {platform} (as JAX: a CPU LAPACK kernel only)")
    return rule


for _p in ("cuda", "rocm", "tpu"):
    dc.schur_p.def_lowering(_cpu_only("schur", _p), platform=_p)
    dc.hessenberg_p.def_lowering(_cpu_only("hessenberg", _p), platform=_p)


@dc.svd_p.def_lowering
def _svd(ctx, x, *, full_matrices, compute_uv):
    (a,) = ctx.avals_in
    batch = a.shape[:-2]
    m, n = a.shape[-2:]
    s_a = ctx.avals_out[0]
    # mode N: the kernel still takes (unwritten) square u and vt buffers
    mode = ("A" if full_matrices else "S") if compute_uv else "N"
    _, s, u, vt, info = lapack(ctx, "gesdd", [x], [a], {"mode": mode})
    ok = _ok(ctx, info, batch)
    outs = [_nan_unless(ctx, ok, batch, s, s_a)]
    if compute_uv:
        u_a, vt_a = ctx.avals_out[1:]
        outs += [_nan_unless(ctx, ok, batch, u, u_a), _nan_unless(ctx, ok, batch, vt, vt_a)]
    return outs


def conj_unless_transposed(ctx, a, aa: Aval, transpose_a: bool, conjugate_a: bool) -> str:
    """conj(a) when conjugate_a asks for it without a transpose (the kernels conjugate only
    with the transpose), else a."""
    if not (conjugate_a and not transpose_a and dtypes.is_complex(aa.dtype)):
        return a
    part = Aval(aa.shape, np.finfo(aa.dtype).dtype)
    re = ctx.op(f"stablehlo.real {a} : ({ctx.type(aa)}) -> {ctx.type(part)}")
    im = ctx.op(f"stablehlo.imag {a} : ({ctx.type(aa)}) -> {ctx.type(part)}")
    im = ctx.op(f"stablehlo.negate {im} : {ctx.type(part)}")
    return ctx.op(f"stablehlo.complex {re}, {im} : {ctx.type(aa)}")


@dc.triangular_solve_p.def_lowering
def _triangular_solve(ctx, a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    aa, ba = ctx.avals_in
    trans = ("C" if conjugate_a else "T") if transpose_a else "N"
    a = conj_unless_transposed(ctx, a, aa, transpose_a, conjugate_a)
    attrs = {"side": "L" if left_side else "R", "uplo": "L" if lower else "U",
             "trans_x": trans, "diag": "U" if unit_diagonal else "N"}
    return lapack(ctx, "trsm", [a, b], [aa, ba], attrs)


@dc.qr_p.def_lowering
def _qr(ctx, x, *, full_matrices):
    # geqrf, then householder_product: two LAPACK calls
    return ctx.lower_fun(dc.qr_by_householder, [x], full_matrices=full_matrices)


@dc.lu_pivots_to_permutation_p.def_lowering
def _lu_pivots_to_permutation(ctx, pivots, *, permutation_size):
    return [ctx.lower_fun(dc.pivots_to_permutation, [pivots], m=permutation_size)[0]]


@dc.tridiagonal_solve_p.def_lowering
def _tridiagonal_solve(ctx, dl, d, du, b):
    ba = ctx.avals_in[3]
    batch = ba.shape[:-2]
    *_, x, info = lapack(ctx, "gtsv", [dl, d, du, b], list(ctx.avals_in))
    return [_nan_unless(ctx, _ok(ctx, info, batch), batch, x, ba)]

