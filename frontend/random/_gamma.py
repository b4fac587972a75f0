"""Gamma samples, as JAX's ``random_gamma_p``: one primitive over (raw keys, shape
parameters), whose lowering is JAX's algorithm written with our own operations, so that
its bits are JAX's:

- each key (leading axes of the parameters are the keys' batch) is split into one key per
  parameter element, and each element runs its own Marsaglia–Tsang rejection loop (a
  ``lax.while_loop`` around an inner loop drawing normals until 1 + c x > 0), vmapped over
  the elements; for a < 1 the sample of a + 1 is boosted by u ** (1 / a) (in log space:
  plus log(u) / a, with log(u) an exponential draw);
- batching moves the vmap axes of both operands to the front (a key shared by the batch is
  broadcast), so a vmapped draw equals the per-example draws;
- the derivative in ``a`` is the implicit reparameterization: x(a) solves P(a, x) = u, so
  dx/da = -(dP/da) / (dP/dx), dP/da being ``igamma_grad_a`` and dP/dx the gamma density
  (d log x / da = (dx/da) / x in log space).
"""
from __future__ import annotations

import math

import numpy as np

from .. import lax
from .. import numpy as fnp
from ..core import dtypes
from ..core.ir import Primitive, aval_of
from ..primitives.elementwise import jvp_by_operand
from ..primitives.shape import bdim_at
from ..transforms.vmap import vmap
from ._prng import U32, split_data
from ._samplers import _exponential, _normal, _row, _uniform, at_run_time

random_gamma_p = Primitive("random_gamma")


@random_gamma_p.def_abstract_eval
def _abstract_eval(key, a, *, log_space):
    nb = key.ndim - 1
    if key.dtype != U32 or key.shape[-1:] != (2,):
        raise TypeError(f"random_gamma: keys must be uint32 key data of shape (..., 2), got "
                        f"{key.dtype}{list(key.shape)}")
    if not dtypes.is_float(a.dtype):
        raise TypeError(f"random_gamma: a must have a floating dtype, got {a.dtype}")
    if a.shape[:nb] != key.shape[:-1]:
        raise ValueError(f"random_gamma: the leading axes of a {a.shape} must be the keys' batch "
                         f"shape {key.shape[:-1]}")
    return a.strip_weak()


@random_gamma_p.def_batching
def _batch(args, dims, *, log_space):
    (key, a), (dk, da) = args, dims
    size = aval_of(key).shape[dk] if dk is not None else aval_of(a).shape[da]
    return random_gamma_p.bind(bdim_at(key, dk, size), bdim_at(a, da, size),
                               log_space=log_space), 0


def _gamma_grad(t, sample, key, a, *, log_space):
    """t * d(sample)/da at the sample (implicit reparameterization)."""
    dtype = aval_of(a).dtype
    x = sample
    if log_space:  # x = exp(log x), at least the smallest normal float
        x = lax.exp(sample)
        x = lax.select(lax.eq(x, fnp.full_like(x, 0)),
                       fnp.full_like(x, float(np.finfo(dtype).tiny)), x)
    dx = lax.random_gamma_grad(a, x)
    if log_space:
        dx = lax.div(dx, x)
    return lax.mul(t, dx)


random_gamma_p.def_jvp(jvp_by_operand(random_gamma_p, None, _gamma_grad, with_result=True))


def gamma_impl(key, a, *, log_space):
    """JAX's algorithm (the lowering of ``random_gamma_p``): one key per element of ``a``
    split from its key, each element's rejection loop vmapped over the elements."""
    shape = tuple(aval_of(a).shape)
    nb = aval_of(key).ndim - 1
    if math.prod(shape) == 0:
        return fnp.zeros(shape, aval_of(a).dtype)
    count = math.prod(shape[nb:])
    keys = lax.reshape(key, new_sizes=(math.prod(shape[:nb]), 2), dimensions=None)
    keys = vmap(lambda k: split_data(k, (count,)))(keys)
    keys = lax.reshape(keys, new_sizes=(math.prod(shape), 2), dimensions=None)
    alphas = at_run_time(lax.reshape(a, new_sizes=(math.prod(shape),), dimensions=None))
    samples = vmap(lambda k, al: _gamma_one(k, al, log_space))(keys, alphas)
    return lax.reshape(samples, new_sizes=shape, dimensions=None)


def _gamma_one(key, alpha, log_space: bool):
    """One Gamma(alpha) sample (Marsaglia and Tsang, "A simple method for generating gamma
    variables", 2000), step for step as JAX draws it. The traced values the loops use (d,
    c) are carried through them, not closed over, as JAX's loops pass them: XLA folds
    what it sees as constant, so the form decides how the floats round."""
    dtype = aval_of(alpha).dtype

    def const(v):
        return np.array(v, dtype)

    boost_mask = lax.ge(alpha, const(1))
    alpha_orig = alpha
    alpha = lax.select(boost_mask, alpha, lax.add(alpha, const(1)))
    d = lax.sub(alpha, const(1.0 / 3.0))
    c = lax.div(const(1.0 / 3.0), lax.sqrt(d))

    def rejected(state):
        d, _, _, x2, v, u = state
        squeeze = lax.ge(u, lax.sub(const(1), lax.mul(const(0.0331), lax.mul(x2, x2))))
        exact = lax.ge(lax.log(u), lax.add(lax.mul(x2, const(0.5)), lax.mul(
            d, lax.add(lax.sub(const(1), v), lax.log(v)))))
        return lax.bitwise_and(squeeze, exact)

    def next_normal(state):
        c, key, _, _ = state
        keys = split_data(key, (2,))
        x = _normal(_row(keys, 1), (), dtype)
        return c, _row(keys, 0), x, lax.add(const(1), lax.mul(x, c))

    def propose(state):
        d, c, key = state[:3]
        keys = split_data(key, (3,))
        _, _, x, v = lax.while_loop(lambda s: lax.le(s[3], const(0)), next_normal,
                                    (c, _row(keys, 1), const(0), const(-1)))
        u = _uniform(_row(keys, 2), 0.0, 1.0, (), dtype)
        return d, c, _row(keys, 0), lax.mul(x, x), lax.mul(lax.mul(v, v), v), u

    keys = split_data(key, (2,))
    v = lax.while_loop(rejected, propose,
                       (d, c, _row(keys, 0), const(0), const(1), const(2)))[4]
    subkey = _row(keys, 1)
    zero, one = const(0), const(1)
    if log_space:
        log_u = lax.neg(_exponential(subkey, (), dtype))
        log_boost = lax.select(lax.bitwise_or(boost_mask, lax.eq(log_u, zero)), zero,
                               lax.mul(log_u, lax.div(one, alpha_orig)))
        return lax.add(lax.add(lax.log(d), lax.log(v)), log_boost)
    u = lax.sub(one, _uniform(subkey, 0.0, 1.0, (), dtype))
    boost = lax.select(boost_mask, one, lax.pow(u, lax.div(one, alpha_orig)))
    return lax.mul(lax.mul(d, v), boost)
