"""Indexing family: dynamic_slice, dynamic_update_slice, gather, scatter primitives, numpy
indexing (x[idx], take, take_along_axis, x.at[idx]) vs JAX, vmap vs the per-example loop,
and the StableHLO the batching rules choose."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from harness import RNG, assert_same, check_vmap, check_vs_jax, rand, stablehlo

import frontend as fe
import frontend.numpy as fnp
from frontend import lax

F32 = np.float32


def ints(shape, lo, hi):
    return lambda: RNG.integers(lo, hi, size=shape).astype(np.int32)


def i32(v):
    return np.int32(v)


# ----------------------------------------------------------------------------- dynamic_slice

DS_CASES = [  # (operand shape, starts, sizes)
    ((10,), (2,), (3,)),
    ((10,), (-5,), (3,)),     # wrapped to 5
    ((10,), (100,), (3,)),    # clamped to 7
    ((10,), (-20,), (3,)),    # wrapped to -10, clamped to 0
    ((4, 6), (1, 4), (2, 3)),  # second start clamped
    ((3, 4, 5), (0, 2, 1), (3, 1, 4)),
]


@pytest.mark.parametrize("shape,starts,sizes", DS_CASES)
def test_dynamic_slice(shape, starts, sizes):
    x = rand(shape)
    st = [i32(s) for s in starts]
    check_vs_jax(lambda x, *s: lax.dynamic_slice(x, s, sizes),
                 lambda x, *s: jax.lax.dynamic_slice(x, s, sizes), x, *st)
    # static Python-int starts too
    check_vs_jax(lambda x: lax.dynamic_slice(x, starts, sizes),
                 lambda x: jax.lax.dynamic_slice(x, starts, sizes), x)


@pytest.mark.parametrize("shape,starts,sizes", [DS_CASES[4], DS_CASES[5]])
def test_dynamic_slice_vmap(shape, starts, sizes):
    f = lambda x, *s: lax.dynamic_slice(x, s, sizes)  # noqa: E731
    fj = lambda x, *s: jax.lax.dynamic_slice(x, s, sizes)  # noqa: E731
    makers = [lambda: rand(shape)] + [ints((), -8, 12) for _ in starts]
    k = len(starts)
    variants = None if k == 2 else [(0,) + (0,) * k, (None,) + (0,) * k, (2,) + (None,) * k,
                                    (1, None, 0, None)]
    check_vmap(f, [rand(shape)] + [i32(s) for s in starts], f_jax=fj, makers=makers,
               variants=variants, nested=k == 2)


def test_dynamic_slice_vmap_clamps_per_lane():
    x = np.arange(40, dtype=F32).reshape(4, 10)
    starts = np.array([-5, 100, 2, -20], np.int32)
    f = lambda x, i: lax.dynamic_slice(x, (i,), (3,))  # noqa: E731
    fj = lambda x, i: jax.lax.dynamic_slice(x, (i,), (3,))  # noqa: E731
    for axes in [(0, 0), (None, 0), (1, 0)]:
        xx = x if axes[0] != 1 else x.T.copy()
        xx = xx if axes[0] is not None else x[0]
        got = fe.vmap(f, in_axes=axes)(xx, starts)
        assert_same(got, jax.vmap(fj, in_axes=axes)(xx, starts))
        assert_same(fe.jit(fe.vmap(f, in_axes=axes))(xx, starts), got)
    np.testing.assert_array_equal(np.asarray(fe.vmap(f, in_axes=(None, 0))(x[0], starts)),
                                  [[5, 6, 7], [7, 8, 9], [2, 3, 4], [0, 1, 2]])


def test_dynamic_slice_stablehlo():
    x = rand((4, 10))
    text = stablehlo(fe.vmap(lambda x: lax.dynamic_slice(x, (2,), (3,))), x)
    assert "stablehlo.dynamic_slice" in text and "stablehlo.gather" not in text
    assert "slice_sizes = array<i64: 4, 3>" in text
    text = stablehlo(fe.vmap(lambda x: lax.dynamic_slice(x, (2,), (3,)), in_axes=1), x.T.copy())
    # the operand is sliced in place (batch axis 1); only the out_axes=0 result is moved
    assert "stablehlo.dynamic_slice" in text and "transpose" not in text.split("dynamic_slice")[0]
    text = stablehlo(fe.vmap(lambda x, i: lax.dynamic_slice(x, (i,), (3,))), x, np.arange(4, dtype=np.int32))
    assert "stablehlo.gather" in text and "operand_batching_dims = [0]" in text
    assert "stablehlo.iota" not in text and "stablehlo.dynamic_slice" not in text
    text = stablehlo(fe.vmap(lambda i: lax.dynamic_slice(x[0], (i,), (3,))), np.arange(4, dtype=np.int32))
    assert "stablehlo.gather" in text and "operand_batching_dims = []" in text
    assert "stablehlo.broadcast_in_dim" not in text.split("stablehlo.gather")[0].split("reshape")[-1]


def test_dynamic_slice_errors():
    x = rand((4, 5))
    with pytest.raises(TypeError, match="slice slice_sizes must be less than or equal to operand shape"):
        lax.dynamic_slice(x, (0, 0), (5, 5))
    with pytest.raises(TypeError, match="start_indices must have length equal to the number of dimensions"):
        lax.dynamic_slice(x, (0,), (1,))
    with pytest.raises(TypeError, match="index arguments to dynamic_slice must be integers"):
        lax.dynamic_slice(x, (np.float32(0), 0), (1, 1))
    with pytest.raises(TypeError, match="greater than or equal to zero"):
        lax.dynamic_slice(x, (0, 0), (-1, 1))


def test_dynamic_index_helpers():
    x = rand((4, 5))
    check_vs_jax(lambda x, i: lax.dynamic_index_in_dim(x, i, 1, keepdims=False),
                 lambda x, i: jax.lax.dynamic_index_in_dim(x, i, 1, keepdims=False), x, i32(-2))
    check_vs_jax(lambda x, i: lax.dynamic_slice_in_dim(x, i, 2, axis=0),
                 lambda x, i: jax.lax.dynamic_slice_in_dim(x, i, 2, axis=0), x, i32(3))
    u = rand((5,))
    check_vs_jax(lambda x, u, i: lax.dynamic_update_index_in_dim(x, u, i, 0),
                 lambda x, u, i: jax.lax.dynamic_update_index_in_dim(x, u, i, 0), x, u, i32(9))
    check_vs_jax(lambda x, u, i: lax.dynamic_update_slice_in_dim(x, u, i, 0),
                 lambda x, u, i: jax.lax.dynamic_update_slice_in_dim(x, u, i, 0), x, u[None], i32(2))


# ----------------------------------------------------------------------------- dynamic_update_slice

DUS_CASES = [
    ((10,), (3,), (2,)),
    ((10,), (3,), (-5,)),
    ((10,), (3,), (100,)),
    ((4, 6), (2, 3), (3, -1)),
    ((3, 4, 5), (1, 4, 2), (1, 0, 7)),
]


@pytest.mark.parametrize("shape,ushape,starts", DUS_CASES)
def test_dynamic_update_slice(shape, ushape, starts):
    x, u = rand(shape), rand(ushape)
    st = [i32(s) for s in starts]
    check_vs_jax(lambda x, u, *s: lax.dynamic_update_slice(x, u, s),
                 lambda x, u, *s: jax.lax.dynamic_update_slice(x, u, s), x, u, *st)


@pytest.mark.parametrize("shape,ushape,starts", [DUS_CASES[3]])
def test_dynamic_update_slice_vmap(shape, ushape, starts):
    f = lambda x, u, *s: lax.dynamic_update_slice(x, u, s)  # noqa: E731
    fj = lambda x, u, *s: jax.lax.dynamic_update_slice(x, u, s)  # noqa: E731
    makers = [lambda: rand(shape), lambda: rand(ushape)] + [ints((), -8, 12) for _ in starts]
    variants = [(0, 0, 0, 0), (None, 0, None, 0), (0, None, 0, None), (1, 2, None, 0), (-1, None, None, None)]
    check_vmap(f, [rand(shape), rand(ushape)] + [i32(s) for s in starts], f_jax=fj, makers=makers,
               variants=variants)


def test_dynamic_update_slice_vmap_clamps_per_lane():
    x = np.arange(40, dtype=F32).reshape(4, 10)
    u = -np.ones((4, 3), F32)
    starts = np.array([-5, 100, 2, -20], np.int32)
    f = lambda x, u, i: lax.dynamic_update_slice(x, u, (i,))  # noqa: E731
    fj = lambda x, u, i: jax.lax.dynamic_update_slice(x, u, (i,))  # noqa: E731
    for axes in [(0, 0, 0), (None, 0, 0), (0, None, 0), (None, None, 0), (1, 1, 0)]:
        xx = x.T.copy() if axes[0] == 1 else x[0] if axes[0] is None else x
        uu = u.T.copy() if axes[1] == 1 else u[0] if axes[1] is None else u
        assert_same(fe.vmap(f, in_axes=axes)(xx, uu, starts), jax.vmap(fj, in_axes=axes)(xx, uu, starts))
        assert_same(fe.jit(fe.vmap(f, in_axes=axes))(xx, uu, starts), jax.vmap(fj, in_axes=axes)(xx, uu, starts))


def test_dynamic_update_slice_stablehlo():
    x, u = rand((4, 10)), rand((4, 3))
    text = stablehlo(fe.vmap(lambda x, u: lax.dynamic_update_slice(x, u, (2,))), x, u)
    assert "stablehlo.dynamic_update_slice" in text and "stablehlo.scatter" not in text
    text = stablehlo(fe.vmap(lambda x, u, i: lax.dynamic_update_slice(x, u, (i,))), x, u,
                     np.arange(4, dtype=np.int32))
    assert "stablehlo.scatter" in text and "input_batching_dims = [0]" in text
    assert "stablehlo.dynamic_update_slice" not in text


def test_dynamic_update_slice_errors():
    with pytest.raises(TypeError, match="update must have the same rank as operand"):
        lax.dynamic_update_slice(rand((4, 5)), rand((5,)), (0, 0))
    with pytest.raises(TypeError, match="dtypes must match"):
        lax.dynamic_update_slice(rand((4,)), rand((2,), np.int32), (0,))
    with pytest.raises(TypeError, match="update shape must be smaller than operand shape"):
        lax.dynamic_update_slice(rand((4,)), rand((5,)), (0,))


# ----------------------------------------------------------------------------- gather / scatter (lax)

GDN = jax.lax.GatherDimensionNumbers
SDN = jax.lax.ScatterDimensionNumbers

GATHER_CASES = [  # operand shape, indices, dnums, slice sizes
    ((5, 4), np.array([[0], [4], [-2], [7]], np.int32), ((1,), (0,), (0,)), (1, 4)),
    ((5, 4), np.array([[0, 1], [3, 3], [4, 0]], np.int32), ((1,), (0,), (0, 1)), (1, 2)),
    ((3, 5, 4), np.array([[[1], [2]], [[0], [4]]], np.int32), ((0, 3), (1,), (1,)), (3, 1, 2)),
]


@pytest.mark.parametrize("mode", ["clip", "fill"])
@pytest.mark.parametrize("shape,idx,dn,sizes", GATHER_CASES)
def test_gather(shape, idx, dn, sizes, mode):
    x = rand(shape)
    f = lambda x, i: lax.gather(x, i, lax.GatherDimensionNumbers(*dn), sizes, mode=mode)  # noqa: E731
    fj = lambda x, i: jax.lax.gather(x, i, GDN(*dn), sizes, mode=mode)  # noqa: E731
    check_vs_jax(f, fj, x, idx)
    makers = [lambda: rand(shape), ints(idx.shape, -2, 7)]
    if mode == "clip" and shape == (5, 4) and idx.shape[1] == 1:
        check_vmap(f, [x, idx], f_jax=fj, makers=makers)
    elif mode == "clip" or shape == (3, 5, 4):
        check_vmap(f, [x, idx], f_jax=fj, makers=makers, nested=False,
                   variants=[(0, 0), (None, -1), (-1, None)])


def test_gather_batching_dims_in_primitive():
    # operand_batching_dims given by the user, then vmapped again
    x = rand((3, 5))
    idx = np.array([[1], [4], [0]], np.int32)
    dn = lax.GatherDimensionNumbers((), (1,), (1,), (0,), (0,))
    f = lambda x, i: lax.gather(x, i, dn, (1, 1), mode="clip")  # noqa: E731
    fj = lambda x, i: jax.lax.gather(x, i, GDN((), (1,), (1,), (0,), (0,)), (1, 1), mode="clip")  # noqa: E731
    check_vs_jax(f, fj, x, idx)
    check_vmap(f, [x, idx], f_jax=fj, makers=[lambda: rand((3, 5)), ints((3, 1), 0, 5)],
               variants=[(1, 0), (None, 2), (2, None)])


def test_gather_stablehlo_batched_both():
    x, idx = rand((4, 5, 3)), np.zeros((4, 2), np.int32)
    text = stablehlo(fe.vmap(lambda x, i: x[i]), x, idx)
    assert "stablehlo.gather" in text and "operand_batching_dims = [0]" in text
    assert "start_indices_batching_dims = [0]" in text
    assert "stablehlo.iota" not in text and "stablehlo.concatenate" not in text


def test_gather_errors():
    x = rand((5, 4))
    with pytest.raises(TypeError, match="Slice size at index 1 in gather op is out of range"):
        lax.gather(x, np.zeros((2, 1), np.int32), lax.GatherDimensionNumbers((1,), (0,), (0,)), (1, 5))
    with pytest.raises(TypeError, match="elements in start_index_map"):
        lax.gather(x, np.zeros((2, 2), np.int32), lax.GatherDimensionNumbers((1,), (0,), (0,)), (1, 4))
    with pytest.raises(TypeError, match="integer type"):
        lax.gather(x, np.zeros((2, 1), F32), lax.GatherDimensionNumbers((1,), (0,), (0,)), (1, 4))


SCATTER_CASES = [  # operand shape, indices, updates shape, dnums
    ((5, 4), np.array([[0], [4], [1], [9]], np.int32), (4, 4), ((1,), (0,), (0,))),
    ((5, 4), np.array([[0, 1], [3, 3], [4, 0], [4, 0]], np.int32), (4,), ((), (0, 1), (0, 1))),
]


@pytest.mark.parametrize("op", ["scatter", "scatter_add", "scatter_mul", "scatter_min", "scatter_max"])
@pytest.mark.parametrize("shape,idx,ushape,dn", SCATTER_CASES)
def test_scatter(shape, idx, ushape, dn, op):
    x, u = rand(shape), rand(ushape)
    if op == "scatter":  # duplicate indices: replace order is unspecified
        idx = idx[:3]
        u = u[:3]
    f = lambda x, i, u: getattr(lax, op)(x, i, u, lax.ScatterDimensionNumbers(*dn))  # noqa: E731
    fj = lambda x, i, u: getattr(jax.lax, op)(x, i, u, SDN(*dn), mode="fill")  # noqa: E731
    check_vs_jax(f, fj, x, idx, u)
    if op == "scatter_add" or (op == "scatter" and len(ushape) == 2):
        makers = [lambda: rand(shape), lambda: RNG.permutation(idx), lambda: rand(u.shape)]
        variants = [(0, 0, 0), (None, 0, None), (1, None, 0), (None, None, 1), (0, 1, None)]
        check_vmap(f, [x, idx, u], f_jax=fj, makers=makers, variants=variants,
                   nested=op == "scatter_add" and len(ushape) == 2)


def test_scatter_clip_mode():
    x, u = rand((5, 4)), rand((3, 4))
    idx = np.array([[0], [9], [-3]], np.int32)
    dn = ((1,), (0,), (0,))
    check_vs_jax(lambda x, i, u: lax.scatter_add(x, i, u, lax.ScatterDimensionNumbers(*dn), mode="clip"),
                 lambda x, i, u: jax.lax.scatter_add(x, i, u, SDN(*dn), mode="clip"), x, idx, u)


# ----------------------------------------------------------------------------- x[idx]

A = np.array([[0, -1], [2, 1]], np.int32)
B = np.array([3, -4], np.int32)
IDX_CASES = [
    1, -1, (1, 2), (-1, 0, 4), slice(None, None, -1), (slice(1, None, 2), Ellipsis, slice(None, None, -2)),
    (None, 1, slice(None), None), (Ellipsis, 2), (Ellipsis, None), A, (slice(None), B), (A, B),
    (A, slice(None), B), (slice(None), B, None, 1), (1, slice(None), B), (0, B, B),
    np.array([True, False, True]), slice(0, 0), (slice(5, 1, -1), 2), (B, B, slice(1, 3)),
    (slice(None), slice(None), [[0, 1], [2, 3]]), (slice(-2, None), slice(None, 3), slice(None, None, 3)),
]


@pytest.mark.parametrize("idx", IDX_CASES, ids=[str(i).replace("\n", "") for i in IDX_CASES])
def test_getitem(idx):
    x = rand((3, 4, 5))
    check_vs_jax(lambda x: fnp.asarray(x)[idx], lambda x: jnp.asarray(x)[idx], x)


VMAP_OPERAND_IDX = [IDX_CASES[k] for k in (1, 5, 9, 12)]


@pytest.mark.parametrize("idx", VMAP_OPERAND_IDX, ids=[str(i).replace("\n", "") for i in VMAP_OPERAND_IDX])
def test_getitem_vmap_operand(idx):
    check_vmap(lambda x: x[idx], [rand((3, 4, 5))], f_jax=lambda x: x[idx], nested=False,
               variants=[(0,), (2,), (-1,)])


def test_getitem_traced_indices():
    x = rand((3, 4, 5))
    for ix in [lambda i: i, lambda i: (slice(None), i), lambda i: (i, slice(1, 3), i),
               lambda i: (Ellipsis, i)]:
        for i in [i32(-2), i32(9), np.array([[2, -1], [7, -8]], np.int32)]:
            # out-of-range traced scalars clamp (a static int would raise: eager sees a static int)
            check_vs_jax(lambda x, i: fnp.asarray(x)[ix(i)], lambda x, i: jnp.asarray(x)[ix(i)], x, i,  # noqa: B023
                         eager=np.ndim(i) > 0 or -3 <= int(i) < 3)


VMAP_IDX_FUNCS = {  # index functions of (i, ...) applied to asarray(x)
    "x[i]": lambda i: i,
    "x[:, i]": lambda i: (slice(None), i),
    "x[i, :, i]": lambda i: (i, slice(None), i),
    "x[1, i]": lambda i: (1, i),
    "x[i, ::-1]": lambda i: (i, slice(None, None, -1)),
}


VMAP_IDX_CASES = [("x[i]", ()), ("x[i]", (2,)), ("x[:, i]", (2, 2)), ("x[i, :, i]", (2,)),
                  ("x[1, i]", ()), ("x[i, ::-1]", (2,))]


@pytest.mark.parametrize("name,ishape", VMAP_IDX_CASES)
def test_getitem_vmap_indices(name, ishape):
    ix = VMAP_IDX_FUNCS[name]
    f = lambda x, i: fnp.asarray(x)[ix(i)]  # noqa: E731
    fj = lambda x, i: jnp.asarray(x)[ix(i)]  # noqa: E731
    x = rand((3, 4, 3))
    i = ints(ishape, -3, 3)()
    if ishape == ():
        i = i32(i)  # in-bounds scalars: the loop sees a static int
    full = name == "x[i]" and ishape == (2,)
    check_vmap(f, [x, i], f_jax=fj, makers=[lambda: rand((3, 4, 3)), ints(ishape, -3, 3)],
               variants=None if full else [(0, 0), (None, -1), (2, None), (-1, 0)], nested=full)


def test_getitem_vmap_out_of_bounds_array_indices():
    x = rand((4, 5))
    i = np.array([[7, -9], [0, 4], [-1, 100], [2, 3]], np.int32)
    f = lambda x, i: fnp.asarray(x)[i]  # noqa: E731
    fj = lambda x, i: jnp.asarray(x)[i]  # noqa: E731
    for axes in [(0, 0), (None, 0), (0, None), (1, 0)]:
        xx = x.T.copy() if axes[0] == 1 else x[0] if axes[0] is None else x
        ii = i[0] if axes[1] is None else i
        assert_same(fe.jit(fe.vmap(f, in_axes=axes))(xx, ii), jax.vmap(fj, in_axes=axes)(xx, ii))


def test_getitem_stablehlo():
    x = rand((3, 4, 5))
    text = stablehlo(lambda x: x[1:3, ::2], x)
    assert "stablehlo.slice" in text and "stablehlo.gather" not in text
    text = stablehlo(lambda x: x[1, :, 2], x)
    assert "stablehlo.slice" in text and "stablehlo.reshape" in text and "stablehlo.gather" not in text
    text = stablehlo(lambda x: x[::-1], x)
    assert "stablehlo.reverse" in text and "stablehlo.gather" not in text
    text = stablehlo(lambda x, i: x[i], x, i32(1))
    assert "stablehlo.dynamic_slice" in text and "stablehlo.gather" not in text
    text = stablehlo(lambda x, i: x[i], x, np.array([0, 2], np.int32))
    assert "stablehlo.gather" in text
    # vmapped basic indexing stays a slice
    text = stablehlo(fe.vmap(lambda x: x[1, ::2]), x)
    assert "stablehlo.slice" in text and "stablehlo.gather" not in text


def test_getitem_errors():
    x = fnp.asarray(rand((3, 4)))
    # a static out-of-bounds integer follows JAX's out-of-bounds rules (get clamps, set drops)
    xj = jnp.asarray(np.asarray(x))
    assert_same(x[5], xj[5]) and assert_same(x[0, -5], xj[0, -5])
    assert_same(x.at[5].set(1.0), xj.at[5].set(1.0))
    assert_same(x.at[0, 9].get(mode="fill", fill_value=-1.0),
                xj.at[0, 9].get(mode="fill", fill_value=-1.0))
    with pytest.raises(IndexError, match="Too many indices: array is 2-dimensional, but 3 were indexed"):
        x[0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., ...]
    with pytest.raises(TypeError, match="Indexer must have integer or boolean type"):
        x[1.5]
    with pytest.raises(TypeError, match="non-tuple sequence for multidimensional indexing"):
        x[[0, 1]]
    with pytest.raises(TypeError, match="string indexing"):
        x["a"]
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        x[np.array([0, 1]), np.array([0, 1, 2])]
    with pytest.raises(IndexError, match="Array boolean indices must be concrete; got bool\\[3\\]"):
        fe.jit(lambda x, b: x[b])(rand((3,)), np.array([True, False, True]))
    with pytest.raises(fnp.NonConcreteBooleanIndexError):
        fe.vmap(lambda x, b: x[b])(rand((2, 3)), np.ones((2, 3), bool))
    with pytest.raises(IndexError, match="static start/stop/step"):
        fe.jit(lambda x, i: x[i:])(rand((3,)), i32(1))


# ----------------------------------------------------------------------------- take

@pytest.mark.parametrize("mode", [None, "fill", "clip", "wrap"])
@pytest.mark.parametrize("axis", [None, -1])
def test_take(axis, mode):
    x = rand((3, 4))
    i = np.array([[0, -1, 5], [2, -7, 1]], np.int32)
    check_vs_jax(lambda x, i: fnp.take(x, i, axis=axis, mode=mode),
                 lambda x, i: jnp.take(x, i, axis=axis, mode=mode), x, i)


def test_take_int_fill_and_vmap():
    x = np.arange(5, dtype=np.int32)
    check_vs_jax(lambda x, i: fnp.take(x, i), lambda x, i: jnp.take(x, i), x, np.array([5, -7, -1], np.int32))
    f = lambda x, i: fnp.take(x, i, axis=1)  # noqa: E731
    fj = lambda x, i: jnp.take(x, i, axis=1)  # noqa: E731
    check_vmap(f, [rand((3, 4)), np.array([0, 3], np.int32)], f_jax=fj,
               makers=[lambda: rand((3, 4)), ints((2,), -6, 6)],
               variants=[(0, 0), (None, 1), (1, None)], nested=False)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_take_along_axis(axis):
    x = rand((3, 4))
    ishape = (3, 4)
    ishape = tuple(2 if d == axis % 2 else s for d, s in enumerate(ishape))
    i = ints(ishape, -4, 4)()
    check_vs_jax(lambda x, i: fnp.take_along_axis(x, i, axis),
                 lambda x, i: jnp.take_along_axis(x, i, axis), x, i)
    if axis == 1:
        check_vmap(lambda x, i: fnp.take_along_axis(x, i, axis), [x, i],
                   f_jax=lambda x, i: jnp.take_along_axis(x, i, axis),
                   makers=[lambda: rand((3, 4)), ints(ishape, -4, 4)],
                   variants=[(0, 0), (None, 1), (2, None), (-1, 0)], nested=False)


# ----------------------------------------------------------------------------- x.at[idx]

AT_CASES = [
    (1, 5.0), (-1, np.arange(4, dtype=F32)), ((slice(None), np.array([0, 5, -1], np.int32)), 2.0),
    ((slice(None, None, 2), 1), np.array([7.0, 8.0], F32)), (Ellipsis, 3.0),
    (np.array([0, 0, 2], np.int32), 1.0), ((slice(1, 3), slice(None, None, -2)), np.ones((2, 2), F32)),
    ((np.array([[0], [2]], np.int32), np.array([1, 3], np.int32)), np.ones((2, 2), F32)),
    ((None, 1, slice(1, 3)), np.array([[4.0, 5.0]], F32)),
]


AT_OPS = [(k, op) for k in range(len(AT_CASES)) for op in ["set", "add"]] + \
    [(k, op) for k in (2, 6, 7) for op in ["multiply", "min", "max", "get"]]


@pytest.mark.parametrize("k,op", AT_OPS)
def test_at(k, op):
    idx, v = AT_CASES[k]
    x = rand((3, 4))
    if op == "get":
        check_vs_jax(lambda x: fnp.asarray(x).at[idx].get(), lambda x: jnp.asarray(x).at[idx].get(), x)
        return
    if op == "set" and k == 5:
        v = 1.0  # duplicate indices with equal values: order does not matter
    check_vs_jax(lambda x, v: getattr(fnp.asarray(x).at[idx], op)(v),
                 lambda x, v: getattr(jnp.asarray(x).at[idx], op)(v), x, v)


def test_at_modes():
    x = rand((5,))
    i = np.array([1, 7, -9], np.int32)
    for mode in ["clip", "drop", "promise_in_bounds"]:
        if mode == "promise_in_bounds":
            i = np.array([1, 2, -1], np.int32)
        check_vs_jax(lambda x, i: fnp.asarray(x).at[i].add(1.0, mode=mode),  # noqa: B023
                     lambda x, i: jnp.asarray(x).at[i].add(1.0, mode=mode), x, i)  # noqa: B023
    check_vs_jax(lambda x, i: fnp.asarray(x).at[i].get(mode="fill", fill_value=-1.0),
                 lambda x, i: jnp.asarray(x).at[i].get(mode="fill", fill_value=-1.0), x,
                 np.array([1, 7, -9], np.int32))


def test_at_traced_scalar_and_vmap():
    x = rand((3, 4))
    for i in [i32(1), i32(-1), i32(7)]:  # traced out-of-bounds updates are dropped
        check_vs_jax(lambda x, i: fnp.asarray(x).at[i].set(0.0), lambda x, i: jnp.asarray(x).at[i].set(0.0),
                     x, i, eager=int(i) < 3)
    f = lambda x, i, v: fnp.asarray(x).at[i].set(v)  # noqa: E731
    fj = lambda x, i, v: jnp.asarray(x).at[i].set(v)  # noqa: E731
    check_vmap(f, [x, i32(1), rand((4,))], f_jax=fj,
               makers=[lambda: rand((3, 4)), ints((), -3, 3), lambda: rand((4,))],
               variants=[(0, 0, 0), (None, 0, None), (1, None, 0), (None, None, -1), (2, 0, None)])
    g = lambda x, i, v: fnp.asarray(x).at[:, i].add(v)  # noqa: E731
    gj = lambda x, i, v: jnp.asarray(x).at[:, i].add(v)  # noqa: E731
    check_vmap(g, [x, np.array([0, 3], np.int32), rand((3, 2))], f_jax=gj,
               makers=[lambda: rand((3, 4)), ints((2,), -4, 4), lambda: rand((3, 2))],
               variants=[(0, 0, 0), (None, 0, None), (0, None, 1), (None, None, -1)], nested=False)


def test_at_errors():
    with pytest.raises(ValueError, match="could not be broadcast to indexing result of shape"):
        fnp.zeros((3, 4)).at[0].set(np.ones(3, F32))


@pytest.mark.parametrize("op", ["multiply", "min", "max"])
def test_at_combining_updates_under_vmap(op):
    # scatter_mul / scatter_min / scatter_max batched: operand, indices and updates in turn
    def f(mod):
        return lambda x, i, v: getattr(mod.asarray(x).at[i], op)(v)
    idx = np.array([0, 2, 0], np.int32)
    check_vmap(f(fnp), [rand((4,)), idx, rand((3,))], f_jax=f(jnp),
               makers=[lambda: rand((4,)), ints((3,), -4, 4), lambda: rand((3,))],
               variants=[(0, None, None), (None, 0, None), (None, None, 0), (0, 0, 0), (1, None, 0)])
