"""Special functions, rows of the elementwise families (floating operands; the batch axis
stays, or JAX's broadcasting rule for several operands):

- erf, erfc, erf_inv, lgamma, digamma, bessel_i0e, bessel_i1e (one operand);
- polygamma(m, x), zeta(x, q), igamma(a, x) and igammac(a, x) (the regularized lower and
  upper incomplete gamma functions);
- regularized_incomplete_beta(a, b, x) (betainc).
"""
from __future__ import annotations

from .elementwise import FLOAT, nary, unary

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
regularized_incomplete_beta_p = nary("regularized_incomplete_beta", FLOAT)
