"""nn.scaled_matmul against JAX. JAX has no CPU lowering for it (NotImplementedError), so the
values are compared with JAX's documented formula run by JAX (scales repeated over their
blocks, einsum 'BMK,BNK->BMN' in float32, then preferred_element_type), and shapes, dtypes and
errors with jax.eval_shape(jax.nn.scaled_matmul)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from harness import assert_same

import frontend as fe
from frontend import nn

R = np.random.default_rng(26)
A, B = R.normal(size=(2, 3, 64)).astype(np.float32), R.normal(size=(2, 4, 64)).astype(np.float32)
AS, BS = (R.uniform(0.5, 2, size=(2, m, 2)).astype(np.float32) for m in (3, 4))


def _jax_formula(a, b, a_s, b_s, preferred_element_type=np.float32):
    def scaled(x, s):
        return x.astype(jnp.float32) * jnp.repeat(s.astype(jnp.float32), x.shape[2] // s.shape[2],
                                                  axis=2)
    out = jnp.einsum("bmk,bnk->bmn", scaled(a, a_s), scaled(b, b_s),
                     precision=jax.lax.Precision.HIGHEST)
    return out.astype(preferred_element_type)


F8 = [jnp.float8_e4m3fn, jnp.float8_e5m2, jnp.float8_e8m0fnu]
ROWS = [  # (lhs, rhs, lhs_scales, rhs_scales, preferred_element_type)
    (A, B, AS, BS, np.float32),
    pytest.param(A.astype(F8[0]), B.astype(F8[1]), AS.astype(F8[2]), BS.astype(F8[2]), jnp.bfloat16,
                 marks=pytest.mark.slow),  # (the mxfp8 layout: float8 data, e8m0 scales)
    pytest.param(np.int32([[[1, 2, 3]]]), np.int32([[[4, 5, 6]]]), np.float32([[[0.5]]]),
                 np.float32([[[0.5]]]), np.float32, marks=pytest.mark.slow),  # (JAX's example)
    pytest.param(A, B, AS[:, :, :1], BS[:, :, :1], np.float16, marks=pytest.mark.slow),
]


@pytest.mark.parametrize(("a", "b", "a_s", "b_s", "pet"), ROWS)
def test_scaled_matmul_matches_jax(a, b, a_s, b_s, pet):
    theirs = _jax_formula(a, b, a_s, b_s, pet)
    shape = jax.eval_shape(lambda *x: jax.nn.scaled_matmul(*x, preferred_element_type=pet),
                           a, b, a_s, b_s)
    assert (theirs.shape, theirs.dtype) == (shape.shape, shape.dtype)
    mine = fe.jit(lambda *x: nn.scaled_matmul(*x, preferred_element_type=pet))(a, b, a_s, b_s)
    assert_same(mine, theirs, "scaled_matmul")


BAD = {  # JAX's own shape errors (its wording)
    "2-d": (A[0], B[0], AS[0], BS[0]),
    "K differs": (A, B[:, :, :32], AS, BS),
    "B differs": (A, B[:1], AS, BS[:1]),
    "scale blocks differ": (A, B, AS, BS[:, :, :1]),
    "scale M differs": (A, B, AS[:, :2], BS),
}


@pytest.mark.parametrize("what", list(BAD))
def test_scaled_matmul_errors_match_jax(what):
    with pytest.raises(ValueError) as theirs:
        jax.eval_shape(jax.nn.scaled_matmul, *BAD[what])
    with pytest.raises(ValueError) as mine:
        nn.scaled_matmul(*BAD[what])
    assert str(mine.value) == str(theirs.value)


@pytest.mark.parametrize("scales", [(AS[:, :, :1].repeat(3, 2), BS[:, :, :1].repeat(3, 2)),
                                    (AS[:1], BS[:1]), (AS[:, :, :0], BS[:, :, :0])])
def test_scaled_matmul_refuses_scales_it_cannot_repeat(scales):
    # JAX leaves these to its GPU kernel; the documented contract is K % K_s == 0, one scale
    # row per (B, M) of the operand
    with pytest.raises(ValueError, match="scaled_matmul requires the scales"):
        nn.scaled_matmul(A, B, *scales)


def test_scaled_matmul_grad_and_vmap_match_jax_formula():
    def ours(a, b):
        return nn.scaled_matmul(a, b, AS, BS).sum()

    def theirs(a, b):
        return _jax_formula(a, b, AS, BS).sum()
    assert_same(fe.jit(fe.grad(ours, argnums=(0, 1)))(A, B),
                jax.grad(theirs, argnums=(0, 1))(A, B), "grad")
    assert_same(fe.jit(fe.vmap(nn.scaled_matmul))(A[None], B[None], AS[None], BS[None]),
                jax.vmap(_jax_formula)(A[None], B[None], AS[None], BS[None]), "vmap")
