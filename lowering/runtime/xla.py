"""XLA client access: backends and devices, compiling StableHLO text, executing, transfers.

jaxlib only (``jaxlib.xla_client``, ``jaxlib._jax``): the CPU client is made here, and the
pieces of jaxlib's C++ array and sharding types that JAX completes in Python (an aval with
``shape``/``dtype``/``weak_type``, the sharding methods its C++ code calls) are supplied here
when ``jax`` is not imported. When the user's program has imported ``jax``, its objects are
used instead (so buffers move between the two without copies); ``jax`` is never imported
here."""
from __future__ import annotations

import ctypes
import functools
import logging
import re
import sys
import threading
import time

import numpy as np
from jaxlib import _jax
from jaxlib import xla_client as _xc

from . import cache, ffi, mlir

_lock = threading.Lock()
_ArrayImpl = _jax.ArrayImpl


def jax_module(name: str = "jax"):
    """The module ``name`` of JAX when the program has imported it (never imports it)."""
    return sys.modules.get(name) if "jax" in sys.modules else None


# ----------------------------------------------------------------------------- C++ state

# jaxlib's C++ transfers and call path read JAX's 64-bit flag; without JAX this process owns
# one, set as vmaplab's ``enable_x64`` (the buffers vmaplab hands over are canonical already;
# wide ones say so).
_state_lock = threading.Lock()
_x64_state = []


def x64_state():
    """The flag jaxlib's C++ code reads as ``jax_enable_x64`` (JAX's when JAX is loaded);
    the first call without JAX sets up the C++ call path's switches."""
    cfg = jax_module("jax._src.config")
    if cfg is not None and hasattr(cfg, "enable_x64"):
        return cfg.enable_x64
    if not _x64_state:
        with _state_lock:
            if not _x64_state:
                st = _jax.config.Config("vmaplab_enable_x64", False, include_in_jit_key=True)
                _jax.jax_jit.set_enable_x64_state(st)
                # the C++ call path's other switches, as JAX leaves them by default
                _jax.jax_jit.set_disable_jit_state(
                    _jax.config.Config("vmaplab_disable_jit", False, include_in_jit_key=True))
                _jax.jax_jit.set_post_hook_state(_jax.config.Config("vmaplab_post_hook", None))
                # ours follows vmaplab's enable_x64, so the C++ path serves 64-bit programs
                from frontend.core.config import config, on_x64_change
                st.set_global(bool(config.enable_x64))
                on_x64_change(lambda: st.set_global(bool(config.enable_x64)))
                _x64_state.append(st)
    return _x64_state[0]


class _Aval:
    """What jaxlib's C++ array type reads from an aval (JAX's ShapedArray when JAX is loaded)."""

    __slots__ = ("shape", "dtype", "weak_type")

    def __init__(self, shape, dtype, weak_type=False):
        self.shape, self.dtype, self.weak_type = tuple(shape), np.dtype(dtype), weak_type

    def __repr__(self):
        return f"ShapedArray({self.dtype}{list(self.shape)}{', weak_type=True' if self.weak_type else ''})"


def aval(shape, dtype, weak_type: bool = False):
    core = jax_module("jax._src.core")
    if core is not None and hasattr(core, "ShapedArray"):
        return core.ShapedArray(tuple(shape), dtype, weak_type=weak_type)
    return _Aval(shape, dtype, weak_type)


_shim_lock = threading.Lock()


def shard_buffers(buf) -> list:
    """The single-device buffers of a buffer over several devices (this process's shards).

    jaxlib's C++ code names the avals of the pieces with ``jax.core.ShapedArray``, importing
    ``jax.core`` on each call. Without JAX, it finds for the length of the call a stand-in
    module whose ``ShapedArray`` is ``aval`` (JAX's class once JAX is loaded, as jaxlib keeps
    the first one it found); nothing of it stays in ``sys.modules``."""
    if jax_module("jax.core") is not None:
        return buf._arrays
    import _imp
    import types
    with _shim_lock:
        pkg, core = types.ModuleType("jax"), types.ModuleType("jax.core")
        pkg.__path__, pkg.core, core.ShapedArray = [], core, aval
        _imp.acquire_lock()  # no other thread starts an import (of jax) meanwhile
        sys.modules["jax"], sys.modules["jax.core"] = pkg, core
        try:
            return buf._arrays
        finally:
            if sys.modules.get("jax.core") is core:
                del sys.modules["jax.core"]
            if sys.modules.get("jax") is pkg:
                del sys.modules["jax"]
            _imp.release_lock()


def _hlo_of(s, _ndim):
    return s._hlo_sharding


# methods jaxlib's C++ code calls on its sharding types, which JAX defines in Python (JAX's own
# replace these when it is imported: the semantics are the same)
_SHARDING_METHODS = {
    _jax.SingleDeviceSharding: {
        "memory_kind": property(lambda s: s._memory_kind),
        "_to_xla_hlo_sharding": lambda _s, _n: _xc.HloSharding.replicate(),
        "is_fully_replicated": property(lambda _: True),
        "is_fully_addressable": property(lambda _: True),
        "num_devices": property(lambda _: 1),
        "_device_assignment": property(lambda s: (s._device,)),
        "_addressable_device_assignment": property(lambda s: (s._device,)),
        "device_set": property(lambda s: {s._device}),
        "shard_shape": lambda _, shape: tuple(shape),
    },
    _jax.GSPMDSharding: {
        "memory_kind": property(lambda s: s._memory_kind),
        "_to_xla_hlo_sharding": _hlo_of,
        "is_fully_replicated": property(lambda s: s._hlo_sharding.is_replicated()),
        "is_fully_addressable": property(lambda s: s._internal_device_list.is_fully_addressable),
        "num_devices": property(lambda s: len(s._devices)),
        "_device_assignment": property(lambda s: tuple(s._devices)),
        "_addressable_device_assignment": property(
            lambda s: tuple(s._internal_device_list.addressable_device_list)),
        "device_set": property(lambda s: set(s._devices)),
    },
}


def _complete_sharding_types() -> None:
    if jax_module("jax.sharding") is not None:
        return  # JAX completed them
    for cls, methods in _SHARDING_METHODS.items():
        for name, m in methods.items():
            if not hasattr(cls, name):
                setattr(cls, name, m)


@functools.lru_cache(maxsize=64)
def single_device_sharding(device):
    _complete_sharding_types()
    return _jax.SingleDeviceSharding(device)


# ----------------------------------------------------------------------------- backends


# the distributed runtime this process joined (jaxlib's service and client: spmd.initialize)
distributed = {"client": None, "service": None, "process_id": 0, "num_processes": 1}


def _make_client(platform: str | None):
    """A new XLA client: CPU here (the distributed runtime's when one was joined); other
    platforms, and the default one when a GPU/TPU plugin is installed, through JAX's plugin
    discovery (``jax`` imported then)."""
    if platform == "cpu":
        ffi.install_cpu_handler()
        client = distributed["client"]
        collectives = None if client is None else _jax.make_gloo_tcp_collectives(
            distributed_client=client)
        return _xc.make_cpu_client(asynchronous=True, distributed_client=client,
                                   node_id=distributed["process_id"],
                                   num_nodes=distributed["num_processes"],
                                   collectives=collectives)
    import jax.extend.backend as jex_backend
    return jex_backend.get_backend(platform)
logger = logging.getLogger("lowering.runtime")


@functools.cache
def _accelerator_plugins() -> bool:
    """Whether a GPU/TPU PJRT plugin is installed (found through JAX's plugin discovery)."""
    import importlib.util
    return any(importlib.util.find_spec(m) is not None for m in ("jax_plugins", "libtpu"))


def backend(platform: str | None = None):
    """The XLA client of ``platform`` ('cpu', 'gpu', 'tpu'; None: the default one: CPU unless
    a GPU/TPU plugin is installed or JAX, loaded, has another). When the program has imported
    JAX, JAX's own client is used, so that buffers pass between the two without copies."""
    if platform is None and jax_module("jax") is None and not _accelerator_plugins():
        platform = "cpu"
    return _backend(platform)


def started() -> bool:
    """Whether an XLA client was made in this process."""
    return bool(_backend.cache_info().currsize)


@functools.cache
def _backend(platform: str | None):
    x64_state()
    _complete_sharding_types()
    jex = jax_module("jax.extend.backend")
    try:
        if jex is not None or jax_module("jax") is not None:
            import jax.extend.backend as jex_backend  # loaded already: no import cost
            return jex_backend.get_backend(platform)
        return _make_client(platform)
    except RuntimeError as e:
        raise ValueError(f"no XLA backend for platform {platform!r}: {e}") from None


def devices(platform: str | None = None) -> list:
    return list(backend(platform).devices())


@functools.cache
def default_device():
    """The first device of this process (with several processes, devices() lists them all)."""
    return backend().local_devices()[0]


def _device_list(device):
    return _xc.DeviceList((device,))


class Executable:
    """A compiled module on one device."""

    __slots__ = ("loaded", "device", "text", "n_out", "_handlers")

    def __init__(self, loaded, device, text: str, n_out: int):
        self.loaded = loaded
        self.device = device
        self.text = text
        self.n_out = n_out
        self._handlers = None

    def __call__(self, bufs: list) -> list:
        h = self._handlers
        if h is None:
            h = self._handlers = self._result_handlers()
        return self.loaded.execute_sharded(bufs).consume_with_handlers(h)

    def _result_handlers(self) -> list:
        """How each result becomes a buffer (its type read off the module's text)."""
        from .mlir import text_signature
        sh = single_device_sharding(self.device)
        return [_xc.array_result_handler(aval(shape, dtype), sh, committed=True, _skip_checks=True)
                for shape, dtype in text_signature(self.text)[1]]

    @property
    def run(self):
        """The function running it: buffers in, result buffers out."""
        return self.loaded.execute

    def hlo_text(self) -> str:
        return self.loaded.hlo_modules()[0].to_string()

    def cost_analysis(self):
        return self.loaded.cost_analysis()


def compile_text(text: str, device=None, n_out: int = 1) -> Executable:
    """Compile StableHLO text for one device (or load it from the persistent compilation
    cache). Custom call targets are checked (and vmaplab's own registered) first."""
    device = default_device() if device is None else device
    opts = _xc.CompileOptions()
    devs = _device_list(device)
    if _PY_CALLBACK in text:
        return _compile_with_callbacks(text, device, devs, opts, n_out)
    ffi.ensure_registered(text, device.platform)
    t0 = time.perf_counter()
    try:
        loaded = cache.compile_or_load(
            text, device, opts, lambda: device.client.compile_and_load(text, devs, opts),
            lambda blob: device.client.deserialize_executable(blob, devs, opts))
    except Exception as e:
        _explain(e, text)
        raise
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("compiled a module of %d characters for %s in %.3f s", len(text), device,
                     time.perf_counter() - t0)
    return Executable(loaded, device, text, n_out)


_PY_CALLBACK = "@xla_ffi_python_cpu_callback("
_CALLBACK_INDEX = re.compile(r"(@xla_ffi_python_cpu_callback\(.*?mhlo\.backend_config = "
                             r"\{index = )(\d+)( : ui64\})")
_last_effects: list = []  # the results of the last program with host callbacks


def _compile_with_callbacks(text: str, device, devs, opts, n_out: int) -> Executable:
    """A module calling Python functions (lowering/emit/callback.py): their process-wide
    numbers in the text become positions in the list handed to XLA with the module. Not
    in the persistent cache (the functions live in this process); runs to completion on
    each call, so callbacks of successive programs run in order."""
    from lowering.emit.callback import HOST_CALLBACKS
    fns: list = []
    pos: dict = {}

    def renumber(m):
        k = int(m.group(2))
        if k not in pos:
            pos[k] = len(fns)
            fns.append(HOST_CALLBACKS[k])
        return f"{m.group(1)}{pos[k]}{m.group(3)}"
    text = _CALLBACK_INDEX.sub(renumber, text)
    try:
        with mlir._context():
            module = mlir.parse_module(text)
            loaded = device.client.compile_and_load(module, devs, opts, fns)
    except Exception as e:
        _explain(e, text)
        raise
    return EffectfulExecutable(loaded, device, text, n_out)


class EffectfulExecutable(Executable):
    """An executable with host callbacks: each call waits for its results (and so for
    its callbacks)."""

    __slots__ = ()
    effectful = True

    @property
    def run(self):
        return self.__call__

    def __call__(self, bufs: list) -> list:
        outs = self.loaded.execute(bufs)
        for b in outs:
            b.block_until_ready()
        _last_effects[:] = outs
        return outs


def effects_barrier() -> None:
    """Wait for every host callback of the programs run so far."""
    for b in _last_effects:
        b.block_until_ready()


def _explain(e: Exception, text: str) -> None:
    """Re-raise a compile error with the equation, primitive and Python line of the op it
    points at (when the text has locations)."""
    where = mlir.explain_error(text, str(e))
    if where is None:
        return
    try:
        err = type(e)(f"{e}\n{where}")
    except Exception:
        e.add_note(where)
        raise e from None
    raise err from e


@functools.lru_cache(maxsize=4096)
def _placement(shape, dtype, device):
    return aval(shape, dtype), single_device_sharding(device), [device]


_WIDE = {np.dtype(t) for t in (np.int64, np.uint64, np.float64, np.complex128)}


def to_device(x: np.ndarray, device=None):
    """A device buffer holding ``x`` (numpy array of a canonical dtype)."""
    device = default_device() if device is None else device
    av, sharding, devs = _placement(x.shape, x.dtype, device)
    # (a wide dtype says so: the transfer would narrow 64-bit data to 32 bits by JAX's setting)
    return _xc.batched_device_put(av, sharding, [x], devs, True,
                                  enable_x64=True if x.dtype in _WIDE else None)


class _DLPack:
    __slots__ = ("buf",)

    def __init__(self, buf):
        self.buf = buf

    def __dlpack__(self, stream=None, **kw):
        return _jax.buffer_to_dlpack_managed_tensor(self.buf, stream=None)

    def __dlpack_device__(self):
        return (1, 0)


def to_host(buf) -> np.ndarray:
    """The value of a buffer on ONE device as a read-only numpy array (the same memory for a
    CPU buffer of a dtype DLPack carries); ``spmd.to_host`` takes any buffer."""
    if jax_module("jax._src.array") is not None:
        return np.asarray(buf)  # JAX's conversion (no copy on CPU)
    devs = buffer_devices(buf)
    if devs[0].platform != "cpu":  # jaxlib's device-to-host copy (it imports jax)
        return buf._single_device_array_to_np_array_did_copy()[0]
    if _bits(buf.aval.dtype) < 8:  # packed two to a byte: widened on the device first
        d = np.dtype(buf.aval.dtype)
        wide = _widener(tuple(buf.aval.shape), d.name, devs[0])([buf])[0]
        return to_host(wide).astype(d)
    try:
        a = np.from_dlpack(_DLPack(buf))
    except (BufferError, TypeError, RuntimeError):  # bfloat16, float8, int4, ...
        a = _copy_out(buf)
    a.flags.writeable = False
    return a


# the sub-byte types: StableHLO's name, and the wider type that holds each value exactly
_SUB_BYTE = {"int4": ("i4", "i8"), "uint4": ("ui4", "ui8"), "float4_e2m1fn": ("f4E2M1FN", "f16")}


@functools.lru_cache(maxsize=64)
def _widener(shape: tuple, name: str, device) -> Executable:
    """An executable converting a sub-byte buffer of ``shape`` to its wider type (numpy's
    DLPack import and a byte copy cannot read the packed values)."""
    narrow, wide = _SUB_BYTE[name]
    dims = "".join(f"{n}x" for n in shape)
    a, b = f"tensor<{dims}{narrow}>", f"tensor<{dims}{wide}>"
    text = (f"module @widen {{\n  func.func public @main(%arg0: {a}) -> {b} {{\n"
            f"    %0 = stablehlo.convert %arg0 : ({a}) -> {b}\n    return %0 : {b}\n  }}\n}}\n")
    return compile_text(text, device)


@functools.cache
def _bits(dtype) -> int:
    """The bit width of a dtype's values (4 for int4 and float4_e2m1fn, stored a byte each)."""
    import ml_dtypes
    d = np.dtype(dtype)
    for info in (ml_dtypes.iinfo, ml_dtypes.finfo):
        try:
            return int(info(d).bits)
        except (TypeError, ValueError):
            pass
    return d.itemsize * 8


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):  # DLPack's DLTensor (dlpack.h), head of DLManagedTensor
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32),
                ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = (ctypes.py_object, ctypes.c_char_p)


def _copy_out(buf) -> np.ndarray:
    """A copy of a CPU buffer whose dtype numpy's DLPack import refuses (bfloat16, ...): its
    bytes, read through the DLPack tensor jaxlib exports (row-major, XLA CPU's layout)."""
    buf.block_until_ready()
    a = np.empty(buf.aval.shape, buf.aval.dtype)
    cap = _jax.buffer_to_dlpack_managed_tensor(buf, stream=None)
    t = _DLTensor.from_address(_capsule_pointer(cap, b"dltensor"))
    if t.strides:  # only a compact row-major tensor is copied as bytes
        want = np.empty(a.shape, np.uint8).strides  # (in elements, as DLPack's)
        if tuple(t.strides[k] for k in range(t.ndim)) != want and a.size > 1:
            return buf._single_device_array_to_np_array_did_copy()[0]
    if a.nbytes:
        ctypes.memmove(a.ctypes.data, t.data + t.byte_offset, a.nbytes)
    del cap  # (the capsule's destructor lets go of the buffer)
    return a


def buffer_devices(buf) -> list:
    return list(buf._sharding._internal_device_list)


def dlpack(buf, stream=None, copy=None, **kw):
    """The DLPack capsule of a device buffer."""
    if jax_module("jax._src.array") is not None:
        return buf.__dlpack__(stream=stream, copy=copy, **kw)
    if copy:
        buf = to_device(np.array(to_host(buf)), buffer_devices(buf)[0])
    return _jax.buffer_to_dlpack_managed_tensor(buf, stream=stream)


_DLPACK_TYPES = {"cpu": 1, "cuda": 2, "rocm": 10, "gpu": 2}


def dlpack_device(buf) -> tuple:
    if jax_module("jax._src.array") is not None:
        return buf.__dlpack_device__()
    d = buffer_devices(buf)[0]
    return (_DLPACK_TYPES.get(d.platform, 1), 0 if d.platform == "cpu" else d.local_hardware_id)


def as_jax_array(buf):
    """A device buffer as a jax.Array (JAX loaded): the same buffer, with JAX's aval."""
    if type(buf.aval) is _Aval:
        a = buf.aval
        core = jax_module("jax._src.core")
        return buf._rewrap_with_aval_and_sharding(
            core.ShapedArray(a.shape, a.dtype, weak_type=a.weak_type), buf._sharding)
    return buf


def jaxlib_version() -> str:
    import jaxlib
    return jaxlib.__version__


Device = _xc.Device  # (jaxlib's device class: what devices() lists)
JaxRuntimeError = _jax.JaxRuntimeError  # (what a failed compile or execution raises)


def is_device(x) -> bool:
    """Whether ``x`` is an XLA device (an element of ``devices()``)."""
    return isinstance(x, _xc.Device)


def is_device_buffer(x) -> bool:
    return isinstance(x, _ArrayImpl)



# ----------------------------------------------------------------------------- interop

_DLPACK_PLATFORMS = {1: "cpu", 2: "gpu", 10: "gpu"}  # DLDeviceType: CPU, CUDA, ROCm


def adopt(x, device=None):
    """``x`` itself when it is a device buffer (a jax.Array) on one device that computations
    on ``device`` can take as an operand (no copy); None otherwise."""
    if not is_device_buffer(x) or x.is_deleted():
        return None
    devs = buffer_devices(x)
    want = default_device() if device is None else device
    return x if len(devs) == 1 and devs[0] == want else None


def from_dlpack(obj, copy=None):
    """A device buffer over a DLPack tensor (``obj`` has ``__dlpack__`` and
    ``__dlpack_device__``): the same memory when its device and layout allow, else a copy
    (``copy=False`` forbids the copy, ``copy=True`` forces one)."""
    dl_type, dl_id = obj.__dlpack_device__()
    platform = _DLPACK_PLATFORMS.get(int(dl_type))
    if platform is None:
        raise TypeError(f"from_dlpack: an array on an unsupported device type "
                        f"(DLDeviceType {int(dl_type)})")
    device = backend(platform).device_from_local_hardware_id(dl_id)
    if copy and platform == "cpu":
        # jaxlib's import shares host memory even when asked to copy: copy it here
        try:
            host = np.array(np.from_dlpack(obj))
        except (BufferError, TypeError, RuntimeError):  # a dtype numpy cannot import
            host = None
        if host is not None:
            return to_device(host, device)
    stream = None if platform == "cpu" else device.get_stream_for_external_ready_events()
    try:
        return _jax.dlpack_managed_tensor_to_buffer(obj.__dlpack__(stream=stream), device,
                                                   stream, copy, int(dl_type))
    except _xc.XlaRuntimeError as e:
        if "aligned" in str(e):
            raise ValueError("from_dlpack(copy=False): the source buffer is not aligned for "
                             "the device, so it needs a copy") from None
        raise
