"""jaxlib's profiler, for frontend.profiler: trace sessions exported for TensorBoard /
Perfetto (``xplane.pb`` under ``<log_dir>/plugins/profile/<run>/``), named trace events
(TraceMe), the profiler server, and the client's device memory profile."""
from __future__ import annotations

from jaxlib import _profiler

from .xla import backend

ProfileOptions = _profiler.ProfileOptions
TraceMe = _profiler.TraceMe


def start_session(options=None):
    """A running profiler session (one at a time in a process)."""
    backend()  # (the client exists, so its devices are traced)
    return _profiler.ProfilerSession(options if options is not None else ProfileOptions())


def stop_and_export(session, log_dir: str) -> None:
    session.stop_and_export(log_dir)


def start_server(port: int):
    return _profiler.start_server(port)


def heap_profile(platform: str | None = None) -> bytes:
    """The client's device memory profile (pprof protocol buffer, uncompressed)."""
    return backend(platform).heap_profile()
