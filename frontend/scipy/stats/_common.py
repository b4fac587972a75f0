"""Shared pieces of the distributions: argument promotion and the loc/scale change."""
from __future__ import annotations

import functools

import numpy as np

from ... import numpy as fnp
from ...core import dtypes
from ...numpy._core import check_arraylike, promote_dtypes_inexact

LOG_2PI = float(np.log(2 * np.pi))


def promote(name, *args):
    """The arguments as arrays of one inexact dtype (JAX's scipy.stats promotion)."""
    check_arraylike(name, *args)
    # (Python scalars as weakly typed arrays first: the results take operators)
    return promote_dtypes_inexact(name, *[fnp.asarray(a) if isinstance(a, (int, float))
                                          else a for a in args])


def promote_dtypes(name, *args):
    """The arguments as arrays of their common inexact dtype, shapes left alone (for the
    functions whose arguments do not broadcast together: dirichlet, multivariate_normal)."""
    check_arraylike(name, *args)
    arrays = [fnp.asarray(a) for a in args]
    d = dtypes.to_inexact(dtypes.result_type(*arrays))
    return [a.astype(d) for a in arrays]


def standardize(name, x, loc, scale, *more):
    """(x - loc) / scale and log(scale), with the other parameters promoted alongside."""
    x, loc, scale, *more = promote(name, x, loc, scale, *more)
    return ((x - loc) / scale, fnp.log(scale), *more)


def where(cond, x, y):
    return fnp.where(cond, x, y)


def exp_of(log_fn, name: str):
    """The function exp(log_fn(...)) named ``name`` (pdf from logpdf, sf from logsf, ...)."""
    @functools.wraps(log_fn)
    def fn(*args, **kwargs):
        return fnp.exp(log_fn(*args, **kwargs))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"exp of {log_fn.__name__}."
    return fn


def of_standard(name: str, g):
    """The location-scale function ``f(x, loc=0, scale=1) = g((x - loc) / scale)`` (cdf, sf
    and their logs)."""
    def fn(x, loc=0, scale=1):
        y, _ = standardize(name, x, loc, scale)
        return g(y)
    fn.__name__ = fn.__qualname__ = name.rpartition(".")[2]
    fn.__doc__ = f"{name} of x at location loc and scale."
    return fn


def of_quantile(name: str, g):
    """The location-scale quantile function ``f(q, loc=0, scale=1) = g(q) * scale + loc``."""
    def fn(q, loc=0, scale=1):
        q, loc, scale = promote(name, q, loc, scale)
        return g(q) * scale + loc
    fn.__name__ = fn.__qualname__ = name.rpartition(".")[2]
    fn.__doc__ = f"{name}: the quantile at location loc and scale."
    return fn
