"""XLA's random number ops (``rng_bit_generator``, ``rng_uniform``) as JAX's lax has them;
the primitives are in frontend.primitives.rng. Most programs want frontend.random."""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..primitives.rng import RandomAlgorithm, rng_bit_generator_p, rng_uniform_p
from ._convert import as_operand


def rng_bit_generator(key, shape, dtype=np.uint32, algorithm=RandomAlgorithm.RNG_DEFAULT, *,
                      out_sharding=None):
    """``(new_key, bits)``: uniformly distributed bits of ``shape`` and an unsigned ``dtype``
    from XLA's generator (``algorithm``) on a ``uint32[4]`` key, bit-equal to
    ``jax.lax.rng_bit_generator`` on the same XLA.

    >>> import numpy as np
    >>> from frontend import lax
    >>> new_key, bits = lax.rng_bit_generator(np.uint32([1, 2, 3, 4]), (2,))
    >>> bits.dtype, new_key.shape
    (dtype('uint32'), (4,))
    """
    if out_sharding is not None:
        raise NotImplementedError("rng_bit_generator: out_sharding is not supported")
    d = np.dtype(dtype)
    if d not in (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64)):
        raise TypeError(f"rng_bit_generator: unsupported dtype {d}")
    return tuple(rng_bit_generator_p.bind(as_operand(key), shape=tuple(map(int, shape)),
                                          dtype=dtypes.canonicalize(d),
                                          algorithm=RandomAlgorithm(algorithm)))


def rng_uniform(a, b, shape):
    """Uniform numbers in ``[a, b)`` from XLA's stateful generator (``stablehlo.rng``), as
    ``jax.lax.rng_uniform``; prefer frontend.random."""
    return rng_uniform_p.bind(as_operand(a), as_operand(b), shape=tuple(map(int, shape)))


__all__ = ["RandomAlgorithm", "rng_bit_generator", "rng_uniform"]
