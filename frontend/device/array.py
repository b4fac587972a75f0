"""frontend.Array: a device buffer with numpy-style methods; eager primitive execution."""
from __future__ import annotations

import logging

import numpy as np

from .. import sharding as sh
from ..core import dtypes
from ..core.config import config, on_change, on_x64_change
from ..core.ir import (
    Aval,
    Eqn,
    Graph,
    Literal,
    ShapeDtypeStruct,
    Tracer,
    Var,
    _trace_var,
    aval_of,
    on_rule_change,
    set_eager_apply,
)
from . import seam as _backend


class _Deleted:
    """The buffer of an Array that was deleted or donated: no device buffer, so the C++
    call path hands such an argument to Python, which raises JAX's error."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<deleted>"


DELETED = _Deleted()


def deleted_error(x) -> RuntimeError:
    """JAX's error for a deleted (or donated) array used again."""
    return RuntimeError(f"Array has been deleted with shape="
                        f"{x.aval.dtype.name}[{','.join(map(str, x.aval.shape))}].")


def mark_donated(x) -> None:
    """``x`` (an argument donated to a program) lost its buffer to the program's output: the
    Array is deleted from now on (as JAX deletes a donated array)."""
    if isinstance(x, Array) and x._buf is not DELETED and x._buf.is_deleted():
        x._buf, x._host = DELETED, None


class Array:
    """An array on an XLA device. Operations on it outside ``jit`` run on the device, one
    cached single-primitive executable each.

    >>> import frontend.numpy as fnp
    >>> fnp.arange(3) * 2
    Array([0, 2, 4], dtype=int32)
    """

    __slots__ = ("_buf", "aval", "_host")
    __array_priority__ = 100

    def __init__(self, _buf, aval: Aval):
        # (parameters named as the attributes: the C++ dispatcher would rebuild an Array
        # as Array(_buf=..., aval=...))
        self._buf = _buf
        self.aval = aval
        self._host = None

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)

    def _value(self) -> np.ndarray:
        if self._buf is DELETED:
            raise deleted_error(self)
        if self._host is None:
            if config.transfer_guard_device_to_host not in (None, "allow"):
                _guard_device_to_host(self)
            self._host = _backend.get().to_host(self._buf)
        return self._host

    def __array__(self, dtype=None, copy=None):
        v = self._value()
        if dtype is not None and np.dtype(dtype) != v.dtype:
            return v.astype(dtype)
        return v.copy() if copy else v

    # ------------------------------------------------------------------ interop
    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """The DLPack capsule of the device buffer (no copy unless ``copy=True``)."""
        kw = {"stream": stream, "copy": copy}
        if max_version is not None:
            kw["max_version"] = max_version
        if dl_device is not None:
            kw["dl_device"] = dl_device
        return _backend.get().dlpack(self._buf, **kw)

    def __dlpack_device__(self):
        return _backend.get().dlpack_device(self._buf)

    def __jax_array__(self):
        """The array as a jax.Array (the same device buffer: no copy)."""
        return _backend.get().as_jax_array(self._buf)

    @property
    def device(self):
        """The device holding the array (its sharding when it spans several, as JAX's)."""
        if not _backend.get().is_buffer(self._buf):
            return None
        devs = _backend.get().buffer_devices(self._buf)
        return next(iter(devs)) if len(devs) == 1 else self.sharding

    def devices(self) -> set:
        return set(_backend.get().buffer_devices(self._buf))

    @property
    def sharding(self):
        """How the array is laid out over devices (``frontend.sharding``: a NamedSharding,
        or a SingleDeviceSharding)."""
        return _backend.get().sharding_of(self._buf)

    @property
    def addressable_shards(self) -> list:
        """This process's pieces of the array (``frontend.sharding.Shard``: device, index,
        replica id, data)."""
        from ..sharding import Shard
        return [Shard(d, idx, r, Array(b, self.aval.update(shape=tuple(b.aval.shape))))
                for d, idx, r, b in _backend.get().shards(self._buf)]

    @property
    def is_fully_addressable(self) -> bool:
        return self.sharding.is_fully_addressable

    @property
    def is_fully_replicated(self) -> bool:
        return self.sharding.is_fully_replicated

    def block_until_ready(self):
        if self._buf is DELETED:
            raise deleted_error(self)
        self._buf.block_until_ready()
        return self

    def is_deleted(self) -> bool:
        """Whether the array was deleted (``delete()``) or donated to a jitted function."""
        return self._buf is DELETED or self._buf.is_deleted()

    def delete(self) -> None:
        """Free the device buffer now; using the array afterwards raises JAX's error."""
        if self._buf is not DELETED:
            self._buf.delete()
            self._buf, self._host = DELETED, None

    def item(self, *args):
        return self._value().item(*args)

    def tobytes(self, order="C"):
        return self._value().tobytes(order=order)

    def tolist(self):
        return self._value().tolist()

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def _scalar(self, kind):
        if self.size != 1:
            raise TypeError(f"only size-1 arrays can be converted to Python scalars, got shape {self.shape}")
        return kind(self._value().reshape(()))

    def __bool__(self):
        return self._scalar(bool)

    def __int__(self):
        return self._scalar(int)

    def __float__(self):
        return self._scalar(float)

    def __complex__(self):
        return self._scalar(complex)

    def __index__(self):
        if not dtypes.is_int(self.dtype) or self.ndim:
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self._value())

    def __hash__(self):
        raise TypeError("unhashable type: 'Array'")

    def __repr__(self):
        v = self._value()
        extra = ", weak_type=True" if self.weak_type else ""
        if v.size == 0:
            body = f"[], shape={v.shape}"
        else:
            body = np.array2string(v, separator=", ", prefix="Array(")
        return f"Array({body}, dtype={self.dtype.name}{extra})"

    __str__ = lambda self: str(self._value())  # noqa: E731

    def __format__(self, spec):
        if self.ndim == 0:
            return format(self._value().item(), spec)
        return format(str(self), spec)

    def __reduce__(self):
        return (_rebuild, (self._value(), self.weak_type))


_new = object.__new__


def results_from_buffers(aux, bufs):
    """The results of a call served by the C++ dispatcher, from its output buffers (one
    Python call per call): ``aux`` is (None, (aval,)) for one Array, else (treedef of the
    dispatch registry, avals). The one-Array case skips ``__init__``'s call: it runs once
    per dispatched call (and sets every slot __init__ does)."""
    td, avals = aux
    if td is None:
        a = _new(Array)
        a._buf, a.aval, a._host = bufs[0], avals[0], None
        return a
    return td.unflatten([Array(b, v) for b, v in zip(bufs, avals, strict=True)])


def from_foreign(x, device=None, *, copy: bool = False):
    """An Array for an array from another library, or None when ``x`` is none: a jax.Array
    on the device shares its buffer (no copy); an object with ``__dlpack__`` shares its
    memory where device and layout allow (``copy=True``: never, as the result must not
    follow later writes to ``x``); one with ``__array__`` (or ``__jax_array__``) is
    converted and copied to the device."""
    if isinstance(x, (Array, np.ndarray, np.generic)) or isinstance(x, _PY_SCALARS):
        return None
    be = _backend.get()
    if be.is_buffer(x):
        buf = be.adopt(x, device)
        if buf is None:
            return device_put(np.asarray(x), device)
        return _wrap_buffer(buf, bool(getattr(x, "weak_type", False)))
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        try:
            buf = be.adopt(be.from_dlpack(x, copy=copy or None), device)
        except (BufferError, TypeError):  # not exportable (read-only, unknown device)
            buf = None
        if buf is not None:
            return _wrap_buffer(buf, False)
    if hasattr(x, "__jax_array__"):
        return from_foreign(x.__jax_array__(), device, copy=copy)
    if hasattr(x, "__array__"):
        v = np.asarray(x)  # (an __array__ may return its own memory even when asked to copy)
        return device_put(np.array(v) if copy else v, device)
    return None


_PY_SCALARS = (bool, int, float, complex)


_NATIVE = (Array, Tracer, ShapeDtypeStruct, np.ndarray, np.generic, *_PY_SCALARS)


def adopt_foreign(leaves: list) -> list:
    """Argument leaves with arrays of other libraries (jax.Array, DLPack, ``__array__``) as
    Arrays: a jax.Array's device buffer is taken as it is (no copy)."""
    if all(isinstance(x, _NATIVE) or x is None for x in leaves):
        return leaves
    out = []
    for x in leaves:
        f = None if isinstance(x, _NATIVE) else from_foreign(x)
        out.append(x if f is None else f)
    return out


def _wrap_buffer(buf, weak: bool) -> Array:
    d = dtypes.canonicalize(np.dtype(buf.dtype))
    if d != buf.dtype:  # 64-bit data with 64-bit mode off: narrowed, as a transfer would
        return device_put(np.asarray(buf).astype(d), weak_type=weak)
    return Array(buf, Aval(tuple(buf.shape), d, weak))


def from_dlpack(x, /, *, device=None, copy=None) -> Array:
    """An Array over a DLPack tensor (anything with ``__dlpack__`` and
    ``__dlpack_device__``: numpy arrays, jax.Arrays, torch tensors, ...): the same memory
    when device and layout allow, else a copy (``copy=False`` forbids copying)."""
    if not (hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__")):
        raise TypeError("The array passed to from_dlpack must have __dlpack__ and "
                        "__dlpack_device__ methods.")
    be = _backend.get()
    try:
        buf = be.from_dlpack(x, copy=copy)
    except BufferError:
        # a read-only numpy array cannot be exported through (unversioned) DLPack; a
        # transfer of it shares its memory when it is aligned for the device
        if not isinstance(x, np.ndarray):
            raise
        return device_put(np.array(x) if copy else x, device)
    adopted = be.adopt(buf, device)
    if adopted is None:
        if copy is False:
            raise ValueError("from_dlpack(copy=False): the array is on another device")
        return device_put(np.asarray(buf), device)
    return _wrap_buffer(adopted, False)


def _rebuild(value, weak):
    return device_put(value, weak_type=weak)


def check_device(device, where: str, shardings: bool = True) -> None:
    """ValueError unless ``device`` is None, a device (``frontend.devices()``, or
    "interpreter") or, where ``shardings``, a Sharding or a PartitionSpec."""
    if device is None or _backend.get().is_device(device) or \
            shardings and isinstance(device, (sh.Sharding, sh.PartitionSpec)):
        return
    kinds = "`None`, `Sharding`, `PartitionSpec`" if shardings else "`None`"
    raise ValueError(f"`{where}` only accepts {kinds}, a device (an element of "
                     f"`frontend.devices()`) or 'interpreter'. Received invalid value: "
                     f"{device!r}")


def device_put(x, device=None, *, weak_type=None, may_alias=None) -> Array:
    """Put ``x`` (numpy array, Python scalar, Array) on ``device`` (default: the first one),
    or lay it out over several devices as a sharding says (``NamedSharding``, or a
    ``PartitionSpec`` under a context mesh).

    As JAX's, the result may share memory with a numpy ``x`` (an aligned host array is not
    copied on CPU): writing to ``x`` afterwards can change it. ``may_alias=False`` (JAX's
    keyword) always copies.

    >>> import numpy as np
    >>> import frontend as fe
    >>> from frontend.sharding import NamedSharding, PartitionSpec as P
    >>> mesh = fe.make_mesh((len(fe.devices()),), ("data",))
    >>> fe.device_put(np.arange(4.0), NamedSharding(mesh, P("data"))).sharding.spec
    P('data',)
    """
    check_device(device, "device_put")
    be = _backend.get()
    if device is None and config.default_device is not None and not isinstance(x, Array):
        device = default_device()
    copy = may_alias is False
    if isinstance(x, Array) and device is None and not copy:
        return x
    if isinstance(x, Tracer) and weak_type in (None, x.aval.weak_type):
        return x  # under jit, vmap or grad the value is returned as it is (as JAX does)
    f = from_foreign(x, device, copy=copy)
    if f is not None:
        return f if weak_type is None else Array(f._buf, f.aval.update(weak_type=weak_type))
    aval = aval_of(x) if not isinstance(x, (list, tuple)) else aval_of(np.asarray(x))
    if weak_type is not None:
        aval = aval.update(weak_type=weak_type)
    guard_transfer("device_to_device" if isinstance(x, Array) else "host_to_device", aval,
                   device, explicit=True)
    if isinstance(device, (sh.Sharding, sh.PartitionSpec)):
        s = sh.resolve(device, "device_put")
        if isinstance(s, sh.SingleDeviceSharding):
            device = s._device
        else:
            s.check_rank(aval.ndim, "One of device_put args")
            s.check_divisible(aval.shape)
            if isinstance(x, Array):
                if x.sharding == s and aval == x.aval:
                    return x
                if x.aval.dtype == aval.dtype:
                    return Array(be.reshard(x._buf, s), aval)
            return Array(be.to_device(_host(x, aval, copy), s), aval)
    return Array(be.to_device(_host(x, aval, copy), device), aval)


def _host(x, aval: Aval, copy: bool) -> np.ndarray:
    """``x`` as a host array of ``aval``'s dtype (a new one when ``copy``)."""
    v = x._value() if isinstance(x, Array) else x
    return np.array(v, aval.dtype) if copy else np.asarray(v, aval.dtype)


def host_const(x: np.ndarray, weak: bool = False):
    """A host array (of a canonical dtype) as an operand of the computation in progress: a
    device Array when running eagerly; under jit/make_graph a constant of the traced graph,
    which reaches the device only when the program runs."""
    return _trace_var.get().const(x, weak)


def _eager_const(x: np.ndarray, weak: bool) -> Array:
    if config.transfer_guard_host_to_device not in (None, "allow"):
        guard_transfer("host_to_device", Aval(x.shape, x.dtype, weak), None, explicit=False)
    return Array(_backend.get().to_device(x, default_device()), Aval(x.shape, x.dtype, weak))


def to_buffer(x, aval: Aval | None = None, device=None):
    """The device buffer for an argument: an Array's own, or a transfer of a host value."""
    if isinstance(x, Array):
        if x._buf is DELETED:
            raise deleted_error(x)
        return x._buf
    if isinstance(x, Literal):
        x, aval = x.val, x.aval
    if aval is None:
        aval = aval_of(x)
    if device is None and config.default_device is not None:
        device = default_device()
    if config.transfer_guard_host_to_device not in (None, "allow"):
        guard_transfer("host_to_device", aval, device, explicit=False)
    if isinstance(x, np.ndarray) and x.dtype == aval.dtype:
        return _backend.get().to_device(x, device)
    return _backend.get().to_device(np.asarray(x, aval.dtype), device)


# ----------------------------------------------------------------------------- checks


_log = logging.getLogger(__name__)


def _shaped(aval: Aval) -> str:
    weak = ", weak_type=True" if aval.weak_type else ""
    return f"ShapedArray({aval.dtype.name}[{','.join(map(str, aval.shape))}]{weak})"


def guard_transfer(kind: str, aval: Aval, dst, explicit: bool) -> None:
    """The transfer guard of ``kind`` ("host_to_device", ...; JAX's options
    ``transfer_guard_<kind>``): log or refuse this transfer, as its level says (implicit
    transfers are guarded by "log"/"disallow", explicit ones, ``device_put``, only by
    "log_explicit"/"disallow_explicit")."""
    level = getattr(config, f"transfer_guard_{kind}")
    if level in (None, "allow") or explicit and not level.endswith("_explicit"):
        return
    if dst is None or _backend.get().is_device(dst):
        dst = (f"SingleDeviceSharding(device={dst or _backend.get().devices()[0]!r}, "
               f"memory_kind=device)")
    what = f"{kind.replace('_', '-')} transfer: aval={_shaped(aval)}, dst_sharding={dst}"
    if level.startswith("log"):
        _log.warning("%s", what)
    else:
        raise _backend.get().JaxRuntimeError(f"INVALID_ARGUMENT: Disallowed {what}")


def _guard_device_to_host(x: Array) -> None:
    # (a CPU device's buffers are host memory: reading them moves nothing, as with JAX)
    devs = _backend.get().buffer_devices(x._buf)
    if devs and devs[0].platform != "cpu":
        guard_transfer("device_to_host", x.aval, "host", explicit=False)


def default_device():
    """The device of ``default_device`` (a Device, or the first of a platform), or None."""
    d = config.default_device
    return _backend.get().devices(d)[0] if isinstance(d, str) else d


def python_path_only() -> bool:
    """Whether an option is on that every execution must see (debug_nans, debug_infs,
    no_execution, a transfer guard, a default device): the C++ call path, which skips
    Python, is not used."""
    return config.debug_nans or config.debug_infs or config.no_execution or \
        config.default_device is not None or any(
        getattr(config, f"transfer_guard_{k}") not in (None, "allow")
        for k in ("host_to_device", "device_to_host", "device_to_device"))


# the options python_path_only reads: when one changes, the C++ caches are dropped
PYTHON_PATH_OPTIONS = ("debug_nans", "debug_infs", "no_execution", "default_device",
                       "transfer_guard_host_to_device", "transfer_guard_device_to_host",
                       "transfer_guard_device_to_device")


def check_execution(name: str) -> None:
    """``no_execution``: JAX's error instead of running ``name``."""
    if config.no_execution:
        raise RuntimeError(f"JAX tried to execute function {name}, but the no_execution "
                           f"config option is set")


def nonfinite(arrays) -> str | None:
    """Under debug_nans / debug_infs: "nan" or "inf" when some of the arrays holds one."""
    for a in arrays:
        if isinstance(a, Array) and a.aval.dtype.kind in "fc":
            v = np.asarray(a._value())
            if config.debug_nans and np.isnan(v).any():
                return "nan"
            if config.debug_infs and np.isinf(v).any():
                return "inf"
    return None


# ----------------------------------------------------------------------------- eager apply
# Eager work runs as compiled graphs through the C++ call path of the backend: one callable
# per computation (a primitive with its params, or a numpy function with its static
# arguments, see frontend.device.fusion.eager_fused), which checks the operands' signature,
# executes and wraps the results without Python once it has seen a signature; the first call
# of a signature builds and compiles the graph (``_eager_cache``). Operands are all Arrays by
# then: scalar literals come from a small cache of device scalars, so repeated constants are
# not transferred again.

_eager_cache: dict = {}   # (key, avals) -> (compiled, out avals)
eager_fns: dict = {}      # key -> callable on Arrays (frontend.core.tracing reads it directly)
_scalars: dict = {}       # (aval, value) -> Array


def _freeze(v):
    if isinstance(v, (list, tuple)):  # (lists nested in tuples too)
        return (type(v).__name__, *map(_freeze, v))
    if isinstance(v, dict):
        return tuple(sorted((k, _freeze(x)) for k, x in v.items()))
    return v


def eager_fn(name: str, key, build, multiple_results: bool = False):
    """The eager callable of the computation identified by ``key`` (hashable: what it
    computes and its static parameters): called with Arrays, it runs the graph
    ``build(avals)``, one compiled executable per signature. Returns an Array (a list with
    multiple_results)."""
    fn = eager_fns.get(key)
    if fn is not None:
        return fn
    be = _backend.get()

    def run(*arrays):
        """The Python path: compile (once per signature) and run; give the executable to
        the C++ path."""
        for a in arrays:
            if a._buf is DELETED:
                raise deleted_error(a)
        avals = tuple(a.aval for a in arrays)
        shs = be.arg_shardings([a._buf for a in arrays])  # None unless some are sharded
        k = (key, avals) if shs is None else (key, avals, shs)
        hit = _eager_cache.get(k)
        if hit is None:
            g = build(avals)
            hit = _eager_cache[k] = (be.compile_graph(g, in_shardings=shs), g.out_avals)
        compiled, out_avals = hit
        if config.no_execution:
            check_execution(f"jit({name})")
        outs = [Array(b, av) for b, av in zip(compiled([a._buf for a in arrays]), out_avals, strict=True)]
        out = outs if multiple_results else outs[0]
        if python_path_only():
            if config.debug_nans or config.debug_infs:
                bad = nonfinite(outs)
                if bad is not None:
                    raise FloatingPointError(f"invalid value ({bad}) encountered in {name}")
            return out, None, False
        return out, be.fastpath_data(compiled, len(arrays), out, out_avals), False

    be.register_arrays()
    if len(eager_fns) > 4096:
        eager_fns.clear()
    fn = eager_fns[key] = be.dispatcher(name, run, run)
    return fn


def _eqn_graph(prim, params, avals) -> Graph:
    """The graph of one application of ``prim``."""
    invars = tuple(Var(a) for a in avals)
    out_avals = prim.abstract_eval(*avals, **params)
    out_avals = tuple(out_avals) if prim.multiple_results else (out_avals,)
    outs = tuple(Var(a) for a in out_avals)
    return Graph(invars, (), (), (Eqn(prim, invars, params, outs),), outs)


def _as_array(x) -> Array:
    """An eager operand as an Array: scalar literals from a cache of device scalars."""
    if type(x) is Literal:
        v = x.val
        key = (x.aval, v) if v or type(v) is bool or type(v) is int else (x.aval, repr(v))
        a = _scalars.get(key)
        if a is None:
            if len(_scalars) > 1024:
                _scalars.clear()
            a = _scalars[key] = Array(to_buffer(x), x.aval)
        return a
    if isinstance(x, Array):
        return x
    a = aval_of(x)
    return Array(to_buffer(x, a), a)


def eager_apply(prim, args, params):
    try:
        key = (prim, *params.items())
        fn = eager_fns.get(key)
    except TypeError:  # a list or dict among the params
        key = (prim, _freeze(params))
        fn = eager_fns.get(key)
    if fn is None:
        fn = eager_fn(prim.name, key, lambda avals: _eqn_graph(prim, params, avals),
                      prim.multiple_results)
    for a in args:
        if type(a) is not Array:
            return fn(*[a if type(a) is Array else _as_array(a) for a in args])
    return fn(*args)


def _forget_eager_programs() -> None:
    """x64 or a numpy promotion option changed (graphs built under the other setting may
    differ: default dtypes, promotion errors), or a primitive's rule was replaced (programs built with the old one are stale)."""
    _eager_cache.clear()
    eager_fns.clear()


set_eager_apply(eager_apply, _eager_const)
on_x64_change(_forget_eager_programs)
on_rule_change(_forget_eager_programs)
for _option in ("numpy_rank_promotion", "numpy_dtype_promotion", "default_matmul_precision",
                "legacy_prng_key", "allow_f16_reductions", *PYTHON_PATH_OPTIONS):
    on_change(_option, _forget_eager_programs)  # (they shape the graphs, or check the calls)
