"""Control-flow lax functions with JAX's semantics and error wording (pytrees everywhere):
cond, switch, while_loop, fori_loop, scan, map. Each user function is traced into a
sub-Graph (frontend.core.tracing); the primitives are in frontend.primitives.control.
"""
from __future__ import annotations

import builtins
import collections.abc
import inspect
import weakref

import numpy as np

from ..core import dtypes
from ..core.arguments import leaf_aval
from ..core.config import config
from ..core.graph_utils import closure_convert, dce
from ..core.ir import (
    LOWERING_PLATFORMS,
    Aval,
    ConcretizationTypeError,
    Graph,
    Literal,
    Tracer,
    _trace_var,
    aval_of,
    literal,
)
from ..core.params import intern_graph
from ..core.pytree import TreeDef, child_keys, key_paths, tree_flatten, tree_leaves, tree_map, tree_unflatten
from ..core.tracing import trace_pytree
from ..interpreters import named_axes
from ..primitives.control import close_branches, cond_p, platform_index_p, scan_p, typematch, while_p
from ..primitives.elementwise import max_p, min_p, ne_p
from ..primitives.ragged import Ragged
from ..transforms.vmap import chunked_map, vmap
from ._convert import convert

_I32 = np.dtype(np.int32)
_NO = object()


def _long(a: Aval) -> str:
    return f"{a.dtype.name}[{','.join(builtins.map(str, a.shape))}]"


class _Shown:
    """A value's type in JAX's words: ``float32[3]``, repr ``ShapedArray(float32[3])``."""

    def __init__(self, x):
        self.aval = leaf_aval(x)

    def __str__(self):
        return _long(self.aval)

    def __repr__(self):
        return f"ShapedArray({_long(self.aval)}{', weak_type=True' if self.aval.weak_type else ''})"


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


_NODE_TYPES = {"tuple": tuple, "list": list, "dict": dict, "none": type(None)}


def _node_type(td: TreeDef):
    """The Python type of a treedef's root (None for a leaf)."""
    if td.kind == "leaf":
        return None
    if td.kind == "namedtuple":
        return td.meta
    return td.meta.cls if td.kind == "custom" else _NODE_TYPES[td.kind]


def _tree_diffs(t1: TreeDef, t2: TreeDef, leaf: str, path=""):
    """(path, thing1, thing2, explanation) for each place two treedefs differ, worded as JAX's
    equality_errors (``leaf``: how a leaf is named)."""
    if t1.kind == "leaf" and t2.kind == "leaf":
        return
    ty1, ty2 = _node_type(t1), _node_type(t2)
    name1, name2 = (leaf if ty is None else str(ty) for ty in (ty1, ty2))
    if ty1 is not ty2:
        yield path, name1, name2, "their Python types differ"
        return
    n1, n2 = len(t1.children), len(t2.children)
    if ty1 in (tuple, list) and n1 != n2:
        yield (path, f"{ty1.__name__} of length {n1}", f"{ty2.__name__} of length {n2}",
               "the lengths do not match")
        return
    k1, k2 = child_keys(t1), child_keys(t2)
    if n1 != n2:
        diff = " ".join(repr(getattr(k, "key", k)) for k in set(k1).symmetric_difference(k2))
        yield (path, f"{name1} with {n1} child{'ren' if n1 > 1 else ''}",
               f"{name2} with {n2} child{'ren' if n2 > 1 else ''}",
               "the numbers of children do not match"
               + (f", with the symmetric difference of key sets: {{{diff}}}" if diff else ""))
        return
    m1, m2 = (t.meta.aux if t.kind == "custom" else t.meta if t.kind == "dict" else None
              for t in (t1, t2))
    if m1 != m2:
        yield (path, f"{name1} with pytree metadata {m1}", f"{name2} with pytree metadata {m2}",
               "the pytree node metadata does not match")
        return
    for k, c1, c2 in zip(k1, t1.children, t2.children, strict=True):
        yield from _tree_diffs(c1, c2, leaf, f"{path}{k}")


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
                 for p, a, b, e in _tree_diffs(td1, td2, "pytree leaf")]
        raise TypeError(
            f"{api} branch outputs must have the same pytree structure, but they differ:\n\n"
            f"{name1} is {_sourceinfo(f1)}\n{name2} is {_sourceinfo(f2)}\n\n"
            f"{_bullets(diffs) if len(diffs) > 1 else diffs[0] + '.' + chr(10)}\n"
            f"Revise {name1} and/or {name2} so that they have the same pytree structure.")
    diffs = [f"the output of {name1}{comp(p)} has type {_long(a)} but the corresponding output "
             f"of {name2} has type {_long(b)}{_mismatch(a, b)}"
             for p, a, b in zip(paths, avals1, avals2, strict=True) if not typematch(a, b)]
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
                 f"{b}, so {e}" for p, a, b, e in _tree_diffs(in_td, out_td, str(Aval))]
        raise TypeError(
            f"{name} function carry input and carry output must have the same pytree structure, "
            f"but they differ:\n\n{_bullets(diffs)}\n"
            "Revise the function so that the carry output has the same pytree structure as the "
            "carry input.")
    diffs = [f"{comp(p)} has type {_long(a)} but the corresponding output carry component has "
             f"type {_long(b)}{_mismatch(a, b)}"
             for p, a, b in zip(key_paths(in_td), in_avals, out_avals, strict=True) if not typematch(a, b)]
    if diffs:
        raise TypeError(
            f"{name} function carry input and carry output must have equal types, but they "
            f"differ:\n\n{_bullets(diffs)}\n"
            "Revise the function so that all output types match the corresponding input types.")


def _promote_weak(vals, in_avals, out_avals):
    """A weakly typed initial carry whose type the body changes is converted to the promoted
    type (as JAX does); returns (vals, changed)."""
    new, changed = [], False
    for v, a, o in zip(vals, in_avals, out_avals, strict=True):
        if a.weak_type and not typematch(a, o):
            d, _ = dtypes.promote((a.dtype, True), (o.dtype, o.weak_type))
            if d != a.dtype:
                v = convert(v, d, False)
                changed = True
        new.append(v)
    return new, changed


def _index_dtype(x):
    return leaf_aval(x).dtype if not isinstance(x, (bool, int, float, complex)) \
        else dtypes.dtype_and_weak(x)[0]


# ----------------------------------------------------------------------------- trace cache

# fun -> {signature: (graph, out info)}: weakly keyed, an entry goes with its function
_TRACED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _memo_trace(fun, signature, trace):
    """``trace()`` (a traced Graph and what the wrapper learned, e.g. the output treedef),
    memoized as JAX does for the functions of cond, switch, while_loop and scan: called again
    with the same function (by identity, held weakly) and the same input treedef and avals,
    nothing is traced again. The key also holds the 64-bit switch and the named axes in
    scope (and a shard_map body's check_vma); a graph that captured values of an enclosing trace (a tracer) is reused only
    within that trace."""
    try:
        per_fun = _TRACED.setdefault(fun, {})
    except TypeError:  # not weakly referenceable or not hashable: no cache
        return trace()
    key = (signature, config.enable_x64, named_axes.check_vma_body(),
           tuple((n, named_axes.find_axis_size(n)) for n in named_axes.bound_axis_names()))
    here = _trace_var.get()
    hit = per_fun.get(key) or per_fun.get((key, id(here)))
    if hit is not None and (len(hit) == 2 or hit[2] is here):
        return hit[:2]
    out = trace()
    if any(isinstance(c, Tracer) for c in out[0].consts):
        per_fun[(key, id(here))] = (*out, here)
    else:
        per_fun[key] = out
    return out


def _trace_flat(fun, in_td, avals) -> tuple:
    """(graph, output treedef) of ``fun`` on pytree inputs of ``in_td`` with these avals."""
    return _memo_trace(fun, (in_td, tuple(avals)), lambda: trace_pytree(fun, in_td, avals))


def cond(pred, true_fun, false_fun, *operands, operand=_NO):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, as one conditional
    (both functions are traced; only one runs). Under vmap with a batched ``pred`` both run
    and each lane selects its result.

    >>> import numpy as np
    >>> from frontend import lax
    >>> x = np.float32(-2.0)
    >>> lax.cond(x > 0, lambda x: x, lambda x: -x, x)
    Array(2., dtype=float32)
    """
    if not (callable(true_fun) and callable(false_fun)):
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    operands = _with_operand_kw(operand, operands)
    if pred is None:
        raise TypeError("cond predicate is None")
    if isinstance(pred, collections.abc.Sequence):
        raise TypeError(f"Pred must be a scalar, got {pred} of type {type(pred)}")
    a = leaf_aval(pred)
    if a.ndim != 0:
        raise TypeError(f"Pred must be a scalar, got {pred} of shape {a.shape}.")
    d = _index_dtype(pred)
    if d != np.bool_:
        if d.kind in "iuf":
            pred = ne_p.bind(convert(pred, d, False), literal(0, d))
        else:
            raise TypeError(f"Pred type must be either boolean or number, got {d}.")
    index = convert(pred, _I32, False)
    return _cond_two(index, true_fun, false_fun, operands)


def _cond_two(index, true_fun, false_fun, operands):
    # JAX checks true_fun against false_fun (names in that order); branches are (false, true)
    leaves, in_td = tree_flatten(operands)
    avals = [leaf_aval(x) for x in leaves]
    gt, tt = _trace_flat(true_fun, in_td, avals)
    gf, tf = _trace_flat(false_fun, in_td, avals)
    _check_branch_outputs("cond", "true_fun", "false_fun", true_fun, false_fun, tt,
                          gt.out_avals, tf, gf.out_avals)
    return _bind_cond(index, (gf, gt), leaves, tt)


def _bind_cond(index, graphs, leaves, out_td):
    closed, consts = close_branches(graphs)
    outs = cond_p.bind(index, *consts, *leaves, branches=closed)
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
    a = leaf_aval(index)
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
    index = convert(index, _I32, False)
    index = min_p.bind(max_p.bind(index, literal(0, _I32)), literal(len(branches) - 1, _I32))
    return _switch(index, branches, operands)


def _switch(index, branches: tuple, operands: tuple):
    """One cond of the branches traced on ``operands``; ``index`` an int32 in range."""
    leaves, in_td = tree_flatten(operands)
    avals = [leaf_aval(x) for x in leaves]
    graphs, tds = zip(*[_trace_flat(br, in_td, avals) for br in branches], strict=True)
    for k in range(1, len(graphs)):
        _check_branch_outputs("switch", "branch 0", f"branch{k}", branches[0], branches[k],
                              tds[0], graphs[0].out_avals, tds[k], graphs[k].out_avals)
    return _bind_cond(index, graphs, leaves, tds[0])


def platform_dependent(*args, default=None, **per_platform):
    """``per_platform[platform](*args)`` for the platform the program is lowered for (JAX's
    ``lax.platform_dependent``): every branch is traced, the choice is made at lowering
    (keywords "cpu", "cuda", "rocm", "tpu"; ``default`` for any other). A module for several
    platforms holds a ``stablehlo.case`` on the platform; under transformations it is a
    ``switch``.

    >>> import numpy as np
    >>> from frontend import lax
    >>> lax.platform_dependent(np.float32(2), cpu=lax.exp, default=lax.log)
    Array(7.389056, dtype=float32)
    """
    groups: list = []  # [platforms, branch], identical branches joined (as JAX's)
    for name, branch in per_platform.items():
        if not callable(branch):
            raise TypeError(f"lax.platform_dependent: the '{name}' branch must be a callable.")
        if name == "gpu":
            raise ValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
        if name not in LOWERING_PLATFORMS:
            raise ValueError(f"lax.platform_dependent: unknown platform {name!r}; expected "
                             f"one of {LOWERING_PLATFORMS}")
        for g in groups:
            if g[1] == branch:
                g[0].append(name)
                break
        else:
            groups.append([[name], branch])
    platforms = tuple(tuple(ps) for ps, _ in groups)
    branches = tuple(b for _, b in groups)
    if default is not None:
        if not callable(default):
            raise TypeError("lax.platform_dependent: the 'default' branch must be a callable.")
        platforms, branches = platforms + (None,), branches + (default,)
    index = platform_index_p.bind(platforms=platforms)
    if not isinstance(index, Tracer):  # (run now, on this process's platform)
        return branches[int(index)](*args)
    return _switch(index, branches, args)  # (unclamped: the lowering sees the index)


def while_loop(cond_fun, body_fun, init_val):
    """``while cond_fun(val): val = body_fun(val)``, as one stablehlo.while. Under vmap a
    batched condition runs until every lane is done, freezing finished lanes.

    >>> from frontend import lax
    >>> lax.while_loop(lambda x: x < 10, lambda x: x * 2, 1)
    Array(16, dtype=int32, weak_type=True)
    """
    if not (callable(body_fun) and callable(cond_fun)):
        raise TypeError("lax.while_loop: body_fun and cond_fun arguments should be callable.")
    leaves, td = tree_flatten(init_val)
    in_td = tree_flatten((init_val,))[1]

    def make(avals):
        cg, ct = _trace_flat(cond_fun, in_td, avals)
        if ct.kind != "leaf" or len(cg.outvars) != 1:
            raise TypeError(f"cond_fun must return a boolean scalar, but got pytree PyTreeDef({ct}).")
        pa = cg.out_avals[0]
        if pa.shape != () or pa.dtype != np.bool_:
            raise TypeError("cond_fun must return a boolean scalar, but got output type(s) "
                            f"[{_Shown(cg.outvars[0])!r}].")
        bg, bt = _trace_flat(body_fun, in_td, avals)
        return cg, bg, bt

    avals = [leaf_aval(x) for x in leaves]
    cg, bg, out_td = make(avals)
    if out_td == td:
        leaves, changed = _promote_weak(leaves, avals, bg.out_avals)
        if changed:
            avals = [leaf_aval(x) for x in leaves]
            cg, bg, out_td = make(avals)
    _check_carry("while_loop body", body_fun, td, avals, out_td, bg.out_avals)
    cg, cconsts = closure_convert(cg)
    bg, bconsts = closure_convert(bg)
    cg, bg, moved = _read_only_carries(cg, bg, len(cconsts), len(bconsts))
    fixed = [x for x, m in zip(leaves, moved, strict=True) if m]
    outs = iter(while_p.bind(*cconsts, *fixed, *bconsts, *[x for x, m in zip(leaves, moved, strict=True) if not m],
                             cond_graph=cg, body_graph=bg, cond_nconsts=len(cconsts),
                             body_nconsts=len(fixed) + len(bconsts)))
    return tree_unflatten(td, [x if m else next(outs) for x, m in zip(leaves, moved, strict=True)])


def _read_only_carries(cond_g, body_g, nc: int, nb: int):
    """(cond, body, moved): as JAX does, a carry the body returns as it is and the condition
    does not read is no carry but a leading body const (so it is returned as it came in,
    stays unbatched under vmap and needs no loop under reverse mode)."""
    cond_g = dce(cond_g)
    read = {v for e in cond_g.eqns for v in e.inputs} | set(cond_g.outvars)
    carry_in = body_g.invars[nb:]
    moved = [o is i and c not in read
             for o, i, c in zip(body_g.outvars, carry_in, cond_g.invars[nc:], strict=True)]
    if not any(moved):
        return cond_g, body_g, moved
    keep = [not m for m in moved]
    body_g = intern_graph(Graph(
        tuple(v for v, m in zip(carry_in, moved, strict=True) if m) + tuple(body_g.invars[:nb])
        + tuple(v for v, k in zip(carry_in, keep, strict=True) if k), (), (), body_g.eqns,
        tuple(v for v, k in zip(body_g.outvars, keep, strict=True) if k)))
    cond_g = intern_graph(Graph(
        tuple(cond_g.invars[:nc]) + tuple(v for v, k in zip(cond_g.invars[nc:], keep, strict=True) if k),
        (), (), cond_g.eqns, cond_g.outvars))
    return cond_g, body_g, moved


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """Loop ``f(carry, x) -> (carry, y)`` over the leading axis of ``xs``; returns the final
    carry and the ys stacked (JAX's lax.scan). One stablehlo.while.

    >>> import frontend.numpy as fnp
    >>> from frontend import lax
    >>> lax.scan(lambda c, x: (c + x, c), 0.0, fnp.arange(3.0))
    (Array(3., dtype=float32), Array([0., 0., 1.], dtype=float32, weak_type=True))
    """
    if not callable(f):
        raise TypeError("lax.scan: f argument should be a callable.")
    xs_leaves, xs_td = tree_flatten(xs)
    x_avals = [leaf_aval(x) for x in xs_leaves]
    for x, a in zip(xs_leaves, x_avals, strict=True):
        if a.ndim == 0:
            raise ValueError(f"scan got value with no leading axis to scan over: {x}.")
    lengths = [a.shape[0] for a in x_avals]
    if length is not None:
        if isinstance(length, Tracer):
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
    _check_unroll(unroll)
    init_leaves, init_td = tree_flatten(init)
    in_td = tree_flatten((init, xs))[1]
    nk = len(init_leaves)
    slice_avals = [Aval(a.shape[1:], a.dtype, a.weak_type) for a in x_avals]

    def make(carry_avals):
        sig = ("scan", init_td, xs_td, tuple(carry_avals), tuple(slice_avals))
        return _memo_trace(f, sig, lambda: trace(carry_avals))

    def trace(carry_avals):
        def body(carry, x):
            out = f(carry, x)
            if not isinstance(out, (tuple, list)) or len(out) != 2:
                raise TypeError(f"scan body output must be a pair, got {tree_map(_Shown, out)}.")
            return tuple(out)

        g, out_td = trace_pytree(body, in_td, list(carry_avals) + slice_avals)
        c_td, y_td = out_td.children
        return g, (c_td, y_td, c_td.num_leaves)

    avals = [leaf_aval(x) for x in init_leaves]
    g, (c_td, y_td, n_c) = make(avals)
    if c_td == init_td:
        init_leaves, changed = _promote_weak(init_leaves, avals, g.out_avals[:nk])
        if changed:
            avals = [leaf_aval(x) for x in init_leaves]
            g, (c_td, y_td, n_c) = make(avals)
    _check_carry("scan body", f, init_td, avals, c_td, g.out_avals[:n_c])
    g, consts = closure_convert(g)
    outs = scan_p.bind(*consts, *init_leaves, *xs_leaves, body=g, num_consts=len(consts),
                       num_carry=nk, length=length, reverse=bool(reverse))
    return tree_unflatten(init_td, outs[:nk]), tree_unflatten(y_td, outs[nk:])


def _check_unroll(unroll):
    """JAX's errors for an ``unroll`` that is not a concrete bool or non-negative int (it is a
    hint: XLA is left to unroll the loop)."""
    if isinstance(unroll, Tracer):
        raise ConcretizationTypeError(
            "Abstract tracer value encountered where concrete value is expected: traced array "
            f"with shape {_long(unroll.aval)}\nThe `unroll` argument to `scan` expects a "
            "concrete `int` or `bool` value.")
    if isinstance(unroll, (bool, np.bool_)):
        return
    if not isinstance(unroll, (int, np.integer)):
        raise TypeError(f"'{type(unroll).__name__}' object cannot be interpreted as an integer")
    if unroll < 0:
        raise ValueError("`unroll` must be a `bool` or a non-negative `int`.")


# ----------------------------------------------------------------------------- fori_loop, map


def _is_concrete_int(x) -> bool:
    if isinstance(x, (bool, Tracer)):
        return False
    if isinstance(x, (int, np.integer)):
        return True
    a = aval_of(x, host=False)
    return a is not None and a.ndim == 0 and not isinstance(x, Literal) and hasattr(x, "_buf")


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """``for i in range(lower, upper): val = body_fun(i, val)``. Static bounds give a scan
    (trip count known), traced bounds a while_loop. The index ``i`` is never batched by vmap
    unless a bound is, so ``x[i]`` stays a dynamic_slice.

    >>> from frontend import lax
    >>> lax.fori_loop(0, 3, lambda i, x: x + i, 0.0)
    Array(3., dtype=float32, weak_type=True)
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
        (_, result), _ = scan(_fori_body(body_fun, True), (lo, init_val), None,
                              length=max(hi - lo, 0), unroll=1 if unroll is None else unroll)
        return result
    if unroll is not None:
        raise ValueError("Can only use `unroll` in `fori_loop` if the loop bounds are "
                         "statically known.")
    if ld != dtype:
        lower = convert(lower, dtype, False)
    if ud != dtype:
        upper = convert(upper, dtype, False)

    return while_loop(_fori_cond, _fori_body(body_fun, False), (lower, upper, init_val))[2]


def _fori_cond(loop_carry):
    return loop_carry[0] < loop_carry[1]


# (body_fun, as scan) -> the loop body calling it: one function per body_fun (so that the
# trace cache knows it again), holding body_fun weakly (so that the entry can go with it)
_FORI_BODIES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _fori_body(body_fun, as_scan: bool):
    try:
        pair = _FORI_BODIES.get(body_fun)
        if pair is None:
            pair = _FORI_BODIES[body_fun] = _fori_bodies(weakref.ref(body_fun))
    except TypeError:  # not weakly referenceable or not hashable: a fresh pair
        pair = _fori_bodies(lambda: body_fun)
    return pair[as_scan]


def _fori_bodies(fun) -> tuple:
    """(while_loop body, scan body) calling ``fun()`` (the body_fun) on the index and value."""
    def while_body(loop_carry):
        i, hi, x = loop_carry
        return i + 1, hi, fun()(i, x)

    def scanned_fun(loop_carry, _):
        i, x = loop_carry
        return (i + 1, fun()(i, x)), None

    return while_body, scanned_fun


def map(f, xs, *, batch_size=None):  # noqa: A001  (lax.map)
    """``stack([f(x) for x in xs])`` as a sequential loop (a scan, one stablehlo.while) over
    the leading axis; with ``batch_size=k`` the loop runs over chunks of k examples, vmapped
    inside each chunk (a remainder chunk is vmapped after the loop).

    >>> import frontend.numpy as fnp
    >>> from frontend import lax
    >>> lax.map(lambda x: x * 2, fnp.arange(3.0))
    Array([0., 2., 4.], dtype=float32)
    """
    if Ragged.made and any(type(x) is Ragged for x in tree_leaves(xs, is_leaf=lambda x: type(x) is Ragged)):
        # a ragged batch: each example sees its own length (frontend.ragged), k at a time
        return vmap(f, batch_size=batch_size or 1)(xs)
    if batch_size is not None:
        return chunked_map(f, xs, batch_size)
    return scan(lambda _, x: ((), f(x)), (), xs)[1]


__all__ = ["cond", "switch", "while_loop", "fori_loop", "scan", "map"]

