"""The only place that touches jaxlib / jax.extend: the XLA client (backends, devices,
compile, execute, transfers, the persistent compilation cache, FFI custom call targets) and
the MLIR StableHLO verifier. These APIs move between jaxlib
releases, so everything that depends on them is here (pinned range in pyproject.toml)."""
from . import (
    cache,  # noqa: F401  (the persistent compilation cache)
    dispatch,  # noqa: F401
    ffi,  # noqa: F401  (custom call targets)
    interpreter,  # noqa: F401,E402  (device="interpreter")
    native,  # noqa: F401  (vmaplab's C++ kernel library)
)
from .mlir import parse_module, verify  # noqa: F401
from .xla import (  # noqa: F401
    Executable,
    backend,
    compile_text,
    default_device,
    devices,
    execute,
    is_device_buffer,
    to_device,
    to_host,
)
