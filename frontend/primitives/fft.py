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

from .. import batching, dtypes
from ..core import Aval, Primitive
from .shape import moveaxis


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
