"""Custom differentiation rules for functions, as ``jax.custom_jvp`` / ``jax.custom_vjp``.

>>> import frontend as fe
>>> import frontend.numpy as fnp
>>> from frontend import lax
>>> @fe.custom_jvp
... def log1pexp(x):
...     return fnp.log1p(fnp.exp(x))
>>> @log1pexp.defjvp
... def _(primals, tangents):
...     (x,), (t,) = primals, tangents
...     return log1pexp(x), t * lax.logistic(x)
>>> fe.grad(log1pexp)(100.0)        # without the rule: exp(100) / (1 + exp(100)) is nan
Array(1., dtype=float32, weak_type=True)

The function is traced into a sub-graph held by a call primitive (``custom_jvp_call``,
``custom_vjp_call``) whose params also hold the rules, so a rule is found wherever the call
ends up: under jit, in a loop body, under vmap (the rules are then batched too). Without
differentiation the function runs as written. Reverse mode through a custom_vjp function
records a ``custom_lin`` equation whose transpose is the ``bwd`` rule.
"""
from __future__ import annotations

import functools
import inspect

import numpy as np

from ..core import dtypes
from ..core.arguments import leaf_aval
from ..core.graph_utils import closure_convert
from ..core.ir import EVAL, Primitive, UnexpectedTracerError, _trace_var, aval_of, rule_replaced
from ..core.pytree import tree_flatten, tree_unflatten
from ..core.tracing import trace_pytree
from ..interpreters import batching
from ..interpreters.ad_util import Zero, float0_zeros, tangent_aval
from ..interpreters.transpose import backward_pass
from ..primitives.control import batch_graph
from ..primitives.shape import bdim_at, instantiate_zeros, moveaxis, reduce_sum_p


def _name(f) -> str:
    return getattr(f, "__name__", str(f))


def _type_str(a) -> str:
    return f"{a.dtype.name}[{','.join(map(str, a.shape))}]"


def _resolve_args(fun, args, kwargs, what) -> tuple:
    """Keyword arguments become positional ones (as JAX)."""
    if not kwargs:
        return tuple(args)
    bound = inspect.signature(fun).bind(*args, **kwargs)
    if bound.kwargs:
        raise TypeError(f"{what} functions cannot take keyword-only arguments, got "
                        f"{sorted(bound.kwargs)}")
    return tuple(bound.args)


def _split_nondiff(args, nondiff_argnums) -> tuple:
    nd = tuple(sorted(i % len(args) for i in nondiff_argnums))
    return [args[i] for i in nd], [a for i, a in enumerate(args) if i not in nd], nd


def _with_nondiff(static, nd, dyn) -> list:
    full, it_s, it_d = [], iter(static), iter(dyn)
    for i in range(len(static) + len(dyn)):
        full.append(next(it_s) if i in nd else next(it_d))
    return full


class _Call:
    """A call of a custom_jvp/custom_vjp function: its arguments split into the nondiff ones
    (``static``, at positions ``nd``) and the flat others (``leaves``, of ``in_tree``), and,
    unless the call is ``eager`` (no transformation: the function just runs), the function
    traced on them: a closed ``graph``, its captured values ``consts`` and ``out_tree``."""

    def __init__(self, fun, nondiff_argnums, args, kwargs, what):
        self.args = _resolve_args(fun, args, kwargs, what)
        self.eager = _trace_var.get() is EVAL
        if self.eager:
            return
        self.static, dyn, self.nd = _split_nondiff(self.args, nondiff_argnums)
        self.leaves, self.in_tree = tree_flatten(dyn)
        g, self.out_tree = trace_pytree(
            lambda *d: fun(*_with_nondiff(self.static, self.nd, d)), self.in_tree,
            [leaf_aval(x) for x in self.leaves])
        self.graph, self.consts = closure_convert(g)


def _tangent_value(t, aval):
    """A tangent handed to a user rule: zeros for symbolic zeros, float0 for integers."""
    ta = tangent_aval(aval)
    if ta.dtype == dtypes.float0:
        return float0_zeros(ta.shape)
    return instantiate_zeros(Zero(ta)) if type(t) is Zero else t


def _closure_error(kind):
    return UnexpectedTracerError(
        f"a {kind} function closes over a value that is being differentiated: its rule cannot "
        "account for that value. Pass the value to the function as an argument instead.")


def _call_transpose(prim):
    """A call primitive met in reverse mode on linear operands: the backward pass of its
    graph (the function as written)."""

    def rule(cts, *args, call, num_consts, **params):
        return backward_pass(call, (), list(args), list(cts))

    return rule


def _batch_call(prim, rule_names):
    """The batching rule of a call primitive: its graph batched (every output batched, at 0)
    and its rules (``rule_names``) wrapped to run under the same batching."""

    def rule(args, dims, *, call, num_consts, **params):
        size = batching.axis_size(args, dims)
        args = [x if d is None else moveaxis(x, d, 0) for x, d in zip(args, dims, strict=True)]
        dims0 = [None if d is None else 0 for d in dims]
        if any(d is not None for d in dims0[:num_consts]):
            raise ValueError(f"a {prim.name.replace('_call', '')} function closes over a value "
                             "that an enclosing vmap batches; pass that value as an argument of "
                             "the function instead")
        g, _ = batch_graph(call, size, dims0, [True] * len(call.outvars))
        wrapped = _batched_rules(params, rule_names, size, dims0[num_consts:],
                                 len(call.outvars))
        out = prim.bind(*args, call=g, num_consts=num_consts,
                        **{**params, **wrapped, "out_avals": tuple(g.out_avals)})
        return out, [0] * len(out)

    return rule


def _to_dim(x, d, size, batched):
    """x (batch axis at d, None: unbatched) with its batch axis at 0 when ``batched``, else
    unbatched (a batched value is summed over the batch: the argument was broadcast)."""
    if isinstance(x, np.ndarray) and x.dtype == dtypes.float0:
        return x
    if batched:
        return bdim_at(x, d, size, 0)
    return x if d is None else reduce_sum_p.bind(x, axes=(d,))


def _dims_of(vals, dims) -> list:
    """Batch dims of rule arguments: float0 tangents (numpy, no data) are never batched."""
    return [None if isinstance(v, np.ndarray) and v.dtype == dtypes.float0 else d
            for v, d in zip(vals, dims, strict=True)]


def _batched_rules(params, names, size, arg_dims, n_out) -> dict:
    """The user rules (flat lists in and out) run under batching: arguments batched at 0 as
    given; outputs batched at 0 (as the primitive's); residuals where fwd put them (``box``);
    cotangents of the arguments batched as the arguments are."""
    out, box = {}, []
    if "jvp" in names:
        jvp = params["jvp"]

        def jvp_b(primals, tangents):
            def f(*pt):
                o, t = jvp(list(pt[:len(primals)]), list(pt[len(primals):]))
                return list(o) + list(t)
            ins = list(primals) + list(tangents)
            vals, ds = batching.batch_fun(f, size, ins, _dims_of(ins, arg_dims * 2))
            res = [_to_dim(v, d, size, True) for v, d in zip(vals, ds, strict=True)]
            return res[:n_out], res[n_out:]
        out["jvp"] = jvp_b
    if "fwd" in names:
        fwd, bwd = params["fwd"], params["bwd"]

        def fwd_b(primals):
            def f(*p):
                o, r = fwd(list(p))
                return list(o) + list(r)
            vals, ds = batching.batch_fun(f, size, list(primals), arg_dims)
            box[:] = [None if d is None else 0 for d in ds[n_out:]]
            res = [v if d is None else moveaxis(v, d, 0)
                   for v, d in zip(vals[n_out:], ds[n_out:], strict=True)]
            return [_to_dim(v, d, size, True) for v, d in zip(vals[:n_out], ds[:n_out], strict=True)], res

        def bwd_b(res, cts):
            f = lambda *rc: bwd(list(rc[:len(res)]), list(rc[len(res):]))  # noqa: E731
            ins = list(res) + list(cts)
            vals, ds = batching.batch_fun(f, size, ins, _dims_of(ins, list(box) + [0] * len(cts)))
            return [_to_dim(c, d, size, a is not None) for c, d, a in zip(vals, ds, arg_dims, strict=True)]
        out.update(fwd=fwd_b, bwd=bwd_b)
    return out


# ----------------------------------------------------------------------------- custom_jvp

# custom_jvp_call(*consts, *args; call, num_consts, jvp, out_avals): call(*consts, *args);
# ``jvp(primals, tangents) -> (outs, tangent_outs)`` on flat lists of the args.
custom_jvp_call_p = Primitive("custom_jvp_call", multiple_results=True)
custom_jvp_call_p.param_aliases = {"call_jaxpr": "call"}  # (JAX's name)
custom_jvp_call_p.def_abstract_eval(lambda *avals, call, **params: list(call.out_avals))
custom_jvp_call_p.def_batching(_batch_call(custom_jvp_call_p, ("jvp",)))
custom_jvp_call_p.def_transpose(_call_transpose(custom_jvp_call_p))


@custom_jvp_call_p.def_jvp
def _custom_jvp_call_jvp(primals, tangents, *, call, num_consts, jvp, out_avals):
    if any(type(t) is not Zero for t in tangents[:num_consts]):
        raise _closure_error("custom_jvp")
    args = primals[num_consts:]
    ts = [_tangent_value(t, aval_of(x)) for t, x in zip(tangents[num_consts:], args, strict=True)]
    outs, touts = jvp(list(args), ts)
    return outs, [Zero(tangent_aval(a)) if tangent_aval(a).dtype == dtypes.float0 else t
                  for t, a in zip(touts, out_avals, strict=True)]


class custom_jvp:
    """A function with a custom JVP rule, as ``jax.custom_jvp``: ``f.defjvp(rule)`` with
    ``rule(primals, tangents) -> (primal_out, tangent_out)`` (``nondiff_argnums`` arguments
    come first, as they are), or ``f.defjvps(*per_argument_rules)``."""

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun, updated=())
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp = None
        self.symbolic_zeros = False

    def defjvp(self, jvp, symbolic_zeros=False):
        old, self.jvp = self.jvp, jvp
        self.symbolic_zeros = symbolic_zeros
        if old is not None and old is not jvp:
            rule_replaced()  # programs built with the old rule are dropped
        return jvp

    def defjvps(self, *jvps):
        """One rule per argument, ``rule(tangent, primal_out, *primals)``; their tangents add."""
        def jvp(primals, tangents):
            out = self(*primals)
            parts = [r(t, out, *primals) for r, t in zip(jvps, tangents, strict=True) if r is not None]
            if not parts:
                return out, _zeros_tree(out)
            total = parts[0]
            for p in parts[1:]:
                total = _add_trees(total, p)
            return out, total
        self.defjvp(jvp)

    def __call__(self, *args, **kwargs):
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {_name(self.fun)} "
                                 "using defjvp.")
        call = _Call(self.fun, self.nondiff_argnums, args, kwargs, "custom_jvp")
        if call.eager:
            return self.fun(*call.args)
        name, rule, rname = _name(self.fun), self.jvp, _name(self.jvp)

        def jvp_flat(primals, tangents):
            p = tree_unflatten(call.in_tree, primals)
            t = tree_unflatten(call.in_tree, tangents)
            res = rule(*call.static, tuple(p), tuple(t))
            if not isinstance(res, (tuple, list)) or len(res) != 2:
                raise TypeError(f"Custom JVP rule {rname} for function {name} must produce a pair "
                                "(list or tuple of length two) representing primal and tangent "
                                f"outputs, but got {res}.")
            po, pt = tree_flatten(res[0]), tree_flatten(res[1])
            if po[1] != pt[1]:
                raise TypeError(f"Custom JVP rule {rname} for function {name} must produce primal "
                                "and tangent outputs with equal container (pytree) structures, but "
                                f"got PyTreeDef({po[1]}) and PyTreeDef({pt[1]}) respectively.")
            for o, t in zip(po[0], pt[0], strict=True):
                oa, ta = leaf_aval(o), leaf_aval(t)
                want = tangent_aval(oa)
                if want.dtype != dtypes.float0 and (ta.shape != want.shape or ta.dtype != want.dtype):
                    raise TypeError("Custom JVP rule must produce primal and tangent outputs with "
                                    "corresponding shapes and dtypes. Expected "
                                    f"{_type_str(want)} (tangent type of {_type_str(oa)}) "
                                    f"but got {_type_str(ta)}.")
            return po[0], pt[0]

        outs = custom_jvp_call_p.bind(*call.consts, *call.leaves, call=call.graph,
                                      num_consts=len(call.consts), jvp=jvp_flat,
                                      out_avals=tuple(call.graph.out_avals))
        return tree_unflatten(call.out_tree, outs)


def _zeros_tree(tree):
    leaves, td = tree_flatten(tree)
    return tree_unflatten(td, [instantiate_zeros(Zero(tangent_aval(leaf_aval(x)))) for x in leaves])


def _add_trees(a, b):
    la, ta = tree_flatten(a)
    lb, _ = tree_flatten(b)
    return tree_unflatten(ta, [x + y for x, y in zip(la, lb, strict=True)])


# ----------------------------------------------------------------------------- custom_vjp

# custom_vjp_call(*consts, *args; call, num_consts, fwd, bwd, out_avals):
# call(*consts, *args); ``fwd(primals) -> (outs, residuals)`` and ``bwd(residuals,
# cotangents) -> cotangents of the args`` on flat lists.
custom_vjp_call_p = Primitive("custom_vjp_call", multiple_results=True)
custom_vjp_call_p.param_aliases = {"call_jaxpr": "call"}  # (JAX's name)
custom_vjp_call_p.def_abstract_eval(lambda *avals, call, **params: list(call.out_avals))
custom_vjp_call_p.def_batching(_batch_call(custom_vjp_call_p, ("fwd", "bwd")))
custom_vjp_call_p.def_transpose(_call_transpose(custom_vjp_call_p))


@custom_vjp_call_p.def_jvp
def _custom_vjp_call_jvp(primals, tangents, *, call, num_consts, fwd, bwd, out_avals):
    # the outputs and residuals from fwd; the output tangents a custom_lin of the args'
    # tangents, whose transpose is bwd (forward mode stops there, as in JAX)
    if any(type(t) is not Zero for t in tangents[:num_consts]):
        raise _closure_error("custom_vjp")
    args = primals[num_consts:]
    outs, res = fwd(list(args))
    lin = tuple(tangent_aval(aval_of(x)).dtype != dtypes.float0 for x in args)
    ts = [instantiate_zeros(t) for t, keep in zip(tangents[num_consts:], lin, strict=True) if keep]
    touts = custom_lin_p.bind(*res, *ts, num_res=len(res), bwd=bwd, out_avals=out_avals,
                              arg_avals=tuple(aval_of(x) for x in args), linear=lin)
    return outs, [Zero(tangent_aval(a)) if tangent_aval(a).dtype == dtypes.float0 else t
                  for t, a in zip(touts, out_avals, strict=True)]


# custom_lin(*residuals, *tangents; num_res, bwd, out_avals, arg_avals, linear): the
# output tangents of a custom_vjp function, linear in the tangents of its args (those with
# ``linear``); only its transpose (bwd) is ever evaluated.
custom_lin_p = Primitive("custom_lin", multiple_results=True)
custom_lin_p.def_abstract_eval(lambda *avals, out_avals, **params: [tangent_aval(a)
                                                                    for a in out_avals])


def _no_forward_mode(*args, **params):
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


custom_lin_p.def_jvp(_no_forward_mode)
custom_lin_p.def_batching(_no_forward_mode)


@custom_lin_p.def_transpose
def _custom_lin_transpose(cts, *args, num_res, bwd, out_avals, arg_avals, linear):
    res = args[:num_res]
    cts = [_tangent_value(c, a) for c, a in zip(cts, out_avals, strict=True)]
    ct_args = bwd(list(res), cts)
    return [None] * num_res + [c for c, keep in zip(ct_args, linear, strict=True) if keep]


class custom_vjp:
    """A function with a custom VJP rule, as ``jax.custom_vjp``: ``f.defvjp(fwd, bwd)`` with
    ``fwd(*args) -> (out, residuals)`` and ``bwd(residuals, out_cotangent) -> tuple of
    argument cotangents`` (``nondiff_argnums`` arguments come first in bwd, as they are;
    None for an argument means a zero cotangent)."""

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun, updated=())
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd = self.bwd = None

    def defvjp(self, fwd, bwd, symbolic_zeros=False):
        old = self.fwd, self.bwd
        self.fwd, self.bwd = fwd, bwd
        if old[0] is not None and (old[0] is not fwd or old[1] is not bwd):
            rule_replaced()  # programs built with the old rules are dropped

    def __call__(self, *args, **kwargs):
        if self.fwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {_name(self.fun)} "
                                 "using defvjp.")
        call = _Call(self.fun, self.nondiff_argnums, args, kwargs, "custom_vjp")
        if call.eager:
            return self.fun(*call.args)
        name, static, nd, in_tree, out_tree = (_name(self.fun), call.static, call.nd,
                                               call.in_tree, call.out_tree)
        fwd, bwd = self.fwd, self.bwd
        fname = _name(fwd)
        res_tree = []

        def fwd_flat(primals):
            res = fwd(*_with_nondiff(static, nd, tree_unflatten(in_tree, primals)))
            if not isinstance(res, (tuple, list)) or len(res) != 2:
                raise TypeError(f"Custom VJP fwd rule {fname} for function {name} must produce a "
                                "pair (list or tuple of length two) where the first element "
                                "represents the primal output (equal to those of the "
                                f"custom_vjp-decorated function {name}) and the second element "
                                "represents residuals (i.e. values stored from the forward pass "
                                "for use on the backward pass), but instead of a pair the fwd rule "
                                f"{fname} produced {res}.")
            outs, otd = tree_flatten(res[0])
            if otd != out_tree:
                raise TypeError(f"Custom VJP fwd rule {fname} for function {name} must produce a "
                                "pair whose first element has the output structure of the "
                                f"function, PyTreeDef({out_tree}), but got PyTreeDef({otd}).")
            r, rtd = tree_flatten(res[1])
            res_tree[:] = [rtd]
            return outs, r

        def bwd_flat(res, cts):
            out = bwd(*static, tree_unflatten(res_tree[0], res), tree_unflatten(out_tree, cts))
            return _bwd_cotangents(out, call.leaves, in_tree)

        outs = custom_vjp_call_p.bind(*call.consts, *call.leaves, call=call.graph,
                                      num_consts=len(call.consts), fwd=fwd_flat, bwd=bwd_flat,
                                      out_avals=tuple(call.graph.out_avals))
        return tree_unflatten(out_tree, outs)


def _bwd_cotangents(out, leaves, in_tree) -> list:
    """bwd's output as flat cotangents of the args, checked as JAX checks it (None: zeros)."""
    args_tree = tree_flatten(tuple(tree_unflatten(in_tree, leaves)))[1]
    if not isinstance(out, tuple) or len(out) != len(args_tree.children):
        got = tree_flatten(out)[1]
        raise TypeError("Custom VJP bwd rule must produce an output with the same container "
                        "(pytree) structure as the args tuple of the primal function, and in "
                        "particular must produce a tuple of length equal to the number of "
                        "arguments to the primal function, but got bwd output structure "
                        f"PyTreeDef({got}) for primal input structure PyTreeDef({args_tree}).")
    flat = []
    for k, (ct, sub) in enumerate(zip(out, args_tree.children, strict=True)):
        n = sub.num_leaves
        if ct is None:
            flat += [None] * n
            continue
        c_leaves, ctd = tree_flatten(ct)
        if ctd != sub:
            raise TypeError("Custom VJP bwd rule must produce an output with the same container "
                            "(pytree) structure as the args tuple of the primal function, but at "
                            f"output[{k}] the bwd rule produced PyTreeDef({ctd}) for an input of "
                            f"structure PyTreeDef({sub}).")
        flat += c_leaves
    cts = []
    for k, (c, x) in enumerate(zip(flat, leaves, strict=True)):
        want = tangent_aval(leaf_aval(x))
        if c is None:
            cts.append(_tangent_value(Zero(want), leaf_aval(x)))
            continue
        ca = leaf_aval(c)
        if want.dtype != dtypes.float0 and (ca.shape != want.shape or ca.dtype != want.dtype):
            why = "the shapes do not match" if ca.shape != want.shape else "the dtypes do not match"
            raise ValueError("Custom VJP bwd rule must produce an output with the same type as the "
                             f"args tuple of the primal function, but at output[{k}] the bwd rule "
                             f"produced an output of type {_type_str(ca)} corresponding to an input "
                             f"of type {_type_str(leaf_aval(x))}, so {why}")
        cts.append(c)
    return cts


__all__ = ["custom_jvp", "custom_vjp", "custom_jvp_call_p", "custom_vjp_call_p", "custom_lin_p"]
