"""lax.reduce: operands (a pytree of arrays of one shape) reduced over ``dimensions`` by a
user computation from init values. A single operand with lax.add/mul/max/min/bitwise ops
and its identity as the init value is the monoid reduction (as JAX); anything else is the
general ``reduce`` primitive holding the traced computation."""
from __future__ import annotations

import numpy as np

from ..core.ir import Aval, Tracer, aval_of
from ..core.params import intern_graph
from ..core.pytree import tree_flatten, tree_unflatten
from ..core.tracing import trace_pytree
from ..device.array import Array
from ..primitives import reductions as red
from ..primitives.general_reduce import reduce_p
from ..primitives.shape import reduce_sum_p
from ._convert import as_operand, convert
from ._ops import add, bitwise_and, bitwise_or, bitwise_xor, max, min, mul  # noqa: A004

_MONOIDS = {add: reduce_sum_p, mul: red.reduce_prod_p, max: red.reduce_max_p,
            min: red.reduce_min_p, bitwise_and: red.reduce_and_p, bitwise_or: red.reduce_or_p,
            bitwise_xor: red.reduce_xor_p}


def _monoid(computation, x, init):
    prim = _MONOIDS.get(computation)
    if prim is None or not isinstance(init, (Array, np.ndarray, np.generic, int, float, bool)):
        return None
    v = np.asarray(init)
    d = aval_of(x).dtype
    identity = red.IDENTITY[prim](d)
    try:
        ok = v.shape == () and prim.abstract_eval_rule(Aval((1,), d), axes=(0,)) is not None \
            and bool(v == identity)
    except TypeError:
        return None
    return prim if ok else None


def reduce(operands, init_values, computation, dimensions):  # noqa: A001
    """lax.reduce: ``computation(accumulators, elements) -> accumulators`` folded over
    ``dimensions`` of the operands, from ``init_values`` (same pytree structure, scalars).

    >>> import numpy as np
    >>> from frontend import lax
    >>> lax.reduce(np.arange(6.).reshape(2, 3), 0., lax.add, (1,))
    Array([ 3., 12.], dtype=float32)
    """
    ops, inits, op_td = flat_operands(operands, init_values)
    if len(ops) != len(inits) or not ops:
        raise ValueError("Must have same total number of operands as init_values, at least "
                         "one")
    dims = tuple(int(d) for d in dimensions)
    xs = [as_operand(x) for x in ops]
    if len(xs) == 1:
        prim = _monoid(computation, xs[0], inits[0])
        if prim is not None:
            return tree_unflatten(op_td, [prim.bind(xs[0], axes=dims)])
    init_ops = [as_operand(i) for i in inits]
    if any(aval_of(i).dtype != aval_of(x).dtype and not aval_of(i).weak_type
           for i, x in zip(init_ops, xs, strict=True)):
        raise TypeError("reduce operand dtypes should match corresponding initial value dtypes, "
                        f"got operands={[aval_of(x).str_short() for x in xs]} and "
                        f"initial_values={[aval_of(i).str_short() for i in init_ops]}")
    init_ops = [_as_dtype(i, aval_of(x).dtype) for i, x in zip(init_ops, xs, strict=True)]
    g = reduction_graph("reduce", computation, op_td, [aval_of(x).dtype for x in xs])
    outs = reduce_p.bind(*xs, *init_ops, computation=g, dimensions=dims)
    return tree_unflatten(op_td, outs)


def flat_operands(operands, init_values) -> tuple:
    """(operand leaves, init value leaves, treedef) of a reduction's operands and init values,
    which must have one tree structure (JAX's ValueError)."""
    ops, op_td = tree_flatten(operands)
    inits, init_td = tree_flatten(init_values)
    if op_td != init_td:
        raise ValueError(f"Operands must have the same tree structure as init_values: {op_td} "
                         f"vs. {init_td}")
    return ops, inits, op_td


def computation_graph(what, fn, avals):
    """``fn`` (flat scalars in, a pytree out) traced to a graph (interned when it captures
    nothing); the output treedef is returned too. Captured concrete values stay constants of
    the graph (written into the op's region); a computation closing over traced values is
    refused, as JAX's reductions do."""
    g, out_td = trace_pytree(fn, tree_flatten(tuple(range(len(avals))))[1], avals)
    if any(isinstance(c, Tracer) for c in g.consts):
        raise NotImplementedError(f"{what} computations can't close over Tracers: pass "
                                  "traced values through the operands")
    return (intern_graph(g) if not g.consts else g), out_td


def reduction_graph(what, computation, op_td, dtypes_):
    """``computation(accumulators, elements) -> accumulators`` (pytrees of ``op_td``'s
    structure) as a graph of 2n scalars to n scalars."""
    scal = [Aval((), d) for d in dtypes_]

    def comp(*leaves):
        n = len(leaves) // 2
        return computation(tree_unflatten(op_td, list(leaves[:n])),
                           tree_unflatten(op_td, list(leaves[n:])))
    g, out_td = computation_graph(what, comp, scal + scal)
    if out_td != op_td:
        raise ValueError(f"{what} computation must return the operands' tree structure "
                         f"{op_td}, got {out_td}")
    return g


def _as_dtype(x, d):
    return x if aval_of(x).dtype == d else convert(x, d)
