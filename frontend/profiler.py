"""Profiling (``frontend.profiler``, as ``jax.profiler``): ``start_trace(log_dir)`` /
``stop_trace()`` (or ``with trace(log_dir):``) record the process's activity, vmaplab's
programs on the device included, with jaxlib's profiler, written where TensorBoard and
Perfetto read it (``<log_dir>/plugins/profile/<run>/*.xplane.pb``); ``TraceAnnotation``,
``StepTraceAnnotation`` and ``annotate_function`` name spans of Python on the timeline;
``start_server`` lets TensorBoard sample a running process; ``device_memory_profile``
is the device memory in pprof format."""
from __future__ import annotations

import contextlib
import functools
import gzip
import os
import threading

from .device import seam as _backend

_prof = _backend.get().profiler
ProfileOptions = _prof.ProfileOptions
_lock = threading.Lock()
_state: dict = {"session": None, "log_dir": None, "server": None}


def start_trace(log_dir, create_perfetto_link: bool = False,
                create_perfetto_trace: bool = False, profiler_options=None) -> None:
    """Start recording a trace, saved under ``log_dir`` by ``stop_trace`` (one at a
    time)."""
    if create_perfetto_link or create_perfetto_trace:
        raise NotImplementedError("start_trace: the Perfetto link/trace files are not written "
                                  "by vmaplab (the xplane.pb trace opens in Perfetto)")
    with _lock:
        if _state["session"] is not None:
            raise RuntimeError("Profile has already been started. Only one profile may be run "
                               "at a time.")
        _state["session"] = _prof.start_session(profiler_options)
        _state["log_dir"] = os.fspath(log_dir)


def stop_trace() -> None:
    """Stop the trace and write it under the ``log_dir`` given to ``start_trace``."""
    with _lock:
        if _state["session"] is None:
            raise RuntimeError("No profile started")
        try:
            _prof.stop_and_export(_state["session"], str(_state["log_dir"]))
        finally:
            _state["session"] = _state["log_dir"] = None


@contextlib.contextmanager
def trace(log_dir, create_perfetto_link: bool = False, create_perfetto_trace: bool = False,
          profiler_options=None):
    """``start_trace`` ... ``stop_trace`` around a with-block."""
    start_trace(log_dir, create_perfetto_link, create_perfetto_trace, profiler_options)
    try:
        yield
    finally:
        stop_trace()


class TraceAnnotation(_prof.TraceMe):
    """A span named ``name`` on the trace's timeline while the with-block runs."""


class StepTraceAnnotation(TraceAnnotation):
    """A training step's span (``step_num=`` as keyword), analysed per step by the
    profiler."""

    def __init__(self, name: str, **kwargs):
        super().__init__(name, _r=1, **kwargs)


def annotate_function(func, name: str | None = None, **decorator_kwargs):
    """``func`` with each call a ``TraceAnnotation`` named ``name`` (default: its
    qualified name)."""
    name = name or getattr(func, "__qualname__", None) or func.__name__

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with TraceAnnotation(name, **decorator_kwargs):
            return func(*args, **kwargs)
    return wrapper


def start_server(port: int, requires_backend: bool = True):
    """Start the profiler server on ``port`` (TensorBoard's "capture profile");
    ``requires_backend``: create the XLA client first, so its devices are traced."""
    if _state["server"] is not None:
        raise ValueError("Only one profiler server can be active at a time.")
    if requires_backend:
        _backend.get().devices()
    _state["server"] = _prof.start_server(port)
    return _state["server"]


def stop_server() -> None:
    """Stop the profiler server."""
    if _state["server"] is None:
        raise ValueError("No active profiler server.")
    _state["server"] = None  # (dropping it stops it)


def device_memory_profile(backend: str | None = None) -> bytes:
    """The device memory (arrays and executables with their allocation sites) as a
    gzip-compressed pprof protocol buffer."""
    return gzip.compress(_prof.heap_profile(backend))


def save_device_memory_profile(filename, backend: str | None = None) -> None:
    """``device_memory_profile`` written to ``filename``."""
    with open(filename, "wb") as f:
        f.write(device_memory_profile(backend))


__all__ = ["ProfileOptions", "StepTraceAnnotation", "TraceAnnotation", "annotate_function",
           "device_memory_profile", "save_device_memory_profile", "start_server",
           "start_trace", "stop_server", "stop_trace", "trace"]
