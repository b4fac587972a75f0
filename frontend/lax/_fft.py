"""lax.fft: the ``fft`` primitive with JAX's operand conversion."""
from __future__ import annotations

import operator

import numpy as np

from ..core import dtypes
from ..core.ir import aval_of
from ..primitives.fft import FftType, fft_p
from ._convert import as_operand, convert


def fft(x, fft_type, fft_lengths):
    """FFT over the trailing ``len(fft_lengths)`` axes: ``fft_type`` FftType (or 'fft',
    'ifft', 'rfft', 'irfft'); the operand is converted to complex (real for RFFT). Empty
    ``fft_lengths`` transform nothing: the converted operand.

    >>> import numpy as np
    >>> from frontend import lax
    >>> lax.fft(np.ones(4, np.complex64), lax.FftType.FFT, (4,))
    Array([4.+0.j, 0.+0.j, 0.+0.j, 0.+0.j], dtype=complex64)
    """
    if isinstance(fft_type, str):
        try:
            fft_type = FftType[fft_type.upper()]
        except KeyError:
            raise ValueError(f"Unknown FFT type '{fft_type}'") from None
    fft_type = FftType(fft_type)
    x = as_operand(x)
    d = aval_of(x).dtype
    if fft_type == FftType.RFFT:
        if dtypes.is_complex(d):
            raise ValueError("only real valued inputs supported for rfft")
        x = convert(x, d if dtypes.is_float(d) and d.itemsize >= 4 else _float_of(d))
    else:
        x = convert(x, _complex_of(d))
    lengths = tuple(operator.index(n) for n in fft_lengths)
    if not lengths:  # a transform over no axes: the (converted) operand, as JAX's
        return x
    return fft_p.bind(x, fft_type=int(fft_type), fft_lengths=lengths)


def _float_of(d):
    return np.dtype(np.float64) if np.dtype(d) == np.float64 else dtypes.default_float() \
        if not dtypes.is_float(d) else np.dtype(np.float32)


def _complex_of(d):
    if dtypes.is_complex(d):
        return np.dtype(d)
    return np.dtype(np.complex128) if _float_of(d) == np.float64 else np.dtype(np.complex64)
