"""Lowering rule of ``fft``: one ``stablehlo.fft``."""
from __future__ import annotations

from frontend.primitives.fft import FftType, fft_p

from .shape import ints


@fft_p.def_lowering
def _fft(ctx, x, *, fft_type, fft_lengths):
    return [ctx.op(f"stablehlo.fft {x}, type = {FftType(fft_type).name}, length = "
                   f"[{ints(fft_lengths)}] : ({ctx.type(ctx.avals_in[0])}) -> "
                   f"{ctx.type(ctx.avals_out[0])}")]
