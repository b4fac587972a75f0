"""frontend.scipy.integrate: ``trapezoid`` (jax.scipy.integrate's one function; the same
function as ``frontend.numpy.trapezoid``).

>>> import numpy as np
>>> from frontend.scipy import integrate
>>> integrate.trapezoid(np.float32([1, 2, 3]))
Array(4., dtype=float32)
"""
from __future__ import annotations

from ..numpy._functional import trapezoid

__all__ = ["trapezoid"]


def __getattr__(name):
    from ..core import jax_names
    raise jax_names.missing(__name__, name)
