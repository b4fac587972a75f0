"""Fast jit dispatch through the XLA client's C++ call path (jaxlib's PjitFunction).

On a signature it has not seen, the C++ function calls our Python ``cache_miss`` (which
traces, lowers, compiles and runs with vmaplab's own code) and keeps the executable and the
placement we hand back; afterwards it checks signatures, transfers numpy arguments and
executes without Python. The frontend's Array is a dataclass node of the dispatch registry
(its buffer a child, its aval static), which the C++ side flattens without calling Python;
the results of a call are one ``Results`` node, built by one Python call per call.

Everything the C++ function takes is made here from jaxlib alone: vmaplab's own pytree
registry, its jit-key flag, cache key and argument fallback; JAX is not imported.
"""
from __future__ import annotations

import weakref
from typing import Any, NamedTuple

import numpy as np
from jaxlib import _jax

from . import spmd
from .xla import _WIDE, aval, single_device_sharding, to_device, x64_state

# vmaplab's registry of the types the C++ path flattens (JAX's containers, our Array)
_registry = _jax.pytree.PyTreeRegistry(enable_none=True, enable_tuple=True,
                                       enable_namedtuple=True, enable_list=True,
                                       enable_dict=True)

# Part of every C++ signature: set while a vmaplab trace is current, so that the C++ path
# never serves a call made under a transformation (those are traced inline, as JAX's).
_in_trace = _jax.config.Config("vmaplab_in_trace", False, include_in_jit_key=True)


def set_in_trace(flag: bool) -> None:
    _in_trace.set_local(flag)


def in_trace() -> bool:
    return _in_trace.value


# the C++ cache's global key (hashable): one kind of function here
_KEY = ("vmaplab",)


_SingleDevice = _jax.SingleDeviceSharding


def _shard_arg(x, sharding, _layout):
    """The C++ path's fallback for an argument that is not a device buffer laid out as the
    program wants (numpy arrays, Python scalars, buffers elsewhere): one placed buffer."""
    if type(x) is np.ndarray and type(sharding) is _SingleDevice and x.dtype not in _WIDE:
        return to_device(x, sharding._device)  # the common case, one transfer
    return spmd.place([x], [sharding])[0]


def register_node(cls, flatten, unflatten) -> None:
    """Let the C++ dispatcher flatten ``cls`` with ``flatten(x) -> (children, aux)`` and
    rebuild it with ``unflatten(aux, children)``."""
    _registry.register_node(cls, flatten, unflatten)


def register_array_type(cls, buffer_field: str, meta_field: str) -> None:
    """Let the C++ dispatcher see through ``cls``, a wrapper of one device buffer (attribute
    ``buffer_field``) with hashable static data (``meta_field``): it reads both attributes
    itself (and would rebuild one as ``cls(**{buffer_field: b, meta_field: m})``)."""
    _registry.register_dataclass_node(cls, [buffer_field], [meta_field])


class Results:
    """The results of a fast-path call as ONE pytree node: the children are the output
    buffers; ``build(aux, buffers)`` (see ``set_results_builder``) makes what the caller
    gets, so the C++ path calls Python once per call, not once per output."""

    __slots__ = ("aux", "bufs")

    def __init__(self, aux, bufs):
        self.aux, self.bufs = aux, bufs


def set_results_builder(build) -> None:
    _registry.register_node(Results, lambda r: (r.bufs, r.aux), build)


def flatten_up_to(tree, is_leaf):
    """(leaves, treedef) of ``tree`` in the dispatch registry, stopping at ``is_leaf``."""
    return _registry.flatten(tree, is_leaf)


def is_leaf_treedef(td) -> bool:
    return td.num_nodes == 1 and td.num_leaves == 1


_dispatchers: weakref.WeakSet = weakref.WeakSet()  # every live C++ callable we made


def dispatcher(name: str, fun, cache_miss, static_argnums=(), static_argnames=()):
    """A C++ callable: fast path for known signatures, ``cache_miss(*args, **kw)`` otherwise.
    ``cache_miss`` returns ``(outs, fastpath_data or None, False)``."""
    x64_state()  # the C++ side reads it
    f = _jax.pjit(name, fun, cache_miss, list(static_argnums), list(static_argnames), _KEY,
                  _registry, _shard_arg, _jax.PjitFunctionCache(capacity=256))
    _dispatchers.add(f)
    return f


def clear_dispatchers() -> None:
    """Forget the signatures every C++ callable has seen (they come back to ``cache_miss``)."""
    for f in list(_dispatchers):
        f._clear_cache()


class _FastpathData(NamedTuple):
    """What jaxlib's C++ call path reads of one compiled signature (JAX's field names)."""
    xla_executable: Any
    out_pytree_def: Any
    in_shardings: list
    out_shardings: list
    out_avals: list
    out_committed: list
    kept_var_bitvec: list
    in_device_local_layouts: list
    const_args: list


def fastpath_data(loaded_executable, device, n_in: int, results_aux, out_avals, const_args=(),
                  in_shardings=None, out_shardings=None):
    """What the C++ path keeps for one signature: the executable, the argument placement
    (all on ``device``, or JAX's sharding objects ``in_shardings``/``out_shardings`` of a
    program over several devices, hoisted constants included), the results (one
    ``Results`` node with aux data ``results_aux`` over the output buffers) and the buffers
    it passes before the arguments (hoisted constants)."""
    avals = [aval(a.shape, a.dtype, a.weak_type) for a in out_avals]
    out_tree = _registry.flatten(Results(results_aux, (0,) * len(avals)))[1]
    n_in += len(const_args)
    if in_shardings is None:
        sh = single_device_sharding(device)
        in_shardings, out_shardings = [sh] * n_in, [sh] * len(avals)
    return _FastpathData(
        loaded_executable, out_tree, list(in_shardings), list(out_shardings), avals,
        [True] * len(avals), [True] * n_in, [None] * n_in, list(const_args))


def jax_x64_enabled() -> bool:
    """The 64-bit flag jaxlib's C++ path canonicalizes arguments by (JAX's when loaded)."""
    return bool(x64_state().value)
