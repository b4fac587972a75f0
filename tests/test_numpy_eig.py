"""linalg.eig/eigvals (LAPACK geev custom calls): values, batching and derivatives against
JAX's (the surface table compares the plain calls)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from harness import assert_same, verify

import frontend as fe
import frontend.numpy as fnp
from frontend import lax
from lowering import custom_calls

_R = np.random.RandomState(0)
A = (np.eye(4) * 3 + _R.randn(4, 4)).astype(np.float32)   # complex-pair eigenvalues
B = np.stack([A, A.T * 0.5])
DA = _R.randn(4, 4).astype(np.float32)


def test_eig_under_vmap_matches_jax():
    assert_same(fe.vmap(fnp.linalg.eigvals)(B), jax.vmap(jnp.linalg.eigvals)(B))
    moved = B.transpose(1, 2, 0).copy()
    assert_same(fe.vmap(fnp.linalg.eig, in_axes=2)(moved),
                jax.vmap(jnp.linalg.eig, in_axes=2)(moved))
    for x in (A, A.astype(np.complex64), A.astype(np.float64)):
        text = verify(fe.jit(fnp.linalg.eig).lower(x).as_text())
        assert "geev_ffi" in text
        custom_calls.check(text, "eig")  # (the kernel's types, as imported artifacts are checked)


def test_eig_derivatives_match_jax():
    assert_same(fe.jvp(fnp.linalg.eigvals, (A,), (DA,)), jax.jvp(jnp.linalg.eigvals, (A,), (DA,)))
    ours = fe.jvp(lambda a: lax.linalg.eig(a, compute_left_eigenvectors=False,
                                           enable_eigvec_derivs=True), (A,), (DA,))
    theirs = jax.jvp(lambda a: jax.lax.linalg.eig(a, compute_left_eigenvectors=False,
                                                  enable_eigvec_derivs=True), (A,), (DA,))
    assert_same(ours, theirs)
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):
        fe.jvp(fnp.linalg.eig, (A,), (DA,))
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):
        jax.jvp(jnp.linalg.eig, (A,), (DA,))
