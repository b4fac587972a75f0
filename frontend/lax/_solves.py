"""Solves with implicit derivatives, as JAX's: ``custom_linear_solve`` (the primitive
frontend.primitives.linear_solve) and ``custom_root`` (a custom_jvp function whose rule is
the implicit function theorem). The user's functions are traced into graphs; what they close
over becomes the operands that derivatives flow to."""
from __future__ import annotations

import functools

import numpy as np

from ..core import dtypes
from ..core.arguments import leaf_aval
from ..core.graph_utils import closure_convert
from ..core.ir import aval_of, inline_graph
from ..core.pytree import tree_flatten, tree_unflatten
from ..core.tracing import trace_graph
from ..interpreters.ad_util import Zero, tangent_aval
from ..interpreters.jvp import jvp_fun
from ..interpreters.transpose import transpose_graph
from ..primitives.control import close_branches
from ..primitives.linear_solve import linear_solve_p
from ..transforms.custom_derivatives import custom_jvp
from ._ops import neg


def _check_shapes(func_name, expected_name, actual, expected):
    actual_shapes = [tuple(np.shape(a)) for a in actual]
    expected_shapes = [tuple(np.shape(a)) for a in expected]
    if actual_shapes != expected_shapes:
        raise ValueError(f"{func_name}() output shapes must match {expected_name}, "
                         f"got {actual_shapes} and {expected_shapes}")


def _trace(fun, func_name, tree, avals, has_aux=False, expected="b", shapes=True):
    """(graph of ``fun`` on the leaves of one ``tree``-shaped value, number of aux outputs):
    the graph returns the leaves of a ``tree``-shaped result, then the aux leaves."""
    box = []

    def flat(*leaves):
        out = fun(tree_unflatten(tree, leaves))
        if has_aux:
            _, whole = tree_flatten(out)
            if not (isinstance(out, (tuple, list)) and len(out) == 2):
                raise ValueError(f"{func_name}() produced a pytree with structure {whole}, but "
                                 "a pytree tuple with auxiliary output was expected because "
                                 "has_aux was set to True.")
            out, aux = out
        else:
            aux = ()
        ys, y_tree = tree_flatten(out)
        if y_tree != tree:
            raise TypeError(f"{func_name}() output pytree structure must match {expected}, "
                            f"got {y_tree} and {tree}.")
        if shapes:  # (custom_root checks the structure of f's output only, as JAX)
            _check_shapes(func_name, expected, ys, avals)
        aux_leaves, aux_tree = tree_flatten(aux)
        box.append(aux_tree)
        return ys + aux_leaves

    g = trace_graph(flat, avals)
    return g, box[0]


def _as_fun(g, tree, n=None):
    """A traced graph as a function of one ``tree``-shaped value (its first ``n`` outputs)."""
    def fun(x):
        leaves, _ = tree_flatten(x)
        return tree_unflatten(tree, inline_graph(g, leaves)[:n])
    return fun


def custom_linear_solve(matvec, b, solve, transpose_solve=None, symmetric=False, has_aux=False):
    """``solve(matvec, b)`` with derivatives defined implicitly at the solution ``x``
    (assuming ``matvec(x) == b``) instead of through the solve, as ``jax.lax.custom_linear_solve``.
    ``transpose_solve(vecmat, b)`` solves the transposed system (``vecmat`` is matvec's
    transpose); it is needed for reverse mode, and defaults to ``solve`` when ``symmetric``.

    >>> import numpy as np
    >>> import frontend as fe
    >>> from frontend import lax
    >>> a = np.float32([[2., 0.], [0., 4.]])
    >>> diag_solve = lambda mv, b: b / fe.numpy.diag(a)
    >>> f = lambda b: lax.custom_linear_solve(lambda x: a @ x, b, diag_solve, symmetric=True)
    >>> fe.grad(lambda b: f(b).sum())(np.float32([1., 1.]))
    Array([0.5 , 0.25], dtype=float32)
    """
    if transpose_solve is None and symmetric:
        transpose_solve = solve
    leaves, tree = tree_flatten(b)
    avals = [leaf_aval(x) for x in leaves]
    mv, _ = _trace(matvec, "matvec", tree, avals)
    mv_fun = _as_fun(mv, tree)
    sv, aux_tree = _trace(functools.partial(solve, mv_fun), "solve", tree, avals, has_aux)
    vm = tsv = None
    if transpose_solve is not None:
        if symmetric:
            vm = mv
        else:
            tg, tconsts = transpose_graph(mv, [True] * len(avals))
            vm = trace_graph(lambda *ct: inline_graph(tg, tconsts + list(ct)), avals)
        tsv, _ = _trace(functools.partial(transpose_solve, _as_fun(vm, tree)), "transpose_solve",
                        tree, avals, has_aux)
    present = [g for g in (mv, vm, sv, tsv) if g is not None]
    closed, consts = close_branches(present)
    it = iter(closed)
    graphs = [None if g is None else next(it) for g in (mv, vm, sv, tsv)]
    out = linear_solve_p.bind(*consts, *leaves, matvec=graphs[0], vecmat=graphs[1],
                              solve=graphs[2], transpose_solve=graphs[3], num_consts=len(consts),
                              num_aux=len(sv.outvars) - len(avals))
    x = tree_unflatten(tree, out[:len(avals)])
    return (x, tree_unflatten(aux_tree, out[len(avals):])) if has_aux else x


@functools.partial(custom_jvp, nondiff_argnums=(0,))
def _root(graphs, *args):
    f, solve = graphs[0]
    return inline_graph(solve, args[graphs[1]:])


@_root.defjvp
def _root_jvp(graphs, primals, tangents):
    (f, _), n_f, n_guess, tree, tangent_solve = graphs
    sol = _root(graphs, *primals)
    solution = sol[:n_guess]
    f_consts = list(primals[:n_f])
    c_dot = [t if dtypes.is_inexact(aval_of(c).dtype) else Zero(tangent_aval(aval_of(c)))
             for c, t in zip(f_consts, tangents[:n_f], strict=True)]
    no_x = [Zero(tangent_aval(aval_of(v))) for v in solution]
    _, rhs = jvp_fun(lambda *a: inline_graph(f, a), f_consts + solution, c_dot + no_x)

    def f_lin(t):   # f linearized at the solution, in the solution's direction t
        t_leaves = [np.asarray(v, aval_of(s).dtype) if isinstance(v, (int, float, complex)) else v
                    for v, s in zip(tree_flatten(t)[0], solution, strict=True)]
        no_c = [Zero(tangent_aval(aval_of(c))) for c in f_consts]
        _, out = jvp_fun(lambda *a: inline_graph(f, a), f_consts + solution, no_c + t_leaves)
        return tree_unflatten(tree, [_zeros_if(o) for o in out])

    y = tree_unflatten(tree, [_zeros_if(r) for r in rhs])
    x_dot, x_tree = tree_flatten(tangent_solve(f_lin, y))
    if x_tree != tree:
        raise TypeError(f"tangent_solve() output pytree structure must match x, got {x_tree} "
                        f"and {tree}.")
    aux_dot = [np.zeros(aval_of(a).shape, aval_of(a).dtype) for a in sol[n_guess:]]
    return sol, [neg(t) for t in x_dot] + aux_dot


def _zeros_if(t):
    return np.zeros(t.aval.shape, t.aval.dtype) if type(t) is Zero else t


class _Static(tuple):
    """The graphs and trees of one custom_root call: a static argument of its custom_jvp
    function (hashed by identity: traced graphs are compared as objects)."""

    __hash__ = object.__hash__

    def __eq__(self, other):
        return self is other


def custom_root(f, initial_guess, solve, tangent_solve, has_aux=False):
    """``solve(f, initial_guess)``, a root of ``f``, with derivatives (with respect to what
    ``f`` closes over) by the implicit function theorem, as ``jax.lax.custom_root``:
    ``tangent_solve(g, y)`` solves ``g(x) = y`` for the linearization ``g`` of ``f`` at the
    root (for scalars: ``lambda g, y: y / g(1.0)``).

    >>> import numpy as np
    >>> import frontend as fe
    >>> from frontend import lax
    >>> def sqrt(a):  # the root of x**2 - a, by 20 Newton steps
    ...     newton = lambda f, x0: lax.fori_loop(0, 20, lambda i, x: x - f(x) / (2 * x), x0)
    ...     return lax.custom_root(lambda x: x ** 2 - a, 1.0, newton, lambda g, y: y / g(1.0))
    >>> fe.grad(sqrt)(np.float32(4.0))
    Array(0.25, dtype=float32)
    """
    leaves, tree = tree_flatten(initial_guess)
    avals = [leaf_aval(x) for x in leaves]
    fg, _ = _trace(f, "f", tree, avals, expected="initial_guess", shapes=False)
    sg, aux_tree = _trace(functools.partial(solve, _as_fun(fg, tree)), "solve", tree, avals,
                          has_aux, expected="initial_guess", shapes=False)
    fg, f_consts = closure_convert(fg)
    sg, s_consts = closure_convert(sg)
    static = _Static(((fg, sg), len(f_consts), len(avals), tree, tangent_solve))
    out = _root(static, *f_consts, *s_consts, *leaves)
    x = tree_unflatten(tree, out[:len(avals)])
    return (x, tree_unflatten(aux_tree, out[len(avals):])) if has_aux else x


__all__ = ["custom_linear_solve", "custom_root"]
