"""Which program a script compiles: ``first_lowering()`` stops the script at its first
``jit(f).lower(*args)`` and keeps the jitted function and its arguments, and notes the
first call of a jitted function in case the script never lowers one (what ``vmaplab
explore SCRIPT`` shows when no function is named)."""
from __future__ import annotations

import contextlib
import threading

_LOCK = threading.RLock()  # (one first_lowering at a time: it replaces Jitted's methods)


class Lowering(BaseException):
    """Raised in the script at its first ``lower`` call (a BaseException, so that the
    script's own ``except Exception`` does not swallow it): the jitted function, arguments."""

    def __init__(self, jitted, args, kwargs):
        super().__init__("the script's first lowering")
        self.jitted, self.args, self.kwargs = jitted, args, kwargs


@contextlib.contextmanager
def first_lowering():
    """While active, ``Jitted.lower`` raises ``Lowering`` instead of lowering; yields a list
    that receives the ``Lowering`` of the first call of a jitted function on arrays (not
    tracers: a jit inside another transformation is not a program of its own)."""
    from frontend.core.ir import Tracer
    from frontend.core.pytree import tree_leaves
    from frontend.transforms.jit import Jitted
    lower, run = Jitted.lower, Jitted._run
    first: list = []

    def stop(self, *args, **kwargs):
        raise Lowering(self, args, kwargs)

    def noting_run(self, args, kwargs, *rest):
        if not first and not any(isinstance(x, Tracer) for x in tree_leaves((args, kwargs))):
            first.append(Lowering(self, args, kwargs))
        return run(self, args, kwargs, *rest)

    with _LOCK:
        Jitted.lower, Jitted._run = stop, noting_run
        try:
            yield first
        finally:
            Jitted.lower, Jitted._run = lower, run
