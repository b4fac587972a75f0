"""device="interpreter": the lowered module runs through the StableHLO reference interpreter
(jaxlib's MLIR bindings) instead of XLA. Every primitive of the project has a row
here; XLA and the interpreter must agree on it (so a lowering bug XLA tolerates is still
caught), with and without vmap. A primitive added without a row fails
test_every_primitive_has_an_interpreter_row."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from harness import assert_same, is_collective, project_primitives, rand

import frontend as fe
import frontend.numpy as fnp
from frontend import lax
from frontend.custom_batching import custom_vmap

F32, I32, BF16 = np.float32, np.int32, ml_dtypes.bfloat16
R = np.random.default_rng(5)


def f32(*s):
    return rand(s, F32, R)


def i32(*s, lo=-4, hi=5):
    return R.integers(lo, hi, size=s).astype(I32)


def b(*s):
    return rand(s, bool, R)


def _lax_name(n):
    return n + "_" if n in ("and", "or", "not") else n


_UNARY_F = ["abs", "ceil", "cos", "exp", "expm1", "floor", "log", "log1p", "logistic", "neg",
            "round", "rsqrt", "sign", "sin", "sqrt", "tan", "tanh"]
_BINARY_F = ["add", "atan2", "div", "max", "min", "mul", "pow", "rem", "sub"]
_COMPARE = ["eq", "ge", "gt", "le", "lt", "ne"]
_BITWISE = ["and", "or", "xor"]

# primitive name -> list of (function, args); every function must bind that primitive
TABLE: dict = {}
_EXPORTED = fe.export.export(fe.jit(lambda x, y: (fnp.sin(x) * y, fnp.sum(x))))(f32(3), f32(3))
for _n in _UNARY_F:
    _x = np.abs(f32(3, 4)) + 0.5 if _n in ("log", "rsqrt", "sqrt") else f32(3, 4)
    TABLE[_n] = [(getattr(lax, _n), (_x,)), (getattr(lax, _n), (_x.astype(BF16),))]
for _n in _BINARY_F:
    _x, _y = f32(3, 4), f32(3, 4)
    if _n == "pow":
        _x = np.abs(_x) + 0.1
    TABLE[_n] = [(getattr(lax, _n), (_x, _y))]
    if _n in ("add", "max", "min", "mul", "sub", "div", "rem"):
        TABLE[_n].append((getattr(lax, _n), (i32(3, 4), i32(3, 4, lo=1))))
for _n in _COMPARE:
    TABLE[_n] = [(getattr(lax, _n), (f32(5), f32(5))), (getattr(lax, _n), (i32(5), i32(5)))]
for _n in _BITWISE:
    TABLE[_n] = [(getattr(lax, _lax_name(_n)), (b(6), b(6))),
                 (getattr(lax, _lax_name(_n)), (i32(6), i32(6)))]
TABLE["not"] = [(lax.not_, (b(6),)), (lax.not_, (i32(6),))]
for _n in ("shift_left", "shift_right_arithmetic", "shift_right_logical"):
    TABLE[_n] = [(getattr(lax, _n), (i32(6, lo=-40, hi=40), i32(6, lo=0, hi=34)))]
TABLE["population_count"] = [(lax.population_count, (i32(6, lo=-40, hi=40),))]
TABLE["bitcast_convert_type"] = [
    (lambda x: lax.bitcast_convert_type(x, np.int32), (f32(3),)),
    (lambda x: lax.bitcast_convert_type(x, np.uint8), (f32(2),)),
    (lambda x: lax.bitcast_convert_type(x, np.float32), (i32(2, 2).astype(np.int16),))]
TABLE["abs"].append((lax.abs, (i32(5),)))
# issue 26: JAX's total-order comparisons, and the primitives derived from lax functions
# (no NaN: the reference interpreter orders inf above nan; XLA and JAX order nan above)
_TOTAL = np.float32([2.0, -0.0, 0.0, 1.0, -np.inf, np.inf])
for _n in ("eq_to", "le_to", "lt_to"):
    TABLE[_n] = [(getattr(lax, _n + "_p").bind, (_TOTAL, _TOTAL[::-1].copy()))]
_WIN = dict(window_dimensions=(2, 2), window_strides=(1, 2), padding=((0, 0), (1, 0)))
TABLE.update({
    "clamp": [(lambda x: lax.clamp_p.bind(np.float32(-0.5), x, np.float32(0.5)), (f32(5),))],
    "split": [(lambda x: lax.split_p.bind(x, sizes=(1, 3), axis=1), (f32(2, 4),))],
    "tile": [(lambda x: lax.tile_p.bind(x, reps=(2, 1)), (f32(2, 3),))],
    "stack": [(lambda x, y: lax.stack_p.bind(x, y, axis=1), (f32(2, 3), f32(2, 3)))],
    "unstack": [(lambda x: lax.unstack_p.bind(x, axis=0), (f32(2, 3),))],
    "cumlogsumexp": [(lambda x: lax.cumlogsumexp_p.bind(x, axis=0, reverse=False), (f32(4, 2),))],
    "approx_top_k": [(lambda x: lax.approx_top_k_p.bind(
        x, k=2, reduction_dimension=-1, recall_target=0.95, is_max_k=True,
        reduction_input_size_override=-1, aggregate_to_topk=True), (f32(3, 5),))],
    "copy": [(lax.copy_p.bind, (f32(3),))],
    "stage": [(lax.stage_p.bind, (f32(3),))],
    "scatter_sub": [(lambda x, u: lax.scatter_sub_p.bind(
        x, np.array([[0], [2]]), u, dimension_numbers=lax.ScatterDimensionNumbers((1,), (0,), (0,))),
        (f32(3, 4), f32(2, 4)))],
    "select_and_gather_add": [(lambda t, x: lax.select_and_gather_add_p.bind(
        t, x, select_prim=lax.ge_p, base_dilation=(1, 1), window_dilation=(1, 1), **_WIN),
        (f32(3, 4), f32(3, 4)))],
    "select_and_scatter_add": [(lambda s, x: lax.select_and_scatter_add_p.bind(
        s, x, select_prim=lax.le_p, **_WIN), (f32(2, 2), f32(3, 4)))],
})
TABLE["neg"].append((lax.neg, (np.array([1 + 2j, -3j], np.complex64),)))

TABLE.update({
    "argmax": [(lambda x: fnp.argmax(x, axis=1), (f32(3, 4),))],
    "lu_pivots_to_permutation": [(lambda p: lax.linalg.lu_pivots_to_permutation(p, 5),
                                  (np.array([[2, 3, 2], [4, 1, 2]], np.int32),))],
    "platform_index": [(lambda x: lax.platform_dependent(x, cpu=fnp.sin, default=fnp.cos),
                        (f32(3),))],
    "argmin": [(lambda x: fnp.argmin(x, axis=0), (i32(3, 4),))],
    "broadcast_in_dim": [(lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (1, 2)), (f32(3, 4),))],
    "concatenate": [(lambda x, y: fnp.concatenate([x, y], axis=1), (f32(2, 3), f32(2, 1)))],
    "convert_element_type": [(lambda x: x.astype(I32), (f32(4) * 3,)),
                             (lambda x: x.astype(BF16), (f32(4),)),
                             (lambda x: x.astype(F32), (b(4),))],
    "cummax": [(lambda x: lax.cummax(x, axis=1), (f32(3, 4),))],
    "cummin": [(lambda x: lax.cummin(x, axis=0, reverse=True), (i32(3, 4),))],
    "cumprod": [(lambda x: lax.cumprod(x, axis=0), (f32(4, 2),))],
    "cumsum": [(lambda x: lax.cumsum(x, axis=1), (i32(3, 4),))],
    "dot_general": [(lambda x, y: fnp.matmul(x, y), (f32(2, 3, 4), f32(2, 4, 5))),
                    (lambda x, y: lax.dot_general(x, y, (((0,), (1,)), ((), ()))), (i32(3, 2), i32(4, 3)))],
    "dynamic_slice": [(lambda x, i: lax.dynamic_slice(x, (i, 1), (2, 2)), (f32(4, 4), np.int32(1))),
                      (lambda x, i: lax.dynamic_slice(x, (i, 0), (2, 2)), (f32(4, 4), np.int32(7)))],
    "dynamic_update_slice": [(lambda x, u, i: lax.dynamic_update_slice(x, u, (i, 0)),
                              (f32(4, 3), f32(2, 3), np.int32(1)))],
    "gather": [(lambda x, i: x[i], (f32(5, 3), i32(4, lo=-5, hi=5))),
               (lambda x, i: fnp.take_along_axis(x, i, axis=1), (f32(3, 4), i32(3, 2, lo=0, hi=4)))],
    "iota": [(lambda: lax.broadcasted_iota(I32, (3, 4), 1), ())],
    "pad": [(lambda x: lax.pad(x, np.float32(-1), ((1, 2, 0), (0, 1, 1))), (f32(2, 3),))],
    "reduce_and": [(lambda x: fnp.all(x, axis=0), (b(3, 4),))],
    "reduce_max": [(lambda x: fnp.max(x, axis=1), (f32(3, 4),))],
    "reduce_min": [(lambda x: fnp.min(x), (i32(3, 4),))],
    "reduce_or": [(lambda x: fnp.any(x, axis=1), (b(3, 4),))],
    "reduce_prod": [(lambda x: fnp.prod(x, axis=0), (f32(3, 4),))],
    "reduce_sum": [(lambda x: fnp.sum(x, axis=(0, 2)), (f32(2, 3, 4),)),
                   (lambda x: fnp.sum(x), (x_bf := f32(8).astype(BF16),))],
    "reduce_xor": [(lambda x: lax.reduce_xor(x, (1,)), (i32(3, 4),))],
    "reshape": [(lambda x: x.reshape(4, 3), (f32(3, 4),))],
    "rev": [(lambda x: fnp.flip(x, axis=1), (f32(3, 4),))],
    "select": [(lambda p, x, y: lax.select(p, x, y), (b(3, 4), f32(3, 4), f32(3, 4)))],
    "slice": [(lambda x: x[1:3, ::2], (f32(4, 5),))],
    "squeeze": [(lambda x: lax.squeeze(x, (1,)), (f32(3, 1, 4),))],
    "transpose": [(lambda x: fnp.transpose(x, (2, 0, 1)), (f32(2, 3, 4),))],
    "scatter": [(lambda x, i, u: x.at[i].set(u), (f32(5, 2), i32(3, lo=0, hi=5), f32(3, 2)))],
    "scatter_add": [(lambda x, i, u: x.at[i].add(u), (f32(5, 2), i32(3, lo=0, hi=5), f32(3, 2)))],
    "scatter_mul": [(lambda x, i, u: x.at[i].multiply(u), (f32(5), i32(3, lo=0, hi=5), f32(3)))],
    "scatter_min": [(lambda x, i, u: x.at[i].min(u), (f32(5), i32(3, lo=0, hi=5), f32(3)))],
    "scatter_max": [(lambda x, i, u: x.at[i].max(u), (i32(5), i32(3, lo=0, hi=5), i32(3)))],
    "scatter_apply": [(lambda x, i: lax.scatter_apply(x, i, lambda v: v * 2 + 1,
                                                      lax.ScatterDimensionNumbers((), (0,), (0,)),
                                                      update_shape=(4,)),
                       (f32(5), i32(4, 1, lo=0, hi=3)))],
    "reduce_window": [(lambda x, i: lax.reduce_window((x, i), (np.float32(0), np.int32(1)),
                                                      lambda a, b: (a[0] + b[0] * b[0], a[1] * b[1]),
                                                      (2, 2), (1, 2), "SAME"),
                       (f32(3, 4), i32(3, 4)))],
    # control flow
    "cond": [(lambda p, x: lax.cond(p > 0, lambda y: fnp.sin(y), lambda y: y * 2.0, x),
              (np.float32(1.0), f32(3))),
             (lambda p, x: lax.cond(p > 0, lambda y: fnp.sin(y), lambda y: y * 2.0, x),
              (np.float32(-1.0), f32(3)))],
    "while": [(lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.0),
                                        (0, x))[1], (f32(3),)),
              (lambda x, n: lax.fori_loop(0, n, lambda i, c: c + i, x), (f32(2), np.int32(4)))],
    "scan": [(lambda c, xs: lax.scan(lambda c, x: (c + x, c * x), c, xs), (f32(2), f32(4, 2))),
             (lambda x: lax.fori_loop(0, 4, lambda i, c: c + i, x), (f32(2),))],
    "custom_vmap_call": [(lambda x, y: _custom_sin(x, y), (f32(3), f32(3)))],
    # autodiff
    "stop_gradient": [(lambda x: lax.stop_gradient(x) * 2.0, (f32(3),))],
    "custom_jvp_call": [(lambda x: _softplus(x), (f32(3),))],
    "custom_vjp_call": [(lambda x: _clip_grad(x), (f32(3),))],
    "checkpoint": [(lambda x: fe.checkpoint(lambda y: fnp.sin(y) * y)(x), (f32(3),))],
    "custom_linear_solve": [(lambda x: lax.custom_linear_solve(
        lambda a: 2.0 * a, x, lambda mv, b: b / 2.0, symmetric=True), (f32(3),))],
    "name": [(lambda x: fe.ad_checkpoint.checkpoint_name(fnp.sin(x), "h") * 2, (f32(3),))],
    # a function exported (frontend.export) and called: its module becomes a private function
    "call_exported": [(lambda x, y: _EXPORTED.call(x, y), (f32(3), f32(3)))],
})


def _u(lo, hi, *s):
    return R.uniform(lo, hi, size=s).astype(F32)


def _c64(*s):
    return (R.normal(size=s) + 1j * R.normal(size=s)).astype(np.complex64)


# issue 14's elementwise and special functions (CHLO ops are expanded for the interpreter)
for _n, _args in {
        "exp2": (f32(5),), "cbrt": (f32(5),), "square": (f32(5),), "asin": (_u(-.9, .9, 5),),
        "acos": (_u(-.9, .9, 5),), "atan": (f32(5),), "sinh": (f32(5),), "cosh": (f32(5),),
        "asinh": (f32(5),), "acosh": (_u(1.1, 3, 5),), "atanh": (_u(-.9, .9, 5),),
        "clz": (i32(5, lo=-2**31, hi=2**31 - 1),), "nextafter": (f32(5), f32(5)),
        "mulhi": (i32(5, lo=-2**31, hi=2**31 - 1), i32(5, lo=-2**31, hi=2**31 - 1)),
        "real": (_c64(5),), "imag": (_c64(5),), "conj": (_c64(5),), "complex": (f32(5), f32(5)),
        "is_finite": (np.array([1, np.inf, -np.inf, np.nan], F32),),
        "erf": (f32(5),), "erfc": (f32(5),), "erf_inv": (_u(-.9, .9, 5),),
        "lgamma": (_u(.1, 5, 5),), "digamma": (_u(.1, 5, 5),), "bessel_i0e": (f32(5),),
        "bessel_i1e": (f32(5),), "polygamma": (np.array([0, 1, 2, 1], F32), _u(.5, 4, 4)),
        "zeta": (_u(1.5, 4, 5), _u(.5, 3, 5)), "igamma": (_u(.5, 4, 5), _u(.1, 5, 5)),
        "igammac": (_u(.5, 4, 5), _u(.1, 5, 5)), "igamma_grad_a": (_u(.5, 4, 5), _u(.1, 5, 5)),
        "regularized_incomplete_beta": (_u(.5, 3, 5), _u(.5, 3, 5), _u(.05, .95, 5))}.items():
    TABLE[_n] = [(getattr(lax, "betainc" if _n.startswith("regularized") else _n), _args)]
TABLE.update({
    "integer_pow": [(lambda x: lax.integer_pow(x, -3), (f32(5),)),
                    (lambda x: lax.integer_pow(x, 7), (i32(5),))],
    "reduce_precision": [(lambda x: lax.reduce_precision(x, 5, 10), (f32(5) * 1e3,))],
    "sort": [(lambda k, v: lax.sort((k, v), num_keys=1), (f32(3, 5), i32(3, 5)))],
    "top_k": [(lambda x: lax.top_k(x, 2), (f32(3, 5),))],
    "reduce": [(lambda x, i: lax.reduce((x, i), (np.float32(0), np.int32(1)),
                                        lambda a, b: (a[0] + b[0] * b[0], a[1] * b[1]), (0,)),
                (f32(3, 4), i32(3, 4)))],
    "random_gamma": [(lambda k, a: fe.random.loggamma(k, a), (np.array([0, 7], np.uint32), _u(.2, 4, 3)))],
    "optimization_barrier": [(lambda x, y: lax.optimization_barrier((x * 2, y)), (f32(3), i32(2)))],
    "reduce_window_sum": [(lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 3), (1, 2), "SAME",
                                                       (2, 1), (1, 2)), (f32(4, 6),))],
    "reduce_window_max": [(lambda x: lax.reduce_window(x, -np.inf, lax.max, (2, 2), (2, 1),
                                                       ((1, 0), (0, 1))), (f32(5, 4),))],
    "reduce_window_min": [(lambda x: lax.reduce_window(x, np.iinfo(I32).max, lax.min, (3,), (1,),
                                                       "VALID"), (i32(6),))],
    "conv_general_dilated": [(lambda x, w: lax.conv_general_dilated(
        x, w, (1, 2), "SAME", rhs_dilation=(2, 1), feature_group_count=2), (f32(2, 4, 6, 6), f32(4, 2, 3, 3)))],
})


@fe.custom_jvp
def _softplus(x):
    return fnp.log1p(fnp.exp(x))


_softplus.defjvp(lambda p, t: (_softplus(p[0]), t[0] * lax.logistic(p[0])))


@fe.custom_vjp
def _clip_grad(x):
    return x * 2.0


_clip_grad.defvjp(lambda x: (x * 2.0, None), lambda r, g: (fnp.clip(g, -1.0, 1.0),))



@custom_vmap
def _custom_sin(x, y):
    return fnp.sin(x) * y


@_custom_sin.def_vmap
def _custom_sin_vmap(axis_size, in_batched, x, y):
    return fnp.sin(x) * y, any(in_batched)


# primitives the StableHLO reference interpreter cannot run: name -> reason
INTERPRETER_LACKS: dict = {
    "custom_lin": "never lowered: reverse mode only transposes it, and evaluating it is forward "
                  "mode through a custom_vjp function (JAX's error)",
    "ffi_call": "a custom call runs native code only XLA can call (refused with a clear error, "
                "tests/test_ffi.py)",
    **{n: "a LAPACK kernel: a custom call only XLA can run (tests/test_prims.py compares it "
          "with JAX)" for n in ("cholesky", "lu", "geqrf", "householder_product", "eigh", "svd",
                                "triangular_solve", "qr")},
    **{n: "a LAPACK kernel (geev, gtsv): a custom call only XLA can run (tests/test_numpy_eig.py "
          "and tests/test_platforms.py compare it with JAX)" for n in ("eig", "tridiagonal_solve")},
    **{n: "XLA's own generator: the bits are XLA's implementation, not the interpreter's "
          "(tests/test_lax_extra.py compares them with JAX's)"
       for n in ("rng_bit_generator", "rng_uniform")},
    **{n: "a LAPACK kernel (gees, gehrd): a custom call only XLA can run "
          "(tests/test_scipy_linalg_more.py compares it with JAX)" for n in ("schur", "hessenberg")},
    "dim_as_value": "exists only in shape-polymorphic modules (a symbolic dimension as a "
                    "value); they run refined to concrete shapes (tests/test_shape_poly.py)",
    "callback": "calls Python on the host through XLA's callback custom call, which only XLA "
                "can run (tests/test_callbacks.py compares it with JAX)",
    "fft": "the interpreter aborts the process on stablehlo.fft (jaxlib 0.10.2), so the "
           "interpreter backend refuses it (tests/test_prims.py compares it with JAX)",
    **{n: "a collective: the vmap binding its axis resolves it before lowering "
          "(tests/test_collectives.py runs the result on both); inside shard_map it is XLA's "
          "collective, in a Shardy manual computation (tests/test_sharding.py)"
       for n, p in project_primitives().items() if is_collective(p)},
    **{n: "Shardy's ops (sdy.*) are for XLA's partitioner; the interpreter has no devices to "
          "partition over (tests/test_sharding.py)" for n in ("sharding_constraint", "shard_map")},
}


def _prims_in(graph) -> set:
    out = set()

    def walk(g):
        for e in g.eqns:
            out.add(e.prim.name)
            for v in e.params.values():
                for sub in (v if isinstance(v, tuple) else (v,)):
                    if hasattr(sub, "eqns"):
                        walk(sub)
                    elif hasattr(sub, "graph") and hasattr(sub.graph, "eqns"):
                        walk(sub.graph)
    walk(graph)
    return out


def test_every_primitive_has_an_interpreter_row():
    ours = set(project_primitives())
    missing = sorted(ours - set(TABLE) - set(INTERPRETER_LACKS))
    assert not missing, f"primitives without an interpreter cross-check row: {missing}"


PRIMITIVES = project_primitives()
CASES = [(name, k) for name in sorted(TABLE) if name in PRIMITIVES for k in range(len(TABLE[name]))]


@pytest.mark.parametrize("name,k", CASES, ids=[f"{n}-{k}" for n, k in CASES])
def test_interpreter_agrees_with_xla(name, k):
    if name in INTERPRETER_LACKS:
        pytest.skip(f"StableHLO reference interpreter lacks {name}: {INTERPRETER_LACKS[name]}")
    fn, args = TABLE[name][k]
    assert name in _prims_in(fe.make_graph(fn)(*args)), f"row for {name} does not bind it"
    xla = fe.jit(fn)(*args)
    interp = fe.jit(fn, device="interpreter")(*args)
    assert_same(interp, xla, f"{name}: interpreter vs XLA")
    leaves = fe.tree_util.tree_flatten(interp)[0]
    assert all(isinstance(x, fe.Array) for x in leaves)


@pytest.mark.parametrize("name", ["add", "dot_general", "gather", "reduce_sum", "dynamic_slice",
                                  "transpose", "cumsum", "cond", "scan"])
def test_interpreter_agrees_with_xla_under_vmap(name):
    """The batched module (batching rules' output) run both ways."""
    if name not in PRIMITIVES:
        pytest.skip(f"{name} not available yet")
    fn, args = TABLE[name][0]
    axes = tuple(0 if np.ndim(a) else None for a in args)
    if all(a is None for a in axes):
        axes = (0,) + axes[1:]
    batched = [np.stack([a, a * 2 if np.asarray(a).dtype != bool else ~a, a]) if ax == 0 else a
               for a, ax in zip(args, axes, strict=True)]
    if name in ("dynamic_slice",):
        axes, batched = (0, 0), [np.stack([args[0]] * 3), np.array([0, 1, 9], np.int32)]
    g = fe.vmap(fn, in_axes=axes)
    assert_same(fe.jit(g, device="interpreter")(*batched), fe.jit(g)(*batched), name)


def test_interpreter_bf16_complex_uint_boundaries():
    """Types the numpy bindings cannot carry (bf16, complex) cross through the wrapper."""
    x = np.array([1.5, -2.25, 3.0], BF16)
    z = np.array([1 + 2j, -0.5j], np.complex64)
    u = np.array([1, 200, 255], np.uint8)
    f = lambda x, z, u: (x * 2, z * z, u // 2, fnp.sum(u.astype(np.uint32)))
    assert_same(fe.jit(f, device="interpreter")(x, z, u), fe.jit(f)(x, z, u))
    s = fe.jit(lambda a: a + 1, device="interpreter")(np.float32(2))
    assert s.shape == () and float(s) == 3.0


def test_interpreter_lowered_and_compiled():
    j = fe.jit(lambda x: fnp.sin(x) * 2, device="interpreter")
    lo = j.lower(np.ones(3, np.float32))
    assert "stablehlo.sine" in lo.as_text()
    c = lo.compile()
    assert "stablehlo.sine" in c.as_text()  # the interpreter runs the StableHLO itself
    # traced/compiled once per signature
    for _ in range(3):
        j(np.ones(3, np.float32))
    assert len(j._cache) == 1


def test_interpreter_rejects_unknown_named_device():
    # refused when jit is called, naming what a device is (before any tracing)
    with pytest.raises(ValueError, match="or 'interpreter'. Received invalid value: 'tpu9'"):
        fe.jit(lambda x: x + 1, device="tpu9")


def test_interpreter_is_right_where_xla_cpu_miscompiles():
    """Found by the fuzzer: XLA CPU (jaxlib 0.10.2) folds a dynamic_slice whose start is
    clamped into a following gather and clamps with the wrong bound (JAX's own jit gives the
    same wrong value). The reference interpreter gives numpy's answer; the fuzzer keeps
    traced dynamic_slice starts in range because of it."""
    x = np.array([[1.0], [0.0], [1.0]], np.float32)
    f = lambda x, a, c: fnp.take(lax.dynamic_slice(x, (a, 0), (2, 1)), c, axis=0)
    expected = np.array([0.0], np.float32)  # start 2 clamps to 1: rows [0, 1], element 0
    got = fe.jit(f, device="interpreter")(x, np.int32(2), np.int32(0))
    np.testing.assert_array_equal(np.asarray(got), expected)
    assert np.asarray(f(x, np.int32(2), np.int32(0))).tolist() == expected.tolist()  # eager
    xla = np.asarray(fe.jit(f)(x, np.int32(2), np.int32(0)))
    if xla.tolist() == expected.tolist():  # pragma: no cover - fixed in a newer XLA
        return
    import jax
    import jax.numpy as jnp
    jf = lambda x, a, c: jnp.take(jax.lax.dynamic_slice(x, (a, 0), (2, 1)), c, axis=0)
    assert np.asarray(jax.jit(jf)(x, np.int32(2), np.int32(0))).tolist() == xla.tolist()


# ----------------------------------------------------------------------------- verifier hook
# tests/conftest.py wraps lowering.runtime.compile_text so that every module compiled in the
# test session is parsed and verified by the MLIR StableHLO verifier first. These tests prove
# the hook sits on every compile path and that a broken module is caught before XLA.

import conftest  # noqa: E402

from lowering import runtime as _rt  # noqa: E402
from lowering.runtime.mlir import StableHLOVerificationError  # noqa: E402


def test_verifier_hook_is_installed_on_the_compile_entry_points():
    assert _rt.compile_text is conftest._verifying_compile_text
    assert _rt.xla.compile_text is conftest._verifying_compile_text


def _verified_after(fn) -> int:
    n0 = conftest.VERIFIED["modules"]
    fn()
    return conftest.VERIFIED["modules"] - n0


def test_verifier_sees_eager_jit_and_cpp_cache_miss_compiles():
    shape = (7, 13, 3)  # a signature no other test compiles
    x = np.full(shape, 0.5, np.float32)
    assert _verified_after(lambda: fnp.tanh(x)) == 1                       # eager single primitive
    j = fe.jit(lambda a: fnp.cos(a) * 3.0 + 1.0)
    assert j._jitted._cpp() is j                                            # C++ dispatch path
    assert _verified_after(lambda: j(x)) == 1                               # its cache miss
    assert _verified_after(lambda: j(x)) == 0                               # C++ hit: no compile
    assert _verified_after(lambda: j(x[:2])) == 1                           # new signature
    assert _verified_after(lambda: fe.jit(lambda a: a - 1, device="interpreter")(x)) == 0
    assert _verified_after(lambda: fe.jit(lambda a: a * 7).lower(x).compile()) == 1  # AOT


def test_a_broken_module_is_caught_by_the_verifier(monkeypatch):
    """A lowering rule that writes an ill-typed op (a result type that disagrees with its operand)
    must fail in the verifier hook with the module printed, not reach XLA."""
    def broken_sin(ctx, x):
        # well-formed text, but reverse's dimensions must be unique: only the verifier knows
        t = ctx.type(ctx.avals_in[0])
        r = ctx.op(f"stablehlo.reverse {x}, dims = [0, 0] : {t}")
        return [ctx.op(f"stablehlo.sine {r} : {t}")]

    from frontend.primitives.elementwise import sin_p
    monkeypatch.setattr(sin_p, "lowering_rule", broken_sin)
    x = np.ones((5, 9, 2), np.float32)
    with pytest.raises(StableHLOVerificationError, match=r"(?s)should be unique.*--- module ---.*stablehlo\.reverse"):
        fe.jit(lambda a: fnp.sin(a) + 1)(x)
    with pytest.raises(StableHLOVerificationError):
        fnp.sin(np.ones((5, 9, 4), np.float32))  # eager path
