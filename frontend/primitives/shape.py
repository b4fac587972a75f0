"""Shape primitives: broadcast_in_dim, reshape, transpose, squeeze, iota, rev, and
reduce_sum with the monoid-reduction factory (broadcast_in_dim and reduce_sum are each
other's transposes); the axis moves that batching rules share (``moveaxis``, ``bdim_at``) and
the autodiff helpers every rule uses (``instantiate_zeros``, ``linear_jvp``, ``zero_jvp``).
Every batching rule keeps the batch axis where it is whenever the operation allows it (no
transposes), and says where it ends up."""
from __future__ import annotations

import math

import numpy as np

from ..core import dtypes
from ..core.config import config
from ..core.ir import Aval, Primitive, aval_of, literal
from ..interpreters import batching
from ..interpreters.ad_util import Zero, tangent_aval
from ..interpreters.batching import ndim


def _prod(xs) -> int:
    return math.prod(xs)  # (a DimExpr for a symbolic shape)


# ----------------------------------------------------------------------------- autodiff helpers
# (jvp and transpose rules everywhere use these; they bind broadcast_in_dim)


def zeros_like_aval(aval: Aval):
    """An array of zeros of ``aval`` (one broadcast of a scalar)."""
    if aval.dtype == dtypes.float0:
        raise TypeError(f"cannot build an array of float0 tangents {aval}: integer and "
                        "boolean values have no tangent space")
    return broadcast_in_dim_p.bind(literal(0, aval.dtype, aval.weak_type), shape=aval.shape,
                                   broadcast_dimensions=())


def instantiate_zeros(t):
    """A tangent as an array: a symbolic ``Zero`` becomes zeros of its aval."""
    return zeros_like_aval(t.aval) if type(t) is Zero else t


def linear_jvp(prim, linear=None):
    """The jvp rule of a primitive linear in its operands (JAX's deflinear), or in those
    listed in ``linear`` (the others, e.g. indices, are passed as they are): the primitive
    applied to the tangents (zeros filled in)."""

    def rule(primals, tangents, **params):
        ts = [instantiate_zeros(t) if linear is None or i in linear else p
              for i, (p, t) in enumerate(zip(primals, tangents, strict=True))]
        return prim.bind(*primals, **params), prim.bind(*ts, **params)

    return rule


def zero_jvp(prim):
    """The jvp rule of a primitive with a zero derivative (integer results, rounding,
    comparisons): the tangents of its results are symbolic zeros."""

    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        if prim.multiple_results:
            return out, [Zero(tangent_aval(aval_of(o))) for o in out]
        return out, Zero(tangent_aval(aval_of(out)))

    return rule


# ----------------------------------------------------------------------------- broadcast_in_dim


# Operand dim i goes to result dim broadcast_dimensions[i] (equal size or 1).
broadcast_in_dim_p = Primitive("broadcast_in_dim")


@broadcast_in_dim_p.def_abstract_eval
def _broadcast_in_dim_abstract_eval(x, *, shape, broadcast_dimensions):
    shape = tuple(shape)
    bd = tuple(broadcast_dimensions)
    if any(d < 0 for d in shape):
        raise TypeError(f"broadcast_in_dim shape must have every element be nonnegative, "
                        f"got {shape}.")
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


@broadcast_in_dim_p.def_batching
def _broadcast_in_dim_batch(args, dims, *, shape, broadcast_dimensions):
    # the batch axis becomes a new result dim just after the result dim of the operand dim
    # before it (result dim 0 if it leads): broadcast_dimensions stay increasing, no transpose.
    # A batched scalar's batch axis goes last, after the new dims (as JAX's stack of batched
    # scalars: stacking them is then a concatenate along the major dim, which XLA copies
    # in rows, not a column-wise one)
    axis_size = batching.axis_size(args, dims)
    (x,), (d,) = args, dims
    bd = tuple(broadcast_dimensions)
    p = bd[d - 1] + 1 if d > 0 else 0 if bd else len(shape)
    out_shape = tuple(shape[:p]) + (axis_size,) + tuple(shape[p:])
    new_bd = tuple(b + (b >= p) for b in bd)
    new_bd = new_bd[:d] + (p,) + new_bd[d:]
    return broadcast_in_dim_p.bind(x, shape=out_shape, broadcast_dimensions=new_bd), p


def _broadcast_in_dim_transpose(ct, x, *, shape, broadcast_dimensions):
    return [sum_to_aval(ct, x.aval, shape, broadcast_dimensions)]


def sum_to_aval(ct, a, shape, broadcast_dimensions):
    """The cotangent of an operand of aval ``a`` broadcast into ``shape`` (at
    ``broadcast_dimensions``) from the cotangent ``ct`` of the result: the sum over the new
    dims and over the size-1 dims that were stretched (those are put back as 1s)."""
    bd = tuple(broadcast_dimensions)
    unit = [i for i, d in enumerate(bd) if a.shape[i] == 1 and shape[d] != 1]
    axes = tuple(sorted(set(range(len(shape))) - set(bd) | {bd[i] for i in unit}))
    out = reduce_sum_p.bind(ct, axes=axes) if axes else ct
    if unit:
        keep = tuple(i for i in range(a.ndim) if i not in unit)
        out = broadcast_in_dim_p.bind(out, shape=a.shape, broadcast_dimensions=keep)
    return out


broadcast_in_dim_p.def_jvp(linear_jvp(broadcast_in_dim_p))
broadcast_in_dim_p.def_transpose(_broadcast_in_dim_transpose)


# ----------------------------------------------------------------------------- reshape


# Row-major reshape to ``new_sizes`` (``dimensions`` is always None here).
reshape_p = Primitive("reshape")


@reshape_p.def_abstract_eval
def _reshape_abstract_eval(x, *, new_sizes, dimensions=None):
    new_sizes = tuple(new_sizes)
    if any(s < 0 for s in new_sizes):
        raise TypeError(f"reshape new_sizes must all be nonnegative, got {new_sizes}.")
    if _prod(new_sizes) != x.size:
        raise TypeError(f"reshape total size must be unchanged, got new_sizes {new_sizes} "
                        f"(of total size {_prod(new_sizes)}) for "
                        f"shape {x.shape} (of total size {x.size}).")
    return Aval(new_sizes, x.dtype, x.weak_type)


@reshape_p.def_batching
def _reshape_batch(args, dims, *, new_sizes, dimensions=None):
    # the batch axis stays in place when the dims before it group into a prefix of
    # new_sizes (always true at the front or the end); otherwise it moves to the front
    axis_size = batching.axis_size(args, dims)
    (x,), (d,) = args, dims
    shp = aval_of(x).shape
    per = shp[:d] + shp[d + 1:]
    new_sizes = tuple(new_sizes)
    j = _prefix_split(per[:d], new_sizes, prefer=d)
    if j is None:
        x, j = moveaxis(x, d, 0), 0
    out = new_sizes[:j] + (axis_size,) + new_sizes[j:]
    return reshape_p.bind(x, new_sizes=out, dimensions=None), j


def _prefix_split(lead, new_sizes, prefer):
    """A j with prod(new_sizes[:j]) == prod(lead), the one nearest to ``prefer`` (or None)."""
    if _prod(new_sizes) == 0:  # no elements: any placement is the same array
        return min(prefer, len(new_sizes))
    target = _prod(lead)
    cands = [j for j in range(len(new_sizes) + 1) if _prod(new_sizes[:j]) == target]
    if not cands:
        return None
    return min(cands, key=lambda j: (abs(j - prefer), j))


reshape_p.def_jvp(linear_jvp(reshape_p))
reshape_p.def_transpose(lambda ct, x, *, new_sizes, dimensions=None: [
    reshape_p.bind(ct, new_sizes=x.aval.shape, dimensions=None)])


# ----------------------------------------------------------------------------- transpose


# Result dim i is operand dim permutation[i].
transpose_p = Primitive("transpose")


@transpose_p.def_abstract_eval
def _transpose_abstract_eval(x, *, permutation):
    perm = tuple(permutation)
    if sorted(perm) != list(range(x.ndim)):
        raise TypeError(f"transpose permutation isn't a permutation of operand dimensions, "
                        f"got permutation {perm} for operand shape {x.shape}.")
    return Aval(tuple(x.shape[p] for p in perm), x.dtype, x.weak_type)


@transpose_p.def_batching
def _transpose_batch(args, dims, *, permutation):
    # the batch axis goes to the front: free, since the op transposes anyway, and a
    # following out_axes=0 (or an outer vmap's) then needs no second transpose
    (x,), (d,) = args, dims
    perm = (d,) + tuple(p + (p >= d) for p in permutation)
    if perm == tuple(range(len(perm))):
        return x, 0
    return transpose_p.bind(x, permutation=perm), 0


transpose_p.def_jvp(linear_jvp(transpose_p))
transpose_p.def_transpose(lambda ct, x, *, permutation: [
    transpose_p.bind(ct, permutation=tuple(int(i) for i in np.argsort(permutation)))])


# ----------------------------------------------------------------------------- squeeze


# Drop the size-1 dims ``dimensions`` (sorted, canonical); lowered as a reshape.
squeeze_p = Primitive("squeeze")


@squeeze_p.def_abstract_eval
def _squeeze_abstract_eval(x, *, dimensions):
    dims = tuple(dimensions)
    for k in dims:
        if not 0 <= k < x.ndim:
            raise ValueError(f"axis {k} is out of bounds for array of dimension {x.ndim}")
    if len(set(dims)) != len(dims):
        raise ValueError(f"dimensions are not unique: {dims}")
    if any(x.shape[k] != 1 for k in dims):
        raise ValueError(f"cannot select an axis to squeeze out which has size not equal to "
                         f"one, got shape={x.shape} and dimensions={dims}")
    return Aval(tuple(s for i, s in enumerate(x.shape) if i not in dims), x.dtype,
                x.weak_type)


@squeeze_p.def_batching
def _squeeze_batch(args, dims, *, dimensions):
    # the batch axis stays put; it shifts left by the squeezed dims before it
    (x,), (d,) = args, dims
    full = tuple(k + (k >= d) for k in dimensions)
    out_d = d - sum(1 for k in full if k < d)
    return squeeze_p.bind(x, dimensions=full), out_d


squeeze_p.def_jvp(linear_jvp(squeeze_p))
squeeze_p.def_transpose(lambda ct, x, *, dimensions: [
    reshape_p.bind(ct, new_sizes=x.aval.shape, dimensions=None)])


# ----------------------------------------------------------------------------- monoid reductions
# The family's factory, and reduce_sum (broadcast_in_dim's transpose, as broadcast_in_dim is
# its: the two rules need each other, so they live together); the other monoid rows are in
# frontend.primitives.reductions.

# dtype classes
NUMBER_KIND = "number"
ANY_KIND = "any"
INT_BOOL_KIND = "int_or_bool"


def accepts(kind, d) -> bool:
    if kind == NUMBER_KIND:
        return dtypes.is_int(d) or dtypes.is_inexact(d)
    if kind == INT_BOOL_KIND:
        return dtypes.is_int(d) or dtypes.is_bool(d)
    return True


def check_axes(x: Aval, axes) -> tuple:
    axes = tuple(axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"duplicate value in 'axes' of reduction: {axes}")
    if any(not isinstance(a, (int, np.integer)) or not 0 <= a < x.ndim for a in axes):
        raise ValueError(f"reduction axes {axes} contains out-of-bounds indices for "
                         f"{x.dtype.name}[{','.join(map(str, x.shape))}].")
    return axes


def shift_axes(axes, bdim) -> tuple:
    """Per-example axes -> axes of the batched operand whose batch axis is at ``bdim``."""
    return tuple(a + (a >= bdim) for a in axes)


def reduced_bdim(axes, bdim) -> int:
    """Where the batch axis lands once ``axes`` (of the batched operand) are removed."""
    return bdim - sum(1 for a in axes if a < bdim)


def reduction(name: str, kind: str) -> Primitive:
    """reduce_<monoid>(x, axes=(...)): ``axes`` (distinct, in range) are removed."""
    p = Primitive(name)

    @p.def_abstract_eval
    def abstract_eval(x, *, axes):
        if not accepts(kind, x.dtype):
            if kind == INT_BOOL_KIND:
                raise TypeError(f"logical reduction requires operand dtype bool or int, got "
                                f"{x.dtype.name}.")
            raise TypeError(f"{name} does not accept dtype {x.dtype.name}. Accepted dtypes "
                            f"are subtypes of number.")
        axes = check_axes(x, axes)
        shape = tuple(s for i, s in enumerate(x.shape) if i not in axes)
        return Aval(shape, x.dtype, x.weak_type)

    @p.def_batching
    def batch(args, dims, *, axes):
        # the batch axis is never reduced: it stays, shifted left by the reduced axes before it
        (x,), (d,) = args, dims
        new_axes = shift_axes(axes, d)
        return p.bind(x, axes=new_axes), reduced_bdim(new_axes, d)

    return p


reduce_sum_p = reduction("reduce_sum", NUMBER_KIND)
reduce_sum_p.def_jvp(linear_jvp(reduce_sum_p))
_reduce_sum_eval = reduce_sum_p.abstract_eval_rule


@reduce_sum_p.def_abstract_eval
def _reduce_sum_abstract_eval(x, *, axes):
    # allow_f16_reductions=False (JAX's option): no sums in half precision
    if not config.allow_f16_reductions and x.dtype in (dtypes.float16, dtypes.bfloat16):
        raise ValueError(f"reduce_sum on operand {x.str_short()} is not allowed when "
                         "jax_allow_f16_reductions=False.")
    return _reduce_sum_eval(x, axes=axes)


@reduce_sum_p.def_transpose
def _reduce_sum_transpose(ct, x, *, axes):
    # every reduced element gets the cotangent of its sum
    kept = tuple(i for i in range(x.aval.ndim) if i not in axes)
    return [broadcast_in_dim_p.bind(ct, shape=x.aval.shape, broadcast_dimensions=kept)]


# ----------------------------------------------------------------------------- iota


# An array of ``shape`` whose elements count 0, 1, ... along ``dimension``.
iota_p = Primitive("iota")


@iota_p.def_abstract_eval
def _iota_abstract_eval(*, dtype, shape, dimension):
    shape = tuple(shape)
    if np.dtype(dtype) == np.bool_:
        raise TypeError("iota does not accept dtype bool. Accepted dtypes are subtypes of "
                        "integer, floating, complexfloating.")
    if any(s < 0 for s in shape):
        raise TypeError(f"iota shape must be nonnegative, got {shape}")
    if not 0 <= dimension < len(shape):
        raise ValueError(f"iota dimension must be between 0 and len(shape), got "
                         f"dimension={dimension} for shape={shape}")
    return Aval(shape, dtype, False)


iota_p.def_jvp(zero_jvp(iota_p))

# dim_as_value(; dim): a symbolic dimension (frontend/core/shape_poly.py) as a weakly typed
# int scalar, computed at run time from the arguments' dimension sizes (JAX's
# dimension_as_value), e.g. the count a mean divides by
dim_as_value_p = Primitive("dim_as_value")


@dim_as_value_p.def_abstract_eval
def _dim_as_value_abstract_eval(*, dim):
    return Aval((), dtypes.canonicalize(np.dtype(np.int64)), True)


dim_as_value_p.def_jvp(zero_jvp(dim_as_value_p))


# ----------------------------------------------------------------------------- rev


# Reverse the order of elements along ``dimensions``.
rev_p = Primitive("rev")


@rev_p.def_abstract_eval
def _rev_abstract_eval(x, *, dimensions):
    dims = tuple(dimensions)
    if len(set(dims)) != len(dims):
        raise TypeError(f"rev dimensions must be unique, got {dims}.")
    if any(not 0 <= k < x.ndim for k in dims):
        raise TypeError(f"rev dimensions must all be less than operand ndim, got dimensions "
                        f"{dims} for operand ndim {x.ndim}.")
    return x


@rev_p.def_batching
def _rev_batch(args, dims, *, dimensions):
    # the batch axis stays where it is
    (x,), (d,) = args, dims
    return rev_p.bind(x, dimensions=tuple(k + (k >= d) for k in dimensions)), d


rev_p.def_jvp(linear_jvp(rev_p))
rev_p.def_transpose(lambda ct, x, *, dimensions: [rev_p.bind(ct, dimensions=dimensions)])


# ----------------------------------------------------------------------------- axis moves
# (used by batching rules everywhere; they bind the primitives above)


def moveaxis(x, src: int, dst: int):
    """Move axis ``src`` of x to ``dst`` with one transpose (none when src == dst)."""
    if src == dst:
        return x
    perm = [i for i in range(ndim(x)) if i != src]
    perm.insert(dst, src)
    return transpose_p.bind(x, permutation=tuple(perm))


def bdim_at(x, d, size: int, dst: int = 0):
    """x with its batch axis at ``dst``; an unbatched x (d None) is broadcast to the batch."""
    if d is None:
        shp = batching.shape(x)
        out_shape = tuple(shp[:dst]) + (size,) + tuple(shp[dst:])
        dims = tuple(i if i < dst else i + 1 for i in range(len(shp)))
        return broadcast_in_dim_p.bind(x, shape=out_shape, broadcast_dimensions=dims)
    return moveaxis(x, d, dst)
