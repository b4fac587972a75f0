import jax.numpy as jnp
import numpy as np
import pytest

import frontend.numpy as fnp
from harness import check_vmap, check_vs_jax, rand

UNARY = ["negative", "abs", "exp", "log1p", "expm1", "tanh", "sin", "cos", "tan", "sign", "floor", "ceil", "round"]


@pytest.mark.parametrize("name", UNARY)
def test_unary(name):
    x = rand((3, 4))
    check_vs_jax(getattr(fnp, name), getattr(jnp, name), x)
    check_vmap(getattr(fnp, name), [rand((2, 3))], f_jax=getattr(jnp, name))


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "maximum", "minimum", "arctan2", "power"])
def test_binary(name):
    x, y = rand((3, 4)), np.abs(rand((3, 4))) + 0.5
    check_vs_jax(getattr(fnp, name), getattr(jnp, name), x, y)
    check_vmap(getattr(fnp, name), [rand((2, 3)), np.abs(rand((2, 3))) + 0.5], f_jax=getattr(jnp, name))
