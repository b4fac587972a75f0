"""frontend.scipy.signal: jax.scipy.signal's convolutions (direct, as one
``conv_general_dilated``, or through FFTs), detrend, and the windowed-FFT spectra
(stft, istft, csd, welch), with JAX's arguments, dtypes and errors.

>>> import numpy as np
>>> from frontend.scipy import signal
>>> signal.convolve(np.float32([1, 2, 3]), np.float32([0, 1]))
Array([0., 1., 2., 3.], dtype=float32)
"""
from __future__ import annotations

import math
import operator
import warnings

import numpy as np

from .. import lax
from .. import numpy as fnp
from ..core import dtypes
from ..core.ir import aval_of
from ..lax._conv import conv_general_dilated
from ..numpy._core import canonical_axis, check_arraylike, promote_dtypes_inexact
from ..primitives.decompositions import complex_dtype
from ..transforms.vmap import vmap

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "csd", "detrend",
           "fftconvolve", "istft", "stft", "welch"]

_MODES = ("full", "same", "valid")


def _shape(x):
    return aval_of(x).shape


def _fits(small, large):
    """Whether shape ``small`` is at most ``large`` along every axis."""
    return all(a <= b for a, b in zip(small, large, strict=True))


def _check_mode(mode, order=_MODES):
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {list(order)}")


def fftconvolve(in1, in2, mode="full", axes=None):
    """The N-dimensional convolution of ``in1`` and ``in2`` through FFTs (real FFTs for real
    inputs); ``axes`` convolves along those axes only, the others mapped one to one."""
    check_arraylike("fftconvolve", in1, in2)
    in1, in2 = promote_dtypes_inexact("fftconvolve", in1, in2, broadcast=False)
    nd = aval_of(in1).ndim
    if nd != aval_of(in2).ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    _check_mode(mode, ("same", "full", "valid"))

    def conv(a, b):
        return _fftconvolve_all_axes(a, b, mode)
    if axes is None:
        return conv(in1, in2)
    axes = (axes,) if isinstance(axes, (int, np.integer)) else tuple(axes)
    axes = tuple(canonical_axis(int(ax), nd) for ax in axes)
    mapped = sorted(set(range(nd)) - set(axes))
    s1, s2 = _shape(in1), _shape(in2)
    if any(s1[i] != s2[i] for i in mapped):
        raise ValueError(f"mapped axes must have same shape; got in1.shape={s1} "
                         f"in2.shape={s2} axes={axes}")
    for ax in mapped:
        conv = vmap(conv, in_axes=ax, out_axes=ax)
    return conv(in1, in2)


def _fftconvolve_all_axes(in1, in2, mode):
    s1, s2 = _shape(in1), _shape(in2)
    full = tuple(a + b - 1 for a, b in zip(s1, s2, strict=True))
    if mode == "valid":
        if not (_fits(s2, s1) or _fits(s1, s2)):
            raise ValueError("For 'valid' mode, One input must be at least as large as the "
                             "other in every dimension.")
        if _fits(s1, s2):
            in1, in2, s1, s2 = in2, in1, s2, s1
    if all(a == 1 or b == 1 for a, b in zip(s1, s2, strict=True)):
        out = in1 * in2
    else:
        complex_ = dtypes.is_complex(aval_of(in1).dtype)
        fwd, inv = (fnp.fft.fftn, fnp.fft.ifftn) if complex_ else (fnp.fft.rfftn, fnp.fft.irfftn)
        out = inv(fwd(in1, full) * fwd(in2, full), full)
    size = {"full": full, "same": s1,
            "valid": tuple(a - b + 1 for a, b in zip(s1, s2, strict=True))}[mode]
    start = tuple((f - o) // 2 for f, o in zip(full, size, strict=True))
    limit = tuple(b + n for b, n in zip(start, size, strict=True))
    return lax.slice(out, start_indices=start, limit_indices=limit, strides=None)


def _convolve_nd(in1, in2, mode, precision):
    """The direct N-d convolution (one conv_general_dilated), scipy's 'same' centring."""
    _check_mode(mode)
    check_arraylike("convolve", in1, in2)
    in1, in2 = fnp.asarray(in1), fnp.asarray(in2)
    if aval_of(in1).ndim != aval_of(in2).ndim:
        raise ValueError("in1 and in2 must have the same number of dimensions")
    if aval_of(in1).size == 0 or aval_of(in2).size == 0:
        raise ValueError("zero-size arrays not supported in convolutions, got shapes "
                         f"{_shape(in1)} and {_shape(in2)}.")
    in1, in2 = promote_dtypes_inexact("convolve", in1, in2, broadcast=False)
    s1, s2 = _shape(in1), _shape(in2)
    swap = _fits(s1, s2)
    if not (_fits(s2, s1) or swap):
        raise ValueError("One input must be smaller than the other in every dimension.")
    shape_o = s2
    if swap:
        in1, in2 = in2, in1
    shape = _shape(in2)
    in2 = fnp.flip(in2)
    if mode == "valid":
        padding = [(0, 0) for _ in shape]
    elif mode == "same":
        padding = [(s - 1 - (so - 1) // 2, s - so + (so - 1) // 2)
                   for s, so in zip(shape, shape_o, strict=True)]
    else:
        padding = [(s - 1, s - 1) for s in shape]
    out = conv_general_dilated(in1[None, None], in2[None, None], (1,) * len(shape), padding,
                               precision=precision)
    return out[0, 0]


def convolve(in1, in2, mode="full", method="auto", precision=None):
    """The N-dimensional convolution of two arrays of one rank (scipy.signal.convolve):
    ``method`` 'direct'/'auto' (one conv_general_dilated) or 'fft' (fftconvolve)."""
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    if method in ("direct", "auto"):
        return _convolve_nd(in1, in2, mode, precision)
    raise ValueError(f"Got method={method!r}; expected 'auto', 'fft', or 'direct'.")


def _check_2d(op, in1, in2, boundary, fillvalue):
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError(f"{op}() only supports boundary='fill', fillvalue=0")
    if np.ndim(in1) != 2 or np.ndim(in2) != 2:
        raise ValueError(f"{op}() only supports 2-dimensional inputs.")


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """The 2-D convolution (scipy.signal.convolve2d; JAX's boundary='fill', fillvalue=0 only)."""
    _check_2d("convolve2d", in1, in2, boundary, fillvalue)
    return _convolve_nd(in1, in2, mode, precision)


def correlate(in1, in2, mode="full", method="auto", precision=None):
    """The N-dimensional cross-correlation: the convolution with ``in2`` flipped and conjugated."""
    check_arraylike("correlate", in1, in2)
    return convolve(in1, fnp.flip(fnp.conj(fnp.asarray(in2))), mode, method=method,
                    precision=precision)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """The 2-D cross-correlation (scipy.signal.correlate2d), with scipy's orientation when the
    second input is the larger."""
    _check_2d("correlate2d", in1, in2, boundary, fillvalue)
    check_arraylike("correlate2d", in1, in2)
    in1, in2 = fnp.asarray(in1), fnp.asarray(in2)
    s1, s2 = _shape(in1), _shape(in2)
    swap = _fits(s1, s2)
    same_shape = s1 == s2
    if (mode == "valid" and swap and not same_shape) or (mode == "full" and swap):
        out = _convolve_nd(fnp.flip(in2), fnp.conj(in1), mode, precision)
        return fnp.conj(out) if mode == "full" else out
    return fnp.flip(_convolve_nd(fnp.flip(in1), fnp.conj(in2), mode, precision))


def detrend(data, axis=-1, type="linear", bp=0, overwrite_data=None):
    """Remove the mean ('constant') or a least-squares line per segment between the
    breakpoints ``bp`` ('linear') along ``axis``."""
    if overwrite_data is not None:
        raise NotImplementedError("overwrite_data argument not implemented.")
    if type not in ("constant", "linear"):
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    check_arraylike("detrend", data)
    (x,) = promote_dtypes_inexact("detrend", fnp.asarray(data))
    if type == "constant":
        return x - fnp.mean(x, axis, keepdims=True)
    n = _shape(x)[axis]
    bps = np.sort(np.unique(np.r_[0, bp, n]))
    if bps[0] < 0 or bps[-1] > n:
        raise ValueError("Breakpoints must be non-negative and less than length of data "
                         "along given axis.")
    x = fnp.moveaxis(x, axis, 0)
    shape = _shape(x)
    x = fnp.reshape(x, (n, -1))
    d = aval_of(x).dtype
    for lo, hi in zip(bps[:-1], bps[1:], strict=True):
        npts = int(hi - lo)
        ramp = fnp.arange(1, npts + 1, dtype=d) / np.asarray(npts).astype(d)
        a = fnp.vstack([fnp.ones(npts, dtype=d), ramp]).T
        coef = fnp.linalg.lstsq(a, x[lo:hi])[0]
        x = x.at[lo:hi].add(-fnp.matmul(a, coef, precision=lax.Precision.HIGHEST))
    return fnp.moveaxis(fnp.reshape(x, shape), 0, axis)


def _hann(n, dtype):
    """The periodic Hann window, computed as JAX's default window."""
    if n == 1:
        return fnp.array([1.0], dtype=dtype)
    return (fnp.sin(fnp.linspace(0, np.pi, n, endpoint=False)) ** 2).astype(dtype)


def _named_window(window, n, dtype):
    if isinstance(window, str) and window == "hann":
        return _hann(n, dtype)
    try:
        from scipy.signal import get_window
    except ImportError as err:
        raise ImportError(f"scipy must be available to use window={window!r}") from err
    return fnp.array(get_window(window, n), dtype=dtype)


def _window(window, nperseg, input_length, dtype):
    """(window array, segment length) from a window name/tuple or an array (scipy's rules)."""
    if isinstance(window, (str, tuple)):
        n = input_length if nperseg is None else int(nperseg)
        if n > input_length:
            warnings.warn(f"nperseg={n} is greater than input_length={input_length}, "
                          f"using nperseg={input_length}", stacklevel=3)
            n = input_length
        return _named_window(window, n, dtype), n
    win = fnp.asarray(window, dtype=dtype)
    n = aval_of(win).size if nperseg is None else int(nperseg)
    if aval_of(win).ndim != 1:
        raise ValueError("window must be 1-D")
    if input_length < aval_of(win).size:
        raise ValueError("window is longer than input signal")
    if n != aval_of(win).size:
        raise ValueError("value specified for nperseg is different from length of window")
    return win, n


def _odd_ext(x, n):
    """Extend the last axis by ``n`` points at each end, odd about the end points."""
    if n < 1:
        return x
    size = _shape(x)[-1]
    if n > size - 1:
        raise ValueError(f"The extension length n ({n}) is too big. It must not exceed "
                         f"x.shape[axis]-1, which is {size - 1}.")
    left = 2 * x[..., :1] - fnp.flip(x[..., 1:n + 1], axis=-1)
    right = 2 * x[..., -1:] - fnp.flip(x[..., size - n - 1:size - 1], axis=-1)
    return fnp.concatenate((left, x, right), axis=-1)


def _pad_last(x, n, mode):
    return fnp.pad(x, [(0, 0)] * (aval_of(x).ndim - 1) + [(n, n)], mode)


_BOUNDARIES = {"even": lambda x, n: _pad_last(x, n, "reflect"), "odd": _odd_ext,
               "constant": lambda x, n: _pad_last(x, n, "edge"),
               "zeros": lambda x, n: _pad_last(x, n, "constant"), None: lambda x, _: x}


def _segments_fft(x, win, detrend_func, nperseg, noverlap, nfft, sides):
    """The windowed FFT of every segment of the last axis: (..., segments, frequencies)."""
    *batch, length = _shape(x)
    if nperseg == 1 and noverlap == 0:
        segs = x[..., None]
    else:
        starts = np.arange(0, length - nperseg + 1, nperseg - noverlap)
        segs = x[..., starts[:, None] + np.arange(nperseg)]
    segs = detrend_func(segs)
    if dtypes.is_complex(aval_of(win).dtype):
        segs = segs.astype(complex_dtype(aval_of(segs).dtype))
    segs = fnp.reshape(win, (1,) * len(batch) + (1, nperseg)) * segs
    if sides == "twosided":
        return fnp.fft.fft(segs, n=nfft)
    return fnp.fft.rfft(fnp.real(segs), n=nfft)


def _spectral(x, y, fs, window, nperseg, noverlap, nfft, detrend_type, return_onesided,
              scaling, axis, mode, boundary=None, padded=False):
    """(frequencies, segment times, spectra) of x (mode 'stft' or 'psd') or of x against y."""
    if mode not in ("psd", "stft"):
        raise ValueError(f"Unknown value for mode {mode}, must be one of: ('psd', 'stft')")
    if boundary not in _BOUNDARIES:
        raise ValueError(f"Unknown boundary option '{boundary}', must be one of: "
                         f"{list(_BOUNDARIES)}")
    axis = operator.index(axis)
    if y is None:
        check_arraylike("spectral_helper", x)
        (x,) = promote_dtypes_inexact("spectral_helper", fnp.asarray(x))
        axis = canonical_axis(axis, aval_of(x).ndim)
        outer = _shape(x)[:axis] + _shape(x)[axis + 1:]
    else:
        if mode != "psd":
            raise ValueError("two-argument mode is available only when mode=='psd'")
        check_arraylike("spectral_helper", x, y)
        x, y = promote_dtypes_inexact("spectral_helper", fnp.asarray(x), fnp.asarray(y),
                                      broadcast=False)
        if aval_of(x).ndim != aval_of(y).ndim:
            raise ValueError(f"two-arguments must have the same rank ({aval_of(x).ndim} vs "
                             f"{aval_of(y).ndim}).")
        axis = canonical_axis(axis, aval_of(x).ndim)
        try:
            outer = np.broadcast_shapes(_shape(x)[:axis] + _shape(x)[axis + 1:],
                                        _shape(y)[:axis] + _shape(y)[axis + 1:])
        except ValueError as err:
            raise ValueError("x and y cannot be broadcast together.") from err
    out_dtype = complex_dtype(aval_of(x).dtype)
    freq_dtype = np.finfo(out_dtype).dtype
    if nperseg is not None:
        nperseg = int(nperseg)
        if nperseg < 1:
            raise ValueError("nperseg must be a positive integer")
    win, nperseg = _window(window, nperseg, _shape(x)[axis], aval_of(x).dtype)
    noverlap = nperseg // 2 if noverlap is None else int(noverlap)
    nfft = nperseg if nfft is None else int(nfft)
    if y is None and aval_of(x).size == 0:
        z = _shape(x)
        return fnp.zeros(z, freq_dtype), fnp.zeros(z, freq_dtype), fnp.zeros(z, out_dtype)
    if y is not None and (aval_of(x).size == 0 or aval_of(y).size == 0):
        z = outer[:axis] + (min(_shape(x)[axis], _shape(y)[axis]),) + outer[axis:]
        return fnp.zeros(z, freq_dtype), fnp.zeros(z, freq_dtype), fnp.zeros(z, out_dtype)
    x = fnp.moveaxis(x, axis, -1)
    if y is not None:
        if aval_of(y).ndim > 1:
            y = fnp.moveaxis(y, axis, -1)
        nx, ny = _shape(x)[-1], _shape(y)[-1]
        if nx < ny:
            x = fnp.concatenate((x, fnp.zeros(_shape(x)[:-1] + (ny - nx,), aval_of(x).dtype)), -1)
        elif ny < nx:
            y = fnp.concatenate((y, fnp.zeros(_shape(y)[:-1] + (nx - ny,), aval_of(x).dtype)), -1)
    if nfft < nperseg:
        raise ValueError("nfft must be greater than or equal to nperseg.")
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    nstep = nperseg - noverlap
    if boundary is not None:
        x = _BOUNDARIES[boundary](x, nperseg // 2)
        if y is not None:
            y = _BOUNDARIES[boundary](y, nperseg // 2)
    if padded:
        nadd = (-(_shape(x)[-1] - nperseg) % nstep) % nperseg
        x = fnp.concatenate((x, fnp.zeros(_shape(x)[:-1] + (nadd,), aval_of(x).dtype)), -1)
        if y is not None:
            y = fnp.concatenate((y, fnp.zeros(_shape(y)[:-1] + (nadd,), aval_of(x).dtype)), -1)
    if isinstance(detrend_type, str):
        def detrend_func(d):
            return detrend(d, type=detrend_type, axis=-1)
    elif callable(detrend_type):
        if axis != -1:
            def detrend_func(d):
                return fnp.moveaxis(detrend_type(fnp.moveaxis(d, axis, -1)), -1, axis)
        else:
            detrend_func = detrend_type
    elif not detrend_type:
        def detrend_func(d):
            return d
    else:
        raise ValueError(f"Unsupported detrend type: {detrend_type}")
    if scaling == "density":
        scale = 1.0 / (fs * fnp.sum(win * win))
    elif scaling == "spectrum":
        scale = 1.0 / fnp.sum(win) ** 2
    else:
        raise ValueError(f"Unknown scaling: {scaling}")
    if mode == "stft":
        scale = fnp.sqrt(scale)
    scale = fnp.asarray(scale)
    scale = scale.astype(complex_dtype(aval_of(scale).dtype))
    sides = "twosided"
    if return_onesided:
        if fnp.iscomplexobj(x) or (y is not None and fnp.iscomplexobj(y)):
            warnings.warn("Input data is complex, switching to return_onesided=False",
                          stacklevel=3)
        else:
            sides = "onesided"
    freq_fn = fnp.fft.fftfreq if sides == "twosided" else fnp.fft.rfftfreq
    freqs = freq_fn(nfft, 1 / fs, dtype=freq_dtype)
    out = _segments_fft(x, win, detrend_func, nperseg, noverlap, nfft, sides)
    if y is not None:
        out = fnp.conjugate(out) * _segments_fft(y, win, detrend_func, nperseg, noverlap,
                                                 nfft, sides)
    elif mode == "psd":
        out = fnp.conjugate(out) * out
    out = out * scale
    if sides == "onesided" and mode == "psd":
        out = out.at[..., 1:None if nfft % 2 else -1].mul(2)
    time = fnp.arange(nperseg / 2, _shape(x)[-1] - nperseg / 2 + 1, nperseg - noverlap,
                      dtype=freq_dtype) / fs
    if boundary is not None:
        time = time - (nperseg / 2) / fs
    out = out.astype(out_dtype)
    if y is None and mode != "stft":
        out = fnp.real(out)
    return freqs, time, fnp.moveaxis(out, -1, axis)


def stft(x, fs=1.0, window="hann", nperseg=256, noverlap=None, nfft=None, detrend=False,
         return_onesided=True, boundary="zeros", padded=True, axis=-1):
    """The short-time Fourier transform: (frequencies, segment times, Zxx)."""
    return _spectral(x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
                     "spectrum", axis, "stft", boundary, padded)


def _median_bias(n):
    ii = np.arange(2.0, n, 2)
    return 1 + np.sum(1.0 / (ii + 1) - 1.0 / ii)


def csd(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
        detrend="constant", return_onesided=True, scaling="density", axis=-1, average="mean"):
    """The cross power spectral density of x and y by Welch's method (y=None: x's own PSD)."""
    freqs, _, pxy = _spectral(x, y, fs, window, nperseg, noverlap, nfft, detrend,
                              return_onesided, scaling, axis, "psd")
    if y is not None:
        pxy = pxy + 0j
    shape = _shape(pxy)
    if len(shape) >= 2 and math.prod(shape) > 0:
        if shape[-1] > 1:
            if average == "median":
                d = aval_of(pxy).dtype
                bias = fnp.asarray(_median_bias(shape[-1])).astype(d)
                if fnp.iscomplexobj(pxy):
                    pxy = (fnp.median(fnp.real(pxy), axis=-1)
                           + 1j * fnp.median(fnp.imag(pxy), axis=-1))
                else:
                    pxy = fnp.median(pxy, axis=-1)
                pxy = pxy / bias
            elif average == "mean":
                pxy = fnp.mean(pxy, axis=-1)
            else:
                raise ValueError(f'average must be "median" or "mean", got {average}')
        else:
            pxy = fnp.reshape(pxy, shape[:-1])
    return freqs, pxy


def welch(x, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          detrend="constant", return_onesided=True, scaling="density", axis=-1,
          average="mean"):
    """The power spectral density by Welch's method: (frequencies, Pxx)."""
    freqs, pxx = csd(x, None, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap,
                     nfft=nfft, detrend=detrend, return_onesided=return_onesided,
                     scaling=scaling, axis=axis, average=average)
    return freqs, fnp.real(pxx)


def _overlap_and_add(x, step):
    """Sum frames (..., frames, frame_length) placed ``step`` apart into one signal."""
    *batch, nframes, seg = _shape(x)
    out_len = step * (nframes - 1) + seg
    where = np.arange(nframes)[:, None] * step + np.arange(seg)
    return fnp.zeros(tuple(batch) + (out_len,), aval_of(x).dtype).at[..., where].add(x)


def istft(Zxx, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          input_onesided=True, boundary=True, time_axis=-1, freq_axis=-2):
    """The inverse short-time Fourier transform (overlap-add): (times, x)."""
    check_arraylike("istft", Zxx)
    z = fnp.asarray(Zxx)
    nd = aval_of(z).ndim
    if nd < 2:
        raise ValueError("Input stft must be at least 2d!")
    freq_axis, time_axis = canonical_axis(freq_axis, nd), canonical_axis(time_axis, nd)
    if freq_axis == time_axis:
        raise ValueError("Must specify differing time and frequency axes!")
    z = z.astype(complex_dtype(aval_of(z).dtype))
    nf = _shape(z)[freq_axis]
    n_default = 2 * (nf - 1) if input_onesided else nf
    nperseg = int(nperseg or n_default)
    if nperseg < 1:
        raise ValueError("nperseg must be a positive integer")
    if nfft is None:
        nfft = n_default + (1 if input_onesided and nperseg == n_default + 1 else 0)
    else:
        nfft = int(nfft)
    if nfft < nperseg:
        raise ValueError(f"FFT length ({nfft}) must be longer than nperseg ({nperseg}).")
    noverlap = int(noverlap or nperseg // 2)
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    if time_axis != nd - 1 or freq_axis != nd - 2:
        outer = tuple(i for i in range(nd) if i not in (time_axis, freq_axis))
        z = fnp.transpose(z, outer + (freq_axis, time_axis))
    inv = fnp.fft.irfft if input_onesided else fnp.fft.ifft
    xsubs = inv(z, axis=-2, n=nfft)[..., :nperseg, :]
    d = aval_of(xsubs).dtype
    if isinstance(window, (str, tuple)):
        win = _named_window(window, nperseg, d)
    else:
        win = fnp.asarray(window)
        if aval_of(win).ndim != 1:
            raise ValueError("window must be 1-D")
        if _shape(win)[0] != nperseg:
            raise ValueError(f"window must have length of {nperseg}")
    xsubs = xsubs * fnp.sum(win)
    win = fnp.reshape(win, (1,) * (aval_of(xsubs).ndim - 2) + (nperseg, 1))
    x = _overlap_and_add(fnp.swapaxes(xsubs * win, -2, -1), nperseg - noverlap)
    win2 = fnp.repeat(win * win, _shape(xsubs)[-1], axis=-1)
    norm = _overlap_and_add(fnp.swapaxes(win2, -2, -1), nperseg - noverlap)
    if boundary:
        h = nperseg // 2
        x, norm = x[..., h:_shape(x)[-1] - h], norm[..., h:_shape(norm)[-1] - h]
    x = x / fnp.where(norm > 1e-10, norm, 1.0)
    if aval_of(x).ndim > 1 and time_axis != nd - 1:
        if freq_axis < time_axis:
            time_axis -= 1
        x = fnp.moveaxis(x, -1, time_axis)
    time = fnp.arange(_shape(x)[0], dtype=np.finfo(aval_of(x).dtype).dtype) / fs
    return time, x


def __getattr__(name):
    from ..core import jax_names
    raise jax_names.missing(__name__, name)
