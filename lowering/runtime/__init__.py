"""The only place that touches jaxlib / jax.extend: the XLA client (backends, devices,
compile, execute, transfers) and the MLIR StableHLO verifier. These APIs move between jaxlib
releases, so everything that depends on them is here (pinned range in pyproject.toml)."""
from .xla import (  # noqa: F401
    Executable, backend, compile_text, default_device, devices, execute, is_device_buffer,
    to_device, to_host,
)
from .mlir import verify, parse_module  # noqa: F401
from . import dispatch  # noqa: F401
from . import interpreter  # noqa: F401,E402  (device="interpreter")
