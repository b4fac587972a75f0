"""vmaplab's frontend: trace numpy-style code for one example into a graph, batch it with
vmap, compile it with jit (lowered to StableHLO by ``lowering``).

>>> import frontend as fe, frontend.numpy as fnp
>>> fe.vmap(lambda x, y: x @ y)(fnp.ones((3, 5)), fnp.ones((3, 5)))
Array([5., 5., 5.], dtype=float32)
"""
from . import array_methods as _am
from . import custom_batching, distributed, export, extend, ffi, lax, numpy, passes, scipy, sharding  # noqa: F401
from .api import (  # noqa: F401
    Compiled,
    Lowered,
    compile_stablehlo,
    devices,
    jit,
    local_devices,
    make_graph,
    process_count,
    process_index,
    vmap,
)
from .array import Array, device_put
from .autodiff import grad, hessian, jacfwd, jacrev, jvp, linearize, value_and_grad, vjp
from .checkpoint import checkpoint, remat
from .core import Aval as ShapedArray  # noqa: F401
from .core import ConcretizationTypeError, Graph, Tracer, UnexpectedTracerError  # noqa: F401
from .custom_derivatives import custom_jvp, custom_vjp
from .dtypes import config
from .sharding import make_mesh, set_mesh
from .spmd import shard_map

_am.install(Array)
_am.install(Tracer)
numpy.ndarray = Array

__all__ = ["Array", "Compiled", "Lowered", "ShapedArray", "checkpoint", "compile_stablehlo",
           "config", "custom_batching", "custom_jvp", "custom_vjp", "device_put", "devices",
           "distributed", "export", "extend", "ffi", "grad", "hessian", "jacfwd", "jacrev", "jit",
           "jvp", "lax", "linearize", "local_devices", "make_graph", "make_mesh", "numpy",
           "passes", "process_count", "process_index", "remat", "scipy", "set_mesh",
           "shard_map", "sharding", "value_and_grad", "vjp", "vmap"]
