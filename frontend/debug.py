"""Printing and inspecting values inside transformed code (JAX's ``jax.debug``):
``print(fmt, *args, ordered=False, **kwargs)`` and ``callback(fn, *args, ordered=False,
**kwargs)`` call the host with the values the program computes, under jit, vmap (once per
example), grad (the primal values) and inside loop bodies.

>>> import numpy as np
>>> import frontend as fe
>>> def f(x):
...     fe.debug.print("x = {}", x)
...     return x * 2
>>> _ = fe.jit(f)(np.arange(3, dtype=np.float32))
x = [0. 1. 2.]
"""
from __future__ import annotations

from .callbacks import debug_callback as callback
from .callbacks import debug_print as print  # noqa: A004

__all__ = ["callback", "print"]
