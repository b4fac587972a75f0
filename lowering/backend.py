"""The interface the frontend calls through its one seam (frontend/device/seam.py): lower
and compile a Graph, move buffers, name devices, and the testbed's MLIR, artifact and FFI
entry points. Every name in ``__all__`` is asked for by name from the frontend; the work is
done by runtime/ (jaxlib), emit/ (StableHLO text), placement.py, executables.py and
fastpath.py."""
from __future__ import annotations

from frontend.core.config import config
from frontend.core.ir import Aval, Graph, Var

from . import (
    emit,  # noqa: F401  (registers the emitters)
    runtime,
)
from .emit.module import lower_graph
from .executables import Compiled, InterpretedCompiled, ShardedCompiled
from .fastpath import (
    clear_dispatchers,
    dispatch_in_trace,
    dispatcher,
    fastpath_data,
    jax_x64_enabled,
    register_arrays,
    register_pytree_node,
)
from .placement import arg_shardings, placement, to_device

__all__ = [
    # buffers and devices
    "to_host", "to_device", "is_buffer", "adopt", "from_dlpack", "as_jax_array", "devices",
    "buffer_devices", "dlpack", "dlpack_device", "Device", "JaxRuntimeError",
    "jaxlib_version", "profiler",
    "is_device", "sharding_of", "shards", "reshard", "arg_shardings",
    "process_index", "process_count", "local_devices", "initialize_distributed",
    "shutdown_distributed",
    # graphs to programs
    "lower", "lower_self_contained", "lowering_platform", "compile_graph", "stablehlo_signature",
    "compile_module", "check_custom_calls", "effects_barrier",
    # the C++ call path
    "dispatcher", "clear_dispatchers", "jax_x64_enabled", "dispatch_in_trace", "fastpath_data",
    "register_arrays", "register_pytree_node",
    # testbed: MLIR, artifacts, FFI
    "compiler_ir", "hlo_text", "run_mlir_pipeline", "check_compilable", "apply_patterns", "MLIR_PASSES",
    "serialize_artifact", "deserialize_artifact", "check_stablehlo_version", "exported_callee", "exported_for_platform",
    "refine_exported", "exported_main_dims",
    "read_jax_export", "write_jax_export", "stablehlo_versions", "register_ffi_target",
    "ffi_include_dir", "mlir_builder_modules", "build_mlir_function",
    # the explorer page (lowering/explore, imported when first asked for)
    "explore_page", "graph_html", "lowered_html",
    # the persistent compilation cache
    "compilation_cache_stats", "reset_compilation_cache_stats",
]

# ----------------------------------------------------------------------------- buffers, devices
to_host = runtime.to_host
is_buffer = runtime.is_device_buffer
Device = runtime.Device
JaxRuntimeError = runtime.JaxRuntimeError
jaxlib_version = runtime.jaxlib_version
profiler = runtime.profiler  # (jaxlib's profiler: sessions, TraceMe, server, memory profile)
adopt = runtime.adopt  # a jax.Array's buffer as an operand (no copy), or None
from_dlpack = runtime.from_dlpack
buffer_devices = runtime.xla.buffer_devices
dlpack = runtime.xla.dlpack  # a buffer's DLPack capsule
dlpack_device = runtime.xla.dlpack_device
as_jax_array = runtime.xla.as_jax_array  # the same buffer, with JAX's aval
compilation_cache_stats = runtime.cache.stats_copy
reset_compilation_cache_stats = runtime.cache.reset_stats
sharding_of = runtime.spmd.sharding_of
shards = runtime.spmd.shards
reshard = runtime.spmd.reshard
process_index = runtime.spmd.process_index
process_count = runtime.spmd.process_count
local_devices = runtime.spmd.local_devices
initialize_distributed = runtime.spmd.initialize
shutdown_distributed = runtime.spmd.shutdown


def devices(platform=None):
    return runtime.devices(platform)


def is_device(d) -> bool:
    """Whether ``d`` names a place to run: an XLA device, or "interpreter"."""
    return d == runtime.interpreter.INTERPRETER if isinstance(d, str) else runtime.is_device(d)


# ----------------------------------------------------------------------------- graphs to programs


def const_args(graph: Graph) -> tuple:
    """Indices of the graph's constants that become leading arguments of @main instead of
    text in the module: those above ``config.embedded_constants_max_bytes`` (as JAX's
    ``jax_embedded_constants_max_bytes``), so that module text, verification and XLA's parse
    stay small."""
    limit = config.embedded_constants_max_bytes
    return tuple(i for i, v in enumerate(graph.constvars)
                 if v.aval.size * v.aval.dtype.itemsize > limit)


def lowering_platform(device=None) -> str:
    """The lowering platform (JAX's name: "cpu", "cuda", "rocm", "tpu") of ``device``
    (default: the default device; a named device runs on the default one)."""
    d = runtime.default_device() if device is None or isinstance(device, str) else device
    p = d.platform
    if p == "gpu":  # jaxlib's name for both GPU kinds; the client's version tells them apart
        return "rocm" if "rocm" in str(getattr(d.client, "platform_version", "")).lower() \
            else "cuda"
    return p


def lower(graph: Graph, in_shardings=None, out_shardings=None, platforms=None,
          debug_info: bool = False, aliases: tuple = ()) -> str:
    """The module of ``graph`` for ``platforms`` (JAX's names; default: the default
    device's platform). Lowering never needs the platforms' devices or plugins.
    ``aliases``: (argument, result) pairs of donated arguments (see lower_graph)."""
    idx = const_args(graph)
    meshes, consts, ins, outs, _ = placement(graph, idx, in_shardings, out_shardings, None)
    return lower_graph(graph, const_args=idx, in_shardings=ins, out_shardings=outs,
                       const_shardings=consts,
                       platforms=tuple(platforms) if platforms else (lowering_platform(),),
                       debug_info=debug_info, aliases=aliases)


def explore_page(fn, args, kwargs, **options):
    from .explore import explore_page
    return explore_page(fn, args, kwargs, **options)


def graph_html(graph: Graph) -> str:
    from .explore import graph_html
    return graph_html(graph)


def lowered_html(lowered) -> str:
    from .explore import lowered_html
    return lowered_html(lowered)


def lower_self_contained(graph: Graph, platforms=None) -> str:
    """The module with every constant written into it (none hoisted to @main's arguments):
    what a portable artifact holds, since its callers pass only the function's arguments;
    for ``platforms`` (default: the default device's)."""
    return lower_graph(graph, platforms=tuple(platforms) if platforms else (lowering_platform(),))


def compile_graph(graph: Graph, device=None, text: str | None = None, in_shardings=None,
                  out_shardings=None, aliases: tuple = ()):
    """Compile ``graph`` (``text``: its module from ``lower``, when already lowered) for
    ``device`` (an XLA device, or "interpreter"), or for the devices of the mesh its
    shardings name (``in_shardings`` / ``out_shardings``: one Sharding or None per argument
    / result, and those of its equations); ``aliases``: (argument, result) pairs of donated
    arguments (one device only). Returns an executables.Executable."""
    idx = const_args(graph) if graph.consts else ()
    meshes, consts, ins, outs, device = placement(graph, idx, in_shardings, out_shardings,
                                                  device)
    if text is None:  # (for XLA with source locations: its metadata names Python lines)
        text = lower_graph(graph, const_args=idx, in_shardings=ins, out_shardings=outs,
                           const_shardings=consts, platforms=(lowering_platform(
                               None if meshes is not None else device),),
                           debug_info=not isinstance(device, str),
                           aliases=aliases if meshes is None else ())
    if meshes is not None:
        return ShardedCompiled(graph, text, meshes, idx, consts + (ins or (None,) * len(
            graph.invars)), outs)
    if isinstance(device, str):
        if device != runtime.interpreter.INTERPRETER:
            raise ValueError(f"unknown device {device!r}: pass an XLA device (frontend."
                             f"devices()) or {runtime.interpreter.INTERPRETER!r}")
        return InterpretedCompiled(graph, text, idx)
    return Compiled(graph, text, runtime.default_device() if device is None else device, idx)


def stablehlo_signature(module):
    """(normalized text, argument avals, result avals) of a StableHLO module (text or an
    ir.Module) that XLA can compile; ValueError otherwise."""
    text = runtime.mlir.module_text(runtime.mlir.parse_module(runtime.mlir.module_text(module)))
    ins, outs = runtime.mlir.main_signature(text)
    check_compilable(text)
    return text, [Aval(s, d) for s, d in ins], [Aval(s, d) for s, d in outs]


effects_barrier = runtime.effects_barrier


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


# ----------------------------------------------------------------------------- testbed
compiler_ir = runtime.mlir.compiler_ir
hlo_text = runtime.mlir.hlo_text
run_mlir_pipeline = runtime.mlir.run_pipeline
check_compilable = runtime.mlir.check_compilable
apply_patterns = runtime.mlir.apply_patterns
mlir_builder_modules = runtime.mlir.builder_modules
build_mlir_function = runtime.mlir.build_function
MLIR_PASSES = runtime.mlir.MLIR_PASSES
serialize_artifact = runtime.artifact.serialize
deserialize_artifact = runtime.artifact.deserialize
check_stablehlo_version = runtime.artifact.check_version
exported_callee = runtime.artifact.callee
refine_exported = runtime.artifact.refine


def exported_main_dims(text: str):
    """([(shape, dtype)] of @main's arguments, of its results) of a module whose
    dimensions may be dynamic (None)."""
    return runtime.mlir.main_signature(text, dynamic=True)


exported_for_platform = runtime.artifact.for_platform
read_jax_export = runtime.artifact.read_jax
write_jax_export = runtime.artifact.write_jax


def stablehlo_versions() -> tuple:
    """(oldest, newest) StableHLO version this jaxlib reads and writes."""
    return runtime.artifact.minimum_version(), runtime.artifact.current_version()


def register_ffi_target(name: str, fn, platform: str = "cpu") -> None:
    runtime.ffi.register(name, fn, platform)


def ffi_include_dir() -> str:
    return runtime.ffi.include_dir()
