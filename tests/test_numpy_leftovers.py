"""Issue 26's checklist of jax.numpy keywords and behaviours, each compared with jax.numpy:
take_along_axis(mode="one_hot"), pad modes "median" and callables, scalar boolean indices
(x[False], x[True] among other advanced indices), indexing that selects nothing from an
empty axis, quantile(weights=), reductions with where= and initial, 0-d arrays as
shift/shape/axis. (Other items of the list are covered in test_numpy_keywords.py and
test_numpy_methods.py.)"""
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from harness import assert_same

import frontend as fe
import frontend.numpy as fnp

X = np.arange(12, dtype=np.float32).reshape(3, 4)
XI = np.arange(-5, 7, dtype=np.int32).reshape(3, 4)
X3 = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
IDX = np.int32([[0, 3], [1, -1], [2, 5]])
W = np.float32([[1, 2, 0, 1], [3, -1, 1, 1], [1, 1, 1, 1]])
XN = np.where(np.arange(12).reshape(3, 4) % 5 == 1, np.nan, X[:, ::-1]).astype(np.float32)


def _padder(v, width, axis, kwargs):
    v = v.at[:width[0]].set(-1)
    return v.at[v.shape[0] - width[1]:].set(kwargs.get("after", -2)) if width[1] else v


EXPRS = [
    "lib.take_along_axis(x, IDX, axis=1, mode='one_hot')",
    "lib.take_along_axis(xi, IDX, axis=1, mode='one_hot', wrap_negative_indices=False)",
    "lib.take_along_axis(x3, np.int32([[[0, 1, 2, -1]], [[2, 2, 0, 1]]]), axis=1, mode='one_hot')",
    "lib.take_along_axis(x[0], np.int32([3, -2, 0]), axis=0, mode='one_hot')",
    "lib.take_along_axis(x, IDX, axis=1, mode='fill', wrap_negative_indices=False)",
    "lib.pad(x, 2, mode='median')", "lib.pad(xi, ((1, 2), (0, 1)), mode='median', stat_length=2)",
    "lib.pad(x, 2, mode=_padder)", "lib.pad(xi, ((0, 1), (2, 0)), mode=_padder, after=7)",
    "lib.asarray(x3)[False]", "lib.asarray(x3)[..., False]", "lib.asarray(x3)[0, :, True]",
    "lib.asarray(x3)[[0, 1], True]", "lib.asarray(x3)[True, ..., True]",
    "lib.asarray(x3)[np.array(False)]", "lib.asarray(x3).at[0, False].add(1)",
    "lib.asarray(x3).at[False].set(7)", "lib.asarray(x3).at[np.array(True)].set(1)",
    "lib.asarray(x3).at[0, np.array(False)].set(1)", "lib.asarray(x3).at[[0, 1], True].set(7)",
    "lib.asarray(np.ones((0, 3)))[np.int32([])]", "lib.asarray(np.ones((3, 0)))[:, np.int32([])]",
    "lib.asarray(x3)[:, np.int32([2]), np.ones((0,), np.int32)]",
    "lib.quantile(x, 0.5, weights=x + 1, method='inverted_cdf')",
    "lib.quantile(x, np.float32([0.2, 0.7]), axis=1, weights=W, method='inverted_cdf', "
    "keepdims=True)",
    "lib.quantile(x, 0.3, axis=0, weights=np.float32([1, 2, 3]), method='inverted_cdf')",
    "lib.nanquantile(XN, np.float32([0, 0.3, 1]), axis=1, weights=W, method='inverted_cdf')",
    "lib.percentile(np.arange(7), 40, weights=np.arange(7), method='inverted_cdf')",
    "lib.quantile(XN, 0.3, axis=1, method='inverted_cdf')",
    "lib.sum(x, where=x > 3, initial=1.0)", "lib.max(x, axis=1, where=x > 3, initial=-1.0)",
    "lib.amin(xi, axis=0, where=xi > 3, initial=100)", "lib.prod(x, where=x > 8, initial=2.0)",
    "lib.roll(x, np.int32(2))", "lib.roll(x, 1, axis=np.int32(1))", "lib.zeros(np.int32(3))",
    "lib.reshape(x, np.int32(12))", "lib.sum(x, axis=np.int32(1))", "lib.eye(np.int32(3))",
    "lib.roll(x, np.array(2))", "lib.roll(x, np.array([1, 2]), axis=np.array([0, 1]))",
    "lib.roll(x, 1, axis=np.array(1))", "lib.zeros(np.array(3))", "lib.ones((np.array(2), 3))",
    "lib.repeat(x, np.int32([2, 0, 1]), axis=0, total_repeat_length=4)",
    "lib.repeat(x, 2, axis=1, total_repeat_length=5)",
    "lib.repeat(np.ones((0, 2)), np.int32([]), axis=0, total_repeat_length=3)",
    "lib.nanvar(XN, axis=1, mean=np.float32([[1], [5], [9]]))",
    "lib.nanstd(XN, 1, None, None, 1, True, None, np.float32([[1], [5], [9]]))",
    "lib.ravel_multi_index((np.int8([1, 2]), np.int8([0, 3])), (3, 4))",
    "lib.ravel_multi_index((np.int8([1, 2]), np.int8([0, 3])), (3, 4), dtype=np.int16)",
    "lib.ravel_multi_index((np.int32([1, 2]), np.int32([0, 7])), (3, 4), mode='ignore')",
]
ERRORS = [
    ("lib.quantile(x, 0.5, weights=x + 1)", NotImplementedError),
    ("lib.quantile(x, 0.5, weights=x + 1j, method='inverted_cdf')", ValueError),
    ("lib.quantile(x, 0.5, weights=W[0], method='inverted_cdf')", ValueError),
    ("lib.quantile(x, 0.5, axis=0, weights=W[0], method='inverted_cdf')", ValueError),
    ("lib.ravel_multi_index((np.int8([1]), np.int8([0])), (30, 40), dtype=np.int8)", ValueError),
    ("lib.ravel_multi_index((np.int8([1]), np.int8([0])), (3, 4), dtype=np.float32)", ValueError),
    ("lib.round(x, out=x)", NotImplementedError), ("lib.isneginf(x, out=x)", NotImplementedError),
]


def _run(lib, expr):
    return eval(expr, {"lib": lib, "np": np, "x": X, "xi": XI, "x3": X3, "IDX": IDX, "W": W,
                       "XN": XN, "_padder": _padder})


@pytest.mark.parametrize("expr", EXPRS)
def test_checklist_matches_jax(expr):
    assert_same(_run(fnp, expr), _run(jnp, expr), expr)


@pytest.mark.parametrize(("expr", "error"), ERRORS)
def test_checklist_errors_match_jax(expr, error):
    with pytest.raises(error) as theirs:
        _run(jnp, expr)
    with pytest.raises(error, match=re.escape(str(theirs.value)[:30])):
        _run(fnp, expr)


def test_traced_repeats_with_a_total_length_match_jax():
    """repeat with traced repeats needs total_repeat_length (JAX's ConcretizationTypeError
    otherwise); positions past the sum repeat the last element, as JAX's."""
    for reps, axis, total in (([2, 0, 1], 0, 4), ([1, 2, 3, 0], 1, 5), (2, 1, 3), ([0, 0, 1], 0, 2)):
        def f(lib, axis=axis, total=total):
            return lambda x, counts: lib.repeat(x, counts, axis=axis, total_repeat_length=total)
        r = np.int32(reps)
        assert_same(fe.jit(f(fnp))(X, r), jax.jit(f(jnp))(X, r), f"repeat {reps} {axis} {total}")
    with pytest.raises(fe.errors.ConcretizationTypeError, match="total_repeat_length"):
        fe.jit(lambda r: fnp.repeat(X, r, axis=0))(np.int32([1, 2, 0]))
    with pytest.raises(jax.errors.ConcretizationTypeError, match="total_repeat_length"):
        jax.jit(lambda r: jnp.repeat(X, r, axis=0))(np.int32([1, 2, 0]))


def test_lax_mul_out_dtype_matches_jax():
    for a, b, dt in ((np.int8([100, -7]), np.int8([3, 50]), np.int32),
                     (np.float32([1.5, -2.5]), np.float32([3, 2]), np.int32),
                     (np.int32([7]), np.int32([3]), np.float32), (X, X, None)):
        def f(lax, dt=dt):
            return lambda p, q: lax.mul(p, q, out_dtype=dt)
        assert_same(f(fe.lax)(a, b), f(jax.lax)(a, b), f"mul out_dtype={dt}")
        assert_same(fe.jit(f(fe.lax))(a, b), jax.jit(f(jax.lax))(a, b), f"jit mul out_dtype={dt}")


def test_checklist_under_jit_matches_jax():
    for expr in ("lib.take_along_axis(x, i, axis=1, mode='one_hot')",
                 "lib.pad(x, 1, mode='median')", "lib.pad(x, 1, mode=_padder)",
                 "x[False] + 1", "x[i[:, :1], True]",
                 "lib.quantile(x, 0.4, axis=1, weights=x + 1, method='inverted_cdf')"):
        def f(lib, expr=expr):
            return lambda x, i: eval(expr, {"lib": lib, "x": x, "i": i, "_padder": _padder})
        assert_same(fe.jit(f(fnp))(X, IDX), jax.jit(f(jnp))(X, IDX), expr)


def test_missing_names_of_linalg_and_fft_say_whether_jax_has_them():
    from frontend.core import jax_names
    for mod, jmod in ((fnp.linalg, jnp.linalg), (fnp.fft, jnp.fft)):
        with pytest.raises(AttributeError, match=rf"nor does {jmod.__name__}"):
            mod.not_a_function  # noqa: B018
        name = sorted(n for n in dir(jmod) if not n.startswith("_"))[0]
        assert "exists in JAX, but vmaplab does not have it yet" in str(
            jax_names.missing(mod.__name__, name))


WARNS = [
    "lib.array([1, 2], None, False, 'K', 2)", "lib.asarray(XC).astype(np.float32)",
    "lib.astype(XC, np.int32)", "lib.ndim([1, 2])", "lib.shape([[1], [2]])",
    "lib.size([1, 2, 3])",
]


@pytest.mark.parametrize("expr", WARNS)
def test_deprecation_warnings_match_jax(expr):
    env = {"np": np, "XC": np.complex64([1 + 2j, 3])}
    with pytest.warns(DeprecationWarning) as theirs:
        t = eval(expr, {**env, "lib": jnp})
    with pytest.warns(DeprecationWarning, match=re.escape(str(theirs[0].message)[:40])):
        o = eval(expr, {**env, "lib": fnp})
    assert_same(o, t, expr)


def test_array_and_asarray_positional_arguments_match_jax():
    for expr, error in (("lib.array([1, 2], None, True, copy=False)", TypeError),
                        ("lib.array([1, 2], None, 1, 2, 3, 4)", TypeError),
                        ("lib.array([1], order='C')", NotImplementedError),
                        ("lib.asarray([1], None, 'F')", NotImplementedError)):
        with pytest.raises(error) as theirs:
            eval(expr, {"lib": jnp})
        with pytest.raises(error, match=re.escape(str(theirs.value))):
            eval(expr, {"lib": fnp})
    assert_same(fnp.asarray([1, 2], None, "K", copy=True, device=fe.devices()[0]),
                jnp.asarray([1, 2], None, "K", copy=True, device=jax.devices()[0]))


UFUNC_NAMES = ["add", "bitwise_and", "bitwise_or", "bitwise_xor", "logaddexp", "logaddexp2",
               "logical_and", "logical_or", "logical_xor", "maximum", "minimum", "multiply",
               "negative", "subtract"]
UFUNC_EXPRS = ["call", "u.reduce(a)", "u.reduce(a, axis=1, keepdims=True)", "u.reduce(a, axis=None)",
               "u.accumulate(a, axis=1)", "u.outer(a[0], a[1])", "u.reduce(a[:0])",
               "u.reduce(a, axis=1, where=M, initial=a[0, 0])",
               "u.at(a, np.int32([0, 0, 2]), a[1], inplace=False)", "(u.identity, u.nin, u.nout)"]


# the default run: one ufunc of each kind (arithmetic, bitwise, logical, log-sum, unary);
# -m slow: all of them
UFUNC_DEFAULT = {"add", "bitwise_and", "logical_or", "logaddexp", "negative"}


@pytest.mark.parametrize("name", [n if n in UFUNC_DEFAULT else pytest.param(n, marks=pytest.mark.slow)
                                  for n in UFUNC_NAMES])
def test_ufunc_objects_of_the_library_match_jax(name):
    """jnp.add etc. are ufuncs; (JAX's own errors where it fails on valid input are not
    compared: its generic ``at`` with a broadcast operand, ``logaddexp.reduce(initial=)``)."""
    xs = [np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4),
          np.arange(-5, 7, dtype=np.int8).reshape(3, 4), np.arange(12).reshape(3, 4) % 3 == 0]
    mask = np.array([[True, False, True, True]] * 3)
    for expr in UFUNC_EXPRS:
        if expr.startswith("u.at") and name not in ("add", "multiply", "subtract") or \
                "initial" in expr and name.startswith("logaddexp"):
            continue
        if expr == "call":
            expr = "u(a)" if name == "negative" else "u(a, a)"
        for a in xs:
            env = {"a": a, "np": np, "M": mask}
            try:
                theirs = eval(expr, {**env, "u": getattr(jnp, name)})
            except (TypeError, ValueError) as e:
                with pytest.raises(type(e)):
                    eval(expr, {**env, "u": getattr(fnp, name)})
                continue
            assert_same(eval(expr, {**env, "u": getattr(fnp, name)}), theirs, f"{name}: {expr}")
    assert repr(getattr(fnp, name)) == repr(getattr(jnp, name))
    with pytest.raises(NotImplementedError, match="out argument"):
        getattr(fnp, name)(*([xs[0]] * getattr(fnp, name).nin), out=xs[0])


def test_out_sharding_of_the_creation_functions_matches_jax():
    from frontend.sharding import NamedSharding, PartitionSpec
    ours = NamedSharding(fe.make_mesh((1,), ("x",)), PartitionSpec("x"))
    theirs = jax.sharding.NamedSharding(jax.make_mesh((1,), ("x",)), jax.P("x"))
    for expr in ("lib.zeros(4, out_sharding=s)", "lib.ones((2, 3), np.int32, out_sharding=s)",
                 "lib.arange(4, out_sharding=s)", "lib.full_like(np.ones(4), 2, out_sharding=s)",
                 "lib.empty(2, out_sharding=s)", "lib.zeros_like(np.ones(2), out_sharding=s)",
                 "lib.full(3, 1.5, out_sharding=s)"):
        o = eval(expr, {"lib": fnp, "np": np, "s": ours})
        assert_same(o, eval(expr, {"lib": jnp, "np": np, "s": theirs}), expr)
        assert o.sharding.mesh == ours.mesh and o.sharding.spec[0] == "x", expr
    for expr, s in (("lib.zeros(4, out_sharding=s, device=d)", "named"),
                    ("lib.zeros(4, out_sharding=s)", "spec")):
        for lib, sh, dev, spec in ((jnp, theirs, jax.devices()[0], jax.P("x")),
                                   (fnp, ours, fe.devices()[0], PartitionSpec("x"))):
            with pytest.raises(ValueError, match="Only one of|Using PartitionSpec"):
                eval(expr, {"lib": lib, "s": sh if s == "named" else spec, "d": dev})
