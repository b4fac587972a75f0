"""Statistics of samples: sem."""
from __future__ import annotations

from ... import numpy as fnp
from ._common import promote


def sem(a, axis=0, ddof: int = 1, nan_policy: str = "propagate", *, keepdims: bool = False):
    """The standard error of the mean: std(a, ddof) / sqrt(n) along ``axis`` (all when None).
    ``nan_policy`` 'propagate' or 'omit' (NaNs left out), as JAX's."""
    (a,) = promote("sem", a)
    if nan_policy not in ("propagate", "omit"):
        raise ValueError(f"{nan_policy} is not supported")
    if nan_policy == "omit":
        n = fnp.sum(~fnp.isnan(a), axis=axis, keepdims=keepdims)
        return fnp.nanstd(a, axis=axis, ddof=ddof, keepdims=keepdims) / fnp.sqrt(n)
    n = a.size if axis is None else a.shape[axis]
    return fnp.std(a, axis=axis, ddof=ddof, keepdims=keepdims) / fnp.sqrt(n).astype(a.dtype)
