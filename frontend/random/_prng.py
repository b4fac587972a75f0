"""The threefry2x32 PRNG of JAX's default configuration (``jax_threefry_partitionable``
on), written with vmaplab's own uint32 primitives: the hash (Salmon et al., "Parallel random
numbers: as easy as 1, 2, 3", 20 rounds), seeding, split, fold_in and random bits.

Keys are JAX's: a raw key is a uint32 array of shape (..., 2) (``PRNGKey``); a typed key
(``key``) is a ``KeyArray`` holding such data, shape without the trailing 2. Everything here
is ordinary traced code, so keys vmap and jit like any array."""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.config import config
from ..core.ir import Tracer, aval_of, literal
from ..core.pytree import register_node
from ..device.array import Array
from ..lax._convert import as_operand, convert
from ..numpy._core import broadcast_to_shape

U32 = dtypes.uint32
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA


def _u32(v):
    return literal(v, U32)


def _rotl(x, d):
    return lax.bitwise_or(lax.shift_left(x, d),
                          lax.shift_right_logical(x, lax.sub(_u32(32), d)))


def threefry2x32(k1, k2, x1, x2):
    """The Threefry-2x32 hash of the counter pairs (x1, x2) under the key (k1, k2): uint32
    operands, the keys rank 0 (or of the counters' shape). Returns two uint32 arrays.

    The five 4-round blocks are a loop (a fori_loop, as JAX lowers the hash on CPU), not
    unrolled: XLA then fuses what follows the hash as it does JAX's, so the floats computed
    from the bits round as JAX's (an unrolled hash in the same fusion can round them
    differently)."""
    from ..lax import fori_loop
    shape = np.broadcast_shapes(aval_of(x1).shape, aval_of(x2).shape)
    x1, x2 = (broadcast_to_shape(x, shape) for x in (x1, x2))
    ks = (k1, k2, lax.bitwise_xor(lax.bitwise_xor(k1, k2), _u32(_PARITY)))
    x = (lax.add(x1, ks[0]), lax.add(x2, ks[1]))
    rotations = tuple(as_operand(np.array(r, U32)) for r in _ROTATIONS)

    def step(i, state):
        (a, b), ks, rots = state
        for j in range(4):
            r = lax.squeeze(lax.slice(rots[0], start_indices=(j,), limit_indices=(j + 1,),
                                      strides=None), dimensions=(0,))
            a = lax.add(a, b)
            b = lax.bitwise_xor(a, _rotl(b, r))
        i1 = convert(lax.add(i, literal(1, aval_of(i).dtype)), U32)
        x = (lax.add(a, ks[0]), lax.add(lax.add(b, ks[1]), i1))
        return x, ks[1:] + ks[:1], rots[1:] + rots[:1]

    (x1, x2), _, _ = fori_loop(0, 5, step, (x, ks[1:] + ks[:1], rotations))
    return x1, x2


def _halves(key):
    """The two uint32 words of a raw key of shape (2,)."""
    return [lax.squeeze(lax.slice(key, start_indices=(i,), limit_indices=(i + 1,),
                                  strides=None), dimensions=(0,)) for i in (0, 1)]


def _iota_2x32(shape: tuple):
    """(high, low) uint32 words of the row-major index of each element of ``shape`` (the
    high word is a rank-0 zero: shapes have fewer than 2**32 elements here)."""
    n = math.prod(shape)
    if n >= 2 ** 32:
        raise NotImplementedError(f"random arrays of {n} >= 2**32 elements are not supported")
    if not shape:
        return _u32(0), _u32(0)
    lo = lax.reshape(lax.broadcasted_iota(dtype=U32, shape=(n,), dimension=0), new_sizes=shape,
                     dimensions=None)
    return _u32(0), lo


def _pair(b1, b2, shape):
    """Stack two uint32 arrays of ``shape`` on a new trailing axis of size 2."""
    s = tuple(shape) + (1,)
    return lax.concatenate((lax.reshape(b1, new_sizes=s, dimensions=None),
                            lax.reshape(b2, new_sizes=s, dimensions=None)),
                           dimension=len(shape))


def split_data(key, shape: tuple):
    """Raw keys of ``shape`` (+ (2,)) from the raw key ``key``."""
    k1, k2 = _halves(key)
    hi, lo = _iota_2x32(shape)
    b1, b2 = threefry2x32(k1, k2, hi, lo)
    return _pair(b1, b2, shape)


def fold_in_data(key, data):
    """The raw key ``key`` with the uint32 scalar ``data`` hashed in."""
    k1, k2 = _halves(key)
    b1, b2 = threefry2x32(k1, k2, _u32(0), data)
    return _pair(b1, b2, ())


def random_bits(key, bit_width: int, shape: tuple):
    """Uniform random unsigned integers of ``bit_width`` bits and ``shape``."""
    k1, k2 = _halves(key)
    hi, lo = _iota_2x32(shape)
    b1, b2 = threefry2x32(k1, k2, hi, lo)
    if bit_width == 64:
        u64 = dtypes.uint64
        return lax.bitwise_or(lax.shift_left(convert(b1, u64), literal(32, u64)),
                              convert(b2, u64))
    bits = lax.bitwise_xor(b1, b2)
    return bits if bit_width == 32 else convert(bits, np.dtype(f"uint{bit_width}"))


def seed_data(seed):
    """The raw key of an integer seed: (seed >> 32, seed & 0xFFFFFFFF) as uint32 (the high
    word is 0 for seeds of 32 bits or fewer)."""
    a = aval_of(seed)
    hi = convert(lax.shift_right_logical(seed, literal(32, a.dtype, a.weak_type)), U32) \
        if a.dtype.itemsize == 8 else _u32(0)
    return _pair(hi, convert(seed, U32), ())


# ----------------------------------------------------------------------------- typed keys


class KeyDtype:
    """The dtype of typed keys (JAX's ``key<fry>``)."""

    name = "key<fry>"
    impl = "threefry2x32"

    def __repr__(self):
        return self.name

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, KeyDtype) or other == self.name

    def __hash__(self):
        return hash(self.name)


KEY_DTYPE = KeyDtype()


class KeyArray:
    """An array of typed PRNG keys (``random.key``): shape ``data.shape[:-1]``, dtype
    ``key<fry>``; ``random.key_data`` gives the uint32 data. A pytree node over its data,
    so it passes through jit and vmap (batch axes among the key array's own axes)."""

    __slots__ = ("_data",)

    def __init__(self, data):
        self._data = data

    dtype = KEY_DTYPE
    shape = property(lambda self: tuple(aval_of(self._data).shape[:-1]))
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __getitem__(self, idx):
        idx = idx if isinstance(idx, tuple) else (idx,)
        if any(i is Ellipsis for i in idx):
            raise IndexError("indexing a key array with an Ellipsis is not supported")
        return KeyArray(self._data[idx + (slice(None),)])

    def reshape(self, *shape):
        from ..numpy import reshape
        shape = shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape
        return KeyArray(reshape(self._data, tuple(shape) + (2,)))

    def __eq__(self, other):
        from ..numpy import all as all_
        if not isinstance(other, KeyArray):
            return NotImplemented
        return all_(self._data == other._data, axis=-1)

    __hash__ = None

    def __repr__(self):
        if isinstance(self._data, Tracer):
            return f"Traced<key<fry>[{','.join(map(str, self.shape))}]>"
        return f"Array({self.shape}, dtype=key<fry>) overlaying:\n{np.asarray(self._data)}"


register_node(KeyArray, lambda k: ((k._data,), None), lambda _, kids: KeyArray(kids[0]))


def check_key(name: str, key, allow_batched: bool = False):
    """(raw key data, whether the key was typed) of a key argument, with JAX's errors."""
    typed = isinstance(key, KeyArray)
    data = key._data if typed else key
    if not typed and config.legacy_prng_key != "allow":
        msg = ("Legacy uint32 key array passed as key to jax.random function. Please create "
               "keys using jax.random.key(). If use of a raw key array was intended, set "
               'jax_legacy_prng_key="allow".')
        if config.legacy_prng_key == "error":
            raise ValueError(msg)
        warnings.warn(msg, stacklevel=3)
    if not typed:
        if not hasattr(data, "shape") or not hasattr(data, "dtype"):
            raise TypeError("JAX encountered invalid PRNG key data: expected key_data to have "
                            f"ndim, shape, and dtype attributes. Got {key!r}")
        if isinstance(data, np.ndarray) or not isinstance(data, (Array, Tracer)):
            data = as_operand(np.asarray(data) if not isinstance(data, (Array, Tracer)) else data)
        a = aval_of(data)
        if a.shape[-1:] != (2,):
            raise TypeError("JAX encountered invalid PRNG key data: expected key_data.shape to "
                            f"end with (2,); got shape={a.shape} for impl=threefry2x32")
        if a.dtype != U32:
            raise TypeError("JAX encountered invalid PRNG key data: expected key_data.dtype = "
                            f"uint32; got dtype={a.dtype}")
    nd = aval_of(data).ndim - 1
    if not allow_batched and nd:
        raise ValueError(f"{name} accepts a single key, but was given a key array of shape "
                         f"{aval_of(data).shape[:-1] if typed else aval_of(data).shape} != (). "
                         "Use jax.vmap for batching.")
    return data, typed
