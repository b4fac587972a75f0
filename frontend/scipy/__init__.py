"""frontend.scipy: JAX's scipy subset on vmaplab's primitives: ``linalg`` (triangular and
Cholesky/LU-based solves, factorizations), ``special`` (error, gamma and beta functions,
Bessel functions, logsumexp, expit/logit, xlogy, ndtr, ...), ``stats`` (the
distributions' logpdf/cdf/...), ``sparse.linalg`` (the iterative solvers cg, bicgstab,
gmres) and ``optimize`` (minimize with BFGS)."""
import importlib

from . import linalg, sparse, special, stats  # noqa: F401


def __getattr__(name):
    if name == "optimize":  # (on first use: it differentiates, a layer above this package)
        return importlib.import_module(f"{__name__}.optimize")
    from ..core import jax_names
    raise jax_names.missing(__name__, name)
