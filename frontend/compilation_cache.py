"""The persistent compilation cache (JAX's ``jax_compilation_cache_dir``): compiled programs
kept in a directory, so that a new process loads them instead of compiling again.

Switch it on with ``fe.config.update("compilation_cache_dir", path)`` or the environment
variable ``VMAPLAB_COMPILATION_CACHE_DIR``; ``persistent_cache_min_compile_time_secs``
(1 s by default, as JAX) and ``compilation_cache_max_size`` tune it.

>>> import frontend as fe
>>> sorted(fe.compilation_cache.stats())
['errors', 'hits', 'misses', 'writes']

Each hit and miss is also logged at debug level by the ``lowering.runtime.cache`` logger.
"""
from __future__ import annotations

from .device import seam as _backend


def stats() -> dict:
    """This process's counts: ``hits`` (programs loaded from the cache), ``misses``
    (compiled, the cache being on), ``writes`` (entries stored) and ``errors`` (entries
    skipped: corrupt, unreadable, unwritable)."""
    return _backend.get().compilation_cache_stats()


def reset_stats() -> None:
    """Set the counts back to zero."""
    _backend.get().reset_compilation_cache_stats()


__all__ = ["reset_stats", "stats"]
