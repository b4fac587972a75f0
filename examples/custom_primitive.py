"""A new primitive defined outside vmaplab: ``rms_norm`` (x / sqrt(mean(x**2) + eps) over the
last axis) as ONE operation, with its abstract evaluation, batching rule, StableHLO lowering
and jvp rule. It then works everywhere a built-in does: eager, jit, vmap (nested too),
control flow, the reference interpreter, and forward and reverse-mode differentiation (the
jvp rule's tangent half is made of built-in linear primitives, so reverse mode needs no
transpose rule of its own).

    python examples/custom_primitive.py
"""
import numpy as np

import frontend as fe
import frontend.numpy as fnp
from frontend.extend import Primitive, ShapedArray, instantiate_zeros, moveaxis

rms_norm_p = Primitive("rms_norm")


def rms_norm(x, eps=1e-6):
    """Normalize the last axis of ``x`` by its root mean square."""
    return rms_norm_p.bind(x, eps=float(eps))


@rms_norm_p.def_abstract_eval
def _rms_norm_abstract_eval(x, *, eps):
    if x.ndim == 0 or x.dtype.kind != "f":
        raise TypeError(f"rms_norm needs a floating array of rank >= 1, got {x}")
    return ShapedArray(x.shape, x.dtype)


@rms_norm_p.def_batching
def _rms_norm_batch(args, dims, *, eps):
    # every leading axis is independent, so the batch axis stays where it is, unless it is
    # the last axis (the normalized one): then it moves to the front
    (x,), (d,) = args, dims
    if d == x.ndim - 1:
        x, d = moveaxis(x, d, 0), 0
    return rms_norm_p.bind(x, eps=eps), d


@rms_norm_p.def_lowering
def _rms_norm_lowering(ctx, x, *, eps):
    (a,) = ctx.avals_in
    t = ctx.type(a)
    scalar = ShapedArray((), a.dtype)
    rows = ShapedArray(a.shape[:-1], a.dtype)
    sq = ctx.op(f"stablehlo.multiply {x}, {x} : {t}")
    zero = ctx.constant(0.0, scalar)
    total = ctx.op(f"stablehlo.reduce({sq} init: {zero}) applies stablehlo.add across "
                   f"dimensions = [{a.ndim - 1}] : ({t}, {ctx.type(scalar)}) -> {ctx.type(rows)}")
    n = ctx.broadcast(ctx.constant(float(a.shape[-1]), scalar), scalar, rows.shape, ())
    e = ctx.broadcast(ctx.constant(eps, scalar), scalar, rows.shape, ())
    mean = ctx.op(f"stablehlo.divide {total}, {n} : {ctx.type(rows)}")
    inv = ctx.op(f"stablehlo.rsqrt {ctx.op(f'stablehlo.add {mean}, {e} : {ctx.type(rows)}')} "
                 f": {ctx.type(rows)}")
    inv = ctx.broadcast(inv, rows, a.shape, tuple(range(a.ndim - 1)))
    return [ctx.op(f"stablehlo.multiply {x}, {inv} : {t}")]


@rms_norm_p.def_jvp
def _rms_norm_jvp(primals, tangents, *, eps):
    # y = x * r with r = (mean(x^2) + eps)^-1/2: dy = r * t - x * r^3 * mean(x * t)
    (x,), (t,) = primals, tangents
    t = instantiate_zeros(t)
    r = 1.0 / fnp.sqrt(fnp.mean(x * x, axis=-1, keepdims=True) + eps)
    y = rms_norm_p.bind(x, eps=eps)
    return y, r * t - x * r ** 3 * fnp.mean(x * t, axis=-1, keepdims=True)


def reference(x, eps=1e-6):
    x = np.asarray(x, np.float64)
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps)


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 4)).astype(np.float32)
    batch = rng.normal(size=(4, 5, 3)).astype(np.float32)   # batch on the middle axis

    print("graph of rms_norm on one example:")
    print(fe.make_graph(rms_norm)(x))
    f = fe.vmap(lambda e: rms_norm(e) * 2.0, in_axes=1)
    print("\nvmapped over axis 1 of a (4, 5, 3) batch (one primitive, no loop):")
    print(fe.make_graph(f)(batch))
    print("\nits StableHLO:")
    print(fe.jit(f).lower(batch).as_text())

    want = np.stack([reference(batch[:, i]) * 2.0 for i in range(5)])
    on_xla = fe.jit(f)(batch)
    on_interpreter = fe.jit(f, device="interpreter")(batch)
    print("eager   :", np.allclose(rms_norm(x), reference(x), atol=1e-5))
    print("XLA     :", np.allclose(on_xla, want, atol=1e-5))
    print("interp. :", np.allclose(on_interpreter, want, atol=1e-5))
    nested = fe.vmap(fe.vmap(rms_norm))(batch)
    print("vmap(vmap):", np.allclose(nested, reference(batch), atol=1e-5))
    scanned = fe.jit(lambda b: fe.lax.scan(lambda c, r: (c + rms_norm(r).sum(), None), 0.0, b)[0])
    print("in a scan body:", np.allclose(scanned(batch), reference(batch).sum(), atol=1e-4))
    for ok in (np.allclose(on_xla, want, atol=1e-5), np.allclose(on_interpreter, want, atol=1e-5),
               np.allclose(nested, reference(batch), atol=1e-5)):
        assert ok
    assert "stablehlo.while" not in fe.jit(f).lower(batch).as_text()
    print(fnp.round(on_xla[0], 3))

    # differentiation: the jvp rule gives forward mode, and reverse mode through it
    loss = lambda x: fnp.sum(fnp.sin(rms_norm(x)))  # noqa: E731
    g = fe.jit(fe.vmap(fe.grad(loss), in_axes=1, out_axes=1))(batch)
    eps, t = 1e-3, rng.normal(size=x.shape)
    fd = (np.sin(reference(x + eps * t)).sum() - np.sin(reference(x - eps * t)).sum()) / (2 * eps)
    print("grad . t vs finite differences:", float(np.sum(fe.grad(loss)(x) * t)), fd)
    assert abs(float(np.sum(fe.grad(loss)(x) * t)) - fd) < 1e-3 * max(1.0, abs(fd))
    assert np.allclose(g[:, 0], fe.grad(loss)(batch[:, 0]), atol=1e-5)


if __name__ == "__main__":
    main()
