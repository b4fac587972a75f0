"""frontend.scipy.stats: JAX's scipy.stats (the distributions are issue 26's open part: each
missing name says so)."""


def __getattr__(name):
    from ...core import jax_names
    raise jax_names.missing(__name__, name)
