"""The only place that touches jaxlib / jax.extend: the XLA client (backends, devices,
compile, execute, transfers), the MLIR bindings (the StableHLO verifier, pass pipelines,
rewrite patterns) and StableHLO portable artifacts. These APIs move between jaxlib releases,
so everything that depends on them is here (pinned range in pyproject.toml)."""
from . import (  # noqa: F401
    artifact,  # portable artifacts, JAX's export format
    dispatch,
    interpreter,  # device="interpreter"
    mlir,
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
