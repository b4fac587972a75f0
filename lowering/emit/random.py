"""The lowering of ``random_gamma`` (frontend/random/_gamma.py): JAX's rejection sampler,
traced from our own operations and inlined; and of XLA's own generators
(frontend/primitives/rng.py): ``stablehlo.rng_bit_generator`` and ``stablehlo.rng``."""
from __future__ import annotations

import numpy as np

from frontend.core.ir import Aval
from frontend.primitives.rng import rng_bit_generator_p, rng_uniform_p
from frontend.random._gamma import gamma_impl, random_gamma_p


@random_gamma_p.def_lowering
def _random_gamma(ctx, key, a, *, log_space):
    return ctx.lower_fun(gamma_impl, [key, a], log_space=log_space)


_U32X4, _U32X2X2, _U64X2 = (Aval((4,), np.uint32), Aval((2, 2), np.uint32),
                            Aval((2,), np.uint64))
_ALGORITHMS = {0: "DEFAULT", 1: "THREE_FRY", 2: "PHILOX"}


@rng_bit_generator_p.def_lowering
def _rng_bit_generator(ctx, key, *, shape, dtype, algorithm):
    # as JAX: a uint32[4] key goes to XLA as uint64[2] (and back)
    key_aval, bits_aval = ctx.avals_out
    t = ctx.type
    u32 = key_aval.strip_weak() == _U32X4
    if u32:
        key = ctx.op(f"stablehlo.reshape {key} : ({t(_U32X4)}) -> {t(_U32X2X2)}")
        key = ctx.op(f"stablehlo.bitcast_convert {key} : ({t(_U32X2X2)}) -> {t(_U64X2)}")
    alg = _ALGORITHMS[int(algorithm)]
    new_key, bits = ctx.op_results(
        f"stablehlo.rng_bit_generator {key}, algorithm = {alg} : ({t(_U64X2)}) -> "
        f"({t(_U64X2)}, {t(bits_aval)})", 2)
    if u32:
        new_key = ctx.op(f"stablehlo.bitcast_convert {new_key} : ({t(_U64X2)}) -> {t(_U32X2X2)}")
        new_key = ctx.op(f"stablehlo.reshape {new_key} : ({t(_U32X2X2)}) -> {t(_U32X4)}")
    return [new_key, bits]


@rng_uniform_p.def_lowering
def _rng_uniform(ctx, a, b, *, shape):
    (aval,) = ctx.avals_out
    shp = ctx.constant(np.array(shape, np.int64), Aval((len(shape),), np.int64))
    scalar = ctx.type(Aval((), aval.dtype))
    return [ctx.op(f"stablehlo.rng {a}, {b}, {shp}, distribution = UNIFORM : ({scalar}, "
                   f"{scalar}, {ctx.type(Aval((len(shape),), np.int64))}) -> {ctx.type(aval)}")]
