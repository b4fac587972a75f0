"""Lowering rule of ``conv_general_dilated``: one ``stablehlo.convolution`` (its
``dim_numbers`` spelled from the ConvDimensionNumbers, the precision config from
``precision``; ``preferred_element_type`` is the result type)."""
from __future__ import annotations

from frontend.primitives.conv import conv_general_dilated_p
from frontend.primitives.dot_algorithms import is_algorithm

from .shape import ints


def _labels(spec, first: str, second: str) -> str:
    labels = [""] * len(spec)
    labels[spec[0]], labels[spec[1]] = first, second
    for i, axis in enumerate(spec[2:]):
        labels[axis] = str(i)
    return "[" + ", ".join(labels) + "]"


def precision_config(precision) -> str:
    """``[#stablehlo<precision DEFAULT>, ...]`` of a canonical precision pair (or None); a
    dot algorithm is DEFAULT here, as JAX lowers a convolution with one."""
    p = ("DEFAULT", "DEFAULT") if not precision or is_algorithm(precision) else precision
    return "[" + ", ".join(f"#stablehlo<precision {q}>" for q in p) + "]"


@conv_general_dilated_p.def_lowering
def _conv(ctx, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
          dimension_numbers, feature_group_count, batch_group_count, precision=None,
          preferred_element_type=None):
    lspec, rspec, ospec = dimension_numbers
    dn = f"{_labels(lspec, 'b', 'f')}x{_labels(rspec, 'o', 'i')}->{_labels(ospec, 'b', 'f')}"
    pad = ", ".join(f"[{lo}, {hi}]" for lo, hi in padding)
    rev = ", ".join("false" for _ in window_strides)
    window = (f"{{stride = [{ints(window_strides)}], pad = [{pad}], lhs_dilate = "
              f"[{ints(lhs_dilation)}], rhs_dilate = [{ints(rhs_dilation)}], reverse = [{rev}]}}")
    la, ra = ctx.avals_in
    return [ctx.op(f"stablehlo.convolution({lhs}, {rhs}) dim_numbers = {dn}, window = {window} "
                   f"{{batch_group_count = {batch_group_count} : i64, feature_group_count = "
                   f"{feature_group_count} : i64, precision_config = {precision_config(precision)}}}"
                   f" : ({ctx.type(la)}, {ctx.type(ra)}) -> {ctx.type(ctx.avals_out[0])}")]
