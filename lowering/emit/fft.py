"""Lowering rule of ``fft``: one ``stablehlo.fft`` (on GPUs a multi-dimensional IRFFT is
two, as JAX lowers it there)."""
from __future__ import annotations

from frontend.core.ir import Aval
from frontend.primitives.fft import FftType, fft_p

from .shape import ints


@fft_p.def_lowering
def _fft(ctx, x, *, fft_type, fft_lengths):
    return [ctx.op(f"stablehlo.fft {x}, type = {FftType(fft_type).name}, length = "
                   f"[{ints(fft_lengths)}] : ({ctx.type(ctx.avals_in[0])}) -> "
                   f"{ctx.type(ctx.avals_out[0])}")]


def _transpose(ctx, x, aval: Aval, perm) -> tuple:
    out = Aval(tuple(aval.shape[p] for p in perm), aval.dtype)
    return ctx.op(f"stablehlo.transpose {x}, dims = [{ints(perm)}] : ({ctx.type(aval)}) -> "
                  f"{ctx.type(out)}"), out


def _fft_gpu(ctx, x, *, fft_type, fft_lengths):
    """On GPUs a multi-dimensional IRFFT is an IFFT over its leading FFT axes, then a 1-D
    IRFFT over the last: cuFFT's C2R transform assumes Hermitian symmetry along every axis,
    numpy (and the other platforms) only along the last."""
    if FftType(fft_type) is not FftType.IRFFT or len(fft_lengths) < 2:
        return _fft(ctx, x, fft_type=fft_type, fft_lengths=fft_lengths)
    a = ctx.avals_in[0]
    pos = a.ndim - len(fft_lengths)
    perm = list(range(a.ndim))
    perm.insert(pos, perm.pop())  # the last axis first in the FFT block
    x, ta = _transpose(ctx, x, a, perm)
    x = ctx.op(f"stablehlo.fft {x}, type = IFFT, length = [{ints(fft_lengths[:-1])}] : "
               f"({ctx.type(ta)}) -> {ctx.type(ta)}")
    x, _ = _transpose(ctx, x, ta, [perm.index(i) for i in range(a.ndim)])
    return [ctx.op(f"stablehlo.fft {x}, type = IRFFT, length = [{fft_lengths[-1]}] : "
                   f"({ctx.type(a)}) -> {ctx.type(ctx.avals_out[0])}")]


fft_p.def_lowering(_fft_gpu, platform="cuda")
fft_p.def_lowering(_fft_gpu, platform="rocm")
