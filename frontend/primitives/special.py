"""Special functions, rows of the elementwise families (floating operands; the batch axis
stays, or JAX's broadcasting rule for several operands):

- erf, erfc, erf_inv, lgamma, digamma, bessel_i0e, bessel_i1e (one operand);
- polygamma(m, x), zeta(x, q), igamma(a, x) and igammac(a, x) (the regularized lower and
  upper incomplete gamma functions), igamma_grad_a(a, x) (d igamma / da);
- regularized_incomplete_beta(a, b, x) (betainc).
"""
from __future__ import annotations

import numpy as np

from ..core.ir import aval_of, literal
from .elementwise import (
    FLOAT,
    _add,
    _c,
    _div,
    _mul,
    _neg,
    _sub,
    abs_p,
    exp_p,
    gt_p,
    jvp_by_operand,
    log1p_p,
    log_p,
    nary,
    select_p,
    sign_p,
    unary,
)
from .shape import broadcast_in_dim_p

erf_p = unary("erf", FLOAT)
erfc_p = unary("erfc", FLOAT)
erf_inv_p = unary("erf_inv", FLOAT)
lgamma_p = unary("lgamma", FLOAT)
digamma_p = unary("digamma", FLOAT)
bessel_i0e_p = unary("bessel_i0e", FLOAT)
bessel_i1e_p = unary("bessel_i1e", FLOAT)
polygamma_p = nary("polygamma", FLOAT)
zeta_p = nary("zeta", FLOAT)
igamma_p = nary("igamma", FLOAT)
igammac_p = nary("igammac", FLOAT)
igamma_grad_a_p = nary("igamma_grad_a", FLOAT)
regularized_incomplete_beta_p = nary("regularized_incomplete_beta", FLOAT)


# ----------------------------------------------------------------------------- autodiff
# JAX's derivatives; those JAX does not have (polygamma in m, zeta in x, betainc in a and
# b) raise, as there. igamma/igammac in a is igamma_grad_a (dP/da), whose own derivative
# JAX does not have either.

def _full(x, v):
    a = aval_of(x)
    return broadcast_in_dim_p.bind(literal(v, a.dtype), shape=a.shape, broadcast_dimensions=())


def _not_supported(what):
    def rule(g, *primals):
        raise ValueError(what)
    return rule


def _lbeta(a, b):
    return _sub(_add(lgamma_p.bind(a), lgamma_p.bind(b)), lgamma_p.bind(_add(a, b)))


def _igamma_grad_a(g, a, x):
    return _mul(g, igamma_grad_a_p.bind(a, x))


def _no_derivative(g, *primals):
    raise NotImplementedError("Differentiation rule for 'igamma_grad_a' not implemented")


def _igamma_grad_x(g, a, x):
    return _mul(g, exp_p.bind(_sub(_add(_neg(x), _mul(_sub(a, _c(a, 1)), log_p.bind(x))),
                                   lgamma_p.bind(a))))


def _bessel_i1e_jvp(g, y, x):
    eps = float(np.finfo(aval_of(x).dtype).eps)
    big = gt_p.bind(abs_p.bind(x), _c(x, eps))
    safe = select_p.bind(big, x, _full(x, eps))
    dy = _sub(bessel_i0e_p.bind(safe), _mul(y, _add(sign_p.bind(safe), _div(_c(x, 1), safe))))
    return _mul(g, select_p.bind(big, dy, _full(x, 0.5)))


erf_p.def_jvp(jvp_by_operand(
    erf_p, lambda g, x: _mul(g, _mul(_c(x, 2 / np.sqrt(np.pi)), exp_p.bind(_neg(_mul(x, x)))))))
erfc_p.def_jvp(jvp_by_operand(
    erfc_p, lambda g, x: _mul(g, _mul(_c(x, -2 / np.sqrt(np.pi)), exp_p.bind(_neg(_mul(x, x)))))))
erf_inv_p.def_jvp(jvp_by_operand(
    erf_inv_p, lambda g, ans, x: _mul(g, _mul(_c(x, np.sqrt(np.pi) / 2), exp_p.bind(_mul(ans, ans)))),
    with_result=True))
lgamma_p.def_jvp(jvp_by_operand(lgamma_p, lambda g, x: _mul(g, digamma_p.bind(x))))
digamma_p.def_jvp(jvp_by_operand(digamma_p, lambda g, x: _mul(g, polygamma_p.bind(_full(x, 1), x))))
bessel_i0e_p.def_jvp(jvp_by_operand(
    bessel_i0e_p, lambda g, y, x: _mul(g, _sub(bessel_i1e_p.bind(x), _mul(sign_p.bind(x), y))),
    with_result=True))
bessel_i1e_p.def_jvp(jvp_by_operand(bessel_i1e_p, _bessel_i1e_jvp, with_result=True))
polygamma_p.def_jvp(jvp_by_operand(
    polygamma_p, _not_supported("polygamma gradient with respect to m is not supported"),
    lambda g, m, x: _mul(g, polygamma_p.bind(_add(m, _c(m, 1)), x))))
zeta_p.def_jvp(jvp_by_operand(
    zeta_p, _not_supported("zeta gradient with respect to x is not supported"),
    lambda g, x, q: _mul(g, _mul(_neg(x), zeta_p.bind(_add(x, _c(x, 1)), q)))))
igamma_p.def_jvp(jvp_by_operand(igamma_p, _igamma_grad_a, _igamma_grad_x))
igammac_p.def_jvp(jvp_by_operand(igammac_p, lambda g, a, x: _neg(_igamma_grad_a(g, a, x)),
                                 lambda g, a, x: _neg(_igamma_grad_x(g, a, x))))
igamma_grad_a_p.def_jvp(jvp_by_operand(igamma_grad_a_p, _no_derivative, _no_derivative))
regularized_incomplete_beta_p.def_jvp(jvp_by_operand(
    regularized_incomplete_beta_p, _not_supported("Betainc gradient with respect to a and b not supported."),
    _not_supported("Betainc gradient with respect to a and b not supported."),
    lambda g, a, b, x: _mul(g, exp_p.bind(_sub(_add(_mul(_sub(b, _c(b, 1)), log1p_p.bind(_neg(x))),
                                                    _mul(_sub(a, _c(a, 1)), log_p.bind(x))),
                                               _lbeta(a, b))))))
