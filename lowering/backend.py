"""What the frontend needs from a backend: compile a Graph, move buffers, name devices."""
from __future__ import annotations

import functools

import numpy as np

from frontend import sharding as fs
from frontend.core import dtypes
from frontend.core import ir as core
from frontend.core.ir import Aval, Graph, Var
from frontend.core.pytree import NodeData
from frontend.device.array import Array, results_from_buffers

from . import (
    emit,  # noqa: F401  (registers the emitters)
    runtime,
)
from .emit.module import lower_graph

to_host = runtime.to_host
is_buffer = runtime.is_device_buffer
adopt = runtime.adopt  # a jax.Array's buffer as an operand (no copy), or None
from_dlpack = runtime.from_dlpack


def as_jax_array(buf):
    """A device buffer as a jax.Array: it is one already (jaxlib's array type)."""
    return buf


def devices(platform=None):
    return runtime.devices(platform)


def default_device():
    return runtime.default_device()


def to_device(x: np.ndarray, device=None):
    """A device buffer of ``x``: on ``device``, or laid out as a NamedSharding says."""
    if isinstance(device, fs.NamedSharding):
        return runtime.spmd.put(x, device)
    return runtime.to_device(x, device)


def register_ffi_target(name: str, fn, platform: str = "cpu") -> None:
    runtime.ffi.register(name, fn, platform)


def ffi_include_dir() -> str:
    return runtime.ffi.include_dir()


# ----------------------------------------------------------------------------- several devices
sharding_of = runtime.spmd.sharding_of
shards = runtime.spmd.shards
reshard = runtime.spmd.reshard
process_index = runtime.spmd.process_index
process_count = runtime.spmd.process_count
local_devices = runtime.spmd.local_devices
initialize_distributed = runtime.spmd.initialize
shutdown_distributed = runtime.spmd.shutdown


def arg_shardings(bufs) -> tuple | None:
    """The shardings of the buffers that span several devices (None for the others, and for
    entries that are None); None when no buffer does."""
    out = None
    for i, b in enumerate(bufs):
        if b is not None and runtime.spmd.is_sharded(b):
            out = out or [None] * len(bufs)
            out[i] = runtime.spmd.sharding_of(b)
    return None if out is None else tuple(out)


_PLAIN = (int, bool, str, float, type(None), np.dtype)
_PLAIN_TYPES = frozenset(_PLAIN)  # (a set lookup for the exact types, the common case)


def _graph_meshes(g: Graph, acc: list) -> None:
    for e in g.eqns:
        if not e.params:
            continue
        for v in e.params.values():
            t = type(v)
            if t in _PLAIN_TYPES:
                continue
            for x in (v if t is tuple else (v,)):
                tx = type(x)
                if tx is tuple or tx in _PLAIN_TYPES or isinstance(x, _PLAIN):
                    continue  # (dimension numbers and other plain tuples hold no mesh)
                m = x.mesh if isinstance(x, fs.NamedSharding) else x if isinstance(x, fs.Mesh) \
                    else None
                if m is not None and m not in acc:
                    acc.append(m)
                elif isinstance(x, Graph):
                    _graph_meshes(x, acc)


def _placement(graph: Graph, idx: tuple, in_shardings, out_shardings, device):
    """(meshes or None, shardings of the hoisted constants ``idx``, in_shardings,
    out_shardings, device) of a program: the NamedShardings of its arguments, results,
    sharded constants and equations are on meshes of the same devices (the first one met
    orders the partitions); SingleDeviceShardings place a program without one on their
    device (and are left to the partitioner in one with a mesh)."""
    meshes: list = []
    singles: set = set()
    consts = tuple(sharding_of(c._buf) if isinstance(c, Array) and runtime.spmd.is_sharded(c._buf)
                   else None for c in (graph.consts[i] for i in idx))
    for s in consts + (in_shardings or ()) + (out_shardings or ()):
        if isinstance(s, fs.NamedSharding) and s.mesh not in meshes:
            meshes.append(s.mesh)
        elif isinstance(s, fs.SingleDeviceSharding):
            singles.add(s._device)
    _graph_meshes(graph, meshes)
    ids = {tuple(sorted(m.device_ids.ravel().tolist())) for m in meshes}
    if len(ids) > 1 or (not meshes and len(singles) > 1):
        what = [f"{m!r} (device ids {sorted(m.device_ids.ravel().tolist())})" for m in meshes] + \
            [f"device {d.id}" for d in singles]
        raise ValueError("Received incompatible devices for jitted computation: shardings on "
                         + " and ".join(what))
    named = lambda shs: tuple(s if isinstance(s, fs.NamedSharding) else None  # noqa: E731
                              for s in shs) if shs else None
    if not meshes:
        if singles:
            d = singles.pop()
            if device is not None and device != d:
                raise ValueError(f"jit got device={device} and shardings on device {d}")
            device = d
        return None, None, None, None, device
    if device is not None:
        raise ValueError("a program with shardings runs on the devices of its mesh: do not "
                         f"pass device={device!r} too")
    return meshes, consts, named(in_shardings), named(out_shardings), None


def const_args(graph: Graph) -> tuple:
    """Indices of the graph's constants that become leading arguments of @main instead of
    text in the module: those above ``config.embedded_constants_max_bytes`` (as JAX's
    ``jax_embedded_constants_max_bytes``), so that module text, verification and XLA's parse
    stay small."""
    limit = dtypes.config.embedded_constants_max_bytes
    return tuple(i for i, v in enumerate(graph.constvars)
                 if v.aval.size * v.aval.dtype.itemsize > limit)


def lower(graph: Graph, in_shardings=None, out_shardings=None) -> str:
    idx = const_args(graph)
    _, consts, ins, outs, _ = _placement(graph, idx, in_shardings, out_shardings, None)
    return lower_graph(graph, const_args=idx, in_shardings=ins, out_shardings=outs,
                       const_shardings=consts)


def lower_self_contained(graph: Graph) -> str:
    """The module with every constant written into it (none hoisted to @main's arguments):
    what a portable artifact holds, since its callers pass only the function's arguments."""
    return lower_graph(graph)


class _ConstArgs:
    """The hoisted constants of a compiled graph as device buffers, made at the first run
    (an Array's own buffer when it is on the device, else one transfer) and kept.
    ``places``: a device, or one placement (device or NamedSharding) per constant."""

    __slots__ = ("values", "places", "_bufs")

    def __init__(self, graph: Graph, idx: tuple, places):
        self.values = [graph.consts[i] for i in idx]
        self.places = places if isinstance(places, list) else [places] * len(idx)
        self._bufs = None

    def buffers(self) -> list:
        if self._bufs is None:
            self._bufs = [c._buf if isinstance(c, Array) and c.device == p
                          else to_device(np.asarray(c), p)
                          for c, p in zip(self.values, self.places)]
        return self._bufs


class Compiled:
    """A graph compiled for one device: call with a list of device buffers."""

    __slots__ = ("text", "exe", "device", "graph", "consts")

    def __init__(self, graph: Graph, text: str, device, const_idx: tuple = ()):
        self.graph = graph
        self.text = text
        self.device = device
        self.consts = _ConstArgs(graph, const_idx, device) if const_idx else None
        self.exe = runtime.compile_text(text, device, len(graph.outvars))

    def __call__(self, bufs):
        if self.consts is not None:
            bufs = self.consts.buffers() + list(bufs)
        return self.exe.loaded.execute(bufs)

    def as_text(self) -> str:
        return self.exe.hlo_text()

    def cost_analysis(self):
        return self.exe.cost_analysis()


class ShardedCompiled:
    """A graph compiled for the devices of a mesh (XLA's SPMD partitioner): call with a list
    of device buffers (placed as ``arg_shardings`` says, resharded when they are not)."""

    __slots__ = ("text", "exe", "device", "graph", "consts", "mesh", "arg_shardings")

    def __init__(self, graph: Graph, text: str, meshes: list, const_idx: tuple, in_shardings,
                 out_shardings):
        """``in_shardings``: of the hoisted constants, then of the arguments."""
        self.graph = graph
        self.text = text
        self.mesh = meshes[0]
        self.device = None
        k = len(const_idx)
        ins = list(in_shardings)
        outs = list(out_shardings or [None] * len(graph.outvars))
        self.exe = runtime.spmd.compile_spmd(text, meshes, ins, outs, graph.out_avals)
        self.arg_shardings = tuple(self.exe.in_shardings[k:])
        self.consts = _ConstArgs(graph, const_idx, list(self.exe.in_shardings[:k])) if k else None

    def __call__(self, bufs):
        if self.consts is not None:
            bufs = self.consts.buffers() + list(bufs)
        return self.exe(list(bufs))

    def as_text(self) -> str:
        """XLA's partitioned, optimized HLO (one device's program, with its collectives)."""
        return self.exe.hlo_text()

    def cost_analysis(self):
        return self.exe.cost_analysis()


def compile_graph(graph: Graph, device=None, text: str | None = None, in_shardings=None,
                  out_shardings=None):
    """Compile ``graph`` (``text``: its module from ``lower``, when already lowered) for
    ``device``, or for the devices of the mesh its shardings name (``in_shardings`` /
    ``out_shardings``: one Sharding or None per argument / result, and those of its
    equations)."""
    idx = const_args(graph) if graph.consts else ()
    meshes, consts, ins, outs, device = _placement(graph, idx, in_shardings, out_shardings,
                                                   device)
    if text is None:
        text = lower_graph(graph, const_args=idx, in_shardings=ins, out_shardings=outs,
                           const_shardings=consts)
    if meshes is not None:
        return ShardedCompiled(graph, text, meshes, idx, consts + (ins or (None,) * len(
            graph.invars)), outs)
    if isinstance(device, str):
        return compile_named(graph, device, text, idx)  # e.g. "interpreter" (end of file)
    return Compiled(graph, text, runtime.default_device() if device is None else device, idx)


# ----------------------------------------------------------------------------- testbed: MLIR
compiler_ir = runtime.mlir.compiler_ir
run_mlir_pipeline = runtime.mlir.run_pipeline
check_compilable = runtime.mlir.check_compilable
apply_patterns = runtime.mlir.apply_patterns
MLIR_PASSES = runtime.mlir.MLIR_PASSES


def stablehlo_signature(module):
    """(normalized text, argument avals, result avals) of a StableHLO module (text or an
    ir.Module) that XLA can compile; ValueError otherwise."""
    text = runtime.mlir.module_text(runtime.mlir.parse_module(runtime.mlir.module_text(module)))
    ins, outs = runtime.mlir.main_signature(text)
    check_compilable(text)
    return text, [Aval(s, d) for s, d in ins], [Aval(s, d) for s, d in outs]


def compile_module(text: str, in_avals, out_avals, device=None):
    """Compile module text of a known signature (a Graph without equations stands for it:
    only its argument and result types are read)."""
    check_custom_calls(text, "compile_stablehlo")
    sig = Graph(tuple(Var(a) for a in in_avals), (), (), (), tuple(Var(a) for a in out_avals))
    return compile_graph(sig, device, text)


def check_custom_calls(text: str, what: str) -> None:
    """A ValueError naming the first custom call of a module from elsewhere (an artifact,
    a hand-written module) that this process may not run (see lowering/custom_calls.py)."""
    from . import custom_calls
    custom_calls.check(text, what)


# ----------------------------------------------------------------------------- testbed: artifacts
serialize_artifact = runtime.artifact.serialize
deserialize_artifact = runtime.artifact.deserialize
check_stablehlo_version = runtime.artifact.check_version
exported_callee = runtime.artifact.callee
read_jax_export = runtime.artifact.read_jax
write_jax_export = runtime.artifact.write_jax


def stablehlo_versions() -> tuple:
    """(oldest, newest) StableHLO version this jaxlib reads and writes."""
    return runtime.artifact.minimum_version(), runtime.artifact.current_version()


def platform_of(device=None) -> str:
    """The platform name of ``device`` ('cpu', 'gpu', ...; named devices run on the default
    XLA device's platform)."""
    d = runtime.default_device() if device is None or isinstance(device, str) else device
    return d.platform


# the C++ dispatch path (see runtime/dispatch.py)
dispatcher = runtime.dispatch.dispatcher
clear_dispatchers = runtime.dispatch.clear_dispatchers
jax_x64_enabled = runtime.dispatch.jax_x64_enabled


def results_aux(outs, out_avals):
    """How the C++ path rebuilds ``outs`` (a pytree of Arrays of ``out_avals``) from the
    output buffers (see frontend.device.array.results_from_buffers); None when its leaves are not
    those Arrays."""
    leaves, td = runtime.dispatch.flatten_up_to(outs, _is_array)
    if len(leaves) != len(out_avals) or any(type(x) is not Array for x in leaves):
        return None
    return (None if runtime.dispatch.is_leaf_treedef(td) else td), tuple(out_avals)


def _is_array(x) -> bool:
    return type(x) is Array


def fastpath_data(compiled: Compiled, n_in: int, outs, out_avals):
    aux = results_aux(outs, out_avals)
    if aux is None:
        return None
    consts = compiled.consts.buffers() if compiled.consts is not None else []
    if isinstance(compiled, ShardedCompiled):
        if not compiled.exe.in_order:
            return None
        return runtime.dispatch.fastpath_data(compiled.exe.loaded, None, n_in, aux, out_avals,
                                              consts, compiled.exe._in_j, compiled.exe._out_j)
    return runtime.dispatch.fastpath_data(compiled.exe.loaded, compiled.device, n_in, aux,
                                          out_avals, consts)


def register_pytree_node(cls, flatten, unflatten) -> None:
    """Let the C++ dispatcher flatten a user's pytree node type as the frontend does (its
    aux data wrapped in a hashable NodeData). A type JAX's own registry already has (the
    user registered it with both) keeps that registration."""
    try:
        runtime.dispatch.register_node(cls, lambda x: _node_flatten(cls, flatten, x),
                                       lambda nd, children: unflatten(nd.aux, list(children)))
    except ValueError:
        pass


def _node_flatten(cls, flatten, x):
    children, aux = flatten(x)
    return tuple(children), NodeData(cls, aux)


@functools.cache
def register_arrays() -> None:
    """Register the frontend's Array with the C++ dispatcher (once): its buffer is the
    child, its aval the static data; results come back as Arrays through
    ``frontend.device.array.results_from_buffers``."""
    runtime.dispatch.register_array_type(Array, "_buf", "aval")
    runtime.dispatch.set_results_builder(results_from_buffers)
    # the C++ path serves no call made under a trace: entering one changes its cache key
    core.trace_hooks.append(lambda t: runtime.dispatch.set_in_trace(t is not core.EVAL))
    runtime.dispatch.set_in_trace(core.current_trace() is not core.EVAL)


dispatch_in_trace = runtime.dispatch.in_trace


# ----------------------------------------------------------------------------- named devices
# ``device="interpreter"``: the StableHLO reference interpreter instead of XLA. Arguments and
# results live on the default XLA device, so the frontend sees ordinary Arrays.

INTERPRETER = runtime.interpreter.INTERPRETER


def is_device(d) -> bool:
    """Whether ``d`` names a place to run: an XLA device, or "interpreter"."""
    return d == INTERPRETER if isinstance(d, str) else runtime.is_device(d)


class InterpretedCompiled:
    """A graph run by the StableHLO reference interpreter (same interface as Compiled)."""

    __slots__ = ("text", "exe", "device", "graph", "consts")

    def __init__(self, graph: Graph, text: str, const_idx: tuple = ()):
        self.graph = graph
        self.text = text
        self.device = INTERPRETER
        xla = runtime.default_device()
        self.consts = _ConstArgs(graph, const_idx, xla) if const_idx else None
        in_avals = tuple(graph.constvars[i].aval for i in const_idx) + graph.in_avals
        self.exe = runtime.interpreter.InterpretedExecutable(text, in_avals, graph.out_avals, xla)

    def __call__(self, bufs):
        if self.consts is not None:
            bufs = self.consts.buffers() + list(bufs)
        return self.exe(bufs)

    def as_text(self) -> str:
        return self.exe.hlo_text()

    def cost_analysis(self):
        return self.exe.cost_analysis()


def compile_named(graph: Graph, device: str, text: str, const_idx: tuple = ()):
    if device != INTERPRETER:
        raise ValueError(f"unknown device {device!r}: pass an XLA device (frontend.devices()) "
                         f"or {INTERPRETER!r}")
    return InterpretedCompiled(graph, text, const_idx)


_xla_to_device = to_device
_xla_fastpath_data = fastpath_data


def to_device(x: np.ndarray, device=None):  # noqa: F811  (named devices keep data on XLA's)
    return _xla_to_device(x, None if isinstance(device, str) else device)


def fastpath_data(compiled, n_in: int, outs, out_avals):  # noqa: F811
    if isinstance(compiled, InterpretedCompiled):
        return None  # the interpreter never takes the C++ call path
    return _xla_fastpath_data(compiled, n_in, outs, out_avals)
