"""JAX's nn functions: activations, softmax and friends, one_hot, standardize, written over
frontend.numpy with JAX's formulas (so values, dtypes and weak types match JAX's)."""
from __future__ import annotations

import operator

import numpy as np

from .. import lax
from .. import numpy as fnp
from ..core import dtypes
from ..core.ir import aval_of
from ..device.fusion import eager_fused
from ..lax._convert import convert
from ..lax._ops import logistic as _logistic
from ..lax._ops import rsqrt as _rsqrt
from ..numpy._core import canonical_axes, check_arraylike, promote_dtypes_inexact
from ..scipy.special import logsumexp
from ..transforms.custom_derivatives import custom_jvp


def _inexact(name, x):
    check_arraylike(name, x)
    return promote_dtypes_inexact(name, fnp.asarray(x))[0]


def _activation(fn):
    """One executable per signature when called eagerly on an Array (as JAX's jitted nn)."""
    return eager_fused(1)(fn)


@_activation
def identity(x):
    check_arraylike("identity", x)
    return fnp.asarray(x)


@custom_jvp
def _relu(x):
    return fnp.maximum(x, 0)


# (JAX's rule: the derivative at the kink is 0, not max's 1/2)
_relu.defjvps(lambda g, _ans, x: lax.select(x > 0, g, fnp.zeros_like(g)))


@_activation
def relu(x):
    """max(x, 0); its derivative is 1 where x > 0, else 0 (also at 0, as JAX's)."""
    check_arraylike("relu", x)
    return _relu(fnp.asarray(x))


@custom_jvp
def _relu6(x):
    return fnp.minimum(fnp.maximum(x, 0), 6.0)


_relu6.defjvps(lambda g, _ans, x: lax.select((x > 0) & (x < 6), g, fnp.zeros_like(g)))


@_activation
def relu6(x):
    """min(max(x, 0), 6); its derivative is 1 where 0 < x < 6, else 0 (as JAX's)."""
    check_arraylike("relu6", x)
    return _relu6(fnp.asarray(x))


@custom_jvp
def _log1mexp(x):
    small = x < np.log(2.0).astype(np.float32).item()
    return fnp.where(small, fnp.log(-fnp.expm1(-x)), fnp.log1p(-fnp.exp(-x)))


_log1mexp.defjvps(lambda g, _ans, x: g / fnp.expm1(x))


def log1mexp(x):
    """log(1 - exp(-x)) for x > 0, accurate for small and large x (expm1 below log 2, log1p
    above); its derivative is 1 / expm1(x), as JAX's."""
    check_arraylike("log1mexp", x)
    return _log1mexp(fnp.asarray(x))


def tanh(x, /):
    """jax.nn.tanh: the hyperbolic tangent (numpy's tanh)."""
    return fnp.tanh(x)


@_activation
def sigmoid(x):
    """1 / (1 + exp(-x)) (the logistic function)."""
    check_arraylike("sigmoid", x)
    return _logistic(_inexact("sigmoid", x))


@_activation
def silu(x):
    """x * sigmoid(x)."""
    x = _inexact("silu", x)
    return x * sigmoid(x)


swish = silu


@_activation
def softplus(x):
    """log(1 + exp(x)), computed as logaddexp(x, 0)."""
    check_arraylike("softplus", x)
    return fnp.logaddexp(x, 0)


@_activation
def log_sigmoid(x):
    """log(sigmoid(x)) = -softplus(-x)."""
    x = _check("log_sigmoid", x)
    return -softplus(-x)


def _check(name, x):
    check_arraylike(name, x)
    return fnp.asarray(x)


@_activation
def soft_sign(x):
    x = _check("soft_sign", x)
    return x / (fnp.abs(x) + 1)


@_activation
def squareplus(x, b=4):
    x = _check("squareplus", x)
    return (x + fnp.sqrt(fnp.square(x) + b)) / 2


@_activation
def sparse_plus(x):
    x = _check("sparse_plus", x)
    return fnp.where(x <= -1.0, 0.0, fnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


@_activation
def sparse_sigmoid(x):
    x = _check("sparse_sigmoid", x)
    return 0.5 * fnp.clip(x + 1.0, 0.0, 2.0)


@_activation
def mish(x):
    x = _check("mish", x)
    return x * fnp.tanh(softplus(x))


@_activation
def elu(x, alpha=1.0):
    """x if x > 0 else alpha * (exp(x) - 1)."""
    x = _check("elu", x)
    safe = fnp.where(x > 0, 0.0, x)
    return fnp.where(x > 0, x, alpha * fnp.expm1(safe))


@_activation
def leaky_relu(x, negative_slope=1e-2):
    """x if x >= 0 else negative_slope * x."""
    x = _check("leaky_relu", x)
    return fnp.where(x >= 0, x, negative_slope * x)


@_activation
def hard_tanh(x):
    x = _check("hard_tanh", x)
    return fnp.where(x > 1, 1, fnp.where(x < -1, -1, x))


@_activation
def celu(x, alpha=1.0):
    x = _check("celu", x)
    return fnp.maximum(x, 0.0) + alpha * fnp.expm1(fnp.minimum(x, 0.0) / alpha)


@_activation
def selu(x):
    """scale * elu(x, alpha) with the self-normalizing constants."""
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return scale * elu(x, alpha)


@_activation
def hard_sigmoid(x):
    return relu6(x + 3.0) / 6.0


@_activation
def hard_silu(x):
    x = _check("hard_silu", x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def gelu(x, approximate: bool = True):
    """The Gaussian error linear unit: ``x * Phi(x)``; ``approximate`` (default) uses the
    tanh formula."""
    x = _inexact("gelu", x)
    d = aval_of(x).dtype
    if not approximate:  # lax.erfc: the special-function primitives' (issue 14)
        sqrt_half = convert(float(np.sqrt(0.5).astype(d)), d)
        return fnp.asarray(0.5 * x * lax.erfc(-x * sqrt_half), dtype=d)
    c = float(np.sqrt(2 / np.pi).astype(d) if d != dtypes.bfloat16
              else np.asarray(np.sqrt(2 / np.pi), d))
    cdf = 0.5 * (1.0 + fnp.tanh(convert(c, d) * (x + 0.044715 * (x ** 3))))
    return x * cdf


@eager_fused(1)
def glu(x, axis=-1):
    """Gated linear unit: first half * sigmoid(second half) along ``axis``."""
    x = _check("glu", x)
    size = x.shape[axis]
    if size % 2:
        raise ValueError(f"glu: axis size must be divisible by 2, got {size}")
    x1, x2 = fnp.split(x, 2, axis)
    return x1 * sigmoid(x2)


# ----------------------------------------------------------------------------- reductions


def logmeanexp(x, axis=None, where=None, keepdims=False):
    """log(mean(exp(x))) over ``axis``."""
    lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
    xa = aval_of(fnp.asarray(x))
    if where is None:
        count = int(np.prod([xa.shape[d] for d in canonical_axes(axis, xa.ndim)]))
    else:
        count = fnp.sum(fnp.broadcast_to(where, xa.shape), axis=axis, keepdims=keepdims,
                        dtype=aval_of(lse).dtype)
    return lse - fnp.log(count)


def softmax(x, axis=-1, where=None, initial=None):
    """exp(x) / sum(exp(x)) along ``axis`` (computed shifted by the max)."""
    x = _check("softmax", x)
    x_max = fnp.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else fnp.where(where, x, -np.inf)
    unnormalized = fnp.exp(x_safe - x_max)
    result = unnormalized / fnp.sum(unnormalized, axis, where=where, keepdims=True)
    if where is not None:
        result = fnp.where(where, result, 0)
    return result


def log_softmax(x, axis=-1, where=None, initial=None):
    """x - logsumexp(x) along ``axis``."""
    x = _check("log_softmax", x)
    x_max = fnp.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else fnp.where(where, x, -np.inf)
    shifted = x_safe - x_max
    shifted_logsumexp = fnp.log(fnp.sum(fnp.exp(shifted), axis, where=where, keepdims=True))
    result = shifted - shifted_logsumexp
    if where is not None:
        return fnp.where(where, result, -np.inf)
    return result


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *,
                algorithm="stable"):
    """(x - mean) / sqrt(variance + epsilon) along ``axis``."""
    x = _check("standardize", x)
    if mean is None:
        mean = fnp.mean(x, axis, keepdims=True, where=where)
    if variance is None:
        if algorithm == "stable":
            variance = fnp.mean(fnp.square(fnp.subtract(x, mean)), axis, keepdims=True,
                                where=where)
        elif algorithm == "fast":
            variance = fnp.mean(fnp.square(x), axis, keepdims=True, where=where) \
                - fnp.square(mean)
            variance = fnp.clip(variance, 0)
        else:
            raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    return fnp.subtract(x, mean) * _rsqrt(fnp.asarray(variance + epsilon))


def one_hot(x, num_classes, *, dtype=None, axis=-1):
    """``x == i`` for i in range(num_classes) on a new axis (default float dtype)."""
    num_classes = operator.index(num_classes)
    x = fnp.asarray(x)
    d = dtypes.canonicalize(np.dtype(dtypes.default_float() if dtype is None else dtype))
    xa = aval_of(x)
    out_nd = xa.ndim + 1
    if isinstance(axis, str) or not -out_nd <= axis < out_nd:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {out_nd}")
    axis %= out_nd
    lhs = fnp.expand_dims(x, axis)
    shape = [1] * out_nd
    shape[axis] = num_classes
    rhs = lax.broadcasted_iota(dtype=xa.dtype, shape=tuple(shape), dimension=axis)
    return fnp.astype(fnp.equal(lhs, rhs), d)


__all__ = ["celu", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
           "identity", "leaky_relu", "log_sigmoid", "log_softmax", "logmeanexp", "logsumexp",
           "mish", "one_hot", "relu", "relu6", "selu", "sigmoid", "silu", "soft_sign",
           "softmax", "softplus", "sparse_plus", "sparse_sigmoid", "squareplus", "standardize",
           "swish", "log1mexp", "tanh", "dot_product_attention"]


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal: bool = False, query_seq_lengths=None,
                          key_value_seq_lengths=None, local_window_size=None,
                          implementation=None, return_residual: bool = False):
    """Scaled dot-product attention (JAX's ``implementation='xla'`` semantics): ``query``
    (B, T, N, H), ``key``/``value`` (B, S, K, H) with K dividing N (grouped heads), optional
    additive ``bias`` and boolean ``mask`` broadcastable to (B, N, T, S), ``is_causal``;
    softmax in float32. Returns (B, T, N, H)."""
    if implementation not in (None, "xla"):
        raise ValueError(f"Unsupported implementation option: {implementation}")
    if (query_seq_lengths is not None or key_value_seq_lengths is not None
            or local_window_size is not None or return_residual):
        raise NotImplementedError("dot_product_attention: sequence lengths, local windows and "
                                  "return_residual are not implemented in vmaplab yet.")
    check_arraylike("dot_product_attention", query, key, value)
    q, k, v = fnp.asarray(query), fnp.asarray(key), fnp.asarray(value)
    squeeze = q.ndim == 3
    if squeeze:
        q, k, v = q[None], k[None], v[None]
    if q.ndim != 4 or k.ndim != 4 or v.ndim != 4:
        raise ValueError(f"dot_product_attention expects rank-3 or rank-4 query, key and value, "
                         f"got shapes {q.shape}, {k.shape}, {v.shape}")
    b, t, n, h = q.shape
    s, kh = k.shape[1], k.shape[2]
    if n % kh:
        raise ValueError(f"The number of query heads {n} must be a multiple of the number of "
                         f"key/value heads {kh}")
    g = n // kh
    scale = 1.0 / np.sqrt(h) if scale is None else scale
    qg = fnp.reshape(q, (b, t, kh, g, h))
    logits = fnp.einsum("BTKGH,BSKH->BKGTS", qg, k) * fnp.asarray(scale, q.dtype)
    logits = fnp.reshape(logits, (b, n, t, s))
    if bias is not None:
        logits = (logits + fnp.asarray(bias)).astype(logits.dtype)
    keep = None
    if mask is not None:
        keep = fnp.asarray(mask, bool)
    if is_causal:
        causal = np.tril(np.ones((t, s), bool))
        keep = causal if keep is None else keep & causal
    if keep is not None:
        big = -0.7 * float(fnp.finfo(logits.dtype).max)
        logits = fnp.where(keep, logits, fnp.asarray(big, logits.dtype))
    probs = softmax(logits.astype(np.float32), axis=-1).astype(q.dtype)
    out = fnp.einsum("BKGTS,BSKH->BTKGH", fnp.reshape(probs, (b, kh, g, t, s)), v)
    out = fnp.reshape(out, (b, t, n, h))
    return out[0] if squeeze else out
