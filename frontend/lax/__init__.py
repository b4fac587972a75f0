"""frontend.lax: a subset compatible with JAX's lax. Thin wrappers that bind one primitive
each (operands must already agree in dtype, as in JAX's lax), plus control flow.

>>> import numpy as np
>>> from frontend import lax
>>> lax.add(np.float32(1), 2.0)
Array(3., dtype=float32)
"""
from ..core import jax_names as _jax_names
from ..primitives.conv import ConvDimensionNumbers
from ..primitives.fft import FftType
from . import linalg  # noqa: F401
from ._control import cond, fori_loop, map, platform_dependent, scan, switch, while_loop  # noqa: A004
from ._conv import (
    ConvGeneralDilatedDimensionNumbers,
    conv,
    conv_dimension_numbers,
    conv_general_dilated,
    conv_general_dilated_local,
    conv_general_dilated_patches,
    conv_general_permutations,
    conv_general_shape_tuple,
    conv_shape_tuple,
    conv_transpose,
    conv_transpose_shape_tuple,
    conv_with_general_padding,
    padtype_to_pads,
)
from ._convert import convert_element_type
from ._derived import *  # noqa: F403
from ._derived import __all__ as _derived_names
from ._fft import fft
from ._indexing import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
    dynamic_index_in_dim,
    dynamic_slice,
    dynamic_slice_in_dim,
    dynamic_update_index_in_dim,
    dynamic_update_slice,
    dynamic_update_slice_in_dim,
    gather,
    index_take,
    scatter,
    scatter_add,
    scatter_apply,
    scatter_max,
    scatter_min,
    scatter_mul,
    scatter_sub,
)
from ._linalg import (
    DotAlgorithm,
    DotAlgorithmPreset,
    DotDimensionNumbers,
    Precision,
    PrecisionLike,
    batch_matmul,
    dot,
    dot_general,
)
from ._numeric import (  # noqa: A004
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atanh,
    cbrt,
    clz,
    complex,
    conj,
    cosh,
    exp2,
    imag,
    integer_pow,
    is_finite,
    mulhi,
    nextafter,
    real,
    reciprocal,
    reduce_precision,
    sinh,
    square,
)
from ._ops import (  # noqa: A004
    RoundingMethod,
    abs,
    add,
    and_,
    atan2,
    bitcast_convert_type,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    ceil,
    clamp,
    cos,
    div,
    eq,
    exp,
    expm1,
    floor,
    ge,
    gt,
    le,
    log,
    log1p,
    logistic,
    lt,
    max,
    min,
    mul,
    ne,
    neg,
    not_,
    or_,
    population_count,
    pow,
    rem,
    round,
    rsqrt,
    select,
    select_n,
    shift_left,
    shift_right_arithmetic,
    shift_right_logical,
    sign,
    sin,
    sqrt,
    stop_gradient,
    sub,
    tan,
    tanh,
    xor,
)
from ._parallel import (
    all_gather,
    all_to_all,
    axis_index,
    axis_size,
    pmax,
    pmean,
    pmin,
    ppermute,
    pshuffle,
    psum,
    psum_scatter,
    pswapaxes,
)
from ._primitives import *  # noqa: F403
from ._primitives import __all__ as _primitive_names
from ._ragged import RaggedDotDimensionNumbers, ragged_dot, ragged_dot_general
from ._reduce import reduce
from ._reductions import (
    argmax,
    argmin,
    cummax,
    cummin,
    cumprod,
    cumsum,
    reduce_and,
    reduce_max,
    reduce_min,
    reduce_or,
    reduce_prod,
    reduce_sum,
    reduce_xor,
)
from ._rng import RandomAlgorithm, rng_bit_generator, rng_uniform
from ._scans import associative_scan, composite
from ._shape import (
    broadcast,
    broadcast_in_dim,
    broadcast_like,
    broadcast_shapes,
    broadcast_to_rank,
    broadcasted_iota,
    collapse,
    concatenate,
    dtype,
    empty,
    expand_dims,
    full,
    full_like,
    index_in_dim,
    iota,
    pad,
    reshape,
    rev,
    slice,
    slice_in_dim,
    squeeze,
    stack,
    transpose,
    unstack,
)
from ._sharding import with_sharding_constraint
from ._solves import custom_linear_solve, custom_root
from ._sort import approx_max_k, approx_min_k, sort, sort_key_val, top_k
from ._special import (
    bessel_i0e,
    bessel_i1e,
    betainc,
    digamma,
    erf,
    erf_inv,
    erfc,
    igamma,
    igamma_grad_a,
    igammac,
    lgamma,
    polygamma,
    random_gamma_grad,
    zeta,
)
from ._tiling import optimization_barrier, split, tile
from ._windows import cumlogsumexp, reduce_window, reduce_window_shape_tuple

__all__ = [
    "abs", "acos", "acosh", "add", "all_gather", "all_to_all", "and_", "argmax", "argmin",
    "asin", "asinh", "atan", "atan2", "atanh", "axis_index", "axis_size", "bessel_i0e",
    "bessel_i1e", "betainc", "bitcast_convert_type", "bitwise_and", "bitwise_not", "bitwise_or",
    "bitwise_xor", "broadcast", "broadcast_in_dim", "broadcasted_iota", "cbrt", "ceil", "clamp",
    "clz", "complex", "concatenate", "cond", "conj", "conv", "conv_dimension_numbers",
    "conv_general_dilated", "conv_with_general_padding", "ConvDimensionNumbers",
    "convert_element_type", "cos", "cosh", "cumlogsumexp", "cummax", "cummin", "cumprod",
    "cumsum", "digamma", "div", "dot", "dot_general", "dynamic_index_in_dim", "dynamic_slice",
    "dynamic_slice_in_dim", "dynamic_update_index_in_dim", "dynamic_update_slice",
    "dynamic_update_slice_in_dim", "eq", "erf", "erf_inv", "erfc", "exp", "exp2", "expand_dims",
    "expm1", "fft", "FftType", "floor", "fori_loop", "gather", "GatherDimensionNumbers", "ge",
    "gt", "igamma", "igamma_grad_a", "igammac", "imag", "index_in_dim", "integer_pow", "iota", "is_finite", "le",
    "lgamma", "log", "log1p", "logistic", "lt", "map", "max", "min", "mul", "mulhi", "ne",
    "neg", "nextafter", "not_", "optimization_barrier", "or_", "pad", "padtype_to_pads", "pmax",
    "pmean", "pmin", "polygamma", "population_count", "pow", "ppermute", "Precision",
    "pshuffle", "psum", "psum_scatter", "pswapaxes", "real", "reciprocal", "reduce",
    "reduce_and", "reduce_max", "reduce_min", "reduce_or", "reduce_precision", "reduce_prod",
    "reduce_sum", "reduce_window", "reduce_xor", "rem", "reshape", "rev", "round", "rsqrt",
    "scan", "scatter", "scatter_add", "scatter_apply", "scatter_max", "scatter_min", "scatter_mul",
    "ScatterDimensionNumbers", "select", "select_n", "shift_left", "shift_right_arithmetic",
    "shift_right_logical", "sign", "sin", "sinh", "slice", "slice_in_dim", "sort",
    "sort_key_val", "split", "sqrt", "square", "squeeze", "stop_gradient", "sub", "switch", "platform_dependent",
    "tan", "tanh", "tile", "top_k", "transpose", "while_loop", "zeta",
    "with_sharding_constraint", "xor",
] + _primitive_names + [
    "RoundingMethod", "conv_general_permutations", "conv_general_shape_tuple",
    "conv_shape_tuple", "conv_transpose", "conv_transpose_shape_tuple", "associative_scan",
    "composite", "batch_matmul", "scatter_sub", "index_take", "approx_max_k", "approx_min_k",
    "reduce_window_shape_tuple", "broadcast_like", "broadcast_shapes", "broadcast_to_rank",
    "collapse", "DotDimensionNumbers", "PrecisionLike", "ConvGeneralDilatedDimensionNumbers",
    "GatherScatterMode", "random_gamma_grad", "dtype", "empty", "full", "full_like", "stack", "unstack",
    "custom_linear_solve", "custom_root", "conv_general_dilated_local",
    "conv_general_dilated_patches", "RandomAlgorithm", "rng_bit_generator", "rng_uniform",
    "RaggedDotDimensionNumbers", "ragged_dot", "ragged_dot_general", "DotAlgorithm",
    "DotAlgorithmPreset",
] + _derived_names


def __getattr__(name):
    raise _jax_names.missing(__name__, name)
