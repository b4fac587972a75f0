"""jax.scipy.linalg beyond the surface table's calls: expm's derivatives (reverse mode through
the Pade choice, the solve and the squarings) and vmap, compared with JAX's."""
import jax
import jax.scipy.linalg as jsl
import numpy as np
from harness import assert_same

import frontend as fe
import frontend.scipy.linalg as fsl

R = np.random.default_rng(7)
M = R.normal(size=(4, 4)).astype(np.float32)


def test_expm_grad_and_vmap_match_jax():
    def loss(mod):
        return lambda a: (mod.expm(a) * np.arange(16, dtype=np.float32).reshape(4, 4)).sum()
    assert_same(fe.jit(fe.grad(loss(fsl)))(M * 3), jax.grad(loss(jsl))(M * 3), "grad expm")
    stack = np.stack([M / 2, -M, M * 5])
    assert_same(fe.jit(fe.vmap(fsl.expm))(stack), jax.vmap(jsl.expm)(stack), "vmap expm")
