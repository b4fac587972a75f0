"""The public transformations, the user's door: jit, vmap, grad and friends,
shard_map, custom_jvp/custom_vjp, checkpoint; the stages of a jitted function (``stages``)."""
