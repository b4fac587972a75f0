"""Custom derivatives (``frontend.custom_derivatives``, as ``jax.custom_derivatives``):
``custom_jvp``, ``custom_vjp``, ``custom_gradient``, ``closure_convert`` and their call
primitives."""
from .transforms.custom_derivatives import (  # noqa: F401
    custom_jvp,
    custom_jvp_call_p,
    custom_vjp,
    custom_vjp_call_p,
)
from .transforms.extras import closure_convert, custom_gradient  # noqa: F401

__all__ = ["closure_convert", "custom_gradient", "custom_jvp", "custom_jvp_call_p",
           "custom_vjp", "custom_vjp_call_p"]
