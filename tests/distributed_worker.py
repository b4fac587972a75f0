"""One of two processes of tests/test_distributed.py (run as a script, not collected): joins
the distributed runtime over loopback, runs a sharded jit and a shard_map over a mesh that
spans both processes (2 CPU devices each), and prints the results as JSON."""
import json
import sys

import numpy as np

import frontend as fe
from frontend import lax
from frontend.sharding import NamedSharding
from frontend.sharding import PartitionSpec as P


def inputs():
    rng = np.random.default_rng(7)
    return (rng.normal(size=(8, 6)).astype(np.float32), rng.normal(size=(6, 5)).astype(np.float32))


def model(x, w):
    h = fe.numpy.tanh(x @ w)
    return h.sum(0), (h * h).mean()


def main(port: str, pid: int):
    fe.distributed.initialize(f"127.0.0.1:{port}", num_processes=2, process_id=pid,
                              initialization_timeout=60)
    assert fe.process_count() == 2 and fe.process_index() == pid
    assert len(fe.devices()) == 4 and len(fe.local_devices()) == 2
    mesh = fe.make_mesh((4,), ("b",))
    assert mesh.is_multi_process and len(mesh.local_devices) == 2
    x, w = inputs()
    rep = NamedSharding(mesh, P())
    f = fe.jit(model, in_shardings=(NamedSharding(mesh, P("b")), rep), out_shardings=rep)
    s, m = f(x, w)
    xs = fe.device_put(x, NamedSharding(mesh, P("b")))  # each process puts its own rows
    assert not xs.is_fully_addressable and len(xs.addressable_shards) == 2
    rows = sorted(sh.index[0].start for sh in xs.addressable_shards)
    sm = fe.jit(fe.shard_map(lambda a: lax.psum(a.sum(0), "b"), mesh=mesh, in_specs=P("b"),
                             out_specs=P()))
    total = sm(xs)
    hlo = f.lower(x, w).compile().as_text()
    print(json.dumps({"pid": pid, "sum": np.asarray(s).tolist(), "mean": float(m),
                      "total": np.asarray(total).tolist(), "rows": rows,
                      "all_reduce": "all-reduce(" in hlo}), flush=True)
    fe.distributed.shutdown()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
