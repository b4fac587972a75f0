"""Versions (``frontend.version``, where JAX has ``jax.version``): ``__version__`` is
vmaplab's own; ``jax_api_version`` the JAX release whose API it mirrors (the public names
of frontend.core.jax_names); ``_version`` as JAX's module has it."""
from __future__ import annotations

import importlib.metadata
import platform
import sys

import numpy as np

from .device import seam as _backend
from .device.queries import devices, local_devices, process_count

try:
    __version__ = importlib.metadata.version("vmaplab")
except importlib.metadata.PackageNotFoundError:  # (a source checkout that is not installed)
    __version__ = "0.0.0+unknown"
_version = __version__
jax_api_version = "0.10.2"
__version_info__ = tuple(int(p) for p in __version__.split("+")[0].split(".")[:3])


def print_environment_info(return_string: bool = False):
    """Print (or return) the versions of vmaplab, jaxlib, numpy and Python and the devices,
    as ``jax.print_environment_info``."""
    be = _backend.get()
    info = "\n".join([
        f"vmaplab: {__version__} (the API of jax {jax_api_version})",
        f"jaxlib: {be.jaxlib_version()}",
        f"numpy:  {np.__version__}",
        f"python: {sys.version.replace(chr(10), ' ')}",
        f"device info: {devices()[0].platform}-{len(devices())}, {len(local_devices())} local "
        "devices",
        f"process_count: {process_count()}",
        f"platform: {platform.uname()}", ""])
    if return_string:
        return info
    print(info)
    return None
