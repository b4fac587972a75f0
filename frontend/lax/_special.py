"""lax functions of the special-function primitives (floating operands of one dtype)."""
from __future__ import annotations

from ..primitives import special as sp
from ._ops import _wrap

erf = _wrap(sp.erf_p, "erf", 1)
erfc = _wrap(sp.erfc_p, "erfc", 1)
erf_inv = _wrap(sp.erf_inv_p, "erf_inv", 1)
lgamma = _wrap(sp.lgamma_p, "lgamma", 1)
digamma = _wrap(sp.digamma_p, "digamma", 1)
bessel_i0e = _wrap(sp.bessel_i0e_p, "bessel_i0e", 1)
bessel_i1e = _wrap(sp.bessel_i1e_p, "bessel_i1e", 1)
polygamma = _wrap(sp.polygamma_p, "polygamma", 2)
zeta = _wrap(sp.zeta_p, "zeta", 2)
igamma = _wrap(sp.igamma_p, "igamma", 2)
igammac = _wrap(sp.igammac_p, "igammac", 2)
igamma_grad_a = _wrap(sp.igamma_grad_a_p, "igamma_grad_a", 2)
betainc = _wrap(sp.regularized_incomplete_beta_p, "betainc", 3)


def random_gamma_grad(a, x):
    """d x / d a for a gamma(a) sample x at fixed CDF (implicit reparameterization):
    -(d igamma(a, x) / d a) / density(a, x)."""
    from ._ops import div as _div
    from ._ops import exp, log, mul, neg, sub
    one = _ones_like(a)
    log_density = sub(sub(mul(sub(a, one), log(x)), x), lgamma(a))
    return neg(_div(igamma_grad_a(a, x), exp(log_density)))


def _ones_like(a):
    from ..core.ir import aval_of
    from ._convert import convert
    return convert(1, aval_of(a).dtype, aval_of(a).weak_type)
