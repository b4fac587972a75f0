"""XLA's own random number ops, as JAX exposes them (frontend.random is threefry, written
with ordinary primitives; these are the platform's generators, bit-equal to JAX's on the
same XLA):

- ``rng_bit_generator(key; shape, dtype, algorithm)`` -> ``(new_key, bits)``:
  ``stablehlo.rng_bit_generator`` on a ``uint32[4]`` key (passed to XLA as ``uint64[2]``,
  as JAX does) or a ``uint64[2]`` key; ``algorithm`` a ``RandomAlgorithm``. Batching is
  JAX's: the first lane's key draws the bits of every lane, and only its key advances.
- ``rng_uniform(a, b; shape)``: ``stablehlo.rng`` with the UNIFORM distribution (stateful in
  XLA; no batching or derivative, as in JAX).
"""
from __future__ import annotations

import enum

import numpy as np

from ..core.ir import Aval, Primitive
from ..interpreters import batching
from .indexing import dynamic_update_slice_p
from .padding import slice_p
from .shape import moveaxis, reshape_p, zero_jvp


class RandomAlgorithm(enum.IntEnum):
    """Which PRNG algorithm ``rng_bit_generator`` uses (JAX's values)."""

    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2

    def __str__(self) -> str:
        return self.name


_BIT_DTYPES = tuple(np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
_KEYS = (Aval((4,), np.dtype(np.uint32)), Aval((2,), np.dtype(np.uint64)))

rng_bit_generator_p = Primitive("rng_bit_generator", multiple_results=True)


@rng_bit_generator_p.def_abstract_eval
def _rng_bit_generator_abstract_eval(key, *, shape, dtype, algorithm):
    if key.strip_weak() not in _KEYS:
        raise TypeError(f"rng_bit_generator: the key must be uint32[4] or uint64[2], got "
                        f"{key.dtype.name}{list(key.shape)}")
    if np.dtype(dtype) not in _BIT_DTYPES:
        raise TypeError(f"rng_bit_generator: unsupported dtype {np.dtype(dtype)}")
    return [key, Aval(tuple(shape), np.dtype(dtype))]


@rng_bit_generator_p.def_batching
def _rng_bit_generator_batch(args, dims, *, shape, dtype, algorithm):
    # JAX's rule: lane 0's key draws (batch, *shape) bits; only lane 0's key advances.
    # new keys and bits batched at 0
    (keys,), (d,) = args, dims
    params = dict(shape=shape, dtype=dtype, algorithm=algorithm)
    if d is None:
        return rng_bit_generator_p.bind(keys, **params), [None, None]
    keys = moveaxis(keys, d, 0)
    size = batching.shape(keys)[0]
    n = batching.shape(keys)[1]
    key = reshape_p.bind(slice_p.bind(keys, start_indices=(0, 0), limit_indices=(1, n),
                                      strides=None), new_sizes=(n,), dimensions=None)
    new_key, bits = rng_bit_generator_p.bind(key, **{**params, "shape": (size, *shape)})
    zero = np.int32(0)
    new_keys = dynamic_update_slice_p.bind(
        keys, reshape_p.bind(new_key, new_sizes=(1, n), dimensions=None), zero, zero)
    return [new_keys, bits], [0, 0]


rng_bit_generator_p.def_jvp(zero_jvp(rng_bit_generator_p))

rng_uniform_p = Primitive("rng_uniform")


@rng_uniform_p.def_abstract_eval
def _rng_uniform_abstract_eval(a, b, *, shape):
    if a.dtype != b.dtype:
        raise ValueError(f"Arguments to rng_uniform must have identical dtypes, got {a.dtype} "
                         f"and {b.dtype}.")
    if a.shape != () or b.shape != ():
        raise ValueError(f"Arguments to rng_uniform must be scalars; got shapes {a.shape} and "
                         f"{b.shape}.")
    return Aval(tuple(shape), a.dtype, a.weak_type and b.weak_type)


@rng_uniform_p.def_batching
def _rng_uniform_batch(args, dims, *, shape):
    # unbatched bounds only (JAX has no batching rule for it at all)
    if any(d is not None for d in dims):
        raise NotImplementedError("Batching rule for 'rng_uniform' not implemented")
    return rng_uniform_p.bind(*args, shape=shape), None


@rng_uniform_p.def_jvp
def _rng_uniform_jvp(primals, tangents, *, shape):
    raise NotImplementedError("Differentiation rule for 'rng_uniform' not implemented")


__all__ = ["RandomAlgorithm", "rng_bit_generator_p", "rng_uniform_p"]
