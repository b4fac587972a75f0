"""Lowering rules of the indexing family: stablehlo.dynamic_slice, dynamic_update_slice,
gather and scatter (with its update region)."""
from __future__ import annotations

from frontend.core import dtypes
from frontend.core.ir import Aval
from frontend.primitives import indexing as ix

from .elementwise import combine as combine_values
from .shape import ints


def _types(ctx) -> str:
    return ", ".join(ctx.type(a) for a in ctx.avals_in)


def _arr(xs) -> str:
    return f"array<i64{': ' if len(xs) else ''}{ints(xs)}>"


@ix.dynamic_slice_p.def_lowering
def _dynamic_slice(ctx, x, *starts, slice_sizes):
    out = ctx.avals_out[0]
    return [ctx.op(f'"stablehlo.dynamic_slice"({", ".join((x, *starts))}) '
                   f'{{slice_sizes = {_arr(out.shape)}}} : ({_types(ctx)}) -> {ctx.type(out)}')]


@ix.dynamic_update_slice_p.def_lowering
def _dynamic_update_slice(ctx, x, u, *starts):
    return [ctx.op(f'"stablehlo.dynamic_update_slice"({", ".join((x, u, *starts))}) '
                   f': ({_types(ctx)}) -> {ctx.type(ctx.avals_out[0])}')]


@ix.gather_p.def_lowering
def _gather(ctx, x, idx, *, offset_dims, collapsed_slice_dims, start_index_map,
            operand_batching_dims, start_indices_batching_dims, index_vector_dim, slice_sizes,
            indices_are_sorted=False, mode="clip"):
    dn = (f"#stablehlo.gather<offset_dims = [{ints(offset_dims)}], "
          f"collapsed_slice_dims = [{ints(collapsed_slice_dims)}], "
          f"operand_batching_dims = [{ints(operand_batching_dims)}], "
          f"start_indices_batching_dims = [{ints(start_indices_batching_dims)}], "
          f"start_index_map = [{ints(start_index_map)}], "
          f"index_vector_dim = {index_vector_dim}>")
    sorted_ = "true" if indices_are_sorted else "false"
    return [ctx.op(f'"stablehlo.gather"({x}, {idx}) {{dimension_numbers = {dn}, '
                   f'indices_are_sorted = {sorted_}, slice_sizes = {_arr(slice_sizes)}}} '
                   f': ({_types(ctx)}) -> {ctx.type(ctx.avals_out[0])}')]


# the combiner of each scatter: its region op (for bool: the logical op of the same meaning)
# (scatter_apply's region is its computation)
_COMBINE = {ix.scatter_p: None, ix.scatter_apply_p: None, ix.scatter_add_p: ("add", "or"),
            ix.scatter_mul_p: ("multiply", "and"), ix.scatter_min_p: ("minimum", "and"),
            ix.scatter_max_p: ("maximum", "or")}


def _scatter(combine):
    def rule(ctx, x, idx, upd, *, update_window_dims, inserted_window_dims, input_batching_dims,
             scatter_indices_batching_dims, scatter_dims_to_operand_dims, index_vector_dim,
             indices_are_sorted=False, unique_indices=False, computation=None):
        out = ctx.avals_out[0]
        scalar = Aval((), out.dtype)

        def region(args):
            a, b = args
            if computation is not None:
                return ctx.lower_body(computation, [a, b]), [scalar]
            if combine is None:  # replace
                return [b], [scalar]
            op = combine[1] if dtypes.is_bool(out.dtype) else combine[0]
            return [combine_values(ctx, op, a, b, scalar)], [scalar]

        body = ctx.region(region, [scalar, scalar])
        dn = (f"#stablehlo.scatter<update_window_dims = [{ints(update_window_dims)}], "
              f"inserted_window_dims = [{ints(inserted_window_dims)}], "
              f"input_batching_dims = [{ints(input_batching_dims)}], "
              f"scatter_indices_batching_dims = [{ints(scatter_indices_batching_dims)}], "
              f"scatter_dims_to_operand_dims = [{ints(scatter_dims_to_operand_dims)}], "
              f"index_vector_dim = {index_vector_dim}>")
        flags = (f"indices_are_sorted = {'true' if indices_are_sorted else 'false'}, "
                 f"unique_indices = {'true' if unique_indices else 'false'}")
        return [ctx.op(f'"stablehlo.scatter"({x}, {idx}, {upd}) ({body}) '
                       f'{{scatter_dimension_numbers = {dn}, {flags}}} '
                       f': ({_types(ctx)}) -> {ctx.type(out)}')]

    return rule


for _p, _c in _COMBINE.items():
    _p.def_lowering(_scatter(_c))
