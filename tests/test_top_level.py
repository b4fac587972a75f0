"""jax's top-level names beyond the transformations' own files (issue 26): checkpoint
policies, donation, config context managers, the small modules (errors, dtypes, ...), each
compared with JAX."""
import re

import jax
import jax.ad_checkpoint
import jax.numpy as jnp
import numpy as np
import pytest
from harness import assert_same
from jax._src.ad_checkpoint import saved_residuals as _jax_saved_residuals  # (the oracle)

import frontend as fe
import frontend.numpy as fnp
from frontend import ad_checkpoint

# ----------------------------------------------------------------------------- checkpoint policies

_W = np.random.default_rng(0).normal(size=(3, 3)).astype(np.float32)
_X = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)


def _net(np_, ck, name, policy):
    def layer(w, x):
        h = name(np_.sin(x @ w), "h")
        return np_.tanh(h @ w)
    lay = ck(layer, policy=policy)
    return lambda w, x: np_.sum(lay(w, lay(w, x)) ** 2)


def _residuals(saved):
    # (shape, dtype, where) without JAX's source locations
    return [(a.shape, a.dtype, re.sub(r" from /.*$", "", w)) for a, w in saved]


@pytest.mark.parametrize(("policy", "args", "sins"), [
    ("nothing_saveable", (), 4), ("everything_saveable", (), 2), ("dots_saveable", (), 4),
    ("dots_with_no_batch_dims_saveable", (), 4), ("save_only_these_names", ("h",), 2),
    ("save_any_names_but_these", ("h",), 4), ("save_anything_except_these_names", ("h",), 2),
    ("offload_dot_with_no_batch_dims", ("device", "pinned_host"), 4)])
def test_checkpoint_policies_save_what_jax_saves(policy, args, sins):
    """The residuals reverse mode keeps are JAX's for each policy; the backward pass
    recomputes sin exactly where the policy does not save it (2 forward + 2 recomputed);
    gradients equal JAX's."""
    ours = getattr(fe.checkpoint_policies, policy)
    theirs = getattr(jax.checkpoint_policies, policy)
    ours, theirs = (ours(*args), theirs(*args)) if args else (ours, theirs)
    f = _net(fnp, fe.checkpoint, ad_checkpoint.checkpoint_name, ours)
    jf = _net(jnp, jax.checkpoint, jax.ad_checkpoint.checkpoint_name, theirs)
    expect = _residuals(_jax_saved_residuals(jf, _W, _X))
    if policy.startswith("offload"):
        # JAX copies an offloaded value to host memory (a device_put, a no-op on CPU that its
        # compiled program drops); a CPU device's memory is the host's, so ours saves the
        # dot's output where it is
        expect = [(s, d, w.replace("device_put", "dot_general")) for s, d, w in expect]
    assert _residuals(ad_checkpoint.saved_residuals(f, _W, _X)) == expect
    assert str(fe.make_graph(fe.grad(f))(_W, _X)).count(" sin ") == sins
    np.testing.assert_allclose(fe.jit(fe.grad(f))(_W, _X), jax.grad(jf)(_W, _X), rtol=1e-5,
                               atol=1e-6)


def test_checkpoint_policy_under_vmap_and_second_order():
    """A policy holds under vmap of grad and grad of grad (values as JAX's); names are
    identities outside checkpoint; both-policies saves the union; a bad policy is refused."""
    both = fe.checkpoint_policies.save_from_both_policies(
        fe.checkpoint_policies.dots_saveable, fe.checkpoint_policies.save_only_these_names("h"))
    jboth = jax.checkpoint_policies.save_from_both_policies(
        jax.checkpoint_policies.dots_saveable, jax.checkpoint_policies.save_only_these_names("h"))
    f = _net(fnp, fe.checkpoint, ad_checkpoint.checkpoint_name, both)
    jf = _net(jnp, jax.checkpoint, jax.ad_checkpoint.checkpoint_name, jboth)
    assert _residuals(ad_checkpoint.saved_residuals(f, _W, _X)) == \
        _residuals(_jax_saved_residuals(jf, _W, _X))
    np.testing.assert_allclose(fe.vmap(fe.grad(f), (None, 0))(_W, _X[:, None]),
                               jax.vmap(jax.grad(jf), (None, 0))(_W, _X[:, None]), rtol=1e-5)
    g = lambda f: lambda s: f(_W * s, _X)  # noqa: E731
    np.testing.assert_allclose(fe.grad(fe.grad(g(f)))(1.5), jax.grad(jax.grad(g(jf)))(1.5),
                               rtol=1e-4)
    assert_same(ad_checkpoint.checkpoint_name(fnp.ones(3), "a"),
                jax.ad_checkpoint.checkpoint_name(jnp.ones(3), "a"))
    with pytest.raises(TypeError, match="policy must be a callable"):
        fe.checkpoint(lambda x: x, policy="dots")
