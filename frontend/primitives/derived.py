"""Primitives defined by an implementation over other primitives: JAX's ``lax.*_p`` for
operations vmaplab writes as compositions (clamp, split, tile, stack, cumlogsumexp, ...).

``derived(name, impl)`` makes a Primitive whose every rule comes from ``impl(*operands,
**params)`` (a function binding other primitives): abstract evaluation traces it, the
batching rule batches it, the jvp differentiates it, the transpose (``linear=True``) is its
backward pass, and the lowering (lowering/emit/derived.py) inlines it. So ``p.bind`` takes
JAX's operands and params and means what JAX's primitive means, and a graph shows one
equation named as JAX's.
"""
from __future__ import annotations

from ..core.ir import Primitive, aval_of
from ..core.tracing import trace_graph
from ..interpreters import batching
from ..interpreters.ad_util import is_undefined_primal
from ..interpreters.jvp import jvp_fun
from ..interpreters.transpose import backward_pass

DERIVED: list[Primitive] = []   # every derived primitive (their lowering rules are set in one loop)


def derived(name: str, impl, *, multiple_results: bool = False, linear: bool = False) -> Primitive:
    p = Primitive(name, multiple_results=multiple_results)
    p.implementation = impl

    def flat(params):
        def fn(*args):
            out = impl(*args, **params)
            return list(out) if multiple_results else [out]
        return fn

    def one(xs):
        return xs if multiple_results else xs[0]

    @p.def_abstract_eval
    def _abstract_eval(*avals, **params):
        return one(list(trace_graph(flat(params), avals).out_avals))

    @p.def_batching
    def _batch(args, dims, **params):
        rule = batching.rule_axis()
        name = rule.axis_name if rule is not None else None
        vals, out_dims = batching.batch_fun(flat(params), batching.axis_size(args, dims), args,
                                            dims, name)
        return one(vals), one(out_dims)

    @p.def_jvp
    def _jvp(primals, tangents, **params):
        outs, touts = jvp_fun(flat(params), list(primals), list(tangents))
        return one(outs), one(touts)

    if linear:
        @p.def_transpose
        def _transpose(cts, *args, **params):
            avals = [a.aval if is_undefined_primal(a) else aval_of(a) for a in args]
            g = trace_graph(flat(params), avals)
            return backward_pass(g, g.consts, list(args), list(cts) if multiple_results else [cts])

    DERIVED.append(p)
    return p


__all__ = ["DERIVED", "derived"]
