"""Several processes (hosts) as one program: JAX's ``jax.distributed`` over jaxlib's
distributed runtime. Every process calls ``initialize`` first, before any computation; then
``frontend.devices()`` lists the devices of all processes, ``frontend.local_devices()`` this
one's, and a program over a mesh that spans processes runs in all of them at once (each
process passes the same program and arguments; CPU collectives between processes go over
gloo). In process 0 of two (process 1 passes ``process_id=1``)::

    import frontend
    frontend.distributed.initialize("10.0.0.1:1234", num_processes=2, process_id=0)
"""
from __future__ import annotations

from .device import seam as _backend


def initialize(coordinator_address: str | None = None, num_processes: int | None = None,
               process_id: int | None = None, local_device_ids=None, *,
               initialization_timeout: int = 300) -> None:
    """Join the processes of one program: ``coordinator_address`` ("host:port" of process 0,
    which runs the coordinator), ``num_processes``, and this process's ``process_id`` (0 ..
    num_processes - 1). Must run before any computation."""
    if coordinator_address is None or num_processes is None or process_id is None:
        raise ValueError("frontend.distributed.initialize needs coordinator_address, "
                         "num_processes and process_id (no cluster auto-detection)")
    _backend.get().initialize_distributed(coordinator_address, num_processes, process_id,
                                          local_device_ids, initialization_timeout)


def shutdown() -> None:
    """Leave the distributed runtime (at exit)."""
    _backend.get().shutdown_distributed()
