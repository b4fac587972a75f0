"""The only place that touches jaxlib / jax.extend: the XLA client (backends, devices,
compile, execute, transfers) and the MLIR StableHLO verifier. These APIs move between jaxlib
releases, so everything that depends on them is here (pinned range in pyproject.toml)."""
from . import (
    dispatch,  # noqa: F401
    interpreter,  # noqa: F401,E402  (device="interpreter")
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
