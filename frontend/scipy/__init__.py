"""frontend.scipy: JAX's scipy subset on vmaplab's primitives: ``linalg`` (triangular and
Cholesky/LU-based solves, factorizations), ``special`` (error, gamma and beta functions,
Bessel functions, logsumexp, expit/logit, xlogy, ndtr, ...) and ``stats`` (the
distributions' logpdf/cdf/...)."""
from . import linalg, special, stats  # noqa: F401
