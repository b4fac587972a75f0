"""A small transformer block (multi-head self-attention + MLP, pre-layer-norm, dropout),
written once as JAX code and run on vmaplab by swapping the imports: parameters from
random keys and nn.initializers, held in a registered pytree; the block is written for ONE
sequence and vmapped over a batch of them, each with its own dropout key, and differentiated
(a loss over the batch, its gradient a pytree like the parameters). Checked against the
per-example loop; with --compare-jax, also against the same code on JAX (same random bits,
so the same parameters, data and dropout masks).

    python examples/attention_block.py [--compare-jax]
"""
import dataclasses
import sys

import numpy as np

import frontend as fe
import frontend.numpy as fnp
from frontend import nn, random, tree_util

SEQ, D, HEADS, HIDDEN, BATCH = 6, 16, 4, 32, 5
RATE = 0.1


def make_model(jnp, jnn, jrandom, jtree_util):
    """The model over a numpy/nn/random/tree_util quartet: ``frontend``'s or ``jax``'s."""

    @dataclasses.dataclass
    class Params:
        wqkv: object
        wo: object
        w1: object
        b1: object
        w2: object
        b2: object

    jtree_util.register_dataclass(Params, data_fields=["wqkv", "wo", "w1", "b1", "w2", "b2"],
                                  meta_fields=[])

    def init(key):
        k = jrandom.split(key, 4)
        glorot = jnn.initializers.glorot_uniform()
        return Params(wqkv=glorot(k[0], (D, 3 * D)), wo=glorot(k[1], (D, D)),
                      w1=jnn.initializers.he_uniform()(k[2], (D, HIDDEN)),
                      b1=jnp.zeros(HIDDEN), w2=jnn.initializers.normal(0.02)(k[3], (HIDDEN, D)),
                      b2=jnp.zeros(D))

    def dropout(key, x):
        keep = jrandom.bernoulli(key, 1.0 - RATE, x.shape)
        return jnp.where(keep, x / (1.0 - RATE), 0.0)

    def block(params, x, key):
        """One sequence x: (SEQ, D)."""
        k_attn, k_mlp = jrandom.split(key)
        h = jnn.standardize(x, axis=-1)
        q, k, v = jnp.split(h @ params.wqkv, 3, axis=-1)
        heads = lambda t: t.reshape(SEQ, HEADS, D // HEADS).transpose(1, 0, 2)  # noqa: E731
        q, k, v = heads(q), heads(k), heads(v)
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(D // HEADS).astype(np.float32)
        causal = jnp.tril(jnp.ones((SEQ, SEQ), bool))
        attn = jnn.softmax(jnp.where(causal, scores, -1e9), axis=-1)
        out = (attn @ v).transpose(1, 0, 2).reshape(SEQ, D)
        x = x + dropout(k_attn, out @ params.wo)
        h = jnn.gelu(jnn.standardize(x, axis=-1) @ params.w1 + params.b1)
        return x + dropout(k_mlp, h @ params.w2 + params.b2)

    return init, block


def main():
    init, block = make_model(fnp, nn, random, tree_util)
    key = random.PRNGKey(0)
    k_init, k_data, k_drop = random.split(key, 3)
    params = fe.jit(init)(k_init)
    n_params = sum(leaf.size for leaf in tree_util.tree_leaves(params))
    xs = random.normal(k_data, (BATCH, SEQ, D))
    drop_keys = random.split(k_drop, BATCH)

    batched = fe.jit(fe.vmap(block, in_axes=(None, 0, 0)))
    ys = batched(params, xs, drop_keys)
    print(f"{n_params} parameters; batch {xs.shape} -> {ys.shape}")

    one = fe.jit(block)
    loop = fnp.stack([one(params, xs[i], drop_keys[i]) for i in range(BATCH)])
    np.testing.assert_allclose(np.asarray(ys), np.asarray(loop), rtol=1e-5, atol=1e-5)
    print("vmap matches the per-example loop:", True)

    # a training signal: the gradient of a loss over the batch, a pytree like the parameters
    def loss(p, xs, keys):
        return fnp.mean(fe.vmap(block, in_axes=(None, 0, 0))(p, xs, keys) ** 2)

    grads = fe.jit(fe.grad(loss))(params, xs, drop_keys)
    assert tree_util.tree_structure(grads) == tree_util.tree_structure(params)
    print("gradient norms:", {k: round(float(fnp.sqrt(fnp.sum(v * v))), 4)
                              for k, v in vars(grads).items()})

    if "--compare-jax" not in sys.argv[1:]:
        return
    import jax

    # the same code on JAX: same random bits, so the same parameters, data and dropout masks
    j_init, j_block = make_model(jax.numpy, jax.nn, jax.random, jax.tree_util)
    jk_init, jk_data, jk_drop = jax.random.split(jax.random.PRNGKey(0), 3)
    jparams = jax.jit(j_init)(jk_init)
    for ours, theirs in zip(tree_util.tree_leaves(params), jax.tree_util.tree_leaves(jparams), strict=True):
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
    jys = jax.jit(jax.vmap(j_block, in_axes=(None, 0, 0)))(
        jparams, jax.random.normal(jk_data, (BATCH, SEQ, D)), jax.random.split(jk_drop, BATCH))
    np.testing.assert_allclose(np.asarray(ys), np.asarray(jys), rtol=2e-5, atol=2e-5)
    jgrads = jax.jit(jax.grad(lambda p, x, k: jax.numpy.mean(
        jax.vmap(j_block, in_axes=(None, 0, 0))(p, x, k) ** 2)))(
        jparams, jax.random.normal(jk_data, (BATCH, SEQ, D)), jax.random.split(jk_drop, BATCH))
    for ours, theirs in zip(tree_util.tree_leaves(grads), jax.tree_util.tree_leaves(jgrads), strict=True):
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-4, atol=1e-5)
    print("same parameters, outputs and gradients as the JAX program:", True)


if __name__ == "__main__":
    main()
