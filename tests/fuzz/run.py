"""Run a fuzz program three ways and compare: ours batched (fe.vmap, maybe under fe.jit), ours
as a per-example Python loop stacked with fnp.stack, and JAX (jax.vmap, jax.jit)."""
from __future__ import annotations

import traceback

import numpy as np

from .gen import BF16, BOOL, INT, TIE_VALUES, _np_dtype
from .pretty import pretty


class FuzzMismatch(AssertionError):
    pass


def batched_shapes(prog) -> list:
    """Shape of each argument of the batched function (levels applied innermost first)."""
    shapes = []
    for i, inp in enumerate(prog.inputs):
        shape = list(inp.shape)
        for lv in reversed(prog.levels):
            ax = lv.in_axes[i]
            if ax is not None:
                shape.insert(ax % (len(shape) + 1), lv.size)
        shapes.append(tuple(shape))
    return shapes


def make_args(prog) -> list:
    rng = np.random.default_rng(prog.seed)
    out = []
    for inp, shape in zip(prog.inputs, batched_shapes(prog), strict=True):
        if inp.dtype == BOOL:
            x = rng.integers(0, 2, size=shape).astype(bool)
        elif inp.dtype == INT:
            x = rng.integers(inp.lo, inp.hi + 1, size=shape).astype(np.int32)
        elif inp.values == "ties":
            x = rng.choice(np.array(TIE_VALUES), size=shape).astype(_np_dtype(inp.dtype))
        elif inp.values == "equal":
            x = np.full(shape, rng.choice(np.array(TIE_VALUES)), _np_dtype(inp.dtype))
        else:
            x = (rng.normal(size=shape) * 1.5).astype(_np_dtype(inp.dtype))
        out.append(x)
    return out


def _nest(f, prog, vmap):
    g = f
    for lv in reversed(prog.levels):
        g = vmap(g, in_axes=prog.in_axes_arg(lv), out_axes=prog.out_axes_arg(lv))
    return g


def _loop(fn, lv, stack):
    """The per-example loop of one vmap level: slice the mapped arguments, call, stack."""
    def looped(*args):
        results = []
        for b in range(lv.size):
            sl = [a if ax is None else np.take(a, b, axis=ax) for a, ax in zip(args, lv.in_axes, strict=True)]
            results.append(fn(*sl))
        single = not isinstance(results[0], tuple)
        rows = [(r,) if single else r for r in results]
        outs = []
        for j, ax in enumerate(lv.out_axes):
            if ax is None:
                outs.append(rows[0][j])
            else:
                outs.append(stack([r[j] for r in rows], axis=ax))
        return outs[0] if single else tuple(outs)
    return looped


def _leaves(x):
    return list(x) if isinstance(x, tuple) else [x]


def _tol(dtype, ref, low_precision=False):
    scale = float(np.max(np.abs(ref.astype(np.float64)[np.isfinite(ref.astype(np.float64))]), initial=1.0))
    if np.dtype(dtype) == _np_dtype(BF16) or low_precision:
        return dict(rtol=5e-2, atol=5e-2 * scale)
    return dict(rtol=2e-4, atol=2e-4 * scale)


def compare(got, ref, what: str, weak: bool = True, low_precision: bool = False) -> None:
    """Equal structure, shapes, dtypes, weak types and values; ``low_precision``: bfloat16
    tolerances for every float output (derivatives of bfloat16 computations are rounded at
    different points by different but equally valid rules)."""
    gl, rl = _leaves(got), _leaves(ref)
    if len(gl) != len(rl):
        raise FuzzMismatch(f"{what}: {len(gl)} outputs vs {len(rl)}")
    for k, (g, r) in enumerate(zip(gl, rl, strict=True)):
        gn, rn = np.asarray(g), np.asarray(r)
        if gn.shape != rn.shape:
            raise FuzzMismatch(f"{what}: output {k} shape {gn.shape} vs {rn.shape}")
        if gn.dtype != rn.dtype:
            raise FuzzMismatch(f"{what}: output {k} dtype {gn.dtype} vs {rn.dtype}")
        # a weak bool promotes like a strong one (bool sits below the weak types in the
        # lattice), and JAX's weak flag on bool results depends on rank (logical_and(2, x) is
        # weak for a scalar x, strong for an array x, under the same jaxpr), so it is not
        # compared for bool outputs
        if weak and gn.dtype != np.bool_ and hasattr(g, "weak_type") and hasattr(r, "weak_type") \
                and g.weak_type != r.weak_type:
            raise FuzzMismatch(f"{what}: output {k} weak_type {g.weak_type} vs {r.weak_type}")
        if gn.dtype.kind == "f" or gn.dtype == _np_dtype(BF16):
            a, b = gn.astype(np.float64), rn.astype(np.float64)
            try:
                np.testing.assert_allclose(a, b, equal_nan=True,
                                           **_tol(gn.dtype, rn, low_precision))
            except AssertionError as e:
                raise FuzzMismatch(f"{what}: output {k} values differ\n{e}") from None
        elif not np.array_equal(gn, rn):
            raise FuzzMismatch(f"{what}: output {k} values differ\n ours {gn!r}\n ref  {rn!r}")


def run_ours(prog, args):
    import frontend as fe
    import frontend.numpy as fnp
    from frontend import lax
    f = prog.function(fnp, lax, fe)
    g = _nest(f, prog, fe.vmap)
    if prog.jit:
        return fe.jit(g)(*args)
    # eagerly, unmapped inputs are frontend Arrays (JAX's oracle runs under jit, where they are
    # arrays too; a raw numpy array indexed by a tracer fails in both systems alike)
    return g(*[fnp.asarray(a) for a in args])


def run_loop(prog, args):
    import frontend as fe
    import frontend.numpy as fnp
    from frontend import lax
    # the per-example function is jitted (one compile instead of one per op; the batched
    # run covers the eager path when prog.jit is off)
    g = fe.jit(prog.function(fnp, lax, fe))
    for lv in reversed(prog.levels):
        g = _loop(g, lv, fnp.stack)
    return g(*args)


def run_jax(prog, args):
    import jax
    import jax.numpy as jnp
    f = prog.function(jnp, jax.lax, jax)
    return jax.jit(_nest(f, prog, jax.vmap))(*args)  # the oracle: always one compile


def _check_rejected(prog, args, exc_type):
    """JAX rejected the program with ``exc_type``: ours must raise it too."""
    try:
        run_ours(prog, args)
    except exc_type:
        return
    except Exception as e:
        raise FuzzMismatch(f"JAX raised {exc_type.__name__}, ours raised {type(e).__name__}: {e}"
                           f"\n\n{pretty(prog)}") from None
    raise FuzzMismatch(f"JAX raised {exc_type.__name__}, ours did not\n\n{pretty(prog)}")


def check_program(prog) -> str:
    """Run the three ways and compare; raise FuzzMismatch (with the program printed) on any
    disagreement. Returns 'ok' or 'jax-rejected' (JAX itself raised: not a valid program)."""
    args = make_args(prog)
    try:
        ref = run_jax(prog, args)
    except Exception as e:
        if prog.ad and "Reverse-mode differentiation does not work" in str(e):
            _check_rejected(prog, args, type(e))  # reverse mode through while_loop: ours too
        return "jax-rejected"
    try:
        got = run_ours(prog, args)
        # bfloat16 anywhere: JAX's jitted reference may keep a bf16 product in float32 when
        # XLA fuses it into a float32 consumer (excess precision), so float outputs computed
        # from bf16 values get bfloat16 tolerances (found by the fuzzer, seed 100124)
        low = "bfloat16" in prog.source() + repr(prog.inputs)
        compare(got, ref, "ours batched vs JAX", low_precision=low)
        loop = run_loop(prog, args)
        compare(loop, ref, "ours per-example loop vs JAX", weak=False, low_precision=low)
        compare(got, loop, "ours batched vs ours loop", weak=False, low_precision=low)
    except FuzzMismatch as e:
        raise FuzzMismatch(f"{e}\n\n{pretty(prog)}") from None
    except Exception as e:
        raise FuzzMismatch(f"ours raised {type(e).__name__}: {e}\n"
                           f"{''.join(traceback.format_exc(limit=-6))}\n{pretty(prog)}") from None
    return "ok"
