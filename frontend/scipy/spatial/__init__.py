"""frontend.scipy.spatial: ``transform`` (Rotation, Slerp), as jax.scipy.spatial."""
from __future__ import annotations

from . import transform  # noqa: F401


def __getattr__(name):
    from ...core import jax_names
    raise jax_names.missing(__name__, name)
