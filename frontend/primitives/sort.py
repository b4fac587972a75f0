"""Sorting primitives: ``sort`` (several operands sorted together along one dimension by
their first ``num_keys`` operands) and ``top_k`` (the k largest along an axis, with their
indices).

Order, as JAX's: NaNs sort last (all NaNs equal), -0.0 equals 0.0, complex numbers order
lexicographically (real part, then imaginary part); ``is_stable`` keeps equal keys in their
order. The batch axis is just one more dimension of ``stablehlo.sort``: it stays where it
is and the sorted dimension is renumbered around it.

Derivatives (JAX's): the tangents are gathered with the permutation the sort applied (an
iota sorted along as one more operand), or with top_k's indices.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.ir import Aval, Primitive, aval_of
from ..interpreters import batching
from ..interpreters.ad_util import Zero, zero_of
from .indexing import gather_p
from .shape import bdim_at, broadcast_in_dim_p, iota_p, zeros_like_aval

# sort(*operands, dimension, is_stable, num_keys): operands of one shape, each returned
# sorted by the lexicographic order of the first num_keys operands.
sort_p = Primitive("sort", multiple_results=True)


@sort_p.def_abstract_eval
def _sort_abstract_eval(*operands, dimension, is_stable, num_keys):
    if not operands:
        raise TypeError("Sort requires at least one operand")
    shapes = [o.shape for o in operands]
    if any(s != shapes[0] for s in shapes):
        raise TypeError("Arguments to sort must have equal shapes, got: "
                        + " ".join(map(str, shapes)))
    nd = len(shapes[0])
    if not isinstance(dimension, (int, np.integer)) or not 0 <= dimension < max(nd, 1) or nd == 0:
        raise ValueError(f"axis {dimension} is out of bounds for array of dimension {nd}")
    if not 1 <= num_keys <= len(operands):
        raise ValueError(f"num_keys={num_keys} must be between 1 and "
                         f"len(operand)={len(operands)}")
    return list(operands)


@sort_p.def_batching
def _sort_batch(args, dims, *, dimension, is_stable, num_keys):
    # the batch axis stays where the first batched operand has it; the others are moved
    # (or broadcast, when unbatched) to it, and the sorted dimension is renumbered around it
    size = batching.axis_size(args, dims)
    d = next(b for b in dims if b is not None)
    new = [bdim_at(a, b, size, d) if b != d else a for a, b in zip(args, dims, strict=True)]
    outs = sort_p.bind(*new, dimension=dimension + (dimension >= d), is_stable=is_stable,
                       num_keys=num_keys)
    return outs, [d] * len(outs)


# top_k(operand, k, axis): the k largest elements along ``axis`` (descending) and their
# int32 indices; that axis has size k in both results.
top_k_p = Primitive("top_k", multiple_results=True)


@top_k_p.def_abstract_eval
def _top_k_abstract_eval(x, *, k, axis):
    if dtypes.is_complex(x.dtype):
        raise ValueError("top_k is not compatible with complex inputs.")
    if not 0 <= axis < x.ndim:
        raise ValueError(f"axis {axis - x.ndim if axis >= 0 else axis} is out of bounds for "
                         f"array of dimension {x.ndim}")
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    if x.shape[axis] < k:
        raise ValueError(f"k argument to top_k must be no larger than size along axis; got "
                         f"k={k} with shape={list(x.shape)} and axis={axis}")
    shape = x.shape[:axis] + (k,) + x.shape[axis + 1:]
    return [Aval(shape, x.dtype, x.weak_type), Aval(shape, np.dtype(np.int32))]


@top_k_p.def_batching
def _top_k_batch(args, dims, *, k, axis):
    # the batch axis stays where it is (the selection axis is renumbered around it)
    (x,), (d,) = args, dims
    return top_k_p.bind(x, k=k, axis=axis + (axis >= d)), [d, d]



# ----------------------------------------------------------------------------- autodiff


def take_along(x, idx, axis: int):
    """x[..., idx[..., j, ...], ...] along ``axis`` (idx of x's shape there, in bounds): one
    gather with every other axis a batch axis."""
    a = aval_of(x)
    nd = a.ndim
    ia = aval_of(idx)
    if 0 in a.shape:  # nothing to take (a gather's slice of size 1 would be out of range)
        return zeros_like_aval(Aval(ia.shape, a.dtype, a.weak_type))
    others = tuple(i for i in range(nd) if i != axis)
    idx = broadcast_in_dim_p.bind(idx, shape=ia.shape + (1,), broadcast_dimensions=tuple(range(nd)))
    return gather_p.bind(x, idx, offset_dims=(), collapsed_slice_dims=(axis,),
                         start_index_map=(axis,), operand_batching_dims=others,
                         start_indices_batching_dims=others, index_vector_dim=nd,
                         slice_sizes=(1,) * nd, indices_are_sorted=False,
                         mode="promise_in_bounds")


@sort_p.def_jvp
def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    shape = aval_of(primals[0]).shape
    iota = iota_p.bind(dtype=np.dtype(np.int32), shape=shape, dimension=dimension)
    *outs, perm = sort_p.bind(*primals, iota, dimension=dimension, is_stable=is_stable,
                              num_keys=num_keys)
    touts = [t if type(t) is Zero else take_along(t, perm, dimension) for t in tangents]
    return outs, touts


@top_k_p.def_jvp
def _top_k_jvp(primals, tangents, *, k, axis):
    (x,), (t,) = primals, tangents
    vals, idx = top_k_p.bind(x, k=k, axis=axis)
    return [vals, idx], [take_along(t, idx, axis), zero_of(aval_of(idx))]
