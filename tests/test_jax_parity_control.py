"""Where vmaplab differed from JAX around control flow, convolutions, reductions and sorting:
each case compared with JAX (values, dtypes, error types and texts)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from harness import assert_same, check_vs_jax

import frontend as fe
import frontend.numpy as fnp
from frontend import lax

OURS = (lax, fnp, fe)
JAX = (jax.lax, jnp, jax)


# ----------------------------------------------------------------------------- invalid StableHLO


def _pair_reduce(L, dims):
    return lambda a, b: L.reduce((a, b), (np.float32(0), np.int32(0)),
                                 lambda c, d: (c[0] + d[0], c[1] + d[1]), dims)


@pytest.mark.parametrize("dims", [(), (1,), (0, 1)])
def test_variadic_reduce_over_no_dimensions(dims):
    # dimensions=() was emitted as `array<i64: >`, which the parser refuses
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    y = np.arange(6, dtype=np.int32).reshape(2, 3)
    check_vs_jax(_pair_reduce(lax, dims), _pair_reduce(jax.lax, dims), x, y)


def test_variadic_reduce_window_of_a_scalar():
    # a rank-0 operand: empty window attributes and an empty padding
    def prog(L):
        return lambda x: L.reduce_window((x, x * 2), (0.0, 0.0),
                                         lambda a, b: (a[0] + b[0], a[1] + b[1]), (), (), "VALID")
    check_vs_jax(prog(lax), prog(jax.lax), np.float32(3.0))


def _conv(L, padding):
    return lambda lhs, rhs: L.conv_general_dilated(lhs, rhs, (1,), padding).sum()


@pytest.mark.parametrize("lhs_shape,rhs_shape,padding", [
    ((1, 2, 2), (3, 2, 3), "VALID"),     # output spatial size 0
    ((1, 2, 0), (3, 2, 1), "VALID"),     # empty input, output size 0
    ((1, 2, 2), (3, 2, 4), [(1, 0)]),    # padded, still output size 0
])
def test_conv_vjp_with_empty_output_window(lhs_shape, rhs_shape, padding):
    # the filter cotangent convolved the input with the (size 0) output cotangent as window
    lhs, rhs = np.ones(lhs_shape, np.float32), np.ones(rhs_shape, np.float32)
    ours = fe.jit(fe.grad(_conv(lax, padding), (0, 1)))(lhs, rhs)
    assert_same(ours, jax.jit(jax.grad(_conv(jax.lax, padding), (0, 1)))(lhs, rhs))


def test_conv_grad_bfloat16_with_float32_accumulation():
    def prog(L):
        return lambda lhs, rhs: L.conv_general_dilated(
            lhs, rhs, (1,), "SAME", preferred_element_type=np.float32).sum()
    rng = np.random.default_rng(0)
    lhs = rng.normal(size=(2, 3, 6)).astype(jnp.bfloat16)
    rhs = rng.normal(size=(4, 3, 3)).astype(jnp.bfloat16)
    expected = jax.grad(prog(jax.lax), (0, 1))(lhs, rhs)
    assert_same(fe.grad(prog(lax), (0, 1))(lhs, rhs), expected)
    assert_same(fe.jit(fe.grad(prog(lax), (0, 1)))(lhs, rhs), expected)
