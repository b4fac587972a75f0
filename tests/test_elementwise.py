"""Op table of the elementwise family: every unary/binary/compare primitive, select and
convert_element_type, through frontend.numpy and frontend.lax, against jax.numpy / jax.lax
(jit and eager), and vmap against the per-example loop and jax.vmap."""
import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from harness import RNG, assert_same, check_vmap, check_vs_jax, light_variants, rand, stablehlo
from jax import lax as jlax

import frontend as fe
import frontend.numpy as fnp
from frontend import lax

POS = lambda s, d=np.float32: (np.abs(rand(s, d)) + 0.5).astype(d)  # noqa: E731

# name, inputs maker (shape -> list of arrays)
UNARY_NP = [
    ("negative", lambda s: [rand(s)]), ("abs", lambda s: [rand(s)]), ("exp", lambda s: [rand(s)]),
    ("log", lambda s: [POS(s)]), ("log1p", lambda s: [POS(s)]), ("expm1", lambda s: [rand(s)]),
    ("tanh", lambda s: [rand(s)]), ("sin", lambda s: [rand(s)]), ("cos", lambda s: [rand(s)]),
    ("tan", lambda s: [rand(s) * 0.5]), ("sqrt", lambda s: [POS(s)]), ("sign", lambda s: [rand(s)]),
    ("floor", lambda s: [rand(s) * 3]), ("ceil", lambda s: [rand(s) * 3]), ("round", lambda s: [rand(s) * 3]),
    ("logical_not", lambda s: [rand(s, np.bool_)]), ("invert", lambda s: [rand(s, np.int32)]),
    ("square", lambda s: [rand(s)]), ("reciprocal", lambda s: [POS(s)]),
    ("negative", lambda s: [rand(s, np.int32)]), ("abs", lambda s: [rand(s, np.int32)]),
    ("exp", lambda s: [rand(s, np.int32)]), ("tanh", lambda s: [rand(s, ml_dtypes.bfloat16)]),
]
BINARY_NP = [
    ("add", lambda s: [rand(s), rand(s)]), ("subtract", lambda s: [rand(s), rand(s)]),
    ("multiply", lambda s: [rand(s), rand(s)]), ("divide", lambda s: [rand(s), POS(s)]),
    ("maximum", lambda s: [rand(s), rand(s)]), ("minimum", lambda s: [rand(s), rand(s)]),
    ("arctan2", lambda s: [rand(s), rand(s)]), ("power", lambda s: [POS(s), rand(s)]),
    ("power", lambda s: [rand(s, np.int32), np.abs(rand(s, np.int32))]),
    ("remainder", lambda s: [rand(s) * 4, POS(s)]), ("remainder", lambda s: [rand(s, np.int32, high=9), POS(s, np.int32)]),
    ("floor_divide", lambda s: [rand(s, np.int32, low=-9, high=9), POS(s, np.int32)]),
    ("floor_divide", lambda s: [rand(s) * 5, POS(s)]),
    ("bitwise_and", lambda s: [rand(s, np.int32), rand(s, np.int32)]),
    ("bitwise_or", lambda s: [rand(s, np.int32), rand(s, np.int32)]),
    ("bitwise_xor", lambda s: [rand(s, np.int32), rand(s, np.int32)]),
    ("logical_and", lambda s: [rand(s, np.bool_), rand(s, np.bool_)]),
    ("logical_or", lambda s: [rand(s, np.bool_), rand(s, np.bool_)]),
    ("logical_xor", lambda s: [rand(s, np.bool_), rand(s, np.bool_)]),
    ("equal", lambda s: [rand(s, np.int32), rand(s, np.int32)]),
    ("not_equal", lambda s: [rand(s), rand(s)]), ("less", lambda s: [rand(s), rand(s)]),
    ("less_equal", lambda s: [rand(s, np.int32), rand(s, np.int32)]),
    ("greater", lambda s: [rand(s, np.uint8), rand(s, np.uint8)]),
    ("greater_equal", lambda s: [rand(s), rand(s)]),
    ("add", lambda s: [rand(s, np.int8), rand(s, np.float16)]),
    ("multiply", lambda s: [rand(s, np.bool_), rand(s, np.bool_)]),
]
OTHER_NP = [
    ("where", lambda s: [rand(s, np.bool_), rand(s), rand(s)]),
    ("clip", lambda s: [rand(s) * 3, -np.ones(s, np.float32), np.ones(s, np.float32)]),
]


def _id(case):
    name, mk = case
    return f"{name}-{mk((2,))[0].dtype}"


@pytest.mark.parametrize("case", UNARY_NP + BINARY_NP + OTHER_NP, ids=_id)
def test_numpy_vs_jax(case):
    name, mk = case
    check_vs_jax(getattr(fnp, name), getattr(jnp, name), *mk((3, 4)))


# every in_axes variant, nested: a few unary and binary functions of each dtype family (one
# batching rule serves every elementwise primitive); the others: the light variants
FULL_VMAP = {"exp", "power", "bitwise_and", "equal", "where"}


@pytest.mark.parametrize("case", UNARY_NP[:18] + BINARY_NP[:22] + OTHER_NP, ids=_id)
def test_vmap(case):
    name, mk = case
    args = mk((2, 3))
    makers = [(lambda i=i: mk((2, 3))[i]) for i in range(len(args))]
    full = name in FULL_VMAP
    check_vmap(getattr(fnp, name), args, f_jax=getattr(jnp, name), makers=makers,
               variants=None if full else light_variants(args), nested=full)


LAX = [
    ("rsqrt", [POS((3,))]), ("logistic", [rand((3,))]), ("rem", [rand((3,)) * 4, POS((3,))]),
    ("pow", [POS((3,)), rand((3,))]), ("not_", [rand((3,), np.bool_)]),
    ("and_", [rand((3,), np.int32), rand((3,), np.int32)]), ("or_", [rand((3,), np.bool_), rand((3,), np.bool_)]),
    ("xor", [rand((3,), np.int32), rand((3,), np.int32)]), ("max", [rand((3,)), rand((3,))]),
    ("eq", [rand((3,)), rand((3,))]), ("ne", [rand((3,), np.int32), rand((3,), np.int32)]),
    ("lt", [rand((3,)), rand((3,))]), ("le", [rand((3,)), rand((3,))]), ("gt", [rand((3,)), rand((3,))]),
    ("ge", [rand((3,)), rand((3,))]), ("div", [rand((3,), np.int32, low=-9, high=9), POS((3,), np.int32)]),
    ("sub", [rand((3,)), rand((3,))]), ("atan2", [rand((3,)), rand((3,))]), ("tan", [rand((3,))]),
]


@pytest.mark.parametrize("name,args", LAX, ids=[c[0] for c in LAX])
def test_lax_vs_jax(name, args):
    jname = {"not_": "bitwise_not", "and_": "bitwise_and", "or_": "bitwise_or", "xor": "bitwise_xor"}.get(name, name)
    check_vs_jax(getattr(lax, name), getattr(jlax, jname), *args)
    check_vmap(getattr(lax, name), args, f_jax=getattr(jlax, jname), nested=False,
               makers=[(lambda a=a: rand(a.shape, a.dtype) if a.dtype != np.float32 else POS(a.shape)) for a in args])


def test_select_and_convert_primitives():
    p, x, y = rand((2, 3), np.bool_), rand((2, 3)), rand((2, 3))
    check_vs_jax(lax.select, jlax.select, p, x, y)
    check_vmap(lax.select, [p, x, y], f_jax=jlax.select)
    check_vmap(lax.select, [np.bool_(True), x, y], variants=[(None, 0, 0), (None, 1, None)], nested=False)
    for d in (np.int32, np.bool_, ml_dtypes.bfloat16, np.float16, np.uint8):
        check_vs_jax(lambda a: lax.convert_element_type(a, d), lambda a: jlax.convert_element_type(a, d), x * 3)  # noqa: B023
        check_vs_jax(lambda a: a.astype(d), lambda a: a.astype(d), x * 3)  # noqa: B023
    check_vmap(lambda a: a.astype(np.int32), [x * 3], f_jax=lambda a: a.astype(np.int32))


def test_scalar_operands_stay_scalars_under_vmap():
    text = stablehlo(fe.vmap(lambda x: x * 2.0 + 1), rand((4, 3)))
    # the literals broadcast once each to the batched shape, no batch-size broadcast of weights
    assert text.count("stablehlo.multiply") == 1 and "tensor<4x3xf32>" in text


def test_unbatched_operand_is_broadcast_only_as_stablehlo_requires():
    w = rand((3,))
    text = stablehlo(fe.vmap(lambda x: x * w), rand((5, 3)))
    assert "stablehlo.broadcast_in_dim" in text and "stablehlo.transpose" not in text


def test_batched_scalar_against_unbatched_array():
    f = lambda s, x: s * x  # noqa: E731
    check_vmap(f, [np.float32(2.0), rand((3,))], variants=[(0, None), (0, 1)], nested=False, f_jax=f)


def test_incompatible_shapes_error():
    with pytest.raises(TypeError, match=r"add got incompatible shapes for broadcasting: \(3, 2\), \(4, 5\)\."):
        fnp.add(np.ones((3, 2)), np.ones((4, 5)))
    with pytest.raises(TypeError, match="add requires arguments to have the same dtypes"):
        lax.add(np.ones(2, np.float32), np.ones(2, np.int32))
    with pytest.raises(TypeError, match="does not accept dtype"):
        fnp.bitwise_and(np.ones(2), np.ones(2))


# every binary lax op with size-1 dimensions (JAX 0.10's lax broadcasting): name, dtype, makers
BROADCAST = [
    ("add", np.float32), ("sub", np.int32), ("mul", np.float32), ("div", np.float32),
    ("rem", np.int32), ("pow", np.float32), ("max", np.float32), ("min", np.int32),
    ("atan2", np.float32), ("and_", np.int32), ("or_", np.bool_), ("xor", np.int32),
    ("shift_left", np.int32), ("shift_right_arithmetic", np.int32),
    ("shift_right_logical", np.uint32), ("eq", np.int32), ("ne", np.float32), ("lt", np.float32),
    ("le", np.int32), ("gt", np.float32), ("ge", np.uint8),
]
_JNAME = {"and_": "bitwise_and", "or_": "bitwise_or", "xor": "bitwise_xor"}


def _bcast_args(name, d, sa, sb):
    lo = 1 if name in ("rem", "div", "pow", "shift_left", "shift_right_arithmetic",
                       "shift_right_logical") else -3
    a, b = rand(sa, d, low=lo, high=5), rand(sb, d, low=lo, high=5)
    if name == "pow":
        a = np.abs(a) + 0.5
    if name == "div":
        b = np.abs(b) + 0.5
    return a, b


def test_size_one_broadcasting_in_every_binary_lax_op():
    """(3, 4) with (3, 1), (1, 4) with (3, 1), and vmapped (the batch axis and an unbatched
    size-1 operand): one program of ours, one of JAX's, for all rows."""
    args = []
    for name, d in BROADCAST:
        args += _bcast_args(name, d, (3, 4), (3, 1)) + _bcast_args(name, d, (1, 4), (3, 1))
        args += _bcast_args(name, d, (2, 3, 1), (1, 4))

    def program(L, vmap):
        def run(*flat):
            out = []
            for k, (name, _) in enumerate(BROADCAST):
                f = getattr(L, _JNAME.get(name, name) if L is jlax else name)
                a, b, c, e, g, h = flat[6 * k:6 * k + 6]
                out += [f(a, b), f(c, e), vmap(f, in_axes=(0, None))(g, h)]
            return out
        return run

    ours = fe.jit(program(lax, fe.vmap))(*args)
    theirs = jax.jit(program(jlax, jax.vmap))(*args)
    for k, (o, t) in enumerate(zip(ours, theirs, strict=True)):
        assert_same(o, t, f"{BROADCAST[k // 3][0]} case {k % 3}")
    text = stablehlo(lambda a, b: lax.add(a, b), np.ones((3, 4), np.float32), np.ones((3, 1), np.float32))
    assert "stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<3x1xf32>) -> tensor<3x4xf32>" in text


def test_lax_broadcasting_errors_as_jax():
    with pytest.raises(TypeError, match=r"add: arrays must have the same number of dimensions, got \{1, 2\}"):
        lax.add(np.ones((3, 4), np.float32), np.ones(4, np.float32))
    with pytest.raises(TypeError, match=r"mul got incompatible shapes for broadcasting: \(3, 4\), \(2, 4\)\."):
        lax.mul(np.ones((3, 4), np.float32), np.ones((2, 4), np.float32))
    with pytest.raises(TypeError, match="select got incompatible shapes"):  # select does not broadcast
        lax.select(np.ones((3, 1), bool), np.ones((3, 4), np.float32), np.ones((3, 4), np.float32))
    with pytest.raises(TypeError, match="shift_left does not accept dtype float32"):
        lax.shift_left(np.ones(2, np.float32), np.ones(2, np.float32))
    with pytest.raises(TypeError, match="rem does not accept dtype complex64"):
        lax.rem(np.ones(2, np.complex64), np.ones(2, np.complex64))


def test_complex_order_and_unsigned_sign_abs():
    """Complex max/min/comparisons/reductions/cumulative max order lexicographically, as
    JAX's; sign and abs of unsigned integers (stablehlo.sign/abs take signed types)."""
    x = (RNG.integers(0, 3, (4, 6)) + 1j * RNG.integers(0, 3, (4, 6))).astype(np.complex64)
    y = (RNG.integers(0, 3, (4, 6)) + 1j * RNG.integers(0, 3, (4, 6))).astype(np.complex64)
    u = np.array([0, 1, 7, 255], np.uint8)

    def prog(L, N):
        return (N.maximum(x, y), N.minimum(x, y), N.less_equal(x, y), N.greater_equal(x, y),
                N.greater(x, y), L.reduce_max(x, (0,)), L.reduce_min(x, (1,)), L.cummax(x, 0),
                L.cummin(x, 1), L.sign(u), N.abs(u), N.sign(u))

    assert_same(fe.jit(lambda: prog(lax, fnp))(), jax.jit(lambda: prog(jlax, jnp))(), "complex/unsigned")
