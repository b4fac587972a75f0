"""frontend.scipy: JAX's scipy subset on vmaplab's primitives: ``linalg`` (triangular and
Cholesky/LU-based solves, factorizations), ``special`` (error, gamma and beta functions,
Bessel functions, logsumexp, expit/logit, xlogy, ndtr, ...), ``stats`` (the
distributions' logpdf/cdf/..., gaussian_kde), ``signal`` (convolutions, detrend, stft/istft,
csd/welch), ``fft`` (dct/idct), ``integrate``, ``interpolate``, ``ndimage``,
``cluster.vq``, ``spatial.transform`` (Rotation, Slerp), ``sparse.linalg`` (the iterative
solvers cg, bicgstab, gmres) and ``optimize`` (minimize with BFGS)."""
import importlib

from . import (  # noqa: F401
    cluster,
    fft,
    integrate,
    interpolate,
    linalg,
    ndimage,
    signal,
    sparse,
    spatial,
    special,
    stats,
)


def __getattr__(name):
    if name == "optimize":  # (on first use: it differentiates, a layer above this package)
        return importlib.import_module(f"{__name__}.optimize")
    from ..core import jax_names
    raise jax_names.missing(__name__, name)
