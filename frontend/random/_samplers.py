"""JAX's random samplers over the threefry bits of ``_prng``: the same algorithms step by
step, so that every value is bit-for-bit JAX's under its default configuration."""
from __future__ import annotations

import math
import operator

import ml_dtypes
import numpy as np

from .. import lax
from .. import numpy as fnp
from ..core import dtypes
from ..core.config import config
from ..core.ir import Tracer, aval_of, literal
from ..device.array import Array, device_put
from ..device.fusion import eager_jit
from ..lax._convert import convert
from ..lax._ops import bitcast_convert_type
from ..numpy._core import canonical_axis, check_arraylike, promote_dtypes_inexact
from ._prng import (
    U32,
    KeyArray,
    check_key,
    fold_in_data,
    random_bits,
    seed_data,
    split_data,
)

# ----------------------------------------------------------------------------- arguments


def canonical_shape(shape, name="shape") -> tuple:
    """A shape argument as a tuple of non-negative ints (an int is a 1-D shape)."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        out = tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError("Shapes must be 1D sequences of concrete values of integer type, "
                        f"got {shape!r}.") from None
    if any(d < 0 for d in out):
        raise ValueError(f"negative dimensions are not allowed: {name} {out}")
    return out


def _dtype(name: str, dtype, default, ok, what: str):
    d = dtypes.canonicalize(np.dtype(default() if dtype is None else dtype))
    if not ok(d):
        raise ValueError(f"dtype argument to `{name}` must be {what} dtype, got {d}")
    return d


def float_dtype(name, dtype):
    return _dtype(name, dtype, dtypes.default_float, dtypes.is_float, "a float")


def check_shape(name: str, shape: tuple, *param_shapes) -> None:
    """``shape`` must be the broadcast of itself with the parameters' shapes (JAX's rule)."""
    if param_shapes:
        try:
            got = np.broadcast_shapes(shape, *param_shapes)
        except ValueError:
            raise ValueError("Incompatible shapes for broadcasting: shapes="
                             f"{[tuple(shape), *map(tuple, param_shapes)]}") from None
        if tuple(got) != tuple(shape):
            raise ValueError(f"{name} parameter shapes must be broadcast-compatible with shape "
                             "argument, and the result of broadcasting the shapes must equal "
                             f"the shape argument, but got result {tuple(got)} for shape "
                             f"argument {shape}.")


def _shape_of(x) -> tuple:
    a = aval_of(x, host=False)
    return tuple(a.shape) if a is not None else np.shape(x)


def _to_rank(x, n: int):
    """x with leading size-1 axes up to rank ``n``."""
    s = aval_of(x).shape
    if len(s) >= n:
        return x
    return lax.reshape(x, new_sizes=(1,) * (n - len(s)) + tuple(s), dimensions=None)


def _row(x, i: int):
    """x[i] along axis 0."""
    s = aval_of(x).shape
    return lax.squeeze(lax.slice(x, start_indices=(i,) + (0,) * (len(s) - 1),
                                 limit_indices=(i + 1,) + tuple(s[1:]), strides=None),
                       dimensions=(0,))


def _out(data, typed: bool):
    return KeyArray(data) if typed else data


# ----------------------------------------------------------------------------- keys


def PRNGKey(seed) -> Array:
    """A raw key (uint32 array of shape (2,)) from an integer seed, as JAX's ``PRNGKey``:
    a 64-bit seed's high and low words (32-bit seeds: high word 0).

    >>> from frontend import random
    >>> random.PRNGKey(0)
    Array([0, 0], dtype=uint32)
    """
    return _seed("PRNGKey", seed)


def key(seed, *, impl=None) -> KeyArray:
    """A typed key (dtype ``key<fry>``, shape ()) from an integer seed, as JAX's ``key``."""
    if impl is not None and str(impl) != "threefry2x32":
        raise ValueError(f"unknown PRNG implementation {impl!r}: vmaplab has threefry2x32")
    return KeyArray(_seed("key", seed))


def _seed(name, seed):
    if isinstance(seed, KeyArray):
        raise TypeError(f"{name} accepts a scalar seed, but was given a PRNG key.")
    if np.ndim(seed) if not isinstance(seed, (Array, Tracer)) else seed.ndim:
        raise TypeError(f"{name} accepts a scalar seed, but was given an array of shape "
                        f"{_shape_of(seed)} != (). Use jax.vmap for batching")
    if isinstance(seed, (bool, float, complex)) or not dtypes.is_int(
            dtypes.dtype_and_weak(seed)[0] if not isinstance(seed, int) else dtypes.int64):
        raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
    if isinstance(seed, (int, np.integer)):
        # (a Python int is read as int64, then takes the default int type, as in JAX)
        v = np.int64(seed) if isinstance(seed, int) else seed
        seed = device_put(np.asarray(v).astype(dtypes.canonicalize(np.asarray(v).dtype)))
    return _seed_fn(seed)


_seed_fn = eager_jit(seed_data)


def key_data(keys):
    """The uint32 data of keys: typed keys' data, raw keys as they are."""
    data, _ = check_key("key_data", keys, allow_batched=True)
    return data


def wrap_key_data(key_bits_array, *, impl=None) -> KeyArray:
    """Typed keys holding ``key_bits_array`` (uint32, trailing axis of size 2)."""
    if isinstance(key_bits_array, KeyArray):
        raise TypeError("wrap_key_data takes key data (uint32), got a typed key array")
    data, _ = check_key("wrap_key_data", key_bits_array, allow_batched=True)
    return KeyArray(data)


def key_impl(keys) -> str:
    check_key("key_impl", keys, allow_batched=True)
    return "threefry2x32"


def clone(key):
    return key


def split(key, num=2):
    """``num`` new keys (an int, or a shape tuple) from one key, on a new leading axis."""
    data, typed = check_key("split", key)
    shape = tuple(num) if isinstance(num, (tuple, list)) else (num,)
    shape = canonical_shape(shape, "num")
    return _out(_split(data, shape), typed)


_split = eager_jit(split_data)


def fold_in(key, data):
    """A new key from ``key`` and the 32-bit integer ``data``."""
    kd, typed = check_key("fold_in", key)
    if np.ndim(data) if not isinstance(data, (Array, Tracer)) else data.ndim:
        raise TypeError("fold_in accepts a scalar, but was given an array of"
                        f"shape {_shape_of(data)} != (). Use jax.vmap for batching.")
    if isinstance(data, int):
        d = literal(data, U32)  # OverflowError outside uint32's range, as JAX's asarray
        data = device_put(np.asarray(d.val, U32))
    elif not isinstance(data, (Array, Tracer)):
        data = device_put(np.asarray(data).astype(U32))
    return _out(_fold_in(kd, data), typed)


@eager_jit
def _fold_in(key, data):
    return fold_in_data(key, convert(data, U32))


# ----------------------------------------------------------------------------- bits, uniform


def bits(key, shape=(), dtype=None):
    """Uniform random bits as unsigned integers (default uint32; uint64 in 64-bit mode)."""
    data, _ = check_key("bits", key)
    d = _dtype("bits", dtype, lambda: dtypes.uint64 if config.enable_x64 else U32,
               dtypes.is_unsigned, "an unsigned int")
    return _bits(data, d.itemsize * 8, canonical_shape(shape))


_bits = eager_jit(random_bits)


def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0):
    """Uniform floats in [minval, maxval)."""
    data, _ = check_key("uniform", key)
    return _uniform(data, _as_device(minval), _as_device(maxval), canonical_shape(shape), float_dtype("uniform", dtype))


@eager_jit
def _uniform(key, minval, maxval, shape, dtype):
    check_shape("uniform", shape)
    minval = _to_rank(convert(minval, dtype), len(shape))
    maxval = _to_rank(convert(maxval, dtype), len(shape))
    info = ml_dtypes.finfo(dtype)
    nbits, nmant = info.bits, info.nmant
    rng_bits = 8 if nmant < 8 else nbits
    uint = np.dtype(f"uint{nbits}")
    b = convert(random_bits(key, rng_bits, shape), uint)
    # random mantissa bits under the exponent of 1.0: a float in [1, 2), minus 1
    one_bits = int(np.array(1.0, dtype).view(uint))
    b = lax.bitwise_or(lax.shift_right_logical(b, literal(rng_bits - nmant, uint)),
                       literal(one_bits, uint))
    floats = lax.sub(bitcast_convert_type(b, dtype), literal(1.0, dtype))
    scaled = lax.add(lax.mul(floats, lax.sub(maxval, minval)), minval)
    return lax.max(minval, _reshape(scaled, shape))


def at_run_time(x):
    """``x`` as a value XLA computes with at run time, as JAX's samplers receive their
    parameters (behind an optimization barrier: a constant parameter folded into the
    arithmetic, or into a rejection loop, would round differently)."""
    return lax.optimization_barrier(fnp.asarray(x))


def _reshape(x, shape):
    if aval_of(x).shape == tuple(shape):
        return x
    return lax.reshape(x, new_sizes=tuple(shape), dimensions=None)


# ----------------------------------------------------------------------------- samplers


def bernoulli(key, p=0.5, shape=None, mode="low"):
    """Booleans that are True with probability ``p``."""
    if shape is not None:
        shape = canonical_shape(shape)
    if mode not in ("high", "low"):
        raise ValueError(f"got mode={mode!r}, expected 'high' or 'low'")
    data, _ = check_key("bernoulli", key)
    d = dtypes.dtype_and_weak(p)[0] if not isinstance(p, (list, tuple)) else \
        dtypes.canonicalize(np.asarray(p).dtype)
    if not dtypes.is_float(d):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {d}.")
    if isinstance(p, (list, tuple, np.ndarray)):
        p = device_put(np.asarray(p, d))
    return _bernoulli(data, p, shape, mode, d)


@eager_jit
def _bernoulli(key, p, shape, mode, dtype):
    p = convert(p, dtype)
    if shape is None:
        shape = aval_of(p).shape
    else:
        check_shape("bernoulli", shape, aval_of(p).shape)
    if mode == "high":
        u = _uniform(key, 0.0, 1.0, (2,) + shape, dtype)
        u1, u2 = _row(u, 0), _row(u, 1)
        u2 = lax.mul(u2, literal(2.0 ** -ml_dtypes.finfo(dtype).nmant, dtype))
        return fnp.less(u2, fnp.subtract(p, u1))
    return fnp.less(_uniform(key, 0.0, 1.0, shape, dtype), p)


def randint(key, shape, minval, maxval, dtype=None):
    """Uniform integers in [minval, maxval) (JAX's modulus-based algorithm, bit for bit)."""
    data, _ = check_key("randint", key)
    d = dtypes.canonicalize(np.dtype(dtypes.default_int() if dtype is None else dtype))
    if not dtypes.is_int(d):
        raise TypeError(f"randint only accepts integer dtypes, got {d}")
    shape = canonical_shape(shape)
    for name, v in (("minval", minval), ("maxval", maxval)):
        if isinstance(v, (list, tuple, np.ndarray)):
            v = np.asarray(v)
            if v.dtype.kind not in "iufb":
                raise TypeError(f"randint requires ndarray or scalar arguments, got {name}")
    minval = _as_device(minval)
    maxval = _as_device(maxval)
    info = np.iinfo(d)
    if info.bits < 32:  # sampled as int32 in the dtype's range, then cast (less bias)
        out = _randint(data, minval, maxval, shape, dtypes.int32, (int(info.min), int(info.max)))
        return fnp.astype(out, d) if isinstance(out, (Array, Tracer)) else out
    return _randint(data, minval, maxval, shape, d, None)


def _as_device(v):
    if isinstance(v, (list, tuple, np.ndarray, np.generic)):
        return device_put(np.asarray(v, dtypes.canonicalize(np.asarray(v).dtype)))
    return v


def _clip_convert(v, dtype):
    """Integer v as ``dtype``, clipped to the range both types share (not wrapped)."""
    a = aval_of(v)
    fi, ti = np.iinfo(a.dtype), np.iinfo(dtype)
    lo = literal(max(int(fi.min), int(ti.min)), a.dtype, a.weak_type)
    hi = literal(min(int(fi.max), int(ti.max)), a.dtype, a.weak_type)
    return convert(lax.min(lax.max(v, lo), hi), dtype)


@eager_jit
def _randint(key, minval, maxval, shape, dtype, narrow):
    minval, maxval = fnp.asarray(minval), fnp.asarray(maxval)
    if narrow is not None:  # the bounds of a narrow dtype, read as int32
        lo, hi = narrow
        minval = fnp.clip(fnp.astype(minval, dtypes.int32), lo, hi)
        maxval = fnp.clip(fnp.astype(maxval, dtypes.int32), lo, hi + 1)
    check_shape("randint", shape, aval_of(minval).shape, aval_of(maxval).shape)
    if not dtypes.is_int(aval_of(minval).dtype):
        minval = fnp.astype(minval, dtypes.default_int())
    if not dtypes.is_int(aval_of(maxval).dtype):
        maxval = fnp.astype(maxval, dtypes.default_int())
    ma = aval_of(maxval)
    top = min(int(np.iinfo(dtype).max), int(np.iinfo(ma.dtype).max))
    maxval_out_of_range = lax.gt(maxval, literal(top, ma.dtype, ma.weak_type))
    minval = _to_rank(_clip_convert(minval, dtype), len(shape))
    maxval = _to_rank(_clip_convert(maxval, dtype), len(shape))
    nbits = np.iinfo(dtype).bits
    keys = split_data(key, (2,))
    higher = random_bits(_row(keys, 0), nbits, shape)
    lower = random_bits(_row(keys, 1), nbits, shape)
    u = np.dtype(f"uint{nbits}")
    span = convert(lax.sub(maxval, minval), u)
    span = fnp.where(lax.le(maxval, minval), literal(1, u), span)
    span = fnp.where(fnp.logical_and(maxval_out_of_range, lax.gt(maxval, minval)),
                     lax.add(span, literal(1, u)), span)
    multiplier = lax.rem(literal(2 ** (nbits // 2), u), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher, span), multiplier),
                     lax.rem(lower, span))
    offset = lax.rem(offset, span)
    return fnp.add(minval, convert(offset, dtype))


def exponential(key, shape=(), dtype=None):
    """Exponential(1) samples: -log(1 - u)."""
    data, _ = check_key("exponential", key)
    d = float_dtype("exponential", dtype)
    return _exponential(data, canonical_shape(shape), d)


@eager_jit
def _exponential(key, shape, dtype):
    u = _uniform(key, 0.0, 1.0, shape, dtype)
    return lax.neg(lax.log1p(lax.neg(u)))


def gumbel(key, shape=(), dtype=None, mode=None):
    """Gumbel samples: -log(-log(u)); ``mode="high"`` uses two uniforms per sample for
    more resolution near 0; ``mode="highest"`` (float32) 64 random bits per sample."""
    data, _ = check_key("gumbel", key)
    d = float_dtype("gumbel", dtype)
    mode = "low" if mode is None else mode
    if mode not in ("highest", "high", "low"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    return _gumbel(data, canonical_shape(shape), d, mode)


def _fixed_point_to_float32(hi, lo):
    """The uint32 pair (hi, lo), a 64-bit fixed-point fraction in (0, 1), as the nearest
    float32 below it: the leading one found by clz (in lo when hi is 0) sets the exponent,
    the 23 bits after it the mantissa."""
    u32 = np.dtype(np.uint32)

    def c(v):
        return literal(v, u32)
    hz, lz = lax.clz(hi), lax.clz(lo)
    hi_zero = fnp.equal(hz, c(32))
    top = lax.bitwise_or(lax.shift_left(hi, hz), fnp.where(
        hi_zero, lax.shift_left(lo, lz), lax.shift_right_logical(lo, lax.sub(c(32), hz))))
    mantissa = lax.bitwise_and(lax.shift_right_logical(top, c(8)), c((1 << 23) - 1))
    lead = fnp.where(hi_zero, lax.add(c(32), lz), hz)
    exponent = lax.bitwise_and(lax.shift_left(lax.sub(c(126), lead), c(23)),
                               c((1 << 30) - (1 << 22)))
    return bitcast_convert_type(lax.bitwise_or(exponent, mantissa), np.float32)


@eager_jit
def _gumbel(key, shape, dtype, mode):
    info = ml_dtypes.finfo(dtype)
    if mode == "highest" and dtype == dtypes.float32:
        # (JAX's) 64 random bits as a fixed-point u in (0, 1): below 1/2 as is, with
        # -log(-log1p(-u)); else 1 - u (two's complement across the pair), with
        # -log(-log(1 - u)), so both tails keep float32's full resolution
        u32 = np.dtype(np.uint32)
        bits = convert(random_bits(key, 32, (2,) + shape), u32)
        hi, lo = _row(bits, 0), _row(bits, 1)
        n_hi, n_lo = lax.bitwise_not(hi), lax.bitwise_not(lo)
        carry = convert(fnp.equal(n_lo, literal(0xFFFFFFFF, u32)), u32)
        n_hi, n_lo = lax.add(n_hi, carry), lax.add(n_lo, literal(1, u32))
        low_half = fnp.less(hi, literal(1 << 31, u32))
        x = _fixed_point_to_float32(fnp.where(low_half, hi, n_hi), fnp.where(low_half, lo, n_lo))
        return fnp.where(low_half, -fnp.log(-fnp.log1p(-x)), -fnp.log(-fnp.log(x)))
    if mode in ("high", "highest"):
        u = _uniform(key, 0.0, 1.0, (2,) + shape, dtype)
        high, low = _row(u, 0), _row(u, 1)
        x = fnp.where(fnp.greater_equal(high, 0.5), high,
                      high + 2.0 ** -info.nmant * low + float(info.tiny))
        return -fnp.log(-fnp.log1p(-x))
    return -fnp.log(-fnp.log(_uniform(key, float(info.tiny), 1.0, shape, dtype)))


def categorical(key, logits, axis: int = -1, shape=None, replace: bool = True, mode=None):
    """Samples from categorical distributions given by unnormalized ``logits`` (the Gumbel
    max trick)."""
    data, _ = check_key("categorical", key)
    logits = fnp.asarray(logits) if not isinstance(logits, (Array, Tracer)) else logits
    nd = logits.ndim
    if not -nd <= axis < nd:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {nd}")
    batch_shape = tuple(np.delete(np.array(logits.shape, dtype=np.int64), axis).tolist())
    if shape is None:
        shape = batch_shape
    else:
        shape = canonical_shape(shape)
        check_shape("categorical", shape, batch_shape)
    if not replace:
        k = math.prod(shape[:len(shape) - len(batch_shape)])
        if k > logits.shape[axis]:
            raise ValueError(f"Number of samples without replacement ({k}) cannot exceed "
                             f"number of categories ({logits.shape[axis]}).")
    return _categorical(data, logits, axis, shape, batch_shape, mode, replace)


@eager_jit
def _categorical(key, logits, axis, shape, batch_shape, mode, replace):
    nd = logits.ndim
    prefix = shape[:len(shape) - len(batch_shape)]
    if not replace:  # the Gumbel top-k trick (lax.top_k: the sort family's)
        g = logits + _gumbel(key, logits.shape, logits.dtype, "low" if mode is None else mode)
        _, idx = lax.top_k(fnp.moveaxis(g, axis, -1), math.prod(prefix))
        idx = fnp.moveaxis(idx, -1, 0)
        return fnp.reshape(idx, shape)
    if axis >= 0:
        axis -= nd
    logits_shape = list(shape[len(shape) - len(batch_shape):])
    logits_shape.insert(axis % nd, logits.shape[axis])
    g = gumbel(key, (*prefix, *logits_shape), logits.dtype, mode)
    return fnp.argmax(g + fnp.expand_dims(logits, tuple(range(len(prefix)))), axis=axis)


def choice(key, a, shape=(), replace: bool = True, p=None, axis: int = 0, mode=None):
    """A random sample of ``a`` (an int n: of arange(n)) of ``shape``."""
    data, _ = check_key("choice", key)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"shape argument of jax.random.choice must be a sequence, got {shape}")
    shape = canonical_shape(shape)
    arr = fnp.asarray(a) if not isinstance(a, (Array, Tracer)) else a
    if arr.ndim == 0:
        n_inputs = int(a)
    else:
        if not -arr.ndim <= axis < arr.ndim:
            raise ValueError(f"axis {axis} is out of bounds for array of dimension {arr.ndim}")
        axis %= arr.ndim
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return fnp.zeros(shape, dtype=arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population (size "
                         f"{n_inputs}) when 'replace=False'")
    if p is None:
        if replace:
            ind = randint(data, shape, 0, n_inputs)
            result = ind if arr.ndim == 0 else fnp.take(arr, ind, axis)
        else:
            perm = permutation(data, n_inputs if arr.ndim == 0 else arr, axis)
            result = perm[(slice(None),) * axis + (slice(n_draws),)]
    else:
        check_arraylike("choice", p)
        (p_arr,) = promote_dtypes_inexact("choice", p)
        if p_arr.shape != (n_inputs,):
            raise ValueError("p must be None or a 1D vector with the same size as a.shape[axis]. "
                             f"p has shape {p_arr.shape} and a.shape[axis] is {n_inputs}.")
        ind = _choice_p(data, p_arr, shape, replace, n_inputs, n_draws, mode)
        result = ind if arr.ndim == 0 else fnp.take(arr, ind, axis)
    return fnp.reshape(result, shape if arr.ndim == 0 else
                       arr.shape[0:axis] + tuple(shape) + arr.shape[axis + 1:])


@eager_jit
def _choice_p(key, p, shape, replace, n_inputs, n_draws, mode):
    if replace:  # inverse of the cumulative distribution at uniform points
        p_cuml = fnp.cumsum(p)
        r = p_cuml[-1] * (1 - _uniform(key, 0.0, 1.0, shape, aval_of(p_cuml).dtype))
        return fnp.astype(fnp.searchsorted(p_cuml, r), dtypes.default_int())
    # the Gumbel top-k trick
    g = _gumbel(key, (n_inputs,), aval_of(p).dtype, "low" if mode is None else mode)
    return fnp.astype(lax.top_k(g + fnp.log(p), n_draws)[1], dtypes.default_int())


def permutation(key, x, axis=0, independent=False):
    """A random permutation of ``arange(x)`` (an int) or of ``x`` along ``axis``
    (``independent``: each slice along the other axes shuffled on its own)."""
    data, _ = check_key("permutation", key)
    check_arraylike("permutation", x)
    nd = _ndim(x)
    axis = canonical_axis(axis, nd or 1)
    if not nd:
        if not dtypes.is_int(dtypes.dtype_and_weak(x)[0]):
            raise TypeError("x must be an integer or at least 1-dimensional")
        if isinstance(x, Tracer):
            raise TypeError("argument x of jax.random.permutation() must be concrete: the "
                            "size of the permutation is its output shape")
        return _shuffle(data, fnp.arange(int(x)), axis)
    x = _as_device(x)
    if independent or nd == 1:
        return _shuffle(data, x, axis)
    ind = _shuffle(data, fnp.arange(_shape_of(x)[axis]), 0)
    return fnp.take(x, ind, axis, unique_indices=True)


def _ndim(x) -> int:
    return len(_shape_of(x))


@eager_jit
def _shuffle(key, x, axis):
    """JAX's shuffle: sorts by random 32-bit keys, rounds enough for few collisions."""
    size = math.prod(aval_of(x).shape)
    rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(rounds):
        keys = split_data(key, (2,))
        key, sub = _row(keys, 0), _row(keys, 1)
        _, x = lax.sort_key_val(random_bits(sub, 32, aval_of(x).shape), x, axis)
    return x


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky"):
    """Samples of N(mean, cov): mean + factor @ normal, factor from ``method`` ('cholesky',
    'svd' or 'eigh') of cov (batched over leading axes)."""
    data, _ = check_key("multivariate_normal", key)
    mean, cov = promote_dtypes_inexact("multivariate_normal", mean, cov, broadcast=False)
    if method not in ("svd", "eigh", "cholesky"):
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    d = aval_of(mean).dtype if dtype is None else dtypes.canonicalize(np.dtype(dtype))
    if not dtypes.is_float(d):
        raise ValueError(f"dtype argument to `multivariate_normal` must be a float dtype, "
                         f"got {d}")
    if shape is not None:
        shape = canonical_shape(shape)
    ms, cs = _shape_of(mean), _shape_of(cov)
    if len(ms) < 1:
        raise ValueError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == {len(ms)}")
    if len(cs) < 2:
        raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == {len(cs)}")
    n = ms[-1]
    if cs[-2:] != (n, n):
        raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, "
                         f"but got cov.shape == {cs}.")
    if shape is None:
        shape = tuple(np.broadcast_shapes(ms[:-1], cs[:-2]))
    else:
        check_shape("normal", shape, ms[:-1], cs[:-2])
    return _multivariate_normal(data, mean, cov, shape, d, method)


@eager_jit
def _multivariate_normal(key, mean, cov, shape, dtype, method):
    linalg = fnp.linalg  # the decompositions (issue 14's primitives)
    if method == "svd":
        u, s, _ = linalg.svd(cov)
        factor = u * fnp.sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = linalg.eigh(cov)
        factor = v * fnp.sqrt(w[..., None, :])
    else:
        factor = linalg.cholesky(cov)
    samples = _normal(key, shape + aval_of(mean).shape[-1:], dtype)
    return mean + fnp.einsum("...ij,...j->...i", factor, samples)


def rademacher(key, shape=(), dtype=None):
    """Random -1 or +1 with equal probability."""
    data, _ = check_key("rademacher", key)
    d = dtypes.canonicalize(np.dtype(dtypes.default_int() if dtype is None else dtype))
    return _rademacher(data, canonical_shape(shape), d)


@eager_jit
def _rademacher(key, shape, dtype):
    b = fnp.astype(_bernoulli(key, 0.5, shape, "low", dtypes.default_float()), dtype)
    return fnp.astype(2 * b - 1, dtype)


def _unit_sampler(name: str, low, transform):
    """A sampler ``transform(u)`` of a uniform u in [low(finfo), 1)."""
    @eager_jit
    def impl(key, shape, dtype):
        u = _uniform(key, low(ml_dtypes.finfo(dtype)), 1.0, shape, dtype)
        return transform(u)

    def sampler(key, shape=(), dtype=None):
        data, _ = check_key(name, key)
        return impl(data, canonical_shape(shape), float_dtype(name, dtype))

    sampler.__name__ = impl.__name__ = name
    return sampler


laplace = _unit_sampler(
    "laplace", lambda fi: -1.0 + float(fi.epsneg),
    lambda u: lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u)))))
laplace.__doc__ = "Laplace(0, 1) samples."
logistic = _unit_sampler(
    "logistic", lambda fi: float(fi.tiny),
    lambda u: lax.sub(lax.log(u), lax.log1p(lax.neg(u))))
logistic.__doc__ = "Logistic(0, 1) samples."
cauchy = _unit_sampler(
    "cauchy", lambda fi: float(fi.eps),
    lambda u: lax.tan(lax.mul(
        literal(np.pi, aval_of(u).dtype),
        lax.sub(u, literal(0.5, aval_of(u).dtype)))))
cauchy.__doc__ = "Cauchy(0, 1) samples."


# ----------------------------------------------------------------------------- normal

def normal(key, shape=(), dtype=None):
    """Standard normal samples: sqrt(2) * erf_inv(u), u uniform in (-1, 1) (lax.erf_inv:
    chlo.erf_inv, expanded by XLA as for JAX, so the bits are JAX's)."""
    data, _ = check_key("normal", key)
    d = _dtype("normal", dtype, dtypes.default_float, dtypes.is_inexact, "a float or complex")
    return _normal(data, canonical_shape(shape), d)


@eager_jit
def _normal(key, shape, dtype):
    if dtypes.is_complex(dtype):
        real = np.finfo(dtype).dtype
        keys = split_data(key, (2,))
        re = convert(_normal_real(_row(keys, 0), shape, real), dtype)
        im = convert(_normal_real(_row(keys, 1), shape, real), dtype)
        z = lax.add(re, lax.mul(literal(1j, dtype), im))
        return lax.div(z, literal(np.sqrt(2), dtype))
    return _normal_real(key, shape, dtype)


def _normal_real(key, shape, dtype):
    lo = float(np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype)))
    u = _uniform(key, lo, 1.0, shape, dtype)
    return lax.mul(literal(np.sqrt(2), dtype), lax.erf_inv(u))


def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Standard normal samples truncated to (lower, upper): erf_inv of a uniform between
    erf(lower / sqrt 2) and erf(upper / sqrt 2), clipped into the open interval."""
    data, _ = check_key("truncated_normal", key)
    if shape is not None:
        shape = canonical_shape(shape)
    d = dtypes.canonicalize(np.dtype(dtypes.default_float() if dtype is None else dtype))
    if not dtypes.is_float(d):
        raise TypeError("truncated_normal only accepts floating point dtypes.")
    return _truncated_normal(data, _as_device(lower), _as_device(upper), shape, d)


@eager_jit
def _truncated_normal(key, lower, upper, shape, dtype):
    from .. import lax  # erf and nextafter: primitives of the special-function family
    ls, us = _shape_of(lower), _shape_of(upper)
    if shape is None:
        shape = tuple(np.broadcast_shapes(ls, us))
    else:
        check_shape("truncated_normal", shape, ls, us)
    sqrt2 = literal(np.sqrt(2), dtype)
    lower, upper = convert(lower, dtype), convert(upper, dtype)
    a = lax.erf(lax.div(lower, sqrt2))
    b = lax.erf(lax.div(upper, sqrt2))
    u = _uniform(key, a, b, shape, dtype)
    out = lax.mul(sqrt2, lax.erf_inv(u))
    lo = lax.nextafter(lower, literal(np.inf, dtype))
    hi = lax.nextafter(upper, literal(-np.inf, dtype))
    return fnp.clip(out, lo, hi)
