"""The lowering of ``random_gamma`` (frontend/random/_gamma.py): JAX's rejection sampler,
traced from our own operations and inlined."""
from __future__ import annotations

from frontend.random._gamma import gamma_impl, random_gamma_p


@random_gamma_p.def_lowering
def _random_gamma(ctx, key, a, *, log_space):
    return ctx.lower_fun(gamma_impl, [key, a], log_space=log_space)
