"""Lowering rules built with jaxlib's MLIR Python bindings, the way JAX writes them
(``jax.interpreters.mlir``), so that a JAX rule ports with renames only. Reached as
``frontend.extend.mlir``:

    from frontend.extend import mlir     # for: from jax.interpreters import mlir
    hlo = mlir.hlo                       # for: from jax._src.lib.mlir.dialects import hlo
    ir = mlir.ir                         # for: from jax._src.lib.mlir import ir

    def _my_lowering(ctx, x, *, k):      # ctx.avals_in, ctx.avals_out, ctx.primitive
        return [hlo.multiply(x, mlir.full_like_aval(ctx, k, ctx.avals_in[0]))]
    mlir.register_lowering(my_p, _my_lowering)

The rule runs with an MLIR context and an insertion point current (the entry block of a
private function vmaplab builds for the equation): ``hlo.*`` builders make ops there, its
operands are ``ir.Value``s and it returns the result values (a list, as JAX's). The function
is verified when it is built (an error names the primitive), then called from the module
(``func.call``; XLA inlines it). One function is built per primitive, operand types and
params, and shared by the equations that have them.
"""
from __future__ import annotations

import re

import numpy as np

from .core import dtypes
from .core.ir import Primitive
from .device import seam as _backend

_BUILT: dict = {}  # (rule, avals in, avals out, params) -> (function name, text)


def __getattr__(name):
    """``ir``, ``hlo`` (the StableHLO dialect) and ``func`` (the func dialect): jaxlib's
    modules, imported when first asked for."""
    if name in ("ir", "hlo", "func"):
        ir, hlo, func = _backend.get().mlir_builder_modules()
        globals().update(ir=ir, hlo=hlo, func=func)
        return globals()[name]
    raise AttributeError(f"module 'frontend.extend.mlir' has no attribute {name!r}")


class LoweringRuleContext:
    """What a builder rule gets (JAX's ``LoweringRuleContext``): ``primitive``,
    ``avals_in``, ``avals_out`` (ShapedArrays: ``shape``, ``dtype``)."""

    __slots__ = ("primitive", "avals_in", "avals_out")

    def __init__(self, primitive, avals_in, avals_out):
        self.primitive = primitive
        self.avals_in = avals_in
        self.avals_out = avals_out


def register_lowering(prim: Primitive, rule, platform: str | None = None):
    """Lower ``prim`` with ``rule(ctx, *operands, **params) -> [results]`` built with the
    MLIR Python bindings (JAX's ``mlir.register_lowering``). ``platform``: accepted for
    JAX's signature; the rule serves every platform."""
    del platform
    if not isinstance(prim, Primitive):
        raise TypeError(f"register_lowering expects a frontend Primitive, got {type(prim).__name__}")
    what = f"the MLIR lowering rule of primitive {prim.name!r}"
    symbol = re.sub(r"\W", "_", prim.name)

    def text_rule(ctx, *operands, **params):
        in_types = [ctx.type(a) for a in ctx.avals_in]
        out_types = [ctx.type(a) for a in ctx.avals_out]
        try:
            key = (rule, ctx.avals_in, ctx.avals_out, tuple(sorted(params.items())))
            hash(key)
        except TypeError:
            key = None
        built = _BUILT.get(key) if key is not None else None
        if built is None:
            name = f"{symbol}_mlir_rule_{len(_BUILT)}"
            rctx = LoweringRuleContext(prim, ctx.avals_in, ctx.avals_out)
            text = _backend.get().build_mlir_function(
                name, in_types, out_types, lambda args: rule(rctx, *args, **params), what)
            built = (name, text)
            _BUILT[key if key is not None else object()] = built
        name, text = built
        ctx.add_function(name, text)
        return ctx.op_results(f"func.call @{name}({', '.join(operands)}) : "
                              f"({', '.join(in_types)}) -> ({', '.join(out_types)})",
                              len(out_types))

    prim.def_lowering(text_rule)
    return rule


def aval_to_ir_type(aval):
    """The ``ir.RankedTensorType`` of an aval (JAX's ``mlir.aval_to_ir_type``)."""
    ir = __getattr__("ir")
    return ir.RankedTensorType.get(list(aval.shape), dtype_to_ir_type(aval.dtype))


def dtype_to_ir_type(dtype):
    """The MLIR element type of a dtype (JAX's ``mlir.dtype_to_ir_type``)."""
    ir = __getattr__("ir")
    d = np.dtype(dtype)
    if d == dtypes.bool_:
        return ir.IntegerType.get_signless(1)
    if d == dtypes.bfloat16:
        return ir.BF16Type.get()
    bits = d.itemsize * 8
    if d.kind == "f":
        return {16: ir.F16Type, 32: ir.F32Type, 64: ir.F64Type}[bits].get()
    if d.kind == "i":
        return ir.IntegerType.get_signless(bits)
    if d.kind == "u":
        return ir.IntegerType.get_unsigned(bits)
    if d.kind == "c":
        return ir.ComplexType.get(dtype_to_ir_type(np.float32 if bits == 64 else np.float64))
    raise TypeError(f"no MLIR type for dtype {d}")


def ir_constant(val, dtype=None):
    """A ``stablehlo.constant`` holding ``val`` (JAX's ``mlir.ir_constant``)."""
    ir, hlo = __getattr__("ir"), __getattr__("hlo")
    arr = np.asarray(val, dtype)
    if arr.dtype == np.bool_:
        data, elt = arr.ravel().astype(np.uint8), ir.IntegerType.get_signless(1)
    else:
        data, elt = np.ascontiguousarray(arr.ravel()), dtype_to_ir_type(arr.dtype)
    return hlo.constant(ir.DenseElementsAttr.get(data, type=elt, shape=list(arr.shape)))


def full_like_aval(ctx, value, aval):
    """A constant of ``aval``'s shape and dtype filled with ``value`` (JAX's
    ``mlir.full_like_aval``): a scalar constant broadcast."""
    del ctx
    hlo = __getattr__("hlo")
    scalar = ir_constant(np.array(value, aval.dtype))
    return hlo.broadcast_in_dim(aval_to_ir_type(aval), scalar, [])


def i32_attr(i: int):
    """An i32 ``IntegerAttr`` (JAX's ``mlir.i32_attr``)."""
    ir = __getattr__("ir")
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), int(i))


def i64_attr(i: int):
    ir = __getattr__("ir")
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(i))


def lower_with_sharding_in_types(ctx, op, aval, sharding_proto=None):
    """JAX's helper for shardings carried in types: vmaplab's avals carry none, so the
    value as it is."""
    del ctx, aval, sharding_proto
    return op


__all__ = ["LoweringRuleContext", "aval_to_ir_type", "dtype_to_ir_type", "full_like_aval",
           "i32_attr", "i64_attr", "ir_constant", "lower_with_sharding_in_types",
           "register_lowering"]
