"""Shape primitives: broadcast_in_dim, reshape, transpose (more of the family below)."""
from __future__ import annotations

import numpy as np

from ..batching import moveaxis, ndim
from ..core import Aval, Primitive, primitive


@primitive
class broadcast_in_dim_p(Primitive):
    """Operand dim i goes to result dim broadcast_dimensions[i] (equal size or 1)."""

    name = "broadcast_in_dim"

    def abstract_eval(self, x, *, shape, broadcast_dimensions):
        shape = tuple(shape)
        bd = tuple(broadcast_dimensions)
        if len(bd) != x.ndim:
            raise TypeError(f"broadcast_in_dim broadcast_dimensions must have length equal to "
                            f"operand ndim; got broadcast_dimensions {bd} for operand ndim "
                            f"{x.ndim}.")
        if len(shape) < x.ndim:
            raise TypeError(f"broadcast_in_dim target broadcast shape must have equal or higher "
                            f"rank to the operand shape; got operand ndim {x.ndim} and target "
                            f"broadcast ndim {len(shape)}.")
        if any(not 0 <= d < len(shape) for d in bd) or list(bd) != sorted(set(bd)):
            raise TypeError(f"broadcast_in_dim broadcast_dimensions must be strictly increasing "
                            f"and in range for the result rank {len(shape)}; got {bd}.")
        for i, d in enumerate(bd):
            if x.shape[i] not in (1, shape[d]):
                raise TypeError(f"broadcast_in_dim operand dimension sizes must either be 1, or "
                                f"be equal to their corresponding dimensions in the target "
                                f"broadcast shape; got operand of shape {x.shape}, target "
                                f"broadcast shape {shape}, broadcast_dimensions {bd} ")
        return Aval(shape, x.dtype, x.weak_type)

    def batch(self, axis_size, args, dims, *, shape, broadcast_dimensions):
        # batch axis moves to the front of the operand and becomes result dim 0
        (x,), (d,) = args, dims
        x = moveaxis(x, d, 0)
        out_shape = (axis_size,) + tuple(shape)
        bd = (0,) + tuple(b + 1 for b in broadcast_dimensions)
        return self.bind(x, shape=out_shape, broadcast_dimensions=bd), 0


@primitive
class reshape_p(Primitive):
    """Row-major reshape to ``new_sizes`` (``dimensions`` is always None here)."""

    name = "reshape"

    def abstract_eval(self, x, *, new_sizes, dimensions=None):
        new_sizes = tuple(new_sizes)
        if int(np.prod(new_sizes, dtype=np.int64)) != x.size:
            raise TypeError(f"reshape total size must be unchanged, got new_sizes {new_sizes} "
                            f"(of total size {int(np.prod(new_sizes, dtype=np.int64))}) for "
                            f"shape {x.shape} (of total size {x.size}).")
        return Aval(new_sizes, x.dtype, x.weak_type)

    def batch(self, axis_size, args, dims, *, new_sizes, dimensions=None):
        # row-major order needs the batch axis at the front; it stays there
        (x,), (d,) = args, dims
        x = moveaxis(x, d, 0)
        return self.bind(x, new_sizes=(axis_size,) + tuple(new_sizes), dimensions=None), 0


@primitive
class transpose_p(Primitive):
    """Result dim i is operand dim permutation[i]."""

    name = "transpose"

    def abstract_eval(self, x, *, permutation):
        perm = tuple(permutation)
        if sorted(perm) != list(range(x.ndim)):
            raise TypeError(f"transpose permutation isn't a permutation of operand dimensions, "
                            f"got permutation {perm} for operand shape {x.shape}.")
        return Aval(tuple(x.shape[p] for p in perm), x.dtype, x.weak_type)

    def batch(self, axis_size, args, dims, *, permutation):
        # the batch axis stays where it is; the permutation moves the other axes around it
        (x,), (d,) = args, dims
        perm = [p + (p >= d) for p in permutation]
        perm.insert(d, d)
        return self.bind(x, permutation=tuple(perm)), d


def broadcast_in_dim(x, shape, broadcast_dimensions):
    return broadcast_in_dim_p.bind(x, shape=tuple(shape), broadcast_dimensions=tuple(broadcast_dimensions))


def reshape(x, new_sizes, dimensions=None):
    if dimensions is not None:
        x = transpose(x, dimensions)
    return reshape_p.bind(x, new_sizes=tuple(int(s) for s in new_sizes), dimensions=None)


def transpose(x, permutation):
    return transpose_p.bind(x, permutation=tuple(int(p) for p in permutation))


__all__ = ["broadcast_in_dim", "reshape", "transpose", "ndim"]
