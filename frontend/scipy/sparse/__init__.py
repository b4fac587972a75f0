"""frontend.scipy.sparse: as jax.scipy.sparse, the iterative solvers of ``linalg``."""
from . import linalg  # noqa: F401


def __getattr__(name):
    from ...core import jax_names
    raise jax_names.missing(__name__, name)
