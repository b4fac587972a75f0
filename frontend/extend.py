"""Extending vmaplab from outside the package: new primitives and their rules (the
counterpart of ``jax.extend.core`` and the batching/lowering registries).

A primitive is one object; its rules (abstract evaluation, batching, lowering, jvp and, for
linear primitives, transpose) are set with ``def_*`` methods and live on it:

    >>> import numpy as np
    >>> import frontend as fe
    >>> import frontend.numpy as fnp
    >>> from frontend.extend import Primitive, ShapedArray, jvp_by_operand, vectorized_batching
    >>> logaddexp_p = Primitive("logaddexp")      # operands of one shape and dtype
    >>> @logaddexp_p.def_abstract_eval
    ... def _(x, y):
    ...     return ShapedArray(x.shape, x.dtype)
    >>> _ = logaddexp_p.def_batching(vectorized_batching(logaddexp_p))
    >>> @logaddexp_p.def_lowering
    ... def _(ctx, x, y):                           # max(x, y) + log1p(exp(-|x - y|))
    ...     t = ctx.type(ctx.avals_out[0])
    ...     m = ctx.op(f"stablehlo.maximum {x}, {y} : {t}")
    ...     d = ctx.op(f"stablehlo.subtract {x}, {y} : {t}")
    ...     a = ctx.op(f"stablehlo.abs {d} : {t}")
    ...     e = ctx.op(f"stablehlo.exponential {ctx.op(f'stablehlo.negate {a} : {t}')} : {t}")
    ...     return [ctx.op(f"stablehlo.add {m}, {ctx.op(f'stablehlo.log_plus_one {e} : {t}')} : {t}")]
    >>> _ = logaddexp_p.def_jvp(jvp_by_operand(        # d/dx = exp(x - out), d/dy likewise
    ...     logaddexp_p, lambda t, out, x, y: t * fnp.exp(x - out),
    ...     lambda t, out, x, y: t * fnp.exp(y - out), with_result=True))
    >>> fe.vmap(logaddexp_p.bind)(np.zeros(3, np.float32), np.arange(3, dtype=np.float32))
    Array([0.6931472, 1.3132617, 2.126928 ], dtype=float32)
    >>> fe.grad(logaddexp_p.bind)(np.float32(0), np.float32(0))
    Array(0.5, dtype=float32)

A lowering rule may be given per platform (JAX's names "cpu", "cuda", "rocm", "tpu"); the
rule without a platform serves the others, and ``ctx.platforms`` says what is being lowered
for. A module for several platforms branches on the platform where the rules differ:

    >>> @logaddexp_p.def_lowering(platform="tpu")
    ... def _(ctx, x, y):                           # (a stand-in: any StableHLO)
    ...     return [ctx.op(f"stablehlo.maximum {x}, {y} : {ctx.type(ctx.avals_out[0])}")]
    >>> t = fe.jit(logaddexp_p.bind).trace(np.zeros(3, np.float32), np.ones(3, np.float32))
    >>> "stablehlo.log_plus_one" in t.lower(lowering_platforms=("tpu",)).as_text()
    False
    >>> "stablehlo.case" in t.lower(lowering_platforms=("cpu", "tpu")).as_text()
    True

Built-in primitives are declared with exactly this API (frontend/primitives/), so they are
the examples to copy. See docs/extending.md for a walk-through.
"""
from __future__ import annotations

from . import extend_mlir as mlir
from .core.ir import Aval as ShapedArray
from .core.ir import Primitive
from .custom_batching import custom_vmap, sequential_vmap
from .interpreters.ad_util import UndefinedPrimal, Zero, is_undefined_primal
from .interpreters.batching import axis_size, moved_shape
from .primitives.elementwise import jvp_by_operand, same_axis_batch, vectorized_batch
from .primitives.shape import bdim_at, instantiate_zeros, linear_jvp, moveaxis, zero_jvp

not_mapped = None  # the batch dim of an unbatched operand or result

vectorized_batching = vectorized_batch  # elementwise n-ary primitives (JAX's defbroadcasting)
unary_batching = same_axis_batch        # one operand; the batch axis stays (JAX's defvectorized)

__all__ = ["Primitive", "ShapedArray", "mlir", "UndefinedPrimal", "Zero", "axis_size", "bdim_at",
           "custom_vmap", "instantiate_zeros", "is_undefined_primal", "jvp_by_operand",
           "linear_jvp", "moveaxis", "moved_shape", "not_mapped", "sequential_vmap",
           "unary_batching", "vectorized_batching", "zero_jvp"]
