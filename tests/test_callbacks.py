"""Host callbacks (frontend.debug.print / callback, frontend.pure_callback,
frontend.experimental.io_callback, effects_barrier): the printed lines and values against
JAX's, eagerly, under jit, vmap (each vmap_method), grad and in loop bodies; the errors JAX
gives; and the custom call the program carries."""
import functools
import re

import jax
import jax.experimental
import jax.numpy as jnp
import numpy as np
import pytest

import frontend as fe
import frontend.numpy as fnp
from frontend import lax

F32 = np.float32
X = np.arange(3, dtype=F32)
XS = np.arange(6, dtype=F32).reshape(2, 3)

# (ours, JAX's) namespaces: the same program text runs on both
OURS = dict(np=fnp, jit=fe.jit, vmap=fe.vmap, grad=fe.grad, debug=fe.debug, lax=lax,
            pure_callback=fe.pure_callback, io_callback=fe.experimental.io_callback,
            SDS=fe.ShapeDtypeStruct, custom_jvp=fe.custom_jvp, barrier=fe.effects_barrier)
JAXS = dict(np=jnp, jit=jax.jit, vmap=jax.vmap, grad=jax.grad, debug=jax.debug, lax=jax.lax,
            pure_callback=jax.pure_callback, io_callback=jax.experimental.io_callback,
            SDS=jax.ShapeDtypeStruct, custom_jvp=jax.custom_jvp, barrier=jax.effects_barrier)


def both(capsys, program):
    """Run ``program(ns)`` with our names and with JAX's; assert the same printed lines and
    values; return our printed lines."""
    results = []
    for ns in (OURS, JAXS):
        out = program(ns)
        ns["barrier"]()
        results.append((capsys.readouterr().out.splitlines(), out))
    (ours, ov), (theirs, tv) = results
    assert ours == theirs
    if ov is not None:
        np.testing.assert_allclose(np.asarray(ov), np.asarray(tv), rtol=1e-6)
    return ours


def _print_program(ns, transform):
    def f(x):
        ns["debug"].print("x={x} sum={s}", x=x, s=x.sum())
        return ns["np"].sin(x)
    return transform(ns, f)


@pytest.mark.parametrize("name, transform, arg", [
    ("eager", lambda ns, f: f, X),
    ("jit", lambda ns, f: ns["jit"](f), X),
    ("vmap", lambda ns, f: ns["vmap"](f), XS),
    ("jit_vmap", lambda ns, f: ns["jit"](ns["vmap"](f)), XS),
    ("grad", lambda ns, f: ns["grad"](lambda x: f(x).sum()), X),
    ("jit_grad", lambda ns, f: ns["jit"](ns["grad"](lambda x: f(x).sum())), X),
])
def test_debug_print_matches_jax(capsys, name, transform, arg):
    lines = both(capsys, lambda ns: _print_program(ns, transform)(arg))
    assert lines and all(ln.startswith("x=") for ln in lines)


def test_debug_print_in_loop_bodies_in_order(capsys):
    def program(ns):
        lax_ = ns["lax"]

        def body(i, c):
            ns["debug"].print("i={} c={}", i, c, ordered=True)
            return c * 2.0

        def cond_body(c):
            ns["debug"].print("while c={}", c, ordered=True)
            return c + 1.0

        def f(x):
            ns["debug"].print("start {}", x, ordered=True)
            y = lax_.fori_loop(0, 3, body, x)
            y = lax_.while_loop(lambda c: c < 12.0, cond_body, y)
            ns["debug"].print("end {}", y, ordered=True)
            return lax_.scan(lambda c, t: (c + t, c), y, ns["np"].arange(2.0))[0]
        return ns["jit"](f)(F32(1.0))
    lines = both(capsys, program)
    assert lines[0] == "start 1.0" and lines[-1] == "end 12.0"


def test_debug_callback_receives_arrays_and_kwargs(capsys):
    seen = []

    def program(ns):
        def f(x):
            ns["debug"].callback(lambda a, b: seen.append((np.asarray(a).tolist(), b.shape)),
                                 x, b=x * 2)
            return x
        return ns["jit"](f)(X)
    both(capsys, program)
    assert seen[0] == seen[1] == ([0.0, 1.0, 2.0], (3,))


def _host_sin_cos(a, b):
    return np.sin(np.asarray(a)), np.cos(np.asarray(b)).astype(np.float32)


def test_pure_callback_values_pytrees_and_kwargs(capsys):
    def program(ns):
        def f(x):
            r = ns["pure_callback"](lambda d, scale: {"s": np.asarray(d["a"]) * scale},
                                    {"s": ns["SDS"](x.shape, x.dtype)}, {"a": x}, scale=2.0)
            s, c = ns["pure_callback"](_host_sin_cos, (ns["SDS"](x.shape, x.dtype),) * 2, x, x)
            return r["s"] + s + c
        return ns["jit"](f)(X)
    both(capsys, program)
    np.testing.assert_allclose(fe.pure_callback(np.sin, fe.ShapeDtypeStruct((3,), F32), X),
                               np.sin(X), rtol=1e-6)  # eagerly


@pytest.mark.parametrize("method", ["sequential", "sequential_unrolled", "expand_dims",
                                    "broadcast_all", "legacy_vectorized"])
def test_pure_callback_vmap_methods_call_shapes_as_jax(capsys, method):
    def program(ns):
        calls = []

        def host(x, y):
            calls.append((np.shape(x), np.shape(y)))
            return (np.asarray(x) + np.asarray(y)).astype(np.float32)

        def f(x, y):
            shape = np.broadcast_shapes(x.shape, y.shape)
            return ns["pure_callback"](host, ns["SDS"](shape, x.dtype), x, y,
                                       vmap_method=method)
        out = ns["jit"](ns["vmap"](f, in_axes=(0, None)))(XS, X)
        ns["barrier"]()
        print(calls)
        return out
    both(capsys, program)


def test_pure_callback_vmap_without_method_is_jaxs_error():
    f = fe.vmap(lambda x: fe.pure_callback(np.sin, fe.ShapeDtypeStruct((3,), F32), x))
    with pytest.raises(NotImplementedError, match="vmap is only supported for the callback "
                                                  "primitive when vmap_method is one of"):
        f(XS)
    with pytest.raises(ValueError, match="vmap_method must be on of the allowed methods"):
        fe.pure_callback(np.sin, fe.ShapeDtypeStruct((3,), F32), X, vmap_method="loop")


def test_grad_of_pure_callback_is_jaxs_error_unless_custom_jvp():
    def f(ns, x):
        return ns["pure_callback"](np.sin, ns["SDS"]((), x.dtype), x)
    for ns in (OURS, JAXS):
        with pytest.raises(ValueError, match="Pure callbacks do not support JVP"):
            ns["grad"](functools.partial(f, ns))(F32(0.5))

    def with_rule(ns):
        g = ns["custom_jvp"](functools.partial(f, ns))
        g.defjvp(lambda p, t: (g(p[0]), ns["np"].cos(p[0]) * t[0]))
        return ns["jit"](ns["grad"](g))(F32(0.5))
    np.testing.assert_allclose(with_rule(OURS), with_rule(JAXS), rtol=1e-6)


def test_io_callback_ordered_and_its_errors(capsys):
    def program(ns):
        def f(x):
            ns["io_callback"](lambda a: print("first", a), None, x, ordered=True)
            y = ns["io_callback"](lambda a: np.asarray(a) * 3, ns["SDS"](x.shape, x.dtype), x,
                                  ordered=True)
            ns["io_callback"](lambda a: print("then", a), None, y, ordered=True)
            return y
        return ns["jit"](f)(X)
    assert both(capsys, program) == ["first [0. 1. 2.]", "then [0. 3. 6.]"]
    for ns in (OURS, JAXS):
        io, sds = ns["io_callback"], ns["SDS"]
        g = ns["vmap"](lambda x, io=io: io(print, None, x, ordered=True))
        with pytest.raises(ValueError, match="Cannot `vmap` ordered IO callback"):
            g(XS)
        with pytest.raises(ValueError, match="IO callbacks do not support JVP"):
            ns["grad"](lambda x, io=io, sds=sds: io(np.sin, sds((), x.dtype), x))(F32(1))


def test_io_callback_unordered_under_vmap_is_called_per_example(capsys):
    def program(ns):
        f = ns["vmap"](lambda x: ns["io_callback"](lambda a: print("row", a), None, x))
        ns["jit"](f)(XS)
    both(capsys, program)


def test_callback_result_checks_are_jaxs():
    f = fe.jit(lambda x: fe.pure_callback(lambda a: np.ones(4, F32),
                                          fe.ShapeDtypeStruct((3,), F32), x))
    with pytest.raises(Exception, match=r"Incorrect output shape for return value #0: "
                                        r"Expected: \(3,\), Actual: \(4,\)"):
        f(X)
    with pytest.raises(ValueError, match="cannot specify 64-bit types"):
        fe.pure_callback(np.sin, fe.ShapeDtypeStruct((3,), np.float64), X)


def test_the_program_calls_jaxlibs_host_callback_target():
    def f(x):
        fe.debug.print("{}", x, ordered=True)
        return fe.pure_callback(np.sin, fe.ShapeDtypeStruct(x.shape, x.dtype), x)
    text = fe.jit(f).lower(X).as_text()
    assert text.count("stablehlo.custom_call @xla_ffi_python_cpu_callback(") == 2
    assert "!stablehlo.token" in text and "has_side_effect = true" in text
    # dce keeps an unused side-effecting callback; XLA may drop an unused pure one
    g = fe.make_graph(lambda x: (fe.debug.print("{}", x), x)[1])(X)
    assert [e.prim.name for e in g.eqns] == ["callback"]


def test_one_traced_callback_lowered_unbatched_and_batched():
    # the same callback equation (one HostFunction) in two programs with different result
    # types: each program calls it with its own checks
    from frontend.core.ir import inline_graph
    g = fe.make_graph(lambda x: fe.pure_callback(
        np.sin, fe.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims"))(X)
    run = lambda x: inline_graph(g, [x])[0]  # noqa: E731
    np.testing.assert_allclose(fe.jit(run)(X), np.sin(X), rtol=1e-6)
    np.testing.assert_allclose(fe.jit(fe.vmap(run))(XS), np.sin(XS), rtol=1e-6)


def _callback_program(ns):
    def f(x):
        y = ns["pure_callback"](lambda a: np.sin(a), ns["SDS"](x.shape, x.dtype), x)
        ns["debug"].print("x={}", x)
        return ns["io_callback"](lambda a: a * 2, ns["SDS"](x.shape, x.dtype), y, ordered=True)
    return f


_CUSTOM_CALL = re.compile(r"stablehlo\.custom_call @(\w+)\([^)]*\) \{([^\n]*)\} : (\([^)]*\) -> "
                          r"(?:\([^)]*\)|[^ \n]+))")


def _callback_calls(text):
    """(target, has a side effect, type signature) of each custom call of a module's text."""
    return [(t, "has_side_effect = true" in attrs, sig.strip())
            for t, attrs, sig in _CUSTOM_CALL.findall(text)]


@pytest.mark.parametrize("platform", ["cuda", "rocm"])
def test_gpu_lowering_makes_jaxs_gpu_callback_calls(platform, monkeypatch):
    """For CUDA and ROCm the callbacks call jaxlib's GPU host-callback target as JAX's own
    lowering for that platform does (JAX needs that platform's backend to lower them: its
    lookup is pointed at the CPU client here; nothing runs on a GPU)."""
    from jax._src.interpreters import mlir as jax_mlir
    ours = fe.jit(_callback_program(OURS)).trace(X).lower(
        lowering_platforms=(platform,)).as_text()
    from frontend.device import seam
    seam.get().compiler_ir(ours)  # (parses and verifies)
    cpu = jax.devices("cpu")[0].client
    monkeypatch.setattr(jax_mlir.ModuleContext, "get_backend", lambda self: cpu)
    theirs = jax.jit(_callback_program(JAXS)).trace(X).lower(
        lowering_platforms=(platform,)).as_text()
    got, want = _callback_calls(ours), _callback_calls(theirs)
    assert got == want and len(got) == 3
    assert {t for t, _, _ in got} == {"xla_ffi_python_gpu_callback"}


def test_callbacks_for_tpu_or_several_platforms_are_clear_errors():
    t = fe.jit(_callback_program(OURS)).trace(X)
    with pytest.raises(NotImplementedError, match="host callbacks .* on tpu"):
        t.lower(lowering_platforms=("tpu",))
    with pytest.raises(NotImplementedError, match="multi-platform lowering for python_callback"):
        t.lower(lowering_platforms=("cpu", "cuda"))
