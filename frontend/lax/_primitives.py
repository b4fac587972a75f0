"""JAX's ``lax.*_p`` names: the primitive objects themselves (``lax.add_p.bind(x, y)``
works as in JAX; a primitive's ``name`` is JAX's, scatter's aside, which follow StableHLO)."""
from ..primitives.barrier import (  # noqa: F401
    optimization_barrier_p,
)
from ..primitives.bits import (  # noqa: F401
    bitcast_convert_type_p,
    population_count_p,
)
from ..primitives.collectives import (  # noqa: F401
    all_gather_p,
    all_to_all_p,
    axis_index_p,
    pmax_p,
    pmin_p,
    ppermute_p,
    psum_p,
)
from ..primitives.control import (  # noqa: F401
    cond_p,
    scan_p,
    while_p,
)
from ..primitives.conv import (  # noqa: F401
    conv_general_dilated_p,
)
from ..primitives.elementwise import (  # noqa: F401
    abs_p,
    add_p,
    and_p,
    atan2_p,
    ceil_p,
    convert_element_type_p,
    cos_p,
    div_p,
    eq_p,
    eq_to_p,
    exp_p,
    expm1_p,
    floor_p,
    ge_p,
    gt_p,
    le_p,
    le_to_p,
    log1p_p,
    log_p,
    logistic_p,
    lt_p,
    lt_to_p,
    max_p,
    min_p,
    mul_p,
    ne_p,
    neg_p,
    not_p,
    or_p,
    pow_p,
    rem_p,
    round_p,
    rsqrt_p,
    select_p,
    shift_left_p,
    shift_right_arithmetic_p,
    shift_right_logical_p,
    sign_p,
    sin_p,
    sqrt_p,
    stop_gradient_p,
    sub_p,
    tan_p,
    tanh_p,
    xor_p,
)
from ..primitives.fft import (  # noqa: F401
    fft_p,
)
from ..primitives.general_reduce import (  # noqa: F401
    reduce_p,
)
from ..primitives.indexing import (  # noqa: F401
    dynamic_slice_p,
    dynamic_update_slice_p,
    gather_p,
    scatter_add_p,
    scatter_max_p,
    scatter_min_p,
    scatter_mul_p,
    scatter_p,
)
from ..primitives.linalg import (  # noqa: F401
    dot_general_p,
)
from ..primitives.linear_solve import linear_solve_p  # noqa: F401
from ..primitives.numeric import (  # noqa: F401
    acos_p,
    acosh_p,
    asin_p,
    asinh_p,
    atan_p,
    atanh_p,
    cbrt_p,
    clz_p,
    complex_p,
    conj_p,
    cosh_p,
    exp2_p,
    imag_p,
    integer_pow_p,
    is_finite_p,
    mulhi_p,
    nextafter_p,
    real_p,
    reduce_precision_p,
    sinh_p,
    square_p,
)
from ..primitives.padding import (  # noqa: F401
    concatenate_p,
    pad_p,
    slice_p,
)
from ..primitives.reductions import (  # noqa: F401
    argmax_p,
    argmin_p,
    cummax_p,
    cummin_p,
    cumprod_p,
    cumsum_p,
    reduce_and_p,
    reduce_max_p,
    reduce_min_p,
    reduce_or_p,
    reduce_prod_p,
    reduce_xor_p,
)
from ..primitives.rng import rng_bit_generator_p, rng_uniform_p  # noqa: F401
from ..primitives.shape import (  # noqa: F401
    broadcast_in_dim_p,
    iota_p,
    reduce_sum_p,
    reshape_p,
    rev_p,
    squeeze_p,
    transpose_p,
)
from ..primitives.sharding import (  # noqa: F401
    sharding_constraint_p,
)
from ..primitives.sort import (  # noqa: F401
    sort_p,
    top_k_p,
)
from ..primitives.special import (  # noqa: F401
    bessel_i0e_p,
    bessel_i1e_p,
    digamma_p,
    erf_inv_p,
    erf_p,
    erfc_p,
    igamma_grad_a_p,
    igamma_p,
    igammac_p,
    lgamma_p,
    polygamma_p,
    regularized_incomplete_beta_p,
    zeta_p,
)
from ..primitives.windows import (  # noqa: F401
    reduce_window_max_p,
    reduce_window_min_p,
    reduce_window_p,
    reduce_window_sum_p,
)

select_n_p = select_p  # JAX's name for the n-way select (ours binds it as select_n)

__all__ = [
    "abs_p", "acos_p", "acosh_p", "add_p", "all_gather_p", "all_to_all_p", "and_p", "argmax_p",
    "argmin_p", "asin_p", "asinh_p", "atan2_p", "atan_p", "atanh_p", "axis_index_p",
    "bessel_i0e_p", "bessel_i1e_p", "bitcast_convert_type_p", "broadcast_in_dim_p", "cbrt_p",
    "ceil_p", "clz_p", "complex_p", "concatenate_p", "cond_p", "conj_p", "conv_general_dilated_p",
    "convert_element_type_p", "cos_p", "cosh_p", "cummax_p", "cummin_p", "cumprod_p", "cumsum_p",
    "digamma_p", "div_p", "dot_general_p", "eq_to_p", "le_to_p", "lt_to_p", "dynamic_slice_p", "dynamic_update_slice_p", "eq_p",
    "erf_inv_p", "erf_p", "erfc_p", "exp2_p", "exp_p", "expm1_p", "fft_p", "floor_p", "gather_p",
    "ge_p", "gt_p", "igamma_grad_a_p", "igamma_p", "igammac_p", "imag_p", "integer_pow_p",
    "iota_p", "is_finite_p", "le_p", "linear_solve_p", "lgamma_p", "log1p_p", "log_p", "logistic_p", "lt_p",
    "max_p", "min_p", "mul_p", "mulhi_p", "ne_p", "neg_p", "nextafter_p", "not_p",
    "optimization_barrier_p", "or_p", "pad_p", "pmax_p", "pmin_p", "polygamma_p",
    "population_count_p", "pow_p", "ppermute_p", "psum_p", "real_p", "reduce_and_p",
    "reduce_max_p", "reduce_min_p", "reduce_or_p", "reduce_p", "reduce_precision_p",
    "reduce_prod_p", "reduce_sum_p", "reduce_window_max_p", "reduce_window_min_p",
    "reduce_window_p", "reduce_window_sum_p", "reduce_xor_p", "regularized_incomplete_beta_p",
    "rem_p", "reshape_p", "rev_p", "rng_bit_generator_p", "rng_uniform_p", "round_p", "rsqrt_p", "scan_p", "scatter_add_p",
    "scatter_max_p", "scatter_min_p", "scatter_mul_p", "scatter_p", "select_n_p",
    "sharding_constraint_p", "shift_left_p", "shift_right_arithmetic_p", "shift_right_logical_p",
    "sign_p", "sin_p", "sinh_p", "slice_p", "sort_p", "sqrt_p", "square_p", "squeeze_p",
    "stop_gradient_p", "sub_p", "tan_p", "tanh_p", "top_k_p", "transpose_p", "while_p", "xor_p",
    "zeta_p"
]
