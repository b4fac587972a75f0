"""The one seam between the frontend and an execution backend. The frontend never imports
StableHLO or jaxlib code; it asks this module for the backend (``lowering.backend`` by
default), which compiles graphs and moves buffers."""
from __future__ import annotations

import importlib

_impl = None


def loaded() -> bool:
    """Whether the backend module is imported already."""
    return _impl is not None


def get():
    global _impl
    if _impl is None:
        _impl = importlib.import_module("lowering.backend")
    return _impl
