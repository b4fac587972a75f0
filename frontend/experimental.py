"""JAX's ``jax.experimental`` names that vmaplab has: ``io_callback`` (a host callback
with side effects; ``ordered=True`` keeps program order)."""
from __future__ import annotations

from .callbacks import io_callback

__all__ = ["io_callback"]
