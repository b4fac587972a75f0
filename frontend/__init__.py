"""vmaplab's frontend: trace numpy-style code for one example into a graph, batch it with
vmap, compile it with jit (lowered to StableHLO by ``lowering``).

>>> import frontend as fe, frontend.numpy as fnp
>>> fe.vmap(lambda x, y: x @ y)(fnp.ones((3, 5)), fnp.ones((3, 5)))
Array([5., 5., 5.], dtype=float32)
"""
from . import array_methods as _am
from . import custom_batching, export, extend, ffi, lax, numpy, passes  # noqa: F401
from .api import Compiled, Lowered, compile_stablehlo, devices, jit, make_graph, vmap  # noqa: F401
from .array import Array, device_put
from .autodiff import grad, hessian, jacfwd, jacrev, jvp, linearize, value_and_grad, vjp
from .checkpoint import checkpoint, remat
from .core import Aval as ShapedArray  # noqa: F401
from .core import ConcretizationTypeError, Graph, Tracer, UnexpectedTracerError  # noqa: F401
from .custom_derivatives import custom_jvp, custom_vjp
from .dtypes import config

_am.install(Array)
_am.install(Tracer)
numpy.ndarray = Array

__all__ = ["Array", "Compiled", "Lowered", "ShapedArray", "checkpoint", "compile_stablehlo",
           "config", "custom_batching", "custom_jvp", "custom_vjp", "device_put", "devices",
           "export", "extend", "ffi", "grad", "hessian", "jacfwd", "jacrev", "jit", "jvp", "lax",
           "linearize", "make_graph", "numpy", "passes", "remat", "value_and_grad", "vjp", "vmap"]
