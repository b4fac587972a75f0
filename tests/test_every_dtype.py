"""Every primitive at every dtype its abstract evaluation accepts: the lowered module passes
the StableHLO verifier and runs on a tiny input, with the shapes and dtypes abstract
evaluation promised. The same programs carry each primitive vmapped over a batch of size 0
(every operand batched, and each one alone): the per-example loop over no examples is an
empty stack of the per-example result, so the batched result must be exactly that.

One program per dtype. The default run executes them on the StableHLO reference interpreter
(device="interpreter", a fraction of a second each); the slow run also compiles and runs
them with XLA (seconds each)."""
import ml_dtypes
import numpy as np
import pytest
from harness import is_collective, project_primitives, rand, takes_operands, verify, zero_batch_variants

import frontend as fe
from frontend import lax
from frontend.custom_batching import custom_vmap
from frontend.primitives import barrier, bits, conv, linalg, padding, windows
from frontend.primitives import decompositions as dc
from frontend.primitives import elementwise as ew
from frontend.primitives import fft as ft
from frontend.primitives import indexing as ix
from frontend.primitives import numeric as nm
from frontend.primitives import reductions as rd
from frontend.primitives import shape as sh
from frontend.primitives import sort as so
from frontend.primitives import special as sp
from frontend.primitives.derived import DERIVED
from frontend.random._gamma import random_gamma_p
from frontend.transforms.checkpoint import name_p

DTYPES32 = [np.bool_, np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32,
            np.float16, ml_dtypes.bfloat16, np.float32, np.complex64]
DTYPES64 = [np.int64, np.uint64, np.float64, np.complex128]
I32 = np.int32
# not lowered here: ffi_call's and call_exported's dtypes are those of the target and the
# exported module (tests/test_ffi.py, tests/test_export.py); collectives are resolved by vmap
# before lowering (tests/test_collectives.py, zero-size batches included) and lowered to XLA's
# collectives only inside shard_map, whose Shardy ops (as sharding_constraint's) the reference
# interpreter does not run (tests/test_sharding.py, several dtypes)
# custom_lin is never lowered: only reverse mode meets it, and transposes it
# callback runs Python on the host (tests/test_callbacks.py); platform_index is an int32
# constant (tests/test_platforms.py); eig, tridiagonal_solve and lu_pivots_to_permutation
# are sampled over their own dtypes by tests/test_numpy_eig.py and tests/test_platforms.py
# (not yet rows here: every dtype with its expected refusal); XLA's generators rng_uniform and
# rng_bit_generator draw XLA's own bits (tests/test_lax_extra.py compares them with JAX's)
EXEMPT = {"ffi_call", "call_exported", "custom_lin", "sharding_constraint", "shard_map",
          "callback", "platform_index", "eig", "tridiagonal_solve", "lu_pivots_to_permutation",
          "rng_uniform", "rng_bit_generator", "schur", "hessenberg", "dim_as_value"}
# (schur and hessenberg, LAPACK's gees/gehrd, are compared with JAX over float and complex
# dtypes by tests/test_scipy_linalg_more.py; dim_as_value has no operand: it exists only in
# shape-polymorphic modules, tests/test_shape_poly.py)
# primitives derived from lax functions (frontend/primitives/derived.py) lower to their
# implementation, whose primitives have rows here (tests/test_lax_extra.py compares them)
EXEMPT |= {p.name for p in DERIVED}
# run with XLA even in the default run: LAPACK custom calls, and fft (the reference
# interpreter aborts on it)
XLA_ONLY = {"cholesky", "lu", "geqrf", "householder_product", "eigh", "svd",
            "triangular_solve", "qr", "fft"}


def _bind(p, **params):
    return lambda *a: p.bind(*a, **params)


def X(T, shape=(2, 3)):
    # integers in [1, 3): no division by zero (the interpreter would trap, as C does)
    return rand(shape, T, low=1, high=3)


@custom_vmap
def _rev_rows(x):
    return lax.rev(x, (0,))


@_rev_rows.def_vmap
def _rev_rows_vmap(axis_size, in_batched, x):
    return lax.rev(x, (1,) if in_batched[0] else (0,)), in_batched[0]


@fe.custom_jvp
def _rev_jvp(x):
    return lax.rev(x, (0,))


_rev_jvp.defjvp(lambda p, t: (_rev_jvp(p[0]), lax.rev(t[0], (0,))))


@fe.custom_vjp
def _rev_vjp(x):
    return lax.rev(x, (0,))


_rev_vjp.defvjp(lambda x: (lax.rev(x, (0,)), None), lambda r, g: (lax.rev(g, (0,)),))


UNARY = [ew.neg_p, ew.sign_p, ew.exp_p, ew.log_p, ew.log1p_p, ew.expm1_p, ew.tanh_p,
         ew.logistic_p, ew.sin_p, ew.cos_p, ew.tan_p, ew.sqrt_p, ew.rsqrt_p, ew.floor_p,
         ew.ceil_p, ew.round_p, ew.not_p, ew.abs_p]
BINARY = [ew.add_p, ew.sub_p, ew.mul_p, ew.div_p, ew.rem_p, ew.pow_p, ew.max_p, ew.min_p,
          ew.atan2_p, ew.and_p, ew.or_p, ew.xor_p, ew.shift_left_p, ew.shift_right_arithmetic_p,
          ew.shift_right_logical_p, ew.eq_p, ew.ne_p, ew.lt_p, ew.le_p, ew.gt_p, ew.ge_p,
          ew.eq_to_p, ew.le_to_p, ew.lt_to_p]
REDUCE = [rd.reduce_sum_p, rd.reduce_prod_p, rd.reduce_max_p, rd.reduce_min_p, rd.reduce_and_p,
          rd.reduce_or_p, rd.reduce_xor_p]
CUMULATIVE = [rd.cumsum_p, rd.cumprod_p, rd.cummax_p, rd.cummin_p]
# issue 14's
UNARY += [nm.exp2_p, nm.cbrt_p, nm.asin_p, nm.acos_p, nm.atan_p, nm.sinh_p, nm.cosh_p,
          nm.asinh_p, nm.acosh_p, nm.atanh_p, nm.square_p, nm.clz_p, nm.is_finite_p, nm.real_p,
          nm.imag_p, nm.conj_p, sp.erf_p, sp.erfc_p, sp.erf_inv_p, sp.lgamma_p, sp.digamma_p,
          sp.bessel_i0e_p, sp.bessel_i1e_p]
BINARY += [nm.nextafter_p, nm.mulhi_p, nm.complex_p, sp.polygamma_p, sp.zeta_p, sp.igamma_p,
           sp.igammac_p, sp.igamma_grad_a_p]
WINDOW = dict(window_dimensions=(1, 2), window_strides=(1, 1), padding=((0, 0), (1, 0)),
              base_dilation=(1, 1), window_dilation=(1, 1))
_WINDOW = dict(window_dimensions=(1, 2), window_strides=(1, 1), padding=((0, 0), (1, 0)))
CONV1D = dict(window_strides=(1,), padding=((0, 0),), lhs_dilation=(1,), rhs_dilation=(1,),
              dimension_numbers=conv.ConvDimensionNumbers((0, 1, 2), (0, 1, 2), (0, 1, 2)),
              feature_group_count=1, batch_group_count=1)
SCATTERS = [ix.scatter_p, ix.scatter_add_p, ix.scatter_mul_p, ix.scatter_min_p, ix.scatter_max_p]
IDX = np.array([[2], [0]], I32)
SCATTER_DNUMS = dict(update_window_dims=(1,), inserted_window_dims=(0,), input_batching_dims=(),
                     scatter_indices_batching_dims=(), scatter_dims_to_operand_dims=(0,),
                     index_vector_dim=1)


def samples(T, group):
    """(primitive name, function of arrays, example arrays) applying each primitive with
    dtype T wherever the primitive takes the operand's dtype."""
    out = [(p.name, _bind(p), [X(T)]) for p in UNARY]
    out += [(p.name, _bind(p), [X(T), X(T)]) for p in BINARY]
    out += [(p.name, _bind(p, axes=(1,)), [X(T)]) for p in REDUCE]
    out += [(p.name, _bind(p, axis=1, reverse=False), [X(T)]) for p in CUMULATIVE]
    out += [(p.name, _bind(p, axes=(1,), index_dtype=np.dtype(I32)), [X(T)])
            for p in (rd.argmax_p, rd.argmin_p)]
    out += [(p.name, _bind(p, **SCATTER_DNUMS), [X(T, (3, 4)), IDX, X(T, (2, 4))])
            for p in SCATTERS]
    out += [(f"convert_element_type-{np.dtype(U).name}",
             _bind(ew.convert_element_type_p, new_dtype=np.dtype(U), weak_type=False), [X(T)])
            for U in group]
    out += [
        ("select", _bind(ew.select_p), [X(np.bool_), X(T), X(T)]),
        ("broadcast_in_dim", _bind(sh.broadcast_in_dim_p, shape=(2, 3),
                                   broadcast_dimensions=(1,)), [X(T, (3,))]),
        ("reshape", _bind(sh.reshape_p, new_sizes=(3, 2), dimensions=None), [X(T)]),
        ("transpose", _bind(sh.transpose_p, permutation=(1, 0)), [X(T)]),
        ("squeeze", _bind(sh.squeeze_p, dimensions=(0,)), [X(T, (1, 3))]),
        ("slice", _bind(padding.slice_p, start_indices=(0, 1), limit_indices=(2, 3), strides=None),
         [X(T)]),
        ("concatenate", _bind(padding.concatenate_p, dimension=0), [X(T), X(T)]),
        ("rev", _bind(sh.rev_p, dimensions=(0,)), [X(T)]),
        ("iota", lambda: sh.iota_p.bind(dtype=np.dtype(T), shape=(3,), dimension=0), []),
        ("pad", _bind(padding.pad_p, padding_config=((1, 0, 0), (0, 1, 1))),
         [X(T), X(T, ())]),
        ("dot_general", _bind(linalg.dot_general_p, dimension_numbers=(((1,), (0,)), ((), ()))),
         [X(T), X(T, (3, 4))]),
        ("dynamic_slice", _bind(ix.dynamic_slice_p, slice_sizes=(2, 2)),
         [X(T, (3, 4)), I32(1), I32(3)]),
        ("dynamic_update_slice", _bind(ix.dynamic_update_slice_p),
         [X(T, (3, 4)), X(T, (2, 2)), I32(2), I32(1)]),
        ("gather", _bind(ix.gather_p, offset_dims=(1,), collapsed_slice_dims=(0,),
                         start_index_map=(0,), operand_batching_dims=(),
                         start_indices_batching_dims=(), index_vector_dim=1,
                         slice_sizes=(1, 4), indices_are_sorted=False, mode="clip"),
         [X(T, (3, 4)), IDX]),
        ("cond", lambda p, x: lax.cond(p, lambda a: a, lambda a: lax.rev(a, (0,)), x),
         [np.bool_(True), X(T)]),
        ("while", lambda x: lax.while_loop(lambda c: c[0] < 2,
                                           lambda c: (c[0] + 1, lax.rev(c[1], (0,))), (0, x))[1],
         [X(T)]),
        ("scan", lambda c, xs: lax.scan(lambda k, r: (lax.rev(k, (0,)), r), c, xs),
         [X(T, (3,)), X(T)]),
        ("custom_vmap_call", _rev_rows, [X(T)]),
        ("stop_gradient", _bind(ew.stop_gradient_p), [X(T)]),
        ("custom_jvp_call", _rev_jvp, [X(T)]),
        ("custom_vjp_call", _rev_vjp, [X(T)]),
        ("checkpoint", fe.checkpoint(lambda a: lax.rev(a, (0,))), [X(T)]),
        ("custom_linear_solve", lambda x: lax.custom_linear_solve(
            lambda a: lax.rev(a, (0,)), x, lambda mv, b: lax.rev(b, (0,)), symmetric=True),
         [X(T)]),
        ("population_count", _bind(bits.population_count_p), [X(T)]),
        ("regularized_incomplete_beta", _bind(sp.regularized_incomplete_beta_p),
         [X(T), X(T), X(T)]),
        ("integer_pow", _bind(nm.integer_pow_p, y=3), [X(T)]),
        ("reduce_precision", _bind(nm.reduce_precision_p, exponent_bits=5, mantissa_bits=10),
         [X(T)]),
        ("sort", _bind(so.sort_p, dimension=1, is_stable=True, num_keys=1), [X(T), X(T)]),
        ("top_k", _bind(so.top_k_p, k=2, axis=1), [X(T)]),
        ("conv_general_dilated", _bind(conv.conv_general_dilated_p, **CONV1D),
         [X(T, (2, 3, 4)), X(T, (2, 3, 2))]),
        *[(p.name, _bind(p, **WINDOW), [X(T)]) for p in (
            windows.reduce_window_sum_p, windows.reduce_window_max_p, windows.reduce_window_min_p)],
        ("optimization_barrier", _bind(barrier.optimization_barrier_p), [X(T), X(T, (3,))]),
        # (a constant init value: batched init values are JAX's NotImplementedError)
        ("reduce", lambda x: lax.reduce(x, np.zeros((), x.dtype),
                                        lambda a, b: lax.select(lax.lt(a, b), b, a), (1,)), [X(T)]),
        ("reduce_window", lambda x: lax.reduce_window(
            x, np.zeros((), x.dtype), lambda a, b: lax.select(lax.lt(a, b), b, a), **_WINDOW),
         [X(T)]),
        ("scatter_apply", lambda x: lax.scatter_apply(
            x, IDX, lambda v: lax.select(lax.lt(v, v), v, lax.max(v, v)),
            lax.ScatterDimensionNumbers((1,), (0,), (0,)), update_shape=(2, 4)), [X(T, (3, 4))]),
        ("cholesky", _bind(dc.cholesky_p), [X(T, (3, 3))]),
        ("lu", _bind(dc.lu_p), [X(T, (3, 2))]),
        ("geqrf", _bind(dc.geqrf_p), [X(T, (3, 2))]),
        ("householder_product", _bind(dc.householder_product_p), [X(T, (3, 2)), X(T, (2,))]),
        ("eigh", _bind(dc.eigh_p, lower=True), [X(T, (3, 3))]),
        ("svd", _bind(dc.svd_p, full_matrices=False, compute_uv=True), [X(T, (3, 2))]),
        ("triangular_solve", _bind(dc.triangular_solve_p, left_side=True, lower=True,
                                   transpose_a=False, conjugate_a=False, unit_diagonal=False),
         [X(T, (3, 3)), X(T, (3, 2))]),
        ("qr", _bind(dc.qr_p, full_matrices=False), [X(T, (3, 2))]),
        ("name", _bind(name_p, name="h"), [X(T)]),
        ("random_gamma", _bind(random_gamma_p, log_space=False), [np.array([0, 7], np.uint32), X(T)]),
        ("fft", _bind(ft.fft_p, fft_type=ft.FftType.FFT, fft_lengths=(3,)), [X(T)]),
        ("fft-rfft", _bind(ft.fft_p, fft_type=ft.FftType.RFFT, fft_lengths=(3,)), [X(T)]),
    ]
    # bitcast to every dtype of the group: the same width keeps the shape, a narrower one
    # adds a trailing axis, a wider one consumes a trailing axis of the right size
    for U in group:
        ratio = np.dtype(U).itemsize // np.dtype(T).itemsize
        out.append((f"bitcast_convert_type-{np.dtype(U).name}",
                    _bind(bits.bitcast_convert_type_p, new_dtype=np.dtype(U)),
                    [X(T, (2, ratio) if ratio > 1 else (2, 3))]))
    return out


def _accepts(fn, args):
    """The function's graph (which primitives it binds, what it gives) when abstract
    evaluation accepts these dtypes, else None."""
    try:
        return fe.make_graph(fn)(*args)
    except (TypeError, ValueError):
        return None


def _run_group(group, device):
    """Per dtype: one program with every accepted sample and, for the first dtype that
    accepts each sample, its zero-size batches, verified and run on ``device``. Returns
    (names lowered, names batched)."""
    lowered, batched, zero_done = set(), set(), set()
    for T in group:
        buckets = {device: ([], [], [], []), None: ([], [], [], [])}
        for name, fn, args in samples(T, group):
            g = _accepts(fn, args)
            if g is None:
                continue
            lowered.update(e.prim.name for e in g.eqns)
            fns, argl, expect, what = buckets[None if any(e.prim.name in XLA_ONLY for e in g.eqns)
                                              else device]
            fns.append(fn)
            argl.append(args)
            expect.append([(v.aval.shape, v.aval.dtype) for v in g.outvars])
            what.append(f"{name} at {np.dtype(T).name}")
            if name not in zero_done and args:
                zero_done.add(name)
                for vfn, zargs, zexp in zero_batch_variants(fn, args, g):
                    batched.update(e.prim.name for e in g.eqns)
                    fns.append(vfn)
                    argl.append(zargs)
                    expect.append(zexp)
                    what.append(f"{name} vmapped over an empty batch, in_axes "
                                f"{[0 if a.shape[:1] == (0,) else None for a in map(np.asarray, zargs)]}")
        for dev, (fns, argl, expect, what) in buckets.items():
            if fns:
                _run_program(fns, argl, expect, what, dev)
    return lowered, batched


def _run_program(fns, argl, expect, what, device):
    """One program of every sample's function, verified, run on ``device``; each result
    of the promised shapes and dtypes."""
    sizes = [len(a) for a in argl]

    def program(*flat):
        outs, k = [], 0
        for fn, n in zip(fns, sizes, strict=True):
            res = fn(*flat[k:k + n])
            outs.append(list(res) if isinstance(res, (tuple, list)) else [res])
            k += n
        return outs

    flat = [a for args in argl for a in args]
    try:
        verify(fe.jit(program).lower(*flat).as_text())
        got = fe.jit(program, device=device)(*flat)
    except Exception:  # name the culprits: each entry compiled alone
        raise AssertionError("\n".join(_culprits(fns, argl, what, device))) from None
    for w, res, exp in zip(what, got, expect, strict=True):
        assert [(np.shape(r), np.asarray(r).dtype) for r in res] == exp, w


def _culprits(fns, argl, what, device) -> list:
    bad = []
    for fn, args, w in zip(fns, argl, what, strict=True):
        try:
            verify(fe.jit(fn).lower(*args).as_text())
            fe.jit(fn, device=device)(*args)
        except Exception as e:  # noqa: BLE001
            lines = str(e).splitlines() or [""]
            line = next((x for x in lines if "error:" in x), lines[0])
            bad.append(f"{w}: {type(e).__name__}: {line.strip()[:300]}")
    return bad or ["the combined program failed, but every entry passes alone"]


def _check_coverage(lowered, batched):
    prims = project_primitives()
    named = {n for n, p in prims.items() if is_collective(p)}
    missing = sorted(set(prims) - EXEMPT - named - lowered)
    assert not missing, f"primitives with no sample in the every-dtype table: {missing}"
    unbatched = sorted(n for n, p in prims.items() if takes_operands(p) and n not in batched
                       and n not in EXEMPT | named)
    assert not unbatched, f"primitives never vmapped over an empty batch: {unbatched}"


def test_every_primitive_every_dtype_32bit():
    _check_coverage(*_run_group(DTYPES32, "interpreter"))


@pytest.mark.usefixtures("x64")
def test_every_primitive_every_dtype_64bit():
    _run_group(DTYPES64, "interpreter")


@pytest.mark.slow
@pytest.mark.parametrize("group", ["32", "64"])
def test_every_primitive_every_dtype_with_xla(group, request):
    if group == "64":
        request.getfixturevalue("x64")
    _run_group(DTYPES32 if group == "32" else DTYPES64, None)
