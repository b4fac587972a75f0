"""jax.random.poisson, bit for bit JAX's: Knuth's multiplication method for rates below 10
and Hörmann's transformed rejection ("The transformed rejection method for generating
Poisson random variables", 1993) above, each one ``lax.while_loop`` over the whole array
(a lane stops changing once it is done), both drawn from the same key, as JAX does."""
from __future__ import annotations

import numpy as np

from .. import lax
from .. import numpy as fnp
from ..core import dtypes
from ..device.fusion import eager_jit
from ..lax._convert import convert
from ._prng import check_key, split_data
from ._samplers import _as_device, _dtype, _row, _shape_of, _uniform, at_run_time, canonical_shape

F32 = np.dtype(np.float32)


def poisson(key, lam, shape=None, dtype=None):
    """Poisson(lam) counts (integers)."""
    data, _ = check_key("poisson", key)
    d = _dtype("poisson", dtype, dtypes.default_int, lambda _: True, "")
    if not dtypes.is_int(d):
        raise ValueError(f"Invalid integer data type {d.kind!r}.")
    shape = _shape_of(lam) if shape is None else canonical_shape(shape)
    return _poisson(data, _as_device(lam), shape, d)


@eager_jit
def _poisson(key, lam, shape, dtype):
    lam = at_run_time(convert(fnp.broadcast_to(lam, shape), F32))
    use_knuth = lax.bitwise_or(lax.ne(lam, lam), lax.lt(lam, np.float32(10)))
    lam_knuth = lax.select(use_knuth, lam, fnp.full_like(lam, 0.0))
    lam_rejection = lax.select(use_knuth, fnp.full_like(lam, 1e5), lam)
    max_iters = np.array(np.iinfo(dtype).max, dtype)
    result = lax.select(use_knuth, _knuth(key, lam_knuth, shape, dtype, max_iters),
                        _rejection(key, lam_rejection, shape, dtype, max_iters))
    return lax.select(lax.eq(lam, np.float32(0)), fnp.zeros_like(result), result)


def _knuth(key, lam, shape, dtype, max_iters):
    def body(carry):
        i, k, key, log_prod = carry
        keys = split_data(key, (2,))
        k = lax.select(lax.gt(log_prod, lax.neg(lam)), k + 1, k)
        u = _uniform(_row(keys, 1), 0.0, 1.0, shape, F32)
        return i + 1, k, _row(keys, 0), log_prod + fnp.log(u)

    def cond(carry):
        i, log_prod = carry[0], carry[3]
        return fnp.any(lax.gt(log_prod, lax.neg(lam))) & (i < max_iters)

    init = (0, fnp.zeros(shape, dtype), key, fnp.zeros(shape, F32))
    k = lax.while_loop(cond, body, init)[1]
    return fnp.astype(k - 1, dtype)


def _rejection(key, lam, shape, dtype, max_iters):
    log_lam = lax.log(lam)
    b = 0.931 + 2.53 * lax.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def body(carry):
        i, k_out, accepted, key = carry
        keys = split_data(key, (3,))
        u = _uniform(_row(keys, 1), 0.0, 1.0, shape, F32) - 0.5
        v = _uniform(_row(keys, 2), 0.0, 1.0, shape, F32)
        u_shifted = 0.5 - abs(u)
        k = lax.floor((2 * a / u_shifted + b) * u + lam + 0.43)
        s = lax.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -lam + k * log_lam - lax.lgamma(k + 1)
        accept1 = (u_shifted >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
        accept = accept1 | (~reject & (s <= t))
        return i + 1, lax.select(accept, k, k_out), accepted | accept, _row(keys, 0)

    def cond(carry):
        i, _, accepted, _ = carry
        return fnp.any(~accepted) & (i < max_iters)

    init = (0, fnp.full(shape, -1, F32), fnp.zeros(shape, bool), key)
    return fnp.astype(lax.while_loop(cond, body, init)[1], dtype)
