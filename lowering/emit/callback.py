"""Host callbacks (frontend/callbacks.py): ``callback_p`` as a custom call to jaxlib's
host-callback FFI target, ``xla_ffi_python_cpu_callback``, whose ``index`` attribute picks
the Python function among those the executable was compiled with. The module text carries
a process-wide number for the function (``HOST_CALLBACKS``); the runtime renumbers them
into the list it passes to XLA when it compiles (lowering/runtime/xla.py). An ordered callback
takes and returns a ``!stablehlo.token``: the previous ordered callback's in the same
region (``FuncCtx.token``), so XLA runs them in program order.

For CUDA and ROCm (``lowering_platforms``) the same call goes to jaxlib's GPU target,
``xla_ffi_python_gpu_callback``, as JAX lowers it (the text only: this machine has no GPU to
run it); TPUs take JAX's send/recv host transfers, which vmaplab does not emit."""
from __future__ import annotations

from frontend.callbacks import callback_p

TARGET = "xla_ffi_python_cpu_callback"
TARGETS = {"cpu": TARGET, "cuda": "xla_ffi_python_gpu_callback",
           "rocm": "xla_ffi_python_gpu_callback"}
# number in the module text -> the host function XLA calls: flat numpy arrays in, a tuple
# out; one number per (HostFunction, result avals, kind, ordered): vmap binds the same
# function with batched result avals
HOST_CALLBACKS: dict = {}
_NUMBERS: dict = {}
_TOKEN = "!stablehlo.token"


def _host_function(callback, result_avals, kind: str, ordered: bool):
    avals = None if kind == "debug" else result_avals
    if ordered:
        def with_token(token, *xs):
            return (token, *callback.call(xs, avals))
        return with_token
    return lambda *xs: tuple(callback.call(xs, avals))


@callback_p.def_lowering
def _callback_lowering(ctx, *xs, callback, result_avals, kind, ordered, has_side_effect,
                       **_params):
    target = _target(ctx.platforms)
    key = (callback.id, result_avals, kind, ordered)
    index = _NUMBERS.get(key)
    if index is None:
        index = _NUMBERS[key] = len(_NUMBERS)
        HOST_CALLBACKS[index] = _host_function(callback, result_avals, kind, ordered)
    ins, in_types = list(xs), [ctx.type(a) for a in ctx.avals_in]
    out_types = [ctx.type(a) for a in ctx.avals_out]
    if ordered:
        fn = ctx.fn
        if fn.token is None:
            fn.token = ctx.op(f"stablehlo.after_all : {_TOKEN}")
        ins, in_types = [fn.token, *ins], [_TOKEN, *in_types]
        out_types = [_TOKEN, *out_types]
    effect = "true" if has_side_effect else "false"
    res = out_types[0] if len(out_types) == 1 else f"({', '.join(out_types)})"
    outs = ctx.op_results(
        f'stablehlo.custom_call @{target}({", ".join(ins)}) {{backend_config = "", '
        f'has_side_effect = {effect}, mhlo.backend_config = {{index = {index} : ui64}}}}'
        f' : ({", ".join(in_types)}) -> {res}', len(out_types))
    if ordered:
        ctx.fn.token, *outs = outs
    return outs


def _target(platforms) -> str:
    """The host-callback custom call of the platforms being lowered for (JAX's errors for
    the cases it does not lower)."""
    if len(platforms) > 1:
        raise NotImplementedError("multi-platform lowering for python_callback")
    p = platforms[0]
    if p not in TARGETS:
        raise NotImplementedError(f"host callbacks (pure_callback, io_callback, debug.print) "
                                  f"on {p}: JAX lowers them to send/recv host transfers there, "
                                  "which vmaplab does not emit")
    return TARGETS[p]
