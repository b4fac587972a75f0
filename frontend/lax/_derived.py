"""JAX's ``lax.*_p`` for operations vmaplab's lax writes as compositions: each a Primitive
(frontend.primitives.derived) whose implementation is the lax function, bound with JAX's
operands and params."""
from __future__ import annotations

from ..core.ir import aval_of
from ..core.tracing import trace_graph
from ..interpreters.ad_util import UndefinedPrimal
from ..interpreters.jvp import jvp_fun
from ..interpreters.transpose import backward_pass
from ..primitives import elementwise as ew
from ..primitives.derived import derived
from ..primitives.shape import instantiate_zeros
from ..primitives.windows import reduce_window_max_p, reduce_window_min_p
from ._convert import as_operand
from ._indexing import scatter_sub
from ._ops import clamp
from ._shape import stack, unstack
from ._sort import approx_max_k, approx_min_k
from ._tiling import split, tile
from ._windows import cumlogsumexp


def _approx_top_k(operand, *, k, reduction_dimension, recall_target, is_max_k,
                  reduction_input_size_override, aggregate_to_topk):
    f = approx_max_k if is_max_k else approx_min_k
    return f(operand, k, reduction_dimension, recall_target, reduction_input_size_override,
             aggregate_to_topk)


def _scatter_sub(operand, indices, updates, *, dimension_numbers, indices_are_sorted=False,
                 unique_indices=False, mode=None, update_jaxpr=None, update_consts=()):
    return scatter_sub(operand, indices, updates, dimension_numbers,
                       indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                       mode=mode)


def _chooser(select_prim):
    """The window reduction a select_and_* primitive's ``select_prim`` picks (ge: the first
    maximum of each window, le: the first minimum), as JAX's."""
    if select_prim is ew.ge_p:
        return reduce_window_max_p
    if select_prim is ew.le_p:
        return reduce_window_min_p
    raise NotImplementedError(f"select_prim {select_prim} is not ge_p or le_p")


def _select_and_gather_add(tangents, operand, *, select_prim, window_dimensions,
                           window_strides, padding, base_dilation, window_dilation):
    # the tangent at each window's selected element: the jvp of the window max (min)
    prim = _chooser(select_prim)
    params = dict(window_dimensions=tuple(window_dimensions),
                  window_strides=tuple(window_strides), padding=tuple(map(tuple, padding)),
                  base_dilation=tuple(base_dilation), window_dilation=tuple(window_dilation))
    return jvp_fun(lambda x: [prim.bind(x, **params)], [operand], [tangents])[1][0]


def _select_and_scatter_add(source, operand, *, select_prim, window_dimensions,
                            window_strides, padding):
    # each source element added at its window's selected element: the transpose of the above
    ones = (1,) * len(window_dimensions)
    a = aval_of(operand)
    g = trace_graph(lambda t: [_select_and_gather_add(
        t, operand, select_prim=select_prim, window_dimensions=window_dimensions,
        window_strides=window_strides, padding=padding, base_dilation=ones,
        window_dilation=ones)], [a])
    return instantiate_zeros(backward_pass(g, g.consts, [UndefinedPrimal(a)], [source])[0])


clamp_p = derived("clamp", clamp)
split_p = derived("split", split, multiple_results=True, linear=True)
tile_p = derived("tile", tile, linear=True)
stack_p = derived("stack", lambda *xs, axis: stack(xs, axis), linear=True)
unstack_p = derived("unstack", unstack, multiple_results=True, linear=True)
cumlogsumexp_p = derived("cumlogsumexp", cumlogsumexp)
approx_top_k_p = derived("approx_top_k", _approx_top_k, multiple_results=True)
copy_p = derived("copy", lambda x: x, linear=True)
stage_p = derived("stage", lambda x: x, linear=True)
scatter_sub_p = derived("scatter_sub", _scatter_sub, linear=True)
select_and_gather_add_p = derived("select_and_gather_add", _select_and_gather_add, linear=True)
select_and_scatter_add_p = derived("select_and_scatter_add", _select_and_scatter_add,
                                   linear=True)



def stage(x):
    """Lifts a value (a Python scalar, a numpy array) into the active trace: the identity,
    as ``jax.lax.stage``; outside any trace an Array."""
    return stage_p.bind(as_operand(x))


__all__ = ["stage", "approx_top_k_p", "clamp_p", "copy_p", "cumlogsumexp_p", "scatter_sub_p",
           "select_and_gather_add_p", "select_and_scatter_add_p", "split_p", "stack_p",
           "stage_p", "tile_p", "unstack_p"]
