"""vmaplab's frontend: trace numpy-style code for one example into a graph, batch it with
vmap, compile it with jit (lowered to StableHLO by ``lowering``).

>>> import frontend as fe, frontend.numpy as fnp
>>> fe.vmap(lambda x, y: x @ y)(fnp.ones((3, 5)), fnp.ones((3, 5)))
Array([5., 5., 5.], dtype=float32)

Submodules and the transformations load on first use (``_LAZY``, PEP 562): ``import
frontend`` brings in the IR, the Array and the device queries only; ``fe.jit`` (or ``from
frontend import jit``) loads the primitives and transformations. What users write does not
change.
"""
import importlib as _importlib

from .core import jax_names as _jax_names
from .core.config import config
from .core.ir import Aval as ShapedArray  # noqa: F401
from .core.ir import ConcretizationTypeError, Graph, ShapeDtypeStruct, Tracer, UnexpectedTracerError  # noqa: F401
from .device import array_methods as _am
from .device.array import Array, device_put, from_dlpack
from .device.queries import (
    block_until_ready,
    default_backend,
    device_count,
    device_get,
    devices,
    local_device_count,
    local_devices,
    process_count,
    process_index,
)
from .explorer import explore
from .sharding import NamedSharding, make_mesh, set_mesh
from .sharding import PartitionSpec as P

_am.install(Array)
_am.install(Tracer)

# public name -> "module" (a submodule) or "module:attribute", imported on first use. Add a
# name here (one line) rather than an import above unless nearly every program needs it.
_LAZY = {
    "compilation_cache": "frontend.compilation_cache",
    "custom_batching": "frontend.custom_batching",
    "debug": "frontend.debug",
    "experimental": "frontend.experimental",
    "distributed": "frontend.distributed",
    "export": "frontend.export",
    "extend": "frontend.extend",
    "ffi": "frontend.ffi",
    "lax": "frontend.lax",
    "nn": "frontend.nn",
    "numpy": "frontend.numpy",
    "ops": "frontend.ops",
    "passes": "frontend.passes",
    "ragged": "frontend.ragged",
    "random": "frontend.random",
    "scipy": "frontend.scipy",
    "sharding": "frontend.sharding",
    "tree": "frontend.tree",
    "tree_util": "frontend.tree_util",
    "jit": "frontend.transforms.jit:jit",
    "cache_stats": "frontend.transforms.jit:cache_stats",
    "pure_callback": "frontend.callbacks:pure_callback",
    "effects_barrier": "frontend.callbacks:effects_barrier",
    "make_graph": "frontend.transforms.jit:make_graph",
    "make_jaxpr": "frontend.transforms.jit:make_jaxpr",
    "eval_shape": "frontend.transforms.jit:eval_shape",
    "vmap": "frontend.transforms.vmap:vmap",
    "grad": "frontend.transforms.grad:grad",
    "hessian": "frontend.transforms.grad:hessian",
    "jacfwd": "frontend.transforms.grad:jacfwd",
    "jacrev": "frontend.transforms.grad:jacrev",
    "jacobian": "frontend.transforms.grad:jacrev",
    "jvp": "frontend.transforms.grad:jvp",
    "linearize": "frontend.transforms.grad:linearize",
    "value_and_grad": "frontend.transforms.grad:value_and_grad",
    "vjp": "frontend.transforms.grad:vjp",
    "checkpoint": "frontend.transforms.checkpoint:checkpoint",
    "remat": "frontend.transforms.checkpoint:remat",
    "checkpoint_policies": "frontend.transforms.checkpoint:checkpoint_policies",
    "ad_checkpoint": "frontend.ad_checkpoint",
    "custom_jvp": "frontend.transforms.custom_derivatives:custom_jvp",
    "custom_vjp": "frontend.transforms.custom_derivatives:custom_vjp",
    "shard_map": "frontend.transforms.shard_map:shard_map",
    "pmap": "frontend.transforms.pmap:pmap",
    "typeof": "frontend.transforms.extras:typeof",
    "ensure_compile_time_eval": "frontend.transforms.extras:ensure_compile_time_eval",
    "linear_transpose": "frontend.transforms.extras:linear_transpose",
    "closure_convert": "frontend.transforms.extras:closure_convert",
    "custom_gradient": "frontend.transforms.extras:custom_gradient",
    "clear_caches": "frontend.transforms.extras:clear_caches",
    "disable_jit": "frontend.core.config:disable_jit",
    "enable_x64": "frontend.core.config:enable_x64",
    "explain_cache_misses": "frontend.core.config:explain_cache_misses",
    "log_compiles": "frontend.core.config:log_compiles",
    "no_tracing": "frontend.core.config:no_tracing",
    "numpy_rank_promotion": "frontend.core.config:numpy_rank_promotion",
    "numpy_dtype_promotion": "frontend.core.config:numpy_dtype_promotion",
    "monitoring": "frontend.monitoring",
    "profiler": "frontend.profiler",
    **{n: f"frontend.transforms.extras:{n}" for n in [
        "fwd_and_bwd", "named_call", "named_scope", "live_arrays", "reshard", "make_array_from_callback", "make_array_from_single_device_arrays",
        "make_array_from_process_local_data"]},
    **{n: f"frontend.core.config:{n}" for n in [
        "debug_nans", "debug_infs", "enable_checks", "no_execution", "default_matmul_precision",
        "transfer_guard", "transfer_guard_host_to_device", "transfer_guard_device_to_host",
        "transfer_guard_device_to_device", "default_device", "check_tracer_leaks",
        "checking_leaks", "allow_f16_reductions", "legacy_prng_key", "default_prng_impl",
        "threefry_partitionable", "make_user_context"]},
    "copy_to_host_async": "frontend.transforms.extras:copy_to_host_async",
    "print_environment_info": "frontend.version:print_environment_info",
    "Device": "frontend.device.queries:Device",
    "Shard": "frontend.sharding:Shard",
    "process_indices": "frontend.device.queries:process_indices",
    "host_count": "frontend.device.queries:host_count",
    "host_id": "frontend.device.queries:host_id",
    "host_ids": "frontend.device.queries:host_ids",
    "float0": "frontend.core.dtypes:float0",
    "errors": "frontend.errors",
    "dtypes": "frontend.dtypes",
    "dlpack": "frontend.dlpack",
    "typing": "frontend.typing",
    "version": "frontend.version",
    "stages": "frontend.stages",
    "custom_derivatives": "frontend.custom_derivatives",
    "Compiled": "frontend.transforms.stages:Compiled",
    "Lowered": "frontend.transforms.stages:Lowered",
    "compile_stablehlo": "frontend.transforms.stages:compile_stablehlo",
}

__all__ = ["Array", "ShapeDtypeStruct", "ShapedArray", "block_until_ready", "config",
           "default_backend", "device_count", "device_get", "device_put", "devices", "explore", "from_dlpack", "local_device_count", "local_devices", "make_mesh", "NamedSharding", "P",
           "process_count", "process_index", "set_mesh", *_LAZY]


def __getattr__(name):
    target = _LAZY.get(name)
    if target is None:
        raise _jax_names.missing(__name__, name)
    module, _, attr = target.partition(":")
    value = _importlib.import_module(module)
    if attr:
        value = getattr(value, attr)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
