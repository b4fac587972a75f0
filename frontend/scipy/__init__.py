"""frontend.scipy: JAX's scipy subset on vmaplab's primitives: ``linalg`` (triangular and
Cholesky/LU-based solves, factorizations), ``special`` (error, gamma and beta functions,
Bessel functions, logsumexp, expit/logit, xlogy, ndtr, ...), ``stats`` (the
distributions' logpdf/cdf/..., gaussian_kde), ``signal`` (convolutions, detrend, stft/istft,
csd/welch), ``fft`` (dct/idct), ``integrate``, ``interpolate``, ``ndimage``,
``cluster.vq`` and ``spatial.transform`` (Rotation, Slerp)."""
from . import (  # noqa: F401
    cluster,
    fft,
    integrate,
    interpolate,
    linalg,
    ndimage,
    signal,
    spatial,
    special,
    stats,
)


def __getattr__(name):
    from ..core import jax_names
    raise jax_names.missing(__name__, name)
