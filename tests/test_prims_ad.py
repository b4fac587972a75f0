"""Op table, autodiff columns of issue 14's primitives (the machinery of test_ad_table.py):
per family one jitted program computes every row's jvp and vjp, ours against JAX's
(float32), and in float64 the jvp against central finite differences and the vjp as its
transpose. Rows whose derivative JAX lacks (zeta in q, nextafter) are checked against
finite differences only; derivatives JAX refuses raise JAX's errors here too."""
from __future__ import annotations

import jax
import numpy as np
import pytest
import test_ad_table as ad
from harness import project_primitives

import frontend as fe
import frontend.numpy as fnp
from frontend import lax
from frontend.interpreters.ad_util import Zero, float0

Row = ad.Row
R = np.random.default_rng(21)


def f32(*shape, lo=None, hi=None, scale=1.0):
    if lo is not None:
        return R.uniform(lo, hi, size=shape).astype(np.float32)
    return (R.normal(size=shape) * scale).astype(np.float32)


def unary(name, x=None, **kw):
    # (forward mode only: a nonlinear elementwise rule's vjp transposes a product, which
    # test_ad_table covers; the rows of linear primitives below check both modes)
    return Row(name, lambda M: getattr(M.lax, name), [f32(3, 4) if x is None else x],
               **{"vjp": False, **kw})


def _spd(M, a):
    return a @ M.np.swapaxes(a, -1, -2) + 4 * M.np.eye(a.shape[-1], dtype=a.dtype)


def _signs(M, v):
    """Vectors up to sign: each column by the sign of its first entry."""
    return v * M.np.sign(v[..., :1, :])


def _window(comp, init, *args):
    return lambda M: lambda x: M.lax.reduce_window(x, init, getattr(M.lax, comp), *args)


def _conv(**kw):
    return lambda M: lambda x, w: M.lax.conv_general_dilated(x, w, **kw)


U = f32(3, 4, lo=-0.8, hi=0.8)
POS = f32(3, 4, lo=0.5, hi=3)
TABLES = {
    "elementwise": [
        unary("exp2"), unary("cbrt", f32(3, 4, lo=0.2, hi=2)), unary("asin", U), unary("acos", U),
        unary("atan"), unary("sinh"), unary("cosh"), unary("asinh"),
        unary("acosh", f32(3, 4, lo=1.2, hi=3)), unary("atanh", U), unary("square"),
        Row("integer_pow", lambda M: lambda x: M.lax.integer_pow(x, 3) + M.lax.integer_pow(x, -2)
            + M.lax.integer_pow(x, 0) + M.lax.integer_pow(x, 1), [POS], vjp=False),
        Row("is_finite", lambda M: lambda x: M.np.where(M.lax.is_finite(1 / (x - 0.25)), x, 0.0),
            [f32(3, 4)]),
        Row("complex parts", lambda M: lambda x, y: (
            M.lax.real(M.lax.complex(x, y) * M.lax.conj(M.lax.complex(y, x)))
            + M.lax.imag(M.lax.complex(x, x * y) * (1 + 2j)), M.lax.real(M.lax.conj(x))),
            [f32(3, 4), f32(3, 4)]),
        Row("optimization_barrier", lambda M: lambda x, y: (lambda a, b: M.np.sin(a) * b)(
            *M.lax.optimization_barrier((x, y))), [f32(3, 4), f32(4)]),
        Row("reduce_precision", lambda M: lambda x: M.lax.reduce_precision(x, 8, 7) * x, [f32(3, 4)],
            fd=False),
        # compositions over float bits: the derivative in x flows through the arithmetic part
        Row("frexp/ldexp/copysign in x", lambda M: lambda x: (
            M.np.frexp(x)[0], M.np.ldexp(x, np.int32(3)) + M.np.ldexp(x, -140),
            M.np.copysign(x, -1.0) * M.np.copysign(x, x - 0.5)), [f32(3, 4)], fd=False),
    ],
    "special": [
        unary("erf"), unary("erfc"), unary("erf_inv", U), unary("lgamma", POS),
        unary("digamma", POS), unary("bessel_i0e", f32(3, 4, scale=2)),
        unary("bessel_i1e", np.concatenate([f32(2, 4, scale=2), np.zeros((1, 4), np.float32)])),
        Row("polygamma", lambda M: lambda x: M.lax.polygamma(M.np.ones_like(x), x), [POS], vjp=False),
        Row("igamma", lambda M: lambda x: M.lax.igamma(M.np.full_like(x, 1.5), x)
            + M.lax.igammac(M.np.full_like(x, 2.5), x), [POS], vjp=False),
        Row("betainc", lambda M: lambda x: M.lax.betainc(M.np.full_like(x, 1.5), M.np.full_like(x, 2.0), x),
            [f32(3, 4, lo=0.1, hi=0.9)], vjp=False),
    ],
    "sort": [
        Row("sort", lambda M: lambda x: (M.lax.sort(x, dimension=0), M.np.sort(x * x, axis=1)), [f32(4, 5)]),
        Row("sort keys", lambda M: lambda k, v: M.lax.sort((k, v), num_keys=1, dimension=1)[1],
            [R.integers(0, 3, size=(3, 6)).astype(np.int32), f32(3, 6)]),
        Row("top_k", lambda M: lambda x: M.lax.top_k(x, 3)[0], [f32(4, 6)]),
    ],
    "conv": [
        Row("conv strided", _conv(window_strides=(2, 1), padding="VALID"), [f32(2, 3, 7, 6), f32(4, 3, 3, 2)]),
        Row("conv dilated NHWC", _conv(window_strides=(1, 2), padding=((1, 2), (0, 1)), lhs_dilation=(2, 1),
                                       rhs_dilation=(1, 2), dimension_numbers=("NHWC", "HWIO", "NHWC")),
            [f32(2, 5, 6, 3), f32(2, 2, 3, 4)]),
        Row("conv feature groups", _conv(window_strides=(1, 1), padding="SAME", feature_group_count=2),
            [f32(2, 4, 5, 5), f32(6, 2, 3, 3)]),
        Row("conv batch groups", _conv(window_strides=(2, 1), padding="VALID", batch_group_count=2),
            [f32(4, 3, 5, 5), f32(6, 3, 2, 2)]),
    ],
    "windows": [
        Row("reduce_window_sum", _window("add", 0.0, (1, 3, 3), (1, 2, 2), "SAME"), [f32(2, 7, 6)]),
        Row("reduce_window_max", _window("max", -np.inf, (1, 3, 2), (1, 2, 1), ((0, 0), (1, 2), (1, 0))),
            [f32(2, 7, 6)]),
        Row("reduce_window_min dilated", _window("min", np.inf, (2, 2), (1, 1), "VALID", (2, 1)),
            [f32(5, 4)]),
        # (associative, as lax.reduce requires: (1 + a)(1 + b) - 1)
        Row("reduce (user computation)", lambda M: lambda x: M.lax.reduce(
            x, 0.0, lambda a, b: a + b + a * b, (0, 2)), [f32(3, 2, 5, scale=0.3)]),
        Row("cumlogsumexp", lambda M: lambda x: M.lax.cumlogsumexp(x, axis=1, reverse=True), [f32(3, 7)]),
        # general reduce_window: JAX's jvp (the window reduction of the computation's jvp);
        # reverse mode is refused by both, and JAX's jvp of its jvp fails
        Row("reduce_window (user computation)", lambda M: lambda x: M.lax.reduce_window(
            x, 0.0, lambda a, b: a + b + a * b, (2, 2), (1, 2), "SAME"), [f32(3, 5, scale=0.3)],
            vjp=False, order=1),
    ],
    "fft": [
        Row("fft/ifft", lambda M: lambda x, y: (lambda z: M.np.real(z * M.np.conj(z)))(
            M.np.fft.ifft(M.np.fft.fft(x + 1j * y) * x)), [f32(3, 6), f32(3, 6)]),
        Row("rfft/irfft even", lambda M: lambda x: M.np.fft.irfft(M.np.fft.rfft(x) ** 2), [f32(3, 6)]),
        Row("rfft/irfft odd", lambda M: lambda x: M.np.fft.irfft(M.np.fft.rfft(x) * (1 + 0.5j), n=5),
            [f32(3, 5)]),
        Row("rfft2", lambda M: lambda x: M.np.real(M.np.fft.rfft2(x)) * M.np.imag(M.np.fft.rfft2(x)),
            [f32(2, 4, 6)]),
    ],
    "linalg": [
        Row("cholesky", lambda M: lambda a: M.np.linalg.cholesky(_spd(M, a)), [f32(2, 4, 4)], vjp=False),
        Row("lu", lambda M: lambda a: M.lax.linalg.lu(a)[0], [f32(4, 4)], vjp=False),
        Row("eigh", lambda M: lambda a: (lambda v, w: (w, _signs(M, v)))(*M.lax.linalg.eigh(_spd(M, a))),
            [f32(4, 4)], vjp=False),
        Row("svd", lambda M: lambda a: (lambda u, s, vt: (s, _signs(M, u), _signs(M, vt.T)))(
            *M.np.linalg.svd(a, full_matrices=False)), [f32(5, 3)], vjp=False),
        Row("qr", lambda M: lambda a: tuple(M.np.linalg.qr(a)), [f32(5, 3)], vjp=False),
        Row("svdvals", lambda M: lambda a: M.np.linalg.svd(a, compute_uv=False), [f32(3, 4)], vjp=False),
        Row("triangular_solve", lambda M: lambda a, b: (
            M.lax.linalg.triangular_solve(_spd(M, a), b, left_side=True, lower=True),
            M.lax.linalg.triangular_solve(_spd(M, a), b.T, lower=False, transpose_a=True,
                                          unit_diagonal=True)), [f32(4, 4), f32(4, 3)]),
        Row("tridiagonal_solve", lambda M: lambda dl, d, du, b: M.lax.linalg.tridiagonal_solve(
            dl, d * d + 4, du, b), [f32(2, 5), f32(2, 5), f32(2, 5), f32(2, 5, 3)]),
    ],
}
TOL = {"elementwise": dict(rtol=1e-5, atol=1e-5), "special": dict(rtol=1e-4, atol=1e-5),
       "sort": dict(rtol=1e-6, atol=1e-6), "conv": dict(rtol=1e-4, atol=1e-4),
       "windows": dict(rtol=1e-5, atol=1e-5), "fft": dict(rtol=1e-4, atol=1e-4),
       "linalg": dict(rtol=2e-3, atol=2e-3)}


# tables also run at tie/edge inputs, and the orders of their nested jvps (test_ad_table's
# columns): 4 for every differentiable family
TIE_TABLES = {"elementwise", "special", "sort", "windows"}
ORDER = {"elementwise": 4, "special": 4, "sort": 4, "windows": 4, "fft": 4, "conv": 4, "linalg": 4}


def _tol(table, key):
    """The table's tolerance; the nested jvps (orders 2..) of special functions run through
    long float32 chains that XLA fuses differently in ours and JAX's program (rounding of
    order 1e-4 relative), so there at most 1e-3 (a wrong rule is off by far more)."""
    tol = TOL[table]
    if key != "jvp2.." or table != "special":
        return tol
    return {"rtol": max(tol["rtol"], 1e-3), "atol": max(tol["atol"], 1e-4)}


# the default run: first order (jvp and vjp; nesting is tests/test_ad_table.py's default);
# -m slow: nested jvps to each table's ORDER
@pytest.mark.parametrize("table,order", [(t, 1) for t in TABLES] + [
    pytest.param(t, ORDER[t], marks=pytest.mark.slow) for t in TABLES])
def test_jvp_and_vjp_equal_jax(table, order):
    rows = TABLES[table]
    ours, theirs = ad.run_table(table, rows, TIE_TABLES, {table: order})
    for row in rows:
        for k in theirs[row.name]:
            for o, t in zip(jax.tree_util.tree_leaves(ours[row.name][k]),
                            jax.tree_util.tree_leaves(theirs[row.name][k]), strict=True):
                np.testing.assert_allclose(np.asarray(o), np.asarray(t), **_tol(table, k),
                                           err_msg=f"{table} {row.name} {k}")


# derivatives JAX does not have: finite differences only
FD_ONLY = [
    Row("zeta in q", lambda M: lambda q: M.lax.zeta(M.np.full_like(q, 2.5), q), [POS]),
    Row("nextafter in x", lambda M: lambda x: M.lax.nextafter(x, M.np.zeros_like(x)) * x, [f32(3, 4)]),
]


# (the rules compared with JAX's above are not finite-differenced again, to stay cheap,
# except the ones of our own making: window max/min, the fft transposes)
FD_TABLES = {"fd-only": FD_ONLY, "windows": TABLES["windows"], "fft": TABLES["fft"]}


@pytest.mark.parametrize("table", list(FD_TABLES))
def test_finite_differences_float64(table, x64):
    ad.check_finite_differences(table, FD_TABLES[table], adjoint_rtol=1e-8)


def test_igamma_grad_a_grid_float64(x64):
    """d igamma / da and d igammac / da (igamma_grad_a) over a grid of a (1e-3 .. 1000) and x
    (1e-4 .. 1100), vmapped: in float64 against jax.grad and central finite differences, in
    float32 against float64. (One program of both: d(P + 3 Q)/da = -2 dP/da. The special
    table above differentiates in x only, to spare the compiles.)"""
    a, x = (v.ravel() for v in np.meshgrid(
        [1e-3, 0.05, 0.3, 1.0, 2.5, 7.0, 30.0, 150.0, 1000.0],
        [1e-4, 0.01, 0.2, 1.0, 3.0, 8.0, 29.0, 160.0, 990.0, 1100.0]))

    def grads(api, L):
        return api.vmap(api.grad(lambda a, x: L.igamma(a, x) + 3 * L.igammac(a, x)))
    ours = np.asarray(fe.jit(grads(fe, lax))(a, x))
    theirs = np.asarray(jax.jit(grads(jax, jax.lax))(a, x))
    np.testing.assert_allclose(ours, theirs, rtol=1e-11, atol=1e-14)
    h = 1e-6 * a
    fd = (np.asarray(fe.jit(lax.igamma)(a + h, x)) - np.asarray(fe.jit(lax.igamma)(a - h, x))) / (2 * h)
    np.testing.assert_allclose(ours, -2 * fd, rtol=1e-5, atol=1e-6)
    ours32 = np.asarray(fe.jit(grads(fe, lax))(a.astype(np.float32), x.astype(np.float32)))
    np.testing.assert_allclose(ours32, theirs, rtol=5e-4, atol=2e-6)
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'igamma_grad_a'"):
        fe.jvp(lambda a: lax.igamma_grad_a(a, x), (a,), (a,))


def test_integer_primitives_have_zero_tangents():
    """clz and mulhi take integers only: the JVP trace never calls their rules, so call
    them directly: symbolic float0 zeros."""
    x = np.array([[1, 2], [3, -7]], np.int32)
    prims = project_primitives()
    for name, args in (("clz", (x,)), ("mulhi", (x, x))):
        out, t = prims[name].jvp_rule(args, tuple(Zero(fe.ShapedArray(x.shape, float0)) for _ in args))
        assert type(t) is Zero and t.aval.dtype == float0 and t.aval.shape == np.shape(out), name


def test_derivatives_jax_refuses_raise_its_errors():
    x = np.full((3,), 0.5, np.float32)
    with pytest.raises(ValueError, match="Betainc gradient with respect to a and b not supported"):
        fe.jvp(lambda a: lax.betainc(a, a, x), (x + 1,), (x,))
    with pytest.raises(ValueError, match="polygamma gradient with respect to m is not supported"):
        fe.jvp(lambda m: lax.polygamma(m, x), (x,), (x,))
    with pytest.raises(NotImplementedError, match="not implemented for full matrices"):
        fe.jvp(lambda a: fnp.linalg.svd(a)[0], (np.eye(3, dtype=np.float32),), (np.eye(3, dtype=np.float32),))
    dn = lax.ScatterDimensionNumbers((), (0,), (0,))
    with pytest.raises(NotImplementedError, match="scatter_apply JVP not implemented"):
        fe.jvp(lambda v: lax.scatter_apply(v, np.array([[1], [1]]), lax.sin, dn, update_shape=(2,)),
               (x,), (x,))
    taus = lax.linalg.geqrf(np.eye(3, dtype=np.float32))[1]
    for f in (lambda a: lax.linalg.geqrf(a)[0], lambda a: lax.linalg.householder_product(a, taus)):
        with pytest.raises(NotImplementedError, match="Differentiation rule for '(geqrf|householder_product)'"):
            fe.jvp(f, (np.eye(3, dtype=np.float32),), (np.eye(3, dtype=np.float32),))
