"""Reductions family: jax.numpy reductions and the lax reduction primitives against JAX
(shapes, dtypes, weak types, values; jit and eager), vmap against the per-example loop at
every batch-axis position, golden StableHLO for the batching choices, and error messages.

To stay fast, table rows that share an input are checked together: one jitted function
returns every row's result (a dict keyed by the row), so one compile covers many rows and a
mismatch still names its row."""
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from harness import assert_same, check_vmap, check_vs_jax, project_primitives, rand, stablehlo
from jax import lax as jlax

import frontend as fe
import frontend.numpy as fnp
from frontend import lax
from frontend.primitives import reductions as red

BF16 = np.dtype(jnp.bfloat16)
DTYPES = [np.float32, np.int32, np.bool_, BF16]

MULTI = ["sum", "prod", "max", "min", "mean", "var", "std", "all", "any", "count_nonzero"]
SINGLE = ["argmax", "argmin", "cumsum", "cumprod"]  # one int axis (or None)
ALL_FUNCS = MULTI + SINGLE


def _data(shape, dtype):
    if np.dtype(dtype) == BF16:
        return rand(shape, np.float32).astype(BF16)
    return rand(shape, dtype)


def _key(name, kw):
    return name + "(" + ", ".join(f"{k}={getattr(v, '__name__', v)}" for k, v in kw.items()) + ")"


def check_rows(rows, *args, eager_rows=None):
    """rows: [(name, kwargs)] of jax.numpy functions applied to args[0] (other args passed
    on). Ours and jnp's under one jit each, compared row by row; then some rows eagerly."""
    def table(mod):
        return lambda *a: {_key(n, kw): getattr(mod, n)(*a, **kw) for n, kw in rows}

    theirs = jax.jit(table(jnp))(*args)
    ours = fe.jit(table(fnp))(*args)
    stablehlo(table(fnp), *args)
    for k in theirs:
        assert_same(ours[k], theirs[k], f"jit {k}")
    for n, kw in (rows[:1] if eager_rows is None else eager_rows):
        assert_same(getattr(fnp, n)(*args, **kw), getattr(jnp, n)(*args, **kw), f"eager {_key(n, kw)}")


# ----------------------------------------------------------------------------- op table


@pytest.mark.parametrize("dtype", DTYPES + [np.uint8, np.float16], ids=lambda d: np.dtype(d).name)
def test_numpy_dtypes(dtype):
    x = _data((3, 4), dtype)
    if np.dtype(dtype).kind == "u":
        x = np.abs(rand((3, 4), np.int32)).astype(dtype)
    rows = [(n, {}) for n in ALL_FUNCS] + [(n, dict(axis=1)) for n in ALL_FUNCS]
    check_rows(rows, x, eager_rows=rows[len(ALL_FUNCS)::3] if dtype in DTYPES[:2] else rows[-3:-1])


def test_numpy_complex():
    x = (rand((3, 4)) + 1j * rand((3, 4))).astype(np.complex64)
    check_rows([(n, dict(axis=0)) for n in ["sum", "prod", "mean", "var", "std", "cumsum",
                                            "count_nonzero", "all", "any", "max", "min"]], x)


AXES_MULTI = [dict(axis=None), dict(axis=0), dict(axis=-1), dict(axis=(0, 2)), dict(axis=(-1, 0)),
              dict(axis=1, keepdims=True), dict(axis=(0, 2), keepdims=True), dict(keepdims=True),
              dict(axis=())]
AXES_SINGLE = [dict(axis=None), dict(axis=0), dict(axis=-1), dict(axis=1)]
AXES_ARG = AXES_SINGLE + [dict(axis=1, keepdims=True), dict(keepdims=True)]


@pytest.mark.parametrize("name", ALL_FUNCS)
def test_numpy_axes(name):
    x = _data((2, 3, 4), np.float32)
    axes = AXES_MULTI if name in MULTI else AXES_ARG if name.startswith("arg") else AXES_SINGLE
    rows = [(name, kw) for kw in axes]
    check_rows(rows, x, eager_rows=[(name, axes[2]), (name, axes[-1])])


OPTION_ROWS = [
    ("sum", dict(dtype=np.int8)), ("sum", dict(dtype=np.float32)), ("sum", dict(dtype=BF16)),
    ("sum", dict(dtype=np.bool_)), ("prod", dict(dtype=np.bool_)), ("sum", dict(initial=2.0)),
    ("prod", dict(axis=0, initial=3)), ("max", dict(axis=1, initial=0.5)),
    ("min", dict(initial=-0.5)), ("sum", dict(axis=1, promote_integers=False)),
    ("mean", dict(dtype=np.int32)), ("mean", dict(dtype=BF16)), ("mean", dict(axis=0, dtype=np.float32)),
    ("var", dict(ddof=1)), ("var", dict(axis=1, ddof=4)), ("std", dict(axis=0, ddof=1, keepdims=True)),
    ("var", dict(axis=1, correction=1)), ("cumsum", dict(axis=0, dtype=np.float32)),
    ("cumsum", dict(dtype=np.bool_)), ("cumprod", dict(axis=1, dtype=np.int32)),
]


@pytest.mark.parametrize("dtype", [np.int8, BF16], ids=lambda d: np.dtype(d).name)
def test_numpy_dtype_and_options(dtype):
    check_rows(OPTION_ROWS, _data((3, 4), dtype), eager_rows=OPTION_ROWS[::9])


def test_numpy_where():
    x = _data((3, 4), np.float32)
    w = rand((3, 4), np.bool_)
    w[:, 0] = True
    rows = []
    for name in ["sum", "prod", "mean", "all", "any", "max", "min", "var", "std"]:
        kw = dict(initial=-10.0) if name == "max" else dict(initial=10.0) if name == "min" else {}
        rows += [(name, dict(axis=1, where=w, **kw)), (name, dict(where=w[0], **kw))]
    check_rows(rows, x, eager_rows=rows[:2])


def test_numpy_scalars_and_weak():
    # Python scalars and weakly typed arrays: jax.numpy's reductions return strong types
    names = ["sum", "prod", "max", "mean", "argmax", "cumsum", "var", "all", "count_nonzero"]
    check_vs_jax(lambda: [getattr(fnp, n)(2.0) for n in names] + [getattr(fnp, n)(3) for n in names],
                 lambda: [getattr(jnp, n)(2.0) for n in names] + [getattr(jnp, n)(3) for n in names],
                 eager=False)
    check_vs_jax(lambda x: [getattr(fnp, n)(x * 2.0) for n in names],
                 lambda x: [getattr(jnp, n)(x * 2.0) for n in names], np.float32(1.5))


def test_x64_dtypes(x64):
    x = rand((3, 4), np.int32)
    rows = [(n, {}) for n in ["sum", "mean", "var", "argmax", "cumsum", "count_nonzero", "prod"]]
    for dt in (np.int32, np.int64, np.uint8):
        check_rows(rows, x.astype(dt), eager_rows=[])


def test_argmax_nan_and_ties():
    x = np.array([[1., np.nan, 3., np.nan], [2., 5., 5., 1.], [-np.inf, -np.inf, -np.inf, -np.inf],
                  [0., -0., 0., -1.], [np.nan, np.nan, 1., 2.], [7., 7., 7., 7.]], np.float32)
    rows = [(n, dict(axis=a)) for n in ["argmax", "argmin", "max", "min"] for a in (0, 1)]
    check_rows(rows, x, eager_rows=rows[:2])
    i = np.array([[3, 1, 3, 0], [0, 0, -1, -1]], np.int32)
    check_rows([(n, dict(axis=1)) for n in ["argmax", "argmin"]] + [("argmax", {}), ("argmin", {})], i)
    check_rows([(n, dict(axis=0)) for n in ["argmax", "argmin"]], i.astype(np.bool_), eager_rows=[])


METHODS = [("sum", dict(axis=0)), ("mean", {}), ("max", dict(axis=1)), ("min", {}),
           ("prod", dict(axis=1)), ("argmax", dict(axis=0)), ("argmin", {}),
           ("cumsum", dict(axis=1)), ("all", {}), ("any", dict(axis=0)), ("std", dict(axis=1))]


def test_methods():
    x = _data((3, 4), np.float32)
    traced = METHODS + [("var", dict(ddof=1))]  # x.var() on a tracer: the method, not a Var
    check_vs_jax(lambda x: [getattr(x, m)(**kw) for m, kw in traced],
                 lambda x: [getattr(x, m)(**kw) for m, kw in traced], x, eager=False)
    a, j = fnp.asarray(x), jnp.asarray(x)
    for m, kw in METHODS + [("var", dict(ddof=1))]:
        assert_same(getattr(a, m)(**kw), getattr(j, m)(**kw), f"Array.{m}")


# ----------------------------------------------------------------------------- lax level

LAX_AXES = [(1,), (0, 2), (), (2, 1, 0)]


@pytest.mark.parametrize("name", ["reduce_sum", "reduce_prod", "reduce_max", "reduce_min",
                                  "reduce_and", "reduce_or", "reduce_xor"])
def test_lax_reduce(name):
    logical = name in ("reduce_and", "reduce_or", "reduce_xor")
    x = rand((2, 3, 4), np.int32 if logical else np.float32)
    ins = [x, rand((2, 3, 4), np.bool_)] if logical else [x, x.astype(np.int32)]
    check_vs_jax(lambda *xs: [getattr(lax, name)(v, ax) for v in xs for ax in LAX_AXES],
                 lambda *xs: [getattr(jlax, name)(v, ax) for v in xs for ax in LAX_AXES], *ins,
                 eager=False)
    assert_same(getattr(lax, name)(x, (1,)), getattr(jlax, name)(x, (1,)), "eager")


def test_lax_weak_type_kept():
    check_vs_jax(lambda: lax.reduce_max(fnp.asarray(2.0), ()), lambda: jlax.reduce_max(jnp.asarray(2.0), ()))
    check_vs_jax(lambda x: lax.cumsum(x * 2.0), lambda x: jlax.cumsum(x * 2.0), np.float32(1.0)[None])


def test_lax_argreduce():
    x = rand((2, 3, 4), np.int32)
    cases = [(n, ax, dt) for n in ("argmax", "argmin") for ax in (0, 2) for dt in (np.int32, np.int8)]
    check_vs_jax(lambda x: [getattr(lax, n)(x, ax, dt) for n, ax, dt in cases],
                 lambda x: [getattr(jlax, n)(x, ax, dt) for n, ax, dt in cases], x, eager=False)
    assert_same(lax.argmin(x, 1, np.int32), jlax.argmin(x, 1, np.int32), "eager")


@pytest.mark.parametrize("name", ["cumsum", "cumprod", "cummax", "cummin"])
def test_lax_cumulative(name):
    cases = [(ax, rev) for ax in (0, 2) for rev in (False, True)]
    for dt in (np.float32, np.int32):
        check_vs_jax(lambda x: [getattr(lax, name)(x, ax, rev) for ax, rev in cases],
                     lambda x: [getattr(jlax, name)(x, ax, rev) for ax, rev in cases],
                     rand((2, 3, 4), dt), eager=False)
    x = rand((2, 3, 4))
    assert_same(getattr(lax, name)(x, 1, True), getattr(jlax, name)(x, 1, True), "eager")
    check_vs_jax(lambda x: getattr(lax, name)(x, 0), lambda x: getattr(jlax, name)(x, 0),
                 rand((1, 2)), eager=False)


# ----------------------------------------------------------------------------- vmap


def _rows_fn(mod, rows):
    return lambda x: [getattr(mod, n)(x, **kw) for n, kw in rows]


VMAP_GROUPS = {
    "sum_prod_max_min": [("sum", dict(axis=0)), ("sum", dict(axis=(0, 1), keepdims=True)), ("sum", {}),
                         ("prod", dict(axis=-1)), ("max", dict(axis=1)), ("min", dict(keepdims=True))],
    "mean_var_std": [("mean", dict(axis=0)), ("var", dict(axis=1, ddof=1)), ("std", {}),
                     ("mean", dict(axis=-1, keepdims=True))],
    "arg": [("argmax", dict(axis=0)), ("argmin", dict(axis=-1, keepdims=True)), ("argmax", {})],
    "logical_count": [("all", dict(axis=1)), ("any", {}), ("count_nonzero", dict(axis=1))],
    "cumulative": [("cumsum", dict(axis=0)), ("cumsum", {}), ("cumprod", dict(axis=-1))],
}


@pytest.mark.parametrize("group", list(VMAP_GROUPS))
def test_vmap_numpy(group):
    rows = VMAP_GROUPS[group]
    check_vmap(_rows_fn(fnp, rows), [_data((3, 4), np.float32)], f_jax=_rows_fn(jnp, rows))


def test_vmap_numpy_int_bool():
    rows = [("sum", dict(axis=1)), ("argmax", dict(axis=0)), ("cumsum", dict(axis=1)), ("all", {}),
            ("max", {})]
    check_vmap(_rows_fn(fnp, rows), [_data((3, 4), np.int32)], nested=False)
    check_vmap(_rows_fn(fnp, rows[-2:]), [_data((3, 4), np.bool_)], nested=False)


# front, middle, end, negative and unbatched, each operand in turn
TWO_ARG_AXES = [(0, 1), (1, -1), (-1, None), (None, 0)]


def test_vmap_where_two_operands():
    f = lambda x, w: [fnp.sum(x, axis=1, where=w), fnp.max(x, where=w, initial=0.)]  # noqa: E731
    g = lambda x, w: [jnp.sum(x, axis=1, where=w), jnp.max(x, where=w, initial=0.)]  # noqa: E731
    check_vmap(f, [_data((3, 4), np.float32), rand((3, 4), np.bool_)], f_jax=g, variants=TWO_ARG_AXES)


def test_vmap_lax():
    def f(mod):
        return lambda x, b: [mod.reduce_sum(x, (0, 2)), mod.reduce_and(b, (2,)),
                             mod.reduce_xor(b, (0,)), mod.argmin(x, 1, np.int32),
                             mod.cummax(x, 1, True), mod.cummin(x, 2)]
    check_vmap(f(lax), [rand((2, 3, 4)), rand((2, 3, 4), np.bool_)], f_jax=f(jlax), variants=TWO_ARG_AXES)


# ----------------------------------------------------------------------------- golden StableHLO


def _no_transpose(text):
    assert "stablehlo.transpose" not in text, text
    return text


def test_hlo_vmap_sum_reduces_right_dim():
    f = lambda x: fnp.sum(x, axis=0)  # noqa: E731
    t = _no_transpose(stablehlo(fe.vmap(f), rand((5, 3, 4))))
    assert "applies stablehlo.add across dimensions = [1] : (tensor<5x3x4xf32>, tensor<f32>) -> tensor<5x4xf32>" in t
    t = _no_transpose(stablehlo(fe.vmap(f, in_axes=1), rand((3, 5, 4))))
    assert "across dimensions = [0] : (tensor<3x5x4xf32>, tensor<f32>) -> tensor<5x4xf32>" in t
    t = _no_transpose(stablehlo(fe.vmap(fnp.sum, in_axes=2), rand((3, 4, 5))))
    assert "across dimensions = [0, 1] : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<5xf32>" in t


def test_graph_vmap_reduce_only():
    # batch axis in the middle, reduced axis before it: one reduce_max, nothing else
    g = str(fe.make_graph(fe.vmap(lambda x: fnp.max(x, axis=0), in_axes=1))(rand((3, 5, 4))))
    assert g.count(" = ") == 1 and "reduce_max[axes=(0,)]" in g


def test_hlo_vmap_argmax_and_cumsum():
    t = _no_transpose(stablehlo(fe.vmap(lambda x: fnp.argmax(x, axis=1)), rand((5, 3, 4))))
    assert "stablehlo.iota dim = 2 : tensor<5x3x4xi32>" in t
    assert "dimensions = array<i64: 2>" in t and "-> (tensor<5x3xf32>, tensor<5x3xi32>)" in t
    t = _no_transpose(stablehlo(fe.vmap(lambda x: fnp.cumsum(x, axis=0), in_axes=2, out_axes=2),
                                rand((3, 4, 5))))
    assert "window_dimensions = array<i64: 3, 1, 1>" in t
    assert "padding = dense<[[2, 0], [0, 0], [0, 0]]>" in t
    t = stablehlo(lambda x: lax.cumsum(x, 1, reverse=True), rand((2, 4)))
    assert "padding = dense<[[0, 0], [0, 3]]>" in t


def test_hlo_vmap_var_and_mean():
    # the operand is reduced in place (batch axis 1 untouched); re-broadcasting the mean goes
    # through the shape family's broadcast_in_dim rule
    t = stablehlo(fe.vmap(lambda x: fnp.var(x, axis=0), in_axes=1), rand((3, 5, 4)))
    assert t.count("stablehlo.reduce(") == 2
    assert "stablehlo.reduce(%arg0 init: %0) applies stablehlo.add across dimensions = [0]" in t
    t = _no_transpose(stablehlo(fe.vmap(lambda x: fnp.mean(x, axis=-1), in_axes=-1, out_axes=-1),
                                rand((3, 4, 5))))
    assert "across dimensions = [1] : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<3x5xf32>" in t


def test_hlo_init_values():
    x = rand((3, 4), np.int32)
    assert "dense<-2147483648> : tensor<i32>" in stablehlo(lambda x: fnp.max(x, 0), x)
    assert "dense<2147483647> : tensor<i32>" in stablehlo(lambda x: fnp.min(x, 0), x)
    assert "dense<0x7F800000> : tensor<f32>" in stablehlo(lambda x: fnp.min(x, 0), rand((3, 4)))
    assert "applies stablehlo.and" in stablehlo(fnp.all, x)
    assert "dense<1> : tensor<i32>" in stablehlo(lambda x: fnp.prod(x, 0), x)
    t = stablehlo(lambda x: fnp.sum(x, 0), rand((3, 4)).astype(BF16))
    assert "tensor<3x4xf32>, tensor<f32>) -> tensor<4xf32>" in t  # bf16 sums in f32


# ----------------------------------------------------------------------------- errors


def test_errors_numpy():
    x = rand((2, 3))
    with pytest.raises(ValueError, match="axis 2 is out of bounds for array of dimension 2"):
        fnp.sum(x, axis=2)
    with pytest.raises(ValueError, match="axis -3 is out of bounds for array of dimension 2"):
        fnp.mean(x, axis=-3)
    with pytest.raises(ValueError, match=re.escape("duplicate value in 'axis': (0, -2)")):
        fnp.max(x, axis=(0, -2))
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        fnp.argmax(np.zeros((0,), np.float32))
    with pytest.raises(ValueError, match="attempt to get argmin of an empty sequence"):
        fnp.argmin(np.zeros((0, 3), np.float32), axis=0)
    assert fnp.argmax(np.zeros((0, 3), np.float32), axis=1).shape == (0,)
    with pytest.raises(ValueError, match="zero-size array to reduction operation max which has no identity"):
        fnp.max(np.zeros((0,), np.float32))
    with pytest.raises(ValueError, match="reduction operation min does not have an identity"):
        fnp.min(x, where=x > 0)
    with pytest.raises(ValueError, match="where must be None or a boolean array"):
        fnp.sum(x, where=np.ones((2, 3), np.int32))
    with pytest.raises(NotImplementedError, match="The 'out' argument to jnp.sum is not supported."):
        fnp.sum(x, out=x)
    with pytest.raises(TypeError, match="'tuple' object cannot be interpreted as an integer"):
        fnp.argmax(x, axis=(0,))
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        fnp.cumsum(x, axis=2)
    with pytest.raises(TypeError, match="sum requires ndarray or scalar arguments"):
        fnp.sum([1, 2])
    with pytest.raises(ValueError, match="ddof and correction can't be provided simultaneously"):
        fnp.var(x, ddof=1, correction=1)
    assert float(fnp.max(np.zeros((0,), np.float32), initial=1.0)) == 1.0
    # empty sums and means, as numpy
    check_vs_jax(lambda x: [fnp.sum(x), fnp.mean(x), fnp.max(x, axis=0)],
                 lambda x: [jnp.sum(x), jnp.mean(x), jnp.max(x, axis=0)], np.zeros((3, 0), np.float32))


def test_errors_lax():
    x = rand((2, 3))
    with pytest.raises(ValueError, match=re.escape("reduction axes (2,) contains out-of-bounds indices for float32[2,3].")):
        lax.reduce_sum(x, (2,))
    with pytest.raises(ValueError, match=re.escape("duplicate value in 'axes' of reduction: (0, 0)")):
        lax.reduce_max(x, (0, 0))
    with pytest.raises(TypeError, match="reduce_sum does not accept dtype bool. Accepted dtypes are subtypes of number."):
        lax.reduce_sum(x > 0, (0,))
    with pytest.raises(TypeError, match="logical reduction requires operand dtype bool or int, got float32"):
        lax.reduce_and(x, (0,))
    with pytest.raises(TypeError, match="index_dtype must be an integer type, but got float32"):
        lax.argmax(x, 1, np.float32)
    with pytest.raises(ValueError, match=re.escape("Invalid axis -1 for operand shape (2, 3)")):
        lax.argmax(x, -1, np.int32)
    with pytest.raises(ValueError, match="argmin and argmax require non-empty reduced dimension"):
        lax.argmin(np.zeros((0, 3), np.float32), 0, np.int32)
    with pytest.raises(TypeError, match="cumsum does not accept dtype bool"):
        lax.cumsum(x > 0)
    with pytest.raises(ValueError, match="XLA operations do not allow negative axes"):
        lax.cumsum(x, -1)
    with pytest.raises(ValueError, match=re.escape("axis 2 is out of bounds for array of shape (2, 3)")):
        lax.cummax(x, 2)
    # the same errors while tracing under jit and vmap
    with pytest.raises(ValueError, match="out of bounds"):
        fe.jit(lambda x: fnp.sum(x, axis=5))(x)
    with pytest.raises(ValueError, match="out of bounds"):
        fe.vmap(lambda x: fnp.sum(x, axis=1))(x)


# ----------------------------------------------------------------------------- coverage


def test_every_primitive_has_every_column():
    prims = [red.reduce_sum_p, red.reduce_prod_p, red.reduce_max_p, red.reduce_min_p,
             red.reduce_and_p, red.reduce_or_p, red.reduce_xor_p, red.argmax_p, red.argmin_p,
             red.cumsum_p, red.cumprod_p, red.cummax_p, red.cummin_p]
    for p in prims:
        assert project_primitives()[p.name] is p
        assert p.batching_rule is not None, p.name
        assert p.lowering_rule is not None, p.name
        assert callable(getattr(lax, p.name)), p.name
    import frontend.numpy._reductions as R
    for n in R.__all__:
        assert getattr(fnp, n) is getattr(R, n), n
