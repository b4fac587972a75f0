"""jax.lax: elementwise, reductions, shapes and small helpers compared on sampled float32,
int32 and bool operands (eager and under jit); control flow, collectives, indexing, conv and
linear algebra by their own test files; the ``*_p`` primitives by tests/test_surface_extra.py."""
import jax.lax as _jl
import numpy as np
from harness import assert_same

import frontend.lax as _fl
from surface.common import Side, c

JAX, OURS, REQUIRED = "jax.lax", "frontend.lax", 0.95
_OURS = set(dir(_fl))
R = np.random.default_rng(26)
X = R.normal(size=(3, 4)).astype(np.float32)
Y = R.normal(size=(3, 4)).astype(np.float32)
U = R.uniform(0.1, 0.9, size=(3, 4)).astype(np.float32)   # (0, 1): acos, atanh, erf_inv, ...
BIG = (1.5 + 3 * U).astype(np.float32)                     # > 1: acosh, lgamma, zeta, ...
I = R.integers(-20, 20, size=(3, 4)).astype(np.int32)
J = R.integers(1, 7, size=(3, 4)).astype(np.int32)
B = R.integers(0, 2, size=(3, 4)).astype(bool)
IMG = R.normal(size=(2, 3, 6, 5)).astype(np.float32)
KER = R.normal(size=(4, 3, 3, 2)).astype(np.float32)
IMG_T = R.normal(size=(2, 5, 4, 3)).astype(np.float32)
KER_T = R.normal(size=(3, 2, 3, 4)).astype(np.float32)
KER_T2 = R.normal(size=(3, 2, 4, 3)).astype(np.float32)
NHWC = ("NHWC", "HWIO", "NHWC")
KEY = np.uint32([1, 2, 3, 4])
GROUPS = np.int32([2, 0, 3])   # ragged dots: 5 of 6 positions in 3 groups (one empty)
RAGGED = {"nc": (X.T[:, :2].repeat(3, 0)[:6], R.normal(size=(3, 2, 5)).astype(np.float32)),
          "c": (R.normal(size=(4, 6)).astype(np.float32), R.normal(size=(6, 5)).astype(np.float32))}
LOCAL_W = R.normal(size=(4, 18, 4, 4)).astype(np.float32)   # per-position kernels, OIHW
Z = (X + 1j * Y).astype(np.complex64)

FLOAT_UNARY = {
    "abs": X, "atan": X, "asinh": X, "cbrt": X, "ceil": X, "cos": X, "cosh": X, "erf": X,
    "erfc": X, "exp": X, "exp2": X, "expm1": X, "floor": X, "is_finite": X, "logistic": X,
    "neg": X, "round": X, "sign": X, "sin": X, "sinh": X, "square": X, "tan": X, "tanh": X,
    "bessel_i0e": X, "bessel_i1e": X, "reciprocal": BIG, "stop_gradient": X,
    "acos": U, "asin": U, "atanh": U, "erf_inv": U, "log": U, "log1p": U, "sqrt": U,
    "rsqrt": U, "acosh": BIG, "lgamma": BIG, "digamma": BIG,
    "real": Z, "imag": Z, "conj": Z,
}
FLOAT_BINARY = {"add": (X, Y), "sub": (X, Y), "mul": (X, Y), "div": (X, BIG), "max": (X, Y),
                "min": (X, Y), "pow": (U, X), "rem": (X, BIG), "atan2": (X, Y),
                "nextafter": (X, Y), "complex": (X, Y), "igamma": (BIG, U),
                "igammac": (BIG, U), "igamma_grad_a": (BIG, U), "zeta": (BIG + 1, U),
                "eq": (X, Y), "ne": (X, Y), "lt": (X, Y), "le": (X, Y), "gt": (X, Y),
                "ge": (X, Y)}
INT_BINARY = {"shift_left": (I, J), "shift_right_arithmetic": (I, J),
              "shift_right_logical": (I, J), "bitwise_and": (I, J), "bitwise_or": (I, J),
              "bitwise_xor": (I, J)}
CASES = {n: [c(x)] for n, x in FLOAT_UNARY.items()}
CASES.update({n: [c(*xs)] for n, xs in FLOAT_BINARY.items()})
CASES.update({n: [c(*xs), c(B, ~B)] for n, xs in INT_BINARY.items() if n.startswith("bitwise")})
CASES.update({n: [c(*xs)] for n, xs in INT_BINARY.items() if not n.startswith("bitwise")})
CASES.update({
    "add": [c(X, Y), c(I, J), c(np.float32(2), 3.0)],
    "round": [c(X), c(np.float32([0.5, -1.5, 2.5, 0.49999997])),
              c(X, Side(lambda m: m.RoundingMethod.TO_NEAREST_EVEN))],
    "bitwise_not": [c(I), c(B)],
    "population_count": [c(I)], "clz": [c(I)], "mulhi": [c(I, J)],
    "integer_pow": [c(X, 3), c(X, -2)],
    "polygamma": [c(np.float32(1), BIG)],
    "betainc": [c(BIG, BIG[::-1], U)],
    "random_gamma_grad": [c(BIG - 1, U * 3), c(np.float32([0.5, 1.5, 3.0]), np.float32([0.2, 1.0, 4.0]))],
    "clamp": [c(np.float32(-0.5), X, np.float32(0.5))],
    "select": [c(B, X, Y)], "select_n": [c(B, X, Y), c(J % 3, X, Y, X + 1)],
    "convert_element_type": [c(X, np.int32), c(I, np.float16)],
    "bitcast_convert_type": [c(X, np.int32), c(X, np.uint8)],
    "reduce_precision": [c(X, exponent_bits=5, mantissa_bits=10)],
    "reduce_sum": [c(X, (0,)), c(I, (0, 1))], "reduce_prod": [c(X, (1,))],
    "reduce_max": [c(X, (0,))], "reduce_min": [c(I, (1,))], "reduce_and": [c(B, (0,))],
    "reduce_or": [c(B, (1,))], "reduce_xor": [c(B, (0,))],
    "argmax": [c(X, 1, np.int32)], "argmin": [c(X, 0, np.int32)],
    "cumsum": [c(X, 1), c(X, 0, reverse=True)], "cumprod": [c(X, 1)], "cummax": [c(X, 0)],
    "cummin": [c(I, 1, reverse=True)], "cumlogsumexp": [c(X, 1)],
    "reshape": [c(X, (4, 3)), c(X, (2, 6), (1, 0))],
    "transpose": [c(X, (1, 0))], "rev": [c(X, (0,))], "squeeze": [c(X[None], (0,))],
    "expand_dims": [c(X, (0, 2))], "broadcast": [c(X, (2,))],
    "broadcast_in_dim": [c(X[0], (3, 4), (1,))], "concatenate": [c([X, Y], 0)],
    "pad": [c(X, np.float32(0), [(1, 2, 1), (0, -1, 0)])],
    "slice": [c(X, (0, 1), (2, 4), (1, 2))], "slice_in_dim": [c(X, 1, 3, axis=1)],
    "index_in_dim": [c(X, 1, axis=0), c(X, 2, 1, False)],
    "dynamic_slice": [c(X, (1, 1), (2, 2))],
    "dynamic_slice_in_dim": [c(X, 1, 2, axis=1)],
    "dynamic_index_in_dim": [c(X, 2, axis=1, keepdims=False)],
    "dynamic_update_slice": [c(X, Y[:2, :2], (1, 1))],
    "dynamic_update_slice_in_dim": [c(X, Y[:1], 1, 0)],
    "dynamic_update_index_in_dim": [c(X, Y[0], 2, 0)],
    "iota": [c(np.int32, 5, _jit=False)],
    "broadcasted_iota": [c(np.float32, (2, 3), 1, _jit=False)],
    "tile": [c(X, (2, 1))], "split": [c(X, (1, 3), axis=1)],
    "sort": [c(X), c(X, dimension=0)], "sort_key_val": [c(X, I, 1)],
    "top_k": [c(X, 2)],
    "dot": [c(X, Y.T)], "dot_general": [c(X, Y, (((1,), (1,)), ((), ())))],
    "padtype_to_pads": [c((5, 6), (3, 3), (1, 2), "SAME", _jit=False)],
    "fft": [c(Z, "FFT", (4,)), c(Z, "FFT", ()), c(X, "FFT", ()), c(X, "RFFT", ()),
            c(Z, "IRFFT", ()), c(X, Side(lambda m: m.FftType.RFFT), (4,))],
    "conv": [c(IMG, KER, (1, 1), "SAME")],
    "conv_general_dilated": [c(IMG, KER, (2, 1), [(1, 0), (0, 1)], (1, 1), (2, 1))],
    "conv_with_general_padding": [c(IMG, KER, (1, 1), [(1, 1), (0, 0)], None, None)],
    "conv_dimension_numbers": [c((2, 3, 5, 5), (4, 3, 3, 3), ("NCHW", "OIHW", "NCHW"), _jit=False)],
    "optimization_barrier": [c((X, Y))],
    "conv_shape_tuple": [c((2, 3, 9, 8), (4, 3, 3, 2), (2, 1), "SAME", _jit=False),
                         c((4, 3, 9, 8), (4, 3, 3, 2), (1, 1), [(1, 0), (0, 2)], 2, _jit=False)],
    "conv_general_shape_tuple": [c((2, 9, 8, 3), (3, 2, 3, 4), (2, 1), "VALID", NHWC, _jit=False)],
    "conv_transpose_shape_tuple": [c((2, 5, 5, 3), (3, 2, 3, 4), (2, 2), "SAME", NHWC, _jit=False),
                                   c((2, 5, 5, 3), (3, 2, 3, 4), (3, 1), "VALID", NHWC, _jit=False)],
    "conv_general_permutations": [c(NHWC, _jit=False)],
    "conv_general_dilated_patches": [c(IMG, (3, 2), (1, 1), "VALID"),
                                     c(IMG_T, (2, 2), (2, 1), "SAME", dimension_numbers=NHWC)],
    "rng_bit_generator": [c(KEY, (2, 3)), c(KEY, (5,), np.uint8, Side(lambda m: m.RandomAlgorithm.RNG_PHILOX)),
                          c(KEY, (3,), np.uint16, Side(lambda m: m.RandomAlgorithm.RNG_THREE_FRY)),
                          c(KEY, (2,), np.int32, _raises=TypeError)],
    "ragged_dot": [c(*RAGGED["nc"], GROUPS), c(*RAGGED["nc"], GROUPS, precision="highest")],
    "ragged_dot_general": [
        c(*RAGGED["c"], GROUPS, Side(lambda m: m.RaggedDotDimensionNumbers(
            (((1,), (0,)), ((), ())), (1,), ()))),
        c(*RAGGED["nc"], GROUPS, Side(lambda m: m.RaggedDotDimensionNumbers(
            (((1,), (1,)), ((), ())), (0,), (0,))), preferred_element_type=np.float32)],
    "conv_general_dilated_local": [c(IMG, LOCAL_W, (1, 1), "VALID", (3, 2))],
    "conv_transpose": [c(IMG_T, KER_T, (2, 2), "SAME", dimension_numbers=NHWC),
                       c(IMG_T, KER_T, (3, 1), "VALID", dimension_numbers=NHWC),
                       c(IMG_T, KER_T2, (2, 1), [(1, 2), (0, 1)], dimension_numbers=NHWC,
                         transpose_kernel=True),
                       c(IMG_T, KER_T, (2, 1), "SAME")],
    "reduce_window_shape_tuple": [c((5, 0, 7), (2, 1, 3), (1, 1, 2), [(0, 0), (1, 0), (1, 1)],
                                    (2, 1, 1), (1, 1, 2), _jit=False)],
    "associative_scan": [c(Side(lambda m: m.add), X, False, 1),
                         c(Side(lambda m: m.mul), X[:, :3], True, 1),
                         c(Side(lambda m: lambda a, b: (m.max(a[0], b[0]), a[1] + b[1])), (X, Y))],
    "batch_matmul": [c(IMG[:, 0], IMG[:, 1].transpose(0, 2, 1)), c(X[0], Y[0], _raises=ValueError)],
    "scatter_sub": [c(X, np.array([[0], [2], [0]]), Y[:, :1],
                      Side(lambda m: m.ScatterDimensionNumbers((1,), (0,), (0,))))],
    "index_take": [c(X, (np.array([0, 2, 2]), np.array([1, 3, 0])), (0, 1)),
                   c(IMG, (np.array([1, 0]),), (1,))],
    "approx_max_k": [c(X, 2), c(X, 2, 0)], "approx_min_k": [c(X, 3), c(I, 2, _raises=ValueError)],
    "broadcast_shapes": [c((3, 1), (4,), _jit=False), c((3,), (4,), _jit=False, _raises=ValueError)],
    "broadcast_to_rank": [c(X[0], 3)], "broadcast_like": [c(IMG[0, 0, 0], IMG[0])],
    "collapse": [c(IMG, 1), c(IMG, 0, 2)],
    "dtype": [c(1.0, _jit=False), c(np.float16(1), _jit=False), c(X, _jit=False)],
    "full": [c((2, 3), 1.5, _jit=False), c((2,), np.int8(3), _jit=False),
             c(3, 2, np.float16, _jit=False), c((2,), X, _raises=TypeError, _jit=False)],
    "full_like": [c(I, 2.5), c(X, 1, np.int32, (2,))],
    "empty": [c((2, 3), np.float32, _jit=False)],
    "stack": [c([X, Y], 1), c([X, Y], -1)], "unstack": [c(X, 1), c(X)],
    "composite": [c(Side(lambda m: m.sin), "my.sin", _jit=False,
                    _compare=lambda o, t: assert_same(o(X), t(X), "composite"))],
    "stage": [c(3.0), c(X)],
    "platform_dependent": [c(X, cpu=Side(lambda m: m.sin), default=Side(lambda m: m.cos)),
                           c(X, tpu=Side(lambda m: m.sin), default=Side(lambda m: m.cos))],
    "reduce_window": [c(X, np.float32(0), Side(lambda m: m.add), (2, 2), (1, 1), "VALID")],
})
_C, _P = "test_control.py::", "test_collectives.py::"
ELSEWHERE = {
    **{n: _C + "test_vs_jax" for n in ["cond", "fori_loop", "map", "scan", "switch", "while_loop"]},
    **{n: _P + "test_one_named_axis_vs_numpy_and_jax"
       for n in ["all_gather", "all_to_all", "axis_index", "axis_size", "pmax", "pmean", "pmin",
                 "ppermute", "pshuffle", "psum", "psum_scatter", "pswapaxes"]},
    **{n: "test_indexing.py::test_gather" for n in ["gather", "GatherDimensionNumbers"]},
    **{n: "test_indexing.py::test_scatter"
       for n in ["scatter", "scatter_add", "scatter_max", "scatter_min", "scatter_mul",
                 "ScatterDimensionNumbers", "scatter_apply"]},
    **{n: "test_surface_extra.py::test_lax_classes"
       for n in ["ConvDimensionNumbers", "FftType", "Precision", "RoundingMethod",
                 "GatherScatterMode", "DotDimensionNumbers", "PrecisionLike",
                 "ConvGeneralDilatedDimensionNumbers"]},
    "reduce": "test_jax_parity_control.py::test_variadic_reduce_over_no_dimensions",
    "custom_linear_solve": "test_lax_extra.py::test_custom_linear_solve_values_and_derivatives",
    "custom_root": "test_lax_extra.py::test_custom_root_implicit_derivatives",
    **{n: "test_lax_extra.py::test_xla_rng_ops_as_jax" for n in ["RandomAlgorithm", "rng_uniform"]},
    "RaggedDotDimensionNumbers": "test_lax_extra.py::test_ragged_dot_modes_grads_and_vmap",
    **{n: "test_lax_extra.py::test_dot_algorithms_as_jax" for n in ["DotAlgorithm", "DotAlgorithmPreset"]},
    "linalg": "test_surface.py::test_every_name_is_accounted_for_once",
    "with_sharding_constraint":
        "test_sharding.py::test_one_device_mesh_every_collective_constraint_and_batching",
}
ELSEWHERE.update({n: "test_surface_extra.py::test_lax_primitives_are_ours_named_as_jax"
                  for n in dir(_jl) if n.endswith("_p") and n in _OURS})
ELSEWHERE.update({n: "test_lax_extra.py::test_lax_primitives_bind_as_jax"
                  for n in ["clamp_p", "split_p", "tile_p", "stack_p", "unstack_p",
                            "cumlogsumexp_p", "approx_top_k_p", "copy_p", "stage_p", "eq_to_p",
                            "le_to_p", "lt_to_p", "scatter_sub_p", "select_and_gather_add_p",
                            "select_and_scatter_add_p"]})
TODO = "not implemented yet (issue 26)"
ABSENT = {
    **{n: "tokens and side effects: vmaplab's graphs have no token values"
       for n in ["after_all", "after_all_p", "create_token", "create_token_p", "dce_sink",
                 "dce_sink_p", "psend", "precv"]},
    **{n: "ragged all-to-all (MoE expert exchange): a collective with per-peer offsets and "
          "sizes that vmaplab's named-axis collectives do not model"
       for n in ["ragged_all_to_all", "ragged_all_to_all_p"]},
    "select_and_scatter_p": "JAX's general select_and_scatter with user select/scatter jaxprs in "
                            "its params (JAX's own lax builds none); vmaplab has the form JAX "
                            "uses, select_and_scatter_add_p",
    "device_put_p": "device_put with per-operand devices/srcs/copy_semantics params of JAX's "
                    "Device and Sharding objects: vmaplab's fe.device_put is a transfer",
    **{n: "varying-type casts of shard_map's type system, which vmaplab does not have"
       for n in ["pbroadcast", "pcast"]},
    "shape_as_value": "dynamic shapes: vmaplab's shapes are static",
    **{n: "accuracy= of the transcendental ops (StableHLO's result_accuracy) is not modelled"
       for n in ["AccuracyMode", "Tolerance"]},
    "scaled_dot": "block-scaled (microscaling) float8 dot: vmaplab has no float8 block-scale "
                  "lowering",
}
ABSENT.update({n: TODO for n in dir(_jl) if not n.startswith("_") and n not in _OURS
               and n not in ABSENT})
