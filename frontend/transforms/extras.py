"""The smaller transformations and helpers of JAX's top level: ``typeof``,
``ensure_compile_time_eval``, ``linear_transpose``, ``closure_convert``,
``custom_gradient`` and ``clear_caches``."""
from __future__ import annotations

import contextlib
import functools
from typing import Any

import numpy as np

from .. import sharding as fs
from ..core.arguments import leaf_aval
from ..core.dtypes import canonicalize
from ..core.graph_utils import closure_convert as _closure_convert_graph
from ..core.ir import (
    EVAL,
    Aval,
    Primitive,
    Trace,
    Tracer,
    _trace_var,
    aval_of,
    eval_graph,
    name_stack,
    reset_current,
    set_current,
)
from ..core.pytree import broadcast_prefix, register_node, tree_flatten, tree_unflatten
from ..core.tracing import trace_pytree
from ..device.array import Array, device_put
from ..device.queries import process_count
from ..interpreters.ad_util import UndefinedPrimal, Zero
from ..interpreters.transpose import backward_pass
from ..lax._sharding import with_sharding_constraint
from ..primitives.shape import instantiate_zeros
from .custom_derivatives import custom_vjp
from .grad import _argnums_partial, vjp
from .jit import jit


def typeof(x: Any) -> Aval:
    """The abstract value (shape, dtype, weak type) of ``x``: an array, a tracer or a Python
    scalar (``jax.typeof``; ``fe.ShapedArray``)."""
    return leaf_aval(x)


# ----------------------------------------------------------------------------- compile-time eval


class _CompileTimeEvalTrace(Trace):
    """Under ``ensure_compile_time_eval``: an operation on concrete values runs now, on the
    device; one on a tracer is handed to the trace that was current (staged as usual)."""

    def process(self, prim: Primitive, args, params):
        if any(isinstance(a, Tracer) for a in args):
            token = set_current(self.parent)
            try:
                return prim.bind(*args, **params)
            finally:
                reset_current(token)
        return EVAL.process(prim, args, params)

    def const(self, x, weak: bool = False):
        return EVAL.const(x, weak)


@contextlib.contextmanager
def ensure_compile_time_eval():
    """Inside the with-block, operations on concrete values (not on the arguments of the
    function being traced) are computed while tracing, so their results are concrete:
    usable in Python control flow or as shapes, as ``jax.ensure_compile_time_eval``.

    >>> import frontend as fe, frontend.numpy as fnp
    >>> @fe.jit
    ... def f(x):
    ...     with fe.ensure_compile_time_eval():
    ...         n = int(fnp.arange(4).sum())  # concrete: 6
    ...     return x * n
    >>> f(1.0)
    Array(6., dtype=float32, weak_type=True)
    """
    parent = _trace_var.get()
    if parent is EVAL:
        yield
        return
    token = set_current(_CompileTimeEvalTrace(parent))
    try:
        yield
    finally:
        reset_current(token)


# ----------------------------------------------------------------------------- names


@contextlib.contextmanager
def named_scope(name: str):
    """Operations made inside carry ``name`` (nested scopes: "outer/inner") into the
    StableHLO locations (``Lowered.as_text(debug_info=True)``) and XLA's ``op_name``
    metadata, as ``jax.named_scope``."""
    if not isinstance(name, str):
        raise TypeError("named_scope name argument must be a string.")
    outer = name_stack.get()
    token = name_stack.set(f"{outer}/{name}" if outer else name)
    try:
        yield
    finally:
        name_stack.reset(token)


def named_call(fun, *, name: str | None = None):
    """``fun`` whose operations are made under ``named_scope(name)`` (default: its name),
    as ``jax.named_call``."""
    scope = name if name is not None else getattr(fun, "__name__", "fun")

    @functools.wraps(fun)
    def call(*args, **kwargs):
        with named_scope(scope):
            return fun(*args, **kwargs)
    return call


# ----------------------------------------------------------------------------- linear_transpose


def linear_transpose(fun, *primals, reduce_axes=()):
    """The transpose of the linear function ``fun`` at inputs shaped like ``primals``
    (arrays or ShapeDtypeStructs): ``f_t(cotangent)`` returns a tuple of cotangents of the
    inputs, as ``jax.linear_transpose``.

    >>> import frontend as fe, frontend.numpy as fnp
    >>> fe.linear_transpose(lambda x: 2 * x, fnp.ones(2))(fnp.ones(2))
    (Array([2., 2.], dtype=float32),)
    """
    if reduce_axes:
        raise NotImplementedError("reduce_axes argument to transpose is deprecated")
    leaves, in_td = tree_flatten(primals)
    in_avals = [leaf_aval(x) for x in leaves]
    g, out_td = trace_pytree(fun, in_td, in_avals)
    out_avals = list(g.out_avals)
    kinds = [a.dtype.kind for a in in_avals + out_avals]
    if not all(k in "fc" for k in kinds) and not all(k in "iu" for k in kinds):
        raise TypeError("linear_transpose only supports [float or complex] -> [float or "
                        f"complex], and integer -> integer functions, but got "
                        f"{tuple(in_avals)} -> {tuple(out_avals)}.")

    @functools.wraps(fun)
    def transposed(out_cotangent):
        c_leaves, c_td = tree_flatten(out_cotangent)
        if c_td != out_td:
            raise TypeError("cotangent tree does not match function output, expected "
                            f"PyTreeDef({out_td}) but got PyTreeDef({c_td})")
        if [(a.shape, a.dtype) for a in map(leaf_aval, c_leaves)] != \
                [(a.shape, a.dtype) for a in out_avals]:
            raise TypeError("cotangent type does not match function output, expected "
                            f"{tuple(out_avals)} but got {c_leaves}")
        cts = backward_pass(g, g.consts, [UndefinedPrimal(a) for a in in_avals], c_leaves)
        cts = [instantiate_zeros(Zero(a) if c is None or type(c) is Zero else c)
               for c, a in zip(cts, in_avals, strict=True)]
        return tuple(tree_unflatten(in_td, cts))

    return transposed


# ----------------------------------------------------------------------------- closures


def closure_convert(fun, *example_args):
    """``(converted, consts)``: ``converted(*args, *consts)`` computes ``fun(*args)`` with
    the traced values ``fun`` closes over (``consts``) as explicit arguments, so a custom
    derivative rule may take them (``jax.closure_convert``)."""
    leaves, in_td = tree_flatten(example_args)
    g, out_td = trace_pytree(fun, in_td, [leaf_aval(x) for x in leaves])
    g, consts = _closure_convert_graph(g)
    nc = len(consts)

    def converted(*args):
        a_leaves, _ = tree_flatten(args[:len(args) - nc])
        return tree_unflatten(out_td, eval_graph(g, (), [*args[len(args) - nc:], *a_leaves]))

    return converted, list(consts)


class _Rule:
    """A function of one pytree argument (a vjp), traced into a graph whose captured values
    (residuals) are explicit: the residual arrays are its pytree children, the graph static
    data, so it passes in and out of ``jit`` (as JAX's vjp functions do)."""

    def __init__(self, graph, consts, out_td, tuple_out):
        self.graph, self.consts, self.out_td, self.tuple_out = graph, consts, out_td, tuple_out

    @classmethod
    def trace(cls, fn, example, tuple_out: bool):
        """``fn`` traced at arguments shaped like ``example``; calls return a tuple when
        ``tuple_out`` (a non-tuple result becomes a 1-tuple)."""
        leaves, td = tree_flatten((example,))
        g, out_td = trace_pytree(fn, td, [aval_of(x) for x in leaves])
        g, consts = _closure_convert_graph(g)
        return cls(g, list(consts), out_td, tuple_out)

    def __call__(self, ct):
        leaves, _ = tree_flatten(ct)
        out = tree_unflatten(self.out_td, eval_graph(self.graph, (), [*self.consts, *leaves]))
        return (out,) if self.tuple_out and not isinstance(out, tuple) else out


register_node(_Rule, lambda r: (tuple(r.consts), (r.graph, r.out_td, r.tuple_out)),
              lambda aux, consts: _Rule(aux[0], list(consts), *aux[1:]))


def custom_gradient(fun):
    """A function with a custom gradient: ``fun(*args)`` returns ``(value, vjp)`` where
    ``vjp(cotangent)`` gives the cotangents of the arguments, as ``jax.custom_gradient``.

    >>> import frontend as fe, frontend.numpy as fnp
    >>> @fe.custom_gradient
    ... def f(x):
    ...     return x ** 2, lambda g: (g * 3.0,)
    >>> fe.grad(f)(2.0)
    Array(3., dtype=float32, weak_type=True)
    """
    @custom_vjp
    def wrapped(*args, **kwargs):
        return fun(*args, **kwargs)[0]

    def fwd(*args, **kwargs):
        ans, rule = fun(*args, **kwargs)
        return ans, _Rule.trace(rule, ans, tuple_out=True)

    wrapped.defvjp(fwd, lambda rule, ct: rule(ct))
    return wrapped


def fwd_and_bwd(fun, argnums, has_aux: bool = False, jitted: bool = True):
    """``(fwd, bwd)``: ``fwd(*args)`` is ``vjp`` of ``fun`` with respect to the ``argnums``
    arguments (``(out, residuals)``, plus ``aux`` with ``has_aux``); ``bwd(residuals, ct)``
    their cotangents (one value for an int ``argnums``), as ``jax.fwd_and_bwd``. With
    ``jitted`` both are jitted: residuals pass between them, so ``bwd`` compiles once."""
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")

    def fwd(*args):
        f, dyn = _argnums_partial(fun, argnums, args, {}, api="fwd_and_bwd")
        out = vjp(f, *dyn, has_aux=has_aux)
        res = _Rule.trace(out[1], out[0], tuple_out=False)
        return (out[0], res, *out[2:])

    def bwd(residuals, outgrad):
        g = residuals(outgrad)
        return g[0] if isinstance(argnums, int) else g

    return (jit(fwd), jit(bwd)) if jitted else (fwd, bwd)


# ----------------------------------------------------------------------------- arrays from pieces


def _assemble(shape, sharding, pieces, dtype, what: str) -> Array:
    """The global Array of ``shape`` laid out as ``sharding`` whose shard on each of this
    process's devices is ``pieces[device]`` (host or device data of the shard's shape)."""
    s = fs.resolve(sharding, what)
    shape = tuple(shape)
    full = None
    for d, idx in s.addressable_devices_indices_map(shape).items():
        v = np.asarray(pieces(d, idx))
        want = s.shard_shape(shape) if not isinstance(s, fs.SingleDeviceSharding) else shape
        if v.shape != tuple(want):
            raise ValueError(f"Expected shard shape {tuple(want)} doesn't match the single "
                             f"device array shape {v.shape}. Shape of Array is "
                             f"{canonicalize(np.dtype(dtype or v.dtype)).name}{list(shape)} "
                             f"with sharding "
                             f"{s!r}")
        if full is None:
            full = np.zeros(shape, dtype or v.dtype)
        full[idx] = v
    if full is None:
        raise ValueError(f"If the Array has no addressable shards, `dtype` must be provided "
                         f"via the `dtype` argument to `jax.{what}`.")
    return device_put(full, s if not isinstance(s, fs.SingleDeviceSharding) else s._device)


def make_array_from_callback(shape, sharding, data_callback, dtype=None) -> Array:
    """The Array of ``shape`` laid out as ``sharding`` whose shard on each device is
    ``data_callback(index)`` (index: the tuple of slices of the shard), as
    ``jax.make_array_from_callback``."""
    return _assemble(shape, sharding, lambda _d, idx: data_callback(idx), dtype,
                     "make_array_from_callback")


def make_array_from_single_device_arrays(shape, sharding, arrays, *, dtype=None) -> Array:
    """The Array of ``shape`` laid out as ``sharding`` from one array per addressable device
    (each on its device, in the order of the sharding's devices), as
    ``jax.make_array_from_single_device_arrays``."""
    arrays = list(arrays)
    by_device = {}
    for a in arrays:
        devs = a.devices() if isinstance(a, Array) else ()
        for d in devs:
            by_device[d] = a
    if not arrays and dtype is None:
        raise ValueError("If the Array has no addressable shards, `dtype` must be provided via "
                         "the `dtype` argument to `jax.make_array_from_single_device_arrays`.")
    order = iter(arrays)
    return _assemble(shape, sharding, lambda d, _idx: by_device.get(d) if d in by_device
                     else next(order), dtype, "make_array_from_single_device_arrays")


def make_array_from_process_local_data(sharding, local_data, global_shape=None) -> Array:
    """The global Array laid out as ``sharding`` from this process's data, as
    ``jax.make_array_from_process_local_data``. With one process its data is the whole
    array; several processes are not supported here (each would pass its slice)."""
    local = np.asarray(local_data)
    if global_shape is not None and tuple(global_shape) != local.shape:
        raise ValueError(f"global_shape {tuple(global_shape)} differs from the local data's "
                         f"shape {local.shape}: with one process they are the same array")
    if process_count() > 1:
        raise NotImplementedError("make_array_from_process_local_data with several processes "
                                  "is not supported by vmaplab: use make_array_from_callback")
    return device_put(local, fs.resolve(sharding, "make_array_from_process_local_data"))


def reshard(xs, out_shardings):
    """``xs`` (a pytree) laid out as ``out_shardings`` (a Sharding or PartitionSpec, or a
    pytree prefix of them), as ``jax.reshard``: arrays are moved (``device_put``), traced
    values constrained (``lax.with_sharding_constraint``)."""
    leaves, td = tree_flatten(xs)
    specs = broadcast_prefix(out_shardings, td, "reshard out_shardings",
                             is_leaf=lambda p: isinstance(p, fs.PartitionSpec))
    out = [with_sharding_constraint(x, s) if isinstance(x, Tracer) else device_put(x, s)
           for x, s in zip(leaves, specs, strict=True)]
    return tree_unflatten(td, out)


def live_arrays(platform=None) -> list:
    """The Arrays alive in this process (on ``platform``'s devices, default: all), as
    ``jax.live_arrays``; found through the garbage collector's objects (slow: for
    debugging)."""
    import gc
    return [a for a in gc.get_objects() if type(a) is Array and (
        platform is None or any(d.platform == platform for d in a.devices()))]


def clear_caches() -> None:
    """Forget every compiled program of this process (jitted signatures, eager operations),
    as ``jax.clear_caches``: the next calls trace and compile again."""
    from ..device.array import _forget_eager_programs
    from .jit import _forget_programs
    _forget_programs()
    _forget_eager_programs()




def copy_to_host_async(x):
    """Start copying every array of the pytree ``x`` to the host (a later ``np.asarray``
    then waits less), as ``jax.copy_to_host_async``; returns ``x``."""
    for v in tree_flatten(x)[0]:
        if isinstance(v, Array):
            v._buf.copy_to_host_async()
    return x


__all__ = ["named_call", "named_scope", "live_arrays", "reshard", "make_array_from_callback", "make_array_from_process_local_data",
           "make_array_from_single_device_arrays", "clear_caches", "closure_convert", "copy_to_host_async", "custom_gradient",
           "ensure_compile_time_eval", "fwd_and_bwd", "linear_transpose", "typeof"]
