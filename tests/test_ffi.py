"""frontend.ffi and vmaplab's own C++ kernels (kernels/, built by `pip install -e .`): each
kernel against its numpy reference and JAX in float32/float64, under vmap with every
vmap_method against a per-example loop (and what each lowers to), trace-time checks of
declared signatures, registration of a user's handler, clear errors before XLA."""
import ctypes
import os
import shutil

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import frontend as fe
from frontend import ffi
from frontend.kernels import (
    rms_norm,
    rms_norm_reference,
    segment_sum,
    segment_sum_reference,
    tridiagonal_solve,
    tridiagonal_solve_reference,
)
from lowering import runtime
from lowering.runtime import native

RNG = np.random.default_rng(0)
M, N, B = 7, 3, 5


def _system(dtype, lead=()):
    dl, du = RNG.normal(size=(2,) + lead + (M,)).astype(dtype)
    d = (4.0 + RNG.random(lead + (M,))).astype(dtype)  # diagonally dominant
    b = RNG.normal(size=lead + (M, N)).astype(dtype)
    return dl, d, du, b


def _tol(dtype):
    return dict(rtol=1e-12, atol=1e-12) if dtype == np.float64 else dict(rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_kernels_equal_numpy_and_jax(dtype, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    x = RNG.normal(size=(3, 4, 9)).astype(dtype)
    dl, d, du, b = _system(dtype, (2,))
    data = RNG.normal(size=(11, 2, 3)).astype(dtype)
    ids = RNG.integers(-1, 6, 11).astype(np.int32)  # -1 and 5: dropped (num_segments=5)

    def f(x, dl, d, du, b, data, ids):
        return rms_norm(x, 1e-5), tridiagonal_solve(dl, d, du, b), segment_sum(data, ids, 5)

    outs = fe.jit(f)(x, dl, d, du, b, data, ids)
    refs = (rms_norm_reference(x, 1e-5), tridiagonal_solve_reference(dl, d, du, b),
            segment_sum_reference(data, ids, 5))
    oracles = (refs[0], jax.lax.linalg.tridiagonal_solve(dl, d, du, b),
               jax.ops.segment_sum(data, ids, 5))
    for o, r, j in zip(outs, refs, oracles, strict=True):
        assert o.dtype == dtype and o.shape == r.shape
        np.testing.assert_allclose(o, r, **_tol(dtype))
        np.testing.assert_allclose(o, np.asarray(j), **_tol(dtype))
    # eager: each kernel its own executable
    np.testing.assert_allclose(rms_norm(x[0], 1e-5), refs[0][0], **_tol(dtype))


@pytest.mark.parametrize("method", ffi.VMAP_METHODS)
def test_vmap_methods_equal_the_loop(method):
    """Every kernel under vmap (a batched and an unbatched operand each) equals the loop;
    expand_dims/broadcast_all are one custom call each and no loop."""
    xs = RNG.normal(size=(B, 4, 6)).astype(np.float32)
    dl, d, du, _ = _system(np.float32)
    bs = RNG.normal(size=(B, M, N)).astype(np.float32)
    datas = RNG.normal(size=(B, 9, 2)).astype(np.float32)
    ids = RNG.integers(0, 4, 9).astype(np.int32)

    def one(x, b, data):
        return (rms_norm(x, vmap_method=method),
                tridiagonal_solve(dl, d, du, b, vmap_method=method),   # one matrix, B rhs
                segment_sum(data, ids, 4, vmap_method=method))          # one set of ids

    f = fe.jit(fe.vmap(one, in_axes=(0, 2, 0)))
    args = (xs, np.moveaxis(bs, 0, 2), datas)
    text = f.lower(*args).as_text()
    outs = f(*args)
    loop = [np.stack(r) for r in zip(*[(rms_norm_reference(xs[i], 1e-6),
                                         tridiagonal_solve_reference(dl, d, du, bs[i]),
                                         segment_sum_reference(datas[i], ids, 4))
                                        for i in range(B)], strict=True)]
    for o, r in zip(outs, loop, strict=True):
        np.testing.assert_allclose(o, r, rtol=2e-5, atol=2e-5)
    calls = text.count("stablehlo.custom_call")
    if method in ("expand_dims", "broadcast_all"):
        assert calls == 3 and "stablehlo.while" not in text
    elif method == "sequential":
        assert calls == 3 and text.count("stablehlo.while") == 3
    else:
        assert calls == 3 * B and "stablehlo.while" not in text
    if method == "expand_dims":  # the unbatched matrix and ids stay one copy
        assert "tensor<1x7xf32>" in text and "tensor<1x9xi32>" in text
    if method == "broadcast_all":
        assert "tensor<5x7xf32>" in text and "tensor<5x9xi32>" in text


def test_nested_vmap_broadcasts_in_the_kernel():
    datas = RNG.normal(size=(3, 8, 2)).astype(np.float32)
    idss = RNG.integers(0, 4, (4, 8)).astype(np.int32)
    f = fe.jit(fe.vmap(fe.vmap(lambda a, i: segment_sum(a, i, 4), in_axes=(0, None)),
                       in_axes=(None, 0)))
    want = np.stack([np.stack([segment_sum_reference(a, i, 4) for a in datas]) for i in idss])
    np.testing.assert_allclose(f(datas, idss), want, rtol=1e-5, atol=1e-5)
    assert f.lower(datas, idss).as_text().count("stablehlo.custom_call") == 1


# ----------------------------------------------------------------------------- checks before XLA


def _rms_call(**kw):
    return ffi.ffi_call("vmaplab_rms_norm", fe.ShapedArray((4, 5), np.float32), **kw)


@pytest.mark.parametrize("call,err,match", [
    (lambda x: _rms_call()(x, eps=np.float32(1e-5)), TypeError,
     r"attribute eps must be float64, got float32 .*; pass np.float64"),
    (lambda x: _rms_call()(x), TypeError, r"takes the attributes \['eps'\]: missing \['eps'\]"),
    (lambda x: _rms_call()(x, eps=1e-5, axis=1), TypeError, r"unexpected \['axis'\]"),
    (lambda x: _rms_call()(x.astype(np.int32), eps=1e-5), TypeError,
     r"operand x must have dtype float32 or float64, got i32\[4,5\]"),
    (lambda x: _rms_call()(x[0, 0], eps=1e-5), ValueError, r"operand x must have rank 1 or more"),
    (lambda x: _rms_call()(x, x, eps=1e-5), TypeError, r"takes 1 operands \(x\), got 2"),
    (lambda x: _rms_call()(x, eps={"a": 1}), TypeError, r"attribute eps=.* has no FFI attribute type"),
    (lambda x: _rms_call()(x, eps=2**64), OverflowError, r"attribute eps=.* does not fit in int64"),
    (lambda x: rms_norm(x.astype(np.int32)), TypeError, r"operand x must have dtype"),
    (lambda x: tridiagonal_solve(x[0], x[0], x[0], x), ValueError, r"dl must have shape b.shape\[:-1\]"),
    (lambda x: segment_sum(x, np.zeros(4, np.float32), 3), TypeError, r"segment_ids must be integers"),
    (lambda x: segment_sum(x, np.zeros(3, np.int32), 3), ValueError, r"segment_ids must have shape"),
    (lambda x: fe.vmap(lambda r: _rms_call()(r, eps=1e-5))(x), NotImplementedError,
     r"vmap is only supported for the ffi_call primitive when vmap_method is one of .*"
     r"Got vmap_method=None\. .*'expand_dims' or 'broadcast_all' when the kernel"),
    (lambda x: _rms_call(vmap_method="vectorized"), ValueError, r"vmap_method must be on of"),
    (lambda x: ffi.ffi_call("t", [3])(x), ValueError, r"must have 'shape' and 'dtype'"),
    (lambda x: ffi.ffi_call("t", fe.ShapedArray((3,), np.float32), input_output_aliases={0: 0})(x),
     ValueError, r"input_output_aliases contains the mapping '0:0' referring to an input with "
     r"abstract value f32\[4,5\]"),
    (lambda x: ffi.ffi_call("t", fe.ShapedArray((4, 5), np.float32), input_output_aliases={1: 0})(x),
     ValueError, r"mapping '1:0' with input index 1 outside the range \[0, 1\)"),
    (lambda x: ffi.ffi_call("t", fe.ShapedArray((4, 5), np.float32))("x"), TypeError,
     r"is not a valid JAX type"),
])
def test_bad_calls_are_python_errors_at_trace_time(call, err, match):
    x = RNG.normal(size=(4, 5)).astype(np.float32)
    with pytest.raises(err, match=match):
        fe.make_graph(call)(x)  # at trace time: nothing compiled, nothing run


def test_signature_leading_axes():
    """'equal' (the kernel does not broadcast) refuses size-1 leading axes and says what to
    do; 'broadcast' takes them."""
    ops = [ffi.Operand("a", ("float32",), 1), ffi.Operand("b", ("float32",), 1)]
    f32 = lambda *s: fe.ShapedArray(s, np.float32)  # noqa: E731
    ffi.Signature(ops, {}, batch="broadcast").check("t", [f32(1, 3), f32(4, 3)], ())
    ffi.Signature(ops, {}, batch="equal").check("t", [f32(4, 3), f32(4, 3)], ())
    with pytest.raises(ValueError, match=r"leading batch axes of the operands must agree; .* "
                                         r"vmap_method='broadcast_all', got a \(1,\), b \(4,\)"):
        ffi.Signature(ops, {}, batch="equal").check("t", [f32(1, 3), f32(4, 3)], ())
    with pytest.raises(ValueError, match=r"must have rank 1, got f32\[4,3\]"):
        ffi.Signature(ops, {}).check("t", [f32(4, 3), f32(3)], ())
    with pytest.raises(TypeError, match=r"operands must have one dtype, got f32\[3\], f64\[3\]"):
        ffi.Signature([ffi.Operand("a", ("float32", "float64"), 1)] * 2, {}, same_dtype=True).check(
            "t", [f32(3), fe.ShapedArray((3,), np.float64)], ())
    with pytest.raises(ValueError, match="batch must be None, 'equal' or 'broadcast'"):
        ffi.Signature(ops, {}, batch="all")


def test_unregistered_target_and_interpreter_are_clear_errors():
    x = np.ones((4, 5), np.float32)
    f = fe.jit(lambda x: ffi.ffi_call("vmaplab_test_nowhere", fe.ShapedArray((4, 5), np.float32))(x))
    with pytest.raises(ValueError, match=r"custom call target 'vmaplab_test_nowhere' is not "
                                         r"registered for platform 'cpu': register"):
        f(x)
    with pytest.raises(ValueError, match=r"reference interpreter cannot run custom calls .*"
                                         r"@vmaplab_rms_norm"):
        fe.jit(rms_norm, device="interpreter")(x)


# ----------------------------------------------------------------------------- a user's handler


def test_user_handler_registered_and_called():
    """The flow of a user's own library: ctypes + pycapsule + register_ffi_target with a
    signature; attributes of every type lower to verified StableHLO; aliases and side
    effects reach the custom call."""
    lib = ctypes.CDLL(native.library_path())
    sig = ffi.Signature([ffi.Operand("x", ["float32"], 1)], {"eps": "float64"}, batch="equal")
    ffi.register_ffi_target("test_user_rms", ffi.pycapsule(lib.VmaplabRmsNorm), signature=sig)
    ffi.register_ffi_target("test_user_rms", ffi.pycapsule(lib.VmaplabRmsNorm))  # same: fine
    with pytest.raises(ValueError, match="Duplicate FFI handler registration for test_user_rms"):
        ffi.register_ffi_target("test_user_rms", ffi.pycapsule(lib.VmaplabSegmentSum))
    with pytest.raises(TypeError, match="fn must be a PyCapsule"):
        ffi.register_ffi_target("test_user_x", lib.VmaplabRmsNorm)
    with pytest.raises(TypeError, match="pycapsule expects a ctypes function pointer"):
        ffi.pycapsule(5)
    assert os.path.isfile(os.path.join(ffi.include_dir(), "xla", "ffi", "api", "ffi.h"))

    x = RNG.normal(size=(3, 6)).astype(np.float32)
    call = ffi.ffi_call("test_user_rms", fe.ShapedArray(x.shape, x.dtype), vmap_method="sequential",
                        input_output_aliases={0: 0}, has_side_effect=True)

    def f(x):
        call(x * 1.0, eps=1e-3)  # unused: kept because it has a side effect
        return call(x * 2.0, eps=1e-3)

    text = fe.jit(f).lower(x).as_text()
    assert text.count("stablehlo.custom_call @test_user_rms") == 2
    assert "has_side_effect = true" in text and "output_operand_aliases" in text
    assert "backend_config = {eps = 0.001 : f64}" in text
    np.testing.assert_allclose(fe.jit(f)(x), rms_norm_reference(2 * x, 1e-3), rtol=1e-5, atol=1e-6)

    # every attribute type as the handler's Attr<T> would decode it (checked by the verifier)
    attrs = dict(a=True, b=-3, c=2.5, d="q\"uo\\te", e=np.uint32(7), f=np.float32(0.1),
                 g=np.array([1, 2], np.int64), h=np.array([0.5], np.float32), i=float("inf"))
    g = fe.make_graph(lambda x: ffi.ffi_call("t", fe.ShapedArray((), np.float32))(x, **attrs))(x)
    from lowering.backend import lower
    text = lower(g)
    runtime.verify(text)
    assert ('backend_config = {a = true, b = -3 : i64, c = 2.5 : f64, d = "q\\22uo\\5Cte", '
            'e = 7 : ui32, f = 0.10000000149011612 : f32, g = array<i64: 1, 2>, '
            'h = array<f32: 0.5>, i = 0x7FF0000000000000 : f64}') in text


# ----------------------------------------------------------------------------- the library


def test_missing_or_stale_library_says_how_to_rebuild(tmp_path):
    with pytest.raises(native.KernelLibraryError, match=r"is missing .* `pip install -e \.`"):
        native.open_library(str(tmp_path / native.library_name()))
    # a source tree whose kernels differ from those the library was built from
    (tmp_path / "CMakeLists.txt").write_text("")
    shutil.copytree(os.path.join(native._ROOT, "kernels"), tmp_path / "kernels")
    native.open_library(native.library_path(), str(tmp_path))  # same sources: fine
    with open(tmp_path / "kernels" / "rms_norm.cc", "a") as f:
        f.write("// edited\n")
    with pytest.raises(native.KernelLibraryError, match=r"is stale: .* `pip install -e \.`"):
        native.open_library(native.library_path(), str(tmp_path))
    # without a source tree (an installed wheel) the sources are not compared
    assert native.sources_hash(str(tmp_path / "kernels")) is None


def test_jnp_reference_for_rms_norm():
    """rms_norm's numpy reference is the formula JAX users write."""
    x = RNG.normal(size=(2, 5)).astype(np.float32)
    want = x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(rms_norm_reference(x), want, rtol=1e-6)


def test_differentiating_an_ffi_call_is_jax_error_and_custom_jvp_the_remedy():
    """As JAX: a foreign call has no derivative (JAX's ValueError, in both modes); the remedy
    the message names, custom_jvp around the call, gives per-example gradients equal JAX's
    of the jnp formula."""
    import frontend.numpy as fnp
    x = RNG.normal(size=(B, 4, M)).astype(np.float32)
    msg = "The FFI call to `vmaplab_rms_norm` cannot be differentiated"
    with pytest.raises(ValueError, match=msg):
        fe.jvp(rms_norm, (x[0],), (x[0],))
    with pytest.raises(ValueError, match=msg):
        fe.grad(lambda v: fnp.sum(rms_norm(v)))(x[0])

    @fe.custom_jvp
    def norm(v):
        return rms_norm(v)

    @norm.defjvp
    def _(p, t):
        (v,), (dv,) = p, t
        r = 1.0 / fnp.sqrt(fnp.mean(v * v, axis=-1, keepdims=True) + 1e-6)
        return norm(v), r * dv - v * r ** 3 * fnp.mean(v * dv, axis=-1, keepdims=True)

    w = RNG.normal(size=(M,)).astype(np.float32)
    ref = lambda v: jnp.sum(jnp.tanh(v / jnp.sqrt(jnp.mean(v * v, -1, keepdims=True) + 1e-6)) * w)  # noqa: E731
    got = fe.jit(fe.vmap(fe.grad(lambda v: fnp.sum(fnp.tanh(norm(v)) * w))))(x)
    np.testing.assert_allclose(got, jax.vmap(jax.grad(ref))(x), rtol=2e-5, atol=2e-5)
