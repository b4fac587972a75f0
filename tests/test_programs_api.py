"""The surface real programs use (issue 16): frontend.nn, the numpy additions, Array
methods, lax.integer_pow/clamp/select_n, the bit primitives, tree_util with custom nodes,
jit(static_argnames=), eval_shape, device_get, the AttributeError of a missing name. Each
table is one jitted program with many outputs against one jax.jit (shared compiles), then
eagerly, then vmapped against the per-example loop."""
import dataclasses

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from harness import assert_same
from jax import lax as jlax

import frontend as fe
import frontend.numpy as fnp
from frontend import lax, nn
from frontend import tree_util as ftu

RNG = np.random.default_rng(16)
X = RNG.normal(size=(3, 4)).astype(np.float32)
XN = X.copy()
XN[0, 1], XN[2, 2], XN[1, 3] = np.nan, np.inf, -np.inf
I = np.array([0, 3, 1, 1], np.int32)


def nn_table(m, x, i):
    """Every nn function of module ``m`` (ours or jax.nn) on x (3, 4) and ints i."""
    return {
        "relu": m.relu(x), "relu6": m.relu6(x * 4), "gelu": m.gelu(x), "sigmoid": m.sigmoid(x),
        "silu": m.silu(x), "swish": m.swish(x), "softplus": m.softplus(x),
        "log_sigmoid": m.log_sigmoid(x), "elu": m.elu(x, 0.5), "leaky_relu": m.leaky_relu(x, 0.2),
        "celu": m.celu(x), "selu": m.selu(x), "glu": m.glu(x), "hard_sigmoid": m.hard_sigmoid(x),
        "hard_silu": m.hard_silu(x), "hard_tanh": m.hard_tanh(x), "mish": m.mish(x),
        "soft_sign": m.soft_sign(x), "squareplus": m.squareplus(x), "sparse_plus": m.sparse_plus(x),
        "sparse_sigmoid": m.sparse_sigmoid(x), "softmax": m.softmax(x),
        "softmax_where": m.softmax(x, axis=0, where=x > -1.0),
        "log_softmax": m.log_softmax(x, axis=0), "logsumexp": m.logsumexp(x, axis=1),
        "logsumexp_b": m.logsumexp(x, axis=0, b=x, return_sign=True),
        "logsumexp_complex": m.logsumexp(x + 2j * x[::-1], axis=1),
        "logsumexp_complex_sign": m.logsumexp(x * 1j - x[::-1], axis=0, return_sign=True),
        "logmeanexp": m.logmeanexp(x, axis=1), "standardize": m.standardize(x, axis=1),
        "one_hot": m.one_hot(i, 5), "one_hot_ax0": m.one_hot(i, 4, dtype=jnp.int8, axis=0),
        "relu_int": m.relu(i - 1), "sigmoid_scalar": m.sigmoid(0.5),
        "relu_bf16": m.relu(x.astype(ml_dtypes.bfloat16)),
    }


def numpy_table(np_, x, xn, i):
    """The numpy additions of module ``np_`` (ours or jax.numpy)."""
    return {
        "isnan": np_.isnan(xn), "isfinite": np_.isfinite(xn), "isinf": np_.isinf(xn),
        "isposinf": np_.isposinf(xn), "isneginf": np_.isneginf(xn),
        "nan_to_num": np_.nan_to_num(xn, posinf=9.0), "isclose": np_.isclose(x, x + 1e-6),
        "isclose_nan": np_.isclose(xn, xn, equal_nan=True), "allclose": np_.allclose(x, x * 1.01),
        "tril": np_.tril(x), "triu": np_.triu(x, 1), "tri": np_.tri(3, 4, -1),
        "diag": np_.diag(x, 1), "diag_v": np_.diag(x[0]), "diagflat": np_.diagflat(x[0, :2]),
        "diagonal": np_.diagonal(x, -1), "trace": np_.trace(x), "kron": np_.kron(x[:2, :2], x[0]),
        "log2": np_.log2(np_.abs(x)), "log10": np_.log10(np_.abs(x)),
        "logaddexp": np_.logaddexp(x, x[::-1]), "hypot": np_.hypot(x, 2.0),
        # complex: nan_to_num part by part, logaddexp (its imaginary part wrapped), vdot
        "nan_to_num_complex": np_.nan_to_num(xn + 1j * xn[::-1], nan=2.0, neginf=-3.0),
        "logaddexp_complex": np_.logaddexp(x * 3 + 2j * xn, x[::-1] - 4j * x),
        "vdot_complex": np_.vdot(x + 1j * x[::-1], x * 2j + x[:, ::-1]),
        "deg2rad": np_.deg2rad(x), "rad2deg": np_.rad2deg(x), "log2_int": np_.log2(i + 1),
        "nansum": np_.nansum(xn, 0), "nanmean": np_.nanmean(np_.where(np_.isinf(xn), 1.0, xn), 1),
        "nanmax": np_.nanmax(xn, 1), "nanmin": np_.nanmin(xn, 0), "nanprod": np_.nanprod(xn, 1),
        "nanvar": np_.nanvar(np_.where(np_.isinf(xn), 1.0, xn), 0),
        "nanstd": np_.nanstd(np_.where(np_.isinf(xn), 1.0, xn), 1, ddof=1),
        "average": np_.average(x, 1, weights=x[0] ** 2),
        "average_ret": np_.average(x, returned=True),
        "diff": np_.diff(x, 2), "diff_pre": np_.diff(x, axis=0, prepend=0.0),
        "ediff1d": np_.ediff1d(x, to_begin=np_.array([7.0], np_.float32)),
        "bincount": np_.bincount(i, weights=x[0], length=5),
        "select": np_.select([x > 0.5, x < -0.5], [x, x * 2], default=-1.0),
        "piecewise": np_.piecewise(x, [x < 0, x > 1], [lambda v: -v, 1.0, lambda v: v * 3]),
        "clip_kw": np_.clip(x, min=-0.5, max=0.5), "clip_min": np_.clip(x, min=0.0),
        "ptp": np_.ptp(x, 1), "copy": np_.copy(x), "scalar": np_.float32(2.0) * x,
        "scalar_int": np_.int8(3), "scalar_arr": np_.uint8(i), "scalar_bf16": np_.bfloat16(1.5),
        "power_int": np_.power(x, 3), "power_neg": np_.power(x, -2),
        **{f"pad_{m}": np_.pad(x, ((1, 2), (2, 1)), mode=m) for m in
           ("reflect", "symmetric", "maximum", "minimum", "mean", "edge", "wrap")},
        "pad_odd": np_.pad(x, 2, mode="reflect", reflect_type="odd"),
        "pad_ramp": np_.pad(x, ((1, 1), (2, 0)), mode="linear_ramp", end_values=((1, 2), (3, 4))),
        "pad_stat_len": np_.pad(x, 1, mode="mean", stat_length=2),
    }


def methods_table(x, i):
    """Array methods (the same on jax.Array)."""
    return {"copy": x.copy(), "cumprod": x.cumprod(1), "repeat": x.repeat(2, axis=0),
            "take": x.take(i[:2], axis=1), "trace": x.trace(1), "diagonal": x.diagonal(),
            "clip": x.clip(-0.2, 0.3), "round": x.round(2), "ptp": x.ptp(0)}


def lax_table(l, x, i):
    """lax.integer_pow/clamp/select_n and the bit primitives (ours or jax.lax)."""
    u = l.bitcast_convert_type(x, np.uint32)
    return {
        "ipow3": l.integer_pow(x, 3), "ipow-2": l.integer_pow(x, -2), "ipow0": l.integer_pow(i, 0),
        "ipow5_int": l.integer_pow(i, 5),
        "clamp": l.clamp(np.float32(-0.5), x, np.float32(0.5)), "clamp_arr": l.clamp(x * 0 - 0.3, x, x * 0.5 + 0.5),
        "select_n_bool": l.select_n(x > 0, x, -x), "select_n_int": l.select_n(i % 3, i, i * 2, i * 3),
        "bitcast_u32": u, "bitcast_back": l.bitcast_convert_type(u, np.float32),
        "bitcast_narrow": l.bitcast_convert_type(x, np.uint16),
        "bitcast_wide": l.bitcast_convert_type(i.reshape(2, 2).astype(np.uint16), np.int32),
        "popcount": l.population_count(u), "popcount_i8": l.population_count(i.astype(np.int8) - 2),
        "shift": l.shift_right_logical(u, np.uint32(3)),
    }


def ops_table(m, x, i, prod=True):
    """Segment reductions of ``m`` (fe.ops or jax.ops); id -1 and ids past the end dropped.
    (segment_prod has no gradient, in JAX either: ``prod=False`` leaves it out.)"""
    out = {"sum": m.segment_sum(x, i[:3], 4), "max": m.segment_max(x, i[:3] - 1, 3),
           "min": m.segment_min(x.T, i, 2), "int_max": m.segment_max(i * 2, i % 2, 3)}
    if prod:
        out["prod"] = m.segment_prod(x, i[1:], 4)
    return out


TABLES = [
    ("nn", lambda x, xn, i: nn_table(nn, x, i), lambda x, xn, i: nn_table(jax.nn, x, i)),
    ("numpy", lambda x, xn, i: numpy_table(fnp, x, xn, i),
     lambda x, xn, i: numpy_table(jnp, x, xn, i)),
    ("methods", lambda x, xn, i: methods_table(x, i), lambda x, xn, i: methods_table(x, i)),
    ("lax", lambda x, xn, i: lax_table(lax, x, i), lambda x, xn, i: lax_table(jlax, x, i)),
    ("ops", lambda x, xn, i: ops_table(fe.ops, x, i), lambda x, xn, i: ops_table(jax.ops, x, i)),
]


def eager_samples(m, np_, l, x, xn, i):
    """A few rows of each table, run eagerly in the default suite (a function's eager path is
    the code traced under jit, dispatched op by op); the slow run takes every row eagerly."""
    return {"gelu": m.gelu(x), "softmax": m.softmax(x), "one_hot": m.one_hot(i, 5),
            "nanmean": np_.nanmean(np_.where(np_.isinf(xn), 1.0, xn), 1),
            "pad": np_.pad(x, 1, mode="reflect"), "select": np_.select([x > 0.5], [x], -1.0),
            "kron": np_.kron(x[:2, :2], x[0]), "cumprod": x.cumprod(1),
            "ipow": l.integer_pow(x, 3), "popcount": l.population_count(i)}


def _check_table(name, ours, theirs):
    args = (X, XN, I)
    expected = jax.jit(theirs)(*args)
    jitted = fe.jit(ours)
    assert_same(jitted(*args), expected, f"{name} jit")
    return jitted, expected


@pytest.mark.parametrize("name,ours,theirs", TABLES, ids=[t[0] for t in TABLES])
def test_table_vs_jax_jit_and_vmap(name, ours, theirs):
    jitted, _ = _check_table(name, ours, theirs)
    # vmap over examples (x and xn mapped on axis 0 of a (2, 3, 4) batch) vs the loop of
    # the jitted table
    bx = np.stack([X, X[::-1]])
    bxn = np.stack([XN, XN[:, ::-1]])
    got = fe.jit(fe.vmap(ours, in_axes=(0, 0, None)))(bx, bxn, I)
    for k in range(2):
        want = jitted(bx[k], bxn[k], I)
        assert_same(jax.tree_util.tree_map(lambda v: v[k], got), want, f"{name} vmap lane {k}")  # noqa: B023


def test_eager_samples():
    got = eager_samples(nn, fnp, lax, fnp.asarray(X), fnp.asarray(XN), fnp.asarray(I))
    want = jax.jit(lambda x, xn, i: eager_samples(jax.nn, jnp, jlax, x, xn, i))(X, XN, I)
    assert_same(got, want, "eager")


@pytest.mark.slow
@pytest.mark.parametrize("name,ours,theirs", TABLES, ids=[t[0] for t in TABLES])
def test_table_eager_every_row(name, ours, theirs):
    _, expected = _check_table(name, ours, theirs)
    assert_same(ours(fnp.asarray(X), fnp.asarray(XN), fnp.asarray(I)), expected, f"{name} eager")


def test_scalar_types_and_dtype_info():
    for t in (fnp.float32, fnp.int8, fnp.uint16, fnp.bool_, fnp.bfloat16, fnp.complex64):
        j = getattr(jnp, t.__name__ if t.__name__ != "bool" else "bool_")
        assert_same(t(1), j(1), t.__name__)
        assert t.dtype == j.dtype and np.dtype(t) == np.dtype(j)
    assert isinstance(fnp.float32(2.0), fe.Array)
    assert fnp.issubdtype(fnp.float32, fnp.floating) and not fnp.issubdtype(fnp.int8, fnp.inexact)
    assert fnp.isdtype(np.float32, "real floating") == jnp.isdtype(np.float32, "real floating")
    for d in (np.float32, np.float16, ml_dtypes.bfloat16):
        assert fnp.finfo(d).eps == jnp.finfo(d).eps and fnp.finfo(d).max == jnp.finfo(d).max
    assert fnp.iinfo(np.int8).min == -128 and fnp.iinfo(fnp.uint32).max == 2**32 - 1
    np.testing.assert_array_equal(np.asarray(fnp.tril_indices(4, 1)), np.asarray(jnp.tril_indices(4, 1)))
    np.testing.assert_array_equal(np.asarray(fnp.triu_indices_from(X)), np.asarray(jnp.triu_indices_from(X)))


@ftu.register_pytree_node_class
class Affine:
    def __init__(self, w, b, name="a"):
        self.w, self.b, self.name = w, b, name

    def tree_flatten(self):
        return (self.w, self.b), self.name

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children, name=aux)


@ftu.register_dataclass
@dataclasses.dataclass
class Pair:
    x: object
    y: object


def test_tree_util_custom_nodes_in_jit_and_vmap():
    p = Affine(fnp.ones((3, 2)), fnp.zeros(2), "lin")
    leaves, td = ftu.tree_flatten(p)
    assert len(leaves) == 2 and ftu.tree_unflatten(td, leaves).name == "lin"
    assert ftu.tree_structure(p) == td and ftu.tree_leaves(Pair(1, (2, 3))) == [1, 2, 3]
    doubled = ftu.tree_map(lambda v: v * 2, p)
    assert isinstance(doubled, Affine) and doubled.name == "lin"
    paths = [ftu.keystr(k) for k, _ in ftu.tree_flatten_with_path({"a": Pair(1, [2])})[0]]
    jpaths = [jax.tree_util.keystr(k) for k, _ in jax.tree_util.tree_flatten_with_path(
        {"a": {"x": 1, "y": [2]}})[0]]
    assert paths == [s.replace("['x']", ".x").replace("['y']", ".y") for s in jpaths]
    # as jit argument and output, and in in_axes prefixes
    f = fe.jit(lambda m, x: Pair(x @ m.w + m.b, m))
    out = f(p, fnp.ones((4, 3)))
    assert isinstance(out, Pair) and isinstance(out.y, Affine) and out.y.name == "lin"
    np.testing.assert_allclose(np.asarray(out.x), np.full((4, 2), 3.0))
    batched = Affine(fnp.stack([p.w, 2 * p.w]), fnp.zeros(2), "lin")
    got = fe.vmap(lambda m, x: x @ m.w + m.b, in_axes=(Affine(0, None, "lin"), None))(
        batched, fnp.ones(3))
    np.testing.assert_allclose(np.asarray(got), [[3.0, 3.0], [6.0, 6.0]])
    part = ftu.Partial(lambda a, b: a * b, fnp.float32(3.0))
    assert float(fe.jit(lambda pf, x: pf(x))(part, fnp.float32(2.0))) == 6.0
    assert fe.tree.map(lambda v: v + 1, [1, (2,)]) == [2, (3,)]
    assert fe.tree.leaves(fe.tree.structure([0, {"k": 0}]).unflatten([5, 6])) == [5, 6]


def test_api_additions():
    f = fe.jit(lambda x, n, *, scale=1.0: x * n * scale, static_argnames=("n", "scale"))
    assert float(f(fnp.float32(2.0), n=3, scale=2.0)) == 12.0
    assert float(f(fnp.float32(2.0), 4)) == 8.0  # n: static by name, given by position
    s = fe.eval_shape(lambda d: {"y": d["a"].sum(0), "z": d["a"].astype(np.int32)},
                      {"a": fe.ShapeDtypeStruct((3, 4), np.float32)})
    j = jax.eval_shape(lambda d: {"y": d["a"].sum(0), "z": d["a"].astype(np.int32)},
                       {"a": jax.ShapeDtypeStruct((3, 4), np.float32)})
    assert [(v.shape, v.dtype) for v in ftu.tree_leaves(s)] == \
        [(v.shape, v.dtype) for v in jax.tree_util.tree_leaves(j)]
    got = fe.device_get({"a": fnp.ones(2), "b": 3})
    assert isinstance(got["a"], np.ndarray) and got["b"] == 3
    x = fnp.ones(3)
    assert fe.block_until_ready([x])[0] is x
    assert (x.nbytes, x.itemsize) == (jnp.ones(3).nbytes, jnp.ones(3).itemsize)
    from frontend.core import jax_names as _jax_names
    lacking = next(n for n in _jax_names.JAX_NAMES["frontend.numpy"][1] if not hasattr(fnp, n))
    with pytest.raises(AttributeError, match=rf"jax\.numpy\.{lacking} exists in JAX, but vmaplab"):
        getattr(fnp, lacking)
    with pytest.raises(AttributeError, match=r"nor does jax\.random"):
        fe.random.not_a_sampler  # noqa: B018
    for mod, (jmod, names) in _jax_names.JAX_NAMES.items():
        import importlib
        public = {n for n in dir(importlib.import_module(jmod)) if not n.startswith("_")}
        assert set(names) <= public, f"{mod}: names JAX {jmod} lacks: {set(names) - public}"


@pytest.mark.skipif(not hasattr(lax, "sort"), reason="needs lax.sort (issue 14)")
def test_quantiles_and_sorting_methods():
    xn = np.stack([XN, X])
    qs = np.array([0.1, 0.5, 1.0], np.float32)

    def table(np_, a, an):
        return {"quantile": np_.quantile(a, qs, axis=(0, 2)), "q_keep": np_.quantile(a, 0.3, 1, keepdims=True),
                "q_lower": np_.quantile(a, 0.3, method="lower"), "q_nearest": np_.quantile(a, qs, -1, method="nearest"),
                "median": np_.median(a, 1), "median_nan": np_.median(an, 2), "nanmedian": np_.nanmedian(an, 1),
                "nanquantile": np_.nanquantile(an, qs, axis=0, keepdims=True),
                "percentile": np_.percentile(a, 30.0, axis=0), "nanpercentile": np_.nanpercentile(an, qs * 100),
                "interp": np_.interp(a[0, 0], np.sort(X[0]), X[1]),
                "interp_lr": np_.interp(a[0, 0] * 3, np.sort(X[0]), X[1], left=-5.0, right="extrapolate"),
                "interp_period": np_.interp(a[0, 0], np.sort(X[0]), X[1], period=2.0),
                "sort": a.sort(1), "argsort": an.argsort(-1)}

    a = np.stack([X, X[::-1]])
    assert_same(fe.jit(lambda u, v: table(fnp, u, v))(a, xn), jax.jit(lambda u, v: table(jnp, u, v))(a, xn),
                "quantiles")
    z = (X + 2j * X[::-1]).astype(np.complex64)
    assert_same(fe.jit(lambda v: (v.real, v.imag, v.conj()))(z), (z.real, z.imag, z.conj()), ".real")
    got = fe.jit(fe.vmap(lambda u: fnp.median(u, 0)))(a)
    np.testing.assert_array_equal(np.asarray(got), np.stack([np.asarray(fnp.median(u, 0)) for u in a]))


def _weighted_sum(np_, tree):
    """sum_k (k + 1) * sum(leaf_k) over the float leaves of a table (a scalar loss)."""
    total = 0.0
    for k, leaf in enumerate(jax.tree_util.tree_leaves(tree)):
        if np.dtype(leaf.dtype) in (np.float32, np.float16, ml_dtypes.bfloat16):
            total = total + (k + 1) * np_.sum(leaf.astype(np.float32))
    return total


@pytest.mark.parametrize("name,ours,theirs", [t for t in TABLES if t[0] in ("nn", "lax", "ops")],
                         ids=["nn", "lax", "ops"])
def test_table_gradients_vs_jax(name, ours, theirs):
    """Reverse mode through every row (bitcast/popcount: zero derivative, as JAX's)."""
    if name == "ops":
        ours = lambda x, xn, i: ops_table(fe.ops, x, i, prod=False)  # noqa: E731
        theirs = lambda x, xn, i: ops_table(jax.ops, x, i, prod=False)  # noqa: E731
    got = fe.jit(fe.grad(lambda x: _weighted_sum(fnp, ours(x, XN, I))))(X)
    want = jax.jit(jax.grad(lambda x: _weighted_sum(jnp, theirs(x, XN, I))))(X)
    assert_same(got, want, f"{name} grad")
    t = RNG.normal(size=X.shape).astype(np.float32)
    _, tangent = fe.jvp(lambda v: lax_table(lax, v, I)["popcount"], (X,), (t,))
    assert tangent.dtype == jax.dtypes.float0


def test_population_count_has_zero_tangents():
    """An integer-only primitive: the JVP trace never calls its rule (every tangent is a
    float0 zero), so call it directly."""
    from frontend.interpreters.ad_util import Zero, float0
    from frontend.primitives.bits import population_count_p
    x = np.array([[1, 2], [3, 0]], np.int32)
    out, t = population_count_p.jvp_rule((x,), (Zero(fe.ShapedArray(x.shape, float0)),))
    assert type(t) is Zero and t.aval.dtype == float0 and t.aval.shape == np.shape(out)
    np.testing.assert_array_equal(np.asarray(out), [[1, 1], [2, 0]])
