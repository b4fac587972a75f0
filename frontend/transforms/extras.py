"""The smaller transformations and helpers of JAX's top level: ``typeof``,
``ensure_compile_time_eval``, ``linear_transpose``, ``closure_convert``,
``custom_gradient`` and ``clear_caches``."""
from __future__ import annotations

import contextlib
import functools
from typing import Any

from ..core.arguments import leaf_aval
from ..core.graph_utils import closure_convert as _closure_convert_graph
from ..core.ir import (
    EVAL,
    Aval,
    Primitive,
    Trace,
    Tracer,
    _trace_var,
    aval_of,
    eval_graph,
    reset_current,
    set_current,
)
from ..core.pytree import register_node, tree_flatten, tree_unflatten
from ..core.tracing import trace_pytree
from ..device.array import Array
from ..interpreters.ad_util import UndefinedPrimal, Zero
from ..interpreters.transpose import backward_pass
from ..primitives.shape import instantiate_zeros
from .custom_derivatives import custom_vjp


def typeof(x: Any) -> Aval:
    """The abstract value (shape, dtype, weak type) of ``x``: an array, a tracer or a Python
    scalar (``jax.typeof``; ``fe.ShapedArray``)."""
    return leaf_aval(x)


# ----------------------------------------------------------------------------- compile-time eval


class _CompileTimeEvalTrace(Trace):
    """Under ``ensure_compile_time_eval``: an operation on concrete values runs now, on the
    device; one on a tracer is handed to the trace that was current (staged as usual)."""

    def process(self, prim: Primitive, args, params):
        if any(isinstance(a, Tracer) for a in args):
            token = set_current(self.parent)
            try:
                return prim.bind(*args, **params)
            finally:
                reset_current(token)
        return EVAL.process(prim, args, params)

    def const(self, x, weak: bool = False):
        return EVAL.const(x, weak)


@contextlib.contextmanager
def ensure_compile_time_eval():
    """Inside the with-block, operations on concrete values (not on the arguments of the
    function being traced) are computed while tracing, so their results are concrete:
    usable in Python control flow or as shapes, as ``jax.ensure_compile_time_eval``.

    >>> import frontend as fe, frontend.numpy as fnp
    >>> @fe.jit
    ... def f(x):
    ...     with fe.ensure_compile_time_eval():
    ...         n = int(fnp.arange(4).sum())  # concrete: 6
    ...     return x * n
    >>> f(1.0)
    Array(6., dtype=float32, weak_type=True)
    """
    parent = _trace_var.get()
    if parent is EVAL:
        yield
        return
    token = set_current(_CompileTimeEvalTrace(parent))
    try:
        yield
    finally:
        reset_current(token)


# ----------------------------------------------------------------------------- linear_transpose


def linear_transpose(fun, *primals, reduce_axes=()):
    """The transpose of the linear function ``fun`` at inputs shaped like ``primals``
    (arrays or ShapeDtypeStructs): ``f_t(cotangent)`` returns a tuple of cotangents of the
    inputs, as ``jax.linear_transpose``.

    >>> import frontend as fe, frontend.numpy as fnp
    >>> fe.linear_transpose(lambda x: 2 * x, fnp.ones(2))(fnp.ones(2))
    (Array([2., 2.], dtype=float32),)
    """
    if reduce_axes:
        raise NotImplementedError("reduce_axes argument to transpose is deprecated")
    leaves, in_td = tree_flatten(primals)
    in_avals = [leaf_aval(x) for x in leaves]
    g, out_td = trace_pytree(fun, in_td, in_avals)
    out_avals = list(g.out_avals)
    kinds = [a.dtype.kind for a in in_avals + out_avals]
    if not all(k in "fc" for k in kinds) and not all(k in "iu" for k in kinds):
        raise TypeError("linear_transpose only supports [float or complex] -> [float or "
                        f"complex], and integer -> integer functions, but got "
                        f"{tuple(in_avals)} -> {tuple(out_avals)}.")

    @functools.wraps(fun)
    def transposed(out_cotangent):
        c_leaves, c_td = tree_flatten(out_cotangent)
        if c_td != out_td:
            raise TypeError("cotangent tree does not match function output, expected "
                            f"PyTreeDef({out_td}) but got PyTreeDef({c_td})")
        if [(a.shape, a.dtype) for a in map(leaf_aval, c_leaves)] != \
                [(a.shape, a.dtype) for a in out_avals]:
            raise TypeError("cotangent type does not match function output, expected "
                            f"{tuple(out_avals)} but got {c_leaves}")
        cts = backward_pass(g, g.consts, [UndefinedPrimal(a) for a in in_avals], c_leaves)
        cts = [instantiate_zeros(Zero(a) if c is None or type(c) is Zero else c)
               for c, a in zip(cts, in_avals, strict=True)]
        return tuple(tree_unflatten(in_td, cts))

    return transposed


# ----------------------------------------------------------------------------- closures


def closure_convert(fun, *example_args):
    """``(converted, consts)``: ``converted(*args, *consts)`` computes ``fun(*args)`` with
    the traced values ``fun`` closes over (``consts``) as explicit arguments, so a custom
    derivative rule may take them (``jax.closure_convert``)."""
    leaves, in_td = tree_flatten(example_args)
    g, out_td = trace_pytree(fun, in_td, [leaf_aval(x) for x in leaves])
    g, consts = _closure_convert_graph(g)
    nc = len(consts)

    def converted(*args):
        a_leaves, _ = tree_flatten(args[:len(args) - nc])
        return tree_unflatten(out_td, eval_graph(g, (), [*args[len(args) - nc:], *a_leaves]))

    return converted, list(consts)


class _Rule:
    """A ``custom_gradient`` rule traced into a graph: residual arrays as pytree children,
    the graph as static data."""

    def __init__(self, graph, consts, in_td, out_td):
        self.graph, self.consts, self.in_td, self.out_td = graph, consts, in_td, out_td

    def __call__(self, ct):
        leaves, _ = tree_flatten(ct)
        out = tree_unflatten(self.out_td, eval_graph(self.graph, (), [*self.consts, *leaves]))
        return out if isinstance(out, tuple) else (out,)


register_node(_Rule, lambda r: (tuple(r.consts), (r.graph, r.in_td, r.out_td)),
                     lambda aux, consts: _Rule(aux[0], list(consts), aux[1], aux[2]))


def custom_gradient(fun):
    """A function with a custom gradient: ``fun(*args)`` returns ``(value, vjp)`` where
    ``vjp(cotangent)`` gives the cotangents of the arguments, as ``jax.custom_gradient``.

    >>> import frontend as fe, frontend.numpy as fnp
    >>> @fe.custom_gradient
    ... def f(x):
    ...     return x ** 2, lambda g: (g * 3.0,)
    >>> fe.grad(f)(2.0)
    Array(3., dtype=float32, weak_type=True)
    """
    @custom_vjp
    def wrapped(*args, **kwargs):
        return fun(*args, **kwargs)[0]

    def fwd(*args, **kwargs):
        ans, rule = fun(*args, **kwargs)
        leaves, out_td = tree_flatten(ans)
        g, rule_td = trace_pytree(lambda ct: rule(ct), tree_flatten((ans,))[1],
                                  [aval_of(x) for x in leaves])
        g, consts = _closure_convert_graph(g)
        return ans, _Rule(g, consts, out_td, rule_td)

    wrapped.defvjp(fwd, lambda rule, ct: rule(ct))
    return wrapped


def clear_caches() -> None:
    """Forget every compiled program of this process (jitted signatures, eager operations),
    as ``jax.clear_caches``: the next calls trace and compile again."""
    from ..device.array import _forget_eager_programs
    from .jit import _forget_programs
    _forget_programs()
    _forget_eager_programs()




def copy_to_host_async(x):
    """Start copying every array of the pytree ``x`` to the host (a later ``np.asarray``
    then waits less), as ``jax.copy_to_host_async``; returns ``x``."""
    for v in tree_flatten(x)[0]:
        if isinstance(v, Array):
            v._buf.copy_to_host_async()
    return x


__all__ = ["clear_caches", "closure_convert", "copy_to_host_async", "custom_gradient",
           "ensure_compile_time_eval", "linear_transpose", "typeof"]
