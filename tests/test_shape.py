"""Shape family: primitives (broadcast_in_dim, reshape, transpose, squeeze, slice, pad,
concatenate, iota, rev) and the numpy shape functions, against JAX (jit and eager), vmap
against the per-example loop with the batch axis everywhere, errors, and StableHLO checks."""
import inspect
import re

import jax.lax as jlax
import jax.numpy as jnp
import numpy as np
import pytest
from harness import check_vmap, check_vs_jax, light_variants, project_primitives, rand, stablehlo

import frontend as fe
import frontend.lax as lax
import frontend.numpy as fnp

F32 = np.float32

# ----------------------------------------------------------------------------- coverage

SHAPE_PRIMS = ["broadcast_in_dim", "reshape", "transpose", "squeeze", "slice", "pad",
               "concatenate", "iota", "rev"]


@pytest.mark.parametrize("name", SHAPE_PRIMS)
def test_primitive_row_complete(name):
    p = project_primitives()[name]
    assert p.abstract_eval_rule is not None and p.lowering_rule is not None
    if name == "iota":  # no operands: vmap never batches it
        assert p.batching_rule is None
        return
    rule = p.batching_rule
    src = inspect.getsource(getattr(rule, "__wrapped__", rule))
    assert "#" in src or rule.__doc__, f"{name}: batching rule must say where the batch axis ends up"


# ----------------------------------------------------------------------------- lax table
# (name, ours, jax's, example args): compared under jit and eagerly, then vmapped at every
# batch-axis position (and with each operand unbatched in turn), nested.

LAX_CASES = [
    ("broadcast_in_dim", lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (0, 2)),
     lambda x: jlax.broadcast_in_dim(x, (2, 3, 4), (0, 2)), [rand((2, 4))]),
    ("broadcast_in_dim_size1", lambda x: lax.broadcast_in_dim(x, (5, 3, 4), (1, 2)),
     lambda x: jlax.broadcast_in_dim(x, (5, 3, 4), (1, 2)), [rand((1, 4))]),
    ("broadcast", lambda x: lax.broadcast(x, (2,)), lambda x: jlax.broadcast(x, (2,)),
     [rand((3,))]),
    ("reshape", lambda x: lax.reshape(x, (3, 2, 2)), lambda x: jlax.reshape(x, (3, 2, 2)),
     [rand((3, 4))]),
    ("reshape_merge", lambda x: lax.reshape(x, (12,)), lambda x: jlax.reshape(x, (12,)),
     [rand((3, 4))]),
    ("reshape_dims", lambda x: lax.reshape(x, (4, 3), (1, 0)),
     lambda x: jlax.reshape(x, (4, 3), (1, 0)), [rand((3, 4))]),
    ("transpose", lambda x: lax.transpose(x, (2, 0, 1)), lambda x: jlax.transpose(x, (2, 0, 1)),
     [rand((2, 3, 4))]),
    ("squeeze", lambda x: lax.squeeze(x, (0, 2)), lambda x: jlax.squeeze(x, (0, 2)),
     [rand((1, 3, 1, 2))]),
    ("squeeze_neg", lambda x: lax.squeeze(x, (-1,)), lambda x: jlax.squeeze(x, (-1,)),
     [rand((3, 1))]),
    ("expand_dims", lambda x: lax.expand_dims(x, (0, 2)), lambda x: jlax.expand_dims(x, (0, 2)),
     [rand((3, 2))]),
    ("slice", lambda x: lax.slice(x, (1, 0), (3, 5)), lambda x: jlax.slice(x, (1, 0), (3, 5)),
     [rand((4, 5))]),
    ("slice_strided", lambda x: lax.slice(x, (0, 1), (4, 5), (3, 2)),
     lambda x: jlax.slice(x, (0, 1), (4, 5), (3, 2)), [rand((4, 5))]),
    ("slice_empty", lambda x: lax.slice(x, (2, 0), (2, 5)),
     lambda x: jlax.slice(x, (2, 0), (2, 5)), [rand((4, 5))]),
    ("slice_in_dim", lambda x: lax.slice_in_dim(x, 1, -1, 2, axis=1),
     lambda x: jlax.slice_in_dim(x, 1, -1, 2, axis=1), [rand((2, 6))]),
    ("index_in_dim", lambda x: lax.index_in_dim(x, -1, axis=1, keepdims=False),
     lambda x: jlax.index_in_dim(x, -1, axis=1, keepdims=False), [rand((2, 6))]),
    ("pad", lambda x, v: lax.pad(x, v, ((1, 2, 0), (0, 1, 1))),
     lambda x, v: jlax.pad(x, v, ((1, 2, 0), (0, 1, 1))), [rand((3, 4)), rand(())]),
    ("pad_negative", lambda x, v: lax.pad(x, v, ((-1, 2, 1), (2, -3, 0))),
     lambda x, v: jlax.pad(x, v, ((-1, 2, 1), (2, -3, 0))), [rand((3, 4)), rand(())]),
    ("pad_int", lambda x, v: lax.pad(x, v, ((1, 1, 2),)),
     lambda x, v: jlax.pad(x, v, ((1, 1, 2),)), [rand((3,), np.int32), rand((), np.int32)]),
    ("pad_pyscalar", lambda x: lax.pad(x, 7.0, ((1, 1, 0),)),
     lambda x: jlax.pad(x, 7.0, ((1, 1, 0),)), [rand((3,))]),
    ("concatenate", lambda a, b, c: lax.concatenate([a, b, c], 1),
     lambda a, b, c: jlax.concatenate([a, b, c], 1), [rand((2, 1)), rand((2, 3)), rand((2, 2))]),
    ("concatenate0", lambda a, b: lax.concatenate([a, b], 0),
     lambda a, b: jlax.concatenate([a, b], 0), [rand((2,), np.int32), rand((3,), np.int32)]),
    ("iota_plus", lambda x: x + lax.broadcasted_iota(np.float32, (2, 3), 1),
     lambda x: x + jlax.broadcasted_iota(np.float32, (2, 3), 1), [rand((2, 3))]),
    ("iota1d", lambda x: x * lax.iota(np.int32, 4), lambda x: x * jlax.iota(np.int32, 4),
     [rand((4,), np.int32)]),
    ("rev", lambda x: lax.rev(x, (0, 2)), lambda x: jlax.rev(x, (0, 2)), [rand((2, 3, 4))]),
    ("rev_bool", lambda x: lax.rev(x, (1,)), lambda x: jlax.rev(x, (1,)),
     [rand((2, 3), np.bool_)]),
]


# the primitives' own rows get the full vmap treatment (every axis position, each operand
# unbatched in turn, nested, and jax.vmap); wrappers and variants a lighter one
FULL_VMAP = {"broadcast_in_dim", "broadcast_in_dim_size1", "reshape", "transpose", "squeeze",
             "slice_strided", "pad", "pad_negative", "concatenate", "iota_plus", "rev"}


def light_vmap(f, args):
    check_vmap(f, args, variants=light_variants(args), nested=False)


@pytest.mark.parametrize("name,ours,theirs,args", LAX_CASES, ids=[c[0] for c in LAX_CASES])
def test_lax(name, ours, theirs, args):
    check_vs_jax(ours, theirs, *args)
    if name in FULL_VMAP:
        check_vmap(ours, args, f_jax=theirs)
    else:
        light_vmap(ours, args)


def test_iota_alone():
    check_vs_jax(lambda: lax.broadcasted_iota(np.int32, (3, 4), 0),
                 lambda: jlax.broadcasted_iota(np.int32, (3, 4), 0))
    check_vs_jax(lambda: lax.iota(np.float32, 5), lambda: jlax.iota(np.float32, 5))
    assert "stablehlo.iota dim = 0 : tensor<3x4xi32>" in stablehlo(
        lambda: lax.broadcasted_iota(np.int32, (3, 4), 0))
    # an iota inside vmap is not batched
    out = fe.vmap(lambda x: lax.iota(np.int32, 3) + x)(np.arange(2, dtype=np.int32))
    np.testing.assert_array_equal(np.asarray(out), [[0, 1, 2], [1, 2, 3]])


def test_rank0_slice_and_rev():
    x = np.float32(3.0)
    check_vs_jax(lambda x: lax.slice(x, (), ()), lambda x: jlax.slice(x, (), ()), x)
    check_vs_jax(lambda x: lax.rev(x, ()), lambda x: jlax.rev(x, ()), x)


def test_weak_types():
    check_vs_jax(lambda: lax.pad(fnp.reshape(fnp.asarray(1.0), (1,)), 2.0, ((1, 1, 0),)),
                 lambda: jlax.pad(jnp.reshape(jnp.asarray(1.0), (1,)), 2.0, ((1, 1, 0),)))
    check_vs_jax(lambda: lax.concatenate([fnp.reshape(fnp.asarray(1.0), (1,))] * 2, 0),
                 lambda: jlax.concatenate([jnp.reshape(jnp.asarray(1.0), (1,))] * 2, 0))
    check_vs_jax(lambda: fnp.reshape(2.0, (1, 1)), lambda: jnp.reshape(2.0, (1, 1)))


# ----------------------------------------------------------------------------- numpy table

X23 = rand((2, 3))
X234 = rand((2, 3, 4))

NP_CASES = [
    ("reshape", lambda x: fnp.reshape(x, (3, -1)), lambda x: jnp.reshape(x, (3, -1)), [X234]),
    ("reshape_int", lambda x: fnp.reshape(x, -1), lambda x: jnp.reshape(x, -1), [X23]),
    ("reshape_F", lambda x: fnp.reshape(x, (4, 6), order="F"),
     lambda x: jnp.reshape(x, (4, 6), order="F"), [X234]),
    ("reshape_method", lambda x: x.reshape(6, 4), lambda x: x.reshape(6, 4), [X234]),
    ("reshape_method_tuple", lambda x: x.reshape((2, 12)), lambda x: x.reshape((2, 12)), [X234]),
    ("reshape_scalar", lambda x: fnp.reshape(x, (1, 1)), lambda x: jnp.reshape(x, (1, 1)),
     [rand(())]),
    ("ravel", fnp.ravel, jnp.ravel, [X234]),
    ("ravel_F", lambda x: fnp.ravel(x, order="F"), lambda x: jnp.ravel(x, order="F"), [X23]),
    ("flatten", lambda x: x.flatten(), lambda x: x.flatten(), [X234]),
    ("method_ravel", lambda x: x.ravel(), lambda x: x.ravel(), [X23]),
    ("transpose", fnp.transpose, jnp.transpose, [X234]),
    ("transpose_axes", lambda x: fnp.transpose(x, (1, -1, 0)),
     lambda x: jnp.transpose(x, (1, -1, 0)), [X234]),
    ("T", lambda x: x.T, lambda x: x.T, [X234]),
    ("mT", lambda x: x.mT, lambda x: x.mT, [X234]),
    ("method_transpose", lambda x: x.transpose(2, 0, 1), lambda x: x.transpose(2, 0, 1), [X234]),
    ("method_transpose_tuple", lambda x: x.transpose((2, 0, 1)),
     lambda x: x.transpose((2, 0, 1)), [X234]),
    ("permute_dims", lambda x: fnp.permute_dims(x, (1, 0)), lambda x: jnp.permute_dims(x, (1, 0)),
     [X23]),
    ("matrix_transpose", fnp.matrix_transpose, jnp.matrix_transpose, [X234]),
    ("swapaxes", lambda x: fnp.swapaxes(x, 0, -1), lambda x: jnp.swapaxes(x, 0, -1), [X234]),
    ("method_swapaxes", lambda x: x.swapaxes(1, 2), lambda x: x.swapaxes(1, 2), [X234]),
    ("moveaxis", lambda x: fnp.moveaxis(x, 0, -1), lambda x: jnp.moveaxis(x, 0, -1), [X234]),
    ("moveaxis_multi", lambda x: fnp.moveaxis(x, (0, 1), (2, 0)),
     lambda x: jnp.moveaxis(x, (0, 1), (2, 0)), [X234]),
    ("expand_dims", lambda x: fnp.expand_dims(x, 1), lambda x: jnp.expand_dims(x, 1), [X23]),
    ("expand_dims_tuple", lambda x: fnp.expand_dims(x, (0, -1)),
     lambda x: jnp.expand_dims(x, (0, -1)), [X23]),
    ("squeeze_all", fnp.squeeze, jnp.squeeze, [rand((1, 3, 1))]),
    ("squeeze_axis", lambda x: fnp.squeeze(x, -1), lambda x: jnp.squeeze(x, -1),
     [rand((1, 3, 1))]),
    ("squeeze_method", lambda x: x.squeeze((0, 2)), lambda x: x.squeeze((0, 2)),
     [rand((1, 3, 1))]),
    ("broadcast_to", lambda x: fnp.broadcast_to(x, (4, 2, 3)),
     lambda x: jnp.broadcast_to(x, (4, 2, 3)), [X23]),
    ("broadcast_to_size1", lambda x: fnp.broadcast_to(x, (2, 5, 3)),
     lambda x: jnp.broadcast_to(x, (2, 5, 3)), [rand((2, 1, 3))]),
    ("broadcast_arrays", lambda x, y: fnp.broadcast_arrays(x, y),
     lambda x, y: jnp.broadcast_arrays(x, y), [rand((2, 1)), rand((3,), np.int32)]),
    ("concatenate", lambda x, y: fnp.concatenate([x, y], axis=-1),
     lambda x, y: jnp.concatenate([x, y], axis=-1), [X23, rand((2, 1), np.int32)]),
    ("concatenate_none", lambda x, y: fnp.concatenate([x, y], axis=None),
     lambda x, y: jnp.concatenate([x, y], axis=None), [X23, rand((4,))]),
    ("concatenate_dtype", lambda x, y: fnp.concatenate((x, y), dtype=np.int32),
     lambda x, y: jnp.concatenate((x, y), dtype=np.int32), [X23, X23]),
    ("concatenate_array", lambda x: fnp.concatenate(x, axis=1),
     lambda x: jnp.concatenate(x, axis=1), [X234]),
    ("concat", lambda x, y: fnp.concat([x, y], axis=1), lambda x, y: jnp.concat([x, y], axis=1),
     [X23, X23]),
    ("stack", lambda x, y: fnp.stack([x, y]), lambda x, y: jnp.stack([x, y]), [X23, X23]),
    ("stack_neg", lambda x, y: fnp.stack((x, y), axis=-1),
     lambda x, y: jnp.stack((x, y), axis=-1), [X23, rand((2, 3), np.int32)]),
    ("stack_mid", lambda x, y, z: fnp.stack([x, y, z], axis=1),
     lambda x, y, z: jnp.stack([x, y, z], axis=1), [X23, X23, X23]),
    ("stack_array", lambda x: fnp.stack(x, axis=2), lambda x: jnp.stack(x, axis=2), [X234]),
    ("stack_scalars", lambda x, y: fnp.stack([x, y, 1.0]),
     lambda x, y: jnp.stack([x, y, 1.0]), [rand(()), rand(())]),
    ("hstack", lambda x, y: fnp.hstack([x, y]), lambda x, y: jnp.hstack([x, y]), [X23, X23]),
    ("hstack_1d", lambda x, y: fnp.hstack([x, y]), lambda x, y: jnp.hstack([x, y]),
     [rand((3,)), rand(())]),
    ("vstack", lambda x, y: fnp.vstack([x, y]), lambda x, y: jnp.vstack([x, y]),
     [rand((3,)), X23]),
    ("dstack", lambda x, y: fnp.dstack([x, y]), lambda x, y: jnp.dstack([x, y]),
     [rand((3,)), rand((3,))]),
    ("column_stack", lambda x, y: fnp.column_stack([x, y]),
     lambda x, y: jnp.column_stack([x, y]), [rand((2,)), X23]),
    ("atleast_1d", lambda x: fnp.atleast_1d(x), lambda x: jnp.atleast_1d(x), [rand(())]),
    ("atleast_2d", lambda x, y: fnp.atleast_2d(x, y), lambda x, y: jnp.atleast_2d(x, y),
     [rand(()), rand((3,))]),
    ("atleast_3d", lambda x, y, z: fnp.atleast_3d(x, y, z),
     lambda x, y, z: jnp.atleast_3d(x, y, z), [rand(()), rand((3,)), X23]),
    ("meshgrid_xy", lambda x, y, z: fnp.meshgrid(x, y, z), lambda x, y, z: jnp.meshgrid(x, y, z),
     [rand((2,)), rand((3,), np.int32), rand((4,))]),
    ("meshgrid_ij", lambda x, y: fnp.meshgrid(x, y, indexing="ij"),
     lambda x, y: jnp.meshgrid(x, y, indexing="ij"), [rand((2,)), rand((3,))]),
    ("meshgrid_sparse", lambda x, y: fnp.meshgrid(x, y, sparse=True),
     lambda x, y: jnp.meshgrid(x, y, sparse=True), [rand((2,)), rand((3,))]),
    ("flip", fnp.flip, jnp.flip, [X234]),
    ("flip_axis", lambda x: fnp.flip(x, (0, -1)), lambda x: jnp.flip(x, (0, -1)), [X234]),
    ("fliplr", fnp.fliplr, jnp.fliplr, [X23]),
    ("flipud", fnp.flipud, jnp.flipud, [X23]),
    ("rot90", lambda x: fnp.rot90(x), lambda x: jnp.rot90(x), [X234]),
    ("rot90_k", lambda x: fnp.rot90(x, -1, (2, 0)), lambda x: jnp.rot90(x, -1, (2, 0)), [X234]),
    ("roll", lambda x: fnp.roll(x, 2, 1), lambda x: jnp.roll(x, 2, 1), [X234]),
    ("roll_flat", lambda x: fnp.roll(x, -4), lambda x: jnp.roll(x, -4), [X23]),
    ("roll_multi", lambda x: fnp.roll(x, (1, -1), (0, 2)),
     lambda x: jnp.roll(x, (1, -1), (0, 2)), [X234]),
    ("tile", lambda x: fnp.tile(x, (2, 1, 3)), lambda x: jnp.tile(x, (2, 1, 3)), [X23]),
    ("tile_int", lambda x: fnp.tile(x, 2), lambda x: jnp.tile(x, 2), [X23]),
    ("tile_scalar", lambda x: fnp.tile(x, (2, 2)), lambda x: jnp.tile(x, (2, 2)), [rand(())]),
    ("repeat", lambda x: fnp.repeat(x, 2, axis=1), lambda x: jnp.repeat(x, 2, axis=1), [X23]),
    ("repeat_flat", lambda x: fnp.repeat(x, 3), lambda x: jnp.repeat(x, 3), [X23]),
    ("repeat_array", lambda x: fnp.repeat(x, np.array([1, 0, 2]), axis=-1),
     lambda x: jnp.repeat(x, np.array([1, 0, 2]), axis=-1), [X23]),
    ("repeat_total", lambda x: fnp.repeat(x, 2, axis=0, total_repeat_length=5),
     lambda x: jnp.repeat(x, 2, axis=0, total_repeat_length=5), [X23]),
    ("pad", lambda x: fnp.pad(x, 1), lambda x: jnp.pad(x, 1), [X23]),
    ("pad_width", lambda x: fnp.pad(x, ((1, 2), (0, 3)), constant_values=-1.5),
     lambda x: jnp.pad(x, ((1, 2), (0, 3)), constant_values=-1.5), [X23]),
    ("pad_values", lambda x: fnp.pad(x, (1, 2), constant_values=((1, 2), (3, 4))),
     lambda x: jnp.pad(x, (1, 2), constant_values=((1, 2), (3, 4))), [X23]),
    ("pad_traced_value", lambda x, v: fnp.pad(x, ((0, 1), (2, 0)), constant_values=v),
     lambda x, v: jnp.pad(x, ((0, 1), (2, 0)), constant_values=v), [X23, rand(())]),
    ("pad_int", lambda x: fnp.pad(x, 2, constant_values=7), lambda x: jnp.pad(x, 2, constant_values=7),
     [rand((3,), np.int32)]),
    ("pad_edge", lambda x: fnp.pad(x, ((1, 2), (2, 1)), mode="edge"),
     lambda x: jnp.pad(x, ((1, 2), (2, 1)), mode="edge"), [X23]),
    ("pad_wrap", lambda x: fnp.pad(x, ((3, 2), (4, 1)), mode="wrap"),
     lambda x: jnp.pad(x, ((3, 2), (4, 1)), mode="wrap"), [X23]),
    ("split", lambda x: fnp.split(x, 3, axis=1), lambda x: jnp.split(x, 3, axis=1), [X23]),
    ("split_indices", lambda x: fnp.split(x, [1, 3], axis=-1),
     lambda x: jnp.split(x, [1, 3], axis=-1), [X234]),
    ("array_split", lambda x: fnp.array_split(x, 3, axis=2),
     lambda x: jnp.array_split(x, 3, axis=2), [X234]),
]


@pytest.mark.parametrize("name,ours,theirs,args", NP_CASES, ids=[c[0] for c in NP_CASES])
def test_numpy(name, ours, theirs, args):
    check_vs_jax(ours, theirs, *args)


# vmapped at every position: a representative subset (the rest reuse the same primitives)
VMAP_NP = {"reshape", "reshape_F", "ravel", "flatten", "transpose_axes", "T", "mT", "swapaxes",
           "moveaxis_multi", "expand_dims_tuple", "squeeze_all", "broadcast_to",
           "broadcast_to_size1", "broadcast_arrays", "concatenate", "concatenate_none", "stack",
           "stack_neg", "stack_mid", "hstack_1d", "vstack", "column_stack", "atleast_3d",
           "meshgrid_xy", "flip_axis", "rot90", "roll", "tile", "repeat", "repeat_array",
           "pad_values", "pad_traced_value", "pad_edge", "split"}


@pytest.mark.parametrize("name,ours,theirs,args",
                         [c for c in NP_CASES if c[0] in VMAP_NP],
                         ids=[c[0] for c in NP_CASES if c[0] in VMAP_NP])
def test_numpy_vmap(name, ours, theirs, args):
    # per-example correctness against JAX is test_numpy's; here vmap against the loop
    light_vmap(ours, args)


def test_stack_inputs():
    """stack (used by the test harness) on Arrays, numpy arrays, scalars and tracers."""
    a, b = rand((2, 3)), rand((2, 3))
    for xs in ([a, b], [fnp.asarray(a), b], [fnp.asarray(a), fnp.asarray(b)]):
        for axis in (0, 1, 2, -1, -3):
            out = fnp.stack(xs, axis=axis)
            np.testing.assert_array_equal(np.asarray(out), np.stack([a, b], axis=axis))
            assert isinstance(out, fe.Array)
    out = fe.jit(lambda x, y: fnp.stack([x, y, a], axis=-2))(a, b)
    np.testing.assert_array_equal(np.asarray(out), np.stack([a, b, a], axis=-2))
    out = fe.vmap(lambda x: fnp.stack([x, b]), in_axes=1)(np.stack([a, b], 1))
    assert out.shape == (2, 2, 2, 3)
    check_vs_jax(lambda: fnp.stack([1, 2]), lambda: jnp.stack([1, 2]))


# ----------------------------------------------------------------------------- errors

ERRORS = [
    (lambda: fnp.reshape(X23, (4, 2)), TypeError,
     r"cannot reshape array of shape \(2, 3\) \(size 6\) into shape \(4, 2\) \(size 8\)"),
    (lambda: fnp.reshape(X23, (-1, -1)), TypeError, "can only specify one unknown axis size"),
    (lambda: fnp.reshape(X23, (-1, 4)), TypeError,
     r"shape \(-1, 4\) because the product of specified axis sizes \(4\) does not evenly divide 6"),
    (lambda: fnp.reshape(X23, (3, 2), order="X"), ValueError, "order must be one of"),
    (lambda: lax.reshape(X23, (4, 2)), TypeError,
     r"reshape total size must be unchanged, got new_sizes \(4, 2\) \(of total size 8\) for "
     r"shape \(2, 3\) \(of total size 6\)"),
    (lambda: fnp.transpose(X23, (0, 0)), TypeError,
     r"transpose permutation isn't a permutation of operand dimensions, got permutation \(0, 0\)"),
    (lambda: fnp.transpose(X23, (0, 2)), ValueError, "axis 2 is out of bounds for array of dimension 2"),
    (lambda: fnp.squeeze(X23, 0), ValueError,
     r"cannot select an axis to squeeze out which has size not equal to one, got shape=\(2, 3\) "
     r"and dimensions=\(0,\)"),
    (lambda: fnp.squeeze(X23, 3), ValueError, "axis 3 is out of bounds for array of dimension 2"),
    (lambda: fnp.expand_dims(X23, 3), ValueError, "axis 3 is out of bounds for array of dimension 3"),
    (lambda: fnp.expand_dims(X23, (0, 0)), ValueError, r"repeated axis in lax.expand_dims: \(0, 0\)"),
    (lambda: fnp.concatenate([X23, rand((3, 3))], axis=1), TypeError,
     r"Cannot concatenate arrays with shapes that differ in dimensions other than the one being "
     r"concatenated: concatenating along dimension 1 for shapes \(2, 3\), \(3, 3\)."),
    (lambda: fnp.concatenate([X23, rand((3,))]), TypeError,
     r"Cannot concatenate arrays with different numbers of dimensions: got \(2, 3\), \(3,\)."),
    (lambda: fnp.concatenate([]), ValueError, "Need at least one array to concatenate."),
    (lambda: fnp.concatenate([X23], axis=2), ValueError, "axis 2 is out of bounds"),
    (lambda: fnp.concatenate([np.float32(1), X23]), ValueError,
     "Zero-dimensional arrays cannot be concatenated."),
    (lambda: fnp.stack([X23, rand((3, 3))]), ValueError,
     r"All input arrays must have the same shape. Got \(2, 3\), \(3, 3\)."),
    (lambda: fnp.stack([]), ValueError, "Need at least one array to stack."),
    (lambda: fnp.stack([X23], axis=-4), ValueError, "axis -4 is out of bounds for array of dimension 3"),
    (lambda: fnp.broadcast_to(X23, (3, 3)), ValueError,
     r"Incompatible types for broadcasting: input type=float32\[2,3\] and requested "
     r"type=float32\[3,3\]"),
    (lambda: fnp.broadcast_to(X23, (3,)), ValueError,
     r"Cannot broadcast to shape with fewer dimensions: arr_shape=\(2, 3\) shape=\(3,\)"),
    (lambda: fnp.broadcast_arrays(X23, np.ones(4)), ValueError,
     r"Incompatible shapes for broadcasting: shapes=\[\(2, 3\), \(4,\)\]"),
    (lambda: fnp.moveaxis(X23, (0, 1), (0,)), ValueError, "Inconsistent number of elements: 2 vs 1"),
    (lambda: fnp.flip(X23, 2), ValueError, "axis 2 is out of bounds"),
    (lambda: fnp.pad(X23, ((1, 2), (1, 2), (1, 1))), ValueError,
     r"jnp.pad: pad_width with nd=2 has unsupported shape \(3, 2\)"),
    (lambda: fnp.pad(X23, -1), ValueError, "index can't contain negative values"),
    (lambda: fnp.pad(X23, 1.5), TypeError, "`pad_width` must be of integral type."),
    (lambda: fnp.pad(X23, 1, mode="foo"), NotImplementedError, "Unimplemented padding mode 'foo'"),
    (lambda: fnp.meshgrid(X23, indexing="foo"), ValueError,
     "Valid values for indexing are 'xy' and 'ij', got foo"),
    (lambda: fnp.meshgrid(X23, X23), ValueError, "Arguments to frontend.numpy.meshgrid must be 1D"),
    (lambda: fnp.split(X23, 4, axis=1), ValueError,
     "array split does not result in an equal division: rest is 3"),
    (lambda: fnp.matrix_transpose(np.ones(3)), ValueError,
     "x must be at least two-dimensional for matrix_transpose; got ndim=1"),
    (lambda: lax.slice(X23, (0, 0), (3, 3)), TypeError,
     r"slice limit_indices must be less than or equal to operand shape, got limit_indices "
     r"\(3, 3\) for operand shape \(2, 3\)."),
    (lambda: lax.slice(X23, (0,), (1,)), TypeError,
     r"slice start_indices must have length equal to the number of dimensions of the operand"),
    (lambda: lax.slice(X23, (-1, 0), (1, 1)), TypeError,
     r"slice start_indices must have every element be nonnegative, got \(-1, 0\)."),
    (lambda: lax.slice(X23, (1, 2), (0, 3)), TypeError,
     r"slice limit_indices must be greater than or equal to start_indices"),
    (lambda: lax.slice(X23, (0, 0), (1, 1), (1,)), TypeError,
     r"slice strides must have length equal to the number of dimensions of the operand"),
    (lambda: lax.pad(X23, np.int32(0), ((0, 0, 0), (0, 0, 0))), TypeError,
     "pad operand and padding_value must be same dtype: got float32 and int32."),
    (lambda: lax.pad(X23, F32(0), ((0, 0, 0),)), ValueError,
     r"length of padding_config must equal the number of axes of operand, got padding_config "
     r"\(\(0, 0, 0\),\) for operand shape \(2, 3\)"),
    (lambda: lax.pad(X23, F32(0), ((0, 0, -1), (0, 0, 0))), ValueError,
     "interior padding in padding_config must be nonnegative"),
    (lambda: lax.pad(X23, F32(0), ((-3, 0, 0), (0, 0, 0))), ValueError,
     r"Dimension size after padding is not at least 0, got result shape \(-1, 3\)"),
    (lambda: lax.pad(X23, np.ones(2, F32), ((0, 0, 0), (0, 0, 0))), ValueError,
     r"padding_value must be a scalar; got np.shape\(padding_value\)=\(2,\)"),
    (lambda: lax.concatenate([X23, X23.astype(np.int32)], 0), TypeError,
     "lax.concatenate requires arguments to have the same dtypes, got float32, int32."),
    (lambda: lax.concatenate([X23, X23], 2), TypeError,
     r"concatenate dimension out of bounds: dimension 2 for shapes \(2, 3\), \(2, 3\)."),
    (lambda: lax.concatenate([], 0), ValueError, "concatenate requires a non-empty sequences of arrays"),
    (lambda: lax.broadcasted_iota(np.float32, (2, 3), 2), ValueError,
     r"iota dimension must be between 0 and len\(shape\), got dimension=2 for shape=\(2, 3\)"),
    (lambda: lax.rev(X23, (2,)), TypeError,
     r"rev dimensions must all be less than operand ndim, got dimensions \(2,\) for operand ndim 2."),
    (lambda: lax.rev(X23, (0, 0)), TypeError, r"rev dimensions must be unique, got \(0, 0\)."),
    (lambda: lax.squeeze(X23, (5,)), ValueError, "axis 5 is out of bounds for array of dimension 2"),
    (lambda: lax.broadcast_in_dim(X23, (3, 3), (0, 1)), TypeError,
     "broadcast_in_dim operand dimension sizes must either be 1, or be equal"),
]


@pytest.mark.parametrize("fn,exc,msg", ERRORS, ids=[f"err{i}" for i in range(len(ERRORS))])
def test_errors(fn, exc, msg):
    with pytest.raises(exc, match=msg):
        fn()
    with pytest.raises(exc, match=msg):  # the same error while tracing under jit
        fe.jit(lambda: fn())()


def test_errors_match_jax_wording():
    """Our messages for a few cases are JAX's (checked against the oracle directly)."""
    cases = [
        (lambda m: m.concatenate([X23, rand((3, 3))], axis=1)),
        (lambda m: m.stack([X23, rand((3, 3))])),
        (lambda m: m.squeeze(X23, 0)),
        (lambda m: m.broadcast_to(X23, (3, 3))),
    ]
    for c in cases:
        with pytest.raises(Exception) as ours:
            c(fnp)
        with pytest.raises(Exception) as theirs:
            c(jnp)
        assert type(ours.value) is type(theirs.value)
        assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


# ----------------------------------------------------------------------------- StableHLO


def _count(text, op):
    return len(re.findall(rf"stablehlo\.{op}\b", text))


@pytest.mark.parametrize("in_axis", [0, 1, 2])
def test_vmap_transpose_no_extra_transpose(in_axis):
    # one transpose for the user's transpose, none for batching, wherever the batch axis is
    x = rand((2, 3, 4))
    x = np.moveaxis(np.stack([x, x]), 0, in_axis)
    text = stablehlo(fe.vmap(lambda x: x.T, in_axes=in_axis, out_axes=in_axis), x)
    assert _count(text, "transpose") == 1


def test_vmap_reshape_keeps_batch_axis_in_place():
    x = rand((3, 5, 4))  # batch axis 1 of per-example (3, 4)
    f = fe.vmap(lambda x: x.reshape(3, 2, 2), in_axes=1, out_axes=1)
    text = stablehlo(f, x)
    assert _count(text, "transpose") == 0
    assert "stablehlo.reshape %arg0 : (tensor<3x5x4xf32>) -> tensor<3x5x2x2xf32>" in text
    # batch axis last: a flatten never needs a transpose
    text = stablehlo(fe.vmap(lambda x: x.ravel(), in_axes=2, out_axes=1), rand((3, 4, 5)))
    assert _count(text, "transpose") == 0
    # batch axis in the middle of dims that merge: exactly one transpose (to the front)
    text = stablehlo(fe.vmap(lambda x: x.ravel(), in_axes=1), rand((3, 5, 4)))
    assert _count(text, "transpose") == 1


def test_vmap_broadcast_no_transpose():
    text = stablehlo(fe.vmap(lambda x: fnp.broadcast_to(x, (4, 2, 3)), in_axes=1, out_axes=2),
                     rand((2, 5, 3)))
    assert _count(text, "transpose") == 0
    assert "dims = [1, 2, 3]" in text


def test_vmap_slice_rev_pad_stay_in_place():
    x = rand((4, 6, 5))  # batch axis 1
    for f in (lambda x: lax.slice(x, (1, 0), (3, 5), (1, 2)), lambda x: fnp.flip(x),
              lambda x: lax.pad(x, 0.0, ((1, 1, 1), (0, 2, 0))), lambda x: fnp.expand_dims(x, 0).squeeze(0)):
        text = stablehlo(fe.vmap(f, in_axes=1, out_axes=1), x)
        assert _count(text, "transpose") == 0, text
    text = stablehlo(fe.vmap(lambda x: lax.slice(x, (1, 0), (3, 5), (1, 2)), in_axes=1, out_axes=1), x)
    assert "stablehlo.slice %arg0 [1:3, 0:6, 0:5:2]" in text
    text = stablehlo(fe.vmap(lambda x: lax.pad(x, 0.0, ((1, 1, 1), (0, 2, 0))), in_axes=1, out_axes=1), x)
    assert "low = [1, 0, 0], high = [1, 0, 2], interior = [1, 0, 0]" in text


def test_vmap_pad_batched_value_uses_select():
    x, v = rand((4, 3)), rand((3,))
    text = stablehlo(fe.vmap(lambda x, v: lax.pad(x, v, ((1, 1, 0),)), in_axes=(1, 0), out_axes=1), x, v)
    assert _count(text, "select") == 1 and _count(text, "transpose") == 0


def test_vmap_concatenate_broadcasts_only_unbatched():
    a, b = rand((5, 2, 3)), rand((2, 4))
    text = stablehlo(fe.vmap(lambda a, b: fnp.concatenate([a, b], 1), in_axes=(0, None)), a, b)
    assert _count(text, "broadcast_in_dim") == 1 and _count(text, "transpose") == 0
    assert "stablehlo.concatenate %arg0, %0, dim = 2" in text
    # two batched operands with different batch positions: one transpose, no broadcast
    text = stablehlo(fe.vmap(lambda a, b: fnp.concatenate([a, b], 1), in_axes=(0, 2)), a,
                     rand((2, 4, 5)))
    assert _count(text, "broadcast_in_dim") == 0 and _count(text, "transpose") == 1
    # three batched operands, two with the batch axis last: the odd one out moves
    text = stablehlo(fe.vmap(lambda a, b, c: fnp.concatenate([a, b, c], 1),
                              in_axes=(0, 2, 2), out_axes=2),
                     a, rand((2, 4, 5)), rand((2, 1, 5)))
    assert _count(text, "transpose") == 1
    assert "stablehlo.transpose %arg0, dims = [1, 2, 0]" in text


def test_vmap_stack_batched_axis_end():
    x = rand((2, 3, 5))
    text = stablehlo(fe.vmap(lambda x, y: fnp.stack([x, y], axis=1), in_axes=(2, 2), out_axes=3), x, x)
    assert _count(text, "transpose") == 0


def test_vmap_of_stacked_scalars_concatenates_rows_as_jax():
    """Stacking batched scalars concatenates (1, B) rows along the major dim, then one
    transpose (JAX's stack layout; a column-wise concatenate of (B, 1) pieces is slower on
    XLA CPU), with the values of a per-example loop."""
    f = lambda x: fnp.stack([fnp.dot(x[i:i + 2], x[i + 1:i + 3]) for i in range(3)])  # noqa: E731
    x = rand((5, 6), np.float32)
    text = fe.jit(fe.vmap(f)).lower(x).as_text()
    cat = [ln for ln in text.splitlines() if "stablehlo.concatenate" in ln]
    assert len(cat) == 1 and "dim = 0" in cat[0] and "tensor<1x5xf32>" in cat[0], cat
    want = np.stack([np.asarray(f(fe.device_put(r))) for r in x])
    np.testing.assert_allclose(np.asarray(fe.jit(fe.vmap(f))(x)), want, rtol=1e-5)
