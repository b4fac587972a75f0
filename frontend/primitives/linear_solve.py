"""``linear_solve``: a linear solve whose derivative is implicit (JAX's ``linear_solve_p``).

``linear_solve(*consts, *b; matvec, vecmat, solve, transpose_solve, num_consts, num_aux)``
runs ``solve`` on ``b``. The four graph params are closed graphs taking the shared
``consts`` first, then the flat leaves of one vector: ``matvec`` and ``vecmat`` return a
vector, ``solve`` and ``transpose_solve`` return the solution's leaves and then ``num_aux``
auxiliary outputs; ``vecmat`` and ``transpose_solve`` are None when no transpose solve was
given (reverse mode is then an error, as in JAX).

- jvp: ``x_dot = solve(b_dot - d(matvec)(x))`` where ``d(matvec)`` is the derivative of
  matvec with respect to what it closes over (the solve itself is never differentiated);
  the auxiliary outputs have zero tangents;
- transpose (linear in ``b`` only): the same primitive with ``vecmat``/``transpose_solve``
  in place of ``matvec``/``solve``;
- batching: every graph batched with the solution batched at 0;
- lowering: ``solve`` inlined.
"""
from __future__ import annotations

from ..core.ir import Primitive, aval_of, inline_graph
from ..interpreters import batching
from ..interpreters.ad_util import Zero, is_undefined_primal, tangent_aval
from ..interpreters.jvp import jvp_fun
from .control import batch_graph
from .elementwise import sub_p
from .shape import bdim_at, instantiate_zeros, moveaxis

custom_linear_solve_p = Primitive("custom_linear_solve", multiple_results=True)
linear_solve_p = custom_linear_solve_p   # JAX's name for it


def _parts(args, num_consts):
    return list(args[:num_consts]), list(args[num_consts:])


@linear_solve_p.def_abstract_eval
def _linear_solve_abstract_eval(*avals, solve, **params):
    return list(solve.out_avals)


@linear_solve_p.def_jvp
def _linear_solve_jvp(primals, tangents, *, num_consts, **graphs):
    consts, b = _parts(primals, num_consts)
    c_dot, b_dot = _parts(tangents, num_consts)
    outs = linear_solve_p.bind(*primals, num_consts=num_consts, **graphs)
    x, aux = outs[:len(b)], outs[len(b):]
    aux_dot = [Zero(tangent_aval(aval_of(a))) for a in aux]
    if all(type(t) is Zero for t in c_dot):
        rhs = b_dot
    else:   # b_dot - (d matvec / d consts)(x)
        matvec = graphs["matvec"]
        _, mv_dot = jvp_fun(lambda *a: inline_graph(matvec, a), consts + x,
                            c_dot + [Zero(tangent_aval(aval_of(v))) for v in x])
        rhs = [t if type(m) is Zero else sub_p.bind(instantiate_zeros(t), m)
               for t, m in zip(b_dot, mv_dot, strict=True)]
    if all(type(t) is Zero for t in rhs):
        return outs, [Zero(tangent_aval(aval_of(v))) for v in x] + aux_dot
    rhs = [instantiate_zeros(t) for t in rhs]
    x_dot = linear_solve_p.bind(*consts, *rhs, num_consts=num_consts, **graphs)[:len(b)]
    return outs, list(x_dot) + aux_dot


@linear_solve_p.def_transpose
def _linear_solve_transpose(cts, *args, matvec, vecmat, solve, transpose_solve, num_consts,
                            num_aux):
    if transpose_solve is None:
        raise TypeError("transpose_solve required for backwards mode automatic "
                        "differentiation of custom_linear_solve")
    consts, b = _parts(args, num_consts)
    if any(is_undefined_primal(c) for c in consts):
        raise TypeError("custom_linear_solve is linear in its right-hand side b only: the "
                        "values its functions close over cannot be transposed")
    ct_x = [instantiate_zeros(c) for c in cts[:len(b)]]
    ct_b = linear_solve_p.bind(*consts, *ct_x, matvec=vecmat, vecmat=matvec,
                               solve=transpose_solve, transpose_solve=solve,
                               num_consts=num_consts, num_aux=num_aux)[:len(b)]
    return [None] * num_consts + list(ct_b)


@linear_solve_p.def_batching
def _linear_solve_batch(args, dims, *, num_consts, num_aux, **graphs):
    # the solution, the right-hand side and every output batched at 0
    size = batching.axis_size(args, dims)
    consts, b = _parts(args, num_consts)
    c_dims, b_dims = _parts(dims, num_consts)
    consts = [c if d is None else moveaxis(c, d, 0) for c, d in zip(consts, c_dims, strict=True)]
    c_dims = [None if d is None else 0 for d in c_dims]
    b = [bdim_at(v, d, size, 0) for v, d in zip(b, b_dims, strict=True)]
    in_dims = c_dims + [0] * len(b)
    new = {k: None if g is None else batch_graph(g, size, in_dims, [True] * len(g.outvars))[0]
           for k, g in graphs.items()}
    out = linear_solve_p.bind(*consts, *b, num_consts=num_consts, num_aux=num_aux, **new)
    return out, [0] * len(out)


__all__ = ["custom_linear_solve_p", "linear_solve_p"]
