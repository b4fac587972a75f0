"""Fast jit dispatch through the XLA client's C++ call path (jaxlib's PjitFunction).

On a signature it has not seen, the C++ function calls our Python ``cache_miss`` (which
traces, lowers, compiles and runs with vmaplab's own code) and keeps the executable and the
placement we hand back; afterwards it checks signatures, transfers numpy arguments and
executes without Python. Array types of the frontend are registered as one-child pytree
nodes of the dispatch registry, so the C++ side sees their device buffers directly.
"""
from __future__ import annotations

import functools

from jax._src import config as _config
from jax._src import core as _core
from jax._src import tree_util as _tree_util
from jax._src.interpreters import pxla as _pxla
from jax._src.lib import _jax
from jax.sharding import SingleDeviceSharding

_registry = _tree_util.dispatch_registry
_KEY = _pxla.JitGlobalCppCacheKeys(
    donate_argnums=(), donate_argnames=None, device=None, backend=None,
    in_shardings_treedef=None, in_shardings_leaves=None, out_shardings_treedef=None,
    out_shardings_leaves=None, in_layouts_treedef=None, in_layouts_leaves=None,
    out_layouts_treedef=None, out_layouts_leaves=None)


def register_array_type(cls, flatten, unflatten) -> None:
    """Let the C++ dispatcher see through ``cls`` (a wrapper of one device buffer)."""
    _registry.register_node(cls, flatten, unflatten)


def dispatcher(name: str, fun, cache_miss, static_argnums=(), static_argnames=()):
    """A C++ callable: fast path for known signatures, ``cache_miss(*args, **kw)`` otherwise.
    ``cache_miss`` returns ``(outs, fastpath_data or None, False)``."""
    return _jax.pjit(name, fun, cache_miss, list(static_argnums), list(static_argnames), _KEY,
                     _registry,
                     _pxla.cc_shard_arg, _jax.PjitFunctionCache(capacity=256))


@functools.lru_cache(maxsize=64)
def _sharding(device):
    return SingleDeviceSharding(device)


def fastpath_data(loaded_executable, device, n_in: int, outs, out_avals, const_args=(),
                  in_shardings=None, out_shardings=None):
    """What the C++ path keeps for one signature: the executable, the argument placement
    (all on ``device``, or JAX's sharding objects ``in_shardings``/``out_shardings`` of a
    program over several devices, hoisted constants included), the output pytree (whose
    leaves are the device buffers in ``outs``) and the buffers it passes before the
    arguments (hoisted constants)."""
    leaves, out_tree = _registry.flatten(outs)
    avals = [_core.ShapedArray(a.shape, a.dtype, weak_type=a.weak_type) for a in out_avals]
    if len(avals) != len(leaves):
        return None
    n_in += len(const_args)
    if in_shardings is None:
        sh = _sharding(device)
        in_shardings, out_shardings = [sh] * n_in, [sh] * len(avals)
    return _pxla.MeshExecutableFastpathData(
        loaded_executable, out_tree, list(in_shardings), list(out_shardings), avals,
        [True] * len(avals), [True] * n_in, [None] * n_in, list(const_args))


def jax_x64_enabled() -> bool:
    return bool(_config.enable_x64.value)
