"""Lowering for every XLA platform from this host (issue 27): ``jit(f).trace(*a).lower(
lowering_platforms=...)`` for "cpu", "cuda", "rocm", "tpu" and several at once (JAX's
convention: a leading platform-index argument, a ``stablehlo.case`` where rules differ),
per-platform lowering rules (``def_lowering(rule, platform=)``, ``lax.platform_dependent``),
and the parity table: each op-table row lowered for each platform verifies and makes the
custom calls JAX's own lowering of the same program makes."""
import re

import numpy as np
import pytest

import frontend as fe
import frontend.numpy as fnp
from frontend import lax
from frontend.extend import Primitive

PLATFORMS = ("cpu", "cuda", "rocm", "tpu")
X = np.linspace(0.5, 1.5, 3, dtype=np.float32)


def _verify(text):
    fe.jit(lambda x: x).lower(X)  # (the backend is loaded)
    from frontend.device import seam
    seam.get().compiler_ir(text)  # parses and verifies


def _platform_dependent(x):
    return lax.platform_dependent(x, cpu=fnp.sin, cuda=fnp.cos, default=fnp.tan) * 2


def test_trace_gives_the_graph_and_out_info():
    t = fe.jit(lambda x, y: {"s": x * y, "n": y.sum()}).trace(X, X)
    assert [e.prim.name for e in t.jaxpr.eqns] == ["mul", "reduce_sum"]
    info = t.out_info
    assert info["s"].shape == (3,) and info["n"].shape == () and info["s"].dtype == np.float32
    assert t.lower().as_text() == fe.jit(lambda x, y: {"s": x * y, "n": y.sum()}).lower(X, X).as_text()


@pytest.mark.parametrize("platform", PLATFORMS)
def test_platform_dependent_picks_the_branch_of_each_platform(platform):
    text = fe.jit(_platform_dependent).trace(X).lower(lowering_platforms=(platform,)).as_text()
    want = {"cpu": "sine", "cuda": "cosine"}.get(platform, "tan")
    ops = {"sine", "cosine", "tan"}
    assert [o for o in ops if f"stablehlo.{o} " in text] == [want]
    assert "stablehlo.case" not in text and "_platform_index" not in text
    _verify(text)


def test_several_platforms_make_a_case_on_the_platform_index():
    import jax
    t = fe.jit(_platform_dependent).trace(X)
    text = t.lower(lowering_platforms=("cpu", "cuda", "tpu")).as_text()
    _verify(text)
    head = re.search(r"func.func public @main\(([^)]*)\)", text).group(1)
    assert head.startswith('%arg0: tensor<i32> {jax.global_constant = "_platform_index"}')
    assert text.count('"stablehlo.case"') == 2  # platform -> branch, then the branches
    # the same convention as JAX's module for the same platforms
    jtext = jax.jit(lambda x: jax.lax.platform_dependent(
        x, cpu=jax.numpy.sin, cuda=jax.numpy.cos, default=jax.numpy.tan) * 2).trace(X).lower(
        lowering_platforms=("cpu", "cuda", "tpu")).as_text()
    assert '%arg0: tensor<i32> {jax.global_constant = "_platform_index"}' in jtext
    # compiled here, it runs this platform's branch
    lo = t.lower(lowering_platforms=("cuda", "cpu"))
    np.testing.assert_allclose(lo.compile()(X), np.sin(X) * 2, rtol=1e-6)


def test_platform_dependent_eager_vmap_grad_use_this_platforms_branch():
    np.testing.assert_allclose(_platform_dependent(X), np.sin(X) * 2, rtol=1e-6)
    np.testing.assert_allclose(fe.vmap(_platform_dependent)(np.stack([X, X])),
                               np.stack([np.sin(X) * 2] * 2), rtol=1e-6)
    np.testing.assert_allclose(fe.grad(lambda x: _platform_dependent(x).sum())(X),
                               np.cos(X) * 2, rtol=1e-6)


def test_platform_dependent_errors_as_jax():
    with pytest.raises(ValueError, match="Use 'cuda' or 'rocm'"):
        lax.platform_dependent(X, gpu=fnp.sin)
    with pytest.raises(TypeError, match="the 'cpu' branch must be a callable"):
        lax.platform_dependent(X, cpu=1)
    t = fe.jit(lambda x: lax.platform_dependent(x, cpu=fnp.sin)).trace(X)
    with pytest.raises(ValueError, match="no branch for platform 'tpu'"):
        t.lower(lowering_platforms=("tpu",))


def test_lowering_for_an_absent_platform_compiles_nowhere_here():
    lo = fe.jit(fnp.sin).trace(X).lower(lowering_platforms=("cuda",))
    assert lo.platforms == ("cuda",)
    with pytest.raises(ValueError, match=r"lowered for \('cuda',\) and cannot be compiled here"):
        lo.compile()
    with pytest.raises(ValueError, match="unknown platform 'gpu'"):
        fe.jit(fnp.sin).trace(X).lower(lowering_platforms=("gpu",))
    with pytest.raises(TypeError, match="tuple of platform names"):
        fe.jit(fnp.sin).trace(X).lower(lowering_platforms="cuda")


def test_user_primitive_with_a_cuda_rule():
    p = Primitive("h27_twice")
    p.def_abstract_eval(lambda x: x)
    p.def_lowering(lambda ctx, x: [ctx.op(f"stablehlo.add {x}, {x} : {ctx.type(ctx.avals_in[0])}")])

    @p.def_lowering(platform="cuda")
    def _cuda(ctx, x):
        two = ctx.broadcast(ctx.constant(2.0, ctx.avals_in[0].update(shape=())),
                            ctx.avals_in[0].update(shape=()), ctx.avals_in[0].shape)
        return [ctx.op(f"stablehlo.multiply {x}, {two} : {ctx.type(ctx.avals_in[0])}")]

    t = fe.jit(p.bind).trace(X)
    for plat, op in (("cpu", "add"), ("cuda", "multiply"), ("tpu", "add")):
        text = t.lower(lowering_platforms=(plat,)).as_text()
        assert f"stablehlo.{op} " in text and text.count("stablehlo.add ") + \
            text.count("stablehlo.multiply ") == 1, plat
    multi = t.lower(lowering_platforms=("cpu", "cuda", "rocm")).as_text()
    _verify(multi)
    assert multi.count('"stablehlo.case"') == 2  # cpu and rocm share the default rule
    np.testing.assert_allclose(fe.jit(p.bind)(X), 2 * X)
    with pytest.raises(ValueError, match="unknown platform 'gpu'"):
        p.def_lowering(lambda ctx, x: [x], platform="gpu")


# ----------------------------------------------------------------------------- parity table
# Every row of the op tables (tests/test_prims.py's families, tests/test_linalg.py's dot
# table), traced once on each side and lowered for each platform (no compile): our module
# verifies and makes the same set of custom calls as JAX's lowering of the same program.

def _rows():
    import test_linalg
    import test_prims
    rows = []
    for family, table in test_prims.FAMILIES.items():
        for row in table:
            args = [mk() for mk in row.makers]
            rows.append((f"{family}:{row.name}", row.fn(test_prims.OURS), row.fn(test_prims.JAX),
                         args))
    for name, ours, theirs, shapes in test_linalg.OPS:
        args = [np.asarray(test_linalg.R.normal(size=s), np.float32) for s in shapes] \
            if hasattr(test_linalg, "R") else [np.ones(s, np.float32) for s in shapes]
        rows.append((f"dot:{name}", ours, theirs, args))
    return rows


ROWS = _rows()
_TARGET = re.compile(r"stablehlo\.custom_call @([\w.$-]+)|call_target_name = \"([^\"]+)\"")
CPU_ONLY = ("lapack_", "ducc_")

# Documented differences from JAX's custom calls: {(row, platform): reason}
EXCEPTIONS: dict = {}


def custom_calls(text: str) -> set:
    return {a or b for a, b in _TARGET.findall(text)}


_TRACED: dict = {}


def _traced(name):
    if name not in _TRACED:
        import jax
        _, ours, theirs, args = next(r for r in ROWS if r[0] == name)
        _TRACED[name] = (fe.jit(ours).trace(*args), jax.jit(theirs).trace(*args))
    return _TRACED[name]


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("name", [r[0] for r in ROWS])
def test_custom_calls_match_jax(name, platform):
    ours, theirs = _traced(name)
    text = ours.lower(lowering_platforms=(platform,)).as_text()
    _verify(text)
    got = custom_calls(text)
    if platform != "cpu":
        assert not [t for t in got if t.startswith(CPU_ONLY)], f"{name}: CPU-only target on {platform}"
    want = custom_calls(theirs.lower(lowering_platforms=(platform,)).as_text())
    if (name, platform) in EXCEPTIONS:
        pytest.xfail(EXCEPTIONS[name, platform])
    assert got == want, f"{name} on {platform}: ours {sorted(got)}, JAX's {sorted(want)}"


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
@pytest.mark.parametrize("full_matrices", [False, True])
def test_the_tpu_svd_algorithm_gives_the_svd(shape, full_matrices):
    """The TPU's SVD (QR, eigh of the Gram matrix, QR again) runs here on the CPU kernels."""
    from lowering.emit.solvers import svd_by_eigh
    a = np.random.default_rng(3).normal(size=shape).astype(np.float32)
    s, u, vt = fe.jit(lambda x: svd_by_eigh(x, full_matrices=full_matrices, compute_uv=True))(a)
    s, u, vt = map(np.asarray, (s, u, vt))
    k = min(shape[-2:])
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), atol=2e-5)
    assert u.shape[-1] == (shape[-2] if full_matrices else k)
    np.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vt[..., :k, :], a, atol=2e-5)
    np.testing.assert_allclose(np.swapaxes(u, -1, -2) @ u, np.broadcast_to(np.eye(u.shape[-1]), u.shape[:-2] + (u.shape[-1],) * 2), atol=2e-5)


def test_lu_permutation_is_a_primitive_with_a_gpu_kernel():
    piv = np.array([[2, 2, 2], [0, 1, 2]], np.int32)
    perm = fe.vmap(lambda p: lax.linalg.lu_pivots_to_permutation(p, 4))(piv)
    np.testing.assert_array_equal(perm, [[2, 0, 1, 3], [0, 1, 2, 3]])
    t = fe.jit(lambda p: lax.linalg.lu_pivots_to_permutation(p, 4)).trace(piv[0])
    assert custom_calls(t.lower(lowering_platforms=("cuda",)).as_text()) == {"cu_lu_pivots_to_permutation"}
    assert custom_calls(t.lower(lowering_platforms=("rocm",)).as_text()) == {"hip_lu_pivots_to_permutation"}
    assert custom_calls(t.lower(lowering_platforms=("cpu",)).as_text()) == set()


@pytest.mark.parametrize("name", [r[0] for r in ROWS])
def test_other_platforms_modules_compute_the_same_values(name):
    """Where a row's module for cuda, rocm or tpu differs from the CPU's and makes no custom
    call (a platform rule written in StableHLO: the TPU's cholesky, the GPUs' IRFFT, ...),
    it is compiled here, on the CPU, and gives the CPU module's results."""
    import jax
    ours, _ = _traced(name)
    cpu = ours.lower(lowering_platforms=("cpu",)).as_text()
    args = next(r[3] for r in ROWS if r[0] == name)
    leaves = jax.tree_util.tree_leaves(args)
    want = None
    for platform in PLATFORMS[1:]:
        text = ours.lower(lowering_platforms=(platform,)).as_text()
        if text == cpu or custom_calls(text):
            continue
        if want is None:
            want = [np.asarray(x) for x in jax.tree_util.tree_leaves(ours.lower().compile()(*args))]
        got = fe.compile_stablehlo(text)(*leaves)
        got = [np.asarray(x) for x in (got if isinstance(got, tuple) else (got,))]
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=2e-4, atol=2e-4, err_msg=f"{name} on {platform}")


# The decompositions again, complex and batched, and larger than the GPU SVD's batched
# Jacobi limit (32) and its Jacobi limit (1024): (name, function of M, argument).
def _spd(M, a):
    return a @ M.np.swapaxes(a, -1, -2).conj() + 4 * M.np.eye(a.shape[-1], dtype=a.dtype)


_DECOMPOSITIONS = [
    ("cholesky", lambda M: lambda a: M.np.linalg.cholesky(_spd(M, a))),
    ("qr", lambda M: lambda a: M.np.linalg.qr(a)),
    ("eigh", lambda M: lambda a: M.np.linalg.eigh(_spd(M, a))),
    ("svd", lambda M: lambda a: M.np.linalg.svd(a)),
    ("svd reduced", lambda M: lambda a: M.np.linalg.svd(a, full_matrices=False)),
    ("solve", lambda M: lambda a: M.np.linalg.solve(_spd(M, a), a)),
    ("slogdet", lambda M: lambda a: M.np.linalg.slogdet(a)),
    ("solve_triangular adjoint", lambda M: lambda a: M.sl.solve_triangular(a, a, lower=True, trans=2)),
]
_ARGS = {"c64[2,3,3]": lambda: np.ones((2, 3, 3), np.complex64),
         "f32[40,40]": lambda: np.ones((40, 40), np.float32),
         "f32[4,1030]": lambda: np.ones((4, 1030), np.float32)}
# JAX's LU lowering on GPUs always computes the permutation too (a custom call whose result
# slogdet drops; XLA removes it); ours computes it only where a program uses it.
DECOMPOSITION_EXCEPTIONS = {("slogdet", "cuda"): "JAX computes an unused LU permutation",
                            ("slogdet", "rocm"): "JAX computes an unused LU permutation"}


_WIDE_ONLY = {"qr", "svd", "svd reduced"}  # (the programs that take a 4 x 1030 matrix)


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("name,args", [(n, a) for n, _ in _DECOMPOSITIONS for a in _ARGS
                                       if a != "f32[4,1030]" or n in _WIDE_ONLY])
def test_decompositions_custom_calls_match_jax(name, args, platform):
    import types

    import jax
    import jax.numpy as jnp
    import jax.scipy.linalg as jsl

    import frontend.scipy.linalg as fsl
    fn = dict(_DECOMPOSITIONS)[name]
    a = _ARGS[args]()
    ours = fe.jit(fn(types.SimpleNamespace(np=fnp, sl=fsl))).trace(a)
    theirs = jax.jit(fn(types.SimpleNamespace(np=jnp, sl=jsl))).trace(a)
    text = ours.lower(lowering_platforms=(platform,)).as_text()
    _verify(text)
    got = custom_calls(text)
    want = custom_calls(theirs.lower(lowering_platforms=(platform,)).as_text())
    if (name, platform) in DECOMPOSITION_EXCEPTIONS:
        assert got < want, f"{name} on {platform}: ours {sorted(got)}, JAX's {sorted(want)}"
        return
    assert got == want, f"{name} on {platform}: ours {sorted(got)}, JAX's {sorted(want)}"


# ----------------------------------------------------------------------------- multi-platform export

def _export_f(x):
    # a CUDA branch with a cuSOLVER call: the module this host runs must not keep it
    return lax.platform_dependent(
        x, cpu=fnp.sin, cuda=lambda v: fnp.linalg.cholesky(fnp.eye(3) * v[0])[0],
        default=fnp.tan) * 2


def test_multi_platform_export_round_trips_in_both_formats():
    import jax

    from frontend.export import deserialize, export
    exp = export(fe.jit(_export_f), platforms=("cpu", "cuda", "tpu"))(X)
    assert exp.platforms == ("cpu", "cuda", "tpu")
    text = exp.mlir_module()
    assert '%arg0: tensor<i32> {jax.global_constant = "_platform_index"}' in text
    assert "cusolver_potrf_ffi" in custom_calls(text)
    want = np.sin(X) * 2
    np.testing.assert_allclose(exp.call(X), want, rtol=1e-6)
    np.testing.assert_allclose(deserialize(exp.serialize()).call(X), want, rtol=1e-6)
    blob = exp.serialize(format="jax")
    theirs = jax.export.deserialize(blob)
    assert theirs.platforms == ("cpu", "cuda", "tpu")
    np.testing.assert_allclose(theirs.call(X), want, rtol=1e-6)
    np.testing.assert_allclose(deserialize(blob).call(X), want, rtol=1e-6)
    # called inside a module for other platforms: the callee gets their indices
    outer = fe.jit(exp.call).trace(X).lower(lowering_platforms=("cuda", "tpu")).as_text()
    _verify(outer)
    assert "cusolver_potrf_ffi" in custom_calls(outer)


def test_export_missing_the_running_platform_is_jaxs_error():
    import jax

    from frontend.export import export
    exp = export(fe.jit(_export_f), platforms=("cuda",))(X)
    msg = "Function '_export_f' was exported for platforms '('cuda',)' but it is used on '('cpu',)'."
    with pytest.raises(ValueError, match=re.escape(msg)):
        exp.call(X)
    with pytest.raises(ValueError, match=re.escape(msg)):
        jax.export.deserialize(exp.serialize(format="jax")).call(X)
    with pytest.raises(ValueError, match="unknown platform 'gpu'"):
        export(fe.jit(_export_f), platforms=("gpu",))


# ----------------------------------------------------------------------------- kernels on GPUs

def test_ffi_call_lowers_the_same_for_every_platform():
    from frontend.kernels import rms_norm
    t = fe.jit(lambda x: rms_norm(x, eps=1e-5)).trace(np.ones((2, 4), np.float32))
    texts = {p: t.lower(lowering_platforms=(p,)).as_text() for p in PLATFORMS}
    assert len(set(texts.values())) == 1
    assert custom_calls(texts["cuda"]) == {"vmaplab_rms_norm"}


def test_register_ffi_target_for_cuda_from_a_cpu_host():
    import ctypes

    from frontend.ffi import pycapsule, register_ffi_target
    from lowering.runtime import native
    lib = ctypes.CDLL(native.library_path())
    register_ffi_target("h27_rms_norm_for_cuda", pycapsule(lib.VmaplabRmsNorm), platform="CUDA")


@pytest.mark.slow
def test_cuda_kernels_build_with_nvcc_and_only_when_asked(tmp_path):
    """cmake -DVMAPLAB_CUDA=ON builds libvmaplab_kernels_cuda with nvcc (compile only: no
    GPU here); the default configuration has no CUDA target."""
    import shutil
    import subprocess
    from pathlib import Path
    root = Path(__file__).parents[1]
    plain = subprocess.run(["cmake", "-S", root, "-B", tmp_path / "plain"], capture_output=True,
                           text=True)
    assert plain.returncode == 0, plain.stderr
    assert "vmaplab_kernels_cuda" not in (tmp_path / "plain" / "Makefile").read_text()
    if shutil.which("nvcc") is None:
        pytest.skip("no CUDA toolkit (nvcc) on this machine")
    out = tmp_path / "out"
    for cmd in (["cmake", "-S", root, "-B", tmp_path / "cuda", "-DVMAPLAB_CUDA=ON",
                 f"-DVMAPLAB_KERNELS_OUTPUT_DIR={out}"],
                ["cmake", "--build", tmp_path / "cuda", "--target", "vmaplab_kernels_cuda"]):
        r = subprocess.run(cmd, capture_output=True, text=True)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    syms = subprocess.run(["nm", "-D", "--defined-only", out / "libvmaplab_kernels_cuda.so"],
                          capture_output=True, text=True).stdout
    for s in ("VmaplabRmsNormCuda", "VmaplabSegmentSumCuda", "VmaplabTridiagonalSolveCuda"):
        assert s in syms


def test_device_check_finds_platforms_by_name():
    from test_device import accelerator
    assert accelerator("cpu").platform == "cpu"
    assert accelerator("no_such_platform") is None


def test_tridiagonal_solve_artifact_passes_the_custom_call_check():
    """A deserialized module calling LAPACK's gtsv is checked against the kernel's rule."""
    from frontend.export import deserialize, export
    one = np.ones((2, 5), np.float32)
    b = np.ones((2, 5, 3), np.float32)
    exp = export(fe.jit(lax.linalg.tridiagonal_solve))(one, 4 * one, one, b)
    assert custom_calls(exp.mlir_module()) == {"lapack_sgtsv_ffi"}
    got = deserialize(exp.serialize()).call(one, 4 * one, one, b)
    np.testing.assert_allclose(got, lax.linalg.tridiagonal_solve(one, 4 * one, one, b), rtol=1e-6)


def test_tpu_eigh_above_256_is_one_kernel_call_documented_difference():
    """Documented difference: above 256 x 256 JAX's TPU eigh is its QDWH divide and conquer
    (Qr, ProductOfElementaryHouseholderReflectors and Eigh on the blocks); ours calls the TPU's
    Jacobi kernel (Eigh) on the whole matrix: the same decomposition, not the same algorithm."""
    import jax
    import jax.numpy as jnp
    a = np.eye(300, dtype=np.float32)
    ours = custom_calls(fe.jit(fnp.linalg.eigh).trace(a).lower(lowering_platforms=("tpu",)).as_text())
    theirs = custom_calls(jax.jit(jnp.linalg.eigh).trace(a).lower(lowering_platforms=("tpu",)).as_text())
    assert ours == {"Eigh"} and theirs == {"Eigh", "Qr", "ProductOfElementaryHouseholderReflectors"}


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_eig_lowers_per_platform_as_jax(dtype):
    """eig (added beside this table) takes JAX's kernel on each platform: LAPACK geev on the
    CPU, the hybrid (host LAPACK/MAGMA) kernels on GPUs, JAX's NotImplementedError on TPUs."""
    import jax
    import jax.numpy as jnp
    x = np.stack([np.eye(3, dtype=dtype)] * 2)
    for platform in ("cpu", "cuda", "rocm"):
        ours = fe.jit(fnp.linalg.eig).trace(x).lower(lowering_platforms=(platform,)).as_text()
        theirs = jax.jit(jnp.linalg.eig).trace(x).lower(lowering_platforms=(platform,)).as_text()
        _verify(ours)
        assert custom_calls(ours) == custom_calls(theirs), platform
        if platform != "cpu":
            assert not any(t.startswith(CPU_ONLY) for t in custom_calls(ours))
    with pytest.raises(NotImplementedError, match="'eig' not found for platform tpu"):
        fe.jit(fnp.linalg.eig).trace(x).lower(lowering_platforms=("tpu",))
