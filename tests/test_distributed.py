"""Two processes on this machine (loopback only) join jaxlib's distributed runtime
(frontend.distributed.initialize) with 2 CPU devices each, and run a sharded jit and a
shard_map over a mesh spanning both (CPU collectives over gloo): both processes get the
single-process result. A timeout keeps a hang from stalling the suite."""
import json
import os
import socket
import subprocess
import sys

import numpy as np

import frontend as fe

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_processes_give_the_single_process_result():
    sys.path.insert(0, HERE)
    import distributed_worker as w
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2",
               PYTHONPATH=os.pathsep.join([ROOT, HERE, os.environ.get("PYTHONPATH", "")]))
    port = str(_free_port())
    procs = [subprocess.Popen([sys.executable, os.path.join(HERE, "distributed_worker.py"), port,
                               str(i)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=env, cwd=ROOT) for i in range(2)]
    outs = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, f"process failed ({p.returncode}):\n{out[-2000:]}\n{err[-4000:]}"
            outs.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    x, wt = w.inputs()
    s, m = fe.jit(w.model)(x, wt)  # one process, one device
    for r in outs:
        np.testing.assert_allclose(r["sum"], np.asarray(s), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(r["mean"], float(m), rtol=1e-5)
        np.testing.assert_allclose(r["total"], x.sum(0), rtol=1e-5, atol=1e-5)
        assert r["all_reduce"]
    assert sorted(r["rows"] for r in outs) == [[0, 2], [4, 6]]  # each process holds its shards
