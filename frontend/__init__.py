"""vmaplab's frontend: trace numpy-style code for one example into a graph, batch it with
vmap, compile it with jit (lowered to StableHLO by ``lowering``).

>>> import frontend as fe, frontend.numpy as fnp
>>> fe.vmap(lambda x, y: x @ y)(fnp.ones((3, 5)), fnp.ones((3, 5)))
Array([5., 5., 5.], dtype=float32)
"""
from . import (  # noqa: F401
    custom_batching,
    distributed,
    export,
    extend,
    ffi,
    lax,
    nn,
    numpy,
    ops,
    passes,
    random,
    scipy,
    sharding,
    tree,
    tree_util,
)
from .core import jax_names as _jax_names  # noqa: F401
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
from .sharding import NamedSharding, make_mesh, set_mesh
from .sharding import PartitionSpec as P
from .transforms.checkpoint import checkpoint, remat
from .transforms.custom_derivatives import custom_jvp, custom_vjp
from .transforms.grad import grad, hessian, jacfwd, jacrev, jvp, linearize, value_and_grad, vjp
from .transforms.grad import jacrev as jacobian
from .transforms.jit import eval_shape, jit, make_graph, make_jaxpr
from .transforms.shard_map import shard_map
from .transforms.stages import Compiled, Lowered, compile_stablehlo
from .transforms.vmap import vmap

_am.install(Array)
_am.install(Tracer)
numpy.ndarray = Array

__all__ = ["Array", "Compiled", "Lowered", "ShapeDtypeStruct", "ShapedArray", "block_until_ready",
           "checkpoint", "compile_stablehlo", "config", "custom_batching", "custom_jvp",
           "custom_vjp", "device_get", "device_put", "devices", "distributed", "eval_shape",
           "export", "extend", "ffi", "from_dlpack", "grad", "hessian", "jacfwd", "jacrev", "jit",
           "jvp", "lax", "linearize", "local_devices", "make_graph", "make_mesh", "nn", "numpy",
           "ops", "passes", "process_count", "process_index", "random", "remat", "scipy", "set_mesh",
           "shard_map", "sharding", "tree", "tree_util", "value_and_grad", "vjp", "vmap",
           "device_count", "local_device_count", "default_backend", "NamedSharding", "P",
           "jacobian", "make_jaxpr"]


def __getattr__(name):
    raise _jax_names.missing(__name__, name)
