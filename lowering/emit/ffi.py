"""Lowering rule of ``ffi_call``: one ``stablehlo.custom_call`` with ``api_version = 4`` and
the call's attributes, typed, in ``backend_config`` (the form XLA's FFI decodes)."""
from __future__ import annotations

import numpy as np

from frontend.ffi import ArrayAttr, ffi_call_p

from .module import elem_type


def _number(v, dtype) -> str:
    d = np.dtype(dtype)
    if d.kind != "f":
        return str(int(v))
    f = float(v)
    if not np.isfinite(f):
        return "0x" + np.asarray(v, d).tobytes()[::-1].hex().upper()  # inf/nan: bit pattern
    s = repr(f)  # exact for the dtype; MLIR's float literals need a decimal point
    if "." not in s:
        m, _, e = s.partition("e")
        s = f"{m}.0" + (f"e{e}" if e else "")
    return s


def _string(s: str) -> str:
    """A double-quoted MLIR string: printable ASCII as is, other bytes as \\XX escapes."""
    out = []
    for b in s.encode():
        c = chr(b)
        out.append(c if 32 <= b < 127 and c not in '"\\' else f"\\{b:02X}")
    return '"' + "".join(out) + '"'


def attribute(v) -> str:
    """An attribute value as MLIR text: ``1.0e-05 : f64``, ``3 : i64``, ``true``, ``"s"``,
    ``array<i64: 1, 2>``. Python ints are i64 and floats f64, as JAX."""
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, ArrayAttr):
        return f"array<{elem_type(v.dtype)}: {', '.join(_number(x, v.dtype) for x in v.values)}>"
    d = np.dtype(np.int64 if isinstance(v, int) else np.float64 if isinstance(v, float) else type(v))
    return f"{_number(v, d)} : {elem_type(d)}"


@ffi_call_p.def_lowering
def _ffi_call(ctx, *args, target_name, result_avals, vmap_method, attributes, has_side_effect,
              input_output_aliases):
    attrs = ["api_version = 4 : i32"]
    attrs.append("backend_config = {" + ", ".join(f"{k} = {attribute(v)}" for k, v in attributes) + "}")
    if has_side_effect:
        attrs.append("has_side_effect = true")
    if input_output_aliases:
        multi = len(result_avals) > 1
        aliases = ", ".join(
            f"#stablehlo.output_operand_alias<output_tuple_indices = [{o if multi else ''}], "
            f"operand_index = {i}, operand_tuple_indices = []>" for i, o in input_output_aliases)
        attrs.append(f"output_operand_aliases = [{aliases}]")
    in_types = ", ".join(ctx.type(a) for a in ctx.avals_in)
    out_types = [ctx.type(a) for a in ctx.avals_out]
    res = out_types[0] if len(out_types) == 1 else f"({', '.join(out_types)})"
    return ctx.op_results(f"stablehlo.custom_call @{target_name}({', '.join(args)}) "
                          f"{{{', '.join(attrs)}}} : ({in_types}) -> {res}", len(out_types))
