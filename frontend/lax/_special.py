"""lax functions of the special-function primitives (floating operands of one dtype)."""
from __future__ import annotations

from ..primitives import special as sp
from ._ops import _wrap

erf = _wrap(sp.erf_p, "erf")
erfc = _wrap(sp.erfc_p, "erfc")
erf_inv = _wrap(sp.erf_inv_p, "erf_inv")
lgamma = _wrap(sp.lgamma_p, "lgamma")
digamma = _wrap(sp.digamma_p, "digamma")
bessel_i0e = _wrap(sp.bessel_i0e_p, "bessel_i0e")
bessel_i1e = _wrap(sp.bessel_i1e_p, "bessel_i1e")
polygamma = _wrap(sp.polygamma_p, "polygamma")
zeta = _wrap(sp.zeta_p, "zeta")
igamma = _wrap(sp.igamma_p, "igamma")
igammac = _wrap(sp.igammac_p, "igammac")
igamma_grad_a = _wrap(sp.igamma_grad_a_p, "igamma_grad_a")
betainc = _wrap(sp.regularized_incomplete_beta_p, "betainc")
