"""The classes of jax.scipy's submodules, compared with JAX's: interpolate's
RegularGridInterpolator, spatial.transform's Rotation and Slerp (constructors, methods,
under jit as pytrees)."""
import re

import jax
import jax.scipy.interpolate as jinterp
import jax.scipy.spatial.transform as jst
import numpy as np
import pytest
from harness import assert_same

import frontend as fe
import frontend.scipy.interpolate as finterp
import frontend.scipy.spatial.transform as fst

R = np.random.default_rng(21)
G0 = np.float32([0.0, 0.5, 1.5, 3.0])
G1 = np.float32([-1.0, 0.0, 2.0])
VALUES = R.normal(size=(4, 3, 2)).astype(np.float32)
XI = np.stack([R.uniform(-0.5, 3.5, size=7), R.uniform(-1.5, 2.5, size=7)], -1).astype(np.float32)


def _interpolations(m, kw, grid0, grid1, values, xi):
    f = m.RegularGridInterpolator((grid0, grid1), values, **kw)
    one = m.RegularGridInterpolator((grid0,), values[:, 0, 0], **kw)
    return {"points": f(xi), "tuple": f((xi[:, 0], xi[:, 1]), method="nearest"),
            "1-D": one(xi[:, 0]), "pytree": f}


@pytest.mark.parametrize("kw", [{}, *[pytest.param(k, marks=pytest.mark.slow) for k in (
    {"method": "nearest"}, {"fill_value": None}, {"fill_value": 0.5})]])
def test_regular_grid_interpolator_vs_jax(kw):
    """Every use in one jitted program per side (one compilation each); the interpolator
    leaves it as a pytree."""
    args = (G0, G1, VALUES, XI)
    assert_same(fe.jit(lambda *a: _interpolations(finterp, kw, *a))(*args),
                jax.jit(lambda *a: _interpolations(jinterp, kw, *a))(*args), str(kw))


@pytest.mark.parametrize(("args", "kw", "err"), [
    ((G0, G1), {"method": "cubic"}, ValueError),
    ((G0, G1), {"bounds_error": True}, NotImplementedError),
    ((G0, G1, G1, G1), {}, ValueError),
    ((G0, G1), {"fill_value": 1j}, ValueError)])
def test_regular_grid_interpolator_errors_as_jax(args, kw, err):
    for m in (jinterp, finterp):
        with pytest.raises(err):
            m.RegularGridInterpolator(args, VALUES, **kw)


Q = R.normal(size=(5, 4)).astype(np.float32)
V3 = R.normal(size=(5, 3)).astype(np.float32)
ANG = R.uniform(-3, 3, size=(5, 3)).astype(np.float32)


def _constructors(rot, r, v, ang, mat):
    q = r.quat
    return {"pytree": rot.from_quat(q), "from_quat1": rot.from_quat(q[0]).quat,
            "from_rotvec": rot.from_rotvec(v).quat, "from_matrix": rot.from_matrix(mat).quat,
            "from_euler": rot.from_euler("xyz", ang).quat, "from_euler1": rot.from_euler("z", 0.7).quat,
            "as_euler": r.as_euler("zxz"), "as_matrix": r.as_matrix(), "apply": r.apply(v),
            "compose": (r * r[::-1]).quat, "identity": rot.identity().quat}


def _more_constructors(rot, r, v, ang, mat):
    return {"from_rotvec_deg": rot.from_rotvec(v * 40, True).quat, "from_mrp": rot.from_mrp(v * 0.3).quat,
            "from_euler_i": rot.from_euler("ZXZ", ang).quat,
            "from_euler2": rot.from_euler("yx", ang[:, :2] * 30, True).quat}


def _euler(rot, r, v, ang, mat):
    out = {}
    for seq in ["xyz", "zyx", "XYZ", "ZYZ", "xyx"]:
        out[f"as_euler {seq}"] = r.as_euler(seq)
        out[f"as_euler {seq} deg"] = r.as_euler(seq, True)
    flat = np.float32([[0.3, 0.0, 0.2], [0.1, np.pi, 0.4]])  # the middle angle 0 or pi
    for seq in ("zxz", "xyz"):
        out[f"degenerate {seq}"] = rot.from_euler(seq, flat).as_euler(seq)
    return out


def _methods(rot, r, v, ang, mat):
    neg = np.float32([[0, 0, 0, -1], [0, -1, 0, 0], [-1, 0, 0, 0]])
    return dict(as_mrp=r.as_mrp(), as_rotvec=r.as_rotvec(), as_rotvec_deg=r.as_rotvec(True),
                as_quat=r.as_quat(), as_quat_cs=r.as_quat(True, True), magnitude=r.magnitude(),
                apply_inv=r.apply(v, True), apply1=r.apply(v[0]), inv=r.inv().quat,
                concatenate=rot.concatenate([r, r[:2]]).quat,
                canonical=rot.from_quat(neg).as_quat(canonical=True),
                # q and -q are one rotation: the mean's matrix, not its quaternion
                mean=r.mean().as_matrix(), weighted_mean=r.mean(np.float32([1, 2, 3, 4, 5])).as_matrix())


@pytest.mark.parametrize("group", [
    _constructors, *[pytest.param(g, marks=pytest.mark.slow) for g in (_more_constructors, _euler, _methods)]])
def test_rotation_vs_jax(group):
    """Rotation's constructors and methods, each group in one jitted program per side (a
    Rotation goes in and comes out as a pytree); the default run the first group."""
    args = (V3, ANG, np.asarray(jst.Rotation.from_quat(Q).as_matrix()))
    assert_same(fe.jit(lambda r, *a: group(fst.Rotation, r, *a))(fst.Rotation(Q), *args),
                jax.jit(lambda r, *a: group(jst.Rotation, r, *a))(jst.Rotation(Q), *args), group.__name__)
    r, j = fst.Rotation(Q), jst.Rotation(Q)
    assert (len(r), r.single, r[0].single) == (len(j), j.single, j[0].single)


@pytest.mark.parametrize(("call", "err"), [
    (lambda m: m.Rotation.from_euler("xyzx", ANG), ValueError),
    (lambda m: m.Rotation.from_euler("xYz", ANG), ValueError),
    (lambda m: m.Rotation.from_euler("xxz", ANG), ValueError),
    (lambda m: m.Rotation(Q).as_euler("xy"), ValueError),
    (lambda m: m.Rotation(Q[0])[0], TypeError),
    (lambda m: len(m.Rotation(Q[0])), TypeError),
    (lambda m: m.Rotation.random(None), NotImplementedError),
    (lambda m: m.Rotation(Q).mean(np.ones((2, 5))), ValueError),
    (lambda m: m.Rotation(Q).mean(np.ones(3)), ValueError),
    (lambda m: m.Slerp.init(np.arange(5.0), Q), TypeError),
    (lambda m: m.Slerp.init(np.arange(1.0), m.Rotation(Q[:1])), ValueError),
    (lambda m: m.Slerp.init(np.arange(4.0), m.Rotation(Q)), ValueError),
    (lambda m: m.Slerp(np.float32([0, 1]), None, None, None)(np.ones((2, 2))), ValueError),
])
def test_rotation_errors_as_jax(call, err):
    for m in (jst, fst):
        with pytest.raises(err):
            call(m)


def _slerp(m, times, q, at):
    s = m.Slerp.init(times, m.Rotation.from_quat(q))
    return {"slerp": s, "at": s(at).quat, "one": s(at[1]).quat, "single": s(at[1]).single}


def test_slerp_vs_jax():
    args = (np.float32([0.0, 1.0, 2.5, 3.0, 5.0]), Q, np.float32([0.0, 0.3, 1.0, 2.7, 4.9, 5.0]))
    assert_same(fe.jit(lambda *a: _slerp(fst, *a))(*args),
                jax.jit(lambda *a: _slerp(jst, *a))(*args), "Slerp")


DATA2 = R.normal(size=(2, 30)).astype(np.float32)
DATA1 = R.normal(size=(25,)).astype(np.float32)
KDE_W = R.uniform(0.5, 2.0, size=30).astype(np.float32)
AT2 = R.normal(size=(2, 6)).astype(np.float32)


def _kde(stats, rnd, data2, data1, w, at, key, bw, more):
    """gaussian_kde's constructors and methods on one dataset, in one dict."""
    k2 = stats.gaussian_kde(data2, bw_method=bw, weights=w)
    k1 = stats.gaussian_kde(data1, bw_method=bw)
    out = {"kde": k2, "evaluate": k2.evaluate(at), "logpdf": k2.logpdf(at), "d": k2.d,
           "box": k1.integrate_box_1d(-0.5, 1.0), "resample": k2.resample(key, (4,))}
    if more:
        out.update(pdf=k1.pdf(data1[:5]), call=k1(data1[:3]), point=k2(at[:, 0]),
                   gaussian=k2.integrate_gaussian(at[:, 0], np.eye(2, dtype=np.float32)),
                   kde_kde=k2.integrate_kde(stats.gaussian_kde(data2[:, :7])),
                   resample1=k1.resample(key), callable=stats.gaussian_kde(data1, lambda k: 0.4).covariance)
    return out


@pytest.mark.parametrize(("bw", "more"), [
    (None, False), *[pytest.param(bw, True, marks=pytest.mark.slow) for bw in ("silverman", 0.3)]])
def test_gaussian_kde_vs_jax(bw, more):
    """One jitted program per side; the kde comes out of it as a pytree."""
    import jax.random as jr
    import jax.scipy.stats as js

    import frontend.random as fr
    import frontend.scipy.stats as fs
    key = np.array([0, 7], np.uint32)
    args = (DATA2, DATA1, KDE_W, AT2, key)
    assert_same(fe.jit(lambda *a: _kde(fs, fr, *a, bw, more))(*args),
                jax.jit(lambda *a: _kde(js, jr, *a, bw, more))(*args), f"gaussian_kde {bw}")


@pytest.mark.parametrize(("call", "err"), [
    (lambda s: s.gaussian_kde(np.float32([1.0])), ValueError),
    (lambda s: s.gaussian_kde(DATA1.astype(np.complex64)), NotImplementedError),
    (lambda s: s.gaussian_kde(DATA2, weights=KDE_W[:5]), ValueError),
    (lambda s: s.gaussian_kde(DATA2, bw_method="bogus"), ValueError),
    (lambda s: s.gaussian_kde(DATA2).integrate_box_1d(0.0, 1.0), ValueError),
    (lambda s: s.gaussian_kde(DATA2).evaluate(np.ones((3, 2), np.float32)), ValueError),
    (lambda s: s.gaussian_kde(DATA2).integrate_box(0.0, 1.0), NotImplementedError),
    (lambda s: s.gaussian_kde(DATA2).set_bandwidth("scott"), NotImplementedError),
])
def test_gaussian_kde_errors_as_jax(call, err):
    import jax.scipy.stats as js

    import frontend.scipy.stats as fs
    for m in (js, fs):
        with pytest.raises(err):
            call(m)


@pytest.mark.parametrize("path", ["scipy", "scipy.signal", "scipy.fft", "scipy.integrate",
                                  "scipy.interpolate", "scipy.ndimage", "scipy.cluster",
                                  "scipy.cluster.vq", "scipy.spatial", "scipy.spatial.transform"])
def test_missing_names_say_whether_jax_has_them(path):
    """A name the module lacks is an AttributeError naming the JAX module (not a KeyError)."""
    mod = fe
    for part in path.split("."):
        mod = getattr(mod, part)
    with pytest.raises(AttributeError, match=re.escape(f"nor does jax.{path})")):
        mod.not_a_function  # noqa: B018


def _float64_table(sig, fft, nd, rnd, a, b, s, key):
    return {"convolve": sig.convolve(a, b, "same"), "fftconvolve": sig.fftconvolve(a, b),
            "correlate2d": sig.correlate2d(a, b), "detrend": sig.detrend(a),
            "welch": sig.welch(s, nperseg=16), "stft": sig.stft(s, nperseg=16),
            "dct": fft.dct(a, norm="ortho"), "idctn": fft.idctn(a),
            "map_coordinates": nd.map_coordinates(a, [s[:4] + 2, s[4:8] + 2], 1, "mirror"),
            "binomial": rnd.binomial(key, 30.0, b[0, :2] ** 2 / 9, dtype=np.float64)}


@pytest.mark.slow
def test_float64_vs_jax(x64):
    """With 64-bit types on: float64 values and dtypes as JAX's (one program per side)."""
    import jax.random as jr
    import jax.scipy.fft as jf
    import jax.scipy.ndimage as jn
    import jax.scipy.signal as jsig

    import frontend.random as fr
    import frontend.scipy.fft as ff
    import frontend.scipy.ndimage as fn
    import frontend.scipy.signal as fsig
    args = (R.normal(size=(5, 6)), R.normal(size=(2, 3)), R.normal(size=64),
            np.array([0, 3], np.uint32))
    assert_same(fe.jit(lambda *a: _float64_table(fsig, ff, fn, fr, *a))(*args),
                jax.jit(lambda *a: _float64_table(jsig, jf, jn, jr, *a))(*args), "float64")


def _batched_table(vmap, sig, fft, nd, rnd, x, k, keys):
    return {"convolve": vmap(sig.convolve)(x, k), "welch": vmap(lambda v: sig.welch(v, nperseg=8))(x),
            "istft": vmap(lambda v: sig.istft(sig.stft(v, nperseg=8)[2])[1])(x),
            "dct": vmap(fft.dct, in_axes=1, out_axes=1)(x),
            "map_coordinates": vmap(lambda v: nd.map_coordinates(v, [k[0] * 3 + 4], 1, "wrap"))(x),
            "binomial": vmap(lambda key: rnd.binomial(key, 12.0, 0.4, (3,)))(keys)}


@pytest.mark.slow
def test_vmap_vs_jax():
    """vmap of the new functions (batch on the leading or a middle axis) as jax.vmap."""
    import jax.random as jr
    import jax.scipy.fft as jf
    import jax.scipy.ndimage as jn
    import jax.scipy.signal as jsig

    import frontend.random as fr
    import frontend.scipy.fft as ff
    import frontend.scipy.ndimage as fn
    import frontend.scipy.signal as fsig
    args = (R.normal(size=(3, 32)).astype(np.float32), R.normal(size=(3, 4)).astype(np.float32),
            np.asarray(jr.split(jr.PRNGKey(1), 3)))
    assert_same(fe.jit(lambda *a: _batched_table(fe.vmap, fsig, ff, fn, fr, *a))(*args),
                jax.jit(lambda *a: _batched_table(jax.vmap, jsig, jf, jn, jr, *a))(*args), "vmap")


def _differentiable(np_, sig, fft, nd, stats, rotation, x, k):
    """A scalar that goes through the new modules' differentiable functions."""
    return (np_.sum(sig.convolve(x, k) ** 2) + np_.sum(sig.fftconvolve(x, k) ** 2)
            + np_.sum(sig.welch(x, nperseg=16)[1]) + np_.sum(np_.abs(sig.stft(x, nperseg=16)[2]))
            + np_.sum(sig.detrend(x) ** 2) + np_.sum(fft.dct(x) ** 2) * 1e-2
            + np_.sum(fft.idct(x, norm="ortho") * k[0]) + np_.sum(nd.map_coordinates(x, [k + 3.3], 1))
            + np_.sum(rotation.from_rotvec(x[:3]).as_euler("xyz"))
            + np_.sum(stats.gaussian_kde(x).logpdf(k)))


@pytest.mark.slow
def test_grad_vs_jax():
    """Gradients through signal, fft, ndimage, spatial.transform and gaussian_kde as JAX's."""
    import jax.numpy as jnp
    import jax.scipy.fft as jf
    import jax.scipy.ndimage as jn
    import jax.scipy.signal as jsig
    import jax.scipy.stats as jss

    import frontend.numpy as fnp
    import frontend.scipy.fft as ff
    import frontend.scipy.ndimage as fn
    import frontend.scipy.signal as fsig
    import frontend.scipy.stats as fss
    x, k = R.normal(size=64).astype(np.float32), R.normal(size=5).astype(np.float32)
    ours = fe.jit(fe.grad(lambda x: _differentiable(fnp, fsig, ff, fn, fss, fst.Rotation, x, k)))(x)
    theirs = jax.jit(jax.grad(lambda x: _differentiable(jnp, jsig, jf, jn, jss, jst.Rotation, x, k)))(x)
    assert_same(ours, theirs, "grad")
