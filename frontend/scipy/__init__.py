"""frontend.scipy: JAX's scipy subset on vmaplab's primitives: ``linalg`` (triangular and
Cholesky/LU-based solves, factorizations) and ``special`` (error, gamma and beta
functions, Bessel functions, logsumexp, expit/logit, xlogy)."""
from . import linalg, special  # noqa: F401
