"""lax.split and lax.tile, composed of slices and broadcasts (so they batch and
differentiate as those do), and lax.optimization_barrier."""
from __future__ import annotations

import operator

from ..core.ir import aval_of
from ..core.pytree import tree_flatten, tree_unflatten
from ..primitives.barrier import optimization_barrier_p
from ._convert import as_operand
from ._shape import broadcast_in_dim, reshape, slice_in_dim


def split(operand, sizes, axis: int = 0):
    """lax.split: consecutive chunks of ``sizes`` along ``axis`` (the sizes add up to it).

    >>> import numpy as np
    >>> from frontend import lax
    >>> [c.shape for c in lax.split(np.zeros((5, 2)), (2, 3))]
    [(2, 2), (3, 2)]
    """
    x = as_operand(operand)
    shape = aval_of(x).shape
    nd = len(shape)
    axis = operator.index(axis)
    if not -nd <= axis < nd:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {nd}")
    axis %= nd
    sizes = [operator.index(s) for s in sizes]
    if any(s < 0 for s in sizes):
        raise ValueError(f"Sizes must be nonnegative, got {sizes}")
    if sum(sizes) != shape[axis]:
        raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of the "
                         f"operand shape {list(shape)}")
    out, start = [], 0
    for s in sizes:
        out.append(slice_in_dim(x, start, start + s, 1, axis))
        start += s
    return out


def tile(operand, reps):
    """lax.tile: ``operand`` repeated ``reps[i]`` times along each axis i.

    >>> import numpy as np
    >>> from frontend import lax
    >>> lax.tile(np.array([[1, 2]]), (2, 2))
    Array([[1, 2, 1, 2],
           [1, 2, 1, 2]], dtype=int32)
    """
    x = as_operand(operand)
    shape = aval_of(x).shape
    reps = tuple(operator.index(r) for r in reps)
    if len(reps) != len(shape):
        raise TypeError(f"reps length must be equal to the ndim of x, got len(reps)={len(reps)} "
                        f"and x.ndim={len(shape)}.")
    if any(r < 0 for r in reps):
        raise ValueError(f"reps must be nonnegative, got {reps}")
    # (r0, n0, r1, n1, ...) by broadcasting, then merged pairwise
    wide = tuple(d for r, n in zip(reps, shape, strict=True) for d in (r, n))
    y = broadcast_in_dim(x, wide, tuple(2 * i + 1 for i in range(len(shape))))
    return reshape(y, tuple(r * n for r, n in zip(reps, shape, strict=True)))


def optimization_barrier(operand, /):
    """lax.optimization_barrier: ``operand`` (a pytree of arrays) unchanged, with a barrier
    XLA does not move computations across (one stablehlo.optimization_barrier)."""
    leaves, td = tree_flatten(operand)
    if not leaves:
        return operand
    return tree_unflatten(td, optimization_barrier_p.bind(*[as_operand(x) for x in leaves]))
