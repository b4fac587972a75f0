"""Custom call targets in XLA's registry: registering FFI handlers (``frontend.ffi``
reaches this through lowering.backend) and checking, before a module is compiled or loaded
from the cache, that every ``stablehlo.custom_call`` target it calls is registered (XLA
would report it from deep inside compilation). Targets of vmaplab's own kernels register
themselves here on first use."""
from __future__ import annotations

import os
import re
import threading

import jaxlib
from jaxlib import _jax
from jaxlib import xla_client as _xc

from . import native

_TARGET = re.compile(r"stablehlo\.custom_call @([\w.$-]+)\(")
_lock = threading.Lock()
user_targets: set = set()  # names registered through register (frontend.ffi.register_ffi_target)


def include_dir() -> str:
    """The XLA FFI C++ headers shipped in jaxlib."""
    base = jaxlib.__file__ and os.path.dirname(os.path.abspath(jaxlib.__file__))
    return os.path.join(base or list(jaxlib.__path__)[0], "include")



def _registered(platform: str) -> set:
    return set(_xc.custom_call_targets(platform))


def install_cpu_handler() -> None:
    """CPU targets go straight to XLA's registry (queued ones too); other platforms' wait in
    jaxlib's queue until their client starts."""
    _xc.register_custom_call_handler("cpu", _jax.register_custom_call_target)


def register(name: str, fn, platform: str = "cpu") -> None:
    """Register an FFI handler (PyCapsule, or dict of them by stage) as target ``name``."""
    if platform == "cpu":
        install_cpu_handler()  # registers at once (errors now), client or not
    try:
        with _lock:
            _xc.register_custom_call_target(name, fn, platform, 1)
            user_targets.add(name)
    except Exception as e:  # XLA's status errors, e.g. a duplicate name
        raise ValueError(f"register_ffi_target({name!r}, platform={platform!r}) failed: {e}") from None


def targets(text: str) -> list:
    """The custom call targets a module calls, in order of first use."""
    return list(dict.fromkeys(_TARGET.findall(text))) if "stablehlo.custom_call" in text else []


_lapack_ready = [False]


def _init_lapack() -> None:
    """jaxlib's LAPACK kernels (``lapack_*_ffi``): registered here unless JAX did it, and
    their LAPACK routines looked up once, before their first call."""
    if not _lapack_ready[0]:
        with _lock:
            from jaxlib import lapack
            have = _registered("cpu")
            for platform, targets in lapack.registrations().items():
                for name, fn, api_version in targets:
                    if name not in have:
                        _xc.register_custom_call_target(name, fn, platform, api_version)
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
        if name in native.HANDLERS and platform in ("cpu", "gpu", "cuda"):
            from frontend.ffi import pycapsule
            if platform == "cpu":
                register(name, pycapsule(native.handler(name)), platform)
            else:  # (kernels/cuda)
                register(name, pycapsule(native.cuda_handler(name)), "CUDA")
            continue
        raise ValueError(
            f"custom call target {name!r} is not registered for platform {platform!r}: register "
            f"its FFI handler with frontend.ffi.register_ffi_target({name!r}, "
            f"frontend.ffi.pycapsule(lib.Handler), platform={platform!r}) before compiling")
