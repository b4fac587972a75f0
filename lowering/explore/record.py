"""Which program a script compiles: ``first_lowering()`` stops the script at its first
``jit(f).lower(*args)`` and keeps the jitted function and its arguments (what ``vmaplab
explore SCRIPT`` shows when no function is named)."""
from __future__ import annotations

import contextlib

from .capture import _LOCK


class Lowering(BaseException):
    """Raised in the script at its first ``lower`` call (a BaseException, so that the
    script's own ``except Exception`` does not swallow it): the jitted function, arguments."""

    def __init__(self, jitted, args, kwargs):
        super().__init__("the script's first lowering")
        self.jitted, self.args, self.kwargs = jitted, args, kwargs


@contextlib.contextmanager
def first_lowering():
    """While active, ``Jitted.lower`` raises ``Lowering`` instead of lowering."""
    from frontend.transforms.jit import Jitted
    lower = Jitted.lower

    def stop(self, *args, **kwargs):
        raise Lowering(self, args, kwargs)

    with _LOCK:
        Jitted.lower = stop
        try:
            yield
        finally:
            Jitted.lower = lower
