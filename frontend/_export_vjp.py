"""Differentiable artifacts (JAX's ``serialize(vjp_order=n)``): the VJP of an exported
function, exported itself, and the backward rule ``Exported.call`` uses under grad/vjp.

The VJP of an Exported ``f`` with flat inputs ``x`` (its in_avals) and outputs ``y`` is a
function of ``(*x, *ct_y)`` giving ``ct_x`` (flat), as JAX's: our artifacts build it from the
traced graph they were exported from; JAX artifacts serialized with ``vjp_order >= 1`` carry
it and are read with it.
"""
from __future__ import annotations

import numpy as np

from .core import dtypes
from .core.ir import ShapeDtypeStruct, aval_of, inline_graph
from .core.shape_poly import evaluate_shape, is_symbolic_shape


def _differentiable(aval) -> bool:
    return np.issubdtype(aval.dtype, np.inexact)


def export_vjp(exp, graph, export_fn, jit_fn, vjp_fn):
    """The Exported of the VJP of ``exp`` (whose flat function is ``graph``), exported with
    ``export_fn(jit_fn(...))``; ``vjp_fn`` is frontend.vjp. Cotangents of integer or boolean
    inputs are zeros of their dtype (an artifact cannot return float0)."""
    n_in = len(exp.in_avals)

    def fun_vjp(*xs_and_cts):
        xs, cts = xs_and_cts[:n_in], xs_and_cts[n_in:]
        if any(is_symbolic_shape(a.shape) and not _differentiable(a)
               for a in (*exp.in_avals, *exp.out_avals)):
            raise NotImplementedError(
                f"the VJP of {exp.fun_name}, exported with symbolic shapes, has integer or "
                "boolean inputs or outputs of symbolic shape: not supported (export it for "
                "static shapes, or with float arrays only)")
        _, pullback = vjp_fn(lambda *a: inline_graph(graph, list(a)), *xs)
        outs = pullback([c if _differentiable(a) else np.zeros(a.shape, dtypes.float0)
                         for c, a in zip(cts, exp.out_avals, strict=True)])
        return [o if _differentiable(a) else np.zeros(a.shape, a.dtype)
                for o, a in zip(outs, exp.in_avals, strict=True)]

    fun_vjp.__name__ = f"{exp.fun_name}_vjp"
    specs = [ShapeDtypeStruct(a.shape, a.dtype) for a in (*exp.in_avals, *exp.out_avals)]
    return export_fn(jit_fn(fun_vjp))(*specs)


def vjp_backward(exp):
    """``bwd(residuals, cotangents) -> input cotangents`` for ``Exported.call`` of ``exp``
    (residuals: the primal inputs), running ``exp.vjp()``; None for inputs that have no
    cotangent (integers, booleans)."""
    def bwd(res, cts):
        vjp = exp.vjp()
        ct_avals = vjp.in_avals[len(exp.in_avals):]  # (integer outputs: zeros of its type)
        env = exp._check_avals([aval_of(r) for r in res], exp.in_avals)  # (symbolic dims)
        cts = [np.zeros(evaluate_shape(v.shape, env), v.dtype) if not _differentiable(a) else c
               for c, a, v in zip(cts, exp.out_avals, ct_avals, strict=True)]
        outs = vjp.call(*res, *cts)
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        return [o if _differentiable(a) else None
                for o, a in zip(outs, exp.in_avals, strict=True)]
    return bwd
