"""The only place that touches jaxlib / jax.extend: the XLA client (backends, devices,
compile, execute, transfers, the persistent compilation cache, FFI custom call targets), the
MLIR bindings (the StableHLO verifier, pass pipelines, rewrite patterns) and StableHLO portable
artifacts. These APIs move between jaxlib releases, so everything that depends on them is here
(pinned range in pyproject.toml). Only jaxlib is imported here, never ``jax``.
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")  # XLA's info logs off, as with JAX

from . import (  # noqa: E402, F401
    artifact,  # portable artifacts, JAX's export format
    cache,  # the persistent compilation cache
    dispatch,
    ffi,  # custom call targets
    interpreter,  # device="interpreter"
    mlir,
    native,  # vmaplab's C++ kernel library
    profiler,  # jaxlib's profiler (frontend.profiler)
    spmd,  # several devices and processes: sharded buffers, SPMD compiles
)
from .mlir import parse_module, verify  # noqa: E402, F401
from .spmd import to_host  # noqa: E402, F401
from .xla import (  # noqa: E402, F401
    Device,
    Executable,
    JaxRuntimeError,
    adopt,
    backend,
    compile_text,
    default_device,
    devices,
    effects_barrier,
    from_dlpack,
    is_device,
    is_device_buffer,
    jaxlib_version,
    to_device,
)
