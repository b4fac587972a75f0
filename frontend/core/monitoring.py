"""Events and durations for listeners (``frontend.monitoring``, as ``jax.monitoring``):
jit records ``/jax/core/compile/jaxpr_trace_duration`` and
``/jax/core/compile/backend_compile_duration`` (seconds) for each signature it traces and
compiles; users record their own with the same functions."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

# kind -> the listeners registered for it
_LISTENERS: dict[str, list[Callable[..., Any]]] = {
    "event": [], "duration": [], "time_span": [], "scalar": []}


def _emit(kind: str, *args: Any, **kwargs: Any) -> None:
    for fn in list(_LISTENERS[kind]):
        fn(*args, **kwargs)


def record_event(event: str, **kwargs: str | int) -> None:
    """Tell every event listener ``callback(event, **kwargs)``."""
    _emit("event", event, **kwargs)


def record_event_duration_secs(event: str, duration: float, **kwargs: str | int) -> None:
    """Tell every duration listener ``callback(event, duration, **kwargs)``."""
    _emit("duration", event, duration, **kwargs)


def record_event_time_span(event: str, start_time: float, end_time: float,
                           **kwargs: str | int) -> None:
    """Tell every time-span listener ``callback(event, start_time, end_time, **kwargs)``."""
    _emit("time_span", event, start_time, end_time, **kwargs)


def record_scalar(event: str, value: float | int, **kwargs: str | int) -> None:
    """Tell every scalar listener ``callback(event, value, **kwargs)``."""
    _emit("scalar", event, value, **kwargs)


def _register(kind: str) -> Callable[[Callable[..., Any]], None]:
    def register(callback: Callable[..., Any]) -> None:
        _LISTENERS[kind].append(callback)
    register.__doc__ = f"Add a {kind} listener."
    return register


def _unregister(kind: str) -> Callable[[Callable[..., Any]], None]:
    def unregister(callback: Callable[..., Any]) -> None:
        if callback not in _LISTENERS[kind]:
            raise AssertionError(f"callback {callback} not registered.")
        _LISTENERS[kind].remove(callback)
    unregister.__doc__ = f"Remove a {kind} listener."
    return unregister


register_event_listener = _register("event")
register_event_duration_secs_listener = _register("duration")
register_event_time_span_listener = _register("time_span")
register_scalar_listener = _register("scalar")
unregister_event_listener = _unregister("event")
unregister_event_duration_listener = _unregister("duration")
unregister_event_time_span_listener = _unregister("time_span")
unregister_scalar_listener = _unregister("scalar")


def clear_event_listeners() -> None:
    """Remove every listener."""
    for fns in _LISTENERS.values():
        fns.clear()


__all__ = ["clear_event_listeners", "record_event", "record_event_duration_secs",
           "record_event_time_span", "record_scalar", "register_event_duration_secs_listener",
           "register_event_listener", "register_event_time_span_listener",
           "register_scalar_listener", "unregister_event_duration_listener",
           "unregister_event_listener", "unregister_event_time_span_listener",
           "unregister_scalar_listener"]
