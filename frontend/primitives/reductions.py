"""Reduction primitives, rows of three small families:

- monoid reductions over ``axes`` (reduce_sum, reduce_prod, reduce_max, reduce_min,
  reduce_and, reduce_or, reduce_xor): the reduced axes disappear; dtype and weak type stay.
  (The family's factory and reduce_sum live in frontend.primitives.shape, with
  broadcast_in_dim, their transpose.)
- argmax / argmin over ``axes=(k,)`` giving ``index_dtype`` indices; the first index wins
  ties and NaN counts as the extreme value (as in JAX).
- cumulative scans (cumsum, cumprod, cummax, cummin) along ``axis`` (``reverse`` scans from
  the end): same shape and dtype.

Batching never reduces (or scans over) the batch axis: the operation's axes are renumbered
around it, so no transpose is ever needed. Derivatives as JAX's: reduce_prod by a halving
tree of products, max/min share ties, cumprod/cummax/cummin through the parallel prefix
scan (``associative_scan``), so they differentiate to any order.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.ir import Aval, Primitive, aval_of, literal
from ..interpreters.jvp import jvp_fun
from .elementwise import add_p, convert_element_type_p, div_p, eq_p, jvp_by_operand, max_p, min_p, mul_p
from .padding import concatenate_p, pad_p, slice_p
from .shape import (  # noqa: F401
    ANY_KIND,
    INT_BOOL_KIND,
    NUMBER_KIND,
    accepts,
    broadcast_in_dim_p,
    linear_jvp,
    reduce_sum_p,
    reduced_bdim,
    reduction,
    reshape_p,
    rev_p,
    shift_axes,
    transpose_p,
    zero_jvp,
)


def _front(x, axes):
    """x with ``axes`` moved to the front and flattened into one: (n, *rest)."""
    shp = aval_of(x).shape
    rest = [i for i in range(len(shp)) if i not in axes]
    perm = tuple(axes) + tuple(rest)
    if perm != tuple(range(len(shp))):
        x = transpose_p.bind(x, permutation=perm)
    n = int(np.prod([shp[i] for i in axes], dtype=np.int64))
    return reshape_p.bind(x, new_sizes=(n,) + tuple(shp[i] for i in rest), dimensions=None)


def _prod_tree(x):
    """The product over axis 0 by halving (mul, slice, pad only: differentiable to any
    order, as JAX's reduce_prod jvp)."""
    shp = aval_of(x).shape
    rest = shp[1:]
    one = literal(1, aval_of(x).dtype, aval_of(x).weak_type)
    while aval_of(x).shape[0] > 1:
        n = aval_of(x).shape[0]
        n1 = (n + 1) // 2
        a = slice_p.bind(x, start_indices=(0,) * len(shp), limit_indices=(n1,) + rest, strides=None)
        b = slice_p.bind(x, start_indices=(n1,) + (0,) * len(rest), limit_indices=(n,) + rest,
                         strides=None)
        if n - n1 != n1:
            b = pad_p.bind(b, one, padding_config=((0, 1, 0),) + ((0, 0, 0),) * len(rest))
        x = mul_p.bind(a, b)
    if shp[0] == 0:
        return broadcast_in_dim_p.bind(one, shape=rest, broadcast_dimensions=())
    return reshape_p.bind(x, new_sizes=rest, dimensions=None)


def _reduce_prod_jvp(primals, tangents, *, axes):
    (x,), (t,) = primals, tangents
    (out,), (tout,) = jvp_fun(lambda x: [_prod_tree(_front(x, axes))], [x], [t])
    return out, tout


def _chooser_jvp(g, ans, x, *, axes):
    # the tangent at the chosen elements, averaged over ties (as JAX)
    xa = aval_of(x)
    kept = tuple(i for i in range(xa.ndim) if i not in axes)
    hit = eq_p.bind(x, broadcast_in_dim_p.bind(ans, shape=xa.shape, broadcast_dimensions=kept))
    hit = convert_element_type_p.bind(hit, new_dtype=aval_of(g).dtype, weak_type=False)
    counts = reduce_sum_p.bind(hit, axes=axes)
    return div_p.bind(reduce_sum_p.bind(mul_p.bind(g, hit), axes=axes), counts)


reduce_prod_p = reduction("reduce_prod", NUMBER_KIND)
reduce_prod_p.def_jvp(_reduce_prod_jvp)
reduce_max_p = reduction("reduce_max", ANY_KIND)
reduce_max_p.def_jvp(jvp_by_operand(reduce_max_p, _chooser_jvp, with_result=True))
reduce_min_p = reduction("reduce_min", ANY_KIND)
reduce_min_p.def_jvp(jvp_by_operand(reduce_min_p, _chooser_jvp, with_result=True))
reduce_and_p = reduction("reduce_and", INT_BOOL_KIND)
reduce_and_p.def_jvp(zero_jvp(reduce_and_p))
reduce_or_p = reduction("reduce_or", INT_BOOL_KIND)
reduce_or_p.def_jvp(zero_jvp(reduce_or_p))
reduce_xor_p = reduction("reduce_xor", INT_BOOL_KIND)
reduce_xor_p.def_jvp(zero_jvp(reduce_xor_p))


def arg_reduction(name: str) -> Primitive:
    """argmax/argmin(x, axes=(k,), index_dtype): axis k removed, result ``index_dtype``."""
    p = Primitive(name)

    @p.def_abstract_eval
    def abstract_eval(x, *, axes, index_dtype):
        axes = tuple(axes)
        if len(axes) != 1:
            raise ValueError(f"{name} takes exactly one axis, got axes={axes}")
        (k,) = axes
        if not isinstance(k, (int, np.integer)) or not 0 <= k < x.ndim:
            raise ValueError(f"Invalid axis {k} for operand shape {x.shape}")
        if x.shape[k] == 0:
            raise ValueError(f"argmin and argmax require non-empty reduced dimension. "
                             f"operand.shape={x.shape} axis={k}")
        if not dtypes.is_int(index_dtype):
            raise TypeError(f"index_dtype must be an integer type, but got "
                            f"{np.dtype(index_dtype).name}")
        if dtypes.is_complex(x.dtype):
            raise TypeError(f"{name} does not accept dtype {x.dtype.name}. Accepted dtypes "
                            "are subtypes of integer, floating, bool.")
        shape = tuple(s for i, s in enumerate(x.shape) if i != k)
        return Aval(shape, np.dtype(index_dtype), False)

    @p.def_batching
    def batch(args, dims, *, axes, index_dtype):
        # the batch axis is never reduced: it stays, shifted left if it followed the axis
        (x,), (d,) = args, dims
        new_axes = shift_axes(axes, d)
        return p.bind(x, axes=new_axes, index_dtype=index_dtype), reduced_bdim(new_axes, d)

    p.def_jvp(zero_jvp(p))
    return p


argmax_p = arg_reduction("argmax")
argmin_p = arg_reduction("argmin")


def cumulative(name: str, combine=None) -> Primitive:
    """cum<monoid>(x, axis, reverse): inclusive scan along ``axis``; same shape and dtype.
    ``combine`` (the monoid's binary primitive) gives the jvp: that of the parallel prefix
    scan with it (as JAX: differentiable to any order); without it the scan is linear
    (cumsum)."""
    p = Primitive(name)

    @p.def_abstract_eval
    def abstract_eval(x, *, axis, reverse=False):
        if dtypes.is_bool(x.dtype) or not accepts(NUMBER_KIND, x.dtype):
            raise TypeError(f"{name} does not accept dtype {x.dtype.name}. Accepted dtypes "
                            f"are subtypes of number.")
        if not isinstance(axis, (int, np.integer)):
            raise TypeError(f"{name} axis must be an int, got {axis!r}")
        if axis < 0:
            raise ValueError("XLA operations do not allow negative axes")
        if axis >= x.ndim:
            raise ValueError(f"axis {axis} is out of bounds for array of shape {x.shape}")
        return x

    @p.def_batching
    def batch(args, dims, *, axis, reverse=False):
        # the batch axis stays where it is; the scanned axis is renumbered around it
        (x,), (d,) = args, dims
        return p.bind(x, axis=axis + (axis >= d), reverse=reverse), d

    if combine is None:
        p.def_jvp(linear_jvp(p))
        p.def_transpose(lambda ct, x, *, axis, reverse=False: [
            p.bind(ct, axis=axis, reverse=not reverse)])
    else:
        @p.def_jvp
        def jvp(primals, tangents, *, axis, reverse=False):
            scan = lambda x: [associative_scan(combine.bind, x, axis, reverse)]  # noqa: E731
            (out,), (tout,) = jvp_fun(scan, list(primals), list(tangents))
            return out, tout

    return p


def associative_scan(fn, x, axis: int, reverse: bool = False):
    """The inclusive scan of x along ``axis`` with the associative ``fn`` (a binary function
    of arrays), in O(log n) parallel steps: combine neighbours, scan the half, fill in the
    rest (Blelloch's recursion, in the order JAX's associative_scan uses)."""
    if reverse:
        x = rev_p.bind(x, dimensions=(axis,))
    out = _scan(fn, x, axis)
    return rev_p.bind(out, dimensions=(axis,)) if reverse else out


def _slice_axis(x, axis, start, stop, stride=1):
    shp = aval_of(x).shape
    st = [0] * len(shp)
    lim = list(shp)
    st[axis], lim[axis] = start, stop
    strides = None if stride == 1 else tuple(stride if i == axis else 1 for i in range(len(shp)))
    return slice_p.bind(x, start_indices=tuple(st), limit_indices=tuple(lim), strides=strides)


def _scan(fn, x, axis):
    n = aval_of(x).shape[axis]
    if n < 2:
        return x
    odd = _scan(fn, fn(_slice_axis(x, axis, 0, n - 1, 2), _slice_axis(x, axis, 1, n, 2)), axis)
    no = aval_of(odd).shape[axis]
    if n % 2 == 0:
        even = fn(_slice_axis(odd, axis, 0, no - 1), _slice_axis(x, axis, 2, n, 2))
    else:
        even = fn(odd, _slice_axis(x, axis, 2, n, 2))
    even = concatenate_p.bind(_slice_axis(x, axis, 0, 1), even, dimension=axis)
    return _interleave(even, odd, axis)


def _interleave(a, b, axis):
    """a[0], b[0], a[1], b[1], ... along ``axis`` (a has as many elements as b, or one more)."""
    aa, ba = aval_of(a), aval_of(b)
    same = aa.shape[axis] == ba.shape[axis]
    zero = literal(0, aa.dtype, aa.weak_type)
    cfg_a = tuple((0, 1 if same else 0, 1) if i == axis else (0, 0, 0) for i in range(aa.ndim))
    cfg_b = tuple((1, 0 if same else 1, 1) if i == axis else (0, 0, 0) for i in range(ba.ndim))
    return add_p.bind(pad_p.bind(a, zero, padding_config=cfg_a),
                      pad_p.bind(b, zero, padding_config=cfg_b))


# ----------------------------------------------------------------------------- identities


def _zero(d):
    return False if dtypes.is_bool(d) else 0


def _one(d):
    return True if dtypes.is_bool(d) else 1


def lowest(d):
    """The smallest value of a dtype (-inf for floats that have it)."""
    d = np.dtype(d)
    if dtypes.is_bool(d):
        return False
    if dtypes.is_int(d):
        return int(dtypes.iinfo(d).min)
    return -np.inf if _has_inf(d) else float(dtypes.finfo(d).min)


def highest(d):
    """The largest value of a dtype (inf for floats that have it)."""
    d = np.dtype(d)
    if dtypes.is_bool(d):
        return True
    if dtypes.is_int(d):
        return int(dtypes.iinfo(d).max)
    return np.inf if _has_inf(d) else float(dtypes.finfo(d).max)


def _has_inf(d) -> bool:
    """False for the float8/float4 types without infinities (float8_e4m3fn, ...)."""
    return d not in dtypes.NARROW_TYPES or bool(np.isinf(np.float32(np.asarray(np.inf, d))))


def _all_ones(d):
    d = np.dtype(d)
    if dtypes.is_bool(d):
        return True
    return int(np.iinfo(d).max) if dtypes.is_unsigned(d) else -1


# the identity of each monoid reduction (its init value; the fill of masked elements)
IDENTITY = {reduce_sum_p: _zero, reduce_prod_p: _one, reduce_max_p: lowest,
            reduce_min_p: highest, reduce_and_p: _all_ones, reduce_or_p: _zero,
            reduce_xor_p: _zero}

cumsum_p = cumulative("cumsum")
cumprod_p = cumulative("cumprod", mul_p)
cummax_p = cumulative("cummax", max_p)
cummin_p = cumulative("cummin", min_p)
