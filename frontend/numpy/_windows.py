"""numpy's window functions (bartlett, blackman, hamming, hanning, kaiser) as JAX's numpy
computes them: M points in the default float dtype."""
from __future__ import annotations

import numpy as np

from .. import lax
from ..core import dtypes
from ..lax._convert import convert
from ._ufuncs import i0

__all__ = ["bartlett", "blackman", "hamming", "hanning", "kaiser"]


def _points(name, M):
    """(n = 0..M-1 as floats, M as int); None for M <= 1 (a window of ones)."""
    M = int(M)  # (as JAX's: a concrete number, truncated)
    return M, lax.broadcasted_iota(dtype=dtypes.default_float(), shape=(max(M, 0),),
                                   dimension=0)


def _ones(M):
    return lax.broadcast_in_dim(convert(1, dtypes.default_float()), shape=(max(M, 0),),
                                broadcast_dimensions=())


def _cosine_window(name, coeffs):
    def fn(M):
        M, n = _points(name, M)
        if M <= 1:
            return _ones(M)
        d = dtypes.default_float()
        out = convert(coeffs[0], d)
        for k, a in enumerate(coeffs[1:], start=1):
            arg = lax.mul(n, convert(2 * k * np.pi / (M - 1), d))
            out = lax.add(out, lax.mul(convert(a, d), lax.cos(arg)))
        return out
    fn.__name__ = name
    fn.__doc__ = f"The {name} window of M points (numpy's formula)."
    return fn


blackman = _cosine_window("blackman", (0.42, -0.5, 0.08))
hamming = _cosine_window("hamming", (0.54, -0.46))
hanning = _cosine_window("hanning", (0.5, -0.5))


def bartlett(M):
    """The triangular (Bartlett) window of M points."""
    M, n = _points("bartlett", M)
    if M <= 1:
        return _ones(M)
    d = dtypes.default_float()
    x = lax.sub(lax.mul(n, convert(2.0, d)), convert(M - 1, d))  # 1 - M, 3 - M, ..., M - 1
    return lax.sub(convert(1, d), lax.div(lax.abs(x), convert(M - 1, d)))


def kaiser(M, beta):
    """The Kaiser window of M points with shape parameter ``beta``."""
    M, n = _points("kaiser", M)
    if M <= 1:
        return _ones(M)
    d = dtypes.default_float()
    alpha = convert((M - 1) / 2.0, d)
    r = lax.div(lax.sub(n, alpha), alpha)
    beta = convert(beta, d, False)
    arg = lax.mul(beta, lax.sqrt(lax.sub(convert(1, d), lax.mul(r, r))))
    return lax.div(i0(arg), i0(beta))
