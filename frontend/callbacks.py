"""Host callbacks: a Python function called on the host from a program (JAX's
``jax.pure_callback``, ``jax.experimental.io_callback``, ``jax.debug.callback`` and
``jax.debug.print``; the user-facing functions are ``frontend.pure_callback``,
``frontend.experimental.io_callback`` and ``frontend.debug``).

One primitive, ``callback_p``, stands for all of them; its ``kind`` param says which:
"pure" (no side effects: XLA may drop an unused one; vmap per ``vmap_method``; no
derivative), "io" (side effects, kept; ``ordered`` ones run in program order; vmap calls it
once per example), "debug" (no results; vmap calls it once per example; jvp sees only the
primal values). Eagerly the function is called at once (``def_impl``); under jit it becomes
a custom call to jaxlib's host-callback FFI target (lowering/emit/callback.py), and an
ordered one threads a token from the previous ordered callback of its region.
"""
from __future__ import annotations

import itertools

import numpy as np

from .core import dtypes
from .core.ir import Aval, Primitive
from .core.pytree import tree_flatten, tree_unflatten
from .device import seam as _backend
from .device.array import device_put
from .ffi import vmap_method_batching

_ids = itertools.count()
VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                "legacy_vectorized", None)


class HostFunction:
    """The ``callback`` param of ``callback_p``: the user's function and the pytree of its
    arguments ((args, kwargs)); equal only to itself. ``id``: its number in this
    process. ``call(flat_values, result_avals)`` calls it with Arrays and returns the
    flat results as numpy arrays, checked against ``result_avals`` (JAX's errors)."""

    __slots__ = ("fn", "in_tree", "id", "__weakref__")

    def __init__(self, fn, in_tree):
        self.fn = fn
        self.in_tree = in_tree
        self.id = next(_ids)

    def __repr__(self) -> str:
        return getattr(self.fn, "__name__", type(self.fn).__name__)

    def call(self, flat, result_avals) -> list:
        args, kwargs = tree_unflatten(self.in_tree, [device_put(np.asarray(x)) for x in flat])
        out = self.fn(*args, **kwargs)
        if result_avals is None:  # (a debug callback: its return value is ignored)
            return []
        leaves, _ = tree_flatten(out)
        if len(leaves) != len(result_avals):
            raise RuntimeError("Mismatched number of outputs from callback. Expected: "
                               f"{len(result_avals)}, Actual: {len(leaves)}")
        vals = []
        for i, (x, a) in enumerate(zip(leaves, result_avals, strict=True)):
            v = np.asarray(x)
            d = dtypes.canonicalize(v.dtype)
            v = v.astype(d) if d != v.dtype else v
            if v.shape != a.shape:
                raise RuntimeError(f"Incorrect output shape for return value #{i}: Expected: "
                                   f"{a.shape}, Actual: {v.shape}")
            if v.dtype != a.dtype:
                raise RuntimeError(f"Incorrect output dtype for return value #{i}: Expected: "
                                   f"{a.dtype}, Actual: {v.dtype}")
            vals.append(v)
        return vals


# callback_p(*flat args; callback, result_avals, vmap_method, kind, ordered, has_side_effect)
# -> results (``has_side_effect``: kind != "pure", the param dce and cse respect)
callback_p = Primitive("callback", multiple_results=True)


@callback_p.def_abstract_eval
def _callback_abstract_eval(*_avals, result_avals, **_params):
    return list(result_avals)


@callback_p.def_impl
def _callback_impl(*args, callback, result_avals, kind, **_params):
    outs = callback.call(args, None if kind == "debug" else result_avals)
    return [device_put(v) for v in outs]


@callback_p.def_jvp
def _callback_jvp(primals, _tangents, *, kind, **params):
    if kind == "pure":
        raise ValueError("Pure callbacks do not support JVP. Please use `jax.custom_jvp` to "
                         "use callbacks while taking gradients.")
    if kind == "io":
        raise ValueError("IO callbacks do not support JVP.")
    return callback_p.bind(*primals, kind=kind, **params), []  # (debug: the primal values)


_batch = vmap_method_batching(callback_p, lambda params: (
    f" (callback {params['callback']!r}: pass vmap_method= to pure_callback)"))


@callback_p.def_batching
def _callback_batch(args, dims, *, kind, ordered, **params):
    # every result gets the batch axis at 0
    if kind == "io" and ordered:
        raise ValueError("Cannot `vmap` ordered IO callback.")
    return _batch(args, dims, kind=kind, ordered=ordered, **params)


def bind_callback(fn, result_shape_dtypes, args, kwargs, *, kind: str, ordered: bool = False,
                  vmap_method: str | None = None):
    """Bind ``callback_p`` for ``fn(*args, **kwargs)`` returning ``result_shape_dtypes`` (a
    pytree of objects with ``shape`` and ``dtype``, or None); the results as that pytree."""
    if not callable(fn):
        raise TypeError(f"callback must be callable, got {type(fn).__name__}")
    if vmap_method not in VMAP_METHODS:
        raise ValueError(f"vmap_method must be on of the allowed methods {list(VMAP_METHODS)}, "
                         f"but got: {vmap_method}")
    flat, in_tree = tree_flatten((tuple(args), dict(kwargs)))
    res_leaves, out_tree = tree_flatten(result_shape_dtypes)
    avals = []
    for r in res_leaves:
        d = np.dtype(r.dtype)
        if dtypes.canonicalize(d) != d:
            raise ValueError("result_shape_dtypes cannot specify 64-bit types when "
                             "`jax_enable_x64` is disabled")
        avals.append(Aval(tuple(r.shape), d))
    outs = callback_p.bind(*flat, callback=HostFunction(fn, in_tree), result_avals=tuple(avals),
                           vmap_method=vmap_method, kind=kind, ordered=bool(ordered),
                           has_side_effect=kind != "pure")
    return tree_unflatten(out_tree, list(outs))


def pure_callback(callback, result_shape_dtypes, *args, sharding=None, vmap_method=None,
                  **kwargs):
    """Call ``callback(*args, **kwargs)`` on the host, as ``jax.pure_callback``: a function
    without side effects (XLA may drop a call whose results are unused) returning arrays of
    ``result_shape_dtypes`` (a pytree of ``ShapeDtypeStruct``-like objects). Arguments reach
    it as Arrays. Under vmap, ``vmap_method`` says how it is called: "sequential" (once per
    example, in a loop), "sequential_unrolled", "expand_dims" (once, unbatched arguments
    with a size-1 leading axis), "broadcast_all" (once, every argument with the batch axis),
    "legacy_vectorized" (once, unbatched arguments as they are); None makes vmap an error.
    It has no derivative: wrap it in ``custom_jvp``/``custom_vjp`` to differentiate.

    >>> import numpy as np
    >>> import frontend as fe
    >>> def f(x):
    ...     return fe.pure_callback(np.sin, fe.ShapeDtypeStruct(x.shape, x.dtype), x)
    >>> fe.jit(f)(np.zeros(2, np.float32))
    Array([0., 0.], dtype=float32)
    """
    if sharding is not None:
        raise NotImplementedError("pure_callback: sharding= is not supported; the callback "
                                  "runs once, on the whole value")
    return bind_callback(callback, result_shape_dtypes, args, kwargs, kind="pure",
                         vmap_method=vmap_method)


def io_callback(callback, result_shape_dtypes, *args, sharding=None, ordered: bool = False,
                **kwargs):
    """Call ``callback(*args, **kwargs)`` on the host for its side effects, as
    ``jax.experimental.io_callback``: never dropped; with ``ordered=True`` the calls of a
    program run in program order (and cannot be vmapped); unordered ones are called once
    per example under vmap. No derivative."""
    if sharding is not None:
        raise NotImplementedError("io_callback: sharding= is not supported")
    return bind_callback(callback, result_shape_dtypes, args, kwargs, kind="io",
                         ordered=ordered, vmap_method="sequential")


def debug_callback(callback, *args, ordered: bool = False, partitioned: bool = False,
                   **kwargs) -> None:
    """Call ``callback(*args, **kwargs)`` on the host for its side effects, as
    ``jax.debug.callback``: under vmap once per example, under grad with the primal values;
    its return value is ignored. ``partitioned`` (JAX's: call it per shard) is accepted; a
    program's callback runs once, on whole values."""
    del partitioned
    bind_callback(callback, None, args, kwargs, kind="debug", ordered=ordered,
                  vmap_method="sequential_unrolled")


def debug_print(fmt: str, *args, ordered: bool = False, **kwargs) -> None:
    """Print ``fmt.format(*args, **kwargs)`` on the host with the values the program
    computes, as ``jax.debug.print``."""
    if not isinstance(fmt, str):
        raise TypeError(f"debug.print: fmt must be a str, got {type(fmt).__name__}")

    def _print(*a, **k):
        print(fmt.format(*a, **k))
    debug_callback(_print, *args, ordered=ordered, **kwargs)


def effects_barrier() -> None:
    """Wait until the callbacks of every program run so far have run (JAX's
    ``effects_barrier``)."""
    _backend.get().effects_barrier()


__all__ = ["callback_p", "debug_callback", "debug_print", "effects_barrier", "io_callback",
           "pure_callback"]
