"""Data parallelism: per-example work (a vmapped model, per-example gradients) with the batch
sharded over every device, partitioned by XLA's SPMD partitioner.

Run as a script it asks XLA for 4 CPU devices (before the backend starts), so it shows the
partitioning on any machine:

    python examples/data_parallel.py

It prints the mesh, the StableHLO vmaplab writes (Shardy shardings on @main), the
partitioned HLO XLA compiled for one device (with the all-reduce it inserted for the mean
over the batch), the same step written with shard_map and an explicit psum, and
per-example gradients (``vmap(grad(loss))``) computed where their examples live, whose mean
is the gradient of the mean loss (an all-reduce again).
"""
import os

if "xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               " --xla_force_host_platform_device_count=4").strip()

import numpy as np  # noqa: E402

import frontend as fe  # noqa: E402
import frontend.numpy as fnp  # noqa: E402
from frontend import lax  # noqa: E402
from frontend.sharding import NamedSharding  # noqa: E402
from frontend.sharding import PartitionSpec as P  # noqa: E402


def model(params, x):
    """One example: x of shape (features,) -> a scalar score."""
    w1, b1, w2 = params
    h = fnp.tanh(x @ w1 + b1)
    return h @ w2


def loss(params, x, y):
    """One example's squared error."""
    return (model(params, x) - y) ** 2


def main():
    n = len(fe.devices())
    mesh = fe.make_mesh((n,), ("batch",))
    print("mesh:", mesh)

    rng = np.random.default_rng(0)
    batch, features, hidden = 8 * n, 16, 32
    params = (rng.normal(size=(features, hidden)).astype(np.float32) / 4,
              np.zeros(hidden, np.float32),
              rng.normal(size=(hidden,)).astype(np.float32) / 4)
    x = rng.normal(size=(batch, features)).astype(np.float32)
    y = rng.normal(size=(batch,)).astype(np.float32)

    # the batch split over the devices; the parameters replicated on every device
    data = NamedSharding(mesh, P("batch"))
    replicated = NamedSharding(mesh, P())
    xs, ys = fe.device_put(x, data), fe.device_put(y, data)
    ps = tuple(fe.device_put(p, replicated) for p in params)
    print("x:", xs.shape, "on", len(xs.addressable_shards), "devices, shard",
          xs.addressable_shards[0].data.shape)

    def step(params, x, y):
        per_example = fe.vmap(loss, in_axes=(None, 0, 0))(params, x, y)
        return per_example, per_example.mean()

    sharded = fe.jit(step, out_shardings=(data, replicated))
    per_example, mean = sharded(ps, xs, ys)

    lowered = sharded.lower(ps, xs, ys)
    print("\n--- StableHLO with Shardy shardings (head) ---")
    print("\n".join(lowered.as_text().splitlines()[:4]))
    hlo = lowered.compile().as_text()
    print("\n--- XLA's partitioned HLO: the collectives it inserted ---")
    for line in hlo.splitlines():
        if "all-reduce(" in line or "all-gather(" in line or "ENTRY" in line:
            print(line.strip()[:160])

    # the same step on one device, and the per-example loop
    one = fe.jit(step)(params, x, y)
    loop = np.array([float(loss(params, x[i], y[i])) for i in range(batch)])
    print("\nper-example losses sharded as", per_example.sharding.spec,
          "; match one device:", bool(np.allclose(per_example, one[0], rtol=1e-5, atol=1e-6)),
          "; match the loop:", bool(np.allclose(per_example, loop, rtol=1e-4, atol=1e-5)))
    print("mean loss:", float(mean), "(one device:", float(one[1]), ")")

    # the same mean written per device: each device's examples, an explicit psum over the mesh
    def local_mean(params, x, y):
        total = fe.vmap(loss, in_axes=(None, 0, 0))(params, x, y).sum()
        return lax.psum(total, "batch") / batch

    explicit = fe.jit(fe.shard_map(local_mean, mesh=mesh, in_specs=(P(), P("batch"), P("batch")),
                                   out_specs=P()))
    print("shard_map + psum mean:", float(explicit(ps, xs, ys)))
    assert np.allclose(explicit(ps, xs, ys), one[1], rtol=1e-5)
    assert "all-reduce(" in hlo and np.allclose(mean, one[1], rtol=1e-5)

    # per-example gradients: each device differentiates its own examples, no communication;
    # the gradients come out sharded over the batch like the examples
    per_example_grads = fe.jit(fe.vmap(fe.grad(loss), in_axes=(None, 0, 0)), out_shardings=data)
    grads = per_example_grads(ps, xs, ys)
    print("\nper-example gradients:", [g.shape for g in grads], "sharded as",
          grads[0].sharding.spec, "; shard on each device:", grads[0].addressable_shards[0].data.shape)
    pe_hlo = per_example_grads.lower(ps, xs, ys).compile().as_text()
    print("collectives in its partitioned HLO:",
          [op for op in ("all-reduce(", "all-gather(", "all-to-all(") if op in pe_hlo] or "none")
    grad_one = fe.jit(fe.grad(loss))
    for i in (0, batch - 1):  # the first and the last device's examples, one at a time
        for g, r in zip(grads, grad_one(params, x[i], y[i]), strict=True):
            np.testing.assert_allclose(np.asarray(g)[i], r, rtol=1e-4, atol=1e-6)
    # their mean is the gradient of the mean loss, where XLA sums the devices' parts
    mean_grad = fe.jit(fe.grad(lambda p, x, y: step(p, x, y)[1]), out_shardings=replicated)
    g_mean = mean_grad(ps, xs, ys)
    assert "all-reduce(" in mean_grad.lower(ps, xs, ys).compile().as_text()
    for g, m in zip(grads, g_mean, strict=True):
        np.testing.assert_allclose(np.asarray(g).mean(0), m, rtol=1e-4, atol=1e-6)
    print("per-example gradients match grad one example at a time; their mean equals the "
          "gradient of the mean loss (an all-reduce over the devices):", True)


if __name__ == "__main__":
    main()
