"""The public device functions: which devices there are (``devices``, ``local_devices``,
``process_index``, ``process_count``) and arrays back from them (``device_get``,
``block_until_ready``)."""
from __future__ import annotations

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
