"""Emitters of the indexing family: stablehlo.dynamic_slice, dynamic_update_slice, gather and
scatter (with its update region)."""
from __future__ import annotations

from frontend import dtypes
from frontend.core import Aval
from frontend.primitives import indexing as ix

from ..hlo import emitter, tensor_type


def _ints(xs) -> str:
    return ", ".join(map(str, xs))


def _types(eqn) -> str:
    return ", ".join(tensor_type(a.aval) for a in eqn.inputs)


@emitter("dynamic_slice")
def _dynamic_slice(ctx, eqn, x, *starts):
    out = eqn.outs[0].aval
    return [ctx.op(f'"stablehlo.dynamic_slice"({", ".join((x, *starts))}) '
                   f'{{slice_sizes = array<i64{": " if out.ndim else ""}{_ints(out.shape)}>}} '
                   f': ({_types(eqn)}) -> {tensor_type(out)}')]


@emitter("dynamic_update_slice")
def _dynamic_update_slice(ctx, eqn, x, u, *starts):
    out = eqn.outs[0].aval
    return [ctx.op(f'"stablehlo.dynamic_update_slice"({", ".join((x, u, *starts))}) '
                   f': ({_types(eqn)}) -> {tensor_type(out)}')]


def _arr(xs) -> str:
    return f"array<i64{': ' if len(xs) else ''}{_ints(xs)}>"


@emitter("gather")
def _gather(ctx, eqn, x, idx):
    p = eqn.params
    out = eqn.outs[0].aval
    dn = (f"#stablehlo.gather<offset_dims = [{_ints(p['offset_dims'])}], "
          f"collapsed_slice_dims = [{_ints(p['collapsed_slice_dims'])}], "
          f"operand_batching_dims = [{_ints(p['operand_batching_dims'])}], "
          f"start_indices_batching_dims = [{_ints(p['start_indices_batching_dims'])}], "
          f"start_index_map = [{_ints(p['start_index_map'])}], "
          f"index_vector_dim = {p['index_vector_dim']}>")
    sorted_ = "true" if p.get("indices_are_sorted") else "false"
    return [ctx.op(f'"stablehlo.gather"({x}, {idx}) {{dimension_numbers = {dn}, '
                   f'indices_are_sorted = {sorted_}, slice_sizes = {_arr(p["slice_sizes"])}}} '
                   f': ({_types(eqn)}) -> {tensor_type(out)}')]


def _combine(ctx, combiner, dtype, a, b, t) -> tuple:
    """Lines of the update region body; returns (lines, result name)."""
    if combiner == "replace":
        return [], b
    is_bool = dtypes.is_bool(dtype)
    op = {"add": "or" if is_bool else "add", "mul": "and" if is_bool else "multiply",
          "min": "and" if is_bool else "minimum", "max": "or" if is_bool else "maximum"}[combiner]
    r = ctx.fresh()
    return [f"      {r} = stablehlo.{op} {a}, {b} : {t}"], r


@emitter(*ix.SCATTERS)
def _scatter(ctx, eqn, x, idx, upd):
    p = eqn.params
    out = eqn.outs[0].aval
    t = tensor_type(Aval((), out.dtype))
    a, b = ctx.fresh(), ctx.fresh()
    body, r = _combine(ctx, eqn.prim.combiner, out.dtype, a, b, t)
    dn = (f"#stablehlo.scatter<update_window_dims = [{_ints(p['update_window_dims'])}], "
          f"inserted_window_dims = [{_ints(p['inserted_window_dims'])}], "
          f"input_batching_dims = [{_ints(p['input_batching_dims'])}], "
          f"scatter_indices_batching_dims = [{_ints(p['scatter_indices_batching_dims'])}], "
          f"scatter_dims_to_operand_dims = [{_ints(p['scatter_dims_to_operand_dims'])}], "
          f"index_vector_dim = {p['index_vector_dim']}>")
    flags = (f"indices_are_sorted = {'true' if p.get('indices_are_sorted') else 'false'}, "
             f"unique_indices = {'true' if p.get('unique_indices') else 'false'}")
    region = "\n".join([f"      ^bb0({a}: {t}, {b}: {t}):", *body,
                        f"      stablehlo.return {r} : {t}"])
    return [ctx.op(f'"stablehlo.scatter"({x}, {idx}, {upd}) ({{\n{region}\n    }}) '
                   f'{{scatter_dimension_numbers = {dn}, {flags}}} '
                   f': ({_types(eqn)}) -> {tensor_type(out)}')]
