"""The lowering rule of ``call_exported`` (frontend.export): the exported module's functions
are added to the module being written, and its @main is called with ``func.call``."""
from __future__ import annotations

import numpy as np

from frontend.core.ir import Aval
from frontend.export import call_exported_p

_I32 = Aval((), np.dtype(np.int32))


@call_exported_p.def_lowering
def _call_exported_lowering(ctx, *args, exported):
    # the index of each platform being lowered for among the exported ones: None (exported
    # for one), an int (that platform's module alone is called), or computed from this
    # module's own platform index (the callee takes it, JAX's convention)
    idx = ctx.platform_branch(exported.platform_branch, f"the call of {exported.fun_name}")
    operands = list(args)
    in_types = [ctx.type(a) for a in ctx.avals_in]
    if isinstance(idx, str):
        operands.insert(0, idx)
        in_types.insert(0, ctx.type(_I32))
    out_types = [ctx.type(a) for a in ctx.avals_out]
    # (a shape-polymorphic module is refined to this call's static types)
    name, text = exported.callee(idx if type(idx) is int else None,
                                 (tuple(in_types), tuple(out_types)))
    ctx.add_function(name, text)
    return ctx.op_results(f"func.call @{name}({', '.join(operands)}) : ({', '.join(in_types)}) "
                          f"-> ({', '.join(out_types)})", len(out_types))
