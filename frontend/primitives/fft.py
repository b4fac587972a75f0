"""The FFT primitive: ``fft(x, fft_type, fft_lengths)`` over the trailing
``len(fft_lengths)`` axes (1 to 3), StableHLO's fft:

- FFT / IFFT: complex -> complex of the same shape (IFFT includes the 1/n);
- RFFT: real -> complex, the last axis ``fft_lengths[-1] // 2 + 1`` long;
- IRFFT: complex -> real, the last axis ``fft_lengths[-1]`` long.

The leading axes are a batch: the vmap axis stays there (it moves to the front only when
it is one of the transformed axes).
"""
from __future__ import annotations

import enum

import numpy as np

from ..core import dtypes
from ..core.ir import Aval, Primitive, aval_of, literal
from ..interpreters import batching
from .elementwise import eq_p, mul_p, or_p, select_p
from .numeric import conj_p, real_p
from .padding import pad_p
from .shape import broadcast_in_dim_p, iota_p, linear_jvp, moveaxis


class FftType(enum.IntEnum):
    """lax.FftType."""
    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3


def _complex_of(d):
    return np.dtype(np.complex128) if np.dtype(d) in (np.float64, np.complex128) else \
        np.dtype(np.complex64)


def _real_of(d):
    return np.dtype(np.float64) if np.dtype(d) in (np.float64, np.complex128) else \
        np.dtype(np.float32)


fft_p = Primitive("fft")


@fft_p.def_abstract_eval
def _fft_abstract_eval(x, *, fft_type, fft_lengths):
    fft_type = FftType(fft_type)
    k = len(fft_lengths)
    if not 1 <= k <= 3:
        raise ValueError(f"fft only supports 1D, 2D, and 3D FFTs, got fft_lengths={fft_lengths}")
    if x.ndim < k:
        raise ValueError(f"fft: the operand of rank {x.ndim} has fewer axes than "
                         f"fft_lengths={fft_lengths}")
    real_in = fft_type == FftType.RFFT
    if real_in and x.dtype not in (np.float32, np.float64):
        raise TypeError(f"fft of type {fft_type.name} takes float32 or float64 operands, got "
                        f"{x.dtype.name}")
    if not real_in and not dtypes.is_complex(x.dtype):
        raise TypeError(f"fft of type {fft_type.name} takes complex operands, got "
                        f"{x.dtype.name}")
    tail = x.shape[x.ndim - k:]
    expect = list(fft_lengths)
    if fft_type == FftType.IRFFT:
        expect[-1] = fft_lengths[-1] // 2 + 1
    if list(tail) != expect:
        raise ValueError(f"fft of type {fft_type.name} with fft_lengths={tuple(fft_lengths)} "
                         f"needs trailing axes {tuple(expect)}, got operand shape {x.shape}")
    shape = list(x.shape)
    if fft_type == FftType.RFFT:
        shape[-1] = fft_lengths[-1] // 2 + 1
        return Aval(tuple(shape), _complex_of(x.dtype))
    if fft_type == FftType.IRFFT:
        shape[-1] = fft_lengths[-1]
        return Aval(tuple(shape), _real_of(x.dtype))
    return x.strip_weak()


@fft_p.def_batching
def _fft_batch(args, dims, *, fft_type, fft_lengths):
    # the vmap axis stays where it is when it is a leading axis, else it moves to the front
    (x,), (d,) = args, dims
    if d >= batching.ndim(x) - len(fft_lengths):
        x, d = moveaxis(x, d, 0), 0
    return fft_p.bind(x, fft_type=fft_type, fft_lengths=fft_lengths), d


# ----------------------------------------------------------------------------- autodiff
# Linear. The transposes (JAX's): FFT and IFFT are their own transposes (the DFT matrix is
# symmetric); RFFT's is the real part of the FFT of the cotangent zero-padded to the full
# length (the transpose of "FFT of a real input, then keep the first n // 2 + 1"); IRFFT's is
# the conjugate of the RFFT of the cotangent, scaled by 1/n and doubled on the bins that
# stand for two (JAX's convention for complex cotangents).

fft_p.def_jvp(linear_jvp(fft_p))


@fft_p.def_transpose
def _fft_transpose(ct, x, *, fft_type, fft_lengths):
    fft_type = FftType(fft_type)
    ca = aval_of(ct)
    nd = ca.ndim
    if fft_type == FftType.RFFT:
        n = fft_lengths[-1]
        cfg = ((0, 0, 0),) * (nd - 1) + ((0, n - ca.shape[-1], 0),)
        full = pad_p.bind(ct, literal(0, ca.dtype), padding_config=cfg)
        return [real_p.bind(fft_p.bind(full, fft_type=FftType.FFT, fft_lengths=fft_lengths))]
    if fft_type == FftType.IRFFT:
        y = fft_p.bind(ct, fft_type=FftType.RFFT, fft_lengths=fft_lengths)
        ya = aval_of(y)
        m, n = ya.shape[-1], float(np.prod(fft_lengths))
        pos = iota_p.bind(dtype=np.dtype(np.int32), shape=ya.shape, dimension=ya.ndim - 1)
        edge = eq_p.bind(pos, literal(0, np.int32))  # bin 0 (and n / 2 for even n) once
        if fft_lengths[-1] % 2 == 0:
            edge = or_p.bind(edge, eq_p.bind(pos, literal(m - 1, np.int32)))

        def full(v):
            return broadcast_in_dim_p.bind(literal(v, ya.dtype), shape=ya.shape,
                                           broadcast_dimensions=())
        scale = select_p.bind(edge, full(1 / n), full(2 / n))
        return [conj_p.bind(mul_p.bind(y, scale))]
    return [fft_p.bind(ct, fft_type=fft_type, fft_lengths=fft_lengths)]
