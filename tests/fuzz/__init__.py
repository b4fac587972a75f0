"""Differential fuzzing: random programs run batched (fe.vmap), as a per-example loop stacked
with fnp.stack, and under JAX (jax.vmap + jax.numpy); see gen.py, run.py, pretty.py."""
from .gen import Chooser, Input, Level, Program, generate  # noqa: F401
from .pretty import pretty  # noqa: F401
from .run import FuzzMismatch, check_program, make_args  # noqa: F401
