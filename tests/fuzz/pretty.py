"""A fuzz program as readable, runnable Python (what a failure prints)."""
from __future__ import annotations

from .gen import TIE_VALUES


def _shapes(prog):
    from .run import batched_shapes
    return batched_shapes(prog)


def vmap_expr(prog, vmap="vmap", f=None) -> str:
    """``vmap(vmap(f, in_axes=..., out_axes=...), ...)``: innermost level applied first."""
    e = f or prog.fname
    for lv in reversed(prog.levels):
        e = f"{vmap}({e}, in_axes={prog.in_axes_arg(lv)!r}, out_axes={prog.out_axes_arg(lv)!r})"
    return e


def pretty(prog) -> str:
    lines = [
        f"# fuzz program (seed {prog.seed}); runs with np, lax = frontend.numpy, frontend.lax",
        "# and with np, lax = jax.numpy, jax.lax (vmap/jit" + ("/grad/vjp/jvp" if prog.ad else "")
        + " from frontend resp. jax)",
        prog.source().rstrip(),
        "",
        f"g = {vmap_expr(prog)}",
    ]
    if prog.jit:
        lines.append("g = jit(g)")
    for inp, shape in zip(prog.inputs, _shapes(prog), strict=True):
        rng = f", values in [{inp.lo}, {inp.hi}]" if inp.dtype == "int32" else (
            "" if inp.values == "normal" else f", {inp.values} values from {TIE_VALUES}")
        lines.append(f"# {inp.name}: {inp.dtype}{list(shape)} (per example {list(inp.shape)}{rng})")
    lines.append(f"g({', '.join(i.name for i in prog.inputs)})")
    lines.append(f"# replay: tests.fuzz.run.check_program({prog!r})")
    return "\n".join(lines)
