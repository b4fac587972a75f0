"""frontend.scipy.fft: the type-2 discrete cosine transform and its inverse (dct, dctn, idct,
idctn) through one complex FFT each (Makhoul's reordering), as jax.scipy.fft.

>>> import numpy as np
>>> from frontend.scipy import fft
>>> fft.dct(np.float32([1, 2, 3, 4]))
Array([20.        , -6.308644  ,  0.        , -0.44834155], dtype=float32)
"""
from __future__ import annotations

import operator

import numpy as np

from .. import lax
from .. import numpy as fnp
from ..core import dtypes
from ..core.ir import aval_of
from ..numpy._core import canonical_axes, canonical_axis, check_arraylike, promote_dtypes_inexact
from ..primitives.decompositions import complex_dtype

__all__ = ["dct", "dctn", "idct", "idctn"]


def _check(name, x, type, norm):
    check_arraylike(name, x)
    if type != 2:
        raise NotImplementedError("Only DCT type 2 is implemented.")
    if norm is not None and norm not in ("backward", "ortho"):
        raise ValueError(f"jax.scipy.fft.{name}: norm={norm!r} is not implemented")
    return fnp.asarray(x)


def _along(v, axis, ndim):
    """A 1-D array as a broadcastable operand along ``axis`` of a rank-``ndim`` array."""
    return fnp.reshape(v, tuple(-1 if a == axis else 1 for a in range(ndim)))


def _twiddle(n, axis, ndim, dtype, sign=1):
    """exp(-i pi k / (2 n)) for k = 0..n-1 along ``axis`` (complex of ``dtype``)."""
    k = np.arange(n) * sign
    w = np.exp(-0.5j * np.pi * k / n).astype(complex_dtype(dtype))
    return _along(fnp.asarray(w), axis, ndim)


def _ortho_factor(x, axis):
    """Divide by sqrt(4n) at k=0 and sqrt(2n) elsewhere (the orthonormal scaling)."""
    a = aval_of(x)
    n = a.shape[axis]
    f = np.full((n,), 2.0 * n)
    f[:1] = 4.0 * n
    return x / _along(fnp.sqrt(fnp.asarray(f.astype(a.dtype))), axis, a.ndim)


def _zero_pad_to(x, n, axis):
    if n is None:
        return x
    a = aval_of(x)
    return lax.pad(x, fnp.zeros((), a.dtype),
                   [(0, n - a.shape[axis] if i == axis else 0, 0) for i in range(a.ndim)])


def _one_axis(name, transform, x, type, n, axis, norm):
    """Checks, then ``transform(x, axis, norm)`` of the zero-padded inexact ``x``; a complex
    input transforms its real and imaginary parts separately."""
    x = _check(name, x, type, norm)
    if dtypes.is_complex(aval_of(x).dtype):
        return lax.complex(*(_one_axis(name, transform, part, type, n, axis, norm)
                             for part in (fnp.real(x), fnp.imag(x))))
    axis = canonical_axis(axis, aval_of(x).ndim)
    (x,) = promote_dtypes_inexact(name, _zero_pad_to(x, n, axis))
    return transform(x, axis, norm)


def _dct(x, axis, norm):
    a = aval_of(x)
    size = a.shape[axis]
    # even samples in order, then odd samples reversed
    order = np.concatenate([np.arange(0, size, 2), np.arange(1, size, 2)[::-1]])
    v = fnp.take(x, order, axis=axis)
    out = 2 * fnp.real(fnp.fft.fft(v, axis=axis) * _twiddle(size, axis, a.ndim, a.dtype))
    return _ortho_factor(out, axis) if norm == "ortho" else out


def _idct(x, axis, norm):
    a = aval_of(x)
    size = a.shape[axis]
    if norm != "ortho":
        x = _ortho_factor(x, axis)
    x = _ortho_factor(x, axis)
    w = _twiddle(size, axis, a.ndim, a.dtype)
    v = fnp.real(fnp.fft.ifft(x.astype(aval_of(w).dtype) / w * (2 * size), axis=axis))
    # undo the reordering: the first ceil(n/2) entries are the even samples
    half = (size + 1) // 2
    back = np.empty(size, int)
    back[0::2] = np.arange(half)
    back[1::2] = np.arange(size - 1, half - 1, -1)
    return fnp.take(v, back, axis=axis)


def dct(x, type=2, n=None, axis=-1, norm=None):
    """The type-2 DCT along ``axis`` (``n``: zero-pad to that length first; ``norm``
    None/'backward' or 'ortho')."""
    return _one_axis("dct", _dct, x, type, n, axis, norm)


def idct(x, type=2, n=None, axis=-1, norm=None):
    """The inverse of the type-2 DCT along ``axis`` (scipy.fft.idct)."""
    return _one_axis("idct", _idct, x, type, n, axis, norm)


def _axes_and_sizes(x, s, axes):
    nd = aval_of(x).ndim
    if s is not None:
        try:
            s = list(s)
        except TypeError:
            s = [operator.index(s)]
        if len(s) > nd:
            raise ValueError(f"s must have at most x.ndim ({nd}) elements, got {len(s)}")
    if axes is None:
        axes = tuple(range(nd - len(s), nd)) if s is not None else tuple(range(nd))
    else:
        axes = canonical_axes(axes, nd)
    sizes = list(s) if s is not None else [None] * len(axes)
    return list(zip(axes, sizes, strict=False))


def dctn(x, type=2, s=None, axes=None, norm=None):
    """The multidimensional type-2 DCT: one ``dct`` per axis of ``axes`` (``s``: sizes)."""
    x = _check("dctn", x, type, norm)
    for ax, n in _axes_and_sizes(x, s, axes):
        x = dct(x, n=n, axis=ax, norm=norm)
    return x


def idctn(x, type=2, s=None, axes=None, norm=None):
    """The multidimensional inverse type-2 DCT: one ``idct`` per axis of ``axes``."""
    x = _check("idctn", x, type, norm)
    for ax, n in _axes_and_sizes(x, s, axes):
        x = idct(x, n=n, axis=ax, norm=norm)
    return x


def __getattr__(name):
    from ..core import jax_names
    raise jax_names.missing(__name__, name)
