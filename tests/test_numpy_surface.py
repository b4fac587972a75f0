"""frontend.numpy names that are not functions (constants, dtype classes), and behaviours the
surface table (tests/surface/jnp.py) cannot express as a call, compared with jax.numpy."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from harness import assert_same

import frontend as fe
import frontend.numpy as fnp


def test_constants_match_jax():
    for name in ("e", "pi", "inf", "nan", "euler_gamma"):
        if hasattr(fnp, name):
            np.testing.assert_equal(getattr(fnp, name), getattr(jnp, name))
    assert fnp.newaxis is jnp.newaxis is None


def test_dtype_classes_match_jax():
    for name in ("complexfloating", "floating", "generic", "inexact", "integer", "number",
                 "signedinteger", "unsignedinteger"):
        for d in (np.float32, np.int8, np.uint16, np.complex64, np.bool_, jnp.bfloat16):
            assert fnp.issubdtype(d, getattr(fnp, name)) == jnp.issubdtype(d, getattr(jnp, name))
    assert fnp.dtype("float32") == jnp.dtype("float32")
    for name in ("ComplexWarning", "character", "flexible", "object_"):
        assert getattr(fnp, name) is getattr(jnp, name)  # numpy's own, in both
    assert isinstance(fnp.ones(2), fnp.ndarray) and not isinstance(np.ones(2), fnp.ndarray)
    for d in (np.float32, jnp.bfloat16, np.float16):
        assert fnp.finfo(d).eps == jnp.finfo(d).eps and fnp.finfo(d).max == jnp.finfo(d).max
    for d in (np.int8, np.uint32):
        assert (fnp.iinfo(d).min, fnp.iinfo(d).max) == (jnp.iinfo(d).min, jnp.iinfo(d).max)


def test_index_tricks_match_jax():
    a, b = np.array([3, 1, 2], np.int32), np.arange(6.0, dtype=np.float32).reshape(2, 3)
    for expr in ("r_[a, a]", "r_[0:5, 3, a]", "r_[0:1:5j]", "r_['0,2', a, a]", "r_['-1', b, b]",
                 "r_[1:3, 0.5]", "c_[a, a]", "c_[b, b]", "mgrid[0:3, 0:2]", "mgrid[0:1:3j, 0:2]",
                 "mgrid[0:4]", "ogrid[0:3, 0:2]", "ogrid[0:2:0.5]"):
        assert_same(eval(expr, {"a": a, "b": b, **vars(fnp)}),
                    eval(expr, {"a": a, "b": b, **vars(jnp)}), expr)
    x = np.arange(24).reshape(4, 6)
    for expr in ("s_[1:3, ::2]", "index_exp[1:3]", "s_[..., 1]"):
        sel_ours, sel_jax = eval(expr, vars(fnp)), eval(expr, vars(jnp))
        assert sel_ours == sel_jax
        assert_same(fnp.asarray(x)[sel_ours], jnp.asarray(x)[sel_jax], expr)
    with pytest.raises(ValueError, match="beginning"):
        fnp.r_[a, "0"]


def _vectorize_cases(lib):
    xf = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    w = np.float32([1.0, 2.0, -1.0, 0.5])
    return [(lib.vectorize(lambda a, b: a + b), (xf, 1.0)),
            (lib.vectorize(lib.dot, signature="(n),(n)->()"), (np.ones((3, 2)), np.ones(2))),
            (lib.vectorize(lambda a, b: (a * b, a - b)), (xf, w[None, :1])),
            (lib.vectorize(lambda a, n: a ** n, excluded={1}), (xf, 2)),
            (lib.vectorize(lambda m: m.sum(0), signature="(m,n)->(n)"), (np.ones((2, 3, 4)),))]


def test_vectorize_matches_jax():
    for (fo, args), (fj, _) in zip(_vectorize_cases(fnp), _vectorize_cases(jnp), strict=True):
        assert_same(fo(*args), fj(*args))
        if not any(isinstance(a, int) for a in args):
            assert_same(fe.jit(fo)(*args), jax.jit(fj)(*args))
    with pytest.raises(ValueError, match="signature"):
        fnp.vectorize(lambda a: a, signature="(n->()")


def test_io_and_printing_match_jax(tmp_path):
    x = np.linspace(0, 1, 6, dtype=np.float32).reshape(2, 3)
    for lib in (fnp, jnp):
        lib.save(tmp_path / f"{lib.__name__}.npy", lib.asarray(x))
        lib.savez(tmp_path / f"{lib.__name__}.npz", a=lib.asarray(x), b=lib.arange(3))
    ours, theirs = (lib.load(tmp_path / f"{lib.__name__}.npy") for lib in (fnp, jnp))
    assert_same(ours, theirs)
    ours_z = fnp.load(tmp_path / "frontend.numpy.npz")
    theirs_z = jnp.load(tmp_path / "jax.numpy.npz")
    assert_same(ours_z["a"], theirs_z["a"]) and assert_same(ours_z["b"], theirs_z["b"])
    assert fnp.array_str(x, precision=2) == jnp.array_str(jnp.asarray(x), precision=2)
    # (JAX's array_repr prints float32 values with float64 digits; ours prints numpy's repr)
    assert fnp.array_repr(fnp.asarray(x)) == "A" + np.array_repr(x)[1:]
    assert fnp.get_printoptions()["precision"] == jnp.get_printoptions()["precision"]
    with fnp.printoptions(precision=2), jnp.printoptions(precision=2):
        assert str(fnp.asarray(x)) == str(jnp.asarray(x))
    fnp.set_printoptions(precision=3)
    try:
        assert str(fnp.asarray(x)) == np.array_str(x, precision=3)
    finally:
        fnp.set_printoptions(precision=8)


def test_ufunc_objects_match_jax():
    xf = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    xi = np.arange(-5, 7, dtype=np.int32).reshape(3, 4)
    for expr in ("u2(x, x)", "u2.outer(x[0], x[1])", "u2.reduce(x)",
                 "u2.reduce(x, axis=1, keepdims=True)", "u2.reduce(i, axis=None, initial=2)",
                 "u2.accumulate(x, axis=1)", "u2.at(x, (0, 1), 2.0, inplace=False)",
                 "u2.reduceat(i, np.int32([0, 2, 1, 3]), axis=1)",
                 "lib.ufunc(lambda a: a * 2, 1, 1)(i)",
                 "lib.frompyfunc(lambda a, b: a + b, 2, 1, identity=0).reduce(x[:0])"):
        def run(lib, x, i, expr=expr):
            u2 = lib.frompyfunc(lambda a, b: a * b + 1, 2, 1)
            return eval(expr, {"x": x, "i": i, "np": np, "lib": lib, "u2": u2})
        assert_same(run(fnp, xf, xi), run(jnp, xf, xi), expr)
        assert_same(fe.jit(lambda x, i: run(fnp, x, i))(xf, xi),
                    jax.jit(lambda x, i: run(jnp, x, i))(xf, xi), expr)
    with pytest.raises(ValueError, match="binary"):
        fnp.ufunc(lambda a: a, 1, 1).outer(xf, xf)


def test_dtype_predicates_stay_python_bools_under_jit():
    """``fnp.bool`` is JAX's scalar type; the module defining it once called it for Python's
    bool, so issubdtype/can_cast made arrays (tracers under jit) instead of answers."""
    import frontend as fe

    seen = []

    def f(a):
        seen.append((fnp.issubdtype(a.dtype, fnp.inexact), fnp.can_cast(a.dtype, fnp.int8)))
        return a
    fe.jit(f)(np.ones(2, np.float32))
    assert seen == [(True, False)] and all(type(v) is bool for v in seen[0])
