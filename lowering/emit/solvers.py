"""Lowering rules of the decompositions on GPUs and TPUs, as JAX lowers them (the CPU rules,
LAPACK kernels, are the defaults in decompositions.py):

- cuda / rocm: the cuSOLVER / hipSOLVER kernels jaxlib's GPU plugins register as XLA FFI
  targets (``cusolver_potrf_ffi``, ``hipsolver_getrf_ffi``, ..., ``cu_lu_pivots_to_permutation``),
  with JAX's operand layouts (column-major matrices, batch axes major), attributes
  (``mhlo.backend_config``) and aliases; their status output becomes NaNs as on the CPU;
- tpu: ``stablehlo.cholesky``, and the TPU compiler's custom calls ``LuDecomposition``,
  ``Qr``, ``ProductOfElementaryHouseholderReflectors`` and ``Eigh``; the SVD is an algorithm
  over them (QR, then eigh of the Gram matrix of R, then a QR of R V for U);
- triangular_solve is ``stablehlo.triangular_solve`` everywhere but the CPU.

Nothing here runs on this host (no GPU or TPU): tests/test_platforms.py checks that each
module verifies and makes the custom calls JAX's lowering makes."""
from __future__ import annotations

import functools

import numpy as np

from frontend import lax
from frontend.core import dtypes
from frontend.core.ir import Aval, aval_of
from frontend.lax import linalg as lin
from frontend.primitives import decompositions as dc

from .decompositions import (
    _layout,
    _nan_unless,
    _ok,
    cholesky_rule,
    conj_unless_transposed,
    eig_results,
    eigh_rule,
    lu_rule,
    triangle,
)

_I32 = np.dtype(np.int32)
GPUS = {"cuda": "cu", "rocm": "hip"}  # platform -> the prefix of jaxlib's GPU targets


def _aliases(aliases: dict, multi: bool) -> str:
    return ", ".join(
        f"#stablehlo.output_operand_alias<output_tuple_indices = [{o if multi else ''}], "
        f"operand_index = {i}, operand_tuple_indices = []>" for o, i in aliases.items())


def gpu_call(ctx, target: str, operands, in_avals, out_avals, *, attrs: str = "",
             aliases=None, batch_dims: int = 0, column_major: bool = True) -> list:
    """One custom call of a jaxlib GPU FFI kernel in JAX's form: attributes in
    ``mhlo.backend_config``, matrices column-major (batch axes major; row-major without
    ``column_major``), result ``o`` written over operand ``aliases[o]``."""
    rank = max(a.ndim for a in in_avals) if column_major else -1
    multi = len(out_avals) > 1
    fields = ['backend_config = ""', f"mhlo.backend_config = {{{attrs}}}",
              f'mhlo.frontend_attributes = {{num_batch_dims = "{batch_dims}"}}',
              f"operand_layouts = [{', '.join(_layout(a, rank) for a in in_avals)}]"]
    if aliases:
        fields.append(f"output_operand_aliases = [{_aliases(aliases, multi)}]")
    fields.append(f"result_layouts = [{', '.join(_layout(a, rank) for a in out_avals)}]")
    outs = [ctx.type(a) for a in out_avals]
    res = f"({', '.join(outs)})" if multi else outs[0]
    return ctx.op_results(f"stablehlo.custom_call @{target}({', '.join(operands)}) "
                          f"{{{', '.join(fields)}}} : ({', '.join(ctx.type(a) for a in in_avals)})"
                          f" -> {res}", len(out_avals))


def _solver(platform: str, routine: str) -> str:
    return f"{GPUS[platform]}solver_{routine}_ffi"


def _info(a: Aval) -> Aval:
    return Aval(a.shape[:-2], _I32)


# ----------------------------------------------------------------------------- GPUs


def _gpu_potrf(platform, ctx, x, a):
    return gpu_call(ctx, _solver(platform, "potrf"), [x], [a], [a, _info(a)],
                    attrs="lower = true", aliases={0: 0}, batch_dims=a.ndim - 2)


def _gpu_getrf(platform, ctx, x, a):
    piv = Aval(a.shape[:-2] + (min(a.shape[-2:]),), _I32)
    return gpu_call(ctx, _solver(platform, "getrf"), [x], [a], [a, piv, _info(a)],
                    aliases={0: 0}, batch_dims=a.ndim - 2)


def _gpu_syevd(platform, ctx, x, a, lower):
    w = Aval(a.shape[:-1], np.finfo(a.dtype).dtype)
    return gpu_call(ctx, _solver(platform, "syevd"), [x], [a], [a, w, _info(a)],
                    attrs=f"algorithm = 0 : ui8, lower = {str(bool(lower)).lower()}",
                    aliases={0: 0}, batch_dims=a.ndim - 2)


def _gpu_geqrf(platform, ctx, x):
    (a,) = ctx.avals_in
    return gpu_call(ctx, _solver(platform, "geqrf"), [x], [a], list(ctx.avals_out),
                    aliases={0: 0}, batch_dims=a.ndim - 2)


def _gpu_orgqr(platform, ctx, a, taus):
    aa, ta = ctx.avals_in
    return gpu_call(ctx, _solver(platform, "orgqr"), [a, taus], [aa, ta], [aa],
                    aliases={0: 0}, batch_dims=aa.ndim - 2)


def _gpu_pivots_to_permutation(platform, ctx, pivots, *, permutation_size):
    (pa,) = ctx.avals_in
    if pa.dtype != _I32:  # (the kernel takes int32 pivots)
        return dc.lu_pivots_to_permutation_p.lowering_rule(
            ctx, pivots, permutation_size=permutation_size)
    return gpu_call(ctx, f"{GPUS[platform]}_lu_pivots_to_permutation", [pivots], [pa],
                    [ctx.avals_out[0]], batch_dims=pa.ndim - 1)


def _gpu_svd(platform, ctx, x, *, full_matrices, compute_uv):
    """gesvdj up to 1024 x 1024 (JAX's choice): U and V always allocated, V transposed (and
    conjugated) into vt, sliced for the reduced form; gesvd beyond."""
    (a,) = ctx.avals_in
    batch = a.shape[:-2]
    nb = len(batch)
    m, n = a.shape[-2:]
    k = min(m, n)
    if m > 1024 or n > 1024:
        return _gpu_gesvd(platform, ctx, x, full_matrices=full_matrices, compute_uv=compute_uv)
    econ = not full_matrices and m > 32 and n > 32
    s_a = Aval(batch + (k,), np.finfo(a.dtype).dtype)
    u_a = Aval(batch + (m, k if econ else m), a.dtype)
    v_a = Aval(batch + (n, k if econ else n), a.dtype)
    attrs = f"compute_uv = {str(compute_uv).lower()}, full_matrices = {str(not econ).lower()}"
    _, s, u, v, info = gpu_call(ctx, _solver(platform, "gesvdj"), [x], [a],
                                [a, s_a, u_a, v_a, info_a := _info(a)], attrs=attrs,
                                aliases={0: 0}, batch_dims=nb)
    ok = _ok(ctx, info, info_a.shape)
    outs = [_nan_unless(ctx, ok, batch, s, s_a)]
    if not compute_uv:
        return outs
    vt_a = Aval(batch + v_a.shape[-2:][::-1], a.dtype)
    perm = ", ".join(map(str, tuple(range(nb)) + (nb + 1, nb)))
    vt = ctx.op(f"stablehlo.transpose {v}, dims = [{perm}] : ({ctx.type(v_a)}) -> "
                f"{ctx.type(vt_a)}")
    if dtypes.is_complex(a.dtype):
        vt = conj_unless_transposed(ctx, vt, vt_a, False, True)
    want_u, want_vt = ctx.avals_out[1:]
    if want_u.shape != u_a.shape:
        u = _leading_block(ctx, u, u_a, want_u)
        vt = _leading_block(ctx, vt, vt_a, want_vt)
    return outs + [_nan_unless(ctx, ok, batch, u, want_u), _nan_unless(ctx, ok, batch, vt, want_vt)]


def _gpu_gesvd(platform, ctx, x, *, full_matrices, compute_uv):
    """gesvd (QR-based) for large matrices: a wide one is passed row-major (the kernel sees
    its transpose, whose U and V^T are our V^T and U)."""
    (a,) = ctx.avals_in
    batch = a.shape[:-2]
    m, n = a.shape[-2:]
    transposed = m < n
    s_a = ctx.avals_out[0]
    u_a, vt_a = ctx.avals_out[1:] if compute_uv else (Aval((), a.dtype),) * 2
    pair = [vt_a, u_a] if transposed else [u_a, vt_a]
    attrs = (f"compute_uv = {str(compute_uv).lower()}, full_matrices = "
             f"{str(full_matrices).lower()}, transposed = {str(transposed).lower()}")
    _, s, first, second, info = gpu_call(
        ctx, _solver(platform, "gesvd"), [x], [a], [a, s_a, *pair, _info(a)], attrs=attrs,
        aliases={0: 0}, batch_dims=len(batch), column_major=not transposed)
    ok = _ok(ctx, info, batch)
    outs = [_nan_unless(ctx, ok, batch, s, s_a)]
    if compute_uv:
        u, vt = (second, first) if transposed else (first, second)
        outs += [_nan_unless(ctx, ok, batch, u, u_a), _nan_unless(ctx, ok, batch, vt, vt_a)]
    return outs


def _leading_block(ctx, x, aval: Aval, out: Aval) -> str:
    """x[..., :rows, :cols] of ``out``'s shape."""
    return ctx.op(f"stablehlo.slice {x} [{', '.join(f'0:{d}' for d in out.shape)}] : "
                  f"({ctx.type(aval)}) -> {ctx.type(out)}")


def _stablehlo_triangular_solve(ctx, a, b, *, left_side, lower, transpose_a, conjugate_a,
                                unit_diagonal):
    aa, ba = ctx.avals_in
    a = conj_unless_transposed(ctx, a, aa, transpose_a, conjugate_a)
    trans = ("ADJOINT" if conjugate_a and dtypes.is_complex(aa.dtype) else "TRANSPOSE") \
        if transpose_a else "NO_TRANSPOSE"
    return [ctx.op(f'"stablehlo.triangular_solve"({a}, {b}) <{{left_side = '
                   f"{str(left_side).lower()}, lower = {str(lower).lower()}, transpose_a = "
                   f"#stablehlo<transpose {trans}>, unit_diagonal = "
                   f"{str(unit_diagonal).lower()}}}> : ({ctx.type(aa)}, {ctx.type(ba)}) -> "
                   f"{ctx.type(ba)}")]


def _gpu_tridiagonal_solve(platform, ctx, dl, d, du, b):
    """gtsv2 (cuSPARSE / hipSPARSE), which takes m >= 3; smaller systems by the scans."""
    ba = ctx.avals_in[3]
    if ba.shape[-2] < 3:
        return ctx.lower_fun(tridiagonal_solve_by_scan, [dl, d, du, b])
    return gpu_call(ctx, f"{GPUS[platform]}sparse_gtsv2_ffi", [dl, d, du, b], list(ctx.avals_in),
                    [ba], aliases={0: 3}, batch_dims=ba.ndim - 2)


def tridiagonal_solve_by_scan(dl, d, du, b):
    """The Thomas algorithm (no pivoting) as two scans over the rows, the leading axes a
    batch: what a platform without a tridiagonal kernel runs (the TPU's)."""
    nd = aval_of(b).ndim
    vec = lambda v: lax.transpose(v, (nd - 2,) + tuple(range(nd - 2)))  # noqa: E731  (m first)
    mat = lax.transpose(b, (nd - 2,) + tuple(range(nd - 2)) + (nd - 1,))
    col = lambda v: lax.expand_dims(v, (v.ndim,))  # noqa: E731

    def forward(carry, row):
        c_prev, y_prev = carry
        l, dd, u, bb = row
        denom = lax.sub(dd, lax.mul(l, c_prev))
        c = lax.div(u, denom)
        y = lax.div(lax.sub(bb, lax.mul(col(l), y_prev)), col(denom))
        return (c, y), (c, y)

    first = lax.index_in_dim(mat, 0, keepdims=False)
    zero_c = lax.sub(lax.index_in_dim(vec(d), 0, keepdims=False),
                     lax.index_in_dim(vec(d), 0, keepdims=False))
    _, (cs, ys) = lax.scan(forward, (zero_c, lax.sub(first, first)),
                           (vec(dl), vec(d), vec(du), mat))

    def backward(x_next, row):
        c, y = row
        x = lax.sub(y, lax.mul(col(c), x_next))
        return x, x

    _, xs = lax.scan(backward, lax.sub(first, first), (cs, ys), reverse=True)
    return lax.transpose(xs, tuple(range(1, nd - 1)) + (0, nd - 1))


def _gpu_eig(platform, ctx, x, *, compute_left=True, compute_right=True,
             enable_eigvec_derivs=False):
    """JAX's hybrid eig kernel (the matrix goes to the host's LAPACK or MAGMA)."""
    (a,) = ctx.avals_in
    w = ctx.avals_out[0]
    vec = Aval(a.shape, w.dtype)
    real = not np.issubdtype(a.dtype, np.complexfloating)
    values = [Aval(w.shape, a.dtype)] * 2 if real else [w]
    outs = gpu_call(ctx, f"{GPUS[platform]}hybrid_eig_{'real' if real else 'comp'}", [x], [a],
                    [*values, vec, vec, _info(a)],
                    attrs=f"left = {str(bool(compute_left)).lower()}, magma = \"auto\", "
                          f"right = {str(bool(compute_right)).lower()}",
                    batch_dims=a.ndim - 2)
    return eig_results(ctx, outs, compute_left, compute_right)


for _p in GPUS:
    _on = functools.partial
    dc.cholesky_p.def_lowering(cholesky_rule(_on(_gpu_potrf, _p)), platform=_p)
    dc.lu_p.def_lowering(lu_rule(_on(_gpu_getrf, _p)), platform=_p)
    dc.eigh_p.def_lowering(eigh_rule(_on(_gpu_syevd, _p)), platform=_p)
    dc.geqrf_p.def_lowering(_on(_gpu_geqrf, _p), platform=_p)
    dc.householder_product_p.def_lowering(_on(_gpu_orgqr, _p), platform=_p)
    dc.lu_pivots_to_permutation_p.def_lowering(_on(_gpu_pivots_to_permutation, _p), platform=_p)
    dc.svd_p.def_lowering(_on(_gpu_svd, _p), platform=_p)
    dc.triangular_solve_p.def_lowering(_stablehlo_triangular_solve, platform=_p)
    dc.tridiagonal_solve_p.def_lowering(_on(_gpu_tridiagonal_solve, _p), platform=_p)
    dc.eig_p.def_lowering(_on(_gpu_eig, _p), platform=_p)


# ----------------------------------------------------------------------------- TPUs


@dc.eig_p.def_lowering(platform="tpu")
def _tpu_eig(ctx, x, **_params):
    raise NotImplementedError("MLIR translation rule for primitive 'eig' not found for platform "
                              "tpu (as JAX: TPUs have no eig)")


@dc.cholesky_p.def_lowering(platform="tpu")
def _tpu_cholesky(ctx, x):
    (a,) = ctx.avals_in
    factor = ctx.op(f"stablehlo.cholesky {x}, lower = true : {ctx.type(a)}")
    return [triangle(ctx, factor, a, True)]


@dc.lu_p.def_lowering(platform="tpu")
def _tpu_lu(ctx, x):
    (a,) = ctx.avals_in
    piv = ctx.avals_out[1]
    lu, pivots, _perm = ctx.op_results(
        f'stablehlo.custom_call @LuDecomposition({x}) {{api_version = 2 : i32, backend_config '
        f'= ""}} : ({ctx.type(a)}) -> ({ctx.type(a)}, {ctx.type(piv)}, {ctx.type(piv)})', 3)
    return [lu, pivots]


def _tpu_call(ctx, target: str, operands, backend_config: str = "") -> list:
    outs = [ctx.type(a) for a in ctx.avals_out]
    res = outs[0] if len(outs) == 1 else f"({', '.join(outs)})"
    return ctx.op_results(f"stablehlo.custom_call @{target}({', '.join(operands)}) "
                          f'{{backend_config = "{backend_config}"}} : '
                          f"({', '.join(ctx.type(a) for a in ctx.avals_in)}) -> {res}", len(outs))


dc.geqrf_p.def_lowering(lambda ctx, x: _tpu_call(ctx, "Qr", [x]), platform="tpu")
dc.householder_product_p.def_lowering(
    lambda ctx, a, taus: _tpu_call(ctx, "ProductOfElementaryHouseholderReflectors", [a, taus]),
    platform="tpu")
dc.triangular_solve_p.def_lowering(_stablehlo_triangular_solve, platform="tpu")


@dc.eigh_p.def_lowering(platform="tpu")
def _tpu_eigh(ctx, x, *, lower=True):
    # (JAX's Jacobi kernel: lower, sort the eigenvalues, at most 100 sweeps, tolerance)
    return _tpu_call(ctx, "Eigh", [x], f"{int(lower)},1,100,1e-6")


def svd_by_eigh(x, *, full_matrices, compute_uv):
    """The SVD from a QR and a Hermitian eigendecomposition (the TPU's kernels): x = q r,
    r^H r = v diag(w) v^H (w descending), r v = qb rb with rb diagonal up to rounding, so
    x = (q qb phase) diag(|diag rb|) v^H. A wide x is decomposed as its adjoint."""
    xa = aval_of(x)
    m, n = xa.shape[-2:]
    nd = xa.ndim
    if m < n:
        outs = svd_by_eigh(lin.hermitian_transpose(x), full_matrices=full_matrices,
                           compute_uv=compute_uv)
        if not compute_uv:
            return outs
        s, u, vt = outs
        return [s, lin.hermitian_transpose(vt), lin.hermitian_transpose(u)]
    q, r = lin.qr(x, full_matrices=full_matrices)
    r = lax.slice_in_dim(r, 0, n, axis=nd - 2)
    gram = lax.dot_general(lin.hermitian_transpose(r), r,
                           (((nd - 1,), (nd - 2,)), (tuple(range(nd - 2)), tuple(range(nd - 2)))))
    v, _ = lin.eigh(gram)
    v = lax.rev(v, (nd - 1,))  # (eigenvalues ascending: largest first)
    b = lax.dot_general(r, v, (((nd - 1,), (nd - 2,)), (tuple(range(nd - 2)),) * 2))
    qb, rb = lin.qr(b, full_matrices=False)
    d = lax.reduce_sum(lax.mul(rb, lax.convert_element_type(
        _eye(n, nd - 2, xa), aval_of(rb).dtype)), (nd - 2,))
    s = lax.abs(d)
    if not compute_uv:
        return [s]
    da = aval_of(d)
    zero = lax.eq(s, lax.broadcast_in_dim(np.zeros((), aval_of(s).dtype), da.shape, ()))
    safe = lax.select(zero, lax.broadcast_in_dim(np.ones((), aval_of(s).dtype), da.shape, ()), s)
    phase = lax.div(d, lax.convert_element_type(safe, da.dtype))  # (1 where d is 0)
    phase = lax.select(zero, lax.broadcast_in_dim(np.ones((), da.dtype), da.shape, ()), phase)
    ub = lax.mul(qb, lax.broadcast_in_dim(phase, aval_of(qb).shape, tuple(range(nd - 2)) + (nd - 1,)))
    qn = lax.slice_in_dim(q, 0, n, axis=nd - 1)
    u = lax.dot_general(qn, ub, (((nd - 1,), (nd - 2,)), (tuple(range(nd - 2)),) * 2))
    if full_matrices and m > n:
        u = lax.concatenate([u, lax.slice_in_dim(q, n, m, axis=nd - 1)], nd - 1)
    return [s, u, lin.hermitian_transpose(v)]


def _eye(n: int, nb: int, xa: Aval):
    eye = lax.convert_element_type(lax.eq(lax.broadcasted_iota(_I32, (n, n), 0),
                                          lax.broadcasted_iota(_I32, (n, n), 1)), np.float32)
    return lax.broadcast_in_dim(eye, xa.shape[:nb] + (n, n), (nb, nb + 1))


@dc.svd_p.def_lowering(platform="tpu")
def _tpu_svd(ctx, x, *, full_matrices, compute_uv):
    return ctx.lower_fun(svd_by_eigh, [x], full_matrices=full_matrices, compute_uv=compute_uv)


@dc.tridiagonal_solve_p.def_lowering(platform="tpu")
def _tpu_tridiagonal_solve(ctx, dl, d, du, b):
    return ctx.lower_fun(tridiagonal_solve_by_scan, [dl, d, du, b])

