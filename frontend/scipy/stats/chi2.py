"""scipy.stats.chi2: the chi-squared distribution (gamma with a = df / 2, scale 2) (logpdf/pdf/cdf/... as JAX's)."""
from __future__ import annotations

from . import gamma as _gamma
from ._common import promote


def _args(name, x, df, loc, scale):
    x, df, loc, scale = promote(name, x, df, loc, scale)
    return x, df / 2, loc, 2 * scale



def _via_gamma(fn_name):
    def fn(x, df, loc=0, scale=1):
        return getattr(_gamma, fn_name)(*_args(f"chi2.{fn_name}", x, df, loc, scale))
    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = f"chi2.{fn_name}: gamma.{fn_name} with a = df / 2 and twice the scale."
    return fn


logpdf, pdf, cdf = _via_gamma("logpdf"), _via_gamma("pdf"), _via_gamma("cdf")
logcdf, sf, logsf = _via_gamma("logcdf"), _via_gamma("sf"), _via_gamma("logsf")
