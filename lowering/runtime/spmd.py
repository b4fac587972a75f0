"""Programs over several devices (XLA's SPMD partitioner, Shardy) and several processes
(jaxlib's distributed runtime): sharded buffers, SPMD compile options, ``execute_sharded``.

A sharded buffer is jaxlib's global array (one buffer per addressable device) tagged with
JAX's sharding object of the same meaning as the frontend's (``jax_sharding``): jaxlib's
array type, its transfers and its C++ call path require those. The frontend never sees them;
``from_jax`` turns them back into ``frontend.sharding`` objects.
"""
from __future__ import annotations

import functools

import numpy as np
from jax._src import config as _config
from jax._src import core as _core
from jax._src import distributed as _distributed
from jax._src import sharding_impls as _si
from jax._src.interpreters import pxla as _pxla
from jax._src.lib import xla_client as _xc
from jax.sharding import Mesh as _JMesh
from jax.sharding import NamedSharding as _JNamed
from jax.sharding import PartitionSpec as _JP
from jax.sharding import SingleDeviceSharding as _JSingle

from frontend import sharding as fs

from . import cache, ffi
from .xla import _WIDE, Executable, backend

# ----------------------------------------------------------------------------- conversions


@functools.lru_cache(maxsize=256)
def jax_mesh(mesh: fs.Mesh) -> _JMesh:
    return _JMesh(mesh.devices, mesh.axis_names)


@functools.lru_cache(maxsize=4096)
def jax_sharding(s):
    """JAX's sharding object for a frontend sharding."""
    if isinstance(s, fs.NamedSharding):
        return _JNamed(jax_mesh(s.mesh), _JP(*s.spec))
    if isinstance(s, fs.SingleDeviceSharding):
        return _JSingle(s._device)
    raise TypeError(f"no XLA placement for {s!r}")


_FROM_JAX: dict = {}


def from_jax(js, mesh: fs.Mesh | None = None):
    """The frontend sharding of a JAX sharding (``mesh``: the frontend mesh to use for a
    NamedSharding, when known)."""
    s = _FROM_JAX.get(js)
    if s is None:
        if isinstance(js, _JSingle):
            s = fs.SingleDeviceSharding(next(iter(js.device_set)))
        elif isinstance(js, _JNamed):
            m = mesh if mesh is not None else fs.Mesh(js.mesh.devices, js.mesh.axis_names)
            s = fs.NamedSharding(m, fs.PartitionSpec(*js.spec))
        else:
            raise TypeError(f"unexpected sharding {js!r}")
        if len(_FROM_JAX) > 4096:
            _FROM_JAX.clear()
        _FROM_JAX[js] = s
    return s


def sharding_of(buf):
    return from_jax(buf.sharding)


def is_sharded(buf) -> bool:
    """Whether a device buffer spans more than one device."""
    return type(buf.sharding) is not _JSingle


def shards(buf) -> list:
    """(device, index, replica id, single-device buffer) of each addressable shard."""
    return [(s.device, s.index, s.replica_id, s.data) for s in buf.addressable_shards]


# ----------------------------------------------------------------------------- transfers


def put(x: np.ndarray, s: fs.NamedSharding):
    """A global array of ``x`` (numpy, of a canonical dtype) laid out as ``s``; this process
    transfers the shards of its own devices."""
    idx = s.addressable_devices_indices_map(x.shape)
    devs = list(idx)
    aval = _core.ShapedArray(x.shape, x.dtype)
    wide = x.dtype in _WIDE and not _config.enable_x64.value
    return _xc.batched_device_put(aval, jax_sharding(s), [x[i] for i in idx.values()], devs,
                                  True, enable_x64=True if wide else None)


_REUSE = _xc.ArrayCopySemantics.REUSE_INPUT


def place(bufs: list, jshardings: list) -> list:
    """The buffers laid out as ``jshardings`` (unchanged where they already are; numpy
    arrays are transferred). A sharded array that does not match its placement is copied
    (JAX's argument handling)."""
    n = len(bufs)
    return _pxla.shard_args(jshardings, [None] * n, [_REUSE] * n, bufs, canonicalize=False)


def reshard(buf, s):
    return place([buf], [jax_sharding(s)])[0]


# ----------------------------------------------------------------------------- compile, run


def _named_from_hlo(op, meshes: list) -> fs.NamedSharding:
    """The NamedSharding of a sharding XLA chose (an OpSharding): on the first of ``meshes``
    (the program's meshes, the first ordering the partitions) that expresses it, else on a
    mesh made of its tile assignment (axes "_0", "_1", ...)."""
    hlo = _xc.HloSharding.from_proto(op)
    for m in meshes:
        try:
            spec = _si.parse_flatten_op_sharding(hlo, jax_mesh(m))[0]
        except (NotImplementedError, ValueError, KeyError):
            continue
        return fs.NamedSharding(m, fs.PartitionSpec(*spec))
    tiles = list(hlo.tile_assignment_dimensions())
    flat = list(meshes[0].devices.flat)
    devs = np.empty(len(flat), dtype=object)
    devs[:] = [flat[i] for i in hlo.tile_assignment_devices()]
    names = [f"_{k}" for k in range(len(tiles))]
    n_data = len(tiles) - (1 if hlo.replicate_on_last_tile_dim() else 0)
    spec = [names[k] if tiles[k] > 1 else None for k in range(n_data)]
    return fs.NamedSharding(fs.Mesh(devs.reshape(tiles), names), fs.PartitionSpec(*spec))


class SpmdExecutable(Executable):
    """A module compiled for the devices of a mesh (one partition per device)."""

    __slots__ = ("mesh", "in_shardings", "out_shardings", "_in_j", "_handlers", "_out_j",
                 "in_order")

    def __call__(self, bufs: list) -> list:
        res = self.loaded.execute_sharded(place(bufs, self._in_j))
        return res.consume_with_handlers(self._handlers)


def compile_spmd(text: str, meshes: list, in_shardings, out_shardings,
                 out_avals) -> SpmdExecutable:
    """Compile a module that carries Shardy shardings for the devices of its meshes
    (partition k on ``meshes[0].devices.flat[k]``). ``in_shardings``/``out_shardings``: one
    NamedSharding per argument / result where the module gives one, else None: those are
    left to the partitioner and read back from the executable."""
    mesh = meshes[0]
    devs = list(mesh.devices.flat)
    client = backend(devs[0].platform)
    opts = _xc.CompileOptions()
    opts.num_replicas = 1
    opts.num_partitions = len(devs)
    bo = opts.executable_build_options
    bo.use_spmd_partitioning = True
    bo.use_shardy_partitioner = True
    bo.allow_spmd_sharding_propagation_to_parameters = [s is None for s in in_shardings] or [False]
    bo.allow_spmd_sharding_propagation_to_output = [s is None for s in out_shardings] or [False]
    opts.device_assignment = _xc.DeviceAssignment.create(np.array([[d.id for d in devs]]))
    dl = _xc.DeviceList(tuple(devs))
    ffi.ensure_registered(text, devs[0].platform)
    loaded = cache.compile_or_load(
        text, devs[0], opts, lambda: client.compile_and_load(text, dl, opts),
        lambda blob: client.deserialize_executable(blob, dl, opts))
    exe = SpmdExecutable(loaded, devs[0], text, len(out_avals))
    exe.mesh = mesh
    exe.in_shardings = _chosen(in_shardings, loaded.get_parameter_shardings, meshes)
    exe.out_shardings = _chosen(out_shardings, loaded.get_output_shardings, meshes)
    exe._in_j = [jax_sharding(s) for s in exe.in_shardings]
    exe._out_j = [jax_sharding(s) for s in exe.out_shardings]
    order = [d for d in devs if d.process_index == devs[0].client.process_index()]
    # whether every result's sharding lists its devices in partition order (the C++ call
    # path builds results without reordering)
    exe.in_order = all(list(js._addressable_device_assignment) == order for js in exe._out_j)
    exe._handlers = [
        _xc.array_result_handler(_core.ShapedArray(a.shape, a.dtype, weak_type=a.weak_type), js,
                                 committed=True,
                                 # the results come in partition order: a sharding that
                                 # lists its devices in another order reorders them
                                 _skip_checks=list(js._addressable_device_assignment) == order)
        for a, js in zip(out_avals, exe._out_j, strict=True)]
    return exe


def _chosen(given, read_back, meshes) -> list:
    """The given shardings, the partitioner's choice for the others (replicated on a mesh of
    one device, where the partitioner does not run)."""
    if all(s is not None for s in given):
        return list(given)
    hlo = read_back() if meshes[0].size > 1 else None
    return [s if s is not None else _named_from_hlo(hlo[i], meshes) if hlo else
            fs.NamedSharding(meshes[0], fs.PartitionSpec()) for i, s in enumerate(given)]


# ----------------------------------------------------------------------------- processes


def initialize(coordinator_address, num_processes, process_id, local_device_ids=None,
               initialization_timeout: int = 300) -> None:
    """Join the distributed runtime (before the XLA backend starts): processes find each
    other through the coordinator, and CPU collectives between them run over gloo."""
    if backend.cache_info().currsize:
        raise RuntimeError("frontend.distributed.initialize() must be called before any "
                           "computation runs (the XLA backend has started)")
    _config.update("jax_cpu_collectives_implementation", "gloo")
    _distributed.initialize(coordinator_address, num_processes, process_id, local_device_ids,
                            initialization_timeout=initialization_timeout)


def shutdown() -> None:
    _distributed.shutdown()


def process_index() -> int:
    return backend().process_index()


def process_count() -> int:
    return _distributed.global_state.num_processes or 1


def local_devices(platform=None) -> list:
    return list(backend(platform).local_devices())
