"""Collectives over named axes (a named vmap's, or a shard_map's mesh axes), as JAX's: psum,
pmax, pmin (param ``axes``: a tuple of names), all_gather, reduce_scatter (lax.psum_scatter),
all_to_all, ppermute (param ``axis_name``: a tuple of one name; frontend.lax spreads tuples of
names over them) and axis_index (``axis_name``: one name). The wrappers are in frontend.lax.

Batching: a vmap trace named in the collective resolves it on its batch axis, with no loop
(psum: a reduction over the batch axis; all_gather: the batch axis becomes a positional
axis; reduce_scatter: the summed axis becomes the batch axis; ...); what remains over other
names is bound again for the enclosing traces. Any other vmap trace treats its batch axis as
one more positional axis. Rules read the trace running them with ``batching.rule_axis()``.

Lowering (lowering/emit/collectives.py): inside a shard_map, whose body binds the mesh axes
as names, these same objects lower to XLA's collectives across the devices (all_reduce,
all_gather, reduce_scatter, all_to_all, collective_permute, partition_id). Under vmap a
collective never reaches lowering: the vmap that binds its name resolves it first. A name
that nothing binds is a NameError when the collective is bound
(frontend.interpreters.named_axes.CollectivePrimitive).

Autodiff (as JAX's rules under vmap): psum, all_gather, reduce_scatter, all_to_all and
ppermute are linear. psum's transpose is psum of the cotangent (every lane's result depends
on every lane's input); all_gather and reduce_scatter are each other's transposes, all_to_all
transposes to all_to_all with split and concat axes swapped, ppermute to the inverse
permutation. pmax/pmin pass the tangent of the lanes holding the extreme, shared over ties as
reduce_max does (JAX 0.10.2 has no rule there: ours is the derivative JAX's reduce_max
gives over the gathered lanes); axis_index has a zero (float0) tangent.
"""
from __future__ import annotations

import numpy as np

from ..core.ir import Aval, aval_of, literal
from ..interpreters import batching
from ..interpreters.batching import shape
from ..interpreters.named_axes import CollectivePrimitive
from .elementwise import (
    NUM_BOOL,
    NUMBER,
    check_dtype,
    convert_element_type_p,
    div_p,
    eq_p,
    jvp_by_operand,
    mul_p,
    select_p,
)
from .indexing import gather_p
from .padding import pad_p
from .reductions import reduce_max_p, reduce_min_p, reduce_sum_p
from .shape import bdim_at, broadcast_in_dim_p, iota_p, linear_jvp, reshape_p, transpose_p, zero_jvp

_I32 = np.dtype(np.int32)


def _check_names(prim: str, names, single: bool):
    if not isinstance(names, tuple) or (single and len(names) != 1):
        what = "a tuple of one axis name" if single else "a tuple of axis names"
        raise ValueError(f"{prim} takes {what}, got {names!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"{prim} got a repeated axis name in {names!r}")


def _here(names) -> tuple:
    """(the vmap trace running the rule, whether the collective names its axis)."""
    t = batching.rule_axis()
    return t, t.axis_name is not None and t.axis_name in names


def _around(d: int, a: int, added: int) -> tuple:
    """Another vmap's batch axis d around a per-lane axis a that the collective grows by
    ``added`` axes (1: inserts one there, -1: removes it): (a in the batched value, where
    the batch axis ends up)."""
    return (a + 1, d) if d <= a else (a, d + added)


def _reshape(x, new_sizes):
    return reshape_p.bind(x, new_sizes=tuple(new_sizes), dimensions=None)


def _merge(x, a: int):
    """Axes a and a+1 of x as one (a major)."""
    s = shape(x)
    return _reshape(x, s[:a] + (s[a] * s[a + 1],) + s[a + 2:])


def divides(size: int, n: int) -> bool:
    """Whether n splits into ``size`` equal blocks (into none only when n is 0)."""
    return n % size == 0 if size else n == 0


def block(n: int, size: int) -> int:
    """The size of each of ``size`` equal blocks of n (0 when there are no blocks)."""
    return n // size if size else 0


def _split(x, a: int, n: int):
    """Axis a of x as (n, size // n)."""
    s = shape(x)
    return _reshape(x, s[:a] + (n, block(s[a], n)) + s[a + 1:])


# ----------------------------------------------------------------------------- psum, pmax, pmin


def reduction(name: str, kind: str, reduce_p, unmapped) -> CollectivePrimitive:
    """An all-reduce over the named axes ``axes``. Over the vmapped axis: ``reduce_p`` over
    the batch axis (``unmapped(x, size)`` when x is the same in every lane); unbatched result."""
    p = CollectivePrimitive(name, names_param="axes")

    @p.def_abstract_eval
    def abstract_eval(x, *, axes):
        _check_names(name, axes, single=False)
        check_dtype(name, kind, x.dtype)
        return x

    @p.def_batching
    def batch(args, dims, *, axes):
        (x,), (d,) = args, dims
        t, mine = _here(axes)
        if not mine:  # another vmap's axis: per lane, as before
            return p.bind(x, axes=axes), d
        y = unmapped(x, t.axis_size) if d is None else reduce_p.bind(x, axes=(d,))
        rest = tuple(a for a in axes if a != t.axis_name)
        return (p.bind(y, axes=rest) if rest else y), None

    return p


def _times_size(x, size):
    a = aval_of(x)
    return mul_p.bind(x, literal(size, a.dtype, a.weak_type))


psum_p = reduction("psum", NUMBER, reduce_sum_p, _times_size)
pmax_p = reduction("pmax", NUM_BOOL, reduce_max_p, lambda x, size: x)
pmin_p = reduction("pmin", NUM_BOOL, reduce_min_p, lambda x, size: x)
psum_p.def_jvp(linear_jvp(psum_p))
psum_p.def_transpose(lambda ct, x, *, axes: [psum_p.bind(ct, axes=axes)])


def _pchooser_jvp(p):
    """pmax/pmin: the tangent of the lanes holding the result, averaged over ties."""
    def contribution(g, ans, x, *, axes):
        hit = convert_element_type_p.bind(eq_p.bind(x, ans), new_dtype=aval_of(g).dtype,
                                          weak_type=False)
        return div_p.bind(psum_p.bind(mul_p.bind(g, hit), axes=axes), psum_p.bind(hit, axes=axes))
    return jvp_by_operand(p, contribution, with_result=True)


pmax_p.def_jvp(_pchooser_jvp(pmax_p))
pmin_p.def_jvp(_pchooser_jvp(pmin_p))


# ----------------------------------------------------------------------------- all_gather


# all_gather(x; all_gather_dimension, axis_name, axis_size, tiled): every lane gets the
# lanes' x stacked on a new axis all_gather_dimension (tiled: concatenated along it).
all_gather_p = CollectivePrimitive("all_gather")


@all_gather_p.def_abstract_eval
def _all_gather_abstract_eval(x, *, all_gather_dimension, axis_name, axis_size, tiled):
    _check_names("all_gather", axis_name, single=True)
    a = all_gather_dimension
    if not 0 <= a < x.ndim + (not tiled):
        raise ValueError(f"axis {a} is out of bounds for array of dimension "
                         f"{x.ndim + (not tiled)}")
    s = list(x.shape)
    if tiled:
        s[a] *= axis_size
    else:
        s.insert(a, axis_size)
    return Aval(tuple(s), x.dtype, x.weak_type)


@all_gather_p.def_batching
def _all_gather_batch(args, dims, *, all_gather_dimension, axis_name, axis_size, tiled):
    # named axis: the batch axis becomes the gathered axis (unbatched result); another
    # vmap's axis stays where it is, shifted by the gathered axis when one is inserted before it
    (x,), (d,) = args, dims
    a = all_gather_dimension
    t, mine = _here(axis_name)
    if not mine:
        a, d = _around(d, a, 0 if tiled else 1)
        return all_gather_p.bind(x, all_gather_dimension=a, axis_name=axis_name,
                                 axis_size=axis_size, tiled=tiled), d
    y = bdim_at(x, d, t.axis_size, a)
    return (_merge(y, a) if tiled else y), None


all_gather_p.def_jvp(linear_jvp(all_gather_p))


@all_gather_p.def_transpose
def _all_gather_transpose(ct, x, *, all_gather_dimension, axis_name, axis_size, tiled):
    return [reduce_scatter_p.bind(ct, scatter_dimension=all_gather_dimension,
                                  axis_name=axis_name, axis_size=axis_size, tiled=tiled)]


# ----------------------------------------------------------------------------- reduce_scatter


# reduce_scatter(x; scatter_dimension, axis_name, axis_size, tiled): the sum over the lanes,
# lane k keeping block k of scatter_dimension (untiled: that dim has the axis size and goes).
reduce_scatter_p = CollectivePrimitive("reduce_scatter")


@reduce_scatter_p.def_abstract_eval
def _reduce_scatter_abstract_eval(x, *, scatter_dimension, axis_name, axis_size, tiled):
    _check_names("reduce_scatter", axis_name, single=True)
    check_dtype("psum_scatter", NUMBER, x.dtype)
    sd = scatter_dimension
    if not 0 <= sd < x.ndim:
        raise ValueError(f"axis {sd} is out of bounds for array of dimension {x.ndim}")
    n = x.shape[sd]
    s = list(x.shape)
    if tiled:
        if not divides(axis_size, n):
            raise ValueError(f"tiled reduce_scatter operand scatter dimension size {n} must "
                             f"be divisible by shard_count {axis_size}")
        s[sd] = block(n, axis_size)
    else:
        if n != axis_size:
            raise ValueError(f"reduce_scatter operand scatter dimension size {n} must match "
                             f"shard count {axis_size}")
        del s[sd]
    return Aval(tuple(s), x.dtype, x.weak_type)


@reduce_scatter_p.def_batching
def _reduce_scatter_batch(args, dims, *, scatter_dimension, axis_name, axis_size, tiled):
    # named axis: the lanes are summed and the (split) scatter dimension becomes the batch
    # axis; another vmap's axis stays, shifted left when the removed scatter dim precedes it
    (x,), (d,) = args, dims
    sd = scatter_dimension
    t, mine = _here(axis_name)
    if not mine:
        sd, d = _around(d, sd, 0 if tiled else -1)
        return reduce_scatter_p.bind(x, scatter_dimension=sd, axis_name=axis_name,
                                     axis_size=axis_size, tiled=tiled), d
    y = _times_size(x, t.axis_size) if d is None else reduce_sum_p.bind(x, axes=(d,))
    return (_split(y, sd, t.axis_size) if tiled else y), sd


reduce_scatter_p.def_jvp(linear_jvp(reduce_scatter_p))


@reduce_scatter_p.def_transpose
def _reduce_scatter_transpose(ct, x, *, scatter_dimension, axis_name, axis_size, tiled):
    return [all_gather_p.bind(ct, all_gather_dimension=scatter_dimension,
                              axis_name=axis_name, axis_size=axis_size, tiled=tiled)]


# ----------------------------------------------------------------------------- all_to_all


# all_to_all(x; split_axis, concat_axis, axis_name, axis_size): split_axis is cut into
# axis_size blocks, block k goes to lane k, and each lane concatenates what it receives along
# concat_axis in lane order (JAX's primitive; lax.all_to_all adds the untiled reshapes).
all_to_all_p = CollectivePrimitive("all_to_all")


@all_to_all_p.def_abstract_eval
def _all_to_all_abstract_eval(x, *, split_axis, concat_axis, axis_name, axis_size):
    _check_names("all_to_all", axis_name, single=True)
    for a in (split_axis, concat_axis):
        if not 0 <= a < x.ndim:
            raise ValueError(f"axis {a} is out of bounds for array of dimension {x.ndim}")
    s = list(x.shape)
    if not divides(axis_size, s[split_axis]):
        raise ValueError(f"The size of all_to_all split_axis ({s[split_axis]}) has to be "
                         f"divisible by the size of the named axis {axis_name[0]} ({axis_size})")
    s[split_axis] = block(s[split_axis], axis_size)
    s[concat_axis] *= axis_size
    return Aval(tuple(s), x.dtype, x.weak_type)


def _all_to_all_lanes(x, d, size, sa, ca):
    """all_to_all over the batch axis of x: a reshape, one transpose and a reshape; the
    result's batch axis is 0."""
    x0 = bdim_at(x, d, size, 0)  # (source lane c, *lane shape)
    lane = shape(x0)[1:]
    m = block(lane[sa], size)
    x1 = _reshape(x0, (size,) + lane[:sa] + (size, m) + lane[sa + 1:])
    # axes of x1: 0 is c; lane axis k < sa is 1 + k; sa is (1 + sa: destination, 2 + sa:
    # block); k > sa is 2 + k. Destination first, c just before concat_axis.
    perm = [1 + sa]
    for k in range(len(lane)):
        if k == ca:
            perm.append(0)
        perm.append(1 + k if k < sa else 2 + k)
    y = transpose_p.bind(x1, permutation=tuple(perm))
    out = list(lane)
    out[sa] = m
    out[ca] *= size
    return _reshape(y, (size,) + tuple(out)), 0


@all_to_all_p.def_batching
def _all_to_all_batch(args, dims, *, split_axis, concat_axis, axis_name, axis_size):
    # named axis: the batch axis trades places with the blocks of split_axis (batch axis 0);
    # another vmap's axis stays where it is
    (x,), (d,) = args, dims
    t, mine = _here(axis_name)
    if not mine:
        return all_to_all_p.bind(x, split_axis=split_axis + (d <= split_axis),
                                 concat_axis=concat_axis + (d <= concat_axis),
                                 axis_name=axis_name, axis_size=axis_size), d
    return _all_to_all_lanes(x, d, t.axis_size, split_axis, concat_axis)


all_to_all_p.def_jvp(linear_jvp(all_to_all_p))


@all_to_all_p.def_transpose
def _all_to_all_transpose(ct, x, *, split_axis, concat_axis, axis_name, axis_size):
    return [all_to_all_p.bind(ct, split_axis=concat_axis, concat_axis=split_axis,
                              axis_name=axis_name, axis_size=axis_size)]


# ----------------------------------------------------------------------------- ppermute


def check_perm(perm, size: int, name) -> None:
    """``perm``: (source, destination) pairs of lanes, sources and destinations unique."""
    srcs = [s for s, _ in perm]
    dsts = [d for _, d in perm]
    if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
        raise ValueError(f"ppermute sources and destinations must be unique, got {perm}.")
    for pair in perm:
        if any(not 0 <= i < size for i in pair):
            raise ValueError(f"ppermute perm entry {pair} is out of range for the axis {name} "
                             f"of size {size}")


# ppermute(x; axis_name, perm): lane dst gets lane src's x for each (src, dst) in perm;
# lanes that are no destination get zeros.
ppermute_p = CollectivePrimitive("ppermute")


@ppermute_p.def_abstract_eval
def _ppermute_abstract_eval(x, *, axis_name, perm):
    _check_names("ppermute", axis_name, single=True)
    if not isinstance(perm, tuple) or not all(
            isinstance(p, tuple) and len(p) == 2 and all(type(i) is int for i in p) for p in perm):
        raise TypeError(f"ppermute perm must be a tuple of (source, destination) pairs of "
                        f"ints, got {perm!r}")
    return x


def _take_lanes(x, d: int, idx):
    """x with lane k of axis d taken from lane idx[k] (one gather)."""
    shp = shape(x)
    r = len(shp)
    return gather_p.bind(x, np.asarray(idx, _I32).reshape(-1, 1),
                         offset_dims=tuple(k for k in range(r) if k != d),
                         collapsed_slice_dims=(d,), start_index_map=(d,),
                         operand_batching_dims=(), start_indices_batching_dims=(),
                         index_vector_dim=1,
                         slice_sizes=tuple(1 if k == d else s for k, s in enumerate(shp)),
                         indices_are_sorted=False, mode="promise_in_bounds")


@ppermute_p.def_batching
def _ppermute_batch(args, dims, *, axis_name, perm):
    # named axis: a gather of lanes along the batch axis, which stays (a zero lane padded
    # after the last serves the lanes that receive nothing); another vmap's axis stays
    (x,), (d,) = args, dims
    t, mine = _here(axis_name)
    if not mine:
        return ppermute_p.bind(x, axis_name=axis_name, perm=perm), d
    size = t.axis_size
    check_perm(perm, size, axis_name[0])
    src = [size] * size  # lane size: the zero lane
    for s, k in perm:
        src[k] = s
    missing = size in src
    dt = aval_of(x).dtype
    if d is None:
        if not missing:
            return x, None
        xb = bdim_at(x, None, size, 0)
        mask = broadcast_in_dim_p.bind(np.asarray([k != size for k in src]), shape=shape(xb),
                                       broadcast_dimensions=(0,))
        return select_p.bind(mask, xb, literal(0, dt)), 0
    if src == list(range(size)):
        return x, d
    if missing:
        cfg = tuple((0, 1, 0) if k == d else (0, 0, 0) for k in range(len(shape(x))))
        x = pad_p.bind(x, literal(0, dt), padding_config=cfg)
    return _take_lanes(x, d, src), d


ppermute_p.def_jvp(linear_jvp(ppermute_p))
ppermute_p.def_transpose(lambda ct, x, *, axis_name, perm: [
    ppermute_p.bind(ct, axis_name=axis_name, perm=tuple((d, s) for s, d in perm))])


# ----------------------------------------------------------------------------- axis_index


# axis_index(; axis_name): the int32 position of the lane along the named axis.
axis_index_p = CollectivePrimitive("axis_index")


@axis_index_p.def_abstract_eval
def _axis_index_abstract_eval(*, axis_name):
    return Aval((), _I32, False)


@axis_index_p.def_batching
def _axis_index_batch(args, dims, *, axis_name):
    # named axis: an iota over the lanes (batch axis 0)
    t, mine = _here((axis_name,))
    if not mine:
        return axis_index_p.bind(axis_name=axis_name), None
    return iota_p.bind(dtype=_I32, shape=(t.axis_size,), dimension=0), 0


axis_index_p.def_jvp(zero_jvp(axis_index_p))
