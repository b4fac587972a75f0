"""Rematerialization: ``checkpoint(f)`` (``remat``) computes the same as ``f``, but reverse
mode stores only f's inputs and recomputes its intermediate values on the backward pass, as
``jax.checkpoint``.

``f`` is traced into the sub-graph of a ``checkpoint`` call primitive. Its jvp rule is the
primal call plus a second checkpoint call computing the tangents from the inputs and their
tangents (so under reverse mode the residuals are the inputs); its transpose is a third
call, the backward pass of that graph. With ``prevent_cse`` the lowering passes the call's
operands through ``stablehlo.optimization_barrier``, so XLA cannot merge the recomputation
with the forward pass.
"""
from __future__ import annotations

import functools

from ..core.arguments import leaf_aval
from ..core.graph_utils import closure_convert, dce
from ..core.ir import EVAL, Graph, Primitive, _trace_var, aval_of
from ..core.params import intern_graph
from ..core.pytree import tree_flatten, tree_unflatten
from ..core.tracing import trace_pytree
from ..interpreters import batching
from ..interpreters.ad_util import Zero, is_undefined_primal, tangent_aval
from ..interpreters.transpose import jvp_graph, transpose_graph
from ..primitives.control import batch_graph
from ..primitives.shape import instantiate_zeros, moveaxis

# checkpoint(*args; call, prevent_cse): call(*args), recomputed rather than stored by
# reverse mode.
checkpoint_p = Primitive("checkpoint", multiple_results=True)
checkpoint_p.def_abstract_eval(lambda *avals, call, prevent_cse: list(call.out_avals))


@checkpoint_p.def_batching
def _checkpoint_batch(args, dims, *, call, prevent_cse):
    # batched outputs have the batch axis at 0
    size = batching.axis_size(args, dims)
    args = [x if d is None else moveaxis(x, d, 0) for x, d in zip(args, dims, strict=True)]
    g, out_b = batch_graph(call, size, [None if d is None else 0 for d in dims])
    out = checkpoint_p.bind(*args, call=g, prevent_cse=prevent_cse)
    return out, [0 if b else None for b in out_b]


@checkpoint_p.def_jvp
def _checkpoint_jvp(primals, tangents, *, call, prevent_cse):
    nz = [type(t) is not Zero for t in tangents]
    out = checkpoint_p.bind(*primals, call=call, prevent_cse=prevent_cse)
    jg, out_nz, consts = jvp_graph(call, nz, [False] * len(call.outvars))
    n = len(call.outvars)
    tg = intern_graph(dce(Graph(jg.invars, (), (), jg.eqns, jg.outvars[n:])))
    ts = [t for t in tangents if type(t) is not Zero]
    touts = iter(checkpoint_p.bind(*consts, *primals, *ts, call=tg, prevent_cse=prevent_cse))
    return out, [next(touts) if z else Zero(tangent_aval(aval_of(o)))
                 for o, z in zip(out, out_nz, strict=True)]


@checkpoint_p.def_transpose
def _checkpoint_transpose(cts, *args, call, prevent_cse):
    lin = [is_undefined_primal(a) for a in args]
    tg, consts = transpose_graph(call, lin)
    known = [a for a, is_lin in zip(args, lin, strict=True) if not is_lin]
    cts = [instantiate_zeros(c) for c in cts]
    out = iter(checkpoint_p.bind(*consts, *known, *cts, call=tg, prevent_cse=prevent_cse))
    return [next(out) if is_lin else None for is_lin in lin]


def checkpoint(fun, *, prevent_cse=True, policy=None, static_argnums=()):
    """``fun``, differentiated by recomputing its intermediate values on the backward pass
    instead of storing them (``jax.checkpoint``; ``policy`` must be None: nothing is saved).

    >>> import frontend as fe
    >>> import frontend.numpy as fnp
    >>> g = fe.checkpoint(lambda y: fnp.sin(fnp.sin(y)))
    >>> fe.grad(lambda x: fnp.sum(g(x)))(fnp.zeros(2))
    Array([1., 1.], dtype=float32)
    """
    if policy is not None:
        raise NotImplementedError("checkpoint policies are not supported: policy must be None "
                                  "(every intermediate value is recomputed)")
    static_argnums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(fun)
    def remat_f(*args, **kwargs):
        if _trace_var.get() is EVAL:
            return fun(*args, **kwargs)
        n = len(args)
        nd = {i % n for i in static_argnums}
        dyn = [a for i, a in enumerate(args) if i not in nd]
        leaves, in_tree = tree_flatten((dyn, kwargs))

        def call(d, kw):
            it = iter(d)
            return fun(*[args[i] if i in nd else next(it) for i in range(n)], **kw)

        g, out_tree = trace_pytree(call, in_tree, [leaf_aval(x) for x in leaves])
        g, consts = closure_convert(g)
        outs = checkpoint_p.bind(*consts, *leaves, call=intern_graph(g),
                                 prevent_cse=bool(prevent_cse))
        return tree_unflatten(out_tree, outs)

    return remat_f


remat = checkpoint

__all__ = ["checkpoint", "checkpoint_p", "remat"]
