"""Events and durations for listeners (``frontend.monitoring``, as ``jax.monitoring``):
jit records ``/jax/core/compile/jaxpr_trace_duration`` and
``/jax/core/compile/backend_compile_duration`` (seconds) for each signature it traces and
compiles; users record their own with the same functions (kept in frontend.core.monitoring,
where every layer can record)."""
from .core.monitoring import (  # noqa: F401
    __all__,
    clear_event_listeners,
    record_event,
    record_event_duration_secs,
    record_event_time_span,
    record_scalar,
    register_event_duration_secs_listener,
    register_event_listener,
    register_event_time_span_listener,
    register_scalar_listener,
    unregister_event_duration_listener,
    unregister_event_listener,
    unregister_event_time_span_listener,
    unregister_scalar_listener,
)
