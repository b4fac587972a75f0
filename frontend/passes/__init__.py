"""Graph passes: functions Graph -> Graph whose result type-checks and computes the same
values. A ``Pipeline`` runs a list of them and records what each did; ``jit(f, passes=...)``
runs one after tracing (default: ``fold_transposes`` then ``dce``).

Built-in passes: ``dce``, ``cse``, ``fold_constants`` (evaluated by XLA), ``simplify``
(algebraic identities and chains of reshapes/transposes/broadcasts/converts),
``fold_transposes`` and ``fold_dot_transposes`` (a transpose folded into dot_general's
dimension numbers). ``rewrite_pass(*rules)`` makes a pass from local rules, the way
``simplify`` is made; ``to_dot(graph)`` draws a graph for Graphviz.

>>> import numpy as np
>>> import frontend as fe
>>> import frontend.numpy as fnp
>>> from frontend.passes import Pipeline
>>> def f(x):
...     return fnp.sin(x) * fnp.sin(x) + x * 1.0
>>> res = Pipeline(["cse", "simplify", "dce"]).run(fe.make_graph(f, passes=())(np.ones(3, np.float32)))
>>> print(res.report())                           # equations before -> after, time per pass
cse                         5 -> 4      eqns ... ms
simplify                    4 -> 3      eqns ... ms
dce                         3 -> 3      eqns ... ms
>>> print(res.graph)
{ lambda ; a:f32[3]. let
    b:f32[3] = sin a
    c:f32[3] = mul b b
    d:f32[3] = add c a
  in (d,) }
"""
from .cse import cse
from .dot import to_dot
from .fold import fold_constants
from .pipeline import PassStat, Pipeline, PipelineResult, pass_name
from .registry import DEFAULT_PASSES, GRAPH_PASSES, register_pass, resolve
from .rewrite import Rewriter, count_eqns, dce, forward, map_subgraphs, on, rewrite, rewrite_pass
from .simplify import fold_dot_transposes, fold_transposes, simplify

DEFAULT = Pipeline(DEFAULT_PASSES, check=False)

__all__ = ["DEFAULT", "DEFAULT_PASSES", "GRAPH_PASSES", "PassStat", "Pipeline", "PipelineResult",
           "Rewriter", "count_eqns", "cse", "dce", "fold_constants", "fold_dot_transposes",
           "fold_transposes", "forward", "map_subgraphs", "on", "pass_name", "register_pass", "resolve",
           "rewrite",
           "rewrite_pass", "simplify", "to_dot"]
