"""Control-flow primitives and their wrappers (JAX's lax semantics, pytrees everywhere):

- ``cond``  : ``cond(index, *operands; branches)`` runs ``branches[index]`` (stablehlo.if /
  stablehlo.case). ``lax.cond`` turns a bool predicate into an int32 index; ``lax.switch``
  clamps its index.
- ``while`` : ``while(*cond_consts, *body_consts, *carry; cond_graph, body_graph,
  cond_nconsts, body_nconsts)`` (stablehlo.while).
- ``scan``  : ``scan(*consts, *carry, *xs; body, num_consts, num_carry, length, reverse)``:
  body(consts, carry, x) -> (carry, y), ys stacked on a new leading axis (a stablehlo.while
  over a counter). ``fori_loop`` with static bounds and ``map`` are scans.

Each user function is traced into a sub-Graph held in the params; what it closes over
(tracers of an outer trace, arrays) becomes explicit leading operands (closure conversion).
Sub-graphs built by batching rules may keep concrete constants as constvars.
"""
from __future__ import annotations

import builtins
import collections.abc
import inspect

import numpy as np

from .. import dtypes
from ..batching import BatchTrace, BatchTracer, bdim_at, moveaxis
from ..core import (PRIMITIVES, Aval, Graph, GraphTrace, Literal, Primitive, Tracer, Var, aval_of, eval_graph,
                    new_trace, primitive)
from ..tree import TreeDef, key_paths, tree_flatten, tree_unflatten

_I32 = np.dtype(np.int32)
_NO = object()

# ----------------------------------------------------------------------------- tracing helpers


def _traceable(o):
    if isinstance(o, Literal):
        return o
    from ..api import _as_traceable
    return _as_traceable(o)


def _trace(fn, in_avals) -> Graph:
    """Trace ``fn`` (flat values in, flat list out) into a Graph; what it closes over is in
    the graph's constvars/consts."""
    with new_trace(GraphTrace) as tr:
        args = [tr.new_arg(a) for a in in_avals]
        outs = [_traceable(o) for o in fn(*args)]
    return tr.to_graph(args, outs)


def _closure_convert(g: Graph):
    """(g with its captured values as leading invars, the captured values)."""
    return _intern(Graph(tuple(g.constvars) + tuple(g.invars), (), (), g.eqns, g.outvars)), list(g.consts)


_INTERNED: dict = {}


def _param_key(v):
    if isinstance(v, Graph):
        k = _graph_key(v)
        return ("G", id(v)) if k is None else k
    if isinstance(v, tuple):
        return tuple(_param_key(x) for x in v)
    return v


def _graph_key(g: Graph):
    """A structural key of a graph without constants (None when it has some): equal keys,
    equal computations."""
    if g.consts:
        return None
    ids: dict = {}

    def atom(a):
        if isinstance(a, Literal):
            return ("L", type(a.val).__name__, repr(a.val), a.aval)
        k = ids.get(id(a))
        if k is None:
            k = ids[id(a)] = len(ids)
        return k

    parts = [tuple(v.aval for v in g.invars), tuple(atom(v) for v in g.invars)]
    for e in g.eqns:
        parts.append((id(e.prim), tuple(atom(x) for x in e.inputs),
                      tuple((k, _param_key(v)) for k, v in sorted(e.params.items())),
                      tuple(v.aval for v in e.outs), tuple(atom(v) for v in e.outs)))
    parts.append(tuple(atom(v) for v in g.outvars))
    return tuple(parts)


def _intern(g: Graph) -> Graph:
    """One Graph object per structure, so that the eager executable cache (keyed by params,
    Graphs by identity) hits when the same function is traced again."""
    try:
        k = _graph_key(g)
        hash(k)
    except TypeError:
        return g
    if k is None:
        return g
    if len(_INTERNED) > 4096:
        _INTERNED.clear()
    return _INTERNED.setdefault(k, g)


def _flatten_fun(fun, in_td: TreeDef, box: list):
    """fun on pytrees -> a function on flat leaves; the output treedef goes to ``box``."""
    def flat(*leaves):
        out = fun(*tree_unflatten(in_td, leaves))
        outs, td = tree_flatten(out)
        box.append(td)
        return outs
    return flat


def _eval(g: Graph, args) -> list:
    """Bind every equation of ``g`` under the current trace (Literals stay typed)."""
    return eval_graph(g, g.consts, args)


def _leaf_aval(x) -> Aval:
    if isinstance(x, (Tracer, Literal)) or hasattr(x, "aval"):
        return x.aval
    try:
        return aval_of(x)
    except TypeError:
        raise TypeError(f"Value {x!r} of type {type(x)} is not a valid JAX type") from None


def _typematch(a: Aval, b: Aval) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype


def _long(a: Aval) -> str:
    return f"{a.dtype.name}[{','.join(builtins.map(str, a.shape))}]"


def _mismatch(a: Aval, b: Aval) -> str:
    why = []
    if a.dtype != b.dtype:
        why.append("the dtypes do not match")
    if a.shape != b.shape:
        why.append("the shapes do not match")
    return ", so " + ", and ".join(why) if why else ""


def _sourceinfo(f) -> str:
    code = getattr(f, "__code__", None)
    name = getattr(f, "__name__", None) or str(f)
    if code is None:
        return name
    return f"{name} at {code.co_filename}:{code.co_firstlineno}"


def _describe(td: TreeDef) -> str:
    if td.kind == "leaf":
        return "pytree leaf"
    if td.kind == "none":
        return "None"
    if td.kind in ("tuple", "list"):
        return f"{td.kind} of length {len(td.children)}"
    if td.kind == "dict":
        return f"dict with keys {list(td.meta)}"
    return f"{td.meta.__name__}"


def _tree_diffs(t1: TreeDef, t2: TreeDef, path=""):
    """(path, thing1, thing2, explanation) for each place two treedefs differ."""
    if t1 == t2:
        return
    if t1.kind != t2.kind or (t1.kind == "namedtuple" and t1.meta != t2.meta):
        th = {"tuple": "<class 'tuple'>", "list": "<class 'list'>", "dict": "<class 'dict'>"}
        yield (path, th.get(t1.kind, _describe(t1)), th.get(t2.kind, _describe(t2)),
               "their Python types differ")
    elif t1.kind == "dict" and t1.meta != t2.meta:
        yield path, _describe(t1), _describe(t2), "the dictionary keys differ"
    elif len(t1.children) != len(t2.children):
        yield path, _describe(t1), _describe(t2), "the lengths do not match"
    else:
        keys = t1.meta if t1.kind == "dict" else range(len(t1.children))
        for k, c1, c2 in zip(keys, t1.children, t2.children):
            yield from _tree_diffs(c1, c2, f"{path}[{k!r}]")


def _bullets(diffs, sep_last=False) -> str:
    if len(diffs) == 1:
        return f"{diffs[0][0].upper()}{diffs[0][1:]}.\n"
    if sep_last:
        return "\n".join(f"  * {d};" for d in diffs[:-1]) + f"\n  * {diffs[-1]}.\n"
    return "".join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.\n"


def _check_branch_outputs(api, name1, name2, f1, f2, td1, avals1, td2, avals2):
    """JAX's wording for branches whose outputs differ in structure or type."""
    paths = key_paths(td1)
    comp = (lambda p: f" at path {p}" if p else "")
    if td1 != td2:
        diffs = [f"{name1} output{comp(p)} is a {a} but {name2} output{comp(p)} is a {b}, so {e}"
                 for p, a, b, e in _tree_diffs(td1, td2)]
        raise TypeError(
            f"{api} branch outputs must have the same pytree structure, but they differ:\n\n"
            f"{name1} is {_sourceinfo(f1)}\n{name2} is {_sourceinfo(f2)}\n\n"
            f"{_bullets(diffs) if len(diffs) > 1 else diffs[0] + '.' + chr(10)}\n"
            f"Revise {name1} and/or {name2} so that they have the same pytree structure.")
    diffs = [f"the output of {name1}{comp(p)} has type {_long(a)} but the corresponding output "
             f"of {name2} has type {_long(b)}{_mismatch(a, b)}"
             for p, a, b in zip(paths, avals1, avals2) if not _typematch(a, b)]
    if diffs:
        raise TypeError(
            f"{api} branches must have equal output types but they differ.\n\n"
            f"{name1} is {_sourceinfo(f1)}\n{name2} is {_sourceinfo(f2)}\n\n"
            f"{_bullets(diffs, sep_last=True)}\n"
            f"Revise {name1} and/or {name2} so that all output types match.")


def _carry_name(fun):
    try:
        ps = list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
        return None
    return ps[0] if ps else None


def _check_carry(name, fun, in_td, in_avals, out_td, out_avals):
    """JAX's wording for a loop body whose carry output differs from its input."""
    cn = _carry_name(fun)
    if cn:
        comp = (lambda p: f"the input carry component {cn}{p}" if p else f"the input carry {cn}")
    else:
        comp = (lambda p: f"the input carry at path {p}" if p else "the input carry")
    if in_td != out_td:
        diffs = [f"{comp(p)} is a {a} but the corresponding component of the carry output is a "
                 f"{b}, so {e}" for p, a, b, e in _tree_diffs(in_td, out_td)]
        raise TypeError(
            f"{name} function carry input and carry output must have the same pytree structure, "
            f"but they differ:\n\n{_bullets(diffs)}\n"
            "Revise the function so that the carry output has the same pytree structure as the "
            "carry input.")
    diffs = [f"{comp(p)} has type {_long(a)} but the corresponding output carry component has "
             f"type {_long(b)}{_mismatch(a, b)}"
             for p, a, b in zip(key_paths(in_td), in_avals, out_avals) if not _typematch(a, b)]
    if diffs:
        raise TypeError(
            f"{name} function carry input and carry output must have equal types, but they "
            f"differ:\n\n{_bullets(diffs)}\n"
            "Revise the function so that all output types match the corresponding input types.")


def _promote_weak(vals, in_avals, out_avals):
    """A weakly typed initial carry whose type the body changes is converted to the promoted
    type (as JAX does); returns (vals, changed)."""
    from ..numpy._core import convert
    new, changed = [], False
    for v, a, o in zip(vals, in_avals, out_avals):
        if a.weak_type and not _typematch(a, o):
            d, _ = dtypes.promote((a.dtype, True), (o.dtype, o.weak_type))
            if d != a.dtype:
                v = convert(v, d, False)
                changed = True
        new.append(v)
    return new, changed


# ----------------------------------------------------------------------------- batching helpers


def _batched_aval(a: Aval, d, size: int) -> Aval:
    if d is None:
        return a
    return Aval(a.shape[:d] + (size,) + a.shape[d:], a.dtype, a.weak_type)


def _batch_graph(g: Graph, size: int, in_dims, force=None):
    """(graph, out_batched): ``g`` vectorized over ``size`` lanes. Input i carries its batch
    axis at ``in_dims[i]`` (None: unbatched); every batched output has it at 0; an output with
    ``force[i]`` is batched (broadcast) even when it depends on no batched input."""
    in_avals = [_batched_aval(v.aval, d, size) for v, d in zip(g.invars, in_dims, strict=True)]
    box = []

    def fn(*args):
        with new_trace(BatchTrace, size) as bt:
            tracers = [BatchTracer(bt, a, d) if d is not None else a
                       for a, d in zip(args, in_dims)]
            outs = _eval(g, tracers)
        res, flags = [], []
        for i, o in enumerate(outs):
            if isinstance(o, BatchTracer) and o._trace is bt:
                res.append(moveaxis(o.val, o.bdim, 0))
                flags.append(True)
            elif force is not None and force[i]:
                res.append(bdim_at(o, None, size, 0))
                flags.append(True)
            else:
                res.append(o)
                flags.append(False)
        box.append(flags)
        return res

    return _intern(_trace(fn, in_avals)), box[0]


def _p(name):
    try:
        return PRIMITIVES[name]
    except KeyError:
        raise NotImplementedError(f"this batching rule needs the {name} primitive, which is "
                                  "not registered") from None


def _lane_select(pred, on_true, on_false):
    """select per lane: pred is bool[B], the values have the batch axis at 0."""
    shp = on_true.aval.shape if hasattr(on_true, "aval") else np.shape(on_true)
    if len(shp) > 1:
        pred = _p("broadcast_in_dim").bind(pred, shape=tuple(shp), broadcast_dimensions=(0,))
    return _p("select").bind(pred, on_true, on_false)


# ----------------------------------------------------------------------------- cond


@primitive
class cond_p(Primitive):
    """cond(index, *operands; branches): branches[index](*operands). ``index`` is an int32
    scalar; every branch graph takes the operands and gives outputs of the same types."""

    name = "cond"
    multiple_results = True

    def abstract_eval(self, index, *ops, branches):
        if index.shape != () or index.dtype != _I32:
            raise TypeError(f"cond index must be an int32 scalar, got {index.str_short()}.")
        if not branches:
            raise ValueError("Empty branch sequence")
        for k, g in enumerate(branches):
            if len(g.invars) != len(ops) or not all(
                    _typematch(v.aval, a) for v, a in zip(g.invars, ops)):
                raise TypeError(f"cond branch {k} takes {[v.aval for v in g.invars]}, "
                                f"got operands {list(ops)}")
        outs0 = branches[0].out_avals
        for g in branches[1:]:
            if len(g.outvars) != len(outs0) or not all(builtins.map(_typematch, g.out_avals, outs0)):
                raise TypeError("cond branches must have equal output types, got "
                                f"{list(outs0)} and {list(g.out_avals)}")
        return list(outs0)  # (JAX: the types of branch 0, weak types included)

    def batch(self, axis_size, args, dims, *, branches):
        # outputs batched in any branch have the batch axis at 0 (others stay unbatched)
        index, ops = args[0], args[1:]
        idx_dim, op_dims = dims[0], dims[1:]
        if idx_dim is None:
            out_b = [False] * len(branches[0].outvars)
            for g in branches:
                out_b = [a or b for a, b in zip(out_b, _batch_graph(g, axis_size, op_dims)[1])]
            new = tuple(_batch_graph(g, axis_size, op_dims, out_b)[0] for g in branches)
            outs = self.bind(index, *ops, branches=new)
            return outs, [0 if b else None for b in out_b]
        # batched predicate: every branch runs (batched), each lane selects its branch's result
        n_out = len(branches[0].outvars)
        results = [_eval(_batch_graph(g, axis_size, op_dims, [True] * n_out)[0], ops)
                   for g in branches]
        index = moveaxis(index, idx_dim, 0)
        outs = list(results[-1])
        for k in range(len(branches) - 2, -1, -1):
            hit = _p("eq").bind(index, Literal(k, Aval((), _I32)))
            outs = [_lane_select(hit, r, o) for r, o in zip(results[k], outs)]
        return outs, [0] * n_out


def _index_dtype(x):
    return _leaf_aval(x).dtype if not isinstance(x, (bool, int, float, complex)) \
        else dtypes.dtype_and_weak(x)[0]


def cond(pred, true_fun, false_fun, *operands, operand=_NO):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, as one conditional
    (both functions are traced; only one runs). Under vmap with a batched ``pred`` both run
    and each lane selects its result.

    >>> cond(x > 0, lambda x: x, lambda x: -x, x)
    """
    if not (callable(true_fun) and callable(false_fun)):
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    operands = _with_operand_kw(operand, operands)
    if pred is None:
        raise TypeError("cond predicate is None")
    if isinstance(pred, collections.abc.Sequence):
        raise TypeError(f"Pred must be a scalar, got {pred} of type {type(pred)}")
    a = _leaf_aval(pred)
    if a.ndim != 0:
        raise TypeError(f"Pred must be a scalar, got {pred} of shape {a.shape}.")
    d = _index_dtype(pred)
    from ..numpy._core import convert
    if d != np.bool_:
        if d.kind in "iuf":
            from ..numpy import not_equal
            pred = not_equal(pred, 0)
        else:
            raise TypeError(f"Pred type must be either boolean or number, got {d}.")
    index = convert(pred, _I32, False)
    return _cond_two(index, true_fun, false_fun, operands)


def _cond_two(index, true_fun, false_fun, operands):
    # JAX checks true_fun against false_fun (names in that order); branches are (false, true)
    leaves, in_td = tree_flatten(operands)
    avals = [_leaf_aval(x) for x in leaves]
    bt, bf = [], []
    gt = _trace(_flatten_fun(true_fun, in_td, bt), avals)
    gf = _trace(_flatten_fun(false_fun, in_td, bf), avals)
    _check_branch_outputs("cond", "true_fun", "false_fun", true_fun, false_fun, bt[0],
                          gt.out_avals, bf[0], gf.out_avals)
    return _bind_cond(index, (gf, gt), leaves, bt[0])


def _bind_cond(index, graphs, leaves, out_td):
    consts = []
    where = {}
    for g in graphs:
        for v, c in zip(g.constvars, g.consts):
            if id(c) not in where:
                where[id(c)] = len(consts)
                consts.append((c, v.aval))
    closed = []
    for g in graphs:
        mine = {id(c): v for v, c in zip(g.constvars, g.consts)}
        cv = tuple(mine.get(id(c)) or Var(a) for c, a in consts)
        closed.append(_intern(Graph(cv + tuple(g.invars), (), (), g.eqns, g.outvars)))
    outs = cond_p.bind(index, *[c for c, _ in consts], *leaves, branches=tuple(closed))
    return tree_unflatten(out_td, outs)


def _with_operand_kw(operand, operands: tuple) -> tuple:
    """The positional operands, or the legacy ``operand=`` keyword (not both)."""
    if operand is _NO:
        return operands
    if operands:
        raise TypeError("if 'operand' keyword is passed then no positional operands can be "
                        f"passed, got operand={operand} and positional operands {operands}")
    return (operand,)


def switch(index, branches, *operands, operand=_NO):
    """``branches[clamp(index, 0, len(branches) - 1)](*operands)`` as one stablehlo.case."""
    if not isinstance(branches, collections.abc.Sequence) or not all(builtins.map(callable, branches)):
        raise TypeError("lax.switch: branches argument should be a sequence of callables.")
    operands = _with_operand_kw(operand, operands)
    a = _leaf_aval(index)
    if a.ndim != 0:
        raise TypeError(f"Branch index must be scalar, got {index} of shape {a.shape}.")
    d = _index_dtype(index)
    if d.kind not in "iu":
        raise TypeError(f"Index type must be an integer, got {index} as {d}")
    branches = tuple(branches)
    if len(branches) == 0:
        raise ValueError("Empty branch sequence")
    if len(branches) == 1:
        return branches[0](*operands)
    from ..numpy._core import convert
    index = convert(index, _I32, False)
    lo, hi = Literal(0, Aval((), _I32)), Literal(len(branches) - 1, Aval((), _I32))
    index = _p("min").bind(_p("max").bind(index, lo), hi)
    leaves, in_td = tree_flatten(operands)
    avals = [_leaf_aval(x) for x in leaves]
    graphs, tds = [], []
    for br in branches:
        box = []
        graphs.append(_trace(_flatten_fun(br, in_td, box), avals))
        tds.append(box[0])
    for k in range(1, len(graphs)):
        _check_branch_outputs("switch", "branch 0", f"branch{k}", branches[0], branches[k],
                              tds[0], graphs[0].out_avals, tds[k], graphs[k].out_avals)
    return _bind_cond(index, graphs, leaves, tds[0])


# ----------------------------------------------------------------------------- while


def _passthrough(body: Graph, nconsts: int) -> list:
    """Carry entries the body returns unchanged (the output is the input variable)."""
    ins = body.invars[nconsts:]
    return [o is i for o, i in zip(body.outvars, ins)]


@primitive
class while_p(Primitive):
    """while(*cond_consts, *body_consts, *carry; cond_graph, body_graph, cond_nconsts,
    body_nconsts): carry = body(body_consts, carry) while cond(cond_consts, carry)."""

    name = "while"
    multiple_results = True

    def abstract_eval(self, *avals, cond_graph, body_graph, cond_nconsts, body_nconsts):
        cc = avals[:cond_nconsts]
        bc = avals[cond_nconsts:cond_nconsts + body_nconsts]
        carry = avals[cond_nconsts + body_nconsts:]
        for what, g, ins in (("cond", cond_graph, cc + carry), ("body", body_graph, bc + carry)):
            if len(g.invars) != len(ins) or not all(_typematch(v.aval, a) for v, a in zip(g.invars, ins)):
                raise TypeError(f"while {what}_graph takes {[v.aval for v in g.invars]}, got "
                                f"{list(ins)}")
        po = cond_graph.out_avals
        if len(po) != 1 or po[0].shape != () or po[0].dtype != np.bool_:
            raise TypeError(f"cond_fun must return a boolean scalar, but got output type(s) {list(po)}.")
        outs = body_graph.out_avals
        if len(outs) != len(carry) or not all(builtins.map(_typematch, outs, carry)):
            raise TypeError("body_fun output and input must have identical types, got "
                            f"{list(outs)} and {list(carry)}")
        return list(outs)

    def batch(self, axis_size, args, dims, *, cond_graph, body_graph, cond_nconsts, body_nconsts):
        # batched carries have the batch axis at 0
        nc, nb = cond_nconsts, body_nconsts
        cc, bc, init = args[:nc], args[nc:nc + nb], args[nc + nb:]
        ccd, bcd, initd = dims[:nc], dims[nc:nc + nb], dims[nc + nb:]
        passthrough = _passthrough(body_graph, nb)
        carry_b = [d is not None for d in initd]
        while True:  # fixpoint: which carries are batched
            cd = [0 if b else None for b in carry_b]
            pred_b = _batch_graph(cond_graph, axis_size, list(ccd) + cd)[1][0]
            out_b = _batch_graph(body_graph, axis_size, list(bcd) + cd)[1]
            new = [a or b or (pred_b and not p) for a, b, p in zip(carry_b, out_b, passthrough)]
            if new == carry_b:
                break
            carry_b = new
        cd = [0 if b else None for b in carry_b]
        init = [bdim_at(x, d, axis_size, 0) if b else x for x, d, b in zip(init, initd, carry_b)]
        out_dims = [0 if b else None for b in carry_b]
        body_b = _batch_graph(body_graph, axis_size, list(bcd) + cd, carry_b)[0]
        if not pred_b:
            cond_b = _batch_graph(cond_graph, axis_size, list(ccd) + cd)[0]
            outs = self.bind(*cc, *bc, *init, cond_graph=cond_b, body_graph=body_b,
                             cond_nconsts=nc, body_nconsts=nb)
            return outs, out_dims
        # batched predicate: loop while any lane is active; finished lanes keep their carry
        cond_lanes = _batch_graph(cond_graph, axis_size, list(ccd) + cd)[0]
        cc_avals = [aval_of(x) for x in cc]
        bc_avals = [aval_of(x) for x in bc]
        carry_avals = [aval_of(x) for x in init]

        def any_active(*a):
            (pred,) = _eval(cond_lanes, a)
            return [_p("reduce_or").bind(pred, axes=(0,))]

        def step(*a):
            c_in, b_in, carry = a[:nc], a[nc:nc + nb], a[nc + nb:]
            (pred,) = _eval(cond_lanes, list(c_in) + list(carry))
            new = _eval(body_b, list(b_in) + list(carry))
            return [_lane_select(pred, n, o) if b else n
                    for n, o, b in zip(new, carry, carry_b)]

        cond_g = _intern(_trace(any_active, cc_avals + carry_avals))
        body_g = _intern(_trace(step, cc_avals + bc_avals + carry_avals))
        outs = self.bind(*cc, *cc, *bc, *init, cond_graph=cond_g, body_graph=body_g,
                         cond_nconsts=nc, body_nconsts=nc + nb)
        return outs, out_dims


def while_loop(cond_fun, body_fun, init_val):
    """``while cond_fun(val): val = body_fun(val)``, as one stablehlo.while. Under vmap a
    batched condition runs until every lane is done, freezing finished lanes.

    >>> while_loop(lambda x: x < 10, lambda x: x * 2, 1)
    """
    if not (callable(body_fun) and callable(cond_fun)):
        raise TypeError("lax.while_loop: body_fun and cond_fun arguments should be callable.")
    leaves, td = tree_flatten(init_val)
    in_td = tree_flatten((init_val,))[1]

    def make(avals):
        cb, bb = [], []
        cg = _trace(_flatten_fun(cond_fun, in_td, cb), avals)
        if cb[0].kind != "leaf" or len(cg.outvars) != 1:
            raise TypeError(f"cond_fun must return a boolean scalar, but got pytree PyTreeDef({cb[0]}).")
        pa = cg.out_avals[0]
        if pa.shape != () or pa.dtype != np.bool_:
            raise TypeError("cond_fun must return a boolean scalar, but got output type(s) "
                            f"[ShapedArray({_long(pa)}{', weak_type=True' if pa.weak_type else ''})].")
        bg = _trace(_flatten_fun(body_fun, in_td, bb), avals)
        return cg, bg, bb[0]

    avals = [_leaf_aval(x) for x in leaves]
    cg, bg, out_td = make(avals)
    if out_td == td:
        leaves, changed = _promote_weak(leaves, avals, bg.out_avals)
        if changed:
            avals = [_leaf_aval(x) for x in leaves]
            cg, bg, out_td = make(avals)
    _check_carry("while_loop body", body_fun, td, avals, out_td, bg.out_avals)
    cg, cconsts = _closure_convert(cg)
    bg, bconsts = _closure_convert(bg)
    outs = while_p.bind(*cconsts, *bconsts, *leaves, cond_graph=cg, body_graph=bg,
                        cond_nconsts=len(cconsts), body_nconsts=len(bconsts))
    return tree_unflatten(td, outs)


# ----------------------------------------------------------------------------- scan


@primitive
class scan_p(Primitive):
    """scan(*consts, *carry, *xs; body, num_consts, num_carry, length, reverse): for each
    index of the leading axis of xs (last to first when reverse), (carry, y) = body(consts,
    carry, x); results: the final carry, then the ys stacked on a new leading axis."""

    name = "scan"
    multiple_results = True

    def abstract_eval(self, *avals, body, num_consts, num_carry, length, reverse):
        consts = avals[:num_consts]
        carry = avals[num_consts:num_consts + num_carry]
        xs = avals[num_consts + num_carry:]
        for x in xs:
            if x.ndim == 0 or x.shape[0] != length:
                raise TypeError(f"scan xs must have leading axis {length}, got {x.str_short()}")
        ins = list(consts) + list(carry) + [Aval(x.shape[1:], x.dtype, x.weak_type) for x in xs]
        if len(body.invars) != len(ins) or not all(_typematch(v.aval, a) for v, a in zip(body.invars, ins)):
            raise TypeError(f"scan body takes {[v.aval for v in body.invars]}, got {ins}")
        outs = body.out_avals
        if len(outs) < num_carry or not all(builtins.map(_typematch, outs[:num_carry], carry)):
            raise TypeError("scan body carry output and input must have identical types, got "
                            f"{list(outs[:num_carry])} and {list(carry)}")
        return list(outs[:num_carry]) + [Aval((length,) + y.shape, y.dtype, y.weak_type)
                                         for y in outs[num_carry:]]

    def batch(self, axis_size, args, dims, *, body, num_consts, num_carry, length, reverse):
        # batched carries: batch axis at 0; batched ys: at 1 (0 is the scanned axis)
        nc, nk = num_consts, num_carry
        consts, init, xs = args[:nc], args[nc:nc + nk], list(args[nc + nk:])
        cd, initd, xd = dims[:nc], dims[nc:nc + nk], list(dims[nc + nk:])
        for i, d in enumerate(xd):
            if d == 0:  # the batch axis must not be the scanned axis
                xs[i], xd[i] = moveaxis(xs[i], 0, 1), 1
        x_in = [None if d is None else d - 1 for d in xd]
        carry_b = [d is not None for d in initd]
        while True:
            out_b = _batch_graph(body, axis_size, list(cd) + [0 if b else None for b in carry_b] + x_in)[1]
            new = [a or b for a, b in zip(carry_b, out_b[:nk])]
            if new == carry_b:
                break
            carry_b = new
        ny = len(body.outvars) - nk
        body_b, out_b = _batch_graph(body, axis_size,
                                     list(cd) + [0 if b else None for b in carry_b] + x_in,
                                     carry_b + [False] * ny)
        init = [bdim_at(x, d, axis_size, 0) if b else x for x, d, b in zip(init, initd, carry_b)]
        outs = self.bind(*consts, *init, *xs, body=body_b, num_consts=nc, num_carry=nk,
                         length=length, reverse=reverse)
        return outs, [0 if b else None for b in carry_b] + [1 if b else None for b in out_b[nk:]]


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """Loop ``f(carry, x) -> (carry, y)`` over the leading axis of ``xs``; returns the final
    carry and the ys stacked (JAX's lax.scan). One stablehlo.while.

    >>> scan(lambda c, x: (c + x, c), 0.0, fnp.arange(3.0))
    """
    if not callable(f):
        raise TypeError("scan: f argument should be a callable.")
    xs_leaves, xs_td = tree_flatten(xs)
    x_avals = [_leaf_aval(x) for x in xs_leaves]
    for x, a in zip(xs_leaves, x_avals):
        if a.ndim == 0:
            raise ValueError(f"scan got value with no leading axis to scan over: {x}.")
    lengths = [a.shape[0] for a in x_avals]
    if length is not None:
        if isinstance(length, Tracer):
            from ..core import ConcretizationTypeError
            raise ConcretizationTypeError(
                "The `length` argument to `scan` expects a concrete `int` value. For scan-like "
                "iteration with a dynamic length, use `while_loop` or `fori_loop`.")
        length = int(length)
        if not all(n == length for n in lengths):
            raise ValueError(f"scan got `length` argument of {length} which disagrees with "
                             f"leading axis sizes {lengths}.")
    else:
        if len(set(lengths)) > 1:
            raise ValueError("scan got values with different leading axis sizes: "
                             f"{', '.join(builtins.map(str, lengths))}.")
        if not lengths:
            raise ValueError("scan got no values to scan over and `length` not provided.")
        length = lengths[0]
    init_leaves, init_td = tree_flatten(init)
    nk = len(init_leaves)
    slice_avals = [Aval(a.shape[1:], a.dtype, a.weak_type) for a in x_avals]

    def make(carry_avals):
        box = []

        def body(*leaves):
            carry = tree_unflatten(init_td, leaves[:nk])
            x = tree_unflatten(xs_td, leaves[nk:])
            out = f(carry, x)
            if not isinstance(out, (tuple, list)) or len(out) != 2:
                raise TypeError(f"scan body output must be a pair, got {out}.")
            c_leaves, c_td = tree_flatten(out[0])
            y_leaves, y_td = tree_flatten(out[1])
            box.append((c_td, y_td, len(c_leaves)))
            return c_leaves + y_leaves

        g = _trace(body, list(carry_avals) + slice_avals)
        return g, box[0]

    avals = [_leaf_aval(x) for x in init_leaves]
    g, (c_td, y_td, n_c) = make(avals)
    if c_td == init_td:
        init_leaves, changed = _promote_weak(init_leaves, avals, g.out_avals[:nk])
        if changed:
            avals = [_leaf_aval(x) for x in init_leaves]
            g, (c_td, y_td, n_c) = make(avals)
    _check_carry("scan body", f, init_td, avals, c_td, g.out_avals[:n_c])
    g, consts = _closure_convert(g)
    outs = scan_p.bind(*consts, *init_leaves, *xs_leaves, body=g, num_consts=len(consts),
                       num_carry=nk, length=length, reverse=bool(reverse))
    return tree_unflatten(init_td, outs[:nk]), tree_unflatten(y_td, outs[nk:])


# ----------------------------------------------------------------------------- fori_loop, map


def _is_concrete_int(x) -> bool:
    if isinstance(x, (bool, Tracer)):
        return False
    if isinstance(x, (int, np.integer)):
        return True
    a = getattr(x, "aval", None)
    return a is not None and a.ndim == 0 and not isinstance(x, Literal) and hasattr(x, "_buf")


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """``for i in range(lower, upper): val = body_fun(i, val)``. Static bounds give a scan
    (trip count known), traced bounds a while_loop. The index ``i`` is never batched by vmap
    unless a bound is, so ``x[i]`` stays a dynamic_slice.

    >>> fori_loop(0, 3, lambda i, x: x + i, 0.0)
    """
    if not callable(body_fun):
        raise TypeError("lax.fori_loop: body_fun argument should be callable.")
    ld, lw = dtypes.dtype_and_weak(lower)
    ud, uw = dtypes.dtype_and_weak(upper)
    if ld == ud:
        dtype = ld
    else:
        dtype = None
        if ld.kind == "i" and ud.kind == "i":
            if lw and not uw:
                dtype = ud
            elif uw and not lw:
                dtype = ld
        if dtype is None:
            raise TypeError("lower and upper arguments to fori_loop must have equal types, got "
                            f"{ld.name} and {ud.name}")
    if _is_concrete_int(lower) and _is_concrete_int(upper):
        lo, hi = int(lower), int(upper)

        def scan_body(loop_carry, _):
            i, x = loop_carry
            return (i + 1, body_fun(i, x)), None

        scan_body.__name__ = "scanned_fun"
        (_, result), _ = scan(scan_body, (lo, init_val), None, length=max(hi - lo, 0))
        return result
    from ..numpy._core import convert
    if ld != dtype:
        lower = convert(lower, dtype, False)
    if ud != dtype:
        upper = convert(upper, dtype, False)

    def while_cond(loop_carry):
        return loop_carry[0] < loop_carry[1]

    def while_body(loop_carry):
        i, hi, x = loop_carry
        return i + 1, hi, body_fun(i, x)

    return while_loop(while_cond, while_body, (lower, upper, init_val))[2]


def map(f, xs, *, batch_size=None):  # noqa: A001  (lax.map)
    """``stack([f(x) for x in xs])`` as a sequential loop (a scan, one stablehlo.while) over
    the leading axis; with ``batch_size=k`` the loop runs over chunks of k examples, vmapped
    inside each chunk (a remainder chunk is vmapped after the loop).

    >>> map(lambda x: x * 2, fnp.arange(3.0))
    """
    if batch_size is not None:
        from ..control import chunked_map
        return chunked_map(f, xs, batch_size)
    return scan(lambda _, x: ((), f(x)), (), xs)[1]


__all__ = ["cond", "switch", "while_loop", "fori_loop", "scan", "map"]
