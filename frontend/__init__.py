"""vmaplab's frontend: trace numpy-style code for one example into a graph, batch it with
vmap, compile it with jit (lowered to StableHLO by ``lowering``).

>>> import frontend as fe, frontend.numpy as fnp
>>> fe.vmap(lambda x, y: x @ y)(fnp.ones((3, 5)), fnp.ones((3, 5)))
Array([5., 5., 5.], dtype=float32)
"""
from . import array_methods as _am
from . import custom_batching, export, extend, ffi, lax, nn, numpy, passes, random, tree, tree_util  # noqa: F401
from .api import Compiled, Lowered, compile_stablehlo, devices, jit, make_graph, vmap  # noqa: F401
from .array import Array, device_put
from .core import Aval as ShapedArray  # noqa: F401
from .core import ConcretizationTypeError, Graph, Tracer, UnexpectedTracerError  # noqa: F401
from .dtypes import config

_am.install(Array)
_am.install(Tracer)
numpy.ndarray = Array

__all__ = ["Array", "Compiled", "Lowered", "ShapedArray", "compile_stablehlo", "config",
           "custom_batching", "device_put", "devices", "export", "extend", "ffi", "jit", "lax",
           "make_graph", "nn", "numpy", "passes", "random", "tree", "tree_util", "vmap"]
