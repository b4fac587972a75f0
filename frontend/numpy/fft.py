"""frontend.numpy.fft: JAX's numpy FFTs on the ``fft`` primitive (XLA transforms the
innermost 1 to 3 axes; other axes are moved there and back): fft, ifft, rfft, irfft,
fft2, ifft2, rfft2, irfft2, fftn, ifftn, rfftn, irfftn with ``norm`` 'backward' (default),
'ortho' or 'forward'; fftfreq, rfftfreq, fftshift, ifftshift.

>>> import frontend.numpy as fnp
>>> fnp.fft.fft(fnp.ones(4))
Array([4.+0.j, 0.+0.j, 0.+0.j, 0.+0.j], dtype=complex64)
"""
from __future__ import annotations

import operator

import numpy as np

from ..core import dtypes
from ..core.ir import aval_of
from ..lax._convert import convert
from ..lax._fft import fft as lax_fft
from ..lax._shape import slice as lax_slice
from ..primitives.fft import FftType
from ._core import asarray, canonical_axis, check_arraylike
from ._elementwise import multiply, true_divide
from ._numeric import conj
from ._pad import pad
from ._shape import moveaxis, roll

__all__ = ["fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn",
           "ifftn", "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def _norm_factor(s, inverse: bool, norm, dtype):
    """The factor the transform is multiplied by (None: 1): XLA's inverse transforms
    already divide by the size."""
    if norm is None or norm == "backward":
        return None
    size = np.prod(np.array(s, np.dtype(dtype)))
    if norm == "ortho":
        return np.sqrt(size) if inverse else 1 / np.sqrt(size)
    if norm == "forward":
        return size if inverse else 1 / size
    raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".')


def _core(name, fft_type, a, s, axes, norm):
    full = f"jax.numpy.fft.{name}"
    check_arraylike(full, a)
    arr = asarray(a)
    nd = aval_of(arr).ndim
    if s is not None:
        s = tuple(operator.index(n) for n in s)
        if any(n < 0 for n in s):
            raise ValueError("Shape should be non-negative.")
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError(f"Shape and axes have different lengths. Got {len(s)} and {len(axes)}")
    orig = axes
    if axes is None:
        axes = tuple(range(nd)) if s is None else tuple(range(nd - len(s), nd))
    else:
        axes = tuple(canonical_axis(operator.index(ax), nd) for ax in axes)
    if len(axes) != len(set(axes)):
        raise ValueError(f"{full} does not support repeated axes. Got axes {tuple(orig)}.")
    if len(axes) > 3:
        raise ValueError(f"{full} only supports 1D, 2D, and 3D FFTs. Got axes {orig} with "
                         f"input rank {nd}.")
    inner = tuple(range(nd - len(axes), nd))
    if orig is not None:
        arr = moveaxis(arr, axes, inner)
    shape = aval_of(arr).shape
    if s is not None:
        want = list(shape)
        for ax, n in zip(inner, s, strict=True):
            want[ax] = n
        if fft_type == FftType.IRFFT:
            want[-1] = want[-1] // 2 + 1
        if tuple(want) != shape:
            cut = tuple(min(w, h) for w, h in zip(want, shape, strict=True))
            arr = lax_slice(arr, (0,) * nd, cut)
            arr = pad(arr, [(0, w - c) for w, c in zip(want, cut, strict=True)])
    else:
        if fft_type == FftType.IRFFT:
            s = [shape[ax] for ax in inner[:-1]]
            if inner:
                s.append(max(0, 2 * (shape[inner[-1]] - 1)))
        else:
            s = [shape[ax] for ax in inner]
    out = lax_fft(arr, fft_type, tuple(s))
    f = _norm_factor(s, name.startswith("i"), norm, aval_of(out).dtype)
    if f is not None:
        out = multiply(out, convert(asarray(f), aval_of(out).dtype))
    if orig is not None:
        out = moveaxis(out, inner, axes)
    return out


def _one_axis(name, fft_type):
    def fn(a, n=None, axis=-1, norm=None):
        if isinstance(axis, (list, tuple)):
            raise ValueError(f"jax.numpy.fft.{name} does not support multiple axes. Please "
                             f"use jax.numpy.fft.{name}n. Got axis = {list(axis)}.")
        return _core(name, fft_type, a, None if n is None else [n], [axis], norm)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"numpy.fft.{name}: the 1-D transform along ``axis`` (``n``: the length, "
                  "cropping or zero-padding the input).")
    return fn


def _two_axes(name, fft_type):
    def fn(a, s=None, axes=(-2, -1), norm=None):
        if len(axes) != 2:
            raise ValueError(f"jax.numpy.fft.{name} only supports 2 axes. Got axes = {axes}.")
        return _core(name, fft_type, a, s, axes, norm)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"numpy.fft.{name}: the 2-D transform over ``axes``."
    return fn


def _n_axes(name, fft_type):
    def fn(a, s=None, axes=None, norm=None):
        return _core(name, fft_type, a, s, axes, norm)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"numpy.fft.{name}: the N-D transform over ``axes`` (at most 3)."
    return fn


fft = _one_axis("fft", FftType.FFT)
ifft = _one_axis("ifft", FftType.IFFT)
rfft = _one_axis("rfft", FftType.RFFT)
irfft = _one_axis("irfft", FftType.IRFFT)
fft2 = _two_axes("fft2", FftType.FFT)
ifft2 = _two_axes("ifft2", FftType.IFFT)
rfft2 = _two_axes("rfft2", FftType.RFFT)
irfft2 = _two_axes("irfft2", FftType.IRFFT)
fftn = _n_axes("fftn", FftType.FFT)
ifftn = _n_axes("ifftn", FftType.IFFT)
rfftn = _n_axes("rfftn", FftType.RFFT)
irfftn = _n_axes("irfftn", FftType.IRFFT)


_SWAPPED_NORM = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def _swapped_norm(norm):
    if norm not in _SWAPPED_NORM:
        raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or '
                         '"forward".')
    return _SWAPPED_NORM[norm]


def hfft(a, n=None, axis=-1, norm=None):
    """The FFT of a signal with Hermitian symmetry (a real spectrum): irfft of conj(a) with
    the opposite normalization (``n``: the output length, default 2 * (m - 1))."""
    check_arraylike("hfft", a)
    return irfft(conj(asarray(a)), n, axis, _swapped_norm(norm))


def ihfft(a, n=None, axis=-1, norm=None):
    """The inverse of hfft: conj of rfft(a) with the opposite normalization."""
    check_arraylike("ihfft", a)
    return conj(rfft(a, n, axis, _swapped_norm(norm)))


def _freq_args(name, n, d):
    if isinstance(n, (list, tuple)):
        raise ValueError(f"The n argument of jax.numpy.fft.{name} only takes an int. Got n = "
                         f"{list(n)}.")
    if isinstance(d, (list, tuple)):
        raise ValueError(f"The d argument of jax.numpy.fft.{name} only takes a single value. "
                         f"Got d = {list(d)}.")
    return operator.index(n)


def _scaled(k: np.ndarray, d, n: int, dtype):
    if aval_of(d, host=False) is not None:
        return true_divide(asarray(k), multiply(convert(d, dtype), convert(n, dtype)))
    return asarray(k / np.array(d * n, dtype))


def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of an n-point FFT with sample spacing d."""
    n = _freq_args("fftfreq", n, d)
    dtype = dtypes.canonicalize(np.dtype(dtype)) if dtype is not None else dtypes.default_float()
    half = (n - 1) // 2 + 1
    k = np.concatenate([np.arange(0, half), np.arange(-(n // 2), 0)]).astype(dtype)
    return _scaled(k, d, n, dtype)


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of an n-point real FFT (rfft's n // 2 + 1 outputs)."""
    n = _freq_args("rfftfreq", n, d)
    dtype = dtypes.canonicalize(np.dtype(dtype)) if dtype is not None else dtypes.default_float()
    return _scaled(np.arange(0, n // 2 + 1).astype(dtype), d, n, dtype)


def _shift(name, x, axes, sign):
    check_arraylike(f"jax.numpy.fft.{name}", x)
    x = asarray(x)
    shp = aval_of(x).shape
    if axes is None:
        axes = tuple(range(len(shp)))
    elif isinstance(axes, int):
        axes = (axes,)
    axes = tuple(canonical_axis(operator.index(a), len(shp)) for a in axes)
    if not axes:
        return x
    return roll(x, tuple(sign * (shp[a] // 2) for a in axes), axes)


def fftshift(x, axes=None):
    """x with the zero frequency moved to the center (a roll by n // 2 along ``axes``)."""
    return _shift("fftshift", x, axes, 1)


def ifftshift(x, axes=None):
    """The inverse of fftshift (a roll by -(n // 2))."""
    return _shift("ifftshift", x, axes, -1)


def __getattr__(name):
    from ..core import jax_names
    raise jax_names.missing(__name__, name)
