"""frontend.lax: a subset compatible with JAX's lax. Thin wrappers that bind one primitive
each (operands must already agree in dtype, as in JAX's lax), plus control flow.

>>> from frontend import lax
>>> lax.add(np.float32(1), 2.0)
Array(3., dtype=float32)
"""
from .. import _jax_names
from ._control import cond, fori_loop, map, scan, switch, while_loop  # noqa: A004
from ._convert import convert_element_type
from ._indexing import (
                        GatherDimensionNumbers,
                        ScatterDimensionNumbers,
                        dynamic_index_in_dim,
                        dynamic_slice,
                        dynamic_slice_in_dim,
                        dynamic_update_index_in_dim,
                        dynamic_update_slice,
                        dynamic_update_slice_in_dim,
                        gather,
                        scatter,
                        scatter_add,
                        scatter_max,
                        scatter_min,
                        scatter_mul,
)
from ._linalg import dot, dot_general
from ._ops import (  # noqa: A004
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
                        integer_pow,
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
from ._shape import (
                        broadcast,
                        broadcast_in_dim,
                        broadcasted_iota,
                        concatenate,
                        expand_dims,
                        index_in_dim,
                        iota,
                        pad,
                        reshape,
                        rev,
                        slice,
                        slice_in_dim,
                        squeeze,
                        transpose,
)
from ._sharding import with_sharding_constraint

__all__ = [
    "abs", "add", "all_gather", "all_to_all", "and_", "argmax", "argmin", "atan2", "axis_index", "bitcast_convert_type",
    "axis_size", "bitwise_and", "bitwise_not", "bitwise_or",
    "bitwise_xor", "broadcast", "broadcast_in_dim", "broadcasted_iota", "ceil", "clamp", "concatenate",
    "cond", "convert_element_type", "cos", "cummax", "cummin", "cumprod", "cumsum", "div", "dot",
    "dot_general", "dynamic_index_in_dim", "dynamic_slice", "dynamic_slice_in_dim",
    "dynamic_update_index_in_dim", "dynamic_update_slice", "dynamic_update_slice_in_dim", "eq",
    "exp", "expand_dims", "expm1", "floor", "fori_loop", "gather", "GatherDimensionNumbers", "ge",
    "gt", "index_in_dim", "integer_pow", "iota", "le", "log", "log1p", "logistic", "lt", "map", "max", "min",
    "mul", "ne", "neg", "not_", "or_", "pad", "pmax", "pmean", "pmin", "population_count", "pow", "ppermute",
    "pshuffle", "psum", "psum_scatter", "pswapaxes", "reduce_and", "reduce_max", "reduce_min",
    "reduce_or", "reduce_prod", "reduce_sum", "reduce_xor", "rem", "reshape", "rev", "round",
    "rsqrt", "scan", "scatter", "scatter_add", "scatter_max", "scatter_min", "scatter_mul",
    "ScatterDimensionNumbers", "select", "select_n", "shift_left", "shift_right_arithmetic",
    "shift_right_logical", "sign", "sin", "slice", "slice_in_dim", "sqrt",
    "squeeze", "stop_gradient", "sub", "switch", "tan", "tanh", "transpose", "while_loop",
    "with_sharding_constraint", "xor",
]


def __getattr__(name):
    raise _jax_names.missing(__name__, name)
