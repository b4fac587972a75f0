"""What the graph passes share: dead-code elimination and applying a pass to the sub-graphs
of control-flow equations (both from frontend.core.tracing, re-exported), and the forward
rewriter that runs local rules.

A local rule is ``rule(eqn, rw) -> None | Eqn | [atoms]``: None when it does not apply, a new
equation (same output Vars) to stand for ``eqn``, or one atom per output of ``eqn`` that the
outputs become (forwarding, e.g. ``x * 1 -> x``). ``rw`` (a ``Rewriter``) tells where a value
comes from (``rw.producer(x)``) and which values are known splat constants
(``rw.scalar(x)``). Every answer is checked: a new equation must have the output types of the
old one (abstract evaluation is re-run), a forwarded atom the type of the output it replaces.
"""
from __future__ import annotations

import numpy as np

from ..core.graph_utils import dce, map_subgraphs  # noqa: F401 (here for the passes)
from ..core.ir import Eqn, Graph, Literal, subgraphs
from ..primitives.shape import broadcast_in_dim_p, reshape_p


def count_eqns(g: Graph) -> int:
    """Equations of ``g``, those of its sub-graphs included."""
    return len(g.eqns) + sum(count_eqns(s) for e in g.nested for s in subgraphs(e))


def same_type(a, b) -> bool:
    """Same shape, dtype and weak type."""
    return a.aval == b.aval


def forward(e: Eqn, atom):
    """The rule answer 'the output of ``e`` is ``atom``' (None when the types differ)."""
    return [atom] if same_type(atom, e.outs[0]) else None


_SPLAT_LIMIT = 1 << 16


class Rewriter:
    """The state of one forward sweep over a graph: producers and known constants."""

    def __init__(self, g: Graph):
        self._producer: dict = {}
        self._consts = {id(v): c for v, c in zip(g.constvars, g.consts, strict=True)}
        self.memo: dict = {}  # for rules that remember what they saw (e.g. cse)

    def producer(self, x):
        """The (rewritten) equation that defines ``x``, or None (an argument, a constant or a
        Literal)."""
        return None if type(x) is Literal else self._producer.get(id(x))

    def scalar(self, x):
        """The value of ``x`` as a Python scalar when every element is known and equal (a
        Literal, a broadcast or reshape of one, a splat constant), else None."""
        for _ in range(16):
            if type(x) is Literal:
                return x.val
            c = self._consts.get(id(x))
            if c is not None:
                if not 0 < x.aval.size <= _SPLAT_LIMIT:
                    return None
                c = np.asarray(c)
                flat = c.reshape(-1)
                if not (flat == flat[0]).all():
                    return None
                return flat[0].item()
            e = self._producer.get(id(x))
            if e is None or e.prim not in (broadcast_in_dim_p, reshape_p):
                return None
            x = e.inputs[0]
        return None


def _rule_name(rule) -> str:
    return getattr(rule, "__name__", repr(rule))


def _checked_eqn(rule, old: Eqn, new: Eqn) -> Eqn:
    outs = new.prim.abstract_eval(*(a.aval for a in new.inputs), **new.params)
    outs = tuple(outs) if new.prim.multiple_results else (outs,)
    want = tuple(v.aval for v in old.outs)
    if new.outs != old.outs or outs != want:
        raise ValueError(f"rewrite rule {_rule_name(rule)} replaced a {old.prim.name} giving "
                         f"{list(want)} by a {new.prim.name} giving {list(outs)}; a rule must "
                         "keep the output Vars and their types")
    return new


def on(*prims):
    """Declare the primitives a rule looks at (the rewriter then calls it for those only):
    ``@on(transpose_p)`` above ``def rule(e, rw)``."""
    def deco(rule):
        rule.primitives = frozenset(prims)
        return rule
    return deco


def _dispatch(rules) -> tuple:
    """(rules for any primitive, {primitive: rules}) from the rules' ``primitives``."""
    general = tuple(r for r in rules if getattr(r, "primitives", None) is None)
    by_prim: dict = {}
    for r in rules:
        for p in getattr(r, "primitives", None) or ():
            by_prim.setdefault(p, [])
    for p in by_prim:
        by_prim[p] = tuple(r for r in rules if getattr(r, "primitives", None) is None
                           or p in r.primitives)
    return general, by_prim


def rewrite(g: Graph, rules, recurse: bool = True) -> Graph:
    """Run the local ``rules`` over ``g`` in one forward sweep (each equation is rewritten
    until no rule applies), then drop what became dead. Sub-graphs are rewritten too
    (``recurse``). Returns ``g`` itself when nothing changed."""
    general, by_prim = _dispatch(rules)
    if not general and not (recurse and g.nested) and by_prim.keys().isdisjoint(g.prims):
        return g  # no equation any rule looks at
    rw = Rewriter(g)
    subst: dict = {}
    eqns = []
    changed = False

    def get(a):
        return a if type(a) is Literal else subst.get(id(a), a)

    producer = rw._producer
    for e in g.eqns:
        if subst:
            ins = tuple([get(a) for a in e.inputs])
            if any(a is not b for a, b in zip(ins, e.inputs, strict=True)):
                e = Eqn(e.prim, ins, e.params, e.outs, e.loc)
                changed = True
        if recurse and e.params:
            e2 = map_subgraphs(e, lambda s: rewrite(s, rules))
            if e2 is not e:
                changed, e = True, e2
        for _ in range(64):  # a rule answer is rewritten again, until no rule applies
            for rule in by_prim.get(e.prim, general):
                r = rule(e, rw)
                if r is not None:
                    break
            else:
                break
            if isinstance(r, Eqn):
                e = _checked_eqn(rule, e, r)
                changed = True
                continue
            r = list(r)
            if len(r) != len(e.outs) or not all(map(same_type, r, e.outs)):
                raise ValueError(f"rewrite rule {_rule_name(rule)} forwarded {r} for the "
                                 f"outputs {list(e.outs)} of a {e.prim.name}: one atom of the "
                                 "same type per output is needed")
            for o, a in zip(e.outs, r, strict=True):
                subst[id(o)] = a
            e = None
            changed = True
            break
        if e is not None:
            eqns.append(e)
            for o in e.outs:
                producer[id(o)] = e
    if not changed:
        return g
    outvars = tuple(get(v) for v in g.outvars)
    return dce(Graph(g.invars, g.constvars, g.consts, tuple(eqns), outvars))


def rewrite_pass(*rules, name: str | None = None, doc: str | None = None):
    """A graph pass (Graph -> Graph) that runs the local ``rules`` (see ``rewrite``).

    >>> import numpy as np
    >>> import frontend as fe
    >>> from frontend.passes import forward, rewrite_pass
    >>> from frontend.primitives.elementwise import neg_p
    >>> def double_neg(e, rw):
    ...     inner = rw.producer(e.inputs[0]) if e.prim is neg_p else None
    ...     return forward(e, inner.inputs[0]) if inner and inner.prim is neg_p else None
    >>> no_double_neg = rewrite_pass(double_neg, name="no_double_neg")
    >>> print(no_double_neg(fe.make_graph(lambda x: -(-x) * 2, passes=())(np.ones(2, np.float32))))
    { lambda ; a:f32[2]. let
        b:f32[2] = mul a 2.0:f32[]
      in (b,) }
    """
    def run(g: Graph) -> Graph:
        return rewrite(g, rules)

    run.__name__ = name or "_".join(_rule_name(r) for r in rules)
    run.__doc__ = doc or "Local rewrites: " + ", ".join(_rule_name(r) for r in rules) + "."
    run.rules = rules
    return run
