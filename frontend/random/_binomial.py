"""jax.random.binomial and multinomial, bit for bit JAX's (which follows TensorFlow):
inversion by sums of geometric draws where count * q <= 10, Hörmann's BTRS transformed
rejection ("The generation of binomial random variates", 1993) elsewhere, each one
``lax.while_loop`` over the whole array, both from the same key; q = min(p, 1 - p).
multinomial draws one binomial per category from split keys in a ``lax.scan``."""
from __future__ import annotations

import numpy as np

from .. import lax
from .. import numpy as fnp
from ..core.ir import aval_of
from ..device.fusion import eager_jit
from ..lax._convert import convert
from ..numpy._core import check_arraylike, promote_dtypes_inexact
from ._prng import check_key, split_data
from ._samplers import (
    _as_device,
    _row,
    _shape_of,
    _split,
    _uniform,
    at_run_time,
    canonical_shape,
    check_shape,
    float_dtype,
)

# log(k!) - the Stirling series' first terms, for k = 0..9 (larger k use the series' tail)
_STIRLING_TAIL = np.array([0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                           0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                           0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                           0.00833056343336287])


def binomial(key, n, p, shape=None, dtype=None):
    """Binomial(n, p) counts, as floats of ``dtype`` (nan for p outside [0, 1] or a nan or
    negative n; inf for an infinite n)."""
    data, _ = check_key("binomial", key)
    check_arraylike("binomial", n, p)
    d = float_dtype("binomial", dtype)
    if shape is not None:
        shape = canonical_shape(shape)
    return _binomial(data, _as_device(n), _as_device(p), shape, d)


@eager_jit
def _binomial(key, count, prob, shape, dtype):
    if shape is None:
        shape = tuple(np.broadcast_shapes(_shape_of(count), _shape_of(prob)))
    else:
        check_shape("binomial", shape, _shape_of(count), _shape_of(prob))
    (prob,) = promote_dtypes_inexact("binomial", prob)
    pd = aval_of(prob).dtype
    count = at_run_time(fnp.broadcast_to(convert(count, pd), shape))
    prob = at_run_time(fnp.broadcast_to(prob, shape))
    p_lt_half = prob < 0.5
    q = lax.select(p_lt_half, prob, 1.0 - prob)
    count_nan_or_neg = fnp.isnan(count) | (count < 0.0)
    count_inf = fnp.isinf(count)
    q_is_nan = fnp.isnan(q)
    q_lt_0 = q < 0.0
    q = lax.select(q_is_nan | q_lt_0, fnp.full_like(q, 0.01), q)
    use_inversion = count_nan_or_neg | (count * q <= 10.0)
    count = fnp.floor(count)  # a float count is floored, as numpy's
    count_inv = lax.select(use_inversion, count, fnp.full_like(count, 0.0))
    count_btrs = lax.select(use_inversion, fnp.full_like(count, 1e4), count)
    q_btrs = lax.select(use_inversion, fnp.full_like(q, 0.5), q)
    max_iters = np.array(np.finfo(dtype).max, dtype)
    samples = lax.select(use_inversion,
                         _inversion(key, count_inv, q, shape, dtype, max_iters),
                         _btrs(key, count_btrs, q_btrs, shape, dtype, max_iters))
    invalid = q_lt_0 | q_is_nan | count_nan_or_neg
    samples = lax.select(invalid, fnp.full_like(samples, np.nan, dtype), samples)
    samples = lax.select(count_inf & ~invalid, fnp.full_like(samples, np.inf, dtype), samples)
    return lax.select(p_lt_half | count_nan_or_neg | q_is_nan | count_inf, samples,
                      fnp.astype(count, dtype) - samples)


def _inversion(key, count, prob, shape, dtype, max_iters):
    """Count geometric(prob) draws until their sum exceeds ``count``."""
    log1m = fnp.log1p(-prob)
    pd = aval_of(prob).dtype

    def body(carry):
        i, num_geom, geom_sum, key = carry
        keys = split_data(key, (2,))
        num_geom = lax.select(geom_sum <= count, num_geom + 1, num_geom)
        u = _uniform(_row(keys, 0), 0.0, 1.0, shape, pd)
        geom_sum = geom_sum + fnp.ceil(fnp.log(u) / log1m)
        return i + 1, num_geom, geom_sum, _row(keys, 1)

    def cond(carry):
        i, geom_sum = carry[0], carry[2]
        return fnp.any(geom_sum <= count) & (i < max_iters)

    init = (0, fnp.zeros(shape, pd), fnp.zeros(shape, pd), key)
    return fnp.astype(lax.while_loop(cond, body, init)[1] - 1, dtype)


def _stirling_tail(k):
    """log(k!) minus Stirling's approximation: the table below 10, the series above."""
    use_table = k <= 9
    d = aval_of(k).dtype
    k = lax.clamp(np.array(0.0, d), k, np.array(9.0, d))
    kp1sq = (k + 1) * (k + 1)
    series = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    table = fnp.asarray(_STIRLING_TAIL.astype(d))
    return lax.select(use_table, table[fnp.astype(fnp.floor(k), np.int32)], series)


def _btrs(key, count, prob, shape, dtype, max_iters):
    """Hörmann's transformed rejection with squeeze, every lane until accepted."""
    stddev = fnp.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = fnp.floor((count + 1) * prob)
    pd = aval_of(prob).dtype

    def body(carry):
        i, k_out, accepted, key = carry
        keys = split_data(key, (3,))
        u = _uniform(_row(keys, 1), 0.0, 1.0, shape, pd)
        v = _uniform(_row(keys, 2), 0.0, 1.0, shape, pd)
        u = u - 0.5
        us = 0.5 - fnp.abs(u)
        accept1 = (us >= 0.07) & (v <= v_r)
        k = fnp.floor((2 * a / us + b) * u + c)
        reject = (k < 0) | (k > count)
        v = fnp.log(v * alpha / (a / (us * us) + b))
        ub = ((m + 0.5) * fnp.log((m + 1) / (r * (count - m + 1)))
              + (count + 1) * fnp.log((count - m + 1) / (count - k + 1))
              + (k + 0.5) * fnp.log(r * (count - k + 1) / (k + 1))
              + _stirling_tail(m) + _stirling_tail(count - m)
              - _stirling_tail(k) - _stirling_tail(count - k))
        accept = accept1 | (~reject & (v <= ub))
        return i + 1, lax.select(accept, k, k_out), accepted | accept, _row(keys, 0)

    def cond(carry):
        i, accepted = carry[0], carry[2]
        return fnp.any(~accepted) & (i < max_iters)

    init = (0, fnp.full(shape, -1, pd), fnp.zeros(shape, bool), key)
    return fnp.astype(lax.while_loop(cond, body, init)[1], dtype)


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
    """Multinomial(n, p) counts over the last axis of ``p`` (as floats of ``dtype``)."""
    data, _ = check_key("multinomial", key)
    check_arraylike("multinomial", n, p)
    n, p = promote_dtypes_inexact("multinomial", n, p, broadcast=False)
    if shape is None:
        shape = aval_of(p).shape
    else:
        shape = canonical_shape(shape)
    n = fnp.broadcast_to(n, shape[:-1])
    p = fnp.moveaxis(fnp.broadcast_to(p, shape), -1, 0)
    remaining = fnp.flip(fnp.cumsum(fnp.flip(p, 0), 0), 0)
    ratios = p / fnp.where(remaining == 0, 1, remaining)

    def draw(remainder, ratio_and_key):
        ratio, k = ratio_and_key
        count = binomial(k, remainder, fnp.clip(ratio, 0, 1), dtype=aval_of(remainder).dtype)
        return remainder - count, count

    keys = _split(data, (aval_of(ratios).shape[0],))
    counts = lax.scan(draw, n, (ratios, keys), unroll=unroll)[1]
    out = fnp.moveaxis(counts, 0, -1)
    return out if dtype is None else fnp.astype(out, dtype)

