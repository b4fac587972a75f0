"""Op table, autodiff columns: for every differentiable primitive, its jvp and vjp (through
rows that exercise it via frontend.numpy / frontend.lax) equal JAX's (jax.jvp / jax.vjp on
the same inputs, float32), and in float64 the jvp matches central finite differences and the
vjp is its transpose (<ct, J t> == <J^T ct, t>).

Two more columns, so derivatives at kinks and of higher order cannot drift from JAX's:
- ties and edges: every row of a table in TIE_TABLES also runs at a derived input
  (``tie_args``: zeros, +-0, repeated values, operands equal at every other element) in the
  same program, compared with JAX's (NaN where JAX has NaN), no finite differences;
- higher orders: the jvp of the jvp ... up to ``order`` (the table's ORDER, or the row's),
  nested inside the same program.

To stay fast, each family is one table: one jitted program computes every row's jvp and vjp
(one compile for ours, one for JAX, one float64 program for the finite differences), and a
mismatch still names its row."""
from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np
import pytest
from harness import assert_same, project_primitives
from jax import lax as jlax
from jax.custom_batching import custom_vmap as jax_custom_vmap

import frontend as fe
import frontend.numpy as fnp
import frontend.scipy.special as fsp
from frontend import lax
from frontend.custom_batching import custom_vmap
from frontend.interpreters.ad_util import Zero, float0

RNG = np.random.default_rng(7)
OURS = SimpleNamespace(np=fnp, lax=lax, nn=fe.nn, sp=fsp, jvp=fe.jvp, vjp=fe.vjp, custom_jvp=fe.custom_jvp,
                       custom_vjp=fe.custom_vjp, checkpoint=fe.checkpoint, custom_vmap=custom_vmap)
JAX = SimpleNamespace(np=jnp, lax=jlax, nn=jax.nn, sp=jsp, jvp=jax.jvp, vjp=jax.vjp, custom_jvp=jax.custom_jvp,
                      custom_vjp=jax.custom_vjp, checkpoint=jax.checkpoint,
                      custom_vmap=jax_custom_vmap)


@dataclasses.dataclass
class Row:
    name: str
    fn: object        # M -> function of the args (M: OURS or JAX)
    args: list        # numpy arrays; the float ones are differentiated
    fd: bool = True   # check against finite differences (not at a kink or tie)
    vjp: bool = True  # reverse mode applies (not through while_loop)
    jvp: bool = True  # forward mode applies (not through a custom_vjp function)
    order: int | None = None  # nested jvps up to this order (None: the table's ORDER)
    ties: bool = True  # in a TIE_TABLES table: also run at tie_args(args)


# values of the derived tie/edge inputs: zeros of both signs, repeated values (ties of
# max/sort along either axis of a (3, 4) array), +-1, +-2
TIE_PATTERN = np.array([0, 1, 1, 0, 2, 2, -1, -0.0, 2, -2, 1, 0.5])


def tie_args(args):
    """The tie/edge input of a row: its float args filled from TIE_PATTERN; float args of
    the first one's shape equal to it at every other element (x == y there) and shifted
    elsewhere (x = 0 with y != 0, ...); other args (indices) as they are."""
    out, first = [], None
    for a in args:
        a = np.asarray(a)
        if a.dtype.kind != "f":
            out.append(a)
            continue
        n = max(a.size, 1)
        p = np.resize(TIE_PATTERN, n).astype(a.dtype)
        if first is None:
            first = a.shape
        elif a.shape == first:
            p = np.where(np.arange(n) % 2 == 0, p, np.roll(p, 3))
        out.append(p.reshape(a.shape))
    return out


def with_ties(rows):
    """Per row: its args, or for a row with ``ties`` its args and its tie_args stacked along
    a new leading axis (the row's program then runs at both, in one lax.map: one more loop
    trip, not one more copy of the row to compile)."""
    return [[np.stack([np.asarray(a), t]) for a, t in zip(r.args, tie_args(r.args), strict=True)]
            if r.ties else r.args for r in rows]


def f32(*shape, pos=False, scale=1.0):
    x = RNG.normal(size=shape) * scale
    return (np.abs(x) + 0.5 if pos else x).astype(np.float32)


def i32(*shape, lo=0, hi=3):
    return RNG.integers(lo, hi, size=shape).astype(np.int32)


X, Y = f32(3, 4), f32(3, 4)


def unary(name, args=None, **kw):
    return Row(name, lambda M: getattr(M.lax, name), args or [f32(3, 4)], **kw)


ELEMENTWISE = [
    unary("neg"), unary("sign", fd=False), unary("exp", order=6), unary("log", [f32(3, 4, pos=True)], order=6),
    unary("log1p", [f32(3, 4, pos=True)]), unary("expm1"), unary("tanh", order=6), unary("logistic"),
    unary("sin", order=6), unary("cos"), unary("tan", [f32(3, 4, scale=0.5)]),
    unary("sqrt", [f32(3, 4, pos=True)]), unary("rsqrt", [f32(3, 4, pos=True)]),
    unary("floor", fd=False), unary("ceil", fd=False), unary("abs"),
    Row("round", lambda M: M.np.round, [f32(3, 4)], fd=False),
    Row("add", lambda M: M.lax.add, [X, Y]), Row("sub", lambda M: M.lax.sub, [X, Y]),
    Row("mul", lambda M: M.lax.mul, [X, Y]), Row("div", lambda M: M.lax.div, [X, f32(3, 4, pos=True)], order=6),
    Row("rem", lambda M: M.lax.rem, [f32(3, 4) * 3, f32(3, 4, pos=True)]),
    Row("pow", lambda M: M.lax.pow, [f32(3, 4, pos=True), f32(3, 4)], order=6),
    Row("max", lambda M: M.lax.max, [X, Y]), Row("min", lambda M: M.lax.min, [X, Y]),
    Row("max ties", lambda M: lambda x, y: M.lax.max(M.np.round(x) * x, M.np.round(y) * x),
        [np.array([[0.2, 1.6], [-0.3, 2.0]], np.float32), np.array([[0.4, 1.7], [0.1, 2.2]], np.float32)],
        fd=False),
    Row("atan2", lambda M: M.lax.atan2, [X, Y]),
    Row("compare/select", lambda M: lambda x, y: M.np.where(x > y, x * y, M.np.where(
        M.lax.le(x, 0.3) | M.lax.eq(x, y) | M.lax.ne(y, 1.0) & M.lax.ge(y, x) | (x < 0),
        x, -y)), [X, Y]),
    Row("select scalar pred", lambda M: lambda x, y: M.lax.select(M.np.sum(x) > 0, x, y), [X, Y]),
    Row("rank-0 operands", lambda M: lambda x, s: M.np.multiply(x, s) + M.np.subtract(s, x) / s
        - M.np.maximum(s, x), [X, np.float32(0.7)]),
    Row("convert", lambda M: lambda x: M.lax.convert_element_type(x, np.float16) * 2
        + x * M.lax.convert_element_type(x, np.int32), [X], fd=False),
    Row("stop_gradient", lambda M: lambda x: x * M.lax.stop_gradient(x * x), [X], fd=False),
]

SHAPE = [
    Row("broadcast_in_dim", lambda M: lambda x: M.lax.broadcast_in_dim(x[:, :1], (2, 3, 4), (1, 2)), [X]),
    Row("reshape/transpose", lambda M: lambda x: M.np.transpose(x.reshape(2, 6), (1, 0)), [X]),
    Row("squeeze/expand", lambda M: lambda x: M.np.squeeze(M.np.expand_dims(x, 1), 1) * x, [X]),
    Row("rev", lambda M: lambda x: M.lax.rev(x, (0, 1)), [X]),
    Row("reduce_sum", lambda M: lambda x: M.np.sum(x, axis=1), [X]),
    Row("slice", lambda M: lambda x: x[::2, 1::2] * x[1:, :2][:2, 1:], [X]),
    Row("pad", lambda M: lambda x, v: M.lax.pad(x, v, ((1, -1, 2), (0, 2, 1))), [X, np.float32(0.3)]),
    Row("concatenate", lambda M: lambda x, y: M.np.concatenate([x, y[:, :1], x], axis=1), [X, Y]),
]

REDUCTIONS = [
    Row("reduce_prod", lambda M: lambda x: M.np.prod(x, axis=1) + M.np.prod(x[:, :3]), [X]),
    Row("reduce_max", lambda M: lambda x: M.np.max(x, axis=0), [X]),
    Row("reduce_min", lambda M: lambda x: M.np.min(x), [X]),
    Row("reduce_max ties", lambda M: lambda x: M.np.max(M.np.round(x) * x, axis=1),
        [np.array([[1.2, 1.1, 0.3], [0.2, -1.0, 0.4]], np.float32)], fd=False),
    Row("argmax/argmin", lambda M: lambda x: x * M.np.argmax(x, axis=1)[:, None]
        - M.np.argmin(x, axis=0), [X]),
    Row("cumsum", lambda M: lambda x: M.lax.cumsum(x, 1, reverse=True) + M.lax.cumsum(x, 0), [X]),
    Row("cumprod", lambda M: lambda x: M.lax.cumprod(x, 1) + M.lax.cumprod(x, 0, reverse=True), [X]),
    Row("cummax", lambda M: lambda x: M.lax.cummax(x, 1) + M.lax.cummax(x, 0, reverse=True), [X]),
    Row("cummin", lambda M: lambda x: M.lax.cummin(x, 0), [X]),
    Row("cummax ties", lambda M: lambda x: M.lax.cummax(M.np.round(x) * x, 1),
        [np.array([[1.2, 1.1, 0.3, 1.4, -2.0]], np.float32)], fd=False),
]

IDX = np.array([3, 0, 3, -1, 6], np.int32)
UNIQUE = np.array([2, 0, 1], np.int32)
INDEXING = [
    Row("dynamic_slice", lambda M: lambda x, i: M.lax.dynamic_slice(x, (i, i - 2), (2, 3)),
        [f32(4, 5), np.int32(3)]),
    Row("dynamic_update_slice", lambda M: lambda x, u, i: M.lax.dynamic_update_slice(x, u, (i, i - 2)),
        [f32(4, 5), f32(2, 3), np.int32(3)]),
    # an out-of-bounds index reads the clamped row but gets no cotangent (as JAX): the vjp is
    # then no transpose of the jvp, so only the in-bounds row is finite-differenced
    Row("gather", lambda M: lambda x, i: x[i] * 2 + M.np.sum(x[:, i[:2]] ** 2), [f32(4, 5), IDX],
        fd=False),
    Row("gather in bounds", lambda M: lambda x, i: x[i] * x[i[::-1]], [f32(4, 5), IDX % 4]),
    Row("gather clip/fill", lambda M: lambda x: M.np.take(x, IDX, axis=0, mode="clip")
        + M.np.take(x, IDX, axis=0, mode="fill", fill_value=0.0), [f32(4, 5)]),
    Row("scatter_add", lambda M: lambda x, u: x.at[IDX].add(u), [f32(4, 5), f32(5, 5)]),
    Row("scatter", lambda M: lambda x, u: x.at[IDX].set(u), [f32(4, 5), f32(5, 5)]),
    Row("scatter unique", lambda M: lambda x, u: x.at[UNIQUE].set(u, unique_indices=True),
        [f32(4, 5), f32(3, 5)]),
    Row("scatter_mul", lambda M: lambda x, u: x.at[IDX].multiply(2.0)
        + x.at[UNIQUE].multiply(u[:3], unique_indices=True), [f32(4, 5), f32(5, 5)]),
    Row("scatter_max", lambda M: lambda x, u: x.at[IDX].max(u), [f32(4, 5), f32(5, 5)]),
    Row("scatter_min", lambda M: lambda x, u: x.at[IDX].min(u), [f32(4, 5), f32(5, 5)]),
    Row("scatter_min ties", lambda M: lambda x, u: (M.np.round(x) * x[0]).at[IDX].min(M.np.round(u) * x[0]),
        [f32(4, 5, scale=2), f32(5, 5, scale=2)], fd=False),
]

LINALG = [
    Row("matmul", lambda M: lambda a, b: a @ b, [f32(3, 4), f32(4, 5)]),
    Row("batched matmul", lambda M: lambda a, b: a @ b, [f32(2, 3, 4), f32(2, 4, 5)]),
    Row("matvec", lambda M: lambda a, b: a @ b, [f32(4), f32(4, 5)]),
    Row("dot_general", lambda M: lambda a, b: M.lax.dot_general(
        a, b, (((2, 0), (0, 3)), ((1,), (2,)))), [f32(3, 2, 4, 2), f32(4, 2, 2, 3)]),
    Row("einsum", lambda M: lambda a, b: M.np.einsum("ij,kj->ik", a, b), [f32(3, 4), f32(5, 4)]),
]


def _custom_fns(M):
    """A custom_jvp, a custom_vjp and a custom_vmap function, and linear custom functions
    applied to tangents inside a jvp rule (so reverse mode meets the call primitives)."""
    @M.custom_jvp
    def softplus(x):
        return M.np.log1p(M.np.exp(x))

    @softplus.defjvp
    def _(p, t):
        return softplus(p[0]), t[0] * M.lax.logistic(p[0])

    @M.custom_vjp
    def clip_grad(x, y):
        return x * y

    clip_grad.defvjp(lambda x, y: (x * y, (x, y)),
                     lambda r, g: (M.np.clip(g * r[1], -0.5, 0.5), g * r[0]))

    @M.custom_jvp
    def double(x):
        return x * 2.0

    double.defjvp(lambda p, t: (double(p[0]), double(t[0])))

    @M.custom_jvp
    def diff(x, y):
        return x - y

    diff.defjvp(lambda p, t: (diff(*p), t[0] - t[1]))

    @M.custom_jvp
    def sin2(x):
        return M.np.sin(x) * 2.0

    sin2.defjvp(lambda p, t: (sin2(p[0]), double(M.np.cos(p[0]) * t[0])))

    @M.custom_vmap
    def vsin(x):
        return M.np.sin(x)

    @vsin.def_vmap
    def _(n, b, x):
        return M.np.sin(x), b[0]

    return softplus, clip_grad, sin2, vsin, diff


CONTROL = [
    Row("cond", lambda M: lambda x, w: M.lax.cond(M.np.sum(x) > 0, lambda a, b: M.np.sin(a) @ b,
                                                  lambda a, b: a @ b * a, x, w), [f32(3), f32(3, 3)]),
    Row("switch", lambda M: lambda x, w, i: M.lax.switch(i, [lambda a, b: M.np.sin(a) @ b,
                                                            lambda a, b: M.np.exp(a @ b), lambda a, b: a], x, w),
        [f32(3), f32(3, 3) * 0.3, np.int32(1)]),
    Row("scan", lambda M: lambda x, w: M.lax.scan(lambda c, r: (M.np.tanh(c @ w + r), c * r), x[0], x),
        [f32(4, 3), f32(3, 3)]),
    Row("scan reverse", lambda M: lambda x, w: M.lax.scan(lambda c, r: (c * w[0] + r, M.np.sin(c)), x[0],
                                                          x, reverse=True)[1], [f32(4, 3), f32(3, 3)]),
    Row("fori_loop", lambda M: lambda x, w: M.lax.fori_loop(0, 3, lambda i, c: M.np.sin(c) * w[i], x),
        [f32(3), f32(3, 3)]),
    Row("map", lambda M: lambda x, w: M.lax.map(lambda r: M.np.sum(r * x), w), [f32(3), f32(3, 3)]),
    Row("while (jvp)", lambda M: lambda x: M.lax.while_loop(
        lambda c: M.np.sum(M.np.abs(c[1])) < 20.0, lambda c: (c[0] + 1, M.np.sin(c[1]) + c[1] * 2.0),
        (0, x))[1], [f32(3)], vjp=False),
    Row("custom_jvp", lambda M: (lambda f: lambda x, y: f[0](x) * f[2](y) + f[4](x, y * y))(
        _custom_fns(M)), [f32(3), f32(3)]),
    Row("custom_vjp", lambda M: (lambda f: lambda x, y: f[1](x, y) * f[2](y))(_custom_fns(M)),
        [f32(3), f32(3)], jvp=False, fd=False),
    Row("custom_vmap", lambda M: lambda x: _custom_fns(M)[3](x) * x, [f32(3)], vjp=False),
    Row("checkpoint", lambda M: lambda w, x: M.checkpoint(lambda w, x: M.np.tanh(x @ w))(w, x) ** 2,
        [f32(3, 3), f32(2, 3)]),
]

# library functions whose derivatives JAX defines at kinks, ties and edges (custom rules or
# formulas): each row at random inputs and at its tie_args, some at explicit edges too
EDGES = np.array([[0, -0.0, 1, -1, 3, -3], [6, 7, 2, 0.5, np.inf, -np.inf]], np.float32)
POWERS = np.resize(np.int32([0, 0, 1, 2, -1, 3, 0]), (3, 4))  # (0 ** 0 at the tie input)
ACTIVATIONS = ("relu", "relu6", "leaky_relu", "hard_tanh", "hard_sigmoid", "hard_silu", "elu", "celu",
               "selu", "gelu", "silu", "softplus", "log_sigmoid", "soft_sign", "squareplus",
               "sparse_plus", "sparse_sigmoid", "mish")
# (forward mode only where the function is a composition of primitives whose transposes the
# other tables check; reverse mode too where it has its own rule: logaddexp, relu, xlogy, ...)
LIBRARY = [
    Row("logaddexp/logaddexp2", lambda M: lambda x, y: (M.np.logaddexp(x, y), M.np.logaddexp2(x, y)),
        [X, Y], fd=False),
    Row("logaddexp infinities", lambda M: lambda x: (M.np.logaddexp(x, x[::-1]), M.np.logaddexp2(x, -x)),
        [EDGES], fd=False, vjp=False),
    Row("xlogy/xlog1py/logit", lambda M: lambda x, y: (M.sp.xlogy(x, y), M.sp.xlog1py(x, y - 1),
                                                       M.sp.logit(y / 4)), [X, f32(3, 4, pos=True)], fd=False),
    Row("relu/relu6", lambda M: lambda x: (M.nn.relu(x), M.nn.relu6(x * 4)), [X], fd=False),
    Row("activations", lambda M: lambda x: [getattr(M.nn, n)(x) for n in ACTIVATIONS]
        + [M.nn.gelu(x, approximate=False)], [f32(3, 4, scale=3)], fd=False, vjp=False),
    Row("activations at kinks and edges", lambda M: lambda x: [getattr(M.nn, n)(x) for n in (
        "relu", "hard_tanh", "sparse_plus", "sparse_sigmoid", "softplus", "log_sigmoid")]
        + [M.nn.relu6(x * 2), M.nn.hard_sigmoid(x), M.nn.hard_silu(-x), M.sp.logit(x / 2)], [EDGES],
        fd=False, vjp=False, ties=False),
    Row("logsumexp/softmax", lambda M: lambda x: (
        M.nn.logsumexp(x, axis=1), M.nn.logsumexp(x[:2] * 0 - np.inf, axis=0), M.sp.logsumexp(x, b=x > 0),
        M.nn.softmax(x), M.nn.log_softmax(x, axis=0), M.nn.softmax(x, where=x > -1)), [X], fd=False,
        vjp=False),
    Row("clip/abs/sign/maximum(x, x)", lambda M: lambda x, lo: (
        M.np.clip(x, -1.0, 2.0), M.np.clip(x, lo, 1.0), M.np.clip(x, max=lo), M.np.abs(x),
        M.np.sign(x) * x, M.np.maximum(x, x), M.np.minimum(x, 0.0)), [X, Y], fd=False, vjp=False),
    Row("norms/median/quantile", lambda M: lambda x: (
        M.np.linalg.norm(x), M.np.linalg.norm(x[0], ord=1), M.np.linalg.norm(x[0], ord=np.inf),
        M.np.linalg.norm(x, ord=1), M.np.linalg.norm(x, ord=-np.inf), M.np.linalg.norm(x * 0),
        M.np.linalg.norm(x[0] * 0, ord=3), M.np.median(x, axis=1), M.np.quantile(x, 0.3)), [X],
        fd=False, vjp=False),
    Row("var/std of no elements", lambda M: lambda x: (M.np.var(x[:, :0], axis=1), M.np.std(x[:, :0], axis=1),
                                                       M.np.var(x[:, :1], axis=1, ddof=1)), [X], fd=False),
    # (x ** n, n a traced int: JAX's pow of an integer power, derivative 0 at n = 0 also at x = 0)
    Row("power at 0", lambda M: lambda x, y, n: (
        x ** 0, x ** 1.0, x ** 2, 0.0 ** y, x ** y, M.lax.pow(x, 0.0), M.np.sqrt(x * x), M.np.cbrt(x),
        x ** n), [X, Y, POWERS], fd=False, vjp=False),
    Row("x ** n", lambda M: lambda x, n: x ** n, [X, POWERS], fd=False, order=3),
]

# tables whose rows also run at tie/edge inputs, and the highest order of the nested jvps
# per table (a row's ``order`` overrides)
TIE_TABLES = {"elementwise", "reductions", "library"}
ORDER = {"elementwise": 4, "reductions": 4, "shape": 4, "indexing": 4, "linalg": 4, "control": 4,
         "library": 4}

TABLES = {"elementwise": ELEMENTWISE, "shape": SHAPE, "reductions": REDUCTIONS,
          "indexing": INDEXING, "linalg": LINALG, "control": CONTROL,
          "library": LIBRARY}


def _diff(args):
    return [i for i, a in enumerate(args) if np.asarray(a).dtype.kind == "f"]


def _directions(rows, arg_lists, dtype):
    """Per row: the tangents of the float args and a cotangent of the output(s) (shaped by
    JAX's shape evaluation), drawn once."""
    out = []
    for row, args in zip(rows, arg_lists, strict=True):
        ts = [RNG.normal(size=np.shape(args[i])).astype(dtype) for i in _diff(args)]
        shapes = jax.eval_shape(row.fn(JAX), *args)
        ct = jax.tree_util.tree_map(lambda s: RNG.normal(size=s.shape).astype(dtype), shapes)
        out.append((ts, ct))
    return out


def _derivatives(M, g, dargs, ts, order):
    """The directional derivatives of g along ts of orders 0 .. order, by nested jvps (the
    function of the first k is jvp'ed for the first k + 1; its tangent's last entry is the
    new one)."""
    def up(h):
        def h2(*d):
            p, t = M.jvp(h, d, tuple(ts))
            return (*p, t[-1])
        return h2
    h = lambda *d: (g(*d),)  # noqa: E731
    for _ in range(order):
        h = up(h)
    return h(*dargs)


def _row_results(M, row, args, ts, ct, order, eps):
    """A row's output, jvp and vjp, the jvps of the jvp up to its order (and with ``eps``
    the outputs at args +- eps * tangent, for finite differences)."""
    f, diff = row.fn(M), _diff(row.args)

    def g(*d):
        full = list(args)
        for i, x in zip(diff, d, strict=True):
            full[i] = x
        return f(*full)

    dargs = tuple(args[i] for i in diff)
    r = {}
    if row.jvp:
        r["out"], r["jvp"] = M.jvp(g, dargs, tuple(ts))
        n = order if row.order is None else row.order
        if n > 1 and eps is None:
            r["jvp2.."] = _derivatives(M, g, dargs, ts, n)[2:]
    if row.vjp:
        r["out"], pull = M.vjp(g, *dargs)
        r["vjp"] = pull(ct)
    if eps is not None:
        r["plus"] = g(*[a + eps * t for a, t in zip(dargs, ts, strict=True)])
        r["minus"] = g(*[a - eps * t for a, t in zip(dargs, ts, strict=True)])
    return r


def _program(rows, M, eps=None, order=1, ties=False):
    """One function computing every row's _row_results; with ``ties`` (args from with_ties),
    those of a row with ``ties`` at each of its stacked args, by lax.map."""
    def prog(inputs):
        res = {}
        for row, (args, ts, ct) in zip(rows, inputs, strict=True):
            if ties and row.ties:
                res[row.name] = M.lax.map(
                    lambda a, row=row, ts=ts, ct=ct: _row_results(M, row, list(a), ts, ct, order, eps),
                    tuple(args))
            else:
                res[row.name] = _row_results(M, row, args, ts, ct, order, eps)
        return res
    return prog


def run_table(table, rows, tie_tables=None, orders=None):
    """Ours and JAX's programs of the table's rows (at their tie inputs too, in a table of
    ``tie_tables``; nested jvps to the ``orders`` of the table): the results."""
    tie_tables = TIE_TABLES if tie_tables is None else tie_tables
    orders = ORDER if orders is None else orders
    ties = table in tie_tables
    dirs = _directions(rows, [r.args for r in rows], np.float32)
    inputs = [(args, ts, ct) for args, (ts, ct) in zip(with_ties(rows) if ties else
                                                      [r.args for r in rows], dirs, strict=True)]
    kw = dict(order=orders.get(table, 1), ties=ties)
    theirs = jax.jit(_program(rows, JAX, **kw))(inputs)
    ours = fe.jit(_program(rows, OURS, **kw))(inputs)
    return ours, theirs


# the default run nests jvps to order 2 (every rule's jvp of its jvp); -m slow to each
# table's ORDER
@pytest.mark.parametrize("table,order", [(t, 2) for t in TABLES] + [
    pytest.param(t, ORDER[t], marks=pytest.mark.slow) for t in TABLES])
def test_jvp_and_vjp_equal_jax(table, order):
    rows = TABLES[table]
    ours, theirs = run_table(table, rows, orders={table: order})
    at = " (at [random, tie] inputs)" if table in TIE_TABLES else ""
    for row in rows:
        for k in theirs[row.name]:
            assert_same(ours[row.name][k], theirs[row.name][k], f"{table} {row.name} {k}{at}")


def check_finite_differences(table, rows, adjoint_rtol=1e-9):
    """In float64, each row's jvp against central finite differences and (rows with reverse
    mode) its vjp against the jvp by <ct, J t> = <J^T ct, t>, all rows in one program."""
    rows = [r for r in rows if r.fd]
    args = [[np.asarray(a, np.float64) if np.asarray(a).dtype.kind == "f" else a
             for a in row.args] for row in rows]
    dirs = _directions(rows, args, np.float64)
    inputs = [(a, ts, ct) for a, (ts, ct) in zip(args, dirs, strict=True)]
    eps = 1e-6
    ours = fe.jit(_program(rows, OURS, eps))(inputs)
    leaves = jax.tree_util.tree_leaves
    for row, (ts, ct) in zip(rows, dirs, strict=True):
        r = ours[row.name]
        tans, cts = [np.asarray(t) for t in leaves(r["jvp"])], leaves(ct)
        for tan, p, m in zip(tans, leaves(r["plus"]), leaves(r["minus"]), strict=True):
            fd = (np.asarray(p) - np.asarray(m)) / (2 * eps)
            scale = max(1.0, float(np.max(np.abs(fd), initial=0)))
            np.testing.assert_allclose(tan, fd, rtol=1e-5, atol=1e-6 * scale,
                                       err_msg=f"{table} {row.name}: jvp vs finite differences")
        if row.vjp:
            lhs = sum(float(np.sum(c * t)) for c, t in zip(cts, tans, strict=True))
            rhs = sum(float(np.sum(np.asarray(v) * t)) for v, t in zip(r["vjp"], ts, strict=True))
            assert abs(lhs - rhs) <= adjoint_rtol * max(1.0, abs(lhs)), \
                f"{table} {row.name}: <ct, J t> = {lhs} but <J^T ct, t> = {rhs}"


@pytest.mark.parametrize("table", list(TABLES))
def test_finite_differences_float64(table, x64):
    check_finite_differences(table, TABLES[table])


INT_ONLY = ["not", "and", "or", "xor", "shift_left", "shift_right_arithmetic", "shift_right_logical",
            "reduce_and", "reduce_or", "reduce_xor"]


@pytest.mark.parametrize("name", INT_ONLY)
def test_integer_primitives_have_zero_tangents(name):
    """Primitives of integers and booleans only: the JVP trace never calls their rules (every
    tangent is zero), so call each rule directly: symbolic float0 zeros."""
    p = project_primitives()[name]
    x = np.array([[1, 2], [3, 0]], np.int32)
    args = (x,) if name.startswith("reduce") or name == "not" else (x, x)
    params = {"axes": (1,)} if name.startswith("reduce") else {}
    out, t = p.jvp_rule(args, tuple(Zero(fe.ShapedArray(x.shape, float0)) for _ in args), **params)
    assert type(t) is Zero and t.aval.dtype == float0 and t.aval.shape == np.shape(out)
