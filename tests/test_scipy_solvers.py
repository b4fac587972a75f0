"""jax.scipy.sparse.linalg's iterative solvers and jax.scipy.optimize.minimize, beyond the
surface tables' matrix cases: operators as functions, pytree operands, vmap, complex
systems, JAX's errors; BFGS's results field by field."""
import jax
import jax.scipy.sparse.linalg as jsl
import numpy as np
import pytest
from harness import assert_same

import frontend as fe
import frontend.numpy as fnp
import frontend.scipy.sparse.linalg as fsl

R = np.random.default_rng(11)
M6 = R.normal(size=(6, 6)).astype(np.float32)
SPD = (M6 @ M6.T + 6 * np.eye(6)).astype(np.float32)
B = R.normal(size=6).astype(np.float32)
SOLVERS = ["cg", "bicgstab", "gmres"]


@pytest.mark.parametrize("names", [["cg"], pytest.param(["bicgstab", "gmres"], marks=pytest.mark.slow)])
def test_solvers_take_functions_and_pytrees_under_jit(names):
    """A matvec function on a dict of arrays (structure kept, each leaf its dtype), under jit
    (the solvers in one program)."""
    sub = SPD[2:, 2:]

    def op(np_):
        return lambda t: {"a": t["a"] * 2, "b": np_.dot(sub, t["b"])}
    b = {"a": np.float32([1.0, 2.0]), "b": B[:4]}

    def solve_all(mod, np_):
        return lambda b: [getattr(mod, n)(op(np_), b, tol=1e-6) for n in names]
    assert_same(fe.jit(solve_all(fsl, fnp))(b), jax.jit(solve_all(jsl, jax.numpy))(b), "solvers")


@pytest.mark.slow
@pytest.mark.parametrize("name", SOLVERS)
def test_solvers_under_vmap_and_complex(name):
    bs = np.stack([B, -2 * B, np.zeros_like(B)])
    ours = fe.vmap(lambda b: getattr(fsl, name)(SPD, b)[0])(bs)
    theirs = jax.vmap(lambda b: getattr(jsl, name)(SPD, b)[0])(bs)
    assert_same(ours, theirs, f"{name} under vmap")
    a = (M6 + 1j * np.eye(6) * 3).astype(np.complex64)
    b = (B + 1j * B[::-1]).astype(np.complex64)
    assert_same(getattr(fsl, name)(a, b, maxiter=4), getattr(jsl, name)(a, b, maxiter=4), name)


@pytest.mark.parametrize("name", ["cg", pytest.param("bicgstab", marks=pytest.mark.slow),
                                  "gmres"])
def test_solvers_differentiate_by_solving_again(name):
    """grad with respect to the matrix and the right-hand side goes through
    lax.custom_linear_solve (the transposed system solved again), as JAX's: equal to JAX's
    gradients and to central finite differences of the solution."""
    a = SPD if name == "cg" else (M6 + 6 * np.eye(6)).astype(np.float32)

    def loss(mod, np_):
        return lambda a, b: np_.sum(getattr(mod, name)(a, b, tol=1e-6)[0] ** 2)
    got = fe.grad(loss(fsl, fnp), argnums=(0, 1))(a, B)
    assert_same(got, jax.grad(loss(jsl, jax.numpy), argnums=(0, 1))(a, B), f"grad {name}")
    a64, b64, eps = a.astype(np.float64), B.astype(np.float64), 1e-6
    fd = [(np.sum(np.linalg.solve(a64, b64 + eps * e) ** 2)
           - np.sum(np.linalg.solve(a64, b64 - eps * e) ** 2)) / (2 * eps) for e in np.eye(6)]
    np.testing.assert_allclose(np.asarray(got[1]), fd, rtol=2e-3, atol=2e-3)


def test_solvers_raise_as_jax():
    for bad, kw, err in [(M6[:, :4], {}, ValueError), ("A", {}, TypeError),
                         (SPD, {"x0": (B,)}, ValueError), (SPD, {"M": M6[:3]}, ValueError)]:
        for mod in (fsl, jsl):
            with pytest.raises(err):
                mod.cg(bad, B, **kw)
    with pytest.raises(ValueError, match="solve_method"):
        fsl.gmres(SPD, B, solve_method="qr")
    with pytest.raises(ValueError, match="matching shapes"):
        fsl.bicgstab(SPD, B, x0=B[:3])


def test_minimize_results_and_errors():
    """OptimizeResults has JAX's fields in JAX's order; an unknown option is a TypeError."""
    import jax.scipy.optimize as jo

    import frontend.scipy.optimize as fo
    assert fo.OptimizeResults._fields == jo.OptimizeResults._fields
    for mod in (fo, jo):
        with pytest.raises(TypeError):
            mod.minimize(lambda x: (x * x).sum(), B, method="BFGS", options={"bogus": 1})


@pytest.mark.slow
def test_minimize_under_vmap():
    """minimize under vmap (one start per lane) gives JAX's per-lane results, as a pytree
    OptimizeResults."""
    import jax.scipy.optimize as jo

    import frontend.scipy.optimize as fo
    w = np.float32([1.0, 2.0, 3.0])

    def f(x, c):
        return ((x - c) ** 4 * w).sum() + (x * x).sum()
    starts = np.float32([[0, 0, 0], [1, -1, 2], [5, 5, 5]])
    cs = np.float32([1, 2, 3])
    ours = fe.jit(fe.vmap(lambda x, c: fo.minimize(f, x, (c,), method="BFGS")))(starts, cs)
    theirs = jax.vmap(lambda x, c: jo.minimize(f, x, (c,), method="BFGS"))(starts, cs)
    assert isinstance(ours, fo.OptimizeResults)
    assert_same(ours, theirs, "minimize under vmap")
