"""Eager fusion: numpy-style library functions that, called eagerly on Arrays, run as ONE
compiled executable per signature (as JAX's jitted numpy functions) instead of one per
primitive (``eager_fused``, ``eager_jit``)."""
from __future__ import annotations

import functools

import numpy as np

from ..core.ir import EVAL, Tracer, _trace_var
from ..core.params import param_key
from ..core.tracing import trace_graph
from .array import Array, eager_fn, eager_fns


def eager_fused(n_arrays: int):
    """Decorate a numpy-style function whose first ``n_arrays`` positional arguments are
    arrays and whose other arguments are static: called eagerly on Arrays it runs as ONE
    compiled executable per signature (as JAX's jitted numpy functions), not one per
    primitive; otherwise (under a transformation, with Python scalars or host arrays, or an
    unhashable static argument) it is an ordinary call."""
    def wrap(fun):
        @functools.wraps(fun)
        def fused(*args, **kwargs):
            if _trace_var.get() is not EVAL or len(args) < n_arrays:
                return fun(*args, **kwargs)
            for a in args[:n_arrays]:
                if type(a) is not Array:
                    return fun(*args, **kwargs)
            if len(args) == n_arrays and not kwargs:
                # the common case: operands only, seen before (``fun`` is _run_fused's key)
                run = eager_fns.get(fun)
                if run is not None:
                    return run(*args)
            return _run_fused(fun, args, kwargs, range(n_arrays))
        return fused
    return wrap


def eager_jit(fun):
    """Decorate a function whose Array positional arguments are operands and whose other
    arguments (Python scalars, shapes, dtypes, keywords) are static: called eagerly it runs
    as ONE compiled executable per static values and operand signature (as a jitted
    function with static arguments); under a transformation, or with a host array or an
    unhashable static argument, it is an ordinary call."""
    @functools.wraps(fun)
    def fused(*args, **kwargs):
        if _trace_var.get() is not EVAL:
            return fun(*args, **kwargs)
        idx = [i for i, a in enumerate(args) if type(a) is Array]
        if len(idx) < len(args) and any(isinstance(a, (np.ndarray, Tracer)) for a in args):
            return fun(*args, **kwargs)
        return _run_fused(fun, args, kwargs, idx)
    return fused


def _run_fused(fun, args, kwargs, idx):
    """fun(*args, **kwargs) as one executable whose operands are ``args[i]`` for i in idx
    (Arrays); the other arguments are baked into the graph and its cache key."""
    n = len(args)
    if len(idx) == n and not kwargs:  # the common case: all operands
        key = fun
        static = ()
    else:
        idx = tuple(idx)
        static = tuple((i, a) for i, a in enumerate(args) if i not in idx)
        try:
            key = (fun, idx, tuple((i, param_key(a)) for i, a in static),
                   tuple((k, param_key(v)) for k, v in sorted(kwargs.items())))
            hash(key)
        except TypeError:  # an unhashable static argument
            return fun(*args, **kwargs)

    def call(*xs):
        full = [None] * n
        for i, x in zip(idx, xs, strict=True):
            full[i] = x
        for i, a in static:
            full[i] = a
        return [fun(*full, **kwargs)]

    run = eager_fn(fun.__name__, key, lambda avals: trace_graph(call, avals))
    return run(*[args[i] for i in idx])
