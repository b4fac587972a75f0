"""Lowering rules of the bit primitives: stablehlo.bitcast_convert and stablehlo.popcnt."""
from __future__ import annotations

from frontend.primitives import bits

from .elementwise import elementwise

bits.population_count_p.def_lowering(elementwise("popcnt"))


@bits.bitcast_convert_type_p.def_lowering
def _bitcast_convert(ctx, x, *, new_dtype):
    (a,), (out,) = ctx.avals_in, ctx.avals_out
    if a.dtype == out.dtype:
        return [x]
    return [ctx.op(f"stablehlo.bitcast_convert {x} : ({ctx.type(a)}) -> {ctx.type(out)}")]
