"""Custom batching rules for functions, as ``jax.custom_batching``: ``custom_vmap`` with
``.def_vmap(rule)``, and ``sequential_vmap``.

    >>> import frontend as fe
    >>> import frontend.numpy as fnp
    >>> from frontend.custom_batching import custom_vmap
    >>> @custom_vmap
    ... def f(x):
    ...     return fnp.sin(x)
    >>> @f.def_vmap
    ... def f_vmap(axis_size, in_batched, x):
    ...     return fnp.cos(x), in_batched[0]     # under vmap, cos instead
    >>> f(0.0), fe.vmap(f)(fnp.zeros(2))
    (Array(0., dtype=float32, weak_type=True), Array([1., 1.], dtype=float32))

The function is traced into a sub-graph held by a ``custom_vmap_call`` primitive, so the
rule is found even when the call sits inside a jit or a loop body that is vmapped later.
Without vmap the function runs as written.
"""
from __future__ import annotations

import functools
import inspect

from .core.arguments import leaf_aval
from .core.graph_utils import closure_convert
from .core.ir import EVAL, Primitive, _trace_var, eval_graph, rule_replaced
from .core.pytree import tree_flatten, tree_unflatten
from .core.tracing import trace_pytree
from .interpreters import batching
from .interpreters.jvp import jvp_fun
from .lax import map as lax_map
from .primitives.shape import moveaxis

# custom_vmap_call(*consts, *args; call, num_consts, rule, in_tree, out_tree):
# call(*consts, *args) -> outputs; ``rule`` is the user's vmap rule.
custom_vmap_call_p = Primitive("custom_vmap_call", multiple_results=True)


@custom_vmap_call_p.def_abstract_eval
def _custom_vmap_call_abstract_eval(*avals, call, num_consts, rule, in_tree, out_tree):
    return list(call.out_avals)


@custom_vmap_call_p.def_batching
def _custom_vmap_call_batch(args, dims, *, call, num_consts, rule, in_tree, out_tree):
    # the user's rule sees its arguments with the batch axis at 0; batched outputs have it at 0
    size = batching.axis_size(args, dims)
    xs = args[num_consts:]
    if any(d is not None for d in dims[:num_consts]):
        raise ValueError("a custom_vmap function closes over a value that an enclosing vmap "
                         "batches; pass that value as an argument of the function instead")
    xdims = dims[num_consts:]
    xs = [x if d is None else moveaxis(x, d, 0) for x, d in zip(xs, xdims, strict=True)]
    in_batched = tree_unflatten(in_tree, [d is not None for d in xdims])
    res = rule(size, list(in_batched), *tree_unflatten(in_tree, xs))
    if not isinstance(res, (tuple, list)) or len(res) != 2:
        raise TypeError("a custom_vmap rule must return a pair (outputs, out_batched), got "
                        f"{type(res).__name__}")
    out, out_batched = res
    outs, otd = tree_flatten(out)
    flags, ftd = tree_flatten(out_batched)
    if otd != out_tree:
        raise TypeError(f"the custom_vmap rule returned outputs of structure {otd}, but the "
                        f"function returns {out_tree}")
    if ftd != out_tree or not all(isinstance(f, bool) for f in flags):
        raise TypeError("the custom_vmap rule's out_batched must be a pytree of bools with the "
                        f"structure of the outputs ({out_tree}), got {out_batched!r}")
    for o, b, want in zip(outs, flags, call.out_avals, strict=True):
        a = leaf_aval(o)
        expect = ((size,) if b else ()) + want.shape
        if a.shape != expect or a.dtype != want.dtype:
            raise ValueError(f"the custom_vmap rule returned an output of type "
                             f"{a.str_short()} (batched={b}), expected "
                             f"{want.update(shape=expect).str_short()}")
    return outs, [0 if b else None for b in flags]


@custom_vmap_call_p.def_jvp
def _custom_vmap_call_jvp(primals, tangents, *, call, num_consts, rule, in_tree, out_tree):
    # the primal keeps the rule; the tangents differentiate the function as written (the rule
    # computes the same function, so this is its derivative too)
    out = custom_vmap_call_p.bind(*primals, call=call, num_consts=num_consts, rule=rule,
                                  in_tree=in_tree, out_tree=out_tree)
    _, touts = jvp_fun(lambda *a: eval_graph(call, (), a), list(primals), list(tangents))
    return out, touts


class custom_vmap:
    """Wrap ``fun`` so that vmap uses a rule of your own: ``rule(axis_size, in_batched,
    *args) -> (out, out_batched)``, with batched arguments' batch axis at 0 and
    ``in_batched``/``out_batched`` pytrees of bools shaped like the arguments / outputs."""

    def __init__(self, fun):
        functools.update_wrapper(self, fun, updated=())  # not __dict__: it would clobber ours
        self.fun = fun
        self.vmap_rule = None

    def def_vmap(self, rule):
        old, self.vmap_rule = self.vmap_rule, rule
        if old is not None and old is not rule:
            rule_replaced()  # programs built with the old rule are dropped
        return rule

    def __call__(self, *args, **kwargs):
        if self.vmap_rule is None:
            raise AttributeError(f"No batching rule defined for custom_vmap function "
                                 f"{getattr(self.fun, '__name__', self.fun)} using def_vmap.")
        if kwargs:  # as JAX: keyword arguments become positional ones
            bound = inspect.signature(self.fun).bind(*args, **kwargs)
            if bound.kwargs:
                raise TypeError("custom_vmap functions cannot take keyword-only arguments, got "
                                f"{sorted(bound.kwargs)}")
            args = bound.args
        if _trace_var.get() is EVAL:
            return self.fun(*args)
        leaves, in_tree = tree_flatten(args)
        g, out_tree = trace_pytree(self.fun, in_tree, [leaf_aval(x) for x in leaves])
        g, consts = closure_convert(g)
        outs = custom_vmap_call_p.bind(*consts, *leaves, call=g, num_consts=len(consts),
                                       rule=self.vmap_rule, in_tree=in_tree, out_tree=out_tree)
        return tree_unflatten(out_tree, outs)


def sequential_vmap(f):
    """``f`` whose vmap is a sequential loop over the batch (one ``lax.map``), for functions
    that cannot be vectorized or should not be."""
    f = custom_vmap(f)

    @f.def_vmap
    def rule(axis_size, in_batched, *args):
        leaves, td = tree_flatten(args)
        flags, _ = tree_flatten(in_batched)
        idx = [i for i, b in enumerate(flags) if b]

        def one(xs):
            full = list(leaves)
            for i, x in zip(idx, xs, strict=True):
                full[i] = x
            return f.fun(*tree_unflatten(td, full))

        out = lax_map(one, [leaves[i] for i in idx])
        outs, otd = tree_flatten(out)
        return out, tree_unflatten(otd, [True] * len(outs))

    return f


__all__ = ["custom_vmap", "sequential_vmap", "custom_vmap_call_p"]
