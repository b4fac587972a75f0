"""Bad-input catalogue: wrong argument types, shapes, dtypes, axes, pytree structures,
non-array leaves, traced values used as Python bools or shapes, mismatched branch/carry types,
across the public entry points. Each case must raise a clear TypeError/ValueError/IndexError
whose message names the problem, never crash the process or surface an XLA error. A
subprocess runs the whole catalogue once to prove the process survives."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

import frontend as fe
import frontend.numpy as fnp
import frontend.scipy.special as fsp
from frontend import lax

X = np.ones((3, 4), np.float32)
V = np.ones((4,), np.float32)
I = np.ones((3,), np.int32)


class Opaque:
    pass


def _jit(f, *a, **kw):
    return fe.jit(f)(*a, **kw)


# (id, thunk, exception type(s), regex the message must match)
CASES = [
    # --- jit / vmap / make_graph / device_put
    ("jit-not-callable", lambda: fe.jit(3), TypeError, r"jit expects a callable"),
    ("jit-object-arg", lambda: _jit(lambda x: x, Opaque()), TypeError, r"Opaque.*path x|x.*Opaque"),
    ("jit-string-arg", lambda: _jit(lambda x: x, "abc"), TypeError, r"str"),
    ("jit-none-leaf-in-dict", lambda: _jit(lambda d: d["a"], {"a": X, "b": Opaque()}), TypeError,
     r"Opaque.*\['b'\]|\['b'\].*Opaque"),
    ("jit-static-unhashable", lambda: fe.jit(lambda x, n: x, static_argnums=1)(X, [1, 2]), ValueError,
     r"[Nn]on-hashable static"),
    ("jit-static-out-of-range", lambda: fe.jit(lambda x: x, static_argnums=3)(X), ValueError,
     r"static_argnums"),
    ("jit-return-object", lambda: _jit(lambda x: Opaque(), X), TypeError, r"Opaque"),
    ("jit-bool-of-tracer", lambda: _jit(lambda x: 1 if x.sum() > 0 else 2, X), TypeError,
     r"[Aa]bstract tracer|concrete"),
    ("jit-int-of-tracer", lambda: _jit(lambda x: int(x[0, 0]), X), TypeError, r"[Aa]bstract tracer|concrete"),
    ("jit-shape-from-tracer", lambda: _jit(lambda x, n: fnp.zeros(n), X, 3), TypeError,
     r"[Aa]bstract tracer|concrete|shape"),
    ("jit-numpy-on-tracer", lambda: _jit(lambda x: np.asarray(x), X), TypeError, r"[Aa]bstract tracer|concrete"),
    ("vmap-not-callable", lambda: fe.vmap(None), TypeError, r"vmap expects a callable"),
    ("vmap-bad-in-axes-type", lambda: fe.vmap(lambda x: x, in_axes="0")(X), TypeError, r"in_axes"),
    ("vmap-float-in-axes", lambda: fe.vmap(lambda x: x, in_axes=0.5)(X), TypeError, r"in_axes"),
    ("vmap-axis-out-of-range", lambda: fe.vmap(lambda x: x, in_axes=2)(X), ValueError,
     r"axis 2.*rank.*2|rank"),
    ("vmap-negative-axis-out-of-range", lambda: fe.vmap(lambda x: x, in_axes=-3)(X), ValueError, r"rank"),
    ("vmap-scalar-mapped", lambda: fe.vmap(lambda x: x)(np.float32(1)), ValueError, r"rank"),
    ("vmap-inconsistent-sizes", lambda: fe.vmap(lambda x, y: x + y)(X, V), ValueError,
     r"inconsistent sizes.*argument"),
    ("vmap-in-axes-length", lambda: fe.vmap(lambda x, y: x, in_axes=(0,))(X, X), ValueError,
     r"len\(in_axes\)=1, len\(args\)=2"),
    ("vmap-in-axes-tree-mismatch", lambda: fe.vmap(lambda d: d["a"], in_axes=({"b": 0},))({"a": X}),
     ValueError, r"in_axes"),
    ("vmap-all-none", lambda: fe.vmap(lambda x: x, in_axes=None)(X), ValueError, r"non-None|axis_size"),
    ("vmap-out-axes-none-mapped", lambda: fe.vmap(lambda x: x, out_axes=None)(X), ValueError,
     r"out_axes is None"),
    ("vmap-out-axes-out-of-range", lambda: fe.vmap(lambda x: x, out_axes=5)(X), ValueError,
     r"axis 5 is out of bounds for array of dimension 2"),
    ("vmap-out-axes-negative", lambda: fe.vmap(lambda x: x, out_axes=-4)(np.ones((2, 3, 4))), ValueError,
     r"^axis -4 is out of bounds for array of dimension 3$"),
    ("vmap-returns-string", lambda: fe.vmap(lambda x: [x, "a"])(X), TypeError,
     r"Output from batched function 'a' with type <class 'str'> is not a valid JAX type"),
    ("vmap-object-arg", lambda: fe.vmap(lambda x: x)(Opaque()), TypeError, r"Opaque"),
    ("vmap-bool-of-tracer", lambda: fe.vmap(lambda x: x if x.sum() > 0 else -x)(X), TypeError,
     r"[Aa]bstract tracer|concrete|bool"),
    ("make-graph-object-arg", lambda: fe.make_graph(lambda x: x)(Opaque()), TypeError, r"Opaque"),
    ("device-put-object", lambda: fe.device_put(Opaque()), TypeError, r"Opaque"),
    ("device-put-string", lambda: fe.device_put("abc"), TypeError, r"str|dtype"),
    ("device-put-ragged", lambda: fe.device_put([[1, 2], [3]]), (TypeError, ValueError), r"shape|inhomogeneous|ragged"),
    # --- numpy functions
    ("add-shapes", lambda: fnp.add(X, V[:3]), (TypeError, ValueError), r"shapes.*\(3, 4\).*\(3,\)|broadcast"),
    ("add-object", lambda: fnp.add(X, Opaque()), TypeError, r"Opaque|not a valid JAX type|array"),
    ("add-string", lambda: fnp.add(X, "a"), TypeError, r"str"),
    ("sum-axis-range", lambda: fnp.sum(X, axis=2), ValueError, r"axis 2.*out of bounds|axis"),
    ("sum-axis-float", lambda: fnp.sum(X, axis=1.5), TypeError, r"axis|float|integer"),
    ("sum-axis-dup", lambda: fnp.sum(X, axis=(0, 0)), ValueError, r"duplicate|repeated"),
    ("mean-axis-range-jit", lambda: _jit(lambda x: fnp.mean(x, axis=-3), X), ValueError, r"axis"),
    ("argmax-axis-range", lambda: fnp.argmax(X, axis=5), ValueError, r"axis"),
    ("reshape-size", lambda: fnp.reshape(X, (5, 5)), (TypeError, ValueError), r"reshape.*12|size"),
    ("reshape-two-minus-one", lambda: fnp.reshape(X, (-1, -1)), TypeError, r"one unknown axis size"),
    ("transpose-perm", lambda: fnp.transpose(X, (0, 0)), (TypeError, ValueError), r"perm|permutation|axes"),
    ("transpose-perm-len", lambda: fnp.transpose(X, (0, 1, 2)), ValueError, r"perm|axes|axis 2 is out of bounds"),
    ("expand-dims-axis", lambda: fnp.expand_dims(X, 4), ValueError, r"axis"),
    ("squeeze-non-one", lambda: fnp.squeeze(X, axis=0), ValueError, r"squeeze|size 1|axis"),
    ("concatenate-shapes", lambda: fnp.concatenate([X, V], axis=0), (TypeError, ValueError), r"rank|shape|dimension"),
    ("concatenate-empty", lambda: fnp.concatenate([]), ValueError, r"at least one|empty|need"),
    ("stack-shapes", lambda: fnp.stack([X, X[:2]]), ValueError, r"same shape|shape"),
    ("matmul-shapes", lambda: fnp.matmul(X, X), (TypeError, ValueError), r"\(3, 4\).*\(3, 4\)|contracting|shape"),
    ("matmul-scalar", lambda: fnp.matmul(X, np.float32(2)), (TypeError, ValueError), r"scalar|0-d|rank|dimension|ndim"),
    ("dot-shapes", lambda: fnp.dot(V, I), (TypeError, ValueError), r"shape|contracting|\(4,\).*\(3,\)"),
    ("einsum-bad-spec", lambda: fnp.einsum("ij,jk->ik", X, X), ValueError, r"size|dimension|shape|j"),
    ("einsum-bad-operands", lambda: fnp.einsum("ij->ij", X, X), ValueError, r"operand|spec|subscript"),
    ("where-shapes", lambda: fnp.where(X > 0, X, V[:3]), (TypeError, ValueError), r"shape|broadcast"),
    ("getitem-too-many", lambda: X[0, 0, 0], IndexError, r"[Tt]oo many indices"),
    ("getitem-float-index", lambda: X[1.5], (TypeError, IndexError), r"float|integer|index"),
    ("getitem-bool-mask-jit", lambda: _jit(lambda x: x[x > 0], X), (TypeError, IndexError), r"[Bb]oolean|concrete|shape"),
    ("take-float-indices", lambda: fnp.take(X, np.array([0.5]), axis=0), TypeError, r"integer|indices|float"),
    ("astype-bad-dtype", lambda: fnp.asarray(X).astype("nonsense"), TypeError, r"nonsense|dtype"),
    ("zeros-bad-shape", lambda: fnp.zeros((2, -1)), (TypeError, ValueError), r"negative|shape|-1"),
    ("zeros-float-shape", lambda: fnp.zeros((2.5,)), TypeError, r"shape|integer|float"),
    ("cumsum-axis", lambda: fnp.cumsum(X, axis=3), ValueError, r"axis"),
    ("bitwise-float", lambda: fnp.bitwise_and(X, X), TypeError, r"bitwise|float|and"),
    # --- lax functions
    ("lax-add-dtypes", lambda: lax.add(X, X.astype(np.int32)), TypeError, r"same dtypes.*float32.*int32"),
    ("lax-add-shapes", lambda: lax.add(X, V), TypeError,
     r"add: arrays must have the same number of dimensions, got \{1, 2\}"),
    ("lax-add-size-one", lambda: lax.add(X, X[:2, :1]), TypeError,
     r"add got incompatible shapes for broadcasting: \(3, 4\), \(2, 1\)\."),
    ("lax-dot-general-contract", lambda: lax.dot_general(X, V[:3], (((1,), (0,)), ((), ()))), TypeError,
     r"contracting dimensions to have the same shape, got \(4,\) and \(3,\)"),
    ("lax-dot-general-dup", lambda: lax.dot_general(X, X, (((1, 1), (1, 1)), ((), ()))), (TypeError, ValueError),
     r"repeated|duplicate|unique|distinct"),
    ("lax-dot-general-range", lambda: lax.dot_general(X, X, (((2,), (1,)), ((), ()))), (TypeError, ValueError),
     r"out of bounds|range|dimension"),
    ("lax-dynamic-slice-size", lambda: lax.dynamic_slice(X, (0, 0), (5, 1)), TypeError, r"slice_sizes|size|shape"),
    ("lax-dynamic-slice-nstarts", lambda: lax.dynamic_slice(X, (0,), (1, 1)), TypeError, r"start|indices|length"),
    ("lax-dynamic-slice-float-start", lambda: lax.dynamic_slice(X, (0.5, 0), (1, 1)), TypeError, r"integer|int|float"),
    ("lax-slice-range", lambda: lax.slice(X, (0, 0), (4, 4)), (TypeError, ValueError), r"limit|shape|bound"),
    ("lax-reshape-size", lambda: lax.reshape(X, (5,)), TypeError, r"reshape|size"),
    ("lax-transpose-perm", lambda: lax.transpose(X, (1,)), (TypeError, ValueError), r"permutation|perm"),
    ("lax-select-pred-dtype", lambda: lax.select(X, X, X), TypeError, r"pred|bool"),
    ("lax-select-shapes", lambda: lax.select(X > 0, X, V), (TypeError, ValueError), r"shape"),
    ("lax-broadcast-in-dim", lambda: lax.broadcast_in_dim(V, (3, 5), (1,)), (TypeError, ValueError),
     r"broadcast|shape|operand"),
    ("lax-pad-config", lambda: lax.pad(X, np.float32(0), ((1, 1, 0),)), (TypeError, ValueError), r"pad|config|rank"),
    ("lax-concatenate-dim", lambda: lax.concatenate([X, X], 2), (TypeError, ValueError), r"dimension|axis|rank"),
    ("lax-reduce-axes", lambda: lax.reduce_sum(X, (2,)), (TypeError, ValueError), r"axes|out of bounds|dimension"),
    ("lax-gather-dnums", lambda: lax.gather(X, I[:, None], lax.GatherDimensionNumbers(
        offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)), (1, 9)), (TypeError, ValueError),
     r"[Ss]lice.?size.*out of range|slice_sizes"),
    ("lax-scatter-apply-func-dtype", lambda: lax.scatter_apply(
        X, I[:, None], lambda v: v > 0, lax.ScatterDimensionNumbers((1,), (0,), (0,)), update_shape=(3, 4)),
     TypeError, r"scatter_apply func must map a scalar f32.*returns \['bool"),
    ("lax-reduce-window-init-dtype", lambda: lax.reduce_window(
        (X, X), (np.float32(0), np.int32(0)), lambda a, b: (a[0] + b[0], a[1]), (2, 2)), TypeError,
     r"reduce_window got inconsistent dtypes for operands and init_values"),
    ("lax-reduce-window-tree", lambda: lax.reduce_window(
        (X, X), (0.0, 0.0), lambda a, b: a[0] + b[0], (2, 2)), ValueError,
     r"reduce_window computation must return the operands' tree structure"),
    # (JAX names the canonical dtype of a Python float n: float32, not numpy's float64)
    ("scipy-polygamma-float-order", lambda: fsp.polygamma(1.5, 2.0), ValueError,
     r"^Argument `n` to polygamma must be of integer type\. Got dtype float32\.$"),
]

def _vmap_i(f, x=X):
    return fe.vmap(f, axis_name="i")(x)


COLLECTIVE_CASES = [
    ("unbound-axis-name", lambda: _vmap_i(lambda x: lax.psum(x, "j")), NameError,
     r"unbound axis name: j"),
    ("unbound-axis-name-jit", lambda: fe.jit(lambda x: lax.axis_index("i"))(X), NameError,
     r"unbound axis name: i"),
    ("pshuffle-not-a-permutation", lambda: _vmap_i(lambda x: lax.pshuffle(x, "i", [0, 0, 1])),
     ValueError, r"`perm` does not represent a permutation: \[0, 0, 1\]"),
    ("ppermute-repeated-destination", lambda: _vmap_i(lambda x: lax.ppermute(x, "i", [(0, 1), (2, 1)])),
     ValueError, r"ppermute sources and destinations must be unique"),
    ("ppermute-out-of-range", lambda: _vmap_i(lambda x: lax.ppermute(x, "i", [(0, 5)])), ValueError,
     r"\(0, 5\) is out of range for the axis i of size 3"),
    ("all-to-all-split-not-divisible", lambda: _vmap_i(lambda x: lax.all_to_all(x, "i", 0, 0, tiled=True)),
     ValueError, r"The size of all_to_all split_axis \(4\) has to be divisible by the size of the named "
     r"axis i \(3\)"),
    ("all-to-all-split-size", lambda: _vmap_i(lambda x: lax.all_to_all(x, "i", 0, 0)), ValueError,
     r"all_to_all requires the size of the mapped axis axis_name to equal x.shape\[split_axis\], but "
     r"they are 3 and 4 respectively"),
    ("psum-scatter-size", lambda: _vmap_i(lambda x: lax.psum_scatter(x, "i")), ValueError,
     r"scatter dimension size 4 must match shard count 3"),
    ("all-gather-axis", lambda: _vmap_i(lambda x: lax.all_gather(x, "i", axis=2)), ValueError,
     r"axis 2 is out of bounds for array of dimension 2"),
    ("vmap-axis-name-batch-size", lambda: fe.vmap(lambda x: x, axis_name="i", batch_size=2)(X), ValueError,
     r"batch_size cannot be combined with axis_name"),
]

CONTROL_CASES = [
    ("cond-branch-types", lambda: lax.cond(True, lambda x: x, lambda x: x.astype(np.int32), X), TypeError,
     r"branch|type|dtype|output"),
    ("cond-branch-shapes", lambda: lax.cond(True, lambda x: x, lambda x: x[0], X), TypeError,
     r"branch|shape|output"),
    ("cond-pred-shape", lambda: lax.cond(X > 0, lambda x: x, lambda x: x, X), TypeError, r"pred|scalar|shape"),
    ("while-carry-type", lambda: lax.while_loop(lambda c: c < 3, lambda c: (c + 1).astype(np.float32), np.int32(0)), TypeError,
     r"carry|body|type|dtype"),
    ("while-cond-not-bool", lambda: lax.while_loop(lambda c: c, lambda c: c + 1, 0), TypeError,
     r"cond|bool|boolean"),
    ("fori-carry-shape", lambda: lax.fori_loop(0, 3, lambda i, c: fnp.stack([c, c]), V), TypeError,
     r"carry|body|shape|type"),
    ("scan-carry-type", lambda: lax.scan(lambda c, x: (c.astype(np.int32), x), np.float32(0), V), TypeError,
     r"carry|type|dtype"),
    ("scan-xs-scalar", lambda: lax.scan(lambda c, x: (c, x), np.float32(0), np.float32(1)), (TypeError, ValueError),
     r"scan|axis|leading|rank|scalar"),
    ("map-scalar", lambda: lax.map(lambda x: x, np.float32(1)), (TypeError, ValueError), r"map|axis|leading|rank|scalar"),
    ("cond-bool-of-tracer", lambda: _jit(lambda x: lax.cond(x, lambda y: y, lambda y: y, x), X), TypeError,
     r"pred|scalar|shape"),
]

from frontend import nn  # noqa: E402
from frontend import random as fr  # noqa: E402

K = np.zeros(2, np.uint32)
# random, nn, the numpy additions, jit(static_argnames), missing names (issue 16)
PROGRAM_CASES = [
    ("random-key-shape", lambda: fr.normal(np.ones(3, np.uint32), (2,)), TypeError,
     r"invalid PRNG key data.*end with \(2,\); got shape=\(3,\)"),
    ("random-key-scalar", lambda: fr.split(np.float32(1.0)), TypeError, r"invalid PRNG key data"),
    ("random-seed-array", lambda: fr.PRNGKey(np.ones(2, np.int32)), TypeError, r"scalar seed.*\(2,\)"),
    ("random-seed-float", lambda: fr.PRNGKey(1.5), TypeError, r"seed must be an integer"),
    ("random-normal-int-dtype", lambda: fr.normal(K, (2,), np.int32), ValueError,
     r"`normal` must be a float.*int32"),
    ("random-uniform-negative-shape", lambda: fr.uniform(K, (-1,)), ValueError, r"negative dimensions"),
    ("random-uniform-bounds-shape", lambda: fr.uniform(K, (2,), minval=np.zeros(3, np.float32)),
     (TypeError, ValueError), r"\(2,\).*\(3,\)|\(3,\).*\(2,\)"),
    ("random-randint-float-dtype", lambda: fr.randint(K, (2,), 0, 5, np.float32), TypeError,
     r"randint only accepts integer dtypes, got float32"),
    ("random-bernoulli-int-p", lambda: fr.bernoulli(K, 1), TypeError, r"`p` must have a floating dtype"),
    ("random-choice-too-many", lambda: fr.choice(K, 3, (5,), replace=False), ValueError,
     r"larger sample \(size 5\) than population \(size 3\)"),
    ("random-choice-shape-int", lambda: fr.choice(K, 3, 5), TypeError, r"shape.*sequence"),
    ("random-categorical-axis", lambda: fr.categorical(K, X, axis=2), ValueError, r"axis 2.*dimension 2"),
    ("random-bits-float", lambda: fr.bits(K, (2,), np.float32), ValueError, r"unsigned int"),
    ("random-fold-in-array", lambda: fr.fold_in(K, np.ones(2, np.int32)), TypeError, r"scalar"),
    ("random-split-typed-data", lambda: fr.wrap_key_data(fr.key(0)), TypeError, r"typed key"),
    ("random-lognormal-int-dtype", lambda: fr.lognormal(K, 1.0, (2,), np.int32), ValueError,
     r"`lognormal` must be a float or complex dtype, got int32"),
    ("random-rayleigh-shape", lambda: fr.rayleigh(K, np.ones(3, np.float32), (2,)), ValueError,
     r"Incompatible shapes for broadcasting: shapes=\[\(2,\), \(3,\)\]"),
    ("random-geometric-float-dtype", lambda: fr.geometric(K, 0.5, (2,), np.float32), ValueError,
     r"`geometric` must be an int dtype, got float32"),
    ("random-pareto-unsafe-cast", lambda: fr.pareto(K, np.ones(2, np.float32), dtype=np.float16),
     ValueError, r"pareto, cannot safely cast argument of type float32 to float16"),
    ("random-wald-not-a-key", lambda: fr.wald(np.float32(1.0), 1.0), TypeError, r"invalid PRNG key data"),
    ("random-gamma-int-dtype", lambda: fr.gamma(K, 1.0, (2,), np.int32), ValueError,
     r"`gamma` must be a float dtype, got int32"),
    ("random-gamma-shape", lambda: fr.gamma(K, np.ones(3, np.float32), (2,)), ValueError,
     r"Incompatible shapes for broadcasting"),
    ("random-dirichlet-scalar", lambda: fr.dirichlet(K, 1.0), ValueError, r"alpha.ndim >= 1, got alpha.ndim == 0"),
    ("random-beta-key-array", lambda: fr.beta(np.zeros((2, 2), np.uint32), 1.0, 1.0), ValueError,
     r"beta accepts a single key"),
    ("random-t-unsafe-cast", lambda: fr.t(K, np.ones(2, np.float32), dtype=np.float16), ValueError,
     r"cannot safely cast argument of type float32 to float16"),
    ("random-ball-float-d", lambda: fr.ball(K, 2.5), TypeError, r"cannot be interpreted as an integer"),
    ("random-poisson-float-dtype", lambda: fr.poisson(K, 1.0, (2,), np.float32), ValueError,
     r"Invalid integer data type 'f'"),
    ("random-orthogonal-key-array", lambda: fr.orthogonal(np.zeros((3, 2), np.uint32), 2), ValueError,
     r"orthogonal accepts a single key.*\(3, 2\)"),
    ("nn-glu-odd", lambda: nn.glu(V[:3]), ValueError, r"glu.*divisible by 2.*3"),
    ("nn-softmax-axis", lambda: nn.softmax(V, axis=2), ValueError, r"axis 2.*dimension 1"),
    ("nn-one-hot-classes", lambda: nn.one_hot(I, 2.5), TypeError, r"num_classes|integer"),
    ("nn-init-1d", lambda: nn.initializers.glorot_uniform()(K, (3,)), ValueError,
     r"1-dimensional weights tensor"),
    ("np-pad-mode", lambda: fnp.pad(V, 1, mode="foo"), NotImplementedError, r"padding mode 'foo'"),
    ("np-select-lengths", lambda: fnp.select([V > 0], []), ValueError, r"condlist.*\(1 vs 0\)"),
    ("np-bincount-float", lambda: fnp.bincount(V), TypeError, r"bincount must have an integer type"),
    ("np-diff-negative", lambda: fnp.diff(V, -1), ValueError, r"non-negative but got -1"),
    ("np-iinfo-float", lambda: fnp.iinfo(np.float32), ValueError, r"[Ii]nvalid integer data type"),
    ("np-finfo-int", lambda: fnp.finfo(np.int32), ValueError, r"int32 not inexact"),
    ("np-reshape-type", lambda: fnp.reshape(X, (5, 2)), TypeError,
     r"cannot reshape array of shape \(3, 4\) \(size 12\) into shape \(5, 2\) \(size 10\)"),
    ("lax-clamp-dtypes", lambda: lax.clamp(np.int32(0), X, np.float32(1)), TypeError,
     r"clamp requires arguments to have the same dtypes"),
    ("lax-select-n-which", lambda: lax.select_n(X, X, X), TypeError, r"`which` must be boolean or integer"),
    ("lax-bitcast-width", lambda: lax.bitcast_convert_type(I.astype(np.int8), np.int32), ValueError,
     r"shape \(3,\) from int8 of size 8 bits to int32 of size 32, bits but 3 \* 8 != 32"),
    ("lax-popcount-float", lambda: lax.population_count(V), TypeError, r"population_count|integer|float32"),
    ("jit-static-argname-unhashable", lambda: fe.jit(lambda x, n: x, static_argnames="n")(X, n=[1]),
     ValueError, r"[Nn]on-hashable static.*list"),
    ("segment-float-ids", lambda: fe.ops.segment_sum(V, V), TypeError, r"segment_ids must be integers"),
    ("segment-ids-shape", lambda: fe.ops.segment_sum(X, I[:2], 3), ValueError,
     r"segment_ids of shape \(2,\) must match.*\(3, 4\)"),
    ("segment-traced-num", lambda: _jit(lambda d, s: fe.ops.segment_sum(d, s), X, I), TypeError,
     r"num_segments"),
    ("missing-jax-name", lambda: fe.image, AttributeError,
     r"jax\.image exists in JAX, but vmaplab does not have it yet"),
]
CASES += PROGRAM_CASES

# shardings and shard_map on a mesh of this process's one device (errors that need an axis of
# size > 1, e.g. a dimension its mesh axis does not divide, are checked with 8 devices in
# tests/spmd_cases.py, message for message against JAX's)
from frontend.sharding import Mesh, NamedSharding  # noqa: E402
from frontend.sharding import PartitionSpec as P  # noqa: E402

M1 = Mesh(np.array(fe.devices()[:1]), ("x",))


def _smap(f, in_specs=P("x"), out_specs=P("x"), arg=V, **kw):
    return fe.shard_map(f, mesh=M1, in_specs=in_specs, out_specs=out_specs, **kw)(arg)


SHARDING_CASES = [
    ("mesh-ndim-vs-names", lambda: Mesh(np.array(fe.devices()[:1]), ("x", "y")), ValueError,
     r"ndim of its first argument \(`devices`\) to equal the length of its second argument"),
    ("make-mesh-too-many-devices", lambda: fe.make_mesh((len(fe.devices()) + 1,), ("x",)),
     ValueError, r"Number of devices 1 must be >= the product of mesh_shape \(2,\)"),
    ("sharding-unknown-axis", lambda: NamedSharding(M1, P("z")), ValueError,
     r"Resource axis: z of P\('z',\) is not found in mesh: \('x',\)"),
    ("sharding-repeated-axis", lambda: NamedSharding(M1, P("x", "x")), ValueError,
     r"duplicate entries for `x`"),
    ("device-put-spec-longer-than-rank", lambda: fe.device_put(V, NamedSharding(M1, P("x", None))),
     ValueError, r"One of device_put args is incompatible .* only valid for values of rank at "
     r"least 2, but was applied to a value of rank 1"),
    ("jit-in-shardings-longer-than-rank",
     lambda: fe.jit(lambda a: a, in_shardings=NamedSharding(M1, P(None, "x")))(V), ValueError,
     r"One of pjit arguments with pytree key path a is incompatible .* rank at least 2"),
    ("jit-out-shardings-longer-than-rank",
     lambda: fe.jit(lambda a: a.sum(), out_shardings=NamedSharding(M1, P("x")))(V), ValueError,
     r"One of pjit outputs .* rank at least 1, but was applied to a value of rank 0"),
    ("jit-device-and-shardings",
     lambda: fe.jit(lambda a: a, device=fe.devices()[0], in_shardings=NamedSharding(M1, P())),
     ValueError, r"device is specified on jit"),
    ("constraint-longer-than-rank", lambda: fe.jit(lambda a: lax.with_sharding_constraint(
        a, NamedSharding(M1, P("x", None))))(V), ValueError,
     r"One of with_sharding_constraint arguments is incompatible .* rank at least 2"),
    ("constraint-spec-without-mesh", lambda: fe.jit(lambda a: lax.with_sharding_constraint(
        a, P("x")))(V), RuntimeError, r"requires a non-empty mesh in context"),
    ("jit-in-shardings-vs-argument-sharding", lambda: fe.jit(
        lambda a: a, in_shardings=NamedSharding(M1, P()))(fe.device_put(V, NamedSharding(M1, P("x")))),
     ValueError, r"Sharding passed to jit does not match the sharding on the respective arg"),
    ("spmd-axis-name-not-in-mesh", lambda: fe.jit(fe.vmap(lambda a: lax.with_sharding_constraint(
        a, NamedSharding(M1, P())), spmd_axis_name="q"))(X), ValueError,
     r"spmd_axis_name 'q' is not an axis of the mesh"),
    ("shard-map-unknown-axis", lambda: _smap(lambda a: a, in_specs=P("z")), ValueError,
     r"in_specs argument must refer to an axis marked as manual .* refers to 'z'"),
    ("shard-map-in-spec-longer-than-rank", lambda: _smap(lambda a: a, in_specs=P("x", None)),
     ValueError, r"in_specs entry which is too long .* has rank 1 \(and 1 < 2\)"),
    ("shard-map-out-spec-longer-than-rank", lambda: _smap(lambda a: a, out_specs=P("x", None)),
     ValueError, r"out_specs entry which is too long .* has rank 1 \(and 1 < 2\)"),
    ("shard-map-replication-not-inferred", lambda: _smap(lambda a: a * 2, out_specs=P()),
     ValueError, r"out_specs is P\(\) which implies that the corresponding output value is only "
     r"varying across mesh axes \{\} and not \{x\}.*check_vma=False"),
    ("shard-map-unbound-name", lambda: _smap(lambda a: lax.psum(a, "q")), NameError,
     r"unbound axis name: q"),
    ("shard-map-in-specs-structure", lambda: fe.shard_map(
        lambda a, b: a, mesh=M1, in_specs=(P("x"),), out_specs=P("x"))(V, V), ValueError,
     r"in_specs"),
    ("shard-map-grad-inside-with-check-vma", lambda: _smap(
        lambda a: fe.grad(lambda v: (v * a).sum())(a[0])), NotImplementedError,
     r"inside the body of a shard_map with check_vma=True .* which vmaplab does not do\. "
     r"Pass check_vma=False"),
    ("shard-map-axis-index-groups", lambda: _smap(
        lambda a: lax.psum(a, "x", axis_index_groups=[[0]])), NotImplementedError,
     r"^psum: axis_index_groups is not supported in vmap or shard_map collectives$"),
]

# dtypes XLA has no type for: a TypeError naming the dtype at every door (JAX raises
# TypeError at each of them too: tests/test_hostile_inputs.py checks the oracle)
UNSUPPORTED_DTYPE_VALUES = [
    ("longdouble", np.ones(3, np.longdouble), "float128"),
    ("str", np.array(["a", "b"]), "<U1"),
    ("object", np.array([1, None], dtype=object), "object"),
    ("datetime64", np.array(["2020-01-01"], dtype="datetime64[D]"), "datetime64[D]"),
    ("void", np.zeros(3, dtype="V4"), "V4"),
    ("structured", np.zeros(3, dtype=[("a", np.float32), ("b", np.int32)]), "[('a', '<f4'), ('b', '<i4')]"),
]
UNSUPPORTED_DTYPE_DOORS = [
    ("asarray", fnp.asarray),
    ("array", fnp.array),
    ("device-put", fe.device_put),
    ("jit", fe.jit(lambda x: x)),
    ("vmap", fe.vmap(lambda x: x)),
    ("grad", fe.grad(lambda x: x)),
    ("sin", fnp.sin),
    ("add", lambda x: fnp.add(x, 1)),
    ("astype", lambda x: fnp.asarray(V).astype(x.dtype)),
    ("zeros-dtype", lambda x: fnp.zeros(2, x.dtype)),
]
DTYPE_CASES = [(f"dtype-{vn}-{dn}", (lambda door=door, v=v: door(v)), TypeError,
                "dtype.*" + re.escape(shown))
               for vn, v, shown in UNSUPPORTED_DTYPE_VALUES for dn, door in UNSUPPORTED_DTYPE_DOORS]
CASES += DTYPE_CASES


def _config_update(name, value):
    """fe.config.update, the option restored afterwards whatever happened."""
    old = getattr(fe.config, name.removeprefix("jax_"))
    try:
        fe.config.update(name, value)
    finally:
        fe.config.update(name, old)


def _positional_only(x, /, n):
    return x


# silently accepted until issue 27; JAX's error types (and its words where it has them)
ARGUMENT_CASES = [
    ("jit-static-argname-missing", lambda: fe.jit(lambda x: x, static_argnames="zz"), ValueError,
     r"^Jitted function has invalid argnames \{'zz'\} in static_argnames\. Function does not "
     r"take these args\.$"),
    ("jit-static-argname-positional-only", lambda: fe.jit(_positional_only, static_argnames="x"),
     ValueError, r"^Jitted function has invalid argnames \{'x'\} in static_argnames\. These are "
     r"positional-only$"),
    ("device-put-string-device", lambda: fe.device_put(V, "garbage"), ValueError,
     r"`device_put` only accepts `None`, `Sharding`.*a device.*Received invalid value: 'garbage'"),
    ("device-put-int-device", lambda: fe.device_put(V, 5), ValueError,
     r"`device_put` only accepts .*Received invalid value: 5"),
    ("jit-int-device", lambda: fe.jit(lambda x: x, device=5), ValueError,
     r"`jit` only accepts `None`, a device.*Received invalid value: 5"),
    ("vmap-negative-axis-size", lambda: fe.vmap(lambda x: x, in_axes=None, axis_size=-1)(V),
     TypeError, r"axis_size must be nonnegative, got -1"),
    ("vmap-float-axis-size", lambda: fe.vmap(lambda x: x, in_axes=None, axis_size=2.5)(V),
     TypeError, r"axis_size must be an int, got 2\.5"),
    ("vmap-list-axis-name", lambda: fe.vmap(lambda x: x, axis_name=[])(V), TypeError,
     r"axis_name must be hashable.*unhashable type: 'list'"),
    ("config-cache-dir-bytes", lambda: _config_update("compilation_cache_dir",
                                                      b"/tmp/vmaplab-bad-input-cache"),
     ValueError, r"must be None, a str or an os\.PathLike.*b'/tmp/vmaplab-bad-input-cache'.*bytes"),
    ("config-cache-dir-int", lambda: _config_update("jax_compilation_cache_dir", 5), ValueError,
     r"must be None, a str or an os\.PathLike.*got 5 of type <class 'int'>"),
]
CASES += ARGUMENT_CASES

# window shapes of the wrong length: JAX's words where it has them (it fails in its lowering
# for a conv dilation of the wrong length; we name the argument)
_IMG, _KER = np.ones((2, 3, 5, 5), np.float32), np.ones((4, 3, 2, 2), np.float32)
WINDOW_CASES = [
    ("conv-strides-length", lambda: lax.conv_general_dilated(_IMG, _KER, (1,), "SAME"), ValueError,
     r"^conv_general_dilated window and window_strides must have the same number of dimensions, "
     r"but got 2 and 1$"),
    ("conv-rhs-dilation-length",
     lambda: lax.conv_general_dilated(_IMG, _KER, (1, 1), "SAME", rhs_dilation=(1,)), ValueError,
     r"^conv_general_dilated rhs_dilation must have one entry per spatial dimension \(2\), got "
     r"\(1,\)$"),
    ("reduce-window-dilation-length",
     lambda: lax.reduce_window(_IMG, 0., lax.add, (1, 1, 2, 2), (1, 1, 1, 1), "SAME",
                               window_dilation=(1,)), TypeError,
     r"^reduce_window got inconsistent window_dilation and window_dimensions: got window_dilation "
     r"\(1,\) and window_dimensions \(1, 1, 2, 2\)\.$"),
    ("reduce-window-strides-length",
     lambda: lax.reduce_window(_IMG, 0., lax.add, (1, 1, 2, 2), (1, 1), "SAME"), TypeError,
     r"^reduce_window got inconsistent window_strides and window_dimensions"),
]
CASES += WINDOW_CASES

try:
    CONTROL = all(hasattr(lax, n) for n in ("cond", "while_loop", "fori_loop", "scan", "map"))
except Exception:  # pragma: no cover
    CONTROL = False
ALL = CASES + COLLECTIVE_CASES + SHARDING_CASES + (CONTROL_CASES if CONTROL else [])

_XLA_WORDS = re.compile(r"XlaRuntimeError|INVALID_ARGUMENT|INTERNAL:|mlir|stablehlo|StableHLO|HloModule")


def run_case(thunk, exc, pattern):
    """Returns None when the case behaves, else a description of what went wrong."""
    try:
        thunk()
    except exc as e:
        msg = str(e)
        if _XLA_WORDS.search(type(e).__name__ + msg):
            return f"leaked a backend error: {type(e).__name__}: {msg[:300]}"
        if not re.search(pattern, msg, re.S):
            return f"message does not name the problem ({pattern!r}): {type(e).__name__}: {msg[:300]}"
        return None
    except Exception as e:  # noqa: BLE001
        return f"wrong exception type {type(e).__name__} (wanted {exc}): {str(e)[:300]}"
    return "no error raised"


@pytest.mark.parametrize("case", ALL, ids=[c[0] for c in ALL])
def test_bad_input(case):
    name, thunk, exc, pattern = case
    problem = run_case(thunk, exc, pattern)
    assert problem is None, f"{name}: {problem}"


def test_catalogue_size():
    assert len(ALL) >= 80 if CONTROL else len(CASES) >= 70


def test_whole_catalogue_in_a_subprocess_survives():
    """Every case back to back in one fresh process: it exits normally (no crash/abort)."""
    here = os.path.dirname(__file__)
    code = (f"import sys; sys.path[:0] = [{here!r}, {os.path.dirname(here)!r}]\n"
            "import test_bad_inputs as t\n"
            "bad = [c[0] for c in t.ALL if t.run_case(*c[1:]) is not None]\n"
            "print('CASES', len(t.ALL), 'BAD', bad)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, f"process died with {p.returncode}: {p.stderr[-2000:]}"
    assert "CASES" in p.stdout, p.stdout[-2000:]


@pytest.mark.parametrize("name,args", [("add", (1.0,)), ("mul", (1.0, 2.0, 3.0)),
                                       ("sin", (1.0, 2.0)), ("betainc", (1.0, 2.0))])
def test_lax_elementwise_arity_errors_as_jax(name, args):
    """A wrong operand count is JAX's TypeError naming the function (one operand to lax.add
    used to reach the lowering and fail there)."""
    import jax
    args = [np.float32(a) for a in args]
    with pytest.raises(TypeError) as theirs:
        getattr(jax.lax, name)(*args)
    with pytest.raises(TypeError, match=re.escape(str(theirs.value))):
        getattr(lax, name)(*args)


@pytest.mark.parametrize("name,n", [("erf", 2), ("gammainc", 1), ("gammainc", 3), ("betainc", 2)])
def test_scipy_special_arity_errors_name_the_function(name, n):
    """Too many or too few operands: a TypeError naming the scipy function (JAX's wording
    when there are too many); they used to trace a malformed graph or fail inside it."""
    import jax.scipy.special as jss

    import frontend.scipy.special as fss
    args = [np.float32(0.5)] * n
    with pytest.raises(TypeError) as theirs:
        getattr(jss, name)(*args)
    with pytest.raises(TypeError, match=rf"^{name}\(\) takes") as ours:
        getattr(fss, name)(*args)
    if "takes" in str(theirs.value):
        assert str(ours.value) == str(theirs.value)
