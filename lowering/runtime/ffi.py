"""Custom call targets in XLA's registry: registering FFI handlers (``frontend.ffi``
reaches this through lowering.backend) and checking, before a module is compiled or loaded
from the cache, that every ``stablehlo.custom_call`` target it calls is registered (XLA
would report it from deep inside compilation). Targets of vmaplab's own kernels register
themselves here on first use."""
from __future__ import annotations

import re
import threading

import jax.ffi as _jax_ffi
from jax._src.lib import xla_client as _xc
from jax.extend import backend as _jex_backend

from . import native

_TARGET = re.compile(r"stablehlo\.custom_call @([\w.$-]+)\(")
_lock = threading.Lock()
user_targets: set = set()  # names registered through register (frontend.ffi.register_ffi_target)


def include_dir() -> str:
    return _jax_ffi.include_dir()


def _registered(platform: str) -> set:
    return set(_xc.custom_call_targets(platform))


def register(name: str, fn, platform: str = "cpu") -> None:
    """Register an FFI handler (PyCapsule, or dict of them by stage) as target ``name``."""
    try:
        _jex_backend.get_backend(platform)  # a started client registers at once (errors now)
    except RuntimeError:
        pass  # no such device here: XLA keeps the registration until the platform starts
    try:
        with _lock:
            _jax_ffi.register_ffi_target(name, fn, platform=platform, api_version=1)
            user_targets.add(name)
    except Exception as e:  # XLA's status errors, e.g. a duplicate name
        raise ValueError(f"register_ffi_target({name!r}, platform={platform!r}) failed: {e}") from None


def targets(text: str) -> list:
    """The custom call targets a module calls, in order of first use."""
    return list(dict.fromkeys(_TARGET.findall(text))) if "stablehlo.custom_call" in text else []


_lapack_ready = [False]


def _init_lapack() -> None:
    """jaxlib's LAPACK kernels (registered as ``lapack_*_ffi`` when jax is imported) look
    their LAPACK routines up once, before their first call."""
    if not _lapack_ready[0]:
        from jaxlib import lapack
        lapack._lapack.initialize()
        _lapack_ready[0] = True


def ensure_registered(text: str, platform: str) -> None:
    """Every custom call target of ``text`` is registered for ``platform`` (registering
    vmaplab's own kernels on first use, readying jaxlib's LAPACK kernels); a ValueError
    naming the first one that is not."""
    names = targets(text)
    if not names:
        return
    if platform == "cpu" and any(n.startswith("lapack_") for n in names):
        _init_lapack()
    have = _registered(platform)
    for name in names:
        if name in have:
            continue
        if name in native.HANDLERS and platform == "cpu":
            register(name, _jax_ffi.pycapsule(native.handler(name)), platform)
            continue
        if name in native.HANDLERS and platform in ("gpu", "cuda"):  # (kernels/cuda)
            register(name, _jax_ffi.pycapsule(native.cuda_handler(name)), "CUDA")
            continue
        raise ValueError(
            f"custom call target {name!r} is not registered for platform {platform!r}: register "
            f"its FFI handler with frontend.ffi.register_ffi_target({name!r}, "
            f"frontend.ffi.pycapsule(lib.Handler), platform={platform!r}) before compiling")
