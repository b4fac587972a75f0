"""The frontend's side of the C++ call path (jaxlib's PjitFunction, see
runtime/dispatch.py): what it keeps for one compiled signature (``fastpath_data``), and the
frontend's Array and pytree node types registered with its flattening."""
from __future__ import annotations

import functools

from frontend.core import ir as core
from frontend.core.pytree import NodeData
from frontend.device.array import Array, results_from_buffers

from . import runtime
from .executables import InterpretedCompiled, ShardedCompiled

dispatcher = runtime.dispatch.dispatcher
clear_dispatchers = runtime.dispatch.clear_dispatchers
jax_x64_enabled = runtime.dispatch.jax_x64_enabled
dispatch_in_trace = runtime.dispatch.in_trace


def results_aux(outs, out_avals):
    """How the C++ path rebuilds ``outs`` (a pytree of Arrays of ``out_avals``) from the
    output buffers (see frontend.device.array.results_from_buffers); None when its leaves are not
    those Arrays."""
    leaves, td = runtime.dispatch.flatten_up_to(outs, _is_array)
    if len(leaves) != len(out_avals) or any(type(x) is not Array for x in leaves):
        return None
    return (None if runtime.dispatch.is_leaf_treedef(td) else td), tuple(out_avals)


def _is_array(x) -> bool:
    return type(x) is Array


def fastpath_data(compiled, n_in: int, outs, out_avals):
    """What the C++ path keeps to serve later calls of ``compiled`` (an Executable taking
    ``n_in`` arguments, whose results rebuilt were ``outs``); None where only the Python
    path can serve (the interpreter, results that are not Arrays, a mesh's program whose
    arguments the partitioner reordered)."""
    if isinstance(compiled, InterpretedCompiled) or getattr(compiled.exe, "effectful", False):
        return None  # the interpreter / host callbacks never take the C++ call path
    aux = results_aux(outs, out_avals)
    if aux is None:
        return None
    consts = compiled.consts.buffers() if compiled.consts is not None else []
    if isinstance(compiled, ShardedCompiled):
        if not compiled.exe.in_order:
            return None
        return runtime.dispatch.fastpath_data(compiled.exe.loaded, None, n_in, aux, out_avals,
                                              consts, compiled.exe._in_j, compiled.exe._out_j)
    return runtime.dispatch.fastpath_data(compiled.exe.loaded, compiled.device, n_in, aux,
                                          out_avals, consts)


def register_pytree_node(cls, flatten, unflatten) -> None:
    """Let the C++ dispatcher flatten a user's pytree node type as the frontend does (its
    aux data wrapped in a hashable NodeData). A type JAX's own registry already has (the
    user registered it with both) keeps that registration."""
    try:
        runtime.dispatch.register_node(cls, lambda x: _node_flatten(cls, flatten, x),
                                       lambda nd, children: unflatten(nd.aux, list(children)))
    except ValueError:
        pass


def _node_flatten(cls, flatten, x):
    children, aux = flatten(x)
    return tuple(children), NodeData(cls, aux)


@functools.cache
def register_arrays() -> None:
    """Register the frontend's Array with the C++ dispatcher (once): its buffer is the
    child, its aval the static data; results come back as Arrays through
    ``frontend.device.array.results_from_buffers``."""
    runtime.dispatch.register_array_type(Array, "_buf", "aval")
    runtime.dispatch.set_results_builder(results_from_buffers)
    # the C++ path serves no call made under a trace: entering one changes its cache key
    core.trace_hooks.append(lambda t: runtime.dispatch.set_in_trace(t is not core.EVAL))
    runtime.dispatch.set_in_trace(core.current_trace() is not core.EVAL)
