"""Porting JAX lowering rules, written with the MLIR Python bindings, to vmaplab.

The two rules below are JAX's own (jax/_src/lax/lax.py in jax 0.10.2: the lowerings of
``reduce_precision_p`` and ``integer_pow_p``), copied as they are; only the imports differ
(``from frontend.extend import mlir`` for ``from jax.interpreters import mlir``,
``mlir.hlo`` for ``jax._src.lib.mlir.dialects.hlo``). ``integer_pow`` keeps JAX's fast cases
and leaves the others to JAX's ``mlir.lower_fun`` fallback, which a builder rule does not
have here (an algorithm written with primitives lowers through ``ctx.lower_fun`` in a text
rule, see docs/extending.md).

    python examples/port_jax_rule.py
"""
import numpy as np

import frontend as fe
from frontend.extend import Primitive, ShapedArray, mlir, unary_batching

hlo = mlir.hlo

# ---- the primitives (vmaplab's side: abstract evaluation and batching)
reduce_precision_p = Primitive("reduce_precision")
reduce_precision_p.def_abstract_eval(lambda x, **_params: ShapedArray(x.shape, x.dtype))
reduce_precision_p.def_batching(unary_batching(reduce_precision_p))

integer_pow_p = Primitive("integer_pow")
integer_pow_p.def_abstract_eval(lambda x, **_params: ShapedArray(x.shape, x.dtype))
integer_pow_p.def_batching(unary_batching(integer_pow_p))


# ---- JAX's lowering rules, unchanged
def _reduce_precision_lower(ctx, operand, *, exponent_bits, mantissa_bits):
  aval_out, = ctx.avals_out
  out = hlo.reduce_precision(operand, mlir.i32_attr(exponent_bits),
                             mlir.i32_attr(mantissa_bits))
  return [mlir.lower_with_sharding_in_types(ctx, out, aval_out)]

mlir.register_lowering(reduce_precision_p, _reduce_precision_lower)


def _integer_pow_lowering(ctx, x, *, y):
  # These cases are subsumed by the general case, but it's faster to emit these
  # common cases directly.
  if y == 1:
    out = x
  elif y == 2:
    out = hlo.multiply(x, x)
  elif y == 3:
    out = hlo.multiply(hlo.multiply(x, x), x)
  elif y == -1:
    out = hlo.divide(mlir.full_like_aval(ctx, 1, ctx.avals_in[0]), x)
  else:
    raise NotImplementedError("integer_pow: this port keeps JAX's fast cases only")
  aval_out, = ctx.avals_out
  return [mlir.lower_with_sharding_in_types(ctx, out, aval_out)]

mlir.register_lowering(integer_pow_p, _integer_pow_lowering)


if __name__ == "__main__":
    x = np.linspace(-2, 2, 6).astype(np.float32)
    f = fe.jit(lambda x: reduce_precision_p.bind(integer_pow_p.bind(x, y=3), exponent_bits=5,
                                                 mantissa_bits=2))
    print(f.lower(x).as_text())
    print("jit :", f(x))
    print("vmap:", fe.vmap(f)(np.stack([x, -x])))
    print("inv :", fe.jit(lambda x: integer_pow_p.bind(x, y=-1))(x))
    expect = np.asarray(x ** 3)
    assert np.allclose(f(x), expect, rtol=0.25), (f(x), expect)
