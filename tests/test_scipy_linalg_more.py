"""jax.scipy.linalg beyond the surface table's calls: expm's derivatives (reverse mode through
the Pade choice, the solve and the squarings) and vmap; the schur and hessenberg primitives'
batching, kernel types and errors; compared with JAX's."""
import re

import jax
import jax.scipy.linalg as jsl
import numpy as np
import pytest
from harness import assert_same

import frontend as fe
import frontend.scipy.linalg as fsl

R = np.random.default_rng(7)
M = R.normal(size=(4, 4)).astype(np.float32)


def test_expm_grad_matches_jax():
    def loss(mod):
        return lambda a: (mod.expm(a) * np.arange(16, dtype=np.float32).reshape(4, 4)).sum()
    assert_same(fe.jit(fe.grad(loss(fsl)))(M * 3), jax.jit(jax.grad(loss(jsl)))(M * 3), "grad expm")


@pytest.mark.slow
def test_expm_under_vmap_matches_jax():
    stack = np.stack([M / 2, -M, M * 5])
    assert_same(fe.jit(fe.vmap(fsl.expm))(stack), jax.vmap(jsl.expm)(stack), "vmap expm")


def test_schur_and_hessenberg_primitives():
    """schur/hessenberg (LAPACK gees/gehrd): vmap over a middle axis matches a loop; the
    lowered calls pass the kernels' type check (as an imported module's would); no
    derivatives and no lowering off the CPU, with JAX's errors."""
    import pytest

    from lowering import custom_calls
    stack = np.stack([M, M.T, M + 1], axis=1)  # (4, 3, 4): the batch in the middle
    for name, kw in [("schur", {}), ("hessenberg", {"calc_q": True})]:
        f = getattr(fsl, name)
        got = fe.jit(fe.vmap(lambda x, f=f, kw=kw: f(x, **kw), in_axes=1))(stack)
        for k in range(3):
            assert_same(tuple(o[k] for o in got), getattr(jsl, name)(stack[:, k], **kw), name)
        for dt in (np.float32, np.complex64):
            text = fe.jit(lambda x, f=f, kw=kw: f(x, **kw)).lower(M.astype(dt)).as_text()
            custom_calls.check(text, name)
            jf = getattr(jsl, name)
            theirs = jax.jit(lambda x, jf=jf, kw=kw: jf(x, **kw)).lower(M.astype(dt))
            targets = set(re.findall(r"custom_call @(\w+)", text))
            assert targets == set(re.findall(r"custom_call @(\w+)", theirs.as_text())), targets
        with pytest.raises(NotImplementedError, match=f"Differentiation rule for '{name}'"):
            fe.jvp(lambda x, f=f: f(x)[0], (M,), (M,))
        with pytest.raises(NotImplementedError, match="not found for platform cuda"):
            fe.jit(f).trace(M).lower(lowering_platforms=("cuda",))
