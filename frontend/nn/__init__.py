"""frontend.nn: JAX's neural-network functions (activations, softmax, logsumexp, one_hot,
standardize) and ``initializers``, same names and formulas.

>>> import frontend.numpy as fnp
>>> from frontend import nn
>>> nn.relu(fnp.array([-1.0, 2.0]))
Array([0., 2.], dtype=float32)
"""
from ..core import jax_names as _jax_names
from . import initializers  # noqa: F401
from ._functions import *  # noqa: F401,F403
from ._functions import __all__ as _names
from ._scaled import *  # noqa: F401,F403
from ._scaled import __all__ as _scaled_names

__all__ = ["initializers", *_names, *_scaled_names]


def __getattr__(name):
    raise _jax_names.missing(__name__, name)
