"""Rematerialization: ``checkpoint(f)`` (``remat``) computes the same as ``f``, but reverse
mode stores only f's inputs and recomputes its intermediate values on the backward pass, as
``jax.checkpoint``; a ``policy`` (``checkpoint_policies``) names intermediate values that
are saved instead.

``f`` is traced into the sub-graph of a ``checkpoint`` call primitive. Its jvp rule splits
the jvp graph of the call: a primal call computes the outputs and the values the policy
saves (the outputs of the primal equations it accepts, as JAX asks it:
``policy(prim, *input_avals, **params)``), and a second checkpoint call computes the
tangents from the inputs, those saved values and the tangents, recomputing every other
primal value it needs (so under reverse mode the residuals are the inputs and the saved
values); its transpose is a third call, the backward pass of that graph. With
``prevent_cse`` the lowering passes the call's operands through
``stablehlo.optimization_barrier``, so XLA cannot merge the recomputation with the forward
pass. ``checkpoint_name(x, name)`` tags a value for the policies that save by name.
"""
from __future__ import annotations

import functools
import types
from dataclasses import dataclass

from ..core.arguments import leaf_aval, leaf_paths
from ..core.graph_utils import closure_convert, dce
from ..core.ir import EVAL, Graph, Primitive, Var, _trace_var, aval_of
from ..core.params import intern_graph
from ..core.pytree import tree_flatten, tree_unflatten
from ..core.tracing import trace_pytree
from ..interpreters import batching
from ..interpreters.ad_util import Zero, is_undefined_primal, tangent_aval
from ..interpreters.transpose import jvp_graph, linearize_graph, transpose_graph
from ..primitives.control import batch_graph
from ..primitives.conv import conv_general_dilated_p
from ..primitives.linalg import dot_general_p
from ..primitives.shape import instantiate_zeros, moveaxis

# checkpoint(*args; call, prevent_cse, policy): call(*args), recomputed rather than stored
# by reverse mode, but for the values ``policy`` saves (None: none).
checkpoint_p = Primitive("checkpoint", multiple_results=True)
checkpoint_p.param_aliases = {"jaxpr": "call"}  # (JAX's remat2 param)
checkpoint_p.def_abstract_eval(lambda *avals, call, prevent_cse, policy: list(call.out_avals))


@checkpoint_p.def_batching
def _checkpoint_batch(args, dims, *, call, prevent_cse, policy):
    # batched outputs have the batch axis at 0
    size = batching.axis_size(args, dims)
    args = [x if d is None else moveaxis(x, d, 0) for x, d in zip(args, dims, strict=True)]
    g, out_b = batch_graph(call, size, [None if d is None else 0 for d in dims])
    out = checkpoint_p.bind(*args, call=g, prevent_cse=prevent_cse, policy=policy)
    return out, [0 if b else None for b in out_b]


def _saves(policy, e) -> bool:
    """Whether ``policy`` saves the outputs of equation ``e`` (JAX's question to it)."""
    if policy is None:
        return False
    r = policy(e.prim, *[aval_of(x) for x in e.inputs], **e.params)
    return r is not Recompute and bool(r)


def _split_by_policy(call: Graph, nz: list, policy) -> tuple[Graph, Graph, list, list, list]:
    """(primal, tangent, consts, out_nonzero, res) of ``call``'s jvp graph: ``primal`` takes
    [consts..., inputs...] and returns [outputs..., saved values...]; ``tangent`` takes
    [consts..., inputs..., saved values..., nonzero tangents...] and returns the tangents of
    the outputs with ``out_nonzero``, recomputing the primal values the policy does not
    save. Saved value k is ``primal``'s output ``res[k]`` (an output of the call itself is
    not returned twice)."""
    n = len(call.outvars)
    jg, out_nz, consts = jvp_graph(call, nz, [False] * n)
    k = len(consts) + len(call.invars)
    linear = set(jg.invars[k:])
    known, saved = [], []
    for e in jg.eqns:
        if any(type(x) is Var and x in linear for x in e.inputs):
            linear.update(e.outs)
        else:
            known.append(e)
            if _saves(policy, e):
                saved.append(e)
    res = [v for e in saved for v in e.outs]
    rest = tuple(e for e in jg.eqns if not any(e is s_ for s_ in saved))
    tg = dce(Graph(jg.invars[:k] + tuple(res) + jg.invars[k:], (), (), rest, jg.outvars[n:]))
    used = {x for e in tg.eqns for x in e.inputs} | set(tg.outvars)
    res = [v for v in res if v in used]
    tg = Graph(jg.invars[:k] + tuple(res) + jg.invars[k:], (), (), tg.eqns, tg.outvars)
    outs = list(jg.outvars[:n])
    extra = [v for v in res if not any(v is o for o in outs)]
    where = [next((i for i, o in enumerate(outs) if o is v), None) for v in res]
    where = [n + extra.index(v) if i is None else i for v, i in zip(res, where, strict=True)]
    primal = dce(Graph(jg.invars[:k], (), (), tuple(known), tuple(outs + extra)))
    return intern_graph(primal), intern_graph(tg), consts, out_nz, where


@checkpoint_p.def_jvp
def _checkpoint_jvp(primals, tangents, *, call, prevent_cse, policy):
    nz = [type(t) is not Zero for t in tangents]
    primal, tg, consts, out_nz, where = _split_by_policy(call, nz, policy)
    outs = checkpoint_p.bind(*consts, *primals, call=primal, prevent_cse=prevent_cse,
                             policy=policy)
    out, res = outs[:len(call.outvars)], [outs[i] for i in where]
    ts = [t for t in tangents if type(t) is not Zero]
    touts = iter(checkpoint_p.bind(*consts, *primals, *res, *ts, call=tg,
                                   prevent_cse=prevent_cse, policy=policy))
    return out, [next(touts) if z else Zero(tangent_aval(aval_of(o)))
                 for o, z in zip(out, out_nz, strict=True)]


@checkpoint_p.def_transpose
def _checkpoint_transpose(cts, *args, call, prevent_cse, policy):
    lin = [is_undefined_primal(a) for a in args]
    tg, consts = transpose_graph(call, lin)
    known = [a for a, is_lin in zip(args, lin, strict=True) if not is_lin]
    cts = [instantiate_zeros(c) for c in cts]
    out = iter(checkpoint_p.bind(*consts, *known, *cts, call=tg, prevent_cse=prevent_cse,
                                 policy=policy))
    return [next(out) if is_lin else None for is_lin in lin]


def checkpoint(fun, *, prevent_cse=True, policy=None, static_argnums=()):
    """``fun``, differentiated by recomputing its intermediate values on the backward pass
    instead of storing them (``jax.checkpoint``); ``policy(prim, *avals, **params)`` (e.g.
    one of ``checkpoint_policies``) says which equations' outputs are saved instead
    (None: nothing is).

    >>> import frontend as fe
    >>> import frontend.numpy as fnp
    >>> g = fe.checkpoint(lambda y: fnp.sin(fnp.sin(y)))
    >>> fe.grad(lambda x: fnp.sum(g(x)))(fnp.zeros(2))
    Array([1., 1.], dtype=float32)
    """
    if policy is not None and not callable(policy):
        raise TypeError(f"checkpoint policy must be a callable (prim, *avals, **params) -> "
                        f"bool, got {policy!r}")
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
                                 prevent_cse=bool(prevent_cse), policy=policy)
        return tree_unflatten(out_tree, outs)

    return remat_f


remat = checkpoint

# ----------------------------------------------------------------------------- names, policies

# name(x; name): x, tagged for the policies that save values by name
name_p = Primitive("name")
name_p.def_abstract_eval(lambda aval, *, name: aval)
name_p.def_batching(lambda args, dims, *, name: (name_p.bind(args[0], name=name), dims[0]))
name_p.def_jvp(lambda primals, tangents, *, name: (name_p.bind(primals[0], name=name),
                                                   tangents[0]))  # (the tangent: unnamed)
# (no transpose rule, as JAX's: the jvp rule leaves tangents unnamed, so reverse mode never
# meets one; linear_transpose of a name raises as JAX's does)


def checkpoint_name(x, name):
    """``x`` (a pytree), its values named ``name`` for ``save_only_these_names`` and
    ``save_any_names_but_these`` (``jax.ad_checkpoint.checkpoint_name``)."""
    leaves, tree = tree_flatten(x)
    return tree_unflatten(tree, [name_p.bind(v, name=name) for v in leaves])


class _Recompute:
    """A policy's answer: recompute the value (as False)."""

    def __bool__(self):
        return False

    def __repr__(self):
        return "Recompute"


Recompute = _Recompute()


@dataclass(frozen=True)
class Offloadable:
    """A policy's answer: save the value in memory ``dst`` (from ``src``). This backend keeps
    every saved value in the host's memory (its CPU devices' memory is the host's), so an
    offloaded value is a saved one."""
    src: str
    dst: str


def everything_saveable(*_, **__) -> bool:
    """Save every intermediate value (no recomputation)."""
    return True


def nothing_saveable(*_, **__) -> bool:
    """Save nothing: recompute every intermediate value (checkpoint's default)."""
    return False


@dataclass(frozen=True)
class _DotsSaveable:
    only_if_no_batch_dims: bool

    def __call__(self, prim, *_, **params) -> bool:
        if self.only_if_no_batch_dims:
            return prim is dot_general_p and not any(params["dimension_numbers"][1])
        return prim is dot_general_p or prim is conv_general_dilated_p


dots_saveable = checkpoint_dots = _DotsSaveable(False)
dots_with_no_batch_dims_saveable = checkpoint_dots_with_no_batch_dims = _DotsSaveable(True)


@dataclass(frozen=True)
class _Names:
    names: frozenset
    keep: bool  # True: save these names; False: save every name but these

    def __call__(self, prim, *_, **params) -> bool:
        return prim is name_p and (params["name"] in self.names) == self.keep


def save_only_these_names(*names_which_can_be_saved):
    """Save only the values named (``checkpoint_name``) with one of these names."""
    return _Names(frozenset(names_which_can_be_saved), True)


def save_any_names_but_these(*names_not_to_save):
    """Save only named values (``checkpoint_name``), except those with these names."""
    return _Names(frozenset(names_not_to_save), False)


def save_anything_except_these_names(*names_not_to_save):
    """Save every value (JAX 0.10's policy of this name ignores the names too)."""
    return everything_saveable


def save_from_both_policies(policy_1, policy_2):
    """Save what either policy saves."""
    def policy(prim, *args, **params):
        return bool(policy_1(prim, *args, **params)) or bool(policy_2(prim, *args, **params))
    return policy


def offload_dot_with_no_batch_dims(offload_src, offload_dst):
    """As ``dots_with_no_batch_dims_saveable``, the values offloaded to memory
    ``offload_dst`` (see ``Offloadable``)."""
    def policy(prim, *args, **params):
        if dots_with_no_batch_dims_saveable(prim, *args, **params):
            return Offloadable(offload_src, offload_dst)
        return Recompute
    return policy


def save_and_offload_only_these_names(*, names_which_can_be_saved, names_which_can_be_offloaded,
                                      offload_src, offload_dst):
    """Save the values with the first names, offload those with the second (see
    ``Offloadable``), recompute the rest."""
    saved, offloaded = frozenset(names_which_can_be_saved), frozenset(names_which_can_be_offloaded)
    if saved & offloaded:
        raise ValueError("The names should be exclusive and should not intersect in "
                         "`names_which_can_be_saved` and `names_which_can_be_offloaded`. Got "
                         f"names_which_can_be_saved={saved}, names_which_can_be_offloaded="
                         f"{offloaded} and the intersection={saved & offloaded}")

    def policy(prim, *_, **params):
        if prim is name_p and params["name"] in saved:
            return True
        if prim is name_p and params["name"] in offloaded:
            return Offloadable(offload_src, offload_dst)
        return Recompute
    return policy


checkpoint_policies = types.SimpleNamespace(
    everything_saveable=everything_saveable, nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable, checkpoint_dots=checkpoint_dots,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=checkpoint_dots_with_no_batch_dims,
    offload_dot_with_no_batch_dims=offload_dot_with_no_batch_dims,
    save_anything_except_these_names=save_anything_except_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_only_these_names=save_only_these_names,
    save_from_both_policies=save_from_both_policies,
    save_and_offload_only_these_names=save_and_offload_only_these_names)

# ----------------------------------------------------------------------------- saved residuals


def saved_residuals(f, *args, **kwargs) -> list[tuple]:
    """[(aval, where it comes from)] of the values reverse mode saves from the forward pass
    of ``f`` at ``args`` for the backward pass (``jax.ad_checkpoint.saved_residuals``):
    "from the argument x", "output of sin", "named 'h'" (a ``checkpoint_name``)."""
    leaves, in_tree = tree_flatten((args, kwargs))
    g, _ = trace_pytree(lambda a, kw: f(*a, **kw), in_tree, [leaf_aval(x) for x in leaves])
    g, consts = closure_convert(g)
    names = leaf_paths(f, args, in_tree)
    nz = [False] * len(consts) + [aval_of(x).dtype.kind in "fc" for x in leaves]
    lin = linearize_graph(g, nz, False)
    n_out = len(g.outvars)
    out = []
    for (kind, v), aval in zip(lin.res, lin.res_avals, strict=True):
        if kind == "in":
            out.append((aval, _argument(names, v - len(consts))))
        elif kind == "const":
            out.append((aval, "from a constant"))
        else:
            out.append((aval, _producer(lin.primal, lin.primal.outvars[n_out + v], names,
                                        len(lin.primal_consts) + len(consts))))
    return out


def _argument(names, i) -> str:
    return f"from the argument {names[i]}" if i >= 0 else "from a constant"


def _producer(g: Graph, v, names, skip: int) -> str:
    """Where value ``v`` of graph ``g`` comes from, looking through call equations (the
    first ``skip`` inputs of ``g`` are constants)."""
    if type(v) is not Var:
        return "from a constant"
    for e in g.eqns:
        if any(o is v for o in e.outs):
            call = e.params.get("call")
            if isinstance(call, Graph) and len(call.outvars) == len(e.outs):
                inner = call.outvars[[i for i, o in enumerate(e.outs) if o is v][0]]
                if type(inner) is Var and any(inner is x for x in call.invars):
                    k = [i for i, x in enumerate(call.invars) if x is inner][0]
                    return _producer(g, e.inputs[k], names, skip)
                return _producer(call, inner, (), 0)
            if e.prim is name_p:
                return f"named {e.params['name']!r}"
            return f"output of {e.prim.name}"
    k = [i for i, x in enumerate(g.invars) if x is v]
    return _argument(names, k[0] - skip) if k and names else "from a constant"


def print_saved_residuals(f, *args, **kwargs) -> None:
    """Print ``saved_residuals(f, *args, **kwargs)``, one per line."""
    for aval, where in saved_residuals(f, *args, **kwargs):
        print(aval.str_short(), where)


__all__ = ["checkpoint", "checkpoint_name", "checkpoint_p", "checkpoint_policies", "name_p",
           "print_saved_residuals", "remat", "saved_residuals"]
