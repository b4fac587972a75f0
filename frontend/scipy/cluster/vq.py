"""frontend.scipy.cluster.vq: ``vq``, each observation's nearest code and its distance.

>>> import numpy as np
>>> from frontend.scipy.cluster.vq import vq
>>> vq(np.float32([[0, 0], [2, 2]]), np.float32([[0, 1], [3, 3]]))
(Array([0, 1], dtype=int32), Array([1.       , 1.4142135], dtype=float32))
"""
from __future__ import annotations

from ... import numpy as fnp
from ...core.ir import aval_of
from ...numpy._core import check_arraylike, promote_dtypes_inexact

__all__ = ["vq"]


def vq(obs, code_book, check_finite=True):
    """(code, distance): for each row of ``obs`` (M, N) the index of the nearest row of
    ``code_book`` (K, N) in Euclidean distance, and that distance (1-D inputs: N = 1)."""
    del check_finite  # (JAX's signature; nothing to check under tracing)
    check_arraylike("scipy.cluster.vq.vq", obs, code_book)
    obs, book = promote_dtypes_inexact("scipy.cluster.vq.vq", obs, code_book, broadcast=False)
    if aval_of(obs).ndim != aval_of(book).ndim:
        raise ValueError("Observation and code_book should have the same rank")
    if aval_of(obs).ndim == 1:
        obs, book = obs[..., None], book[..., None]
    if aval_of(obs).ndim != 2:
        raise ValueError("ndim different than 1 or 2 are not supported")
    dist = fnp.linalg.norm(obs[:, None, :] - book[None, :, :], axis=-1)
    code = fnp.argmin(dist, axis=-1)
    return code, fnp.take_along_axis(dist, code[:, None], axis=-1)[:, 0]


def __getattr__(name):
    from ...core import jax_names
    raise jax_names.missing(__name__, name)
