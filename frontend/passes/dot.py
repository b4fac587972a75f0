"""A graph as Graphviz DOT text (``dot -Tpng`` draws it)."""
from __future__ import annotations

from ..core.ir import Graph, Literal, param_graphs
from .rewrite import count_eqns


def _esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _param_text(v) -> str:
    gs = param_graphs(v)
    if gs:
        text = ", ".join(f"<graph: {count_eqns(g)} eqns>" for g in gs)
        return text if isinstance(v, Graph) else "(" + text + ")"
    s = str(v)
    return s if len(s) <= 40 else s[:37] + "..."


def to_dot(g: Graph, name: str = "graph") -> str:
    """Graphviz DOT of ``g``: arguments and constants as boxes, equations as ellipses
    (primitive and params), edges labelled with the value's type, results at the bottom.

    >>> import numpy as np
    >>> import frontend as fe
    >>> import frontend.numpy as fnp
    >>> from frontend.passes import to_dot
    >>> dot = to_dot(fe.make_graph(fnp.sin)(np.ones(3, np.float32)))
    >>> print(dot, end="")                        # saved as g.dot: dot -Tpng g.dot -o g.png
    digraph "graph" {
      rankdir=TB;
      node [fontname="monospace"];
      edge [fontname="monospace", fontsize=10];
      in0 [shape=box, style=filled, fillcolor="#dde8f5", label="arg 0: f32[3]"];
      e0 [shape=ellipse, label="sin"];
      in0 -> e0 [label="f32[3]"];
      out0 [shape=box, style=filled, fillcolor="#e3f2d9", label="result 0: f32[3]"];
      e0 -> out0 [label="f32[3]"];
    }
    """
    lines = [f'digraph "{_esc(name)}" {{', "  rankdir=TB;", '  node [fontname="monospace"];',
             '  edge [fontname="monospace", fontsize=10];']
    src: dict = {}
    for i, v in enumerate(g.invars):
        src[id(v)] = f"in{i}"
        lines.append(f'  in{i} [shape=box, style=filled, fillcolor="#dde8f5", '
                     f'label="arg {i}: {v.aval.str_short()}"];')
    for i, v in enumerate(g.constvars):
        src[id(v)] = f"c{i}"
        lines.append(f'  c{i} [shape=box, style=dashed, label="const {i}: {v.aval.str_short()}"];')
    n_lit = 0

    def edge(a, dst):
        nonlocal n_lit
        if type(a) is Literal:
            lines.append(f'  lit{n_lit} [shape=plaintext, label="{_esc(repr(a))}"];')
            lines.append(f"  lit{n_lit} -> {dst};")
            n_lit += 1
        else:
            lines.append(f'  {src[id(a)]} -> {dst} [label="{a.aval.str_short()}"];')

    for k, e in enumerate(g.eqns):
        params = "\n".join(f"{p}={_param_text(v)}" for p, v in sorted(e.params.items())
                            if v is not None)
        label = e.prim.name + ("\n" + params if params else "")
        lines.append(f'  e{k} [shape=ellipse, label="{_esc(label)}"];')
        for a in e.inputs:
            edge(a, f"e{k}")
        for o in e.outs:
            src[id(o)] = f"e{k}"
    for i, v in enumerate(g.outvars):
        lines.append(f'  out{i} [shape=box, style=filled, fillcolor="#e3f2d9", '
                     f'label="result {i}: {v.aval.str_short()}"];')
        edge(v, f"out{i}")
    lines.append("}")
    return "\n".join(lines) + "\n"
