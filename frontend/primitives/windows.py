"""Window reductions, rows of one family: ``reduce_window_sum``, ``reduce_window_max`` and
``reduce_window_min`` (StableHLO's reduce_window with the monoid as body and its identity as
init value): every window of ``window_dimensions`` (dilated by ``window_dilation``), moved
by ``window_strides`` over the operand (dilated by ``base_dilation``, holes and ``padding``
holding the identity), reduced to one element.

Batching never loops: the vmap axis becomes one more axis with a window of 1 (stride 1, no
padding, no dilation), so it stays where it is.
"""
from __future__ import annotations

import itertools

from ..core import dtypes
from ..core.ir import Aval, Primitive, aval_of, inline_graph, literal
from ..core.params import intern_graph
from ..core.tracing import trace_graph
from ..interpreters import batching
from ..interpreters.ad_util import Zero, zero_of
from ..interpreters.jvp import jvp_fun
from .conv import conv_vjp_lhs_padding
from .elementwise import and_p, eq_p, not_p, or_p, select_p
from .general_reduce import check_computation
from .padding import pad_p, slice_p
from .reductions import highest, lowest
from .shape import bdim_at, instantiate_zeros, linear_jvp, zeros_like_aval


def _dilate(n: int, d: int) -> int:
    return 0 if n == 0 else 1 + d * (n - 1)


def window_out_shape(shape, window_dimensions, window_strides, padding, base_dilation,
                     window_dilation) -> tuple:
    """The result shape of a window reduction (JAX's shape rule and error wording)."""
    out = []
    for n, w, s, (lo, hi), bd, wd in zip(shape, window_dimensions, window_strides, padding,
                                         base_dilation, window_dilation, strict=True):
        padded = _dilate(n, bd) + lo + hi
        if padded < 0:
            raise ValueError(f"reduce_window: negative padding {(lo, hi)} is larger than the "
                             f"dimension of size {n}")
        k = _dilate(w, wd)
        out.append(0 if padded < k else (padded - k) // s + 1)
    return tuple(out)


def _check(name, x, window_dimensions, window_strides, padding, base_dilation,
           window_dilation):
    n = x.ndim
    for what, v in (("window_dimensions", window_dimensions),
                    ("window_strides", window_strides), ("padding", padding),
                    ("base_dilation", base_dilation), ("window_dilation", window_dilation)):
        if len(v) != n:
            raise TypeError(f"{name}: {what} has {len(v)} entries, but the operand "
                            f"{x.str_short()} has rank {n}")
    for what, v in (("window_dimensions", window_dimensions), ("window_strides", window_strides),
                    ("base_dilation", base_dilation), ("window_dilation", window_dilation)):
        if any(int(e) < 1 for e in v):
            raise TypeError(f"{name}: {what} must have every entry positive, got {tuple(v)}")


def window_reduction(name: str, number_only: bool) -> Primitive:
    """reduce_window_<monoid>(x, window_dimensions, window_strides, padding, base_dilation,
    window_dilation): same dtype, the shape of ``window_out_shape``."""
    p = Primitive(name)

    @p.def_abstract_eval
    def abstract_eval(x, *, window_dimensions, window_strides, padding, base_dilation,
                      window_dilation):
        if number_only and (dtypes.is_bool(x.dtype)):
            raise TypeError(f"{name} does not accept dtype bool. Accepted dtypes are "
                            "subtypes of number.")
        _check(name, x, window_dimensions, window_strides, padding, base_dilation,
               window_dilation)
        shape = window_out_shape(x.shape, window_dimensions, window_strides, padding,
                                 base_dilation, window_dilation)
        return Aval(shape, x.dtype, x.weak_type)

    @p.def_batching
    def batch(args, dims, *, window_dimensions, window_strides, padding, base_dilation,
              window_dilation):
        # the batch axis gets a window of 1 (no stride, padding or dilation): it stays
        (x,), (d,) = args, dims

        def ins(t, v):
            return tuple(t[:d]) + (v,) + tuple(t[d:])
        return p.bind(x, window_dimensions=ins(window_dimensions, 1),
                      window_strides=ins(window_strides, 1), padding=ins(padding, (0, 0)),
                      base_dilation=ins(base_dilation, 1),
                      window_dilation=ins(window_dilation, 1)), d

    return p


reduce_window_sum_p = window_reduction("reduce_window_sum", True)
reduce_window_max_p = window_reduction("reduce_window_max", False)
reduce_window_min_p = window_reduction("reduce_window_min", False)


def window_params(ndim, window_dimensions, window_strides, padding, base_dilation=None,
                  window_dilation=None) -> dict:
    """Canonical parameters (tuples of ints, padding pairs) of a window reduction."""
    def ints(v, default):
        return tuple(int(e) for e in (v if v is not None else (default,) * ndim))
    return dict(window_dimensions=ints(window_dimensions, 1),
                window_strides=ints(window_strides, 1),
                padding=tuple((int(lo), int(hi)) for lo, hi in padding),
                base_dilation=ints(base_dilation, 1), window_dilation=ints(window_dilation, 1))



# ----------------------------------------------------------------------------- autodiff
# reduce_window_sum is linear; its transpose (JAX's) pads the cotangent (strides become
# interior padding) and sums it over windows again. max/min: the tangent of the first
# window element (in window order) equal to the result, the windows spelled out as one
# strided slice of the padded operand per window offset (as many as the window has
# elements).


def _window_sum_transpose(ct, x, *, window_dimensions, window_strides, padding, base_dilation,
                          window_dilation):
    shape = x.aval.shape
    pads = conv_vjp_lhs_padding(shape, window_dimensions, window_strides, aval_of(ct).shape,
                                padding, base_dilation, window_dilation)
    cfg = tuple((lo, hi, s - 1) for (lo, hi), s in zip(pads, window_strides, strict=True))
    padded = pad_p.bind(ct, literal(0, aval_of(ct).dtype), padding_config=cfg)
    ones = (1,) * len(shape)
    return [reduce_window_sum_p.bind(padded, window_dimensions=window_dimensions,
                                     window_strides=base_dilation,
                                     padding=((0, 0),) * len(shape), base_dilation=ones,
                                     window_dilation=window_dilation)]


reduce_window_sum_p.def_jvp(linear_jvp(reduce_window_sum_p))
reduce_window_sum_p.def_transpose(_window_sum_transpose)


def _windows(x, fill, window_dimensions, window_strides, padding, base_dilation,
             window_dilation, out_shape):
    """One strided slice of the padded, dilated x per window offset: each the size of the
    result, element k of every window."""
    cfg = tuple((lo, hi, bd - 1) for (lo, hi), bd in zip(padding, base_dilation, strict=True))
    xp = pad_p.bind(x, fill, padding_config=cfg)
    for offset in itertools.product(*(range(w) for w in window_dimensions)):
        start = tuple(k * wd for k, wd in zip(offset, window_dilation, strict=True))
        limit = tuple(s + (n - 1) * st + 1 if n else s
                      for s, n, st in zip(start, out_shape, window_strides, strict=True))
        yield slice_p.bind(xp, start_indices=start, limit_indices=limit,
                           strides=tuple(window_strides))


def _chooser_jvp(prim, fill):
    def rule(primals, tangents, **params):
        (x,), (t,) = primals, tangents
        out = prim.bind(x, **params)
        a = aval_of(out)
        if 0 in a.shape:
            return out, zeros_like_aval(a)
        found = zeros_like_aval(Aval(a.shape, dtypes.bool_))
        acc = zeros_like_aval(Aval(a.shape, a.dtype))
        xs = _windows(x, literal(fill(a.dtype), a.dtype), out_shape=a.shape, **params)
        ts = _windows(t, literal(0, a.dtype), out_shape=a.shape, **params)
        for xk, tk in zip(xs, ts, strict=True):
            hit = and_p.bind(eq_p.bind(xk, out), not_p.bind(found))
            acc = select_p.bind(hit, tk, acc)
            found = or_p.bind(found, hit)
        return out, acc
    return rule


reduce_window_max_p.def_jvp(_chooser_jvp(reduce_window_max_p, lowest))
reduce_window_min_p.def_jvp(_chooser_jvp(reduce_window_min_p, highest))


# ----------------------------------------------------------------------------- general
# reduce_window(*operands, *init_values; computation, window params): JAX's reduce_window_p,
# n operands of one shape reduced window by window together by a user computation (a graph
# of (n accumulators, n elements) scalars to n scalars), from n scalar init values (which
# also fill the padding and the holes of a base dilation). One stablehlo.reduce_window with
# the graph as its region.


reduce_window_p = Primitive("reduce_window", multiple_results=True)


@reduce_window_p.def_abstract_eval
def _reduce_window_abstract_eval(*args, computation, window_dimensions, window_strides, padding,
                                 base_dilation, window_dilation):
    n = len(args) // 2
    ops, inits = args[:n], args[n:]
    if not ops or len(args) != 2 * n:
        raise ValueError("reduce_window must have at least one operand, and as many init "
                         "values as operands")
    if any(o.dtype != i.dtype for o, i in zip(ops, inits, strict=True)):
        raise TypeError("reduce_window got inconsistent dtypes for operands and init_values: "
                        f"got operand dtypes {[o.dtype for o in ops]} and init_value dtypes "
                        f"{[i.dtype for i in inits]}.")
    if any(i.shape != () for i in inits):
        raise TypeError("reduce_window expected init_values to be scalars but init_values "
                        f"have shapes {[i.shape for i in inits]}.")
    if any(o.shape != ops[0].shape for o in ops):
        raise TypeError("reduce_window operands must have the same shape, got "
                        + ", ".join(str(o.shape) for o in ops))
    check_computation(computation, inits, "reduce_window")
    params = dict(window_dimensions=window_dimensions, window_strides=window_strides,
                  padding=padding, base_dilation=base_dilation, window_dilation=window_dilation)
    _check("reduce_window", ops[0], **params)
    shape = window_out_shape(ops[0].shape, **params)
    return [Aval(shape, o.dtype) for o in ops]


@reduce_window_p.def_batching
def _reduce_window_batch(args, dims, *, computation, **params):
    # (JAX's rule) every operand's batch axis to the front, a window of 1 over it
    n = len(args) // 2
    if any(d is not None for d in dims[n:]):
        raise NotImplementedError("reduce_window batching is not implemented for initial values")
    size = batching.axis_size(args, dims)
    ops = [bdim_at(a, d, size, 0) for a, d in zip(args[:n], dims[:n], strict=True)]
    front = {"window_dimensions": 1, "window_strides": 1, "padding": (0, 0), "base_dilation": 1,
             "window_dilation": 1}
    params = {k: (front[k],) + tuple(v) for k, v in params.items()}
    return reduce_window_p.bind(*ops, *args[n:], computation=computation, **params), [0] * n


@reduce_window_p.def_jvp
def _reduce_window_jvp(primals, tangents, *, computation, **params):
    # (JAX's rule) the window reduction of (operands, tangents) from (init values, zeros) by
    # the computation's jvp: accumulators (primals, tangents), elements (primals, tangents).
    # Integer operands carry no tangent.
    n = len(primals) // 2
    if any(type(t) is not Zero for t in tangents[n:]):
        raise TypeError("reduce_window jvp does not support non-zero init_value_tangent.")
    ops, inits = primals[:n], primals[n:]
    avals = [Aval((), aval_of(x).dtype) for x in inits]
    diff = [i for i, a in enumerate(avals) if dtypes.is_inexact(a.dtype)]
    m = len(diff)

    def jvp_computation(*xs):
        acc, acc_t, el, el_t = xs[:n], xs[n:n + m], xs[n + m:2 * n + m], xs[2 * n + m:]
        ts = [zero_of(a) for a in avals] * 2
        for k, i in enumerate(diff):
            ts[i], ts[n + i] = acc_t[k], el_t[k]
        outs, touts = jvp_fun(lambda *a: inline_graph(computation, list(a)), [*acc, *el], ts)
        return [*outs, *(instantiate_zeros(touts[i]) for i in diff)]

    sub = [avals[i] for i in diff]
    g = intern_graph(trace_graph(jvp_computation, avals + sub + avals + sub))
    t_ops = [instantiate_zeros(tangents[i]) for i in diff]
    t_inits = [literal(0, avals[i].dtype) for i in diff]
    outs = reduce_window_p.bind(*ops, *t_ops, *inits, *t_inits, computation=g, **params)
    t_outs = [zero_of(aval_of(o)) for o in outs[:n]]
    for k, i in enumerate(diff):
        t_outs[i] = outs[n + k]
    return outs[:n], t_outs
