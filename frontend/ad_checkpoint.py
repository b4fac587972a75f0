"""``frontend.ad_checkpoint``, as ``jax.ad_checkpoint``: rematerialization (``checkpoint``,
``remat``), the policies that say which values reverse mode saves instead
(``checkpoint_policies``), ``checkpoint_name`` to name values for them, and
``saved_residuals``/``print_saved_residuals`` to see what a function saves."""
from .transforms.checkpoint import (  # noqa: F401
    checkpoint,
    checkpoint_name,
    checkpoint_policies,
    print_saved_residuals,
    remat,
    saved_residuals,
)

__all__ = ["checkpoint", "checkpoint_name", "checkpoint_policies", "print_saved_residuals",
           "remat", "saved_residuals"]
