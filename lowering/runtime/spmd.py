"""Programs over several devices (XLA's SPMD partitioner, Shardy) and several processes
(jaxlib's distributed runtime): sharded buffers, SPMD compile options, ``execute_sharded``.

A sharded buffer is jaxlib's global array (one buffer per addressable device) tagged with
JAX's sharding object of the same meaning as the frontend's (``jax_sharding``): jaxlib's
array type, its transfers and its C++ call path require those. The frontend never sees them;
``from_jax`` turns them back into ``frontend.sharding`` objects.
"""
from __future__ import annotations

import functools
import itertools
import math

import numpy as np
from jaxlib import _jax
from jaxlib import xla_client as _xc

from frontend import sharding as fs

from . import cache, ffi, mlir
from .xla import (
    _WIDE,
    Executable,
    aval,
    backend,
    jax_module,
    shard_buffers,
    single_device_sharding,
    started,
)
from .xla import distributed as _dist
from .xla import to_device as _to_device
from .xla import to_host as _one_host
from .xla import x64_state as _x64_state

# ----------------------------------------------------------------------------- conversions


def _mesh_positions(mesh: fs.Mesh):
    return np.arange(mesh.size).reshape(mesh.devices.shape)


def _op_sharding(mesh: fs.Mesh, spec_dims: tuple):
    """XLA's OpSharding of a NamedSharding's dims (tuples of mesh axis names, one per
    dimension of the value; devices numbered by their place in ``mesh.devices.flat``)."""
    sizes = dict(zip(mesh.axis_names, mesh.devices.shape, strict=True))
    used = [n for e in spec_dims for n in e]
    rest = [n for n in mesh.axis_names if n not in used]
    tiles = [math.prod(sizes[n] for n in e) for e in spec_dims]
    rep = math.prod(sizes[n] for n in rest)
    op = _xc.OpSharding()
    if math.prod(tiles) == 1:
        op.type = _xc.OpSharding.Type.REPLICATED
        return op
    order = [mesh.axis_names.index(n) for n in used + rest]
    devs = _mesh_positions(mesh).transpose(order).reshape(tiles + ([rep] if rep > 1 else []))
    op.type = _xc.OpSharding.Type.OTHER
    op.tile_assignment_dimensions = list(devs.shape)
    op.tile_assignment_devices = [int(i) for i in devs.flat]
    op.replicate_on_last_tile_dim = rep > 1
    return op


# id of a jaxlib sharding -> (it, its frontend sharding): by identity, as two meshes of the
# same devices give equal XLA shardings (a program's results carry the very objects made here)
_FROM_JAX: dict = {}


_FOREIGN: dict = {}  # shardings made elsewhere (XLA's, JAX's) -> frontend sharding


def _remember(js, s) -> None:
    _FROM_JAX[id(js)] = (js, s)


@functools.lru_cache(maxsize=4096)
def jax_sharding(s, ndim: int):
    """jaxlib's sharding object for a frontend sharding, for values of rank ``ndim``."""
    if isinstance(s, fs.SingleDeviceSharding):
        return single_device_sharding(s._device)
    if not isinstance(s, fs.NamedSharding):
        raise TypeError(f"no XLA placement for {s!r}")
    backend()  # the sharding types are complete
    js = _jax.GSPMDSharding(list(s.mesh.devices.flat), _op_sharding(s.mesh, s.dims(ndim)))
    _remember(js, s)
    return js


def _gspmd_eq(a, b):
    return a is b or (isinstance(b, _jax.GSPMDSharding) and a._devices == b._devices
                      and a._hlo_sharding == b._hlo_sharding
                      and a._memory_kind == b._memory_kind)


def _gspmd_hash(a):
    return hash((a._devices, a._hlo_sharding))


if not hasattr(_jax.GSPMDSharding, "_vmaplab_eq") and jax_module("jax.sharding") is None:
    # equality by meaning (JAX defines the same when imported)
    _jax.GSPMDSharding.__eq__ = _gspmd_eq
    _jax.GSPMDSharding.__hash__ = _gspmd_hash
    _jax.GSPMDSharding._vmaplab_eq = True


def from_jax(js, mesh: fs.Mesh | None = None):
    """The frontend sharding of a jaxlib/JAX sharding (``mesh``: the frontend mesh to use
    for a NamedSharding, when known)."""
    known = _FROM_JAX.get(id(js))
    if known is not None and known[0] is js:
        return known[1]
    s = _FOREIGN.get(js)
    if s is None:
        if isinstance(js, _jax.SingleDeviceSharding):
            s = fs.SingleDeviceSharding(js._device)
        elif isinstance(js, _jax.GSPMDSharding):
            devs = np.empty(len(js._devices), dtype=object)
            devs[:] = list(js._devices)
            flat = fs.Mesh(devs, ("_flat",))
            s = _named_from_hlo(js._hlo_sharding, [mesh] if mesh is not None else [flat])
        elif isinstance(js, _jax.NamedSharding):  # made by JAX (loaded)
            m = mesh if mesh is not None else fs.Mesh(js.mesh.devices, js.mesh.axis_names)
            s = fs.NamedSharding(m, fs.PartitionSpec(*js.spec))
        else:
            raise TypeError(f"unexpected sharding {js!r}")
        if len(_FOREIGN) > 4096:
            _FOREIGN.clear()
        _FOREIGN[js] = s
    return s


def sharding_of(buf):
    return from_jax(buf._sharding)


def is_sharded(buf) -> bool:
    """Whether a device buffer spans more than one device."""
    return type(buf._sharding) is not _jax.SingleDeviceSharding


def shards(buf) -> list:
    """(device, index, replica id, single-device buffer) of each addressable shard."""
    if not is_sharded(buf):
        return [(buf._sharding._device, (slice(None),) * len(buf.aval.shape), 0, buf)]
    idx = sharding_of(buf).devices_indices_map(buf.aval.shape)
    seen: dict = {}
    replica = {}
    for d, i in idx.items():
        k = tuple((sl.start, sl.stop) for sl in i)
        replica[d] = seen.get(k, 0)
        seen[k] = replica[d] + 1
    out = []
    for data in shard_buffers(buf):
        d = data._sharding._device
        out.append((d, idx[d], replica[d], data))
    return out


# ----------------------------------------------------------------------------- transfers


def put(x: np.ndarray, s: fs.NamedSharding):
    """A global array of ``x`` (numpy, of a canonical dtype) laid out as ``s``; this process
    transfers the shards of its own devices."""
    idx = s.addressable_devices_indices_map(x.shape)
    devs = list(idx)
    return _xc.batched_device_put(aval(x.shape, x.dtype), jax_sharding(s, x.ndim),
                                  [x[i] for i in idx.values()], devs, True,
                                  enable_x64=True if x.dtype in _WIDE else None)


_NARROW = {np.dtype(np.float64): np.float32, np.dtype(np.int64): np.int32,
           np.dtype(np.uint64): np.uint32, np.dtype(np.complex128): np.complex64}


def to_host(buf) -> np.ndarray:
    """The value of any device buffer (on one device or several) as a read-only numpy array."""
    if not is_sharded(buf) or jax_module("jax._src.array") is not None:
        return _one_host(buf)
    out = None
    for _, index, _, data in shards(buf):
        v = _one_host(data)
        if out is None:
            out = np.empty(buf.aval.shape, v.dtype)
        out[index] = v
    out.flags.writeable = False
    return out


def _host_value(x) -> np.ndarray:
    """A host array of ``x`` (a buffer, numpy array or Python scalar) in a canonical dtype."""
    v = to_host(x) if isinstance(x, _jax.ArrayImpl) else np.asarray(x)
    if v.dtype in _NARROW and not _x64_state().value:
        v = v.astype(_NARROW[v.dtype])
    return v


def place(bufs: list, jshardings: list) -> list:
    """The buffers laid out as ``jshardings`` (unchanged where they already are; numpy
    arrays and scalars are transferred, buffers laid out otherwise copied)."""
    out = []
    for x, js in zip(bufs, jshardings, strict=True):
        if isinstance(x, _jax.ArrayImpl) and (x._sharding is js or x._sharding == js):
            out.append(x)
            continue
        v = _host_value(x)
        if isinstance(js, _jax.SingleDeviceSharding):
            out.append(_to_device(v, js._device))
        else:
            out.append(put(v, from_jax(js)))
    return out


def reshard(buf, s):
    return place([buf], [jax_sharding(s, len(buf.aval.shape))])[0]


# ----------------------------------------------------------------------------- compile, run


def _named_from_hlo(op, meshes: list) -> fs.NamedSharding:
    """The NamedSharding of a sharding XLA chose (an OpSharding): on the first of ``meshes``
    (the program's meshes, the first ordering the partitions) that expresses it, else on a
    mesh made of its tile assignment (axes "_0", "_1", ...)."""
    hlo = op if isinstance(op, _xc.HloSharding) else _xc.HloSharding.from_proto(op)
    for m in meshes:
        spec = _spec_on(hlo, m)
        if spec is not None:
            return fs.NamedSharding(m, fs.PartitionSpec(*spec))
    tiles = list(hlo.tile_assignment_dimensions())
    flat = list(meshes[0].devices.flat)
    devs = np.empty(len(flat), dtype=object)
    devs[:] = [flat[i] for i in hlo.tile_assignment_devices()]
    names = [f"_{k}" for k in range(len(tiles))]
    n_data = len(tiles) - (1 if hlo.replicate_on_last_tile_dim() else 0)
    spec = [names[k] if tiles[k] > 1 else None for k in range(n_data)]
    return fs.NamedSharding(fs.Mesh(devs.reshape(tiles), names), fs.PartitionSpec(*spec))


def _spec_on(hlo, mesh: fs.Mesh):
    """The partition spec over ``mesh`` whose HLO sharding is ``hlo``, or None."""
    if hlo.is_replicated():
        return ()
    tiles = list(hlo.tile_assignment_dimensions())
    ndim = len(tiles) - (1 if hlo.replicate_on_last_tile_dim() else 0)
    if len(hlo.subgroup_types()) > (1 if hlo.replicate_on_last_tile_dim() else 0):
        return None
    sizes = dict(zip(mesh.axis_names, mesh.devices.shape, strict=True))
    names = [n for n in mesh.axis_names if sizes[n] > 1]

    def options(t, free):  # ordered tuples of free axes whose sizes multiply to t
        if t == 1:
            return [()]
        return [c for r in range(1, len(free) + 1) for c in itertools.permutations(free, r)
                if math.prod(sizes[n] for n in c) == t]

    def search(k, free):
        if k == ndim:
            yield ()
            return
        for c in options(tiles[k], free):
            for rest in search(k + 1, [n for n in free if n not in c]):
                yield (c,) + rest

    for dims in search(0, names):
        if _xc.HloSharding.from_proto(_op_sharding(mesh, dims)) == hlo:
            while dims and not dims[-1]:
                dims = dims[:-1]
            return tuple(None if not e else e[0] if len(e) == 1 else e for e in dims)
    return None


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
    ranks = [len(shape) for shape, _ in mlir.text_signature(text)[0]]
    exe._in_j = [jax_sharding(s, r) for s, r in zip(exe.in_shardings, ranks, strict=True)]
    # the results come in partition order: each result's sharding lists its devices so
    exe._out_j = [_in_partition_order(s, len(a.shape), devs)
                  for s, a in zip(exe.out_shardings, out_avals, strict=True)]
    exe.in_order = True  # (the C++ call path builds results without reordering)
    exe._handlers = [
        _xc.array_result_handler(aval(a.shape, a.dtype, a.weak_type), js, committed=True,
                                 _skip_checks=True)
        for a, js in zip(out_avals, exe._out_j, strict=True)]
    return exe


def _in_partition_order(s, ndim: int, devs: list):
    """jaxlib's sharding of ``s`` listing its devices in the order of ``devs``."""
    js = jax_sharding(s, ndim)
    if isinstance(s, fs.SingleDeviceSharding) or list(s.mesh.devices.flat) == devs:
        return js
    op = _op_sharding(s.mesh, s.dims(ndim))
    if op.type == _xc.OpSharding.Type.OTHER:
        flat = list(s.mesh.devices.flat)
        op.tile_assignment_devices = [devs.index(flat[i]) for i in op.tile_assignment_devices]
    js = _jax.GSPMDSharding(devs, op)
    _remember(js, s)
    return js


def _chosen(given, read_back, meshes) -> list:
    """The given shardings, the partitioner's choice for the others (replicated on a mesh of
    one device, where the partitioner does not run)."""
    if all(s is not None for s in given):
        return list(given)
    hlo = read_back() if meshes[0].size > 1 else None
    return [s if s is not None else _named_from_hlo(hlo[i], meshes) if hlo else
            fs.NamedSharding(meshes[0], fs.PartitionSpec()) for i, s in enumerate(given)]


# ----------------------------------------------------------------------------- processes

def initialize(coordinator_address, num_processes, process_id, local_device_ids=None,  # noqa: ARG001
               initialization_timeout: int = 300) -> None:
    """Join the distributed runtime (before the XLA backend starts): processes find each
    other through the coordinator, and CPU collectives between them run over gloo
    (``local_device_ids`` selects GPUs, which the CPU client has not)."""
    if started():
        raise RuntimeError("frontend.distributed.initialize() must be called before any "
                           "computation runs (the XLA backend has started)")
    if _dist["client"] is not None:
        raise RuntimeError("frontend.distributed.initialize() should only be called once.")
    if process_id == 0:
        _dist["service"] = _jax.get_distributed_runtime_service(
            "[::]:" + coordinator_address.rsplit(":", 1)[1], num_processes,
            heartbeat_timeout=100, shutdown_timeout=300)
    client = _jax.get_distributed_runtime_client(
        coordinator_address, process_id, init_timeout=initialization_timeout,
        use_compression=True, heartbeat_timeout=100)
    client.connect()
    _dist.update(client=client, process_id=process_id, num_processes=num_processes)


def shutdown() -> None:
    if _dist["client"] is not None:
        _dist["client"].shutdown()
    if _dist["service"] is not None:
        _dist["service"].shutdown()
    _dist.update(client=None, service=None, process_id=0, num_processes=1)


def process_index() -> int:
    return backend().process_index()


def process_count() -> int:
    return _dist["num_processes"]


def local_devices(platform=None) -> list:
    return list(backend(platform).local_devices())
