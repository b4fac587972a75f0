"""frontend.numpy: a subset compatible with JAX's numpy (same names, same semantics).

>>> import frontend.numpy as fnp
>>> fnp.tanh(fnp.ones(2) * 0.5)
Array([0.46211717, 0.46211717], dtype=float32)
"""
import numpy as _onp

from ..core import dtypes as _dtypes
from ..core import jax_names as _jax_names
from ..device.array import from_dlpack  # noqa: F401
from . import _core  # noqa: F401
from ._convolution import *  # noqa: F401,F403
from ._core import asarray, astype  # noqa: F401
from ._creation import *  # noqa: F401,F403
from ._creation import (  # noqa: F401
    arange,
    array,
    empty,
    empty_like,
    eye,
    full,
    full_like,
    geomspace,
    identity,
    linspace,
    logspace,
    ones,
    ones_like,
    zeros,
    zeros_like,
)
from ._elementwise import *  # noqa: F401,F403
from ._elementwise import abs, round  # noqa: F401,A004
from ._functional import *  # noqa: F401,F403
from ._histogram import *  # noqa: F401,F403
from ._index_tricks import *  # noqa: F401,F403
from ._indexing import *  # noqa: F401,F403
from ._indexing import _getitem, _IndexUpdateHelper  # noqa: F401
from ._io import *  # noqa: F401,F403
from ._linalg import *  # noqa: F401,F403
from ._manip import *  # noqa: F401,F403
from ._matrix import *  # noqa: F401,F403
from ._nanfuncs import *  # noqa: F401,F403
from ._numeric import *  # noqa: F401,F403
from ._pad import *  # noqa: F401,F403
from ._poly import *  # noqa: F401,F403
from ._quantiles import *  # noqa: F401,F403
from ._reductions import *  # noqa: F401,F403
from ._scalar_types import *  # noqa: F401,F403
from ._scalar_types import bool  # noqa: F401,A004
from ._sequences import *  # noqa: F401,F403
from ._setops import *  # noqa: F401,F403
from ._shape import *  # noqa: F401,F403
from ._sorting import *  # noqa: F401,F403
from ._ufunc_objects import *  # noqa: F401,F403 (add, multiply, ... as ufuncs)
from ._ufuncs import *  # noqa: F401,F403
from ._ufuncs import pow  # noqa: F401,A004
from ._windows import *  # noqa: F401,F403

result_type = _dtypes.result_type
dtype = _onp.dtype
pi, e, inf, nan, newaxis = _onp.pi, _onp.e, _onp.inf, _onp.nan, None
from ..device.array import Array as ndarray  # noqa: E402, F401


def _shape_of(name, a):
    """The shape of an array, or (with JAX's DeprecationWarning) of a list or tuple."""
    if not isinstance(a, _core.ArrayLike) and not _core._is_foreign(a):
        import warnings
        warnings.warn(f"{name} requires ndarray or scalar arguments, got {type(a)} at position 0."
                      " In a future JAX release this will be an error.", DeprecationWarning,
                      stacklevel=3)
    return a.shape if hasattr(a, "shape") else _onp.shape(a)


def shape(a):
    """The shape of an array (numpy's ``shape``)."""
    return _shape_of("shape", a)


def ndim(a):
    """The number of dimensions of an array (numpy's ``ndim``)."""
    return len(_shape_of("ndim", a))


def size(a, axis=None):
    """The number of elements (along ``axis``: an int or a tuple of ints)."""
    shp = _shape_of("size", a)
    if axis is None:
        return int(_onp.prod(shp))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    return int(_onp.prod([shp[_core.canonical_axis(ax, len(shp))] for ax in axes]))


def __getattr__(name):
    if name in ("fft", "linalg"):  # loaded on first use (frontend/__init__'s _LAZY)
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise _jax_names.missing(__name__, name)
