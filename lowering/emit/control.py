"""Lowering rules of the control-flow family: cond -> stablehlo.if (two branches) /
stablehlo.case, while -> stablehlo.while, scan -> stablehlo.while over an i32 counter that
reads xs with dynamic_slice and writes the stacked ys with dynamic_update_slice. Sub-graphs
become regions (``ctx.region``); operands of the enclosing scope are used inside the regions
directly (implicit capture) instead of being threaded through the loop carry."""
from __future__ import annotations

import functools

import numpy as np

from frontend.core.ir import LOWERING_PLATFORMS, Aval
from frontend.custom_batching import custom_vmap_call_p
from frontend.primitives.barrier import optimization_barrier_p
from frontend.primitives.control import cond_p, platform_branch, platform_index_p, scan_p, while_p
from frontend.primitives.linear_solve import linear_solve_p
from frontend.transforms.checkpoint import checkpoint_p, name_p
from frontend.transforms.custom_derivatives import custom_jvp_call_p, custom_lin_p, custom_vjp_call_p

from .module import tensor_type

_I32 = Aval((), np.int32)
_BOOL = Aval((), np.bool_)


def _types(avals) -> str:
    return ", ".join(tensor_type(a) for a in avals)


def _platform_index(platform, ctx, *, platforms):
    k = platform_branch(platforms, platform)
    name = ctx.constant(k, _I32)
    ctx.fn.known_ints[name] = k  # a cond on it emits only that branch
    return [name]


for _p in LOWERING_PLATFORMS:  # (in a module for several platforms: a case on its index)
    platform_index_p.def_lowering(functools.partial(_platform_index, _p), platform=_p)


@cond_p.def_lowering
def _cond(ctx, index, *ops, branches):
    out_avals = list(ctx.avals_out)
    known = ctx.fn.known_ints.get(index)
    if known is not None:  # (platform_dependent lowered for one platform: its branch only)
        return ctx.lower_body(branches[known], list(ops))

    def region(g):
        return ctx.region(lambda _: (ctx.lower_body(g, list(ops)), out_avals))

    sig = f"-> ({_types(out_avals)})"
    if len(branches) == 2:
        zero = ctx.constant(0, _I32)
        pred = ctx.op(f"stablehlo.compare NE, {index}, {zero}, SIGNED : "
                      f"(tensor<i32>, tensor<i32>) -> tensor<i1>")
        t, f = region(branches[1]), region(branches[0])
        return ctx.op_results(f'"stablehlo.if"({pred}) ({t}, {f}) : (tensor<i1>) {sig}',
                              len(out_avals))
    regions = ", ".join(region(g) for g in branches)
    return ctx.op_results(f'"stablehlo.case"({index}) ({regions}) : (tensor<i32>) {sig}',
                          len(out_avals))


@while_p.def_lowering
def _while(ctx, *names, cond_graph, body_graph, cond_nconsts, body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    cconsts, bconsts, init = list(names[:nc]), list(names[nc:nc + nb]), list(names[nc + nb:])
    carry = list(ctx.avals_in[nc + nb:])
    cond_r = ctx.region(lambda args: (ctx.lower_body(cond_graph, cconsts + args), [_BOOL]), carry)
    body_r = ctx.region(lambda args: (ctx.lower_body(body_graph, bconsts + args), carry), carry)
    return ctx.op_results(f'"stablehlo.while"({", ".join(init)}) ({cond_r}, {body_r}) : '
                          f"({_types(carry)}) -> ({_types(carry)})", len(carry))


@scan_p.def_lowering
def _scan(ctx, *names, body, num_consts, num_carry, length, reverse):
    nc, nk = num_consts, num_carry
    consts, init, xs = list(names[:nc]), list(names[nc:nc + nk]), list(names[nc + nk:])
    carry_avals = list(ctx.avals_in[nc:nc + nk])
    x_avals = list(ctx.avals_in[nc + nk:])
    y_avals = list(ctx.avals_out[nk:])
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

    cond_r = ctx.region(cond, loop)
    body_r = ctx.region(step, loop)
    res = ctx.op_results(f'"stablehlo.while"({", ".join([zero, *init, *ys0])}) ({cond_r}, '
                         f"{body_r}) : ({_types(loop)}) -> ({_types(loop)})", len(loop))
    return res[1:]


def _inline_call(ctx, *names, call, **params):
    # the function itself, inlined (its custom rules only matter to transformations)
    return ctx.lower_body(call, list(names))


for _p in (custom_vmap_call_p, custom_jvp_call_p, custom_vjp_call_p):
    _p.def_lowering(_inline_call)


@linear_solve_p.def_lowering
def _linear_solve(ctx, *names, solve, **params):
    # the solve inlined (matvec and the transposes only matter to transformations)
    return ctx.lower_body(solve, list(names))


@checkpoint_p.def_lowering
def _checkpoint(ctx, *names, call, prevent_cse, policy):
    # the body inlined; with prevent_cse its operands pass an optimization barrier, so XLA
    # does not merge a recomputation with the values it replaces
    names = list(names)
    if prevent_cse and names:
        types = _types(ctx.avals_in)
        names = ctx.op_results(f"stablehlo.optimization_barrier {', '.join(names)} : {types}",
                               len(names))
    return ctx.lower_body(call, names)


@name_p.def_lowering
def _name(ctx, x, *, name):
    return x  # (a name only matters to checkpoint's policies)


@custom_lin_p.def_lowering
def _custom_lin(ctx, *names, **params):
    # only reverse mode transposes it; evaluating it means forward mode reached a custom_vjp
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


@optimization_barrier_p.def_lowering
def _optimization_barrier(ctx, *xs):
    types = ", ".join(ctx.type(a) for a in ctx.avals_in)
    return ctx.op_results(f"stablehlo.optimization_barrier {', '.join(xs)} : {types}", len(xs))
