"""The public device functions: which devices there are (``devices``, ``local_devices``,
``process_index``, ``process_count``) and arrays back from them (``device_get``,
``block_until_ready``)."""
from __future__ import annotations

import warnings

import numpy as np

from ..core.pytree import tree_flatten, tree_map
from . import seam as _backend
from .array import Array


def devices(platform=None) -> list:
    """The XLA devices of ``platform`` ('cpu', 'gpu', 'tpu'; default: the default backend);
    with several processes, those of every process."""
    return _backend.get().devices(platform)


def device_get(x):
    """The arrays of the pytree ``x`` as numpy arrays on the host (other leaves as they
    are)."""
    return tree_map(lambda v: np.asarray(v) if isinstance(v, Array) else v, x)


def block_until_ready(x):
    """Wait until every array of the pytree ``x`` is computed; returns ``x``."""
    for v in tree_flatten(x)[0]:
        if isinstance(v, Array):
            v.block_until_ready()
    return x


def local_devices(platform=None) -> list:
    """The devices of this process."""
    return _backend.get().local_devices(platform)


def process_index() -> int:
    """This process's index among the processes of frontend.distributed (0 alone)."""
    return _backend.get().process_index()


def process_count() -> int:
    return _backend.get().process_count()




def device_count(backend=None) -> int:
    """How many devices ``backend`` has, over every process (jax.device_count)."""
    return len(devices(backend))


def local_device_count(backend=None) -> int:
    """How many devices this process has (jax.local_device_count)."""
    return len(local_devices(backend))


def default_backend() -> str:
    """The platform name of the default backend ('cpu' here), as jax.default_backend."""
    return devices()[0].platform


def process_indices() -> list[int]:
    """The indices of the processes (``jax.process_indices``): ``range(process_count())``."""
    return list(range(process_count()))


def _renamed(old: str, new: str) -> None:
    warnings.warn(f"jax.{old} has been renamed to jax.{new}. This alias will eventually be "
                  "removed; please update your code.", UserWarning, stacklevel=3)


def host_count() -> int:
    """``process_count()`` (JAX's older name; warns as JAX's does)."""
    _renamed("host_count", "process_count")
    return process_count()


def host_id() -> int:
    """``process_index()`` (JAX's older name; warns as JAX's does)."""
    _renamed("host_id", "process_index")
    return process_index()


def host_ids() -> list[int]:
    """``process_indices()`` (JAX's older name; warns as JAX's does)."""
    _renamed("host_ids", "process_indices")
    return process_indices()


def __getattr__(name):
    if name == "Device":  # jaxlib's device class (the backend is loaded to name it)
        return _backend.get().Device
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
