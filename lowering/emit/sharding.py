"""Lowering rules of the sharding primitives, in Shardy's dialect (lowering/shardy.py):

- sharding_constraint -> ``sdy.sharding_constraint %x <@mesh, [{"x"}, {}]>``
- shard_map -> ``sdy.manual_computation`` over every mesh axis: its region (isolated from
  the enclosing function) is the body graph on per-device types, the collectives in it
  lowered for the mesh (``ctx.manual_scope``).
"""
from __future__ import annotations

from frontend.primitives.sharding import shard_map_p, sharding_constraint_p

from . import shardy


@sharding_constraint_p.def_lowering
def _sharding_constraint(ctx, x, *, sharding):
    (a,) = ctx.avals_in
    ts = shardy.tensor_sharding(ctx.mesh_ref(sharding.mesh), sharding.dims(a.ndim))
    return [ctx.op(f"sdy.sharding_constraint {x} {ts} : {ctx.type(a)}")]


@shard_map_p.def_lowering
def _shard_map(ctx, *xs, body, mesh, in_specs, out_specs):
    ref = ctx.mesh_ref(mesh)
    local_in = [v.aval for v in body.invars]
    local_out = [v.aval for v in body.outvars]
    with ctx.manual_scope(mesh):
        args, lines, outs, _ = ctx.scoped(lambda a: (ctx.lower_body(body, a), local_out),
                                          local_in, isolated=True)
    ins = ", ".join(shardy.tensor_sharding(ref, d) for d in in_specs)
    outs_sh = ", ".join(shardy.tensor_sharding(ref, d) for d in out_specs)
    block_args = ", ".join(f"{n}: {ctx.type(a)}" for n, a in zip(args, local_in, strict=True))
    ret_types = ", ".join(ctx.type(a) for a in local_out)
    ret = f"sdy.return {', '.join(outs)} : {ret_types}" if outs else "sdy.return"
    in_types = ", ".join(ctx.type(a) for a in ctx.avals_in)
    out_types = ", ".join(ctx.type(a) for a in ctx.avals_out)
    body_text = "\n".join(["  " + ln for ln in "\n".join(lines).split("\n") if lines] +
                          [f"      {ret}", "    }"])
    text = (f"sdy.manual_computation({', '.join(xs)}) in_shardings=[{ins}] "
            f"out_shardings=[{outs_sh}] manual_axes={shardy.axes_set(mesh.axis_names)} "
            f"({block_args}) {{\n{body_text} : ({in_types}) -> ({out_types})")
    return ctx.op_results(text, len(ctx.avals_out))
