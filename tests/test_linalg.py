"""dot_general and the jax.numpy contractions: values/shapes/dtypes vs JAX (jit and eager),
vmap vs the per-example loop and jax.vmap at every axis position, golden StableHLO for the
batching choices, and JAX's error messages."""
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from harness import assert_same, check_vmap, check_vs_jax, rand, stablehlo
from jax import lax as jlax

import frontend as fe
import frontend.numpy as fnp
from frontend import lax

BF16 = jnp.bfloat16


def op_names(text: str) -> list:
    """The StableHLO op names of a module, in order (constants excluded)."""
    names = re.findall(r"=\s*\"?(stablehlo\.[a-z_]+)", text)
    return [n for n in names if n != "stablehlo.constant"]


# ----------------------------------------------------------------------------- op table
# (id, ours, jax's, example argument shapes)

def _e(spec):
    return (lambda *a: fnp.einsum(spec, *a)), (lambda *a: jnp.einsum(spec, *a))


OPS = [
    ("matmul_vv", fnp.matmul, jnp.matmul, [(3,), (3,)]),
    ("matmul_mv", fnp.matmul, jnp.matmul, [(2, 3), (3,)]),
    ("matmul_vm", fnp.matmul, jnp.matmul, [(3,), (3, 4)]),
    ("matmul_mm", fnp.matmul, jnp.matmul, [(2, 3), (3, 4)]),
    ("matmul_bcast", fnp.matmul, jnp.matmul, [(2, 1, 2, 3), (4, 3, 2)]),
    ("matmul_batch", fnp.matmul, jnp.matmul, [(2, 2, 3), (2, 3, 4)]),
    ("matmul_op", lambda a, b: a @ b, lambda a, b: a @ b, [(2, 3), (3, 4)]),
    ("dot_mm", fnp.dot, jnp.dot, [(2, 3), (3, 4)]),
    ("dot_nd", fnp.dot, jnp.dot, [(2, 2, 3), (4, 3, 2)]),
    ("dot_scalar", fnp.dot, jnp.dot, [(), (2, 3)]),
    ("dot_method", lambda a, b: fnp.asarray(a).dot(b), lambda a, b: jnp.asarray(a).dot(b), [(2, 3), (3,)]),
    ("vdot", fnp.vdot, jnp.vdot, [(2, 3), (3, 2)]),
    ("inner", fnp.inner, jnp.inner, [(2, 3), (4, 3)]),
    ("outer", fnp.outer, jnp.outer, [(2, 2), (3,)]),
    ("tensordot", fnp.tensordot, jnp.tensordot, [(2, 3, 4), (3, 4, 2)]),
    ("tensordot_pairs", lambda a, b: fnp.tensordot(a, b, ([0, 2], [2, 0])),
     lambda a, b: jnp.tensordot(a, b, ([0, 2], [2, 0])), [(2, 3, 4), (4, 5, 2)]),
    ("einsum_mm", *_e("ij,jk->ik"), [(2, 3), (3, 4)]),
    ("einsum_implicit", *_e("ij,kj"), [(2, 3), (4, 3)]),
    ("einsum_batch", *_e("bij,bjk->bik"), [(2, 3, 4), (2, 4, 3)]),
    ("einsum_chain", *_e("ij,jk,kl->il"), [(2, 3), (3, 4), (4, 2)]),
    ("einsum_ellipsis", *_e("...ij,...jk->...ik"), [(2, 1, 3, 4), (3, 4, 2)]),
    ("einsum_sum", *_e("ijk,ik->j"), [(2, 3, 4), (2, 4)]),
    ("einsum_trace", *_e("ii->i"), [(3, 3)]),
    ("einsum_transpose", *_e("ij->ji"), [(2, 3)]),
    ("einsum_three", *_e("abc,cd,bd->a"), [(2, 3, 4), (4, 2), (3, 2)]),
    ("einsum_outer", *_e("i,j->ij"), [(2,), (3,)]),
    ("lax_dot_general", lambda a, b: lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))),
     lambda a, b: jlax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))), [(2, 3, 4), (2, 4, 3)]),
    ("lax_dot_general_mixed_dims", lambda a, b: lax.dot_general(a, b, (((0,), (2,)), ((2,), (0,)))),
     lambda a, b: jlax.dot_general(a, b, (((0,), (2,)), ((2,), (0,)))), [(3, 4, 2), (2, 4, 3)]),
]
IDS = [o[0] for o in OPS]


# every op in f32; the integer and bf16 paths on a subset covering each code path
DTYPE_OPS = {"matmul_bcast", "dot_nd", "vdot", "outer", "tensordot", "einsum_chain",
             "einsum_sum", "einsum_trace", "lax_dot_general"}
VS_JAX = [(op, d) for op in OPS for d in (np.float32, np.int32, BF16)
          if d is np.float32 or op[0] in DTYPE_OPS]


@pytest.mark.parametrize("op,dtype", VS_JAX,
                         ids=[f"{o[0]}-{np.dtype(d).name}" for o, d in VS_JAX])
def test_vs_jax(op, dtype):
    _, ours, theirs, shapes = op
    args = [rand(s, dtype) for s in shapes]
    check_vs_jax(ours, theirs, *args)


# the batching rule itself is exercised at every axis position (front/middle/end/negative,
# None per operand, nested) through these; the other ops get front, end, one None, no nesting
FULL_VMAP = {"matmul_mv", "matmul_bcast", "lax_dot_general", "lax_dot_general_mixed_dims",
             "einsum_trace"}


def _few_variants(n):
    vs = [(0,) * n, (-1,) * n]
    if n > 1:
        vs.append((None,) + (0,) * (n - 1))
    return vs


@pytest.mark.parametrize("op", OPS, ids=IDS)
def test_vmap(op):
    name, ours, theirs, shapes = op
    if name in FULL_VMAP:
        check_vmap(ours, [rand(s) for s in shapes], f_jax=theirs, nested=len(shapes) <= 2)
    else:
        check_vmap(ours, [rand(s) for s in shapes], f_jax=theirs, nested=False,
                   variants=_few_variants(len(shapes)))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.bool_, np.float16], ids=["i8", "u8", "bool", "f16"])
def test_small_dtypes(dtype):
    a, b = rand((2, 3), dtype), rand((3, 4), dtype)
    check_vs_jax(fnp.matmul, jnp.matmul, a, b)
    check_vs_jax(lambda x: fnp.einsum("ij->i", x), lambda x: jnp.einsum("ij->i", x), a)


def test_mixed_dtype_promotion():
    check_vs_jax(fnp.matmul, jnp.matmul, rand((2, 3), np.int8), rand((3, 4), np.int16))
    check_vs_jax(fnp.dot, jnp.dot, rand((2, 3), BF16), rand((3,), np.float32))
    check_vs_jax(lambda a, b: fnp.einsum("ij,j->i", a, b), lambda a, b: jnp.einsum("ij,j->i", a, b),
                 rand((2, 3), np.int32), rand((3,), np.float32))
    check_vs_jax(lambda a: fnp.dot(a, 2.0), lambda a: jnp.dot(a, 2.0), rand((2, 3), np.int32))
    check_vs_jax(lambda a: 2 * fnp.ones(3) @ a, lambda a: 2 * jnp.ones(3) @ a, rand((3, 2)))


@pytest.mark.parametrize("la,ra,pref", [
    (np.float32, np.int32, None), (np.int8, np.int8, np.float32), (BF16, BF16, np.float32),
    (np.int8, np.int8, np.int32), (np.bool_, np.bool_, None), (BF16, np.float32, None),
    (np.int32, np.uint32, None),
], ids=lambda v: str(np.dtype(v)) if v is not None else "none")
def test_lax_dot_general_dtypes(la, ra, pref):
    dn = (((1,), (0,)), ((), ()))
    check_vs_jax(lambda a, b: lax.dot_general(a, b, dn, preferred_element_type=pref),
                 lambda a, b: jlax.dot_general(a, b, dn, preferred_element_type=pref),
                 rand((2, 3), la), rand((3, 4), ra))


def test_preferred_element_type_and_precision():
    a, b = rand((2, 3), np.int8), rand((3, 4), np.int8)
    for fo, fj in [(fnp.matmul, jnp.matmul), (fnp.dot, jnp.dot), (fnp.tensordot, jnp.tensordot)]:
        kw = dict(axes=1) if fo is fnp.tensordot else {}
        check_vs_jax(lambda x, y: fo(x, y, preferred_element_type=np.float32, **kw),  # noqa: B023
                     lambda x, y: fj(x, y, preferred_element_type=np.float32, **kw), a, b)  # noqa: B023
    check_vs_jax(lambda x, y: fnp.einsum("ij,jk", x, y, preferred_element_type=np.int32),
                 lambda x, y: jnp.einsum("ij,jk", x, y, preferred_element_type=np.int32), a, b)
    x, y = rand((2, 3)), rand((3, 4))
    txt = stablehlo(lambda p, q: fnp.matmul(p, q, precision="highest"), x, y)
    assert "precision = [HIGHEST, HIGHEST]" in txt
    txt = stablehlo(lambda p, q: lax.dot_general(p, q, (((1,), (0,)), ((), ())),
                                                 precision=jlax.Precision.HIGH), x, y)
    assert "precision = [HIGH, HIGH]" in txt
    check_vs_jax(lambda p, q: lax.dot(p, q), lambda p, q: jlax.dot(p, q), x, y)


def test_x64(x64):
    a, b = rand((2, 3), np.float64), rand((3,), np.float64)
    check_vs_jax(fnp.matmul, jnp.matmul, a, b)
    check_vs_jax(lambda a, b: fnp.einsum("ij,j", a, b), lambda a, b: jnp.einsum("ij,j", a, b),
                 rand((2, 3), np.int64), rand((3,), np.int64))


def test_lax_dot_general_vmap_more_dims():
    # contracting dims not at the end, rank-0 operand (no contraction), and a batched rhs
    # whose only free dim is the batch axis next to existing batch dims (the swapped case)
    cases = [((((0,), (1,)), ((), ())), [(3, 2), (4, 3)]),
             ((((), ()), ((), ())), [(), (2, 3)]),
             ((((2,), (1,)), ((0,), (0,))), [(2, 3, 4), (2, 4)])]
    for dn, shapes in cases:
        check_vmap(lambda a, b: lax.dot_general(a, b, dn), [rand(s) for s in shapes],  # noqa: B023
                   f_jax=lambda a, b: jlax.dot_general(a, b, dn), nested=False,  # noqa: B023
                   variants=[(0, 0), (-1, -1), (0, None), (None, 0), (None, -1)])


def test_vmap_over_weight_axis_variants():
    """A batched weight against an unbatched input (the batched operand is lhs)."""
    x = rand((3,))
    check_vmap(lambda w: w @ x, [rand((2, 3))], f_jax=lambda w: w @ x)
    check_vmap(lambda v: x @ v, [rand((3, 4))], f_jax=lambda v: x @ v)


# ----------------------------------------------------------------------------- golden StableHLO


def test_hlo_both_batched_is_one_batched_dot():
    x = rand((3, 5))
    txt = stablehlo(fe.vmap(lambda a, b: a @ b), x, x)
    assert txt.count("stablehlo.dot_general") == 1
    assert "batching_dims = [0] x [0], contracting_dims = [1] x [1]" in txt
    assert "stablehlo.transpose" not in txt and "broadcast_in_dim" not in txt


def test_hlo_unbatched_weight_is_not_broadcast():
    M = rand((2, 3))
    txt = stablehlo(fe.vmap(lambda v: M @ v), rand((5, 3)))
    assert txt.count("stablehlo.dot_general") == 1
    assert "contracting_dims = [1] x [1]" in txt and "batching_dims" not in txt
    assert "broadcast_in_dim" not in txt
    # operand order kept (as JAX): M @ V^T gives the batch axis last; out_axes=0 then needs
    # exactly one transpose, the one JAX emits too
    assert "(tensor<2x3xf32>, tensor<5x3xf32>) -> tensor<2x5xf32>" in txt
    assert op_names(txt) == ["stablehlo.dot_general", "stablehlo.transpose"]
    # batch axis at the end of v (columns are examples): M @ V, the batch axis stays last
    txt = stablehlo(fe.vmap(lambda v: M @ v, in_axes=1, out_axes=1), rand((3, 5)))
    assert op_names(txt) == ["stablehlo.dot_general"]
    assert "(tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>" in txt


def test_hlo_nested_vmap_unbatched_weight():
    w = rand((2, 3))
    a = rand((4, 5, 3))
    f = fe.vmap(fe.vmap(lambda v: w @ v))
    txt = stablehlo(f, a)
    assert op_names(txt) == ["stablehlo.dot_general", "stablehlo.transpose"]
    assert "broadcast_in_dim" not in txt and "batching_dims" not in txt
    np.testing.assert_allclose(np.asarray(f(a)), np.einsum("kj,abj->abk", w, a), rtol=1e-5, atol=1e-5)
    # batch axes at the end: still one dot, with the batch axes last (w @ A)
    txt = stablehlo(fe.vmap(fe.vmap(lambda v: w @ v, in_axes=1, out_axes=1), in_axes=2, out_axes=2),
                    rand((3, 5, 4)))
    assert op_names(txt) == ["stablehlo.dot_general"]


def test_hlo_matmul_broadcast_is_not_materialized():
    txt = stablehlo(fnp.matmul, rand((5, 1, 2, 3)), rand((4, 3, 2)))
    assert txt.count("stablehlo.dot_general") == 1 and "broadcast_in_dim" not in txt
    assert "batching_dims" not in stablehlo(fnp.matmul, rand((5, 2, 3)), rand((3, 4)))
    txt = stablehlo(fnp.matmul, rand((5, 2, 3)), rand((5, 3, 4)))
    assert "batching_dims = [0] x [0], contracting_dims = [2] x [1]" in txt
    assert op_names(txt) == ["stablehlo.dot_general"]


def test_hlo_einsum_minimal():
    txt = stablehlo(lambda a, b: fnp.einsum("km,nm->nk", a, b), rand((2, 3)), rand((5, 3)))
    assert op_names(txt) == ["stablehlo.dot_general"]
    txt = stablehlo(lambda a, b: fnp.einsum("bij,bjk->bik", a, b), rand((2, 3, 4)), rand((2, 4, 5)))
    assert op_names(txt) == ["stablehlo.dot_general"]
    # three operands: two dots, the small intermediate first (greedy)
    txt = stablehlo(lambda a, b, c: fnp.einsum("ij,jk,k->i", a, b, c),
                    rand((50, 40)), rand((40, 30)), rand((30,)))
    assert op_names(txt) == ["stablehlo.dot_general"] * 2
    assert "(tensor<40x30xf32>, tensor<30xf32>) -> tensor<40xf32>" in txt


def test_seed_model_vmap_matches_hand_batched():
    M, b = rand((2, 3)), rand((2,))

    def model(v):
        return fnp.tanh(M @ v + b).sum()

    def model_batched(vb):
        return fnp.tanh(fnp.einsum("km,nm->nk", M, vb) + b).sum(1)

    vb = rand((5, 3))
    auto = stablehlo(fe.vmap(model), vb)
    hand = stablehlo(model_batched, vb)
    assert op_names(auto) == op_names(hand)
    assert auto.count("stablehlo.dot_general") == 1
    np.testing.assert_allclose(np.asarray(fe.vmap(model)(vb)), np.asarray(model_batched(vb)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(fe.vmap(model)(vb)),
                               np.asarray(jax.vmap(lambda v: jnp.tanh(M @ v + b).sum())(vb)),
                               rtol=1e-5)


# ----------------------------------------------------------------------------- errors


def test_error_contracting_shape():
    with pytest.raises(TypeError, match=re.escape(
            "dot_general requires contracting dimensions to have the same shape, got (3,) and (5,).")):
        lax.dot_general(rand((2, 3)), rand((5, 4)), (((1,), (0,)), ((), ())))
    with pytest.raises(TypeError, match=re.escape(
            "dot_general requires contracting dimensions to have the same shape, got (3,) and (5,).")):
        fe.jit(lambda a, b: a @ b)(rand((2, 3)), rand((5, 4)))
    # jnp.dot in this JAX reports the dot_general error as well
    with pytest.raises(TypeError, match=re.escape(
            "dot_general requires contracting dimensions to have the same shape, got (2,) and (3,).")):
        fnp.dot(rand((2, 2)), rand((3, 2)))


@pytest.mark.parametrize("dn,shapes", [
    ((((1,), (0,)), ((0,), ())), [(2, 3), (3, 4)]),
    ((((1,), (1,)), ((0,), (0,))), [(2, 3), (4, 3)]),
    ((((2,), (0,)), ((), ())), [(2, 3), (3, 4)]),
    ((((1, 1), (0, 1)), ((), ())), [(2, 3), (3, 3)]),
    ((((1,), (1,)), ((1,), (0,))), [(2, 3), (3, 3)]),
])
def test_error_dimension_numbers_match_jax(dn, shapes):
    args = [rand(s) for s in shapes]
    with pytest.raises(TypeError) as theirs:
        jlax.dot_general(*args, dn)
    with pytest.raises(TypeError, match=re.escape(str(theirs.value))):
        lax.dot_general(*args, dn)


def test_error_preferred_narrower():
    a = rand((2, 3), np.int32)
    with pytest.raises(TypeError, match="`preferred_element_type` must not be narrower"):
        lax.dot_general(a, a, (((1,), (1,)), ((), ())), preferred_element_type=np.int8)


def test_error_matmul_and_friends():
    with pytest.raises(ValueError, match="matmul input operand 0 must have ndim at least 1, but it has ndim 0"):
        fnp.matmul(rand(()), rand((3,)))
    with pytest.raises(ValueError, match=re.escape(
            "Incompatible types for matmul arguments: float32[4,2,2] and float32[3,2,2]")):
        fnp.matmul(rand((4, 2, 2)), rand((3, 2, 2)))
    with pytest.raises(TypeError, match="tensordot requires axes lists to have equal length"):
        fnp.tensordot(rand((2, 3)), rand((3, 2)), ([0, 1], [0]))
    with pytest.raises(TypeError, match=re.escape("Number of tensordot axes (axes 3) exceeds input ranks")):
        fnp.tensordot(rand((2, 3)), rand((3, 2)), 3)


@pytest.mark.parametrize("spec,shapes,msg", [
    ("ij,jk->ik", [(2, 3), (4, 5)], "Size of label 'j' for operand 1 (4) does not match previous terms (3)."),
    ("ij->k", [(2, 3)], "Output character 'k' did not appear in the input"),
    ("ijk->i", [(2, 3)], "Einstein sum subscript 'ijk' does not contain the correct number of indices for operand 0."),
    ("ij->ii", [(2, 2)], "Output character 'i' appeared more than once in the output."),
])
def test_error_einsum(spec, shapes, msg):
    with pytest.raises(ValueError, match=re.escape(msg)):
        fnp.einsum(spec, *[rand(s) for s in shapes])


def test_graph_shows_one_primitive():
    g = fe.make_graph(lambda a, b: a @ b)(rand((2, 3)), rand((3,)))
    assert [e.prim.name for e in g.eqns] == ["dot_general"]
    assert "dot_general[dimension_numbers=(((1,), (0,)), ((), ()))" in str(g)


@pytest.mark.parametrize("spec,shapes", [
    ("ij,ij->", [(2, 3), (2, 3)]), ("iij->j", [(3, 3, 2)]), ("ii,i->i", [(3, 3), (3,)]),
    ("a...,a...->...", [(2, 1, 3), (2, 4, 1)]), ("ijk,kji->", [(2, 3, 4), (4, 3, 2)]),
    ("Ab,bC->CA", [(2, 3), (3, 4)]), ("ij,jk,kl,lm->mi", [(2, 3), (3, 4), (4, 5), (5, 2)]),
])
def test_einsum_edge_cases(spec, shapes):
    check_vs_jax(lambda *a: fnp.einsum(spec, *a), lambda *a: jnp.einsum(spec, *a),
                 *[rand(s) for s in shapes])


def test_einsum_interleaved_bool_and_left_to_right():
    a, b = rand((2, 3)), rand((3,))
    check_vs_jax(lambda x, y: fnp.einsum(x, [0, 1], y, [1], [0]),
                 lambda x, y: jnp.einsum(x, [0, 1], y, [1], [0]), a, b)
    check_vs_jax(lambda x, y: fnp.einsum("ij,j", x, y, optimize=False),
                 lambda x, y: jnp.einsum("ij,j", x, y, optimize=False), a, b)
    bs = [rand((2, 3), bool), rand((3, 4), bool), rand((4,), bool)]
    check_vs_jax(lambda *x: fnp.einsum("ij,jk,k->i", *x), lambda *x: jnp.einsum("ij,jk,k->i", *x), *bs)


def test_dot_general_bound_with_lists_eager_jit_and_vmap():
    """dot_general's remembered evaluations take lists for tuples (a user's direct bind)."""
    from frontend.primitives.linalg import dot_general_p
    x, y = rand((3, 4), np.float32), rand((4, 5), np.float32)
    f = lambda a, b: dot_general_p.bind(a, b, dimension_numbers=([[1], [0]], [[], []]),  # noqa: E731
                                        precision=None, preferred_element_type=None)
    want = x @ y
    np.testing.assert_allclose(np.asarray(fe.jit(f)(x, y)), want, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(f(fe.device_put(x), fe.device_put(y))), want, rtol=1e-5)
    xs = np.stack([x, 2 * x])
    np.testing.assert_allclose(np.asarray(fe.vmap(f, (0, None))(xs, y)), xs @ y, rtol=1e-5)
    with pytest.raises(TypeError, match="contracting dimensions to have the same shape"):
        dot_general_p.bind(fe.device_put(x), fe.device_put(y), dimension_numbers=[[[0], [0]], [[], []]],
                           precision=None, preferred_element_type=None)


def test_lu_pivots_to_permutation_under_jvp_as_jax():
    """Traced pivots through jvp: the permutation is integer (no tangent) and the gather it
    drives carries x's tangent, as JAX's."""
    import jax

    x = np.array([3.0, 1.0, 2.0, 5.0], np.float32)

    def make(m, la):
        def f(v):
            piv = m.argsort(v).astype(np.int32)
            return v[la.linalg.lu_pivots_to_permutation(piv, 4)]
        return f
    t = np.arange(4, dtype=np.float32)
    ours = fe.jvp(make(fnp, lax), (x,), (t,))
    theirs = jax.jvp(make(jax.numpy, jax.lax), (x,), (t,))
    assert_same(ours, theirs)
    # (integer operands: the JVP trace never calls the rule, so call it as the INT_ONLY rows
    # of tests/test_ad_table.py do: symbolic float0 zeros out)
    from frontend.interpreters.ad_util import Zero, float0
    from frontend.primitives.decompositions import lu_pivots_to_permutation_p
    piv = np.array([2, 3, 2, 3], np.int32)
    out, tan = lu_pivots_to_permutation_p.jvp_rule(
        (piv,), (Zero(fe.ShapedArray(piv.shape, float0)),), permutation_size=4)
    np.testing.assert_array_equal(out, jax.lax.linalg.lu_pivots_to_permutation(piv, 4))
    assert type(tan) is Zero and tan.aval.dtype == float0 and tan.aval.shape == (4,)
