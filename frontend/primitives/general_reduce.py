"""``reduce``: lax.reduce with a user computation (JAX's reduce_p). ``reduce(*operands,
*init_values; computation, dimensions)``: n operands of one shape reduced together over
``dimensions`` by ``computation``, a graph taking (n accumulators, n elements) scalars to n
scalars, starting from the n scalar init values (one stablehlo.reduce with the graph as its
region).

Batching never reduces the batch axis: the operands get it at one place and the reduced
dimensions are renumbered around it (batched init values are JAX's NotImplementedError).
The jvp (JAX's): the reduced axes flattened to the front, then halved repeatedly, each
step the computation applied to the two halves elementwise (vectorized with the batching
machinery), differentiated through; init values must have zero tangents.
"""
from __future__ import annotations

import numpy as np

from ..core.ir import Aval, Graph, Primitive, aval_of, inline_graph
from ..interpreters import batching
from ..interpreters.ad_util import Zero
from ..interpreters.jvp import jvp_fun
from .padding import pad_p, slice_p
from .shape import bdim_at, broadcast_in_dim_p, reshape_p, transpose_p

reduce_p = Primitive("reduce", multiple_results=True)


def check_computation(g: Graph, inits, what="reduce"):
    """``g`` takes (accumulators, elements) scalars of the init values' types to the
    accumulators (the region of a stablehlo.reduce / reduce_window)."""
    scal = [Aval((), a.dtype) for a in inits]
    ins = [Aval(v.aval.shape, v.aval.dtype) for v in g.invars]
    outs = [Aval(a.shape, a.dtype) for a in g.out_avals]
    if ins != scal + scal or outs != scal:
        raise TypeError(f"{what} computation must take (accumulators, elements) scalars of the "
                        f"init values' types {[a.str_short() for a in scal]} and return the "
                        f"accumulators; it takes {[a.str_short() for a in ins]} and returns "
                        f"{[a.str_short() for a in outs]}")


@reduce_p.def_abstract_eval
def _reduce_abstract_eval(*args, computation, dimensions):
    n = len(args) // 2
    ops, inits = args[:n], args[n:]
    if not ops or len(args) != 2 * n:
        raise ValueError("reduce takes as many init values as operands, at least one")
    shape = ops[0].shape
    if any(o.shape != shape for o in ops):
        raise ValueError("reduce operands must have the same shape, got "
                         + ", ".join(str(o.shape) for o in ops))
    for o, i in zip(ops, inits, strict=True):
        if i.shape != () or i.dtype != o.dtype:
            raise TypeError(f"reduce init values must be scalars of the operands' dtypes, got "
                            f"{i.str_short()} for an operand of dtype {o.dtype.name}")
    if len(set(dimensions)) != len(dimensions) or any(not 0 <= d < len(shape) for d in dimensions):
        raise ValueError(f"reduction axes {tuple(dimensions)} out of bounds or repeated for "
                         f"operand shape {shape}")
    check_computation(computation, inits)
    out = tuple(s for i, s in enumerate(shape) if i not in dimensions)
    return [Aval(out, o.dtype) for o in ops]


@reduce_p.def_batching
def _reduce_batch(args, dims, *, computation, dimensions):
    # every operand gets the batch axis where the first batched one has it; the reduced
    # dimensions are renumbered around it, which stays (shifted left past reduced ones)
    n = len(args) // 2
    if any(d is not None for d in dims[n:]):
        raise NotImplementedError("reduce with batched init values is not supported (as in "
                                  "JAX); batch the operands only")
    size = batching.axis_size(args, dims)
    d = next(b for b in dims[:n] if b is not None)
    ops = [bdim_at(a, b, size, d) if b != d else a for a, b in zip(args[:n], dims[:n], strict=True)]
    new_dims = tuple(x + (x >= d) for x in dimensions)
    outs = reduce_p.bind(*ops, *args[n:], computation=computation, dimensions=new_dims)
    return outs, [d - sum(1 for x in new_dims if x < d)] * n


def _flat_apply(computation, xs, ys):
    """The computation on arrays, elementwise: flattened to one axis and batched over it."""
    shape = aval_of(xs[0]).shape
    size = int(np.prod(shape, dtype=np.int64))
    flat = [reshape_p.bind(v, new_sizes=(size,), dimensions=None) for v in (*xs, *ys)]
    outs, dims = batching.batch_fun(lambda *a: inline_graph(computation, list(a)), size, flat,
                                    [0] * len(flat))
    res = []
    for o, d in zip(outs, dims, strict=True):
        if d is None:
            o = broadcast_in_dim_p.bind(o, shape=(size,), broadcast_dimensions=())
        res.append(reshape_p.bind(o, new_sizes=shape, dimensions=None))
    return res


def _rows(x, lo, hi):
    """Rows lo..hi of x (its leading axis)."""
    shp = aval_of(x).shape
    return slice_p.bind(x, start_indices=(lo,) + (0,) * (len(shp) - 1),
                        limit_indices=(hi,) + shp[1:], strides=None)


def _reduce_tree(computation, inits, xs):
    """xs (reduced axis first, flattened) halved until one row is left."""
    while aval_of(xs[0]).shape[0] > 1:
        shp = aval_of(xs[0]).shape
        n = shp[0]
        n1 = (n + 1) // 2
        first = [_rows(x, 0, n1) for x in xs]
        second = [_rows(x, n1, n) for x in xs]
        if n - n1 != n1:  # odd: the second half gets the init values as its last row
            cfg = ((0, 1, 0),) + ((0, 0, 0),) * (len(shp) - 1)
            second = [pad_p.bind(x, i, padding_config=cfg) for x, i in zip(second, inits, strict=True)]
        xs = _flat_apply(computation, first, second)
    shp = aval_of(xs[0]).shape
    if shp[0] == 0:
        return [broadcast_in_dim_p.bind(i, shape=shp[1:], broadcast_dimensions=()) for i in inits]
    return [reshape_p.bind(x, new_sizes=shp[1:], dimensions=None) for x in xs]


@reduce_p.def_jvp
def _reduce_jvp(primals, tangents, *, computation, dimensions):
    n = len(primals) // 2
    if any(type(t) is not Zero for t in tangents[n:]):
        raise NotImplementedError("Gradient of general lax.reduce with non-zero tangents for "
                                  "initial values to reduction not implemented")
    ops, inits = list(primals[:n]), list(primals[n:])
    shape = aval_of(ops[0]).shape
    keep = tuple(i for i in range(len(shape)) if i not in dimensions)
    size = int(np.prod([shape[d] for d in dimensions], dtype=np.int64))
    new = (size,) + tuple(shape[i] for i in keep)
    perm = tuple(dimensions) + keep

    def front(x):
        return reshape_p.bind(transpose_p.bind(x, permutation=perm), new_sizes=new,
                              dimensions=None)
    ts = [Zero(Aval(new, t.aval.dtype)) if type(t) is Zero else front(t) for t in tangents[:n]]
    outs, touts = jvp_fun(lambda *xs: _reduce_tree(computation, inits, list(xs)),
                          [front(x) for x in ops], ts)
    return outs, touts
