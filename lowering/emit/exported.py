"""The lowering rule of ``call_exported`` (frontend.export): the exported module's functions
are added to the module being written, and its @main is called with ``func.call``."""
from __future__ import annotations

import numpy as np

from frontend.core.ir import Aval
from frontend.export import call_exported_p

_I32 = Aval((), np.dtype(np.int32))


@call_exported_p.def_lowering
def _call_exported_lowering(ctx, *args, exported):
    name, text = exported.callee()
    ctx.add_function(name, text)
    operands = list(args)
    in_types = [ctx.type(a) for a in ctx.avals_in]
    idx = exported.platform_index()
    if idx is not None:  # a module exported for several platforms takes the platform's index
        operands.insert(0, ctx.constant(idx, _I32))
        in_types.insert(0, ctx.type(_I32))
    out_types = [ctx.type(a) for a in ctx.avals_out]
    return ctx.op_results(f"func.call @{name}({', '.join(operands)}) : ({', '.join(in_types)}) "
                          f"-> ({', '.join(out_types)})", len(out_types))
