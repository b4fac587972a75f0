"""Emitters of the control-flow family: cond -> stablehlo.if (two branches) / stablehlo.case,
while -> stablehlo.while, scan -> stablehlo.while over an i32 counter that reads xs with
dynamic_slice and writes the stacked ys with dynamic_update_slice. Sub-graphs become regions
(lowering.hlo.emit_region); operands of the enclosing scope are used inside the regions
directly (implicit capture) instead of being threaded through the loop carry."""
from __future__ import annotations

import numpy as np

from frontend.core import Aval

from ..hlo import emit_region, emitter, op_results, tensor_type

_I32 = Aval((), np.int32)
_BOOL = Aval((), np.bool_)


def _types(avals) -> str:
    return ", ".join(tensor_type(a) for a in avals)


@emitter("cond")
def _cond(ctx, eqn, index, *ops):
    branches = eqn.params["branches"]
    out_avals = [v.aval for v in eqn.outs]

    def region(g):
        return emit_region(ctx, lambda _: (ctx.lower_body(g, list(ops)), out_avals))

    sig = f"-> ({_types(out_avals)})"
    if len(branches) == 2:
        zero = ctx.constant(0, _I32)
        pred = ctx.op(f"stablehlo.compare NE, {index}, {zero}, SIGNED : "
                      f"(tensor<i32>, tensor<i32>) -> tensor<i1>")
        t, f = region(branches[1]), region(branches[0])
        return op_results(ctx, f'"stablehlo.if"({pred}) ({t}, {f}) : (tensor<i1>) {sig}', len(out_avals))
    regions = ", ".join(region(g) for g in branches)
    return op_results(ctx, f'"stablehlo.case"({index}) ({regions}) : (tensor<i32>) {sig}', len(out_avals))


@emitter("while")
def _while(ctx, eqn, *names):
    p = eqn.params
    nc, nb = p["cond_nconsts"], p["body_nconsts"]
    cconsts, bconsts, init = list(names[:nc]), list(names[nc:nc + nb]), list(names[nc + nb:])
    carry = [a.aval for a in eqn.inputs[nc + nb:]]
    cond_r = emit_region(ctx, lambda args: (ctx.lower_body(p["cond_graph"], cconsts + args), [_BOOL]), carry)
    body_r = emit_region(ctx, lambda args: (ctx.lower_body(p["body_graph"], bconsts + args), carry), carry)
    return op_results(ctx, f'"stablehlo.while"({", ".join(init)}) ({cond_r}, {body_r}) : '
                           f"({_types(carry)}) -> ({_types(carry)})", len(carry))


@emitter("scan")
def _scan(ctx, eqn, *names):
    p = eqn.params
    nc, nk, length, reverse, body = (p["num_consts"], p["num_carry"], p["length"], p["reverse"],
                                     p["body"])
    consts, init, xs = list(names[:nc]), list(names[nc:nc + nk]), list(names[nc + nk:])
    carry_avals = [a.aval for a in eqn.inputs[nc:nc + nk]]
    x_avals = [a.aval for a in eqn.inputs[nc + nk:]]
    y_avals = [v.aval for v in eqn.outs[nk:]]
    zero = ctx.constant(0, _I32)
    ys0 = [ctx.constant(np.zeros((), a.dtype), a) for a in y_avals]
    if length == 0:
        # no iteration: the carry passes through, the stacked outputs are empty (a loop body
        # would slice one row of a zero-length axis, which StableHLO rejects)
        return [*init, *ys0]
    loop = [_I32, *carry_avals, *y_avals]

    def cond(args):
        n = ctx.constant(length, _I32)
        return [ctx.op(f"stablehlo.compare LT, {args[0]}, {n}, SIGNED : "
                       f"(tensor<i32>, tensor<i32>) -> tensor<i1>")], [_BOOL]

    def step(args):
        i, carry, bufs = args[0], args[1:1 + nk], args[1 + nk:]
        idx = i
        if reverse:
            last = ctx.constant(length - 1, _I32)
            idx = ctx.op(f"stablehlo.subtract {last}, {i} : tensor<i32>")
        slices = []
        for x, a in zip(xs, x_avals, strict=True):
            one = Aval((1,) + a.shape[1:], a.dtype)
            starts = ", ".join([idx] + [zero] * (a.ndim - 1))
            sizes = ", ".join(map(str, one.shape))
            s = ctx.op(f"stablehlo.dynamic_slice {x}, {starts}, sizes = [{sizes}] : "
                       f"({tensor_type(a)}, {', '.join(['tensor<i32>'] * a.ndim)}) -> {tensor_type(one)}")
            slices.append(ctx.op(f"stablehlo.reshape {s} : ({tensor_type(one)}) -> "
                                 f"{tensor_type(Aval(a.shape[1:], a.dtype))}"))
        outs = ctx.lower_body(body, consts + list(carry) + slices)
        new_bufs = []
        for buf, y, a in zip(bufs, outs[nk:], y_avals, strict=True):
            one = Aval((1,) + a.shape[1:], a.dtype)
            y1 = ctx.op(f"stablehlo.reshape {y} : ({tensor_type(Aval(a.shape[1:], a.dtype))}) -> "
                        f"{tensor_type(one)}")
            starts = ", ".join([idx] + [zero] * (a.ndim - 1))
            new_bufs.append(ctx.op(
                f"stablehlo.dynamic_update_slice {buf}, {y1}, {starts} : ({tensor_type(a)}, "
                f"{tensor_type(one)}, {', '.join(['tensor<i32>'] * a.ndim)}) -> {tensor_type(a)}"))
        one = ctx.constant(1, _I32)
        i1 = ctx.op(f"stablehlo.add {i}, {one} : tensor<i32>")
        return [i1, *outs[:nk], *new_bufs], loop

    cond_r = emit_region(ctx, cond, loop)
    body_r = emit_region(ctx, step, loop)
    res = op_results(ctx, f'"stablehlo.while"({", ".join([zero, *init, *ys0])}) ({cond_r}, {body_r}) : '
                          f"({_types(loop)}) -> ({_types(loop)})", len(loop))
    return res[1:]
