"""Grouped matrix products, as JAX's ``ragged_dot`` / ``ragged_dot_general``: the positions
along one ragged dimension of ``lhs`` fall into consecutive groups of ``group_sizes``.

Written with masks: a bool ``[size, g]`` membership of each position in each group, a
dot_general with the group as one more (batch or free) dimension, and, where each position
has one group, a sum over the groups (a position in no group gives zeros, as JAX's). The
work is ``g`` times a plain dot's; derivatives and batching are those of the composition.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ..core.ir import aval_of
from ._convert import as_operand, convert_element_type
from ._linalg import DotDimensionNumbers, dot_general
from ._ops import and_, le, lt, select, sub
from ._reductions import cumsum, reduce_sum
from ._shape import broadcast_in_dim, broadcasted_iota, transpose


@dataclasses.dataclass(frozen=True)
class RaggedDotDimensionNumbers:
    """Which dimensions of a ragged dot are ragged and grouped (JAX's fields, a frozen
    dataclass of tuples as JAX's): ``dot_dimension_numbers`` as dot_general's,
    ``lhs_ragged_dimensions`` (one ragged dimension of lhs) and ``rhs_group_dimensions``
    (rhs's group dimension, when the ragged dimension is not contracted)."""

    dot_dimension_numbers: DotDimensionNumbers
    lhs_ragged_dimensions: tuple
    rhs_group_dimensions: tuple

    def __post_init__(self):
        (lc, rc), (lb, rb) = self.dot_dimension_numbers
        ints = lambda d: tuple(map(int, d))  # noqa: E731
        object.__setattr__(self, "dot_dimension_numbers",
                           ((ints(lc), ints(rc)), (ints(lb), ints(rb))))
        object.__setattr__(self, "lhs_ragged_dimensions", ints(self.lhs_ragged_dimensions))
        object.__setattr__(self, "rhs_group_dimensions", ints(self.rhs_group_dimensions))


def _membership(group_sizes, size):
    """bool[size, g]: position p is in group i (starts[i] <= p < ends[i])."""
    g = aval_of(group_sizes).shape[0]
    ends = cumsum(group_sizes, 0)
    starts = sub(ends, group_sizes)
    pos = broadcasted_iota(aval_of(group_sizes).dtype, (size, g), 0)
    return and_(le(broadcast_in_dim(starts, (size, g), (1,)), pos),
                lt(pos, broadcast_in_dim(ends, (size, g), (1,))))


def _grouped(lhs, r, member):
    """lhs with one more, trailing, axis of the groups: lhs where the position along r is
    in the group, else zeros."""
    a = aval_of(lhs)
    size, g = aval_of(member).shape
    shape = a.shape + (g,)
    m = broadcast_in_dim(member, shape, (r, a.ndim))
    zeros = broadcast_in_dim(convert_element_type(np.zeros((), a.dtype), a.dtype), shape, ())
    return select(m, broadcast_in_dim(lhs, shape, tuple(range(a.ndim))), zeros)


def ragged_dot_general(lhs, rhs, group_sizes, ragged_dot_dimension_numbers, precision=None,
                       preferred_element_type=None, group_offset=None, out_sharding=None):
    """A dot_general whose ``lhs`` has one ragged dimension split into consecutive groups of
    ``group_sizes``, as ``jax.lax.ragged_dot_general``: ragged along a non-contracting
    dimension, each group multiplies its own slice of ``rhs`` (its group dimension);
    ragged along a contracting dimension, the result has a leading group dimension; ragged
    along a batch dimension, it is a plain dot_general."""
    if group_offset is not None:
        raise NotImplementedError("Unimplemented group_offset support.")
    if out_sharding is not None:
        raise NotImplementedError("ragged_dot_general: out_sharding is not supported")
    lhs, rhs, group_sizes = as_operand(lhs), as_operand(rhs), as_operand(group_sizes)
    dn = ragged_dot_dimension_numbers
    (lc, rc), (lb, rb) = [tuple(map(int, d)) for d in dn.dot_dimension_numbers[0]], \
        [tuple(map(int, d)) for d in dn.dot_dimension_numbers[1]]
    ragged, group = tuple(dn.lhs_ragged_dimensions), tuple(dn.rhs_group_dimensions)
    if len(ragged) != 1:
        raise TypeError(f"ragged_dot_general requires exactly one lhs ragged dimension, got "
                        f"{len(ragged)}")
    if aval_of(group_sizes).ndim != 1:
        raise NotImplementedError("ragged_dot_general: only 1-D group_sizes are supported")
    r = ragged[0] % aval_of(lhs).ndim
    kw = dict(precision=precision, preferred_element_type=preferred_element_type)
    if r in lb:
        return dot_general(lhs, rhs, ((lc, rc), (lb, rb)), **kw)
    nd = aval_of(lhs).ndim
    lhs_g = _grouped(lhs, r, _membership(group_sizes, aval_of(lhs).shape[r]))
    if r in lc:   # groups are one more free dimension: move it to the front of the result
        if group:
            raise TypeError("ragged_dot_general: rhs_group_dimensions must be empty when the "
                            "ragged dimension is contracting")
        out = dot_general(lhs_g, rhs, ((lc, rc), (lb, rb)), **kw)
        g_at = len(lb) + sum(1 for d in range(nd) if d not in lc and d not in lb)
        perm = (g_at,) + tuple(d for d in range(aval_of(out).ndim) if d != g_at)
        return transpose(out, perm)
    if len(group) != 1:
        raise TypeError("ragged_dot_general requires one rhs group dimension when the ragged "
                        "dimension is not contracting")
    # the groups as the leading batch dimension, then summed (each position is in one group)
    out = dot_general(lhs_g, rhs, ((lc, rc), ((nd,) + lb, (group[0],) + rb)), **kw)
    return reduce_sum(out, (0,))


def ragged_dot(lhs, rhs, group_sizes, precision=None, preferred_element_type=None,
               group_offset=None, out_sharding=None):
    """``lhs[m, k] @ rhs[g, k, n]`` where the rows of ``lhs`` fall into consecutive groups
    of ``group_sizes[g]`` and group i's rows use ``rhs[i]``, as ``jax.lax.ragged_dot``
    (rows in no group give zeros).

    >>> import numpy as np
    >>> from frontend import lax
    >>> lax.ragged_dot(np.ones((3, 2), np.float32), np.float32([[[1.], [1.]], [[2.], [2.]]]),
    ...                np.int32([1, 2]))
    Array([[2.],
           [4.],
           [4.]], dtype=float32)
    """
    dn = RaggedDotDimensionNumbers((((1,), (1,)), ((), ())), (0,), (0,))
    return ragged_dot_general(lhs, rhs, group_sizes, dn, precision, preferred_element_type,
                              group_offset, out_sharding)


__all__ = ["RaggedDotDimensionNumbers", "ragged_dot", "ragged_dot_general"]
