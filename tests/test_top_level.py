"""jax's top-level names beyond the transformations' own files (issue 26): checkpoint
policies, donation, config context managers, the small modules (errors, dtypes, ...), each
compared with JAX."""
import re
import warnings

import jax
import jax.ad_checkpoint
import jax.numpy as jnp
import numpy as np
import pytest
from harness import assert_same
from jax._src.ad_checkpoint import saved_residuals as _jax_saved_residuals  # (the oracle)

import frontend as fe
import frontend.numpy as fnp
from frontend import ad_checkpoint

# ----------------------------------------------------------------------------- checkpoint policies

_W = np.random.default_rng(0).normal(size=(3, 3)).astype(np.float32)
_X = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)


def _net(np_, ck, name, policy):
    def layer(w, x):
        h = name(np_.sin(x @ w), "h")
        return np_.tanh(h @ w)
    lay = ck(layer, policy=policy)
    return lambda w, x: np_.sum(lay(w, lay(w, x)) ** 2)


def _residuals(saved):
    # (shape, dtype, where) without JAX's source locations
    return [(a.shape, a.dtype, re.sub(r" from /.*$", "", w)) for a, w in saved]


_SLOW = pytest.mark.slow


@pytest.mark.parametrize(("policy", "args", "sins"), [
    ("dots_saveable", (), 4), ("save_only_these_names", ("h",), 2),
    pytest.param("nothing_saveable", (), 4, marks=_SLOW),
    pytest.param("everything_saveable", (), 2, marks=_SLOW),
    pytest.param("dots_with_no_batch_dims_saveable", (), 4, marks=_SLOW),
    pytest.param("save_any_names_but_these", ("h",), 4, marks=_SLOW),
    pytest.param("save_anything_except_these_names", ("h",), 2, marks=_SLOW),
    pytest.param("offload_dot_with_no_batch_dims", ("device", "pinned_host"), 4, marks=_SLOW)])
def test_checkpoint_policies_save_what_jax_saves(policy, args, sins):
    """The residuals reverse mode keeps are JAX's for each policy; the backward pass
    recomputes sin exactly where the policy does not save it (2 forward + 2 recomputed);
    gradients equal JAX's."""
    ours = getattr(fe.checkpoint_policies, policy)
    theirs = getattr(jax.checkpoint_policies, policy)
    ours, theirs = (ours(*args), theirs(*args)) if args else (ours, theirs)
    f = _net(fnp, fe.checkpoint, ad_checkpoint.checkpoint_name, ours)
    jf = _net(jnp, jax.checkpoint, jax.ad_checkpoint.checkpoint_name, theirs)
    expect = _residuals(_jax_saved_residuals(jf, _W, _X))
    if policy.startswith("offload"):
        # JAX copies an offloaded value to host memory (a device_put, a no-op on CPU that its
        # compiled program drops); a CPU device's memory is the host's, so ours saves the
        # dot's output where it is
        expect = [(s, d, w.replace("device_put", "dot_general")) for s, d, w in expect]
    assert _residuals(ad_checkpoint.saved_residuals(f, _W, _X)) == expect
    assert str(fe.make_graph(fe.grad(f))(_W, _X)).count(" sin ") == sins
    np.testing.assert_allclose(fe.jit(fe.grad(f))(_W, _X), jax.grad(jf)(_W, _X), rtol=1e-5,
                               atol=1e-6)


def test_checkpoint_name_under_transformations():
    """checkpoint_name is the identity under vmap and jvp, and has no transpose rule
    (linear_transpose of it raises, as JAX's)."""
    x = np.arange(3.0, dtype=np.float32)
    fs = [lambda v, m=m: m.checkpoint_name(v * 2, "a") for m in (ad_checkpoint, jax.ad_checkpoint)]
    assert_same(fe.vmap(fs[0])(x), jax.vmap(fs[1])(x))
    assert_same(fe.jvp(fs[0], (x,), (x,)), jax.jvp(fs[1], (x,), (x,)))
    for m, f in zip((fe, jax), fs, strict=True):
        with pytest.raises(NotImplementedError, match=r"Transpose rule \(for reverse-mode "
                                                      r"differentiation\) for 'name' not"):
            m.linear_transpose(f, x)(x)


@pytest.mark.slow
def test_checkpoint_policy_under_vmap_and_second_order():
    """A policy holds under vmap of grad and grad of grad (values as JAX's); names are
    identities outside checkpoint; both-policies saves the union; a bad policy is refused."""
    both = fe.checkpoint_policies.save_from_both_policies(
        fe.checkpoint_policies.dots_saveable, fe.checkpoint_policies.save_only_these_names("h"))
    jboth = jax.checkpoint_policies.save_from_both_policies(
        jax.checkpoint_policies.dots_saveable, jax.checkpoint_policies.save_only_these_names("h"))
    f = _net(fnp, fe.checkpoint, ad_checkpoint.checkpoint_name, both)
    jf = _net(jnp, jax.checkpoint, jax.ad_checkpoint.checkpoint_name, jboth)
    assert _residuals(ad_checkpoint.saved_residuals(f, _W, _X)) == \
        _residuals(_jax_saved_residuals(jf, _W, _X))
    np.testing.assert_allclose(fe.vmap(fe.grad(f), (None, 0))(_W, _X[:, None]),
                               jax.vmap(jax.grad(jf), (None, 0))(_W, _X[:, None]), rtol=1e-5)
    g = lambda f: lambda s: f(_W * s, _X)  # noqa: E731
    np.testing.assert_allclose(fe.grad(fe.grad(g(f)))(1.5), jax.grad(jax.grad(g(jf)))(1.5),
                               rtol=1e-4)
    assert_same(ad_checkpoint.checkpoint_name(fnp.ones(3), "a"),
                jax.ad_checkpoint.checkpoint_name(jnp.ones(3), "a"))
    with pytest.raises(TypeError, match="policy must be a callable"):
        fe.checkpoint(lambda x: x, policy="dots")


# ----------------------------------------------------------------------------- config options


def test_numpy_rank_promotion_raise_and_warn_as_jax():
    a, b = np.ones((2, 3), np.float32), np.ones(3, np.float32)
    for mod, np_ in [(fe, fnp), (jax, jnp)]:
        with mod.numpy_rank_promotion("raise"), pytest.raises(ValueError, match=(
                r"Operands could not be broadcast together for add on shapes \(2, 3\) \(3,\) "
                r"and with the config option jax_numpy_rank_promotion='raise'")):
            np_.add(a, b)
    with fe.numpy_rank_promotion("raise"):
        with pytest.raises(ValueError, match="for multiply on shapes"):
            fe.jit(lambda x, y: x * y)(a, b)
        assert_same(fnp.add(a, 1.0), jnp.add(a, 1.0))  # (scalars are exempt)
        assert fe.numpy_rank_promotion.value == "raise"
    with fe.numpy_rank_promotion("warn"), pytest.warns(UserWarning, match=r"Following NumPy "
                                                       r"automatic rank promotion for multiply"):
        fnp.multiply(a, b)
    assert_same(fnp.add(a, b), jnp.add(a, b))  # (back to "allow", cached programs too)
    with pytest.raises(ValueError, match=r"new enum value must be in \['allow', 'warn', "
                                         r"'raise'\], got bad"):
        with fe.numpy_rank_promotion("bad"):
            pass


@pytest.mark.parametrize(("x", "y"), [
    (np.ones(3, np.int32), 1.0), (np.ones(3, np.float32), 1j), (np.ones(3, bool), 1),
    (np.ones(3, np.float16), np.ones(3, np.float32)), (np.ones(3, np.int8), np.ones(3, np.int32)),
    (1, 1.0), (np.ones(3, np.float32), 2), (np.ones(3, np.uint8), 3)])
def test_numpy_dtype_promotion_strict_as_jax(x, y):
    """Strict promotion: only weak types promote; JAX's TypePromotionError otherwise."""
    with jax.numpy_dtype_promotion("strict"):
        try:
            want = jnp.add(x, y)
        except jax.dtypes.TypePromotionError as e:
            want = e
    with fe.numpy_dtype_promotion("strict"):
        if isinstance(want, Exception):
            with pytest.raises(fe.dtypes.TypePromotionError, match="have no available implicit "
                               "dtype promotion path when jax_numpy_dtype_promotion=strict"):
                fnp.add(x, y)
        else:
            assert_same(fnp.add(x, y), want)
    assert fe.numpy_dtype_promotion.value == "standard"


def test_disable_jit_no_tracing_log_compiles_and_monitoring(caplog):
    seen = []
    f = fe.jit(lambda x: seen.append(type(x).__name__) or x * 2)
    f(np.float32(1))
    with fe.disable_jit():
        assert_same(f(np.float32(3)), np.float32(6))
        assert fe.config.disable_jit
    assert seen == ["GraphTracer", "float32"]
    f(np.float32(1))  # (compiled again: served as before)
    assert seen == ["GraphTracer", "float32"]
    events = []
    fe.monitoring.register_event_duration_secs_listener(lambda e, d, **kw: events.append(e))
    try:
        with fe.no_tracing(True), pytest.raises(RuntimeError, match=r"re-tracing function "
                                                r"<lambda> at .* for `jit`, but 'no_tracing' is set"):
            f(np.ones(3, np.float32))
        with caplog.at_level("WARNING"), fe.log_compiles(True):
            f(np.ones(4, np.float32))
    finally:
        fe.monitoring.clear_event_listeners()
    assert "Compiling jit(<lambda>) with global shapes and types (f32[4],)" in caplog.text
    assert events == ["/jax/core/compile/jaxpr_trace_duration",
                      "/jax/core/compile/backend_compile_duration"]
    with fe.enable_x64(True):
        assert fnp.ones(2).dtype == jnp.float64 and fe.enable_x64.value
    assert fnp.ones(2).dtype == np.float32
    with fe.explain_cache_misses(True):
        assert fe.config.explain_cache_misses
    fe.clear_caches()
    assert fe.cache_stats()["jit_signatures"] == 0 and fe.cache_stats()["eager_programs"] == 0


# ----------------------------------------------------------------------------- modules, helpers


def test_errors_are_jaxs_classes():
    """The tracer errors raise the classes of fe.errors, named and nested as JAX's."""
    for name in [n for n in dir(jax.errors) if not n.startswith("_")]:
        ours, theirs = getattr(fe.errors, name), getattr(jax.errors, name)
        for base in theirs.__mro__[1:]:
            if base.__module__ in ("builtins", "jax.errors"):
                assert issubclass(ours, getattr(fe.errors, base.__name__, base)), (name, base)
    for fn, cls in [(bool, "TracerBoolConversionError"), (np.asarray, "TracerArrayConversionError"),
                    (lambda x: range(x), "TracerIntegerConversionError"),
                    (float, "ConcretizationTypeError")]:
        with pytest.raises(getattr(jax.errors, cls)):
            jax.jit(fn)(1)
        with pytest.raises(getattr(fe.errors, cls)):
            fe.jit(fn)(1)
    with pytest.raises(fe.errors.NonConcreteBooleanIndexError):
        fe.jit(lambda x: x[x > 0])(np.ones(3, np.float32))
    assert fe.errors.JaxRuntimeError is jax.errors.JaxRuntimeError


def test_dtypes_dlpack_typing_version_and_small_names():
    d, jd = fe.dtypes, jax.dtypes
    key, jkey = fe.random.key(0), jax.random.key(0)
    assert d.issubdtype(key.dtype, d.prng_key) == jd.issubdtype(jkey.dtype, jd.prng_key)
    assert d.issubdtype(key.dtype, d.extended) and not d.issubdtype(np.float32, d.extended)
    assert d.issubdtype(np.int8, np.integer) and not jd.issubdtype(np.float32, jd.extended)
    for t in ["float64", float, "int4", "float4_e2m1fn", bool, "complex128", "bfloat16"]:
        assert d.itemsize_bits(t) == jd.itemsize_bits(t), t
    for t in ["float64", float, int, "uint64", "bfloat16"]:
        assert d.canonicalize_dtype(t) == jd.canonicalize_dtype(t), t
    for x in [np.ones(2, np.int8), True, 1.0, 1j, np.uint8(1)]:
        assert d.scalar_type_of(x) is jd.scalar_type_of(x)
    for args in [(1, 2.0), (np.float16, 1.0), (np.int8, np.uint8)]:
        assert d.result_type(*args) == jd.result_type(*args)
        assert d.result_type(*args, return_weak_type_flag=True) == \
            jd.result_type(*args, return_weak_type_flag=True)
    assert (d.float0, d.bfloat16, fe.float0) == (jd.float0, jd.bfloat16, jax.float0)
    assert d.finfo(np.float16).eps == jd.finfo(np.float16).eps
    for t in ["int8", "bfloat16", "float32", "bool", "complex64", "int4", "float8_e4m3fn"]:
        assert fe.dlpack.is_supported_dtype(t) == jax.dlpack.is_supported_dtype(t), t
    assert_same(fe.dlpack.from_dlpack(np.arange(3.0)), jax.dlpack.from_dlpack(np.arange(3.0)))
    assert isinstance(fnp.ones(2), fe.typing.ArrayLike.__args__) and 1.0.__class__ in \
        fe.typing.ArrayLike.__args__
    assert fe.version.jax_api_version == jax.version.__version__
    assert fe.stages.Lowered is type(fe.jit(lambda x: x).lower(1.0))
    assert isinstance(fe.devices()[0], fe.Device) and fe.Device is jax.Device
    s, js = fnp.ones(2).addressable_shards[0], jnp.ones(2).addressable_shards[0]
    assert isinstance(s, fe.Shard) and (s.index, s.replica_id) == (js.index, js.replica_id)
    assert fe.process_indices() == jax.process_indices()
    for n in ["host_count", "host_id", "host_ids"]:
        with pytest.warns(UserWarning, match="has been renamed"):
            theirs = getattr(jax, n)()
        with pytest.warns(UserWarning, match=f"jax.{n} has been renamed"):
            assert getattr(fe, n)() == theirs
    assert "jaxlib: " in fe.print_environment_info(return_string=True)
    x = fnp.arange(3.0)
    assert fe.copy_to_host_async({"a": x})["a"] is x
    assert fe.custom_derivatives.custom_vjp is fe.custom_vjp


def test_typeof_compile_time_eval_linear_transpose_closures_custom_gradient():
    for x in [np.ones(3, np.float32), 1.0, np.ones((2,), np.int32), True]:
        a, ja = fe.typeof(fnp.asarray(x) if isinstance(x, np.ndarray) else x), jax.typeof(x)
        assert (a.shape, a.dtype, a.weak_type) == (ja.shape, ja.dtype, ja.weak_type)

    def h(np_, ev):
        def f(x):
            with ev():
                n = int(np_.arange(4).sum())  # concrete inside jit
                y = x * 2  # (a traced value is staged as usual)
            return y * n
        return f
    assert_same(fe.jit(h(fnp, fe.ensure_compile_time_eval))(1.5),
                jax.jit(h(jnp, jax.ensure_compile_time_eval))(1.5))

    def lin(x, y):
        return {"a": 2 * x, "b": y.sum() + x[0]}
    args = (np.ones(3, np.float32), np.ones(2, np.float32))
    ct = {"a": np.arange(3, dtype=np.float32), "b": np.float32(5)}
    assert_same(fe.linear_transpose(lin, *args)(ct), jax.linear_transpose(lin, *args)(ct))
    t = fe.linear_transpose(lambda x: 2 * x, fnp.ones(3))
    with pytest.raises(TypeError, match="cotangent type does not match function output"):
        t(fnp.ones(2))
    with pytest.raises(TypeError, match=r"cotangent tree does not match function output, "
                                        r"expected PyTreeDef\(\*\) but got PyTreeDef\(\(\*,\)\)"):
        t((fnp.ones(3),))
    with pytest.raises(TypeError, match="linear_transpose only supports"):
        fe.linear_transpose(lambda x: x.astype(np.float32), np.ones(2, np.int32))

    def cc(mod):
        def f(w, x):
            conv, consts = mod.closure_convert(lambda a: mod.numpy.sin(a * w), x)
            return conv(x, *consts), len(consts)
        return f
    assert_same(fe.jit(lambda w, x: cc(fe)(w, x)[0])(2.0, np.ones(2, np.float32)),
                jax.jit(lambda w, x: cc(jax)(w, x)[0])(2.0, np.ones(2, np.float32)))
    assert cc(fe)(2.0, np.ones(2, np.float32))[1] == 0  # (no tracer closed over eagerly)

    def cg(mod):
        @mod.custom_gradient
        def f(x, y):
            return mod.numpy.sin(x) * y, lambda g: (g * 3.0 * y, g * x)
        return f
    for tr in [lambda g: g, lambda g: lambda *a: g(*a)]:
        assert_same(fe.jit(fe.grad(cg(fe), (0, 1)))(2.0, 3.0),
                    jax.jit(jax.grad(cg(jax), (0, 1)))(2.0, 3.0))
        assert_same(tr(fe.vmap(fe.grad(cg(fe))))(np.ones(2, np.float32), np.ones(2, np.float32)),
                    jax.vmap(jax.grad(cg(jax)))(np.ones(2, np.float32), np.ones(2, np.float32)))


@pytest.mark.filterwarnings("ignore:divide by zero")
def test_debug_nans_infs_and_no_execution_as_jax():
    neg = -np.ones(2, np.float32)
    for mod, np_ in [(fe, fnp), (jax, jnp)]:
        with mod.debug_nans(True):
            with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered in log"):
                np_.log(neg)
            with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered in log"):
                mod.jit(lambda x: np_.log(x) + 1)(neg)  # (found again without jit)  # noqa: B023
            np_.log(-neg)
        with mod.debug_infs(True):
            with pytest.raises(FloatingPointError, match=r"\('jit\(<lambda>\)', 'inf'\)\. Because "
                               r"jax_config\.debug_nans\.value and/or config\.jax_debug_infs is set"):
                mod.jit(lambda x: 1 / x)(np.zeros(2, np.float32))  # (numpy divides without jit)
        np_.log(neg)  # (off again: C++ paths too)
        with mod.no_execution(True):
            with pytest.raises(RuntimeError, match=r"tried to execute function jit\(<lambda>\), "
                                                   r"but the no_execution config option is set"):
                mod.jit(lambda x: x + 1)(1.0)
            mod.jit(lambda x: x + 1).lower(1.0).compile()  # (compiling is no execution)


def test_transfer_guards_as_jax(caplog):
    x = np.ones(3, np.float32)
    for mod, np_ in [(fe, fnp), (jax, jnp)]:
        a = np_.ones(3)
        with mod.transfer_guard("disallow"):
            for f in [lambda: mod.jit(lambda v: v + 1)(x), lambda: mod.jit(lambda v: v + 1)(1.0),  # noqa: B023
                      lambda: np_.sin(x), lambda: np_.asarray(x), lambda: a + x]:  # noqa: B023
                with pytest.raises(mod.errors.JaxRuntimeError, match=r"INVALID_ARGUMENT: "
                                   r"Disallowed host-to-device transfer: aval=ShapedArray\("
                                   r"float32\[(3|)\](, weak_type=True|)\), dst_sharding="
                                   r"SingleDeviceSharding\(device=CpuDevice\(id=0\)"):
                    f()
            mod.device_put(x)  # (explicit: allowed)
            np.asarray(a)  # (a CPU buffer is host memory: no transfer)
            mod.jit(lambda v: v + 1)(a)
        with mod.transfer_guard_host_to_device("disallow_explicit"):
            with pytest.raises(mod.errors.JaxRuntimeError, match="Disallowed host-to-device"):
                mod.device_put(x)
    with caplog.at_level("WARNING"), fe.transfer_guard("log"):
        fe.jit(lambda v: v + 1)(x)
    assert "host-to-device transfer: aval=ShapedArray(float32[3])" in caplog.text
    assert fe.transfer_guard_device_to_host.value is None and \
        fe.transfer_guard_device_to_device.value is None


def test_default_matmul_precision_and_enable_checks():
    x = np.ones((2, 2), np.float32)
    for p in ["highest", "float32", "tensorfloat32", "bfloat16", "default"]:
        texts = []
        for mod in (fe, jax):
            with mod.default_matmul_precision(p):
                texts.append([ln.split("precision = ")[1].split(" :")[0] for ln in
                              mod.jit(lambda a: a @ a).lower(x).as_text().splitlines()
                              if "dot_general" in ln])
        assert texts[0] == texts[1], p
    from frontend.core.ir import Aval, Eqn, Graph, Var
    from frontend.passes import Pipeline

    def break_types(g):  # (a pass declaring a wrong output shape)
        e = g.eqns[0]
        out = Var(Aval((5,), e.outs[0].aval.dtype))
        return Graph(g.invars, g.constvars, g.consts, (Eqn(e.prim, e.inputs, e.params, (out,)),),
                     (out,))
    f = fe.jit(lambda a: fnp.sin(a), passes=Pipeline([break_types], check=False))
    with fe.enable_checks(True), pytest.raises(fe.errors.JaxprTypeError, match="sin: equation "
                                                                              "declares"):
        f(np.ones(3, np.float32))
    assert issubclass(fe.errors.JaxprTypeError, TypeError) and not fe.enable_checks.value


def test_make_array_from_pieces_and_fwd_and_bwd():
    from frontend.sharding import NamedSharding, PartitionSpec
    s = NamedSharding(fe.make_mesh((1,), ("x",)), PartitionSpec("x"))
    js = jax.sharding.NamedSharding(jax.make_mesh((1,), ("x",)), jax.P("x"))
    data = np.arange(4.0)
    assert_same(fe.make_array_from_callback((4,), s, lambda i: data[i]),
                jax.make_array_from_callback((4,), js, lambda i: data[i]))
    assert_same(fe.make_array_from_single_device_arrays((4,), s, [fnp.arange(4.0)]),
                jax.make_array_from_single_device_arrays((4,), js, [jnp.arange(4.0)]))
    assert_same(fe.make_array_from_process_local_data(s, data),
                jax.make_array_from_process_local_data(js, data))
    for ours, theirs in [
            (lambda: fe.make_array_from_single_device_arrays((4,), s, []),
             lambda: jax.make_array_from_single_device_arrays((4,), js, [])),
            (lambda: fe.make_array_from_callback((4,), s, lambda i: np.arange(3.0)),
             lambda: jax.make_array_from_callback((4,), js, lambda i: np.arange(3.0)))]:
        with pytest.raises(ValueError) as e:
            theirs()
        with pytest.raises(ValueError, match=re.escape(str(e.value)[:60])):
            ours()
    x, w, ct = (np.random.default_rng(1).normal(size=(2, 2)).astype(np.float32) for _ in "123")
    for argnums in [0, (0, 1)]:
        fwd, bwd = fe.fwd_and_bwd(lambda a, b: fnp.sin(a @ b), argnums)
        jfwd, jbwd = jax.fwd_and_bwd(lambda a, b: jnp.sin(a @ b), argnums)
        for k in range(2):
            y, res = fwd(x, w * k)
            jy, jres = jfwd(x, w * k)
            assert_same(y, jy)
            np.testing.assert_allclose(bwd(res, ct), jbwd(jres, ct), rtol=1e-5, atol=1e-6)
        assert bwd._cache_size() == 1  # (residuals passed in: one compiled backward pass)
    fwd, _ = fe.fwd_and_bwd(lambda a: (a * 2, {"aux": a}), 0, has_aux=True, jitted=False)
    assert len(fwd(x)) == 3


def test_leaks_prng_options_default_device_user_context_live_arrays_reshard():
    for mod in (fe, jax):
        leak = []
        with mod.checking_leaks(), pytest.raises(Exception, match=r"Leaked trace \w+\. Leaked "
                                                                   r"tracer\(s\):"):
            mod.jit(lambda x: leak.append(x) or x)(1.0)  # noqa: B023
        with mod.check_tracer_leaks(True):
            assert float(mod.jit(lambda x: x * 2)(1.0)) == 2.0
        for lvl in ("warn", "error"):
            with mod.legacy_prng_key(lvl):
                key = mod.random.PRNGKey(0)  # (making one is fine)
                if lvl == "warn":
                    with pytest.warns(UserWarning, match="Legacy uint32 key array passed"):
                        mod.random.normal(key)
                else:
                    with pytest.raises(ValueError, match=r"Please create keys using "
                                                         r"jax\.random\.key\(\)"):
                        mod.random.split(key)
                mod.random.normal(mod.random.key(0))
        assert (mod.default_prng_impl.value, mod.threefry_partitionable.value) == (
            "threefry2x32", True)
    with pytest.raises(NotImplementedError, match="threefry2x32 only"), \
            fe.default_prng_impl("rbg"):
        pass
    with pytest.raises(NotImplementedError, match="partitionable"), \
            fe.threefry_partitionable(False):
        pass
    for mod, np_ in [(fe, fnp), (jax, jnp)]:
        d = mod.devices()[0]
        with mod.default_device(d):
            outs = [mod.jit(lambda x: x + 1)(np.ones(2, np.float32)), np_.ones(2),
                    mod.device_put(np.ones(2))]
        with mod.default_device("cpu"):
            outs.append(mod.jit(lambda x: x + 1)(np.ones(2, np.float32)))
        assert all(o.devices() == {d} for o in outs)
        ctx = mod.make_user_context(0)
        f = mod.jit(lambda x: x * ctx.value)  # noqa: B023
        with ctx(3):
            assert float(f(1.0)) == 3.0
        assert float(f(1.0)) == 0.0  # (traced again for each value)
        a = np_.arange(3.0)
        assert any(x is a for x in mod.live_arrays())
    from frontend.sharding import NamedSharding, PartitionSpec
    s = NamedSharding(fe.make_mesh((1,), ("x",)), PartitionSpec("x"))
    js = jax.sharding.NamedSharding(jax.make_mesh((1,), ("x",)), jax.P("x"))
    assert_same(fe.reshard(np.arange(4.0), s), jax.reshard(np.arange(4.0), js))
    assert fe.reshard({"a": np.arange(4.0)}, s)["a"].sharding == s
    with fe.set_mesh(s.mesh):
        assert_same(fe.jit(lambda x: fe.reshard(x * 2, PartitionSpec("x")))(np.arange(4.0)),
                    np.arange(4.0, dtype=np.float32) * 2)


def test_equations_read_as_jaxs_and_lowered_hlo():
    """Sub-graph params by JAX's names, precision printed as JAX's, as_text("hlo"),
    eval_shape of a jitted function with a static argument."""
    def f(lax_, ck):
        def g(a):
            w = lax_.while_loop(lambda c: c < 3, lambda c: c + 1, a)
            s = lax_.scan(lambda c, x: (c + x, c), a, np.ones(3, np.float32))
            return w, s, ck(lambda t: t * 2)(a)
        return g
    ours = fe.make_jaxpr(f(fe.lax, fe.checkpoint))(1.0)
    theirs = jax.make_jaxpr(f(jax.lax, jax.checkpoint))(1.0)
    for e, je in zip(ours.eqns, theirs.jaxpr.eqns, strict=True):
        for k in ("jaxpr", "cond_jaxpr", "body_jaxpr"):
            assert (k in e.params) == (k in je.params), (e.primitive, k)
            if k in je.params:  # (a ClosedJaxpr or a Jaxpr: both have eqns)
                assert [q.primitive.name for q in e.params[k].eqns] == \
                    [q.primitive.name for q in je.params[k].eqns], (e.primitive, k)
                assert e.params.get(k) is e.params[k]
    assert ours.jaxpr is ours and len(ours.jaxpr.eqns) == len(theirs.jaxpr.eqns)
    x = np.ones((2, 2), np.float32)
    dot = [m.make_jaxpr(lambda a, m=m: m.lax.dot(a, a, precision=m.lax.Precision.HIGHEST))(x).eqns[0]
           for m in (fe, jax)]
    assert repr(dot[0].params["precision"]) == repr(dot[1].params["precision"]) == \
        "(Precision.HIGHEST, Precision.HIGHEST)"
    assert "precision=(Precision.HIGHEST, Precision.HIGHEST)" in str(
        fe.make_jaxpr(lambda a: fe.lax.dot(a, a, precision="highest"))(x))
    hlo = [m.jit(lambda a: a * 2 + 1).lower(np.ones(3, np.float32)).as_text("hlo") for m in (fe, jax)]
    ops = [sorted(re.findall(r"= \S+ (\w+)\(", h)) for h in hlo]
    assert hlo[0].startswith("HloModule ") and "ENTRY" in hlo[0] and ops[0] == ops[1]
    for m in (fe, jax):
        j = m.jit(lambda a, n: a * n, static_argnums=1)
        assert m.eval_shape(j, np.ones(3, np.float32), 3).shape == (3,)
        assert m.eval_shape(j, m.ShapeDtypeStruct((2,), np.float32), 2).dtype == np.float32


def _main_args(text):
    return re.findall(r"%arg\d+: tensor<[^>]*>(?: \{([^}]*)\})?", text.split("->")[0])


def test_donation_aliases_deletes_and_warns_as_jax():
    """donate_argnums/argnames: the module's aliasing attributes are JAX's; the donated Array
    whose buffer a result took is deleted (JAX's error on use), the other one is kept with
    JAX's warning."""
    fns = {m: m.jit(lambda a, b: (a + 1, b.sum()), donate_argnums=(0, 1)) for m in (fe, jax)}
    arrays = {fe: (fnp.ones(3), fnp.ones(4)), jax: (jnp.ones(3), jnp.ones(4))}
    texts = []
    for m, f in fns.items():
        with pytest.warns(UserWarning, match=re.escape(
                "Some donated buffers were not usable: float32[4].\nSee an explanation at "
                "https://docs.jax.dev/en/latest/faq.html#buffer-donation.")):
            texts.append(_main_args(f.lower(*arrays[m]).as_text()))
    assert texts[0] == texts[1] == ["tf.aliasing_output = 0 : i32", ""]
    for m, f in fns.items():
        x, y = arrays[m]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = f(x, y)
        assert_same(out[0], np.full(3, 2, np.float32))
        assert (x.is_deleted(), y.is_deleted()) == (True, False)
        for use in [lambda x=x: x + 1, lambda x=x: np.asarray(x),
                    lambda x=x, m=m: m.jit(lambda a: a * 2)(x)]:
            with pytest.raises(RuntimeError, match=re.escape(
                    "Array has been deleted with shape=float32[3].")):
                use()
    for m, np_ in [(fe, fnp), (jax, jnp)]:
        g = m.jit(lambda a, n: a * n, static_argnums=1, donate_argnames="a")
        z, z2 = np_.ones(2), np_.ones(2)
        assert_same(g(a=z, n=3), np.full(2, 3, np.float32)) and z.is_deleted()
        assert_same(g(z2, 2), np.full(2, 2, np.float32))
        assert z.is_deleted() and z2.is_deleted()
        assert_same(g(np.ones(2, np.float32), 2), np.full(2, 2, np.float32))  # (host data)
    k = fnp.ones(2)
    k.delete()
    assert k.is_deleted()


_PMAP_4 = r"""
import numpy as np, jax, jax.numpy as jnp
import frontend as fe, frontend.numpy as fnp
assert len(fe.devices()) == 4
x = np.arange(12.0, dtype=np.float32).reshape(4, 3)
for mod, np_ in [(fe, fnp), (jax, jnp)]:
    f = mod.pmap(lambda v, s: mod.lax.psum(v, "i") * s + mod.lax.axis_index("i"),
                 axis_name="i", in_axes=(0, None))
    out = np.asarray(f(x, np.float32(2)))
    g = mod.pmap(lambda v: np_.sin(v).sum(), in_axes=1, out_axes=0)
    print(repr(out.tolist()), repr(np.asarray(g(x.T)).round(5).tolist()))
"""


def test_pmap_over_devices_as_jax():
    """pmap is a shard_map over a 1-D mesh (JAX 0.10's own construction): the same results
    and errors as jax.pmap on one device (four: the slow test below)."""
    for mod in (fe, jax):
        f = mod.pmap(lambda v, mod=mod: mod.lax.psum(v, "i") * 2, axis_name="i")
        assert_same(f(np.ones((1, 3), np.float32)), np.full((1, 3), 2, np.float32))
        assert_same(mod.pmap(lambda v, n: v * n, static_broadcasted_argnums=1)(
            np.ones((1, 2), np.float32), 3), np.full((1, 2), 3, np.float32))
        with pytest.raises(ValueError, match="cannot select an axis to squeeze out"):
            mod.pmap(lambda v: v)(np.ones((2, 3)))  # (more slices than devices)


@pytest.mark.slow
def test_pmap_on_four_devices_as_jax():
    import os
    import subprocess
    import sys
    from pathlib import Path
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=4",
               PYTHONPATH=str(Path(__file__).parents[1]))
    r = subprocess.run([sys.executable, "-c", _PMAP_4], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    ours, theirs = r.stdout.strip().splitlines()
    assert ours == theirs


def test_profiler_traces_and_memory_profile_as_jax(tmp_path):
    """A trace written where TensorBoard reads it (the same files as JAX's), annotations,
    JAX's errors for a second start and a stop without start, the memory profile."""
    files = []
    for m in (fe, jax):
        d = tmp_path / m.__name__
        m.profiler.start_trace(d)
        try:
            with pytest.raises(RuntimeError, match="Profile has already been started"):
                m.profiler.start_trace(d)
            with m.profiler.TraceAnnotation("label"), \
                    m.profiler.StepTraceAnnotation("train", step_num=1):
                m.jit(lambda x: x * 2)(np.ones(3, np.float32)).block_until_ready()
            assert m.profiler.annotate_function(lambda: 7)() == 7
        finally:
            m.profiler.stop_trace()
        with pytest.raises(RuntimeError, match="No profile started"):
            m.profiler.stop_trace()
        files.append(sorted(p.name.split(".", 1)[1] for p in d.glob("plugins/profile/*/*")))
        assert m.profiler.device_memory_profile()[:2] == b"\x1f\x8b"  # (gzip)
    assert files[0] == files[1] and "xplane.pb" in files[0]


def test_allow_f16_reductions_as_jax():
    x = np.ones(3, np.float16)
    for m, np_ in [(fe, fnp), (jax, jnp)]:
        with m.allow_f16_reductions(False):
            for f in [lambda v, m=m: m.lax.reduce_sum(v, (0,)),
                      lambda v, m=m: m.jit(lambda y: m.lax.reduce_sum(y, (0,)))(v)]:
                with pytest.raises(ValueError, match=re.escape(
                        "reduce_sum on operand f16[3] is not allowed when "
                        "jax_allow_f16_reductions=False.")):
                    f(x)
            assert_same(np_.sum(x), np.float16(3))  # (numpy's sum adds in float32)
        assert_same(m.lax.reduce_sum(x, (0,)), np.float16(3))


def _scopes(hlo_text):
    """{primitive: named scope} from the op_name metadata of XLA's HLO."""
    out = {}
    for name in re.findall(r'op_name="([^"]+)"', hlo_text):
        name = re.sub(r"^jit\([^)]*\)/", "", name)
        if "/" in name:
            scope, prim = name.rsplit("/", 1)
            out[prim.split(":")[0]] = scope
    return out


def test_named_scope_and_named_call_reach_xla_metadata_as_jax():
    def f(mod, np_):
        def g(x):
            with mod.named_scope("blk"):
                y = np_.sin(x)
                with mod.named_scope("inner"):
                    y = y + 1
            return mod.named_call(lambda z: z * 2, name="dbl")(y)
        return g
    x = np.ones(3, np.float32)
    got = [_scopes(m.jit(f(m, np_)).lower(x).compile().as_text())
           for m, np_ in [(fe, fnp), (jax, jnp)]]
    assert got[0] == got[1] == {"sin": "blk", "add": "blk/inner", "mul": "dbl"}
    assert 'loc("blk/sin:0"' in fe.jit(f(fe, fnp)).lower(x).as_text(debug_info=True)
    assert_same(fe.jit(f(fe, fnp))(x), jax.jit(f(jax, jnp))(x))
    with pytest.raises(TypeError, match="named_scope name argument must be a string"):
        with fe.named_scope(3):
            pass
