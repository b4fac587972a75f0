"""Foreign function calls: C++ kernels (XLA FFI handlers) inside traced programs, shaped like
``jax.ffi``: ``ffi_call``, ``register_ffi_target``, ``pycapsule``, ``include_dir``. With a
handler ``MyScale`` compiled into ``libmykernels.so`` (see docs/extending.md)::

    import ctypes
    import numpy as np
    from frontend.extend import ShapedArray
    from frontend.ffi import Operand, Signature, ffi_call, pycapsule, register_ffi_target

    lib = ctypes.CDLL("./libmykernels.so")
    register_ffi_target("my_scale", pycapsule(lib.MyScale), platform="cpu",
                        signature=Signature([Operand("x", ("float32",), ndim=1)],
                                            {"factor": "float32"}, batch="equal"))
    scale = ffi_call("my_scale", ShapedArray((3,), np.float32), vmap_method="expand_dims")
    scale(np.ones(3, np.float32), factor=np.float32(2.0))

A call is one ``ffi_call`` equation lowered to ``stablehlo.custom_call`` with
``api_version = 4`` and the keyword arguments as typed attributes in ``backend_config``
(Python ints are i64, floats f64, bools i1, as JAX; numpy scalars keep their dtype).

XLA checks attribute types and counts only when the program runs. A target registered (or
declared) with a ``Signature`` is checked at trace time instead: operand count, dtypes and
ranks, attribute names and types, each a Python error naming the target and the operand.
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np

from .core import dtypes
from .core.arguments import leaf_aval
from .core.ir import Aval, Primitive
from .device import seam as _backend
from .interpreters.batching import axis_size, shape
from .primitives.control import scan_lanes
from .primitives.padding import concatenate_p, slice_p
from .primitives.shape import bdim_at, reshape_p

VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all")

# ----------------------------------------------------------------------------- attributes
# Attribute values live in the equation's params, so they must be hashable: numpy arrays are
# held as ArrayAttr. ``attr_type`` names the FFI type a value decodes as.

_ATTR_DTYPES = tuple(np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32, np.int64,
                                           np.uint8, np.uint16, np.uint32, np.uint64,
                                           np.float32, np.float64))


@dataclass(frozen=True)
class ArrayAttr:
    """A 1-D numpy array attribute (decoded by a handler as ``Span<const T>``)."""
    dtype: np.dtype
    values: tuple


def _attr_value(target, name, v):
    """A keyword argument of a call as a hashable attribute value (TypeError if no FFI type)."""
    if isinstance(v, int) and not isinstance(v, bool) and not -2**63 <= v < 2**63:
        raise OverflowError(f"ffi_call to {target!r}: attribute {name}={v} does not fit in int64")
    if isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (np.generic, np.ndarray)):
        a = np.asarray(v)
        if a.dtype in _ATTR_DTYPES and a.ndim == 0:
            return a.dtype.type(a)
        if a.dtype in _ATTR_DTYPES and a.ndim == 1 and a.dtype != np.bool_:
            return ArrayAttr(a.dtype, tuple(a.tolist()))
    raise TypeError(f"ffi_call to {target!r}: attribute {name}={v!r} of type {type(v).__name__} "
                    "has no FFI attribute type: pass a bool, int, float, str, a numpy scalar of "
                    "a bool/int/uint/float32/float64 dtype, or a 1-D numpy array of a number dtype")


def attr_type(v) -> str:
    """'int64', 'float32', 'bool', 'str', or 'int64[]' for an array attribute."""
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int64"
    if isinstance(v, float):
        return "float64"
    if isinstance(v, str):
        return "str"
    if isinstance(v, ArrayAttr):
        return f"{v.dtype.name}[]"
    return np.dtype(type(v)).name


def _type_name(t) -> str:
    """A declared attribute type as attr_type spells it: a dtype, ``str``, or ``"int64[]"``."""
    if t is str or t == "str":
        return "str"
    if isinstance(t, str) and t.endswith("[]"):
        return np.dtype(t[:-2]).name + "[]"
    return np.dtype(t).name


# ----------------------------------------------------------------------------- signatures


@dataclass(frozen=True)
class Operand:
    """One operand of a target: its name, allowed dtypes and the rank of ONE problem."""
    name: str
    dtypes: tuple
    ndim: int

    def __post_init__(self):
        object.__setattr__(self, "dtypes", tuple(np.dtype(d) for d in self.dtypes))


@dataclass(frozen=True)
class Signature:
    """What a target accepts, checked at trace time (XLA checks only when it runs).

    ``batch``: None means every operand has exactly its ``ndim``; ``"equal"`` lets operands
    carry extra leading axes that the kernel loops over, the same for every operand (what
    ``vmap_method="broadcast_all"`` produces); ``"broadcast"`` also allows size-1 leading axes
    (what ``"expand_dims"`` produces for unbatched operands). ``same_dtype``: every operand
    has one dtype. ``attributes``: name -> numpy dtype, ``str``, or ``"<dtype>[]"`` (a 1-D
    array)."""
    operands: tuple
    attributes: dict
    batch: str | None = None
    same_dtype: bool = False

    def __post_init__(self):
        if self.batch not in (None, "equal", "broadcast"):
            raise ValueError(f"Signature batch must be None, 'equal' or 'broadcast', got {self.batch!r}")
        object.__setattr__(self, "operands", tuple(self.operands))
        object.__setattr__(self, "attributes", {k: _type_name(t) for k, t in self.attributes.items()})

    def check(self, target: str, avals, attributes) -> None:
        where = f"ffi_call to {target!r}"
        ops = self.operands
        if len(avals) != len(ops):
            raise TypeError(f"{where} takes {len(ops)} operands ({', '.join(o.name for o in ops)}), "
                            f"got {len(avals)}")
        leads = []
        for o, a in zip(ops, avals, strict=True):
            if a.dtype not in o.dtypes:
                raise TypeError(f"{where}: operand {o.name} must have dtype "
                                f"{' or '.join(d.name for d in o.dtypes)}, got {a.str_short()}")
            if a.ndim != o.ndim and (self.batch is None or a.ndim < o.ndim):
                more = "" if self.batch is None else " or more (leading batch axes)"
                raise ValueError(f"{where}: operand {o.name} must have rank {o.ndim}{more}, got "
                                 f"{a.str_short()} (shape {a.shape})")
            leads.append(a.shape[:a.ndim - o.ndim])
        if self.same_dtype and len({a.dtype for a in avals}) > 1:
            raise TypeError(f"{where}: operands must have one dtype, got "
                            f"{', '.join(a.str_short() for a in avals)}")
        if self.batch is not None and leads:
            _check_leading(where, self.batch, ops, leads)
        declared = self.attributes
        got = dict(attributes)
        missing = sorted(set(declared) - set(got))
        extra = sorted(set(got) - set(declared))
        if missing or extra:
            raise TypeError(f"{where} takes the attributes {sorted(declared)}: "
                            + "; ".join(s for s in (f"missing {missing}" if missing else "",
                                                    f"unexpected {extra}" if extra else "") if s))
        for k, v in sorted(got.items()):
            want = declared[k]
            if attr_type(v) != want:
                how = ("a str" if want == "str" else f"a 1-D numpy array of {want[:-2]}"
                       if want.endswith("[]") else f"np.{want}(...)")
                raise TypeError(f"{where}: attribute {k} must be {want}, got {attr_type(v)} "
                                f"({v!r}); pass {how}")


def _check_leading(where, batch, ops, leads):
    """The leading (batch) axes agree: equal, or equal up to size-1 axes for 'broadcast'."""
    ranks = {len(lead) for lead in leads}
    ok = len(ranks) == 1
    if ok:
        for axis in zip(*leads, strict=True):
            sizes = set(axis) - ({1} if batch == "broadcast" else set())
            ok = ok and len(sizes) <= 1
    if not ok:
        desc = ", ".join(f"{o.name} {lead}" for o, lead in zip(ops, leads, strict=True))
        hint = (" (size-1 axes allowed)" if batch == "broadcast" else
                "; the target does not broadcast size-1 axes: vmap it with "
                "vmap_method='broadcast_all'")
        raise ValueError(f"{where}: the leading batch axes of the operands must agree{hint}, "
                         f"got {desc}")


_SIGNATURES: dict = {}


def declare_ffi_target(name: str, signature: Signature) -> None:
    """Record what target ``name`` accepts, so calls are checked at trace time (also for a
    target registered elsewhere, e.g. with jax.ffi or by a library loaded later)."""
    if not isinstance(signature, Signature):
        raise TypeError(f"declare_ffi_target: signature must be a frontend.ffi.Signature, got "
                        f"{type(signature).__name__}")
    _SIGNATURES[name] = signature


# ----------------------------------------------------------------------------- the primitive

# ffi_call(*args; target_name, result_avals, vmap_method, attributes, has_side_effect,
# input_output_aliases) -> results. ``attributes`` is a sorted tuple of (name, value).
ffi_call_p = Primitive("ffi_call", multiple_results=True)


@ffi_call_p.def_abstract_eval
def _ffi_call_abstract_eval(*avals, target_name, result_avals, vmap_method, attributes,
                            has_side_effect, input_output_aliases):
    sig = _SIGNATURES.get(target_name)
    if sig is not None:
        sig.check(target_name, avals, attributes)
    for i, o in input_output_aliases:
        a, r = avals[i], result_avals[o]
        if a.shape != r.shape or a.dtype != r.dtype:
            raise ValueError(f"input_output_aliases contains the mapping '{i}:{o}' referring to "
                             f"an input with abstract value {a.str_short()} and an output with a "
                             f"different abstract value {r.str_short()}.")
    return list(result_avals)


@ffi_call_p.def_jvp
def _ffi_call_jvp(primals, tangents, *, target_name, **params):
    # as JAX: a foreign call has no derivative unless the user gives one
    raise ValueError(f"The FFI call to `{target_name}` cannot be differentiated. You can use "
                     "`custom_jvp` or `custom_vjp` to add support.")


def vmap_method_batching(prim: Primitive, hint=lambda params: ""):
    """The batching rule of a primitive called with ``vmap_method`` and ``result_avals``
    params (``ffi_call``, the host callbacks), as JAX's: 'expand_dims' / 'broadcast_all'
    (unbatched operands get a size-1 / batch-size leading axis, one call sees the batch),
    'legacy_vectorized' (batched operands moved to axis 0, unbatched ones left as they are),
    'sequential' (one call per example, in a loop), 'sequential_unrolled' (the loop
    unrolled); None is an error. ``hint(params)``: words added to that error."""

    def rule(args, dims, *, vmap_method, result_avals, **params):
        # every result gets the batch axis at 0
        size = axis_size(args, dims)
        batched_avals = tuple(a.update(shape=(size,) + a.shape) for a in result_avals)
        if vmap_method in ("expand_dims", "broadcast_all", "legacy_vectorized"):
            lead = size if vmap_method == "broadcast_all" else 1
            xs = [x if d is None and vmap_method == "legacy_vectorized" else
                  bdim_at(x, d, lead if d is None else size, 0)
                  for x, d in zip(args, dims, strict=True)]
            outs = prim.bind(*xs, vmap_method=vmap_method, result_avals=batched_avals, **params)
            return outs, [0] * len(outs)
        if vmap_method not in ("sequential", "sequential_unrolled"):
            raise NotImplementedError(
                f"vmap is only supported for the {prim.name} primitive when vmap_method is one "
                "of 'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
                f"'legacy_vectorized'. Got vmap_method={vmap_method!r}.{hint(params)}")
        idx = [i for i, d in enumerate(dims) if d is not None]

        def one(*lanes):
            full = list(args)
            for i, x in zip(idx, lanes, strict=True):
                full[i] = x
            return prim.bind(*full, vmap_method=vmap_method, result_avals=result_avals, **params)

        xs = [bdim_at(args[i], dims[i], size, 0) for i in idx]
        if vmap_method == "sequential":
            outs = scan_lanes(one, xs)  # one stablehlo.while
        else:
            per_lane = [one(*[_lane(x, k) for x in xs]) for k in range(size)]
            outs = [_stack([lane[j] for lane in per_lane], a) for j, a in enumerate(result_avals)]
        return outs, [0] * len(outs)

    return rule


ffi_call_p.def_batching(vmap_method_batching(ffi_call_p, lambda params: (
    f" (Target {params['target_name']!r}: pass vmap_method= to ffi_call: 'expand_dims' or "
    "'broadcast_all' when the kernel treats leading axes as a batch, 'sequential' to call it "
    "once per example in a loop.)")))


def _lane(x, k):
    """x[k] along axis 0."""
    shp = shape(x)
    row = slice_p.bind(x, start_indices=(k,) + (0,) * (len(shp) - 1),
                       limit_indices=(k + 1,) + tuple(shp[1:]), strides=None)
    return reshape_p.bind(row, new_sizes=tuple(shp[1:]), dimensions=None)


def _stack(rows, aval):
    rows = [reshape_p.bind(r, new_sizes=(1,) + aval.shape, dimensions=None) for r in rows]
    return rows[0] if len(rows) == 1 else concatenate_p.bind(*rows, dimension=0)


# ----------------------------------------------------------------------------- the API


def ffi_call(target_name: str, result_shape_dtypes, *, has_side_effect: bool = False,
             vmap_method: str | None = None, input_output_aliases: dict | None = None):
    """A callable running the FFI target ``target_name``: ``ffi_call(...)(*arrays, **attrs)``,
    as ``jax.ffi.ffi_call``. ``result_shape_dtypes`` is one object with ``shape`` and
    ``dtype`` (one result) or a sequence of them. ``vmap_method`` says what vmap does:
    'expand_dims' (unbatched operands get a size-1 leading axis, the kernel sees the batch as
    leading axes), 'broadcast_all' (unbatched operands are broadcast to the batch),
    'sequential' (a loop calling the kernel per example), 'sequential_unrolled' (the same,
    unrolled); None makes vmap an error.

    >>> import numpy as np
    >>> import frontend.kernels   # declares vmaplab's own targets, vmaplab_rms_norm among them
    >>> from frontend.extend import ShapedArray
    >>> from frontend.ffi import ffi_call
    >>> x = np.ones((2, 3), np.float32)
    >>> ffi_call("vmaplab_rms_norm", ShapedArray(x.shape, x.dtype),
    ...          vmap_method="expand_dims")(x, eps=1e-6)
    Array([[0.9999995, 0.9999995, 0.9999995],
           [0.9999995, 0.9999995, 0.9999995]], dtype=float32)
    """
    if vmap_method not in (*VMAP_METHODS, None):
        raise ValueError(f"vmap_method must be on of the allowed methods "
                         f"{[*VMAP_METHODS, 'legacy_vectorized', None]}, but got: {vmap_method}")
    multiple = isinstance(result_shape_dtypes, (list, tuple))
    results = list(result_shape_dtypes) if multiple else [result_shape_dtypes]
    result_avals = []
    for i, r in enumerate(results):
        if not hasattr(r, "shape") or not hasattr(r, "dtype"):
            raise ValueError("All elements of result_shape_dtypes must have 'shape' and 'dtype' "
                             f"attributes. Got {r} at position {i}.")
        result_avals.append(Aval(tuple(r.shape), dtypes.canonicalize(np.dtype(r.dtype))))
    result_avals = tuple(result_avals)
    aliases = tuple(sorted((int(i), int(o)) for i, o in (input_output_aliases or {}).items()))

    def call(*args, **kwargs):
        for i, o in aliases:
            if not 0 <= i < len(args):
                raise ValueError(f"input_output_aliases contains the mapping '{i}:{o}' with input "
                                 f"index {i} outside the range [0, {len(args)}).")
            if not 0 <= o < len(result_avals):
                raise ValueError(f"input_output_aliases contains the mapping '{i}:{o}' with "
                                 f"output index {o} outside the range [0, {len(result_avals)}).")
        for a in args:
            leaf_aval(a)  # a TypeError for a non-array, before anything is recorded
        attrs = tuple(sorted((k, _attr_value(target_name, k, v)) for k, v in kwargs.items()))
        outs = ffi_call_p.bind(*args, target_name=target_name, result_avals=result_avals,
                               vmap_method=vmap_method, attributes=attrs,
                               has_side_effect=bool(has_side_effect), input_output_aliases=aliases)
        if multiple:
            return tuple(outs) if isinstance(result_shape_dtypes, tuple) else list(outs)
        return outs[0]

    return call


def register_ffi_target(name: str, fn, platform: str = "cpu", api_version: int = 1, *,
                        signature: Signature | None = None) -> None:
    """Register an XLA FFI handler as the custom call target ``name`` (as
    ``jax.ffi.register_ffi_target``): ``fn`` is a PyCapsule of the handler (``pycapsule``)
    or a dict of them by FFI stage. ``signature`` (beyond JAX) declares what the target
    accepts, checked when calls are traced."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"register_ffi_target: name must be a non-empty str, got {name!r}")
    if api_version != 1:
        raise ValueError(f"register_ffi_target: only api_version=1 (the typed XLA FFI) is "
                         f"supported, got {api_version}")
    caps = fn.values() if isinstance(fn, dict) else [fn]
    if not caps or not all(type(c).__name__ == "PyCapsule" for c in caps):
        raise TypeError(f"register_ffi_target: fn must be a PyCapsule of an FFI handler (see "
                        f"frontend.ffi.pycapsule) or a dict of them, got {type(fn).__name__}")
    _backend.get().register_ffi_target(name, fn, platform)
    if signature is not None:
        declare_ffi_target(name, signature)


def pycapsule(funcptr):
    """Wrap a ctypes function pointer (e.g. ``ctypes.CDLL(path).MyHandler``) in a PyCapsule,
    the form register_ffi_target takes."""
    if not isinstance(funcptr, ctypes._CFuncPtr):
        raise TypeError(f"pycapsule expects a ctypes function pointer, got {type(funcptr).__name__}")
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)
    return new(ctypes.cast(funcptr, ctypes.c_void_p), None, None)


def include_dir() -> str:
    """The directory of the XLA FFI C++ headers (``xla/ffi/api/ffi.h``) of the installed
    jaxlib, to compile handlers against."""
    return _backend.get().ffi_include_dir()


__all__ = ["ArrayAttr", "Operand", "Signature", "declare_ffi_target", "ffi_call", "ffi_call_p",
           "include_dir", "pycapsule", "register_ffi_target"]
