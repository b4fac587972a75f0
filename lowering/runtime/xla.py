"""XLA client access: backends and devices, compiling StableHLO text, executing, transfers."""
from __future__ import annotations

import functools
import logging
import re
import threading
import time

import numpy as np
from jax._src import config as _config
from jax._src.lib import xla_client as _xc
from jax.extend import backend as _jex_backend

from . import cache, ffi, mlir

_lock = threading.Lock()
logger = logging.getLogger("lowering.runtime")
_ArrayImpl = None


@functools.cache
def backend(platform: str | None = None):
    """The XLA client of ``platform`` ('cpu', 'gpu', 'tpu'; None: the default one)."""
    try:
        return _jex_backend.get_backend(platform)
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

    __slots__ = ("loaded", "device", "text", "n_out", "_devlist")

    def __init__(self, loaded, device, text: str, n_out: int):
        self.loaded = loaded
        self.device = device
        self.text = text
        self.n_out = n_out

    def __call__(self, bufs: list) -> list:
        return self.loaded.execute(bufs)

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
    from jax._src import core as _core
    from jax.sharding import SingleDeviceSharding
    return _core.ShapedArray(shape, dtype), SingleDeviceSharding(device), [device]


_WIDE = {np.dtype(t) for t in (np.int64, np.uint64, np.float64, np.complex128)}


def to_device(x: np.ndarray, device=None):
    """A device buffer holding ``x`` (numpy array of a canonical dtype)."""
    device = default_device() if device is None else device
    aval, sharding, devs = _placement(x.shape, x.dtype, device)
    if x.dtype in _WIDE and not _config.enable_x64.value:
        # the transfer would narrow 64-bit data to 32 bits by JAX's setting, not ours
        with _config.enable_x64(True):
            return _xc.batched_device_put(aval, sharding, [x], devs, True)
    return _xc.batched_device_put(aval, sharding, [x], devs, True)


def to_host(buf) -> np.ndarray:
    return np.asarray(buf)


def is_device(x) -> bool:
    """Whether ``x`` is an XLA device (an element of ``devices()``)."""
    return isinstance(x, _xc.Device)


def is_device_buffer(x) -> bool:
    global _ArrayImpl
    if _ArrayImpl is None:
        from jax._src.lib import _jax
        _ArrayImpl = _jax.ArrayImpl
    return isinstance(x, _ArrayImpl)



# ----------------------------------------------------------------------------- interop

_DLPACK_PLATFORMS = {1: "cpu", 2: "gpu", 10: "gpu"}  # DLDeviceType: CPU, CUDA, ROCm


def adopt(x, device=None):
    """``x`` itself when it is a device buffer (a jax.Array) on one device that computations
    on ``device`` can take as an operand (no copy); None otherwise."""
    if not is_device_buffer(x) or x.is_deleted():
        return None
    devs = x.devices()
    want = default_device() if device is None else device
    return x if len(devs) == 1 and next(iter(devs)) == want else None


def from_dlpack(obj, copy=None):
    """A device buffer over a DLPack tensor (``obj`` has ``__dlpack__`` and
    ``__dlpack_device__``): the same memory when its device and layout allow, else a copy
    (``copy=False`` forbids the copy, ``copy=True`` forces one)."""
    from jax._src.lib import _jax
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
