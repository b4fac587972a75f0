"""The lowering of the derived primitives (frontend/primitives/derived.py): their
implementation, traced and inlined."""
from __future__ import annotations

import frontend.lax  # noqa: F401  (defines JAX's lax.*_p among them)
from frontend.primitives.derived import DERIVED


def _inline(p):
    def rule(ctx, *operands, **params):
        return ctx.lower_fun(p.implementation, list(operands), **params)
    return rule


for _p in DERIVED:
    _p.def_lowering(_inline(_p))
