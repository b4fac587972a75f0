"""Ragged batches: vmap over examples whose lengths differ, the masking done by the batching
rules (docs/ragged.md).

>>> import numpy as np
>>> import frontend as fe, frontend.numpy as fnp
>>> r = fe.ragged.stack([np.arange(2.0), np.arange(3.0)])     # lengths 2 and 3
>>> fe.vmap(fnp.mean)(r)                                         # each over its own length
Array([0.5, 1. ], dtype=float32)
>>> fe.vmap(lambda x: x[-1])(r)                                  # the last real element
Array([1., 2.], dtype=float32)
>>> fe.vmap(lambda x: fe.ragged.length(x))(r)
Array([2, 3], dtype=int32)
"""
from __future__ import annotations

from .core.config import config  # noqa: F401  (config.ragged_bucket: the padded lengths)
from .interpreters.ragged import RaggedError, axis_length
from .primitives.ragged import Ragged, bucket, call_rule, from_padded, stack
from .transforms.checkpoint import checkpoint_p
from .transforms.custom_derivatives import custom_jvp_call_p, custom_vjp_call_p

# calls: elementwise ones as they are (keeping a custom derivative), others equation by
# equation (then a custom derivative gives way to the derivative of its equations)
for _p in (custom_jvp_call_p, custom_vjp_call_p, checkpoint_p):
    _p.def_ragged(call_rule(_p, "call"))


def length(x, axis=0):
    """Inside a function vmapped over a ragged batch: the example's own length along
    ``axis`` (a traced int32 scalar). Anywhere else (a dense axis, or the function called on
    one example in a Python loop): the size of the axis, so one function serves both."""
    return axis_length(x, axis)


__all__ = ["Ragged", "RaggedError", "stack", "from_padded", "length", "bucket"]
