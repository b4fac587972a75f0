"""frontend.scipy.cluster: ``vq`` (vector quantization), as jax.scipy.cluster."""
from __future__ import annotations

from . import vq  # noqa: F401


def __getattr__(name):
    from ...core import jax_names
    raise jax_names.missing(__name__, name)
