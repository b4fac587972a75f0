"""Shared checks for op-table tests: ours vs JAX (jit and eager), vmap vs a Python loop with
the batch axis at every position, StableHLO verification."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import frontend as fe
import frontend.numpy as fnp
from lowering import runtime

RNG = np.random.default_rng(0)


def project_primitives() -> dict:
    """name -> primitive, for every primitive defined in the frontend package (tests may
    define their own; those are not the project's)."""
    import sys

    from frontend.core.ir import Primitive
    out: dict = {}
    for mname, m in list(sys.modules.items()):
        if mname == "frontend" or mname.startswith("frontend."):
            for v in vars(m).values():
                if isinstance(v, Primitive):
                    assert out.setdefault(v.name, v) is v, f"two built-in primitives named {v.name}"
    return out


def is_collective(p) -> bool:
    """A collective over named axes: vmap resolves it before lowering; inside shard_map it
    lowers to XLA's collective."""
    from frontend.interpreters.named_axes import CollectivePrimitive
    return isinstance(p, CollectivePrimitive)


def takes_operands(p) -> bool:
    """Whether a primitive's abstract eval takes array operands (iota takes none: vmap never
    batches it, so it needs no batching rule)."""
    import inspect
    ps = inspect.signature(p.abstract_eval_rule).parameters.values()
    return any(q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD, q.VAR_POSITIONAL) for q in ps)


def rand(shape, dtype=np.float32, rng=RNG, low=-3, high=3):
    """Random test data of a dtype (ints in [low, high), bools, floats normal)."""
    d = np.dtype(dtype)
    if d == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    if d.kind in "iu":
        lo = max(low, 0) if d.kind == "u" else low
        return rng.integers(lo, high, size=shape).astype(d)
    return rng.normal(size=shape).astype(d)


def _tol(dtype):
    d = np.dtype(dtype)
    if d.itemsize <= 2:
        return dict(rtol=2e-2, atol=2e-2)
    if d == np.float64:
        return dict(rtol=1e-10, atol=1e-10)
    return dict(rtol=2e-5, atol=2e-5)


def assert_same_bits(ours, theirs, what=""):
    """``assert_same`` on dicts of arrays, then every array bit for bit (random samplers)."""
    assert_same(ours, theirs, what)
    for name in theirs:
        o, t = np.asarray(ours[name]), np.asarray(theirs[name])
        assert o.tobytes() == t.tobytes(), f"{what}: {name} differs in its bits"


def assert_same(ours, theirs, what=""):
    """Same pytree structure, shapes, dtypes, weak types (when JAX reports it) and values."""
    ol, otd = fe.tree_util.tree_flatten(ours) if hasattr(fe, "tree_util") else _flat(ours)
    tl, ttd = jax.tree_util.tree_flatten(theirs)
    assert len(ol) == len(tl), f"{what}: {len(ol)} outputs vs JAX {len(tl)}"
    for o, t in zip(ol, tl, strict=True):
        o_np = np.asarray(o)
        t_np = np.asarray(t)
        assert o_np.shape == t_np.shape, f"{what}: shape {o_np.shape} vs JAX {t_np.shape}"
        assert o_np.dtype == t_np.dtype, f"{what}: dtype {o_np.dtype} vs JAX {t_np.dtype}"
        if hasattr(t, "weak_type") and hasattr(o, "weak_type"):
            assert o.weak_type == t.weak_type, f"{what}: weak_type {o.weak_type} vs JAX {t.weak_type}"
        if o_np.dtype.kind in "fc" or o_np.dtype == jnp.bfloat16:
            np.testing.assert_allclose(o_np.astype(np.float64) if o_np.dtype.kind != "c" else o_np,
                                       t_np.astype(np.float64) if t_np.dtype.kind != "c" else t_np,
                                       err_msg=what, equal_nan=True, **_tol(o_np.dtype))
        else:
            np.testing.assert_array_equal(o_np, t_np, err_msg=what)


def _flat(x):
    from frontend.core.pytree import tree_flatten
    return tree_flatten(x)


def check_vs_jax(f_ours, f_jax, *args, eager=True, jit=True):
    """f_ours and f_jax on the same numpy args: equal under jit, and eagerly."""
    expected = jax.jit(f_jax)(*args)
    if jit:
        assert_same(fe.jit(f_ours)(*args), expected, "jit")
        verify(fe.jit(f_ours).lower(*args).as_text())
    if eager:
        assert_same(f_ours(*args), f_jax(*args), "eager")


class GroupedJit:
    """Table rows compared with JAX under jit, traced ``size`` at a time into one program per
    side (the rows' outputs independent; each row still compared on its own), so a table
    spends less in XLA's per-program overhead. ``rows``: {key: (ours, theirs, arrays)}, the
    row's function of its array arguments on each side. ``result(key)`` is (ours, theirs), or
    None when the row's group failed to trace, compile or run on either side: the caller then
    runs that row alone, which reports the row's own error."""

    def __init__(self, rows: dict, size: int = 64):
        self._rows = rows
        keys = list(rows)
        self._where = {k: (i // size, i % size) for i, k in enumerate(keys)}
        self._groups = [keys[j:j + size] for j in range(0, len(keys), size)]
        self._results: dict = {}

    def __contains__(self, key) -> bool:
        return key in self._where

    def result(self, key):
        g, k = self._where[key]
        if g not in self._results:
            rows = [self._rows[m] for m in self._groups[g]]
            arrays = [r[2] for r in rows]

            def side(j):
                return lambda *per_row: [r[j](*a) for r, a in zip(rows, per_row, strict=True)]
            try:
                theirs = jax.jit(side(1))(*arrays)
                self._results[g] = (fe.jit(side(0))(*arrays), theirs)
            except Exception:  # (each row of the group runs alone)
                self._results[g] = None
        res = self._results[g]
        return None if res is None else (res[0][k], res[1][k])


def verify(text: str) -> str:
    runtime.verify(text)
    return text


def stablehlo(f, *args) -> str:
    return verify(fe.jit(f).lower(*args).as_text())


def _take(x, i, axis):
    return np.take(x, i, axis=axis)


def loop_reference(f, args, in_axes, out_axis=0):
    """The per-example Python loop: f on each slice, results stacked with fnp.stack."""
    size = next(np.shape(a)[ax] for a, ax in zip(args, in_axes, strict=True) if ax is not None)
    outs = []
    for i in range(size):
        outs.append(f(*[a if ax is None else _take(a, i, ax) for a, ax in zip(args, in_axes, strict=True)]))
    leaves = [_flat(o)[0] for o in outs]
    td = _flat(outs[0])[1]
    stacked = [fnp.stack([l[k] for l in leaves], axis=out_axis) for k in range(len(leaves[0]))]
    return td.unflatten(stacked)


def axis_variants(ndim_per_arg):
    """in_axes combinations: for each argument the batch axis at the front, middle, end,
    negative, and None for each operand in turn (at least one mapped)."""
    variants = set()
    n = len(ndim_per_arg)
    for pos in ("front", "middle", "end", "neg"):
        axes = []
        for nd in ndim_per_arg:
            full = nd + 1
            axes.append({"front": 0, "middle": full // 2, "end": full - 1, "neg": -1}[pos])
        variants.add(tuple(axes))
    if n > 1:
        for k in range(n):
            axes = [0] * n
            axes[k] = None
            variants.add(tuple(axes))
            mixed = [full_end(nd) for nd in ndim_per_arg]
            mixed[k] = None
            variants.add(tuple(mixed))
    return sorted(variants, key=str)


def full_end(nd):
    return nd


def batch_inputs(args, in_axes, size=3, rng=RNG, makers=None):
    """Stack ``size`` random variants of each mapped example argument along its axis."""
    out = []
    for k, (a, ax) in enumerate(zip(args, in_axes, strict=True)):
        if ax is None:
            out.append(a)
            continue
        a = np.asarray(a)
        mk = makers[k] if makers else (lambda: rand(a.shape, a.dtype, rng))  # noqa: B023
        stack = np.stack([a] + [mk() for _ in range(size - 1)], axis=0)
        out.append(np.moveaxis(stack, 0, ax % (a.ndim + 1)))
    return out


def check_vmap(f, example_args, *, f_jax=None, makers=None, variants=None, size=3, nested=True):
    """vmap(f) equals the stacked per-example loop and jax.vmap(f_jax), for every in_axes
    variant under jit; eagerly (op by op: the same batching rules, run by the eager
    dispatcher) for the first variant; plus a doubly nested vmap."""
    nds = [np.ndim(a) for a in example_args]
    eager = True
    for axes in variants or axis_variants(nds):
        if all(ax is None for ax in axes):
            continue
        args = batch_inputs(example_args, axes, size, makers=makers)
        ref = loop_reference(f, args, axes)
        got = fe.jit(fe.vmap(f, in_axes=axes))(*args)
        assert_same(got, ref, f"jit(vmap) in_axes={axes} vs loop")
        if eager:
            assert_same(fe.vmap(f, in_axes=axes)(*args), ref, f"vmap in_axes={axes} vs loop")
            eager = False
        if f_jax is not None:
            assert_same(got, jax.jit(jax.vmap(f_jax, in_axes=axes))(*args),
                        f"vmap in_axes={axes} vs jax.vmap")
    if nested:
        axes0 = tuple(0 for _ in example_args)
        inner = batch_inputs(example_args, axes0, size, makers=makers)
        outer = batch_inputs(inner, tuple(-1 for _ in inner), 2,
                             makers=[(lambda a=a: rand(np.shape(a), np.asarray(a).dtype)) for a in inner]
                             if makers is None else None)
        got = fe.jit(fe.vmap(fe.vmap(f, in_axes=axes0), in_axes=tuple(-1 for _ in inner)))(*outer)
        ref = loop_reference(lambda *a: loop_reference(f, a, axes0), outer, tuple(-1 for _ in inner))
        assert_same(got, ref, "nested vmap")


def light_variants(args):
    """Batch axis at the front and at the end of every operand, and (several operands) the
    first one unbatched."""
    n = len(args)
    out = [(0,) * n, tuple(np.ndim(a) for a in args)]
    if n > 1:
        out.append((None,) + (-1,) * (n - 1))
    return out


def zero_batch_variants(f, example_args, graph=None):
    """vmap(f) over a batch of size 0, every operand batched and (with several operands) each
    one alone: a list of (batched function, arguments, expected [(shape, dtype)] of the
    outputs). The loop over no examples stacks nothing, so each output is (0, *its
    per-example shape) with the per-example dtype (from ``graph``, f's traced graph)."""
    graph = graph if graph is not None else fe.make_graph(f)(*example_args)
    expect = [((0,) + v.aval.shape, v.aval.dtype) for v in graph.outvars]
    args = [np.asarray(a) for a in example_args]
    n = len(args)
    variants = [tuple([0] * n)] + ([tuple(0 if j == k else None for j in range(n))
                                    for k in range(n)] if n > 1 else [])
    out = []
    for axes in variants:
        zargs = [np.zeros((0,) + a.shape, a.dtype) if ax == 0 else a
                 for a, ax in zip(args, axes, strict=True)]
        out.append((fe.vmap(f, in_axes=axes), zargs, expect))
    return out
