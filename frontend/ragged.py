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
from .primitives.ragged import Ragged, bucket, from_padded, inline_rule, stack
from .transforms.checkpoint import checkpoint_p
from .transforms.custom_derivatives import custom_jvp_call_p, custom_vjp_call_p

# calls run their graph's equations one by one, each by its own ragged rule (a custom
# derivative's rule is not used for a ragged operand: the call's own equations are)
custom_jvp_call_p.def_ragged(inline_rule("call"))
custom_vjp_call_p.def_ragged(inline_rule("call"))
checkpoint_p.def_ragged(inline_rule("call"))


def length(x, axis=0):
    """Inside a function vmapped over a ragged batch: the example's own length along
    ``axis`` (a traced int32 scalar). Anywhere else (a dense axis, or the function called on
    one example in a Python loop): the size of the axis, so one function serves both."""
    return axis_length(x, axis)


__all__ = ["Ragged", "RaggedError", "stack", "from_padded", "length", "bucket"]
