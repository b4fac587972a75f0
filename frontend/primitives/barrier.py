"""``optimization_barrier``: its operands unchanged, but XLA may not move computations
across it (StableHLO's optimization_barrier), e.g. to keep a recomputation from being
merged with the original. Batching passes every operand through with its batch axis;
derivatives: the tangents (cotangents) go through a barrier of their own."""
from __future__ import annotations

from ..core.ir import Primitive
from ..interpreters.ad_util import Zero
from .shape import instantiate_zeros

optimization_barrier_p = Primitive("optimization_barrier", multiple_results=True)


@optimization_barrier_p.def_abstract_eval
def _barrier_abstract_eval(*operands):
    return list(operands)


@optimization_barrier_p.def_batching
def _barrier_batch(args, dims):
    # every operand keeps its batch axis (unbatched ones stay unbatched)
    return optimization_barrier_p.bind(*args), list(dims)


@optimization_barrier_p.def_jvp
def _barrier_jvp(primals, tangents):
    return (optimization_barrier_p.bind(*primals),
            optimization_barrier_p.bind(*[instantiate_zeros(t) for t in tangents]))


@optimization_barrier_p.def_transpose
def _barrier_transpose(cts, *operands):
    live = [i for i, c in enumerate(cts) if type(c) is not Zero]
    outs = list(cts)
    if live:
        for i, c in zip(live, optimization_barrier_p.bind(*[cts[i] for i in live]), strict=True):
            outs[i] = c
    return outs
