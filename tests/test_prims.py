"""Op table of issue 14's primitive families (extra elementwise and special functions, sort,
convolution, FFT, matrix decompositions): every row against JAX (jit and eager), and vmap
against the per-example loop and jax.vmap with the batch axis at the front, middle and
end (and, for several operands, with each operand unbatched); plus the batched forms the
issue promises: one stablehlo.sort / stablehlo.convolution / LAPACK kernel call, no loop.

To stay cheap each family is one program: one jitted function computes every row (a dict
of outputs), so a family costs a few compiles; a mismatch still names its row."""
from __future__ import annotations

import dataclasses
import re
from types import SimpleNamespace

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest
from harness import assert_same, verify
from jax import lax as jlax

import frontend as fe
import frontend.numpy as fnp
import frontend.scipy.linalg as fsl
from frontend import lax

R = np.random.default_rng(14)
OURS = SimpleNamespace(np=fnp, lax=lax, sl=fsl, jit=fe.jit, vmap=fe.vmap)
JAX = SimpleNamespace(np=jnp, lax=jlax, sl=jsl, jit=jax.jit, vmap=jax.vmap)


@dataclasses.dataclass
class Row:
    name: str
    fn: object        # M -> function of the args (M: OURS or JAX)
    makers: list      # one maker per argument: () -> a fresh numpy example
    eager: bool = True  # also run eagerly (rows composing many primitives only jitted)


def f32(*s, lo=None, hi=None, scale=1.0):
    if lo is not None:
        return lambda: R.uniform(lo, hi, size=s).astype(np.float32)
    return lambda: (R.normal(size=s) * scale).astype(np.float32)


def i32(*s, lo=-50, hi=50):
    return lambda: R.integers(lo, hi, size=s).astype(np.int32)


def c64(*s):
    return lambda: (R.normal(size=s) + 1j * R.normal(size=s)).astype(np.complex64)


def lax_row(name, *makers, **kw):
    return Row(name, lambda M: getattr(M.lax, name), list(makers), **kw)


ELEMENTWISE = [
    lax_row("exp2", f32(3, 4)), lax_row("cbrt", f32(3, 4)), lax_row("square", f32(3, 4)),
    lax_row("asin", f32(3, 4, lo=-0.95, hi=0.95)), lax_row("acos", f32(3, 4, lo=-0.95, hi=0.95)),
    lax_row("atan", f32(3, 4)), lax_row("sinh", f32(3, 4)), lax_row("cosh", f32(3, 4)),
    lax_row("asinh", f32(3, 4)), lax_row("acosh", f32(3, 4, lo=1.1, hi=4)),
    lax_row("atanh", f32(3, 4, lo=-0.9, hi=0.9)),
    lax_row("clz", i32(3, 4, lo=-2**31, hi=2**31 - 1)),
    lax_row("nextafter", f32(3, 4), f32(3, 4)),
    lax_row("mulhi", i32(3, 4, lo=-2**31, hi=2**31 - 1), i32(3, 4, lo=-2**31, hi=2**31 - 1)),
    lax_row("real", c64(3, 4)), lax_row("imag", c64(3, 4)), lax_row("conj", c64(3, 4)),
    Row("conj of real", lambda M: M.lax.conj, [f32(3, 4)]),
    lax_row("complex", f32(3, 4), f32(3, 4)),
    Row("is_finite", lambda M: lambda x: M.lax.is_finite(x / (x - x[0, 0])), [f32(3, 4)]),
    Row("integer_pow", lambda M: lambda x, n: (M.lax.integer_pow(x, 3), M.lax.integer_pow(x, -2),
                                               M.lax.integer_pow(n, 5), M.lax.integer_pow(x, 0)),
        [f32(3, 4), i32(3, 4, lo=-4, hi=4)]),
    Row("reduce_precision", lambda M: lambda x: (M.lax.reduce_precision(x * 1e3, 5, 10),
                                                 M.lax.reduce_precision(x, 8, 7)), [f32(3, 4)]),
    Row("split/tile", lambda M: lambda x: (*M.lax.split(x, (1, 0, 3), 1), M.lax.tile(x, (2, 1))),
        [f32(3, 4)], eager=False),
    Row("optimization_barrier", lambda M: lambda x, y: (lambda a, b: a * b[0])(
        *M.lax.optimization_barrier((x, (y,)))), [f32(3, 4), f32(4)]),
    Row("numpy", lambda M: lambda x, y, z: (M.np.exp2(x), M.np.cbrt(x), M.np.arcsinh(x),
                                             M.np.arctan(y), M.np.cosh(x), M.np.isfinite(x / y),
                                             M.np.nextafter(x, y), M.np.real(z), M.np.imag(z),
                                             M.np.conj(z), M.np.angle(z)),
        [f32(3, 4), f32(3, 4), c64(3, 4)], eager=False),
]

def _float_bits(dtype, *s, subnormal=True):
    """Random floats, one in four replaced by a special value: signed zeros, infinities and
    NaN, the largest and smallest normal, subnormals (frexp, ldexp, signbit, copysign).
    (ldexp gets no subnormal x: XLA's CPU backend may flush them to zero in one program and
    not in another, so JAX's own result for them depends on how its program fuses.)"""
    fi = np.finfo(dtype)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, fi.max, -fi.max,
                        fi.smallest_normal, -fi.smallest_normal, 0.5, -1.0]
                       + [fi.smallest_subnormal, -fi.smallest_subnormal * 3] * subnormal, dtype)

    def make():
        big = min(30, int(np.log10(fi.max)) - 1)
        x = (R.normal(size=s) * 10.0 ** R.integers(-big, big, size=s)).astype(dtype)
        pick = R.random(size=s) < 0.25
        x[pick] = R.choice(special, size=int(pick.sum()))
        return x if subnormal else np.where(np.abs(x) < fi.smallest_normal, np.copysign(0, x).astype(dtype), x)
    return make


def _bits_row(M):
    return lambda x, y, n: (*M.np.frexp(x), M.np.ldexp(y, n), M.np.ldexp(y, 3),
                            M.np.signbit(x), M.np.signbit(n), M.np.copysign(x, y),
                            M.np.copysign(n, -2.0))


ELEMENTWISE.append(Row("frexp/ldexp/signbit/copysign", _bits_row,
                       [_float_bits(np.float32, 4, 6), _float_bits(np.float32, 4, 6, subnormal=False),
                        i32(4, 6, lo=-300, hi=300)]))

SPECIAL = [
    lax_row("erf", f32(3, 4)), lax_row("erfc", f32(3, 4)),
    lax_row("erf_inv", f32(3, 4, lo=-0.95, hi=0.95)),
    lax_row("lgamma", f32(3, 4, lo=0.1, hi=6)), lax_row("digamma", f32(3, 4, lo=0.1, hi=6)),
    lax_row("bessel_i0e", f32(3, 4, scale=3)), lax_row("bessel_i1e", f32(3, 4, scale=3)),
    Row("polygamma", lambda M: lambda m, x: M.lax.polygamma(M.np.round(m), x),
        [f32(3, 4, lo=0, hi=3), f32(3, 4, lo=0.5, hi=4)], eager=False),
    lax_row("zeta", f32(3, 4, lo=1.5, hi=5), f32(3, 4, lo=0.5, hi=3), eager=False),
    lax_row("igamma", f32(3, 4, lo=0.5, hi=4), f32(3, 4, lo=0.1, hi=5), eager=False),
    lax_row("igammac", f32(3, 4, lo=0.5, hi=4), f32(3, 4, lo=0.1, hi=5), eager=False),
    lax_row("betainc", f32(3, 4, lo=0.5, hi=3), f32(3, 4, lo=0.5, hi=3), f32(3, 4, lo=0.05, hi=0.95), eager=False),
]


def _with_nans(x):
    x = x.copy()
    x.flat[::5] = np.nan
    return x


SORT = [
    Row("sort", lambda M: lambda x: (M.lax.sort(x, dimension=0), M.lax.sort(x)), [f32(5, 6)]),
    Row("sort nan", lambda M: lambda x: M.np.sort(x, axis=-1), [lambda: _with_nans(f32(4, 7)())], eager=False),
    Row("sort keys", lambda M: lambda k, v: M.lax.sort((k, v), num_keys=1, dimension=1),
        [i32(3, 8, lo=0, hi=3), f32(3, 8)]),
    Row("sort two keys", lambda M: lambda k1, k2, v: M.lax.sort((k1, k2, v), num_keys=2),
        [i32(9, lo=0, hi=2), i32(9, lo=0, hi=3), i32(9)], eager=False),
    Row("argsort", lambda M: lambda x: (M.np.argsort(x, axis=0), M.np.argsort(x, descending=True)),
        [i32(5, 6, lo=0, hi=4)], eager=False),
    Row("top_k", lambda M: lambda x: M.lax.top_k(x, 3), [f32(4, 7)]),
    Row("searchsorted", lambda M: lambda a, v: M.np.searchsorted(M.np.sort(a), v, side="right"),
        [f32(8), f32(5)], eager=False),
    Row("unique", lambda M: lambda x: M.np.unique(x, size=6, fill_value=-1), [i32(10, lo=0, hi=5)], eager=False),
]


def _conv(dn=None, groups=1, bgroups=1, **kw):
    def fn(M):
        return lambda x, w: M.lax.conv_general_dilated(
            x, w, kw.get("strides", (1, 1)), kw.get("padding", "SAME"),
            lhs_dilation=kw.get("lhs_dilation"), rhs_dilation=kw.get("rhs_dilation"),
            dimension_numbers=dn, feature_group_count=groups, batch_group_count=bgroups)
    return fn


CONV = [
    Row("conv NCHW", _conv(strides=(2, 1), padding="VALID"), [f32(2, 3, 7, 6), f32(4, 3, 3, 2)]),
    Row("conv NHWC dilated", _conv(("NHWC", "HWIO", "NHWC"), padding=((1, 2), (0, 1)),
                                   lhs_dilation=(2, 1), rhs_dilation=(1, 2)),
        [f32(2, 5, 6, 3), f32(2, 2, 3, 4)]),
    Row("conv feature groups", _conv(groups=2, padding="SAME"), [f32(2, 4, 5, 5), f32(6, 2, 3, 3)]),
    Row("conv batch groups", _conv(bgroups=2, padding="VALID"), [f32(4, 3, 5, 5), f32(6, 3, 2, 2)]),
    Row("conv 1-D", lambda M: lambda x, w: M.lax.conv(x, w, (1,), "SAME"), [f32(2, 3, 9), f32(5, 3, 3)]),
    Row("convolve", lambda M: lambda a, v: (M.np.convolve(a, v), M.np.correlate(a, v, mode="same")),
        [f32(9), f32(4)], eager=False),
]

FFT = [
    Row("fft", lambda M: lambda z: (M.np.fft.fft(z), M.np.fft.ifft(z, n=6, norm="ortho")), [c64(3, 5)]),
    Row("rfft", lambda M: lambda x: (M.np.fft.rfft(x, axis=0), M.np.fft.irfft(M.np.fft.rfft(x)),
                                     M.np.fft.fft(x)), [f32(4, 6)], eager=False),
    Row("fft2", lambda M: lambda z: (M.np.fft.fft2(z), M.np.fft.ifftn(z, norm="forward")), [c64(2, 4, 3)]),
    Row("rfftn", lambda M: lambda x: (M.np.fft.rfftn(x), M.np.fft.irfft2(M.np.fft.rfft2(x), s=(4, 6)),
                                      M.lax.fft(x, "RFFT", (3, 4, 6))), [f32(3, 4, 6)], eager=False),
]


def _spd(M, a):
    return a @ M.np.swapaxes(a, -1, -2) + 4 * M.np.eye(a.shape[-1], dtype=a.dtype)


def _sign_free(M, v):
    """Eigen/singular vectors up to sign: each column scaled by the sign of its largest entry."""
    i = M.np.argmax(M.np.abs(v), axis=-2, keepdims=True)
    return v * M.np.sign(M.np.take_along_axis(v, i, axis=-2))


LINALG = [
    Row("cholesky", lambda M: lambda a: M.np.linalg.cholesky(_spd(M, a)), [f32(4, 4)], eager=False),
    Row("lu", lambda M: lambda a: M.lax.linalg.lu(a), [f32(4, 4)]),
    Row("lu wide", lambda M: lambda a: M.sl.lu(a), [f32(3, 5)], eager=False),
    Row("qr", lambda M: lambda a: (M.np.linalg.qr(a), M.np.linalg.qr(a.T, mode="complete")),
        [f32(5, 3)], eager=False),
    # (jax.lax.linalg has no public geqrf: JAX's side is the reduced q it makes)
    Row("geqrf", lambda M: (lambda a: M.lax.linalg.householder_product(*M.lax.linalg.geqrf(a)))
        if M is OURS else (lambda a: M.lax.linalg.qr(a, full_matrices=False)[0]), [f32(5, 3)],
        eager=False),
    Row("eigh", lambda M: lambda a: (lambda v, w: (_sign_free(M, v), w))(*M.lax.linalg.eigh(_spd(M, a))),
        [f32(4, 4)], eager=False),
    Row("svd", lambda M: lambda a: (lambda u, s, vt: (_sign_free(M, u), s, _sign_free(M, vt.T)))(
        *M.np.linalg.svd(a, full_matrices=False)), [f32(5, 3)], eager=False),
    Row("svdvals", lambda M: lambda a: M.np.linalg.svd(a, compute_uv=False), [f32(3, 4)]),
    Row("solve_triangular", lambda M: lambda a, b: (
        M.sl.solve_triangular(_spd(M, a), b, lower=True),
        M.sl.solve_triangular(_spd(M, a), b, trans=1, unit_diagonal=True),
        M.lax.linalg.triangular_solve(_spd(M, a), b.T, left_side=False, lower=False)),
        [f32(4, 4), f32(4, 3)], eager=False),
    Row("solve/inv/det", lambda M: lambda a, b: (M.np.linalg.solve(_spd(M, a), b), M.np.linalg.inv(_spd(M, a)),
                                                 M.np.linalg.det(a), M.np.linalg.slogdet(a)),
        [f32(3, 3), f32(3, 2)], eager=False),
    Row("pinv/lstsq", lambda M: lambda a, b: (M.np.linalg.pinv(a), M.np.linalg.lstsq(a, b)[0],
                                              M.np.linalg.norm(a, 2), M.np.linalg.matrix_rank(a)),
        [f32(5, 3), f32(5)], eager=False),
    Row("cho_solve", lambda M: lambda a, b: M.sl.cho_solve(M.sl.cho_factor(_spd(M, a)), b),
        [f32(4, 4), f32(4)], eager=False),
    Row("tridiagonal_solve", lambda M: lambda dl, d, du, b: M.lax.linalg.tridiagonal_solve(
        dl, d + 4, du, b), [f32(2, 5), f32(2, 5), f32(2, 5), f32(2, 5, 3)]),
]



def _argmax_pair(M):
    """A reduce computation over (value, index) pairs: the larger value (first on ties)."""
    def comp(acc, el):
        pick = M.lax.gt(el[0], acc[0])
        return M.lax.select(pick, el[0], acc[0]), M.lax.select(pick, el[1], acc[1])
    return comp


def _ROWS(M):  # noqa: N802  (scatter whole rows of a matrix)
    return M.lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                         scatter_dims_to_operand_dims=(0,))


def _window(comp, init, *args):
    return lambda M: lambda x: M.lax.reduce_window(x, init, getattr(M.lax, comp), *args)


WINDOWS = [
    Row("sum SAME strided", _window("add", 0.0, (1, 3, 3), (1, 2, 2), "SAME"), [f32(2, 7, 6)]),
    Row("max dilated", _window("max", -np.inf, (2, 2, 1), (1, 1, 2), ((1, 0), (0, 2), (1, 1)),
                               (1, 2, 1), (1, 1, 2)), [f32(3, 5, 6)]),
    Row("min padded", _window("min", np.inf, (3, 2), (2, 1), ((1, 2), (0, 1))), [f32(7, 4)]),
    Row("int max, other init", _window("max", 2, (2, 2), (1, 1), "VALID"), [i32(4, 5)]),
    Row("sum, other init", _window("add", 1.5, (3,), (1,), "SAME", (2,)), [f32(6)]),
    Row("pooling", lambda M: lambda x: (
        M.lax.reduce_window(x, -np.inf, M.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID"),
        M.lax.reduce_window(x, 0.0, M.lax.add, (1, 1, 3, 3), (1, 1, 1, 1), "SAME") / 9),
        [f32(2, 3, 6, 6)], eager=False),
    Row("reduce (argmax computation)", lambda M: lambda x, i: M.lax.reduce(
        (x, i), (np.float32(-np.inf), np.int32(0)), _argmax_pair(M), (1,)),
        [f32(3, 5), i32(3, 5, lo=0, hi=9)], eager=False),
    Row("reduce monoid", lambda M: lambda x: (M.lax.reduce(x, np.float32(0), M.lax.add, (0,)),
                                              M.lax.reduce(x, np.float32(-np.inf), M.lax.max, (1,))),
        [f32(3, 5)], eager=False),
    Row("cumlogsumexp", lambda M: lambda x: (M.lax.cumlogsumexp(x, axis=1),
                                             M.lax.cumlogsumexp(x, axis=0, reverse=True)),
        [f32(5, 7, scale=4)], eager=False),
    # general reduce_window: another monoid, and a (value, index) pair by a user computation
    Row("reduce_window (user computation, pair)", lambda M: lambda x, i: (
        M.lax.reduce_window(x, np.float32(1), M.lax.mul, (2, 2), (1, 2), "SAME"),
        M.lax.reduce_window((x, i), (np.float32(-np.inf), np.int32(0)), _argmax_pair(M), (2, 3),
                            (2, 1), ((1, 0), (0, 1)), (1, 2), (1, 1))),
        [f32(5, 6), i32(5, 6, lo=0, hi=9)]),
    # six index rows into three operand rows: duplicates for sure, where func applies once
    # per occurrence (a gather-apply-scatter would apply it once); clip mode on 1..3
    Row("scatter_apply (duplicate indices)", lambda M: lambda x, i: (
        M.lax.scatter_apply(x, i, lambda v: v * 2 + 1, _ROWS(M), update_shape=(6, 4)),
        M.lax.scatter_apply(x, i + 1, M.lax.sin, _ROWS(M), update_shape=(6, 4), mode="clip")),
        [f32(3, 4), i32(6, 1, lo=0, hi=3)]),
    # computations closing over a concrete value (a constant of their region, as JAX's)
    Row("computations closing over a constant", lambda M: lambda x, i: (
        M.lax.reduce(x, np.float32(0), lambda a, b: a + _SCALE * b, (1,)),
        M.lax.reduce_window(x, np.float32(0), lambda a, b: a * _SCALE + b, (2, 2), (1, 1), "VALID"),
        M.lax.scatter_apply(x, i, lambda v: v * _SCALE, _ROWS(M), update_shape=(6, 4))),
        [f32(3, 4), i32(6, 1, lo=0, hi=3)]),
]
_SCALE = np.float32(1.5)

FAMILIES = {"elementwise": ELEMENTWISE, "special": SPECIAL, "sort": SORT, "conv": CONV,
            "fft": FFT, "linalg": LINALG, "windows": WINDOWS}
_TOL = {"special": dict(rtol=2e-4, atol=2e-5), "linalg": dict(rtol=2e-4, atol=2e-4),
        "fft": dict(rtol=1e-4, atol=1e-4),
        "windows": dict(rtol=1e-5, atol=1e-5), "conv": dict(rtol=1e-4, atol=1e-4)}


SIZE = 3  # examples per batch
# families whose rows are built by the elementwise factories (one shared batching rule,
# tested at every position in test_elementwise.py): each row at one position, in rotation
# (and the decompositions and fft, whose rules keep leading axes or move the batch axis to
# the front: one branch each)
ROTATE = ("elementwise", "special", "linalg", "fft")


def _examples(family):
    """SIZE examples of each row's arguments (the first is the one compared with JAX)."""
    rng = np.random.default_rng(abs(hash(family)) % 2**32)
    R.bit_generator.state = rng.bit_generator.state
    return [[[mk() for mk in row.makers] for _ in range(SIZE)] for row in FAMILIES[family]]


_PROGRAMS: dict = {}


def _program(family, M):
    """One jitted function of every row of a family (compiled once per family and side)."""
    key = (family, M is OURS)
    if key not in _PROGRAMS:
        rows = FAMILIES[family]
        _PROGRAMS[key] = M.jit(lambda all_args: {row.name: row.fn(M)(*args)
                                                for row, args in zip(rows, all_args, strict=True)})
    return _PROGRAMS[key]


def _same(ours, theirs, what, tol):
    if tol:
        for o, t in zip(jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs), strict=True):
            o, t = np.asarray(o), np.asarray(t)
            assert o.shape == t.shape and o.dtype == t.dtype, f"{what}: {o.shape} {o.dtype} vs {t.shape} {t.dtype}"
            np.testing.assert_allclose(o, t, err_msg=what, equal_nan=True, **tol)
    else:
        assert_same(ours, theirs, what)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_family_vs_jax(family):
    """One jitted program of every row vs JAX's, and each row eagerly."""
    rows, args = FAMILIES[family], [ex[0] for ex in _examples(family)]
    tol = _TOL.get(family)
    theirs = _program(family, JAX)(args)
    ours = _program(family, OURS)(args)
    verify(_program(family, OURS).lower(args).as_text())
    for row, a in zip(rows, args, strict=True):
        _same(ours[row.name], theirs[row.name], f"{family} {row.name} jit", tol)
        if row.eager:
            _same(row.fn(OURS)(*a), theirs[row.name], f"{family} {row.name} eager", tol)


def test_float_bits_in_float64(x64):
    """frexp, ldexp, signbit and copysign on float64 (and float16) special values against
    JAX's, jitted (the float32 row above covers eager and vmap)."""
    x, y = _float_bits(np.float64, 40)(), _float_bits(np.float64, 40, subnormal=False)()
    n = R.integers(-2200, 2200, size=40)
    h, hy = _float_bits(np.float16, 40)(), _float_bits(np.float16, 40, subnormal=False)()
    args = (x, y, n)
    ours, theirs = fe.jit(_bits_row(OURS))(*args), jax.jit(_bits_row(JAX))(*args)
    assert_same(ours, theirs, "float64 jit")
    assert_same(fe.jit(_bits_row(OURS))(h, hy, n // 100), jax.jit(_bits_row(JAX))(h, hy, n // 100),
                "float16 jit")


POSITIONS = ("front", "middle", "end", "only 0", "only 1", "only 2")


def _axes(pos, args):
    """in_axes of one batch position: every operand batched at the front, middle or end, or
    only operand k (None when the row has no operand k, or only one operand)."""
    if pos.startswith("only"):
        k = int(pos[-1])
        return None if k >= len(args) or len(args) == 1 else [0 if j == k else None
                                                                for j in range(len(args))]
    return [{"front": 0, "middle": (np.ndim(a) + 1) // 2, "end": np.ndim(a)}[pos] for a in args]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_family_vmap(family):
    """Every row vmapped at every batch position (rows of the elementwise factories at one
    position each, in rotation), all in one program, against the per-example loop: the
    family's per-example program (ours, and JAX's) run on each example."""
    rows, examples = FAMILIES[family], _examples(family)
    cases = []  # (row index, position, in_axes)
    for i, ex in enumerate(examples):
        valid = [(p, ax) for p in POSITIONS if (ax := _axes(p, ex[0])) is not None]
        cases += [(i, *valid[i % len(valid)])] if family in ROTATE else [(i, *v) for v in valid]

    def batched(i, axes):
        cols = zip(*examples[i], strict=True)  # per argument, its SIZE examples
        return [ex[0] if ax is None else np.moveaxis(np.stack(ex), 0, ax)
                for ex, ax in zip(cols, axes, strict=True)]

    bargs = [batched(i, axes) for i, _, axes in cases]
    ours = fe.jit(lambda bargs: [fe.vmap(rows[i].fn(OURS), in_axes=tuple(axes))(*b)
                                 for (i, _, axes), b in zip(cases, bargs, strict=True)])(bargs)
    # the loop: example k of every row at every position, through the per-example programs
    per_k = {}
    for pos in {p for _, p, _ in cases}:
        for k in range(SIZE):
            args = []
            for ex in examples:
                axes = _axes(pos, ex[0]) or [None] * len(ex[0])
                args.append([ex[k][j] if ax is not None else ex[0][j] for j, ax in enumerate(axes)])
            per_k[pos, k] = (_program(family, OURS)(args), _program(family, JAX)(args))
    tol = _TOL.get(family)
    for (i, pos, axes), got in zip(cases, ours, strict=True):
        name = rows[i].name
        for side in (0, 1):
            ref = jax.tree_util.tree_map(lambda *xs: np.stack([np.asarray(x) for x in xs]),
                                         *[per_k[pos, k][side][name] for k in range(SIZE)])
            _same(got, ref, f"{family} {name} vmap in_axes={axes} vs the "
                            f"{'loop' if side == 0 else 'loop of JAX'}", tol)


def test_nested_vmap():
    """vmap of vmap (batch axes in the middle and at the front) of a sort, a conv, an fft
    and a solve."""
    def f(M):
        return lambda x, w, a: (M.lax.sort(x), M.lax.conv(x[None, None], w, (1, 1), "SAME"),
                                M.np.fft.rfft(x), M.np.linalg.solve(_spd(M, a), x[:, :3].T))
    x = R.normal(size=(2, 3, 4, 5)).astype(np.float32)
    w = R.normal(size=(1, 1, 2, 2)).astype(np.float32)
    a = R.normal(size=(2, 3, 3, 4)).astype(np.float32)

    def nest(M):
        return M.vmap(M.vmap(f(M), in_axes=(1, None, 2)), in_axes=(0, None, 0))
    _same(fe.jit(nest(OURS))(x, w, a), jax.jit(nest(JAX))(x, w, a), "nested vmap",
          dict(rtol=1e-4, atol=1e-4))


# ----------------------------------------------------------------------------- batched forms

def _count(text, op):
    return len(re.findall(rf"\b{re.escape(op)}\b", text))


def test_vmap_of_sort_conv_solve_is_one_op_without_loops():
    x = R.normal(size=(5, 4, 6)).astype(np.float32)
    text = fe.jit(fe.vmap(lambda r: fnp.sort(r, axis=0), in_axes=2)).lower(x).as_text()
    assert _count(text, "stablehlo.sort") == 1 and "stablehlo.while" not in text
    lhs = R.normal(size=(3, 2, 2, 7, 7)).astype(np.float32)
    rhs = R.normal(size=(3, 4, 2, 3, 3)).astype(np.float32)
    conv = lambda a, b: lax.conv(a, b, (1, 1), "SAME")
    for axes in ((0, 0), (0, None), (None, 0)):
        args = [lhs if axes[0] is not None else lhs[0], rhs if axes[1] is not None else rhs[0]]
        text = fe.jit(fe.vmap(conv, in_axes=axes)).lower(*args).as_text()
        assert _count(text, "stablehlo.convolution") == 1 and "stablehlo.while" not in text, axes
    a = R.normal(size=(6, 4, 4)).astype(np.float32)
    b = R.normal(size=(6, 4)).astype(np.float32)
    text = fe.jit(fe.vmap(fnp.linalg.solve)).lower(a, b).as_text()
    calls = re.findall(r"stablehlo.custom_call @(\w+)\(.*\} : \(tensor<(\d+)x", text)
    # one batched LU and two batched triangular solves (L, then U), no loop
    assert calls == [("lapack_sgetrf_ffi", "6"), ("lapack_strsm_ffi", "6"),
                     ("lapack_strsm_ffi", "6")], calls
    assert _count(text, "stablehlo.while") == 0


def test_vmap_of_fft_and_decompositions_keeps_one_call():
    a = R.normal(size=(3, 2, 4, 4)).astype(np.float32)
    for f in (fnp.linalg.cholesky, fnp.linalg.qr, fnp.linalg.eigh, fnp.linalg.svd, fnp.fft.fft2):
        g = (lambda m, f=f: f(_spd(OURS, m))) if f in (fnp.linalg.cholesky, fnp.linalg.eigh) else f
        text = fe.jit(fe.vmap(fe.vmap(g), in_axes=1)).lower(a).as_text()
        assert "stablehlo.while" not in text, f
        calls = re.findall(r"stablehlo.custom_call @(\w+)|(stablehlo.fft)", text)
        assert len(calls) == len({c for c in calls}), (f, calls)


def test_interpreter_refuses_fft_with_a_clear_error():
    """The reference interpreter aborts the process on stablehlo.fft: refused up front."""
    with pytest.raises(ValueError, match="cannot run stablehlo.fft"):
        fe.jit(fnp.fft.rfft, device="interpreter")(np.ones(8, np.float32))


def test_precision_reaches_the_stablehlo_precision_config():
    """precision= on dot_general/dot/matmul/einsum/conv: StableHLO's precision config."""
    a = np.ones((3, 4), np.float32)
    fns = {"matmul": lambda a: fnp.matmul(a, a.T, precision=lax.Precision.HIGHEST),
           "einsum": lambda a: fnp.einsum("ij,kj->ik", a, a, precision="highest",
                                          preferred_element_type=np.float32),
           "dot": lambda a: lax.dot(a, a.T, precision=(lax.Precision.HIGH, "float32"))}
    for name, f in fns.items():
        text = fe.jit(f).lower(a).as_text()
        assert re.search(r"stablehlo.dot_general .*precision = \[(HIGH|HIGHEST), HIGHEST\]", text), name
    text = fe.jit(lambda a: lax.conv(a[None, None], a[None, None], (1, 1), "SAME",
                                     precision=lax.Precision.HIGH)).lower(a).as_text()
    assert "precision_config = [#stablehlo<precision HIGH>, #stablehlo<precision HIGH>]" in text


def test_computations_cannot_close_over_tracers():
    x = np.ones((3, 4), np.float32)
    with pytest.raises(NotImplementedError, match="can't close over Tracers"):
        fe.jit(lambda x, t: fe.lax.reduce(x, np.float32(0), lambda a, b: a + t * b, (1,)))(
            x, np.float32(2))
