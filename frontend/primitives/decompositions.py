"""Matrix decompositions and triangular solves over the trailing two axes (leading axes
are a batch of independent problems), as jax.lax.linalg's primitives:

- cholesky(x): the lower Cholesky factor (NaNs where x is not positive definite);
- lu(x): (lu, pivots): L below the diagonal (unit diagonal implied), U on and above it,
  int32 row-swap pivots (0-based) as LAPACK's getrf;
- geqrf(x): (a, taus): R on and above the diagonal, Householder reflectors below, their
  scales; householder_product(a, taus): the product of those reflectors (Q);
- eigh(x, lower): (v, w): eigenvectors in the columns of v, ascending real eigenvalues w
  of the Hermitian matrix read from the ``lower`` (or upper) triangle;
- svd(x, full_matrices, compute_uv): [s] or [s, u, vt], singular values descending;
- triangular_solve(a, b, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
  solves op(a) x = b (``left_side``) or x op(a) = b for x.

They lower to the LAPACK kernels jaxlib registers on CPU, whose native batch axes are
the leading axes: a batching rule keeps the vmap axis there (moving it to the front only
when it is one of the two matrix axes), so a vmapped decomposition is one kernel call.
A triangular solve with an unbatched matrix folds the vmap axis into the right-hand
sides' columns (rows, when solving from the right) instead of copying the matrix.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.ir import Aval, Primitive, aval_of, literal
from ..interpreters import batching
from ..interpreters.ad_util import Zero, is_undefined_primal, zero_of
from .elementwise import (
    abs_p,
    add_p,
    and_p,
    convert_element_type_p,
    div_p,
    eq_p,
    ge_p,
    jvp_by_operand,
    le_p,
    mul_p,
    neg_p,
    select_p,
    sub_p,
)
from .indexing import gather_p, scatter_p
from .linalg import dot_general_p
from .numeric import complex_p, conj_p, imag_p, integer_pow_p, real_p
from .padding import concatenate_p, pad_p, slice_p
from .reductions import argmax_p
from .shape import (
    bdim_at,
    broadcast_in_dim_p,
    iota_p,
    moveaxis,
    reduce_sum_p,
    reshape_p,
    rev_p,
    transpose_p,
    zero_jvp,
    zeros_like_aval,
)
from .sort import take_along

LAPACK_DTYPES = tuple(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))


def _check(name: str, avals, ranks) -> tuple:
    """The common batch shape of the operands (JAX's linalg shape-rule errors); the dtypes
    LAPACK takes."""
    for i, (a, r) in enumerate(zip(avals, ranks, strict=True)):
        if a.ndim < r:
            raise TypeError(f"Input {i} to {name} must have rank at least {r}, but got "
                            f"shape={a.shape}")
        if a.dtype not in LAPACK_DTYPES:
            raise TypeError(f"{name} does not accept dtype {a.dtype.name}. Accepted dtypes are "
                            "float32, float64, complex64, complex128.")
    batch = [a.shape[:a.ndim - r] for a, r in zip(avals, ranks, strict=True)]
    if len({len(b) for b in batch}) > 1:
        raise TypeError(f"All inputs to {name} must have the same number of batch dimensions, "
                        f"but got {[len(b) for b in batch]} batch dimensions for the inputs.")
    if len(set(batch)) > 1:
        raise ValueError(f"{name} requires equal batch dimensions, got {batch}")
    if len({a.dtype for a in avals}) > 1:
        raise TypeError(f"{name} requires arguments to have the same dtypes, got "
                        + ", ".join(a.dtype.name for a in avals) + ".")
    return batch[0]


def real_dtype(d) -> np.dtype:
    return np.dtype(np.finfo(d).dtype) if dtypes.is_complex(d) else np.dtype(d)


def _leading_batch(prim):
    """The batching rule of a one-operand decomposition: the vmap axis stays where it is
    when it is a leading (batch) axis, else it moves to the front; every result has it at
    the same place."""

    def rule(args, dims, **params):
        (x,), (d,) = args, dims
        if d >= batching.ndim(x) - 2:
            x, d = moveaxis(x, d, 0), 0
        outs = prim.bind(x, **params)
        return (outs, [d] * len(outs)) if prim.multiple_results else (outs, d)

    return rule


def _square(name, x):
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"The input to {name} must be a square matrix. Got shape {x.shape}.")


# cholesky(x): (..., n, n) -> (..., n, n)
cholesky_p = Primitive("cholesky")


@cholesky_p.def_abstract_eval
def _cholesky_abstract_eval(x):
    _check("cholesky", [x], [2])
    _square("cholesky", x)
    return x.strip_weak()


cholesky_p.def_batching(_leading_batch(cholesky_p))

# lu(x): (..., m, n) -> [(..., m, n), int32 (..., min(m, n))]
lu_p = Primitive("lu", multiple_results=True)


@lu_p.def_abstract_eval
def _lu_abstract_eval(x):
    batch = _check("lu", [x], [2])
    k = min(x.shape[-2:])
    return [x.strip_weak(), Aval(batch + (k,), np.dtype(np.int32))]


lu_p.def_batching(_leading_batch(lu_p))

# geqrf(x): (..., m, n) -> [(..., m, n), (..., min(m, n))]
geqrf_p = Primitive("geqrf", multiple_results=True)


@geqrf_p.def_abstract_eval
def _geqrf_abstract_eval(x):
    batch = _check("geqrf", [x], [2])
    return [x.strip_weak(), Aval(batch + (min(x.shape[-2:]),), x.dtype)]


geqrf_p.def_batching(_leading_batch(geqrf_p))

# householder_product(a, taus): (..., m, n), (..., k) with m >= n >= k -> (..., m, n)
householder_product_p = Primitive("householder_product")


@householder_product_p.def_abstract_eval
def _householder_product_abstract_eval(a, taus):
    _check("householder_product", [a, taus], [2, 1])
    m, n = a.shape[-2:]
    if m < n:
        raise ValueError("The first argument to householder_product must have at least as "
                         f"many rows as columns, got shape {a.shape}")
    if taus.shape[-1] > min(m, n):
        raise ValueError("The second argument to householder_product must not have more rows "
                         "than the minimum of the first argument's rows and columns.")
    return a.strip_weak()


def _front_batch(prim):
    """The batching rule of a decomposition of several operands: every operand gets the vmap
    axis at the front (the kernels' batch axis); result: 0."""
    def rule(args, dims):
        size = batching.axis_size(args, dims)
        return prim.bind(*(bdim_at(x, d, size, 0) for x, d in zip(args, dims, strict=True))), 0
    return rule


householder_product_p.def_batching(_front_batch(householder_product_p))


# eigh(x, lower): (..., n, n) -> [eigenvectors (..., n, n), eigenvalues (..., n), real]
eigh_p = Primitive("eigh", multiple_results=True)


@eigh_p.def_abstract_eval
def _eigh_abstract_eval(x, *, lower=True):
    batch = _check("eigh", [x], [2])
    if x.shape[-1] != x.shape[-2]:
        raise ValueError("Argument to symmetric eigendecomposition must have shape [..., n, n], "
                         f"got shape {x.shape}")
    return [x.strip_weak(), Aval(batch + (x.shape[-1],), real_dtype(x.dtype))]


eigh_p.def_batching(_leading_batch(eigh_p))

# eig(x, compute_left, compute_right): (..., n, n) -> [eigenvalues (..., n) complex] (+ left
# and/or right eigenvectors (..., n, n) complex, unit columns), LAPACK geev's order
eig_p = Primitive("eig", multiple_results=True)


def complex_dtype(d) -> np.dtype:
    return np.dtype(np.complex128) if np.dtype(d) in (np.float64, np.complex128) else \
        np.dtype(np.complex64)


@eig_p.def_abstract_eval
def _eig_abstract_eval(x, *, compute_left=True, compute_right=True, enable_eigvec_derivs=False):
    batch = _check("eig", [x], [2])
    n = x.shape[-1]
    if x.shape[-2] != n:
        raise ValueError(f"Argument to nonsymmetric eigendecomposition must have shape "
                         f"[..., n, n], got shape {x.shape}")
    c = complex_dtype(x.dtype)
    return [Aval(batch + (n,), c)] + [Aval(batch + (n, n), c)] * (compute_left + compute_right)


eig_p.def_batching(_leading_batch(eig_p))

# schur(x): (..., n, n) -> [t, z] of x's shape and dtype: x = z t z^H, z unitary, t upper
# (quasi-)triangular (real x: 2x2 blocks for complex pairs), LAPACK gees' order
schur_p = Primitive("schur", multiple_results=True)


@schur_p.def_abstract_eval
def _schur_abstract_eval(x):
    _check("schur", [x], [2])
    _square("schur", x)
    return [x.strip_weak(), x.strip_weak()]


schur_p.def_batching(_leading_batch(schur_p))

# hessenberg(x): (..., n, n) -> [a, taus (..., n - 1)]: LAPACK gehrd's packed form (the
# Hessenberg matrix on and above the first subdiagonal, Householder vectors below it)
hessenberg_p = Primitive("hessenberg", multiple_results=True)


@hessenberg_p.def_abstract_eval
def _hessenberg_abstract_eval(x):
    batch = _check("hessenberg", [x], [2])
    _square("hessenberg", x)
    n = x.shape[-1]
    return [x.strip_weak(), Aval(batch + (max(n - 1, 0),), x.dtype)]


hessenberg_p.def_batching(_leading_batch(hessenberg_p))


def _not_differentiable(name):
    def rule(primals, tangents, **params):
        raise NotImplementedError(f"Differentiation rule for '{name}' not implemented")
    return rule


schur_p.def_jvp(_not_differentiable("schur"))
hessenberg_p.def_jvp(_not_differentiable("hessenberg"))

# svd(x, full_matrices, compute_uv): (..., m, n) -> [s (..., k) real] (+ [u (..., m, m or
# k), vt (..., n or k, n)] with compute_uv), k = min(m, n)
svd_p = Primitive("svd", multiple_results=True)


@svd_p.def_abstract_eval
def _svd_abstract_eval(x, *, full_matrices, compute_uv):
    batch = _check("svd", [x], [2])
    m, n = x.shape[-2:]
    k = min(m, n)
    s = Aval(batch + (k,), real_dtype(x.dtype))
    if not compute_uv:
        return [s]
    u = Aval(batch + (m, m if full_matrices else k), x.dtype)
    vt = Aval(batch + (n if full_matrices else k, n), x.dtype)
    return [s, u, vt]


svd_p.def_batching(_leading_batch(svd_p))

# triangular_solve(a, b, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
# a (..., m, m) triangular, b (..., m, n) (left_side) or (..., n, m) -> x of b's shape
triangular_solve_p = Primitive("triangular_solve")


@triangular_solve_p.def_abstract_eval
def _triangular_solve_abstract_eval(a, b, *, left_side, lower, transpose_a, conjugate_a,
                                    unit_diagonal):
    _check("triangular_solve", [a, b], [2, 2])
    if a.shape[-1] != a.shape[-2]:
        raise ValueError("The first input to triangular_solve must be a square matrix. Got "
                         f"shape {a.shape}.")
    if a.shape[-1] != b.shape[-2 if left_side else -1]:
        raise ValueError(f"Incompatible shapes for arguments to triangular_solve: {a.shape} "
                         f"and {b.shape}.")
    return b.strip_weak()


def _fold_into(x, d: int, axis: int):
    """x with its vmap axis (at ``d``) folded into per-example axis ``axis`` as its major
    part."""
    x = moveaxis(x, d, axis)
    shp = batching.shape(x)
    return reshape_p.bind(x, new_sizes=shp[:axis] + (shp[axis] * shp[axis + 1],) + shp[axis + 2:],
                          dimensions=None)


@triangular_solve_p.def_batching
def _triangular_solve_batch(args, dims, **params):
    # only b batched: the right-hand sides are independent columns (rows, solving from the
    # right), so the vmap axis folds into them and splits back out of the result, where it
    # ends up just before that axis; a batched: both get the vmap axis at the front (0)
    (a, b), (da, db) = args, dims
    size = batching.axis_size(args, dims)
    if size == 0:  # no examples: nothing to fold into the right-hand sides
        shp = tuple(n for i, n in enumerate(batching.shape(b)) if i != db)
        return zeros_like_aval(Aval((0,) + shp, aval_of(b).dtype)), 0
    if da is None:
        nd = batching.ndim(b) - 1
        axis = nd - 1 if params["left_side"] else nd - 2
        out = triangular_solve_p.bind(a, _fold_into(b, db, axis), **params)
        shp = batching.shape(out)
        return reshape_p.bind(out, new_sizes=shp[:axis] + (size, shp[axis] // size)
                              + shp[axis + 1:], dimensions=None), axis
    return triangular_solve_p.bind(bdim_at(a, da, size, 0), bdim_at(b, db, size, 0), **params), 0


# ----------------------------------------------------------------------------- permutations


def _compose(f, g):
    """Permutations composed along the last axis: out[..., j] = f[..., g[..., j]]."""
    nd = aval_of(f).ndim
    lead = tuple(range(nd - 1))
    idx = broadcast_in_dim_p.bind(g, shape=aval_of(g).shape + (1,),
                                  broadcast_dimensions=tuple(range(nd)))
    return gather_p.bind(f, idx, offset_dims=(), collapsed_slice_dims=(nd - 1,),
                         start_index_map=(nd - 1,), operand_batching_dims=lead,
                         start_indices_batching_dims=lead, index_vector_dim=nd,
                         slice_sizes=(1,) * nd, indices_are_sorted=False,
                         mode="promise_in_bounds")


_UNROLL = 64  # up to this many swaps applied one after the other; more: the tree


def _apply_swaps(pivots, batch, k: int, m: int):
    """range(m) with the swaps (s, pivots[s]) applied in order, unrolled. The permutations
    of the batch are one flat vector; each swap gathers its two entries per problem (at
    linear indices b m + s and b m + pivots[s]) and scatters them back exchanged (when
    s == pivots[s] both writes carry the same value). O(batch) work per swap, in place (the
    scatter follows the gather it reads), no loop; cheaper than the tree of full
    compositions for small k."""
    d = aval_of(pivots).dtype
    size = int(np.prod(batch, dtype=np.int64))
    piv = reshape_p.bind(pivots, new_sizes=(size, k), dimensions=None)
    perm = reshape_p.bind(iota_p.bind(dtype=d, shape=(size, m), dimension=1),
                          new_sizes=(size * m,), dimensions=None)
    base = mul_p.bind(iota_p.bind(dtype=d, shape=(size, 1), dimension=0), literal(m, d))
    flat = dict(inserted_window_dims=(0,), input_batching_dims=(),
                scatter_indices_batching_dims=(), scatter_dims_to_operand_dims=(0,))
    for s in range(k):
        ps = slice_p.bind(piv, start_indices=(0, s), limit_indices=(size, s + 1), strides=None)
        idx = concatenate_p.bind(add_p.bind(base, literal(s, d)), add_p.bind(base, ps), dimension=1)
        idx = reshape_p.bind(idx, new_sizes=(size, 2, 1), dimensions=None)
        pair = gather_p.bind(perm, idx, offset_dims=(), collapsed_slice_dims=(0,),
                             start_index_map=(0,), operand_batching_dims=(),
                             start_indices_batching_dims=(), index_vector_dim=2, slice_sizes=(1,),
                             indices_are_sorted=False, mode="promise_in_bounds")
        perm = scatter_p.bind(perm, idx, rev_p.bind(pair, dimensions=(1,)), update_window_dims=(),
                              index_vector_dim=2, indices_are_sorted=False, unique_indices=False,
                              **flat)
    return reshape_p.bind(perm, new_sizes=batch + (m,), dimensions=None)


def pivots_to_permutation(pivots, m: int):
    """The permutation of range(m) the row swaps ``pivots`` (row i with row pivots[i], in
    order; int, last axis k <= m) make: up to 64 swaps applied one after the other, more
    composed pairwise in a tree (log2 k gathers of full permutations). No loop either way."""
    pa = aval_of(pivots)
    k = pa.shape[-1]
    batch = pa.shape[:-1]
    if 0 < k <= _UNROLL:
        return _apply_swaps(pivots, batch, k, m)
    d = pa.dtype
    shape = batch + (k, m)
    i = iota_p.bind(dtype=d, shape=shape, dimension=len(batch))
    j = iota_p.bind(dtype=d, shape=shape, dimension=len(batch) + 1)
    p = broadcast_in_dim_p.bind(pivots, shape=shape, broadcast_dimensions=tuple(range(len(batch) + 1)))
    # swaps[..., s, :]: the transposition of s and pivots[s], as a permutation of range(m)
    swaps = select_p.bind(eq_p.bind(j, i), p, select_p.bind(eq_p.bind(j, p), i, j))
    if k == 0:
        return iota_p.bind(dtype=d, shape=batch + (m,), dimension=len(batch))
    nb, perms, count = len(batch), swaps, k
    while count > 1:  # perm = swaps[0] o swaps[1] o ... o swaps[k - 1], composed pairwise
        half = count // 2
        pairs = [slice_p.bind(perms, start_indices=(0,) * nb + (first, 0),
                              limit_indices=batch + (2 * half, m), strides=(1,) * nb + (2, 1))
                 for first in (0, 1)]
        composed = _compose(*pairs)
        if count % 2:  # the last one carries over to the next round
            rest = slice_p.bind(perms, start_indices=(0,) * nb + (count - 1, 0),
                                limit_indices=batch + (count, m), strides=None)
            composed = concatenate_p.bind(composed, rest, dimension=nb)
        perms, count = composed, half + count % 2
    return reshape_p.bind(perms, new_sizes=batch + (m,), dimensions=None)




# ----------------------------------------------------------------------------- autodiff
# JAX's jvp rules (cholesky, lu, eigh, svd, triangular_solve: linear in b, with a transpose
# rule). geqrf and householder_product have none in JAX either (qr is differentiated as a
# whole there).


def _mT(x):
    nd = aval_of(x).ndim
    return transpose_p.bind(x, permutation=tuple(range(nd - 2)) + (nd - 1, nd - 2))


def _H(x):
    x = _mT(x)
    return conj_p.bind(x) if dtypes.is_complex(aval_of(x).dtype) else x


def _mm(a, b):
    """Batched matrix product over the trailing two axes (leading axes equal)."""
    nb = aval_of(a).ndim - 2
    lead = tuple(range(nb))
    return dot_general_p.bind(a, b, dimension_numbers=(((nb + 1,), (nb,)), (lead, lead)),
                              precision=("HIGHEST", "HIGHEST"), preferred_element_type=None)


def _tri_mask(x, lower: bool, k: int = 0):
    a = aval_of(x)
    rows = iota_p.bind(dtype=np.dtype(np.int32), shape=a.shape, dimension=a.ndim - 2)
    cols = iota_p.bind(dtype=np.dtype(np.int32), shape=a.shape, dimension=a.ndim - 1)
    diff = sub_p.bind(cols, rows)  # j - i
    if lower:
        return le_p.bind(diff, literal(k, np.int32))
    return ge_p.bind(diff, literal(k, np.int32))


def tril(x, k: int = 0):
    """x with the elements above diagonal ``k`` zeroed (trailing two axes)."""
    return select_p.bind(_tri_mask(x, True, k), x, zeros_like_aval(aval_of(x).strip_weak()))


def triu(x, k: int = 0):
    """x with the elements below diagonal ``k`` zeroed (trailing two axes)."""
    return select_p.bind(_tri_mask(x, False, k), x, zeros_like_aval(aval_of(x).strip_weak()))


def _eye_like(x):
    a = aval_of(x)
    on_diag = eq_p.bind(iota_p.bind(dtype=np.dtype(np.int32), shape=a.shape, dimension=a.ndim - 2),
                        iota_p.bind(dtype=np.dtype(np.int32), shape=a.shape, dimension=a.ndim - 1))
    return convert_element_type_p.bind(on_diag, new_dtype=a.dtype, weak_type=False)


def _diag(x):
    """The diagonal of the trailing two axes (square)."""
    a = aval_of(x)
    return reduce_sum_p.bind(mul_p.bind(x, _eye_like(x)), axes=(a.ndim - 1,))


def _bcast_last(v, shape, axis):
    """v (shape without one of the trailing two axes) broadcast along it."""
    nd = len(shape)
    dims = tuple(i for i in range(nd) if i != axis)
    return broadcast_in_dim_p.bind(v, shape=shape, broadcast_dimensions=dims)


@cholesky_p.def_jvp
def _cholesky_jvp(primals, tangents):
    (x,), (sigma_dot,) = primals, tangents
    L = tril(cholesky_p.bind(x))
    tmp = triangular_solve_p.bind(L, sigma_dot, left_side=False, lower=True, transpose_a=True,
                                  conjugate_a=True, unit_diagonal=False)
    inner = triangular_solve_p.bind(L, tmp, left_side=True, lower=True, transpose_a=False,
                                    conjugate_a=False, unit_diagonal=False)
    # phi: the lower triangle with the diagonal halved
    phi = div_p.bind(tril(inner), add_p.bind(_eye_like(inner), literal(1, aval_of(x).dtype)))
    return L, _mm(L, phi)


@lu_p.def_jvp
def _lu_jvp(primals, tangents):
    (a,), (a_dot,) = primals, tangents
    lu, pivots = lu_p.bind(a)
    sh = aval_of(a).shape
    m, n = sh[-2:]
    k = min(m, n)
    nd = len(sh)
    dt = aval_of(a).dtype
    perm = pivots_to_permutation(pivots, m)
    x = take_rows(a_dot, perm)
    zero = literal(0, dt)
    l_cfg = ((0, 0, 0),) * (nd - 1) + ((0, m - k, 0),)
    l = pad_p.bind(tril(_cols(lu, k), -1), zero, padding_config=l_cfg)
    l = add_p.bind(l, _eye_like(l))
    u_cfg = ((0, 0, 0),) * (nd - 2) + ((0, n - k, 0), (0, 0, 0))
    u = pad_p.bind(triu(_rows(lu, k)), zero, padding_config=u_cfg)
    if n > k:  # ones on the padded part of the diagonal
        full = _eye_like(u)
        u = add_p.bind(u, select_p.bind(_lower_right(u, k), full,
                                        zeros_like_aval(aval_of(u).strip_weak())))
    la = triangular_solve_p.bind(l, x, left_side=True, lower=True, transpose_a=False,
                                 conjugate_a=False, unit_diagonal=True)
    lau = triangular_solve_p.bind(u, la, left_side=False, lower=False, transpose_a=False,
                                  conjugate_a=False, unit_diagonal=False)
    lu_dot = add_p.bind(_mm(l, tril(lau, -1)), _mm(triu(lau), u))
    return [lu, pivots], [lu_dot, zero_of(aval_of(pivots))]


def _lower_right(x, k):
    """True on rows and columns >= k (the identity block padded onto U)."""
    a = aval_of(x)
    i32 = np.dtype(np.int32)
    rows = iota_p.bind(dtype=i32, shape=a.shape, dimension=a.ndim - 2)
    cols = iota_p.bind(dtype=i32, shape=a.shape, dimension=a.ndim - 1)
    return and_p.bind(ge_p.bind(rows, literal(k, i32)), ge_p.bind(cols, literal(k, i32)))


def _cols(x, n: int):
    """The first n columns of x (zero columns appended when it has fewer)."""
    a = aval_of(x)
    if a.shape[-1] == n:
        return x
    if a.shape[-1] > n:
        return slice_p.bind(x, start_indices=(0,) * a.ndim, limit_indices=a.shape[:-1] + (n,),
                            strides=None)
    cfg = ((0, 0, 0),) * (a.ndim - 1) + ((0, n - a.shape[-1], 0),)
    return pad_p.bind(x, literal(0, a.dtype), padding_config=cfg)


def _rows(x, m: int):
    """The first m rows of x."""
    a = aval_of(x)
    if a.shape[-2] == m:
        return x
    return slice_p.bind(x, start_indices=(0,) * a.ndim,
                        limit_indices=a.shape[:-2] + (m, a.shape[-1]), strides=None)


def take_rows(x, perm):
    """x[..., perm[..., i], :] (rows of the trailing matrices permuted)."""
    nd = aval_of(x).ndim
    pa = aval_of(perm)
    idx = broadcast_in_dim_p.bind(perm, shape=aval_of(x).shape,
                                  broadcast_dimensions=tuple(range(pa.ndim)))
    return take_along(x, idx, nd - 2)


@eigh_p.def_jvp
def _eigh_jvp(primals, tangents, *, lower=True):
    (a,), (a_dot,) = primals, tangents
    v, w_real = eigh_p.bind(a, lower=lower)
    dt = aval_of(a).dtype
    w = convert_element_type_p.bind(w_real, new_dtype=dt, weak_type=False)
    sh = aval_of(a).shape
    eye = _eye_like(a)
    # 1 / (w_j - w_i) off the diagonal, 0 on it (no NaN for equal eigenvalues there)
    diff = sub_p.bind(_bcast_last(w, sh, len(sh) - 2), _bcast_last(w, sh, len(sh) - 1))
    fmat = sub_p.bind(integer_pow_p.bind(add_p.bind(eye, diff), y=-1), eye)
    vav = _mm(_mm(_H(v), a_dot), v)
    dv = _mm(v, mul_p.bind(fmat, vav))
    dw = _diag(vav)
    if dtypes.is_complex(dt):
        dw = real_p.bind(dw)
    return [v, w_real], [dv, dw]


@eig_p.def_jvp
def _eig_jvp(primals, tangents, *, compute_left=True, compute_right=True,
             enable_eigvec_derivs=False):
    # A = V diag(w) V^-1, and the rows of V^-1 are u_i^H / (u_i^H v_i) (u: left eigenvectors):
    # dw = diag(V^-1 dA V); dV = V (F * V^-1 dA V), F_ij = 1 / (w_j - w_i) off the diagonal,
    # minus the change of each column's norm (unit columns)
    (a,), (a_dot,) = primals, tangents
    if compute_left:
        raise NotImplementedError("The derivatives of eigenvectors are not implemented, only "
                                  "eigenvalues. See https://github.com/jax-ml/jax/issues/2748 "
                                  "for discussion.")
    if compute_right and not enable_eigvec_derivs:
        raise NotImplementedError(
            "Derivatives of non-symmetric eigenvectors are only valid under assumptions on the "
            "input that JAX cannot check (see the enable_eigvec_derivs argument to "
            "jax.lax.linalg.eig). Pass enable_eigvec_derivs=True to jax.lax.linalg.eig to opt "
            "in. See https://github.com/jax-ml/jax/issues/2748 for discussion.")
    w, vl, vr = eig_p.bind(a, compute_left=True, compute_right=True)
    c = aval_of(w).dtype
    da = convert_element_type_p.bind(a_dot, new_dtype=c, weak_type=False) \
        if aval_of(a_dot).dtype != c else a_dot
    sh = aval_of(vr).shape
    nd = len(sh)
    scale = reduce_sum_p.bind(mul_p.bind(conj_p.bind(vl), vr), axes=(nd - 2,))  # u_i^H v_i
    m = div_p.bind(_mm(_mm(_H(vl), da), vr), _bcast_last(scale, sh, nd - 1))
    dw = _diag(m)
    if not compute_right:
        return [w], [dw]
    eye = _eye_like(m)
    diff = sub_p.bind(_bcast_last(w, sh, nd - 2), _bcast_last(w, sh, nd - 1))
    fmat = sub_p.bind(integer_pow_p.bind(add_p.bind(eye, diff), y=-1), eye)
    du = _mm(vr, mul_p.bind(fmat, m))
    # dv_j = du_j + c_j v_j, c_j fixed by geev's normalization (unit 2-norm, the largest
    # component |v_kj| real): c_j = -Re(v_j^H du_j) - i Im(du_kj) / v_kj
    k = argmax_p.bind(abs_p.bind(vr), axes=(nd - 2,), index_dtype=np.dtype(np.int32))
    rows = iota_p.bind(dtype=np.dtype(np.int32), shape=sh, dimension=nd - 2)
    mask = convert_element_type_p.bind(eq_p.bind(rows, _bcast_last(k, sh, nd - 2)),
                                       new_dtype=c, weak_type=False)
    re = neg_p.bind(real_p.bind(reduce_sum_p.bind(mul_p.bind(conj_p.bind(vr), du),
                                                  axes=(nd - 2,))))
    im = neg_p.bind(div_p.bind(imag_p.bind(reduce_sum_p.bind(mul_p.bind(mask, du), axes=(nd - 2,))),
                               real_p.bind(reduce_sum_p.bind(mul_p.bind(mask, vr), axes=(nd - 2,)))))
    cj = complex_p.bind(re, im)
    dv = add_p.bind(du, mul_p.bind(vr, _bcast_last(cj, sh, nd - 2)))
    return [w, vr], [dw, dv]


@svd_p.def_jvp
def _svd_jvp(primals, tangents, *, full_matrices, compute_uv):
    (A,), (dA,) = primals, tangents
    if compute_uv and full_matrices:
        raise NotImplementedError("Singular value decomposition JVP not implemented for full "
                                  "matrices")
    s, U, Vt = svd_p.bind(A, full_matrices=False, compute_uv=True)
    dt = aval_of(A).dtype
    sh = aval_of(A).shape
    m, n = sh[-2:]
    k = min(m, n)
    Ut, V = _H(U), _H(Vt)
    dS = _mm(_mm(Ut, dA), V)
    ds = _diag(dS)
    if dtypes.is_complex(dt):
        ds = real_p.bind(ds)
    if not compute_uv:
        return [s], [ds]
    kk = sh[:-2] + (k, k)
    s_row = _bcast_last(s, kk, len(kk) - 2)   # s_j at (i, j)
    s_col = _bcast_last(s, kk, len(kk) - 1)   # s_i at (i, j)
    s_diffs = mul_p.bind(add_p.bind(s_row, s_col), sub_p.bind(s_row, s_col))
    eye_r = _eye_like(s_diffs)
    F = sub_p.bind(div_p.bind(literal(1, aval_of(s).dtype), add_p.bind(s_diffs, eye_r)), eye_r)
    Fc = convert_element_type_p.bind(F, new_dtype=dt, weak_type=False)
    s_row_c = convert_element_type_p.bind(s_row, new_dtype=dt, weak_type=False)
    s_col_c = convert_element_type_p.bind(s_col, new_dtype=dt, weak_type=False)
    dSS = mul_p.bind(s_row_c, dS)
    SdS = mul_p.bind(s_col_c, dS)
    sd = aval_of(s).dtype
    s_zero = convert_element_type_p.bind(eq_p.bind(s, literal(0, sd)), new_dtype=sd,
                                         weak_type=False)
    s_inv = sub_p.bind(div_p.bind(literal(1, sd), add_p.bind(s, s_zero)), s_zero)
    s_inv_mat = mul_p.bind(_bcast_last(s_inv, kk, len(kk) - 2), eye_r)
    dUdV_diag = mul_p.bind(mul_p.bind(literal(0.5, dt), sub_p.bind(dS, _H(dS))),
                           convert_element_type_p.bind(s_inv_mat, new_dtype=dt, weak_type=False))
    dU = _mm(U, add_p.bind(mul_p.bind(Fc, add_p.bind(dSS, _H(dSS))), dUdV_diag))
    dV = _mm(V, mul_p.bind(Fc, add_p.bind(SdS, _H(SdS))))
    if m > n:
        dAV = _mm(dA, V)
        dU = add_p.bind(dU, div_p.bind(sub_p.bind(dAV, _mm(U, _mm(Ut, dAV))),
                                       _bcast_last(convert_element_type_p.bind(
                                           s, new_dtype=dt, weak_type=False), sh[:-2] + (m, k), len(sh) - 2)))
    if n > m:
        dAHU = _mm(_H(dA), U)
        dV = add_p.bind(dV, div_p.bind(sub_p.bind(dAHU, _mm(V, _mm(Vt, dAHU))),
                                       _bcast_last(convert_element_type_p.bind(
                                           s, new_dtype=dt, weak_type=False), sh[:-2] + (n, k), len(sh) - 2)))
    return [s, U, Vt], [ds, dU, _H(dV)]


def _triangular_solve_jvp_a(g_a, ans, a, b, *, left_side, lower, transpose_a, conjugate_a,
                            unit_diagonal):
    m, n = aval_of(b).shape[-2:]
    k = 1 if unit_diagonal else 0
    g_a = tril(g_a, -k) if lower else triu(g_a, k)
    g_a = neg_p.bind(g_a)
    g_a = _mT(g_a) if transpose_a else g_a
    g_a = conj_p.bind(g_a) if conjugate_a and dtypes.is_complex(aval_of(g_a).dtype) else g_a

    def a_inverse(rhs):
        return triangular_solve_p.bind(a, rhs, left_side=left_side, lower=lower,
                                       transpose_a=transpose_a, conjugate_a=conjugate_a,
                                       unit_diagonal=unit_diagonal)
    if left_side:
        return a_inverse(_mm(g_a, ans)) if m > n else _mm(a_inverse(g_a), ans)
    return a_inverse(_mm(ans, g_a)) if m < n else _mm(ans, a_inverse(g_a))


triangular_solve_p.def_jvp(jvp_by_operand(
    triangular_solve_p, _triangular_solve_jvp_a,
    lambda g_b, ans, a, b, **params: triangular_solve_p.bind(a, g_b, **params), with_result=True))


@triangular_solve_p.def_transpose
def _triangular_solve_transpose(ct, a, b, *, left_side, lower, transpose_a, conjugate_a,
                                unit_diagonal):
    if is_undefined_primal(a):
        raise TypeError("triangular_solve is not linear in its first operand: it cannot be "
                        "transposed with respect to it")
    if type(ct) is Zero:
        return [None, Zero(b.aval)]
    return [None, triangular_solve_p.bind(a, ct, left_side=left_side, lower=lower,
                                          transpose_a=not transpose_a, conjugate_a=conjugate_a,
                                          unit_diagonal=unit_diagonal)]


# qr(x, full_matrices): [q, r] (JAX's qr primitive): lowered as geqrf then
# householder_product (the LAPACK kernels), differentiated as a whole (JAX's rule).
qr_p = Primitive("qr", multiple_results=True)


@qr_p.def_abstract_eval
def _qr_abstract_eval(x, *, full_matrices):
    batch = _check("qr", [x], [2])
    m, n = x.shape[-2:]
    k = min(m, n)
    q_cols = m if full_matrices else k
    return [Aval(batch + (m, q_cols), x.dtype), Aval(batch + (q_cols, n), x.dtype)]


qr_p.def_batching(_leading_batch(qr_p))


def qr_by_householder(x, *, full_matrices):
    """q, r of x from geqrf's compact reflectors and their product."""
    m, n = aval_of(x).shape[-2:]
    r, taus = geqrf_p.bind(x)
    if m < n:
        q = householder_product_p.bind(_rows(_cols(r, m), m), taus)
    elif full_matrices:
        q = householder_product_p.bind(_cols(r, m), taus)
    else:
        q = householder_product_p.bind(r, taus)
    if not full_matrices and m > n:
        r = _rows(r, n)
    return [q, triu(r)]


@qr_p.def_jvp
def _qr_jvp(primals, tangents, *, full_matrices):
    (x,), (dx,) = primals, tangents
    m, n = aval_of(x).shape[-2:]
    if m < n or (full_matrices and m != n):
        raise NotImplementedError("Unimplemented case of QR decomposition derivative")
    q, r = qr_p.bind(x, full_matrices=False)
    dx_rinv = triangular_solve_p.bind(r, dx, left_side=False, lower=False, transpose_a=False,
                                      conjugate_a=False, unit_diagonal=False)
    qt_dx_rinv = _mm(_H(q), dx_rinv)
    low = tril(qt_dx_rinv, -1)
    do = sub_p.bind(low, _H(low))  # skew-symmetric
    if dtypes.is_complex(aval_of(x).dtype):  # the imaginary part of the diagonal
        im = sub_p.bind(qt_dx_rinv, convert_element_type_p.bind(
            real_p.bind(qt_dx_rinv), new_dtype=aval_of(x).dtype, weak_type=False))
        do = add_p.bind(do, mul_p.bind(_eye_like(im), im))
    dq = add_p.bind(_mm(q, sub_p.bind(do, qt_dx_rinv)), dx_rinv)
    dr = _mm(sub_p.bind(qt_dx_rinv, do), r)
    return [q, r], [dq, dr]


def _no_jvp(prim):
    def rule(primals, tangents, **params):
        raise NotImplementedError(f"Differentiation rule for '{prim.name}' not implemented")
    return rule


geqrf_p.def_jvp(_no_jvp(geqrf_p))
householder_product_p.def_jvp(_no_jvp(householder_product_p))


# lu_pivots_to_permutation(pivots; permutation_size): int32 (..., k) -> int32 (..., m): the
# permutation the row swaps make (a primitive so that a platform may lower it its own way:
# a custom call on GPUs, ``pivots_to_permutation`` elsewhere)
lu_pivots_to_permutation_p = Primitive("lu_pivots_to_permutation")


@lu_pivots_to_permutation_p.def_abstract_eval
def _lu_pivots_to_permutation_abstract_eval(pivots, *, permutation_size):
    if pivots.ndim < 1 or not dtypes.is_int(pivots.dtype) or pivots.shape[-1] > permutation_size:
        raise TypeError("Argument to lu_pivots_to_permutation must be an integer array of rank "
                        f">= 1 and at most {permutation_size} pivots, got {pivots.str_short()}")
    return Aval(pivots.shape[:-1] + (permutation_size,), pivots.dtype)


@lu_pivots_to_permutation_p.def_batching
def _lu_pivots_to_permutation_batch(args, dims, *, permutation_size):
    # the vmap axis stays where it is when it is a leading axis, else it moves to the front
    (p,), (d,) = args, dims
    if d == batching.ndim(p) - 1:
        p, d = moveaxis(p, d, 0), 0
    return lu_pivots_to_permutation_p.bind(p, permutation_size=permutation_size), d


lu_pivots_to_permutation_p.def_jvp(zero_jvp(lu_pivots_to_permutation_p))



# tridiagonal_solve(dl, d, du, b): A x = b for the tridiagonal A with sub-, main and
# super-diagonals dl, d, du (..., m) (dl[..., 0] and du[..., m - 1] unused) and b (..., m, n)
# -> x of b's shape (JAX's lax.linalg.tridiagonal_solve)
tridiagonal_solve_p = Primitive("tridiagonal_solve")


@tridiagonal_solve_p.def_abstract_eval
def _tridiagonal_solve_abstract_eval(dl, d, du, b):
    _check("tridiagonal_solve", [dl, d, du, b], [1, 1, 1, 2])
    if dl.shape != d.shape or dl.shape != du.shape:
        raise TypeError("tridiagonal_solve requires that all diagonal arguments have the same "
                        "shape.")
    if dl.shape != b.shape[:-1]:
        raise TypeError("tridiagonal_solve requires that the leading ndim-1 dimensions of b "
                        "equal the dimensions of the diagonal arguments.")
    return b.strip_weak()


tridiagonal_solve_p.def_batching(_front_batch(tridiagonal_solve_p))


def _shift_rows(x, down: bool):
    """x[..., i - 1, :] (down) or x[..., i + 1, :] (up), zero where that row is missing."""
    a = aval_of(x)
    nd, m = a.ndim, a.shape[-2]
    cfg = ((0, 0, 0),) * (nd - 2) + (((1, 0, 0) if down else (0, 1, 0)), (0, 0, 0))
    padded = pad_p.bind(x, literal(0, a.dtype), padding_config=cfg)
    start = (0,) * nd if down else (0,) * (nd - 2) + (1, 0)
    return slice_p.bind(padded, start_indices=start,
                        limit_indices=a.shape[:-2] + (start[-2] + m, a.shape[-1]), strides=None)


def _diag_times(v, x):
    """v[..., i] * x[..., i, :]."""
    a = aval_of(x)
    return mul_p.bind(broadcast_in_dim_p.bind(v, shape=a.shape,
                                              broadcast_dimensions=tuple(range(a.ndim - 1))), x)


def _tridiagonal_jvp(part):
    """The jvp of one diagonal: -A^{-1} (dA x), dA the tangent of that diagonal alone."""
    def jvp(g, ans, dl, d, du, b):
        prod = _diag_times(g, ans if part == "d" else _shift_rows(ans, down=part == "dl"))
        return neg_p.bind(tridiagonal_solve_p.bind(dl, d, du, prod))
    return jvp


tridiagonal_solve_p.def_jvp(jvp_by_operand(
    tridiagonal_solve_p, _tridiagonal_jvp("dl"), _tridiagonal_jvp("d"), _tridiagonal_jvp("du"),
    lambda g, ans, dl, d, du, b: tridiagonal_solve_p.bind(dl, d, du, g), with_result=True))


def _shift(v, down: bool):
    """v[..., i - 1] (down) or v[..., i + 1] (up) along the last axis, zero where missing."""
    a = aval_of(v)
    cfg = ((0, 0, 0),) * (a.ndim - 1) + ((1, 0, 0) if down else (0, 1, 0),)
    padded = pad_p.bind(v, literal(0, a.dtype), padding_config=cfg)
    start = (0,) * a.ndim if down else (0,) * (a.ndim - 1) + (1,)
    return slice_p.bind(padded, start_indices=start,
                        limit_indices=a.shape[:-1] + (start[-1] + a.shape[-1],), strides=None)


@tridiagonal_solve_p.def_transpose
def _tridiagonal_solve_transpose(ct, dl, d, du, b):
    # linear in b: the cotangent is solved with A^T, whose sub-diagonal is du shifted down
    # and super-diagonal dl shifted up
    if any(is_undefined_primal(x) for x in (dl, d, du)):
        raise TypeError("tridiagonal_solve is not linear in its diagonals: it cannot be "
                        "transposed with respect to them")
    if type(ct) is Zero:
        return [None, None, None, Zero(b.aval)]
    return [None, None, None, tridiagonal_solve_p.bind(_shift(du, True), d, _shift(dl, False), ct)]

