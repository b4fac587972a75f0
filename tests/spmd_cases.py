"""Checks over 8 CPU devices. Not collected by the main test run (its process has one
device): tests/test_sharding.py runs this file with pytest in a subprocess started with
``XLA_FLAGS=--xla_force_host_platform_device_count=8``. Every result is compared with the
same program on one device (or under vmap) and with JAX's same program and shardings; the
partitioned HLO (``Compiled.as_text()``) must hold the collective XLA's partitioner or the
shard_map lowering put there."""
import jax
import numpy as np
import pytest
from harness import RNG, assert_same
from jax import lax as jlax
from jax.sharding import Mesh as JMesh
from jax.sharding import NamedSharding as JNamed
from jax.sharding import PartitionSpec as JP
from test_collectives import JAX_LACKS, NESTED, _nested_ref, cases
from test_sharding import error_of as _message

import frontend as fe
import frontend.numpy as fnp
from frontend import lax
from frontend.sharding import Mesh, NamedSharding
from frontend.sharding import PartitionSpec as P

pytestmark = pytest.mark.skipif(len(fe.devices()) < 8, reason="needs 8 devices (XLA_FLAGS)")


def meshes():
    """The same 2-D mesh, ours and JAX's: ('x': 4, 'y': 2)."""
    devs = np.array(fe.devices()[:8]).reshape(4, 2)
    return Mesh(devs, ("x", "y")), JMesh(devs, ("x", "y"))


def ours_and_jax(spec):
    m, jm = meshes()
    return NamedSharding(m, P(*spec)), JNamed(jm, JP(*spec))


def rand(*shape):
    return RNG.normal(size=shape).astype(np.float32)


def test_mesh_device_put_shards_and_gather():
    m = fe.make_mesh((4, 2), ("x", "y"))
    assert m.shape == {"x": 4, "y": 2} and m.size == 8 and m.axis_names == ("x", "y")
    assert repr(m) == "Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto))"
    assert fe.make_mesh((3,), ("d",)).size == 3
    x = rand(8, 4)
    for spec in [("x", "y"), ("x",), (None, "y"), (("x", "y"),), ("y", "x"), ()]:
        s, js = ours_and_jax(spec)
        a, ja = fe.device_put(x, s), jax.device_put(x, js)
        assert a.sharding == s
        assert s.shard_shape(x.shape) == js.shard_shape(x.shape)
        assert s.is_fully_replicated == js.is_fully_replicated
        assert a.shape == x.shape
        assert s.devices_indices_map(x.shape) == js.devices_indices_map(x.shape), spec
        shards = {sh.device: sh for sh in a.addressable_shards}
        for jsh in ja.addressable_shards:
            sh = shards[jsh.device]
            assert sh.index == jsh.index and sh.replica_id == jsh.replica_id, spec
            np.testing.assert_array_equal(sh.data, jsh.data)
        np.testing.assert_array_equal(np.asarray(a), x)  # gathers
    # resharding an Array, a PartitionSpec under a context mesh, the device of a sharded Array
    a = fe.device_put(x, NamedSharding(m, P("x")))
    with m:
        b = fe.device_put(a, P(None, "y"))
    assert b.sharding.spec == P(None, "y") and b.device == b.sharding
    np.testing.assert_array_equal(np.asarray(b), x)
    assert len(a.devices()) == 8 and a.is_fully_addressable and not a.is_fully_replicated
    # eager work on sharded arrays stays sharded, as JAX's
    c = fnp.sin(a) * 2 + 1
    assert c.sharding == a.sharding
    np.testing.assert_allclose(c, np.sin(x) * 2 + 1, rtol=1e-6, atol=1e-6)


def test_jit_over_1d_and_2d_meshes_vs_one_device_and_jax():
    """Batch-sharded and replicated operands, a reduction over the sharded batch axis: equal to
    one device and to JAX with the same shardings; XLA's partitioned HLO holds the all-reduce
    of the partial sums; results are laid out as out_shardings says."""
    x, w = rand(16, 6), rand(6, 5)

    def f(x, w):
        h = fnp.tanh(x @ w)
        return h.sum(0), (h * h).mean(), h

    def jf(x, w):
        h = jax.numpy.tanh(x @ w)
        return h.sum(0), (h * h).mean(), h

    single = fe.jit(f)(x, w)
    m1 = fe.make_mesh((8,), ("b",))
    jm1 = JMesh(np.array(jax.devices()[:8]), ("b",))
    m2, jm2 = meshes()
    for m, jm, batch in [(m1, jm1, ("b",)), (m2, jm2, (("x", "y"),)), (m2, jm2, ("x",))]:
        ins = (NamedSharding(m, P(*batch)), NamedSharding(m, P()))
        jins = (JNamed(jm, JP(*batch)), JNamed(jm, JP()))
        outs = (NamedSharding(m, P()), NamedSharding(m, P()), NamedSharding(m, P(*batch)))
        jouts = (JNamed(jm, JP()), JNamed(jm, JP()), JNamed(jm, JP(*batch)))
        g = fe.jit(f, in_shardings=ins, out_shardings=outs)
        got = g(x, w)
        assert_same(got, single, f"{batch} vs one device")
        assert_same(got, jax.jit(jf, in_shardings=jins, out_shardings=jouts)(x, w), f"{batch} vs JAX")
        assert [o.sharding for o in got] == list(outs)
        text = g.lower(x, w).as_text()
        assert "sdy.mesh @mesh" in text and f"mhlo.num_partitions = {m.size}" in text
        assert "sdy.sharding = #sdy.sharding<@mesh" in text
        hlo = g.lower(x, w).compile().as_text()
        assert "all-reduce(" in hlo, hlo
        # the C++ path with sharded arguments: later calls do not come back to Python
        xs = fe.device_put(x, ins[0])
        calls = []
        jitted = g._jitted
        orig = jitted._cache_miss
        jitted._cache_miss = lambda *a, **k: calls.append(1) or orig(*a, **k)  # noqa: B023
        g = jitted.public()  # a new C++ callable, whose misses are counted
        for _ in range(3):
            assert_same(g(xs, w), single, "fast path")
        assert len(calls) == 1


def test_shardings_from_arguments_and_constraints():
    x = rand(8, 4)
    s, js = ours_and_jax(("x", "y"))
    xs, jxs = fe.device_put(x, s), jax.device_put(x, js)
    f = fe.jit(lambda a: (a * 2).sum(0))
    assert_same(f(xs), jax.jit(lambda a: (a * 2).sum(0))(jxs))
    assert "all-reduce(" in f.lower(xs).compile().as_text()
    assert '#sdy.sharding<@mesh, [{"x"}, {"y"}]>' in f.lower(xs).as_text()
    # with_sharding_constraint: sdy.sharding_constraint, then XLA moves the data
    m = s.mesh
    g = fe.jit(lambda a: lax.with_sharding_constraint(fnp.sin(a), NamedSharding(m, P(None, "x"))) * 3)
    text = g.lower(xs).as_text()
    assert 'sdy.sharding_constraint' in text and '[{}, {"x"}]' in text
    np.testing.assert_allclose(g(xs), np.sin(x) * 3, rtol=1e-6)
    assert "all-to-all" in g.lower(xs).compile().as_text() or "all-gather" in \
        g.lower(xs).compile().as_text()
    # a large sharded Array the function closes over: a hoisted argument keeping its sharding
    big = rand(512, 64)
    bigs = fe.device_put(big, NamedSharding(m, P("x", "y")))
    h = fe.jit(lambda a: (bigs @ a.T).sum(0))
    text = h.lower(rand(16, 64)).as_text()
    assert "closed-over constants" in text and '%arg0: tensor<512x64xf32> {sdy.sharding = ' \
        '#sdy.sharding<@mesh, [{"x"}, {"y"}]>}' in text, text[:600]
    v = rand(16, 64)
    np.testing.assert_allclose(h(v), (big @ v.T).sum(0), rtol=1e-4, atol=1e-3)
    # eager constraint: a transfer; a jit inside a vmap: its shardings become constraints
    assert lax.with_sharding_constraint(x, NamedSharding(m, P("x"))).sharding.spec == P("x")
    inner = fe.jit(lambda a: a + 1, out_shardings=NamedSharding(m, P("y")))
    text = fe.jit(fe.vmap(inner, spmd_axis_name="x")).lower(x).as_text()
    assert '[{"x"}, {"y"}]' in text


def test_spmd_axis_name_puts_the_batch_on_the_mesh_axis():
    """vmap(spmd_axis_name=...) gives the batch axis of every sharding constraint inside to the
    mesh axis, as JAX's: the same StableHLO constraints, and in XLA's partitioned module the
    batch is split (per-device batch 8 / 4); nested vmaps over two mesh axes."""
    m, jm = meshes()
    x, w = rand(8, 3, 6), rand(6, 5)

    def f(C, X, x):
        h = C(X.tanh(x @ w), P(None, None))
        return (h * 2).sum(-1)

    def cons(ns):
        return lambda v, spec: lax.with_sharding_constraint(v, NamedSharding(m, spec))

    def jcons(v, spec):
        return jlax.with_sharding_constraint(v, JNamed(jm, JP(*spec)))

    ours = fe.jit(fe.vmap(lambda x: f(cons(m), fnp, x), spmd_axis_name="x"))
    theirs = jax.jit(jax.vmap(lambda x: f(jcons, jax.numpy, x), spmd_axis_name="x"))
    text = ours.lower(x).as_text()
    assert 'sdy.sharding_constraint' in text and '<@mesh, [{"x"}, {}, {}]>' in text
    assert '<@mesh, [{"x"}, {}, {}]>' in theirs.lower(x).as_text()
    assert_same(ours(x), theirs(x))
    assert_same(ours(x), fe.jit(fe.vmap(lambda x: f(lambda v, s: v, fnp, x)))(x))
    hlo = ours.lower(x).compile().as_text()
    assert "entry_computation_layout={(f32[2,3,6]" in hlo, hlo  # per-device batch: 8 / 4
    # nested: the outer batch axis on 'x', the inner on 'y'
    x2 = rand(4, 2, 3, 6)
    nested = fe.jit(fe.vmap(fe.vmap(lambda x: f(cons(m), fnp, x), spmd_axis_name="y"),
                            spmd_axis_name="x"))
    jnested = jax.jit(jax.vmap(jax.vmap(lambda x: f(jcons, jax.numpy, x), spmd_axis_name="y"),
                               spmd_axis_name="x"))
    assert '<@mesh, [{"x"}, {"y"}, {}, {}]>' in nested.lower(x2).as_text()
    assert_same(nested(x2), jnested(x2))


def _expand(tree, n):
    """Each per-device result with n new leading axes of size 1 (stacked by out_specs)."""
    return {k: fnp.reshape(v, (1,) * n + fnp.shape(v)) for k, v in tree.items()}


def test_shard_map_collectives_equal_vmap_and_jax():
    """Every collective under shard_map over mesh axis 'x' (a device's shard = a lane) equals
    the same program under vmap(axis_name='x') and JAX's shard_map; XLA's partitioned HLO
    holds the matching collective."""
    S = 4
    m = fe.make_mesh((S,), ("x",))
    jm = JMesh(np.array(jax.devices()[:S]), ("x",))
    X = RNG.normal(size=(S, S, 2 * S)).astype(np.float32)  # lanes of shape (S, 2S)
    names = [n for n, _, _ in cases(S)]
    body = lambda x: _expand({n: v for n, v in zip(names, _all(lax, x, S), strict=True)}, 1)  # noqa: E731
    sm = fe.jit(fe.shard_map(body, mesh=m, in_specs=P("x"), out_specs=P("x"), check_vma=False))
    got = sm(X.reshape(S * S, 2 * S))
    under_vmap = fe.jit(fe.vmap(lambda x: dict(zip(names, _all(lax, x, S), strict=True)), axis_name="x"))(X)
    jnames = [n for n in names if n not in JAX_LACKS]
    jbody = lambda x: {n: v[None] for n, v in zip(names, _all(jlax, x, S), strict=True) if n in jnames}  # noqa: E731
    theirs = jax.jit(jax.shard_map(jbody, mesh=jm, in_specs=JP("x"), out_specs=JP("x"),
                                   check_vma=False))(X.reshape(S * S, 2 * S))
    for name, _, ref in cases(S):
        np.testing.assert_allclose(got[name], ref(X), rtol=1e-5, atol=1e-5, err_msg=name)
        np.testing.assert_allclose(got[name], under_vmap[name], rtol=1e-5, atol=1e-5, err_msg=name)
        if name in jnames:
            np.testing.assert_allclose(got[name], theirs[name], rtol=1e-5, atol=1e-5, err_msg=name)
    hlo = sm.lower(X.reshape(S * S, 2 * S)).compile().as_text()
    for op in ("all-reduce(", "all-gather(", "reduce-scatter(", "all-to-all(",
               "collective-permute(", "partition-id()"):
        assert op in hlo, op


def _all(L, x, S):
    return [f(L, x, "x") for _, f, _ in cases(S)]


def test_shard_map_two_mesh_axes_and_tuples_of_names():
    """A 2-D mesh: collectives over 'x', over 'y' and over both (first name major), each equal
    to the nested vmaps' reference (tests/test_collectives.py) and to JAX's shard_map."""
    m, jm = meshes()
    A, B = 4, 2
    grid = {"i": "x", "j": "y"}
    for N, S in {"i": 4, "j": 2, ("i", "j"): 8}.items():
        MN = grid[N] if isinstance(N, str) else tuple(grid[n] for n in N)
        X = RNG.normal(size=(A, B, S, 2 * S)).astype(np.float32)
        glob = X.transpose(0, 2, 1, 3).reshape(A * S, B * 2 * S)  # device (a, b) holds X[a, b]
        sel = ["psum", "pmean", "pmax", "all_gather", "all_gather_tiled", "psum_scatter",
               "all_to_all", "ppermute_ring", "axis_index", "centered"]
        fs = [(n, f, r) for n, f, r in cases(S) if n in sel]
        body = lambda x: _expand({n: f(lax, x, MN) for n, f, _ in fs}, 2)  # noqa: E731, B023
        got = fe.jit(fe.shard_map(body, mesh=m, in_specs=P("x", "y"), out_specs=P("x", "y"),
                                  check_vma=False))(glob)
        jbody = lambda x: {n: f(jlax, x, MN)[None, None] for n, f, _ in fs}  # noqa: E731, B023
        theirs = jax.jit(jax.shard_map(jbody, mesh=jm, in_specs=JP("x", "y"),
                                       out_specs=JP("x", "y"), check_vma=False))(glob)
        for name, _, ref in fs:
            want = _nested_ref(ref, X, N)
            np.testing.assert_allclose(got[name], want, rtol=1e-5, atol=1e-5, err_msg=f"{name} {N}")
            np.testing.assert_allclose(got[name], theirs[name], rtol=1e-5, atol=1e-5)
    assert NESTED  # the reference's table (its sizes are for a (3, 2) grid)


def test_shard_map_eager_vmapped_checked_and_closures():
    m, jm = meshes()
    x = rand(8, 6)

    def f(a, b, L=lax):  # per device: (2, 3) shard of a, b replicated
        s = L.psum(a.sum(0) * b, "x")
        return s, a - L.pmean(a, ("x", "y"))

    specs = dict(in_specs=(P("x", "y"), P()), out_specs=(P("y"), P("x", "y")))
    b = rand(3)
    want = jax.jit(jax.shard_map(lambda a, b: f(a, b, jlax), mesh=jm, in_specs=(JP("x", "y"), JP()),
                                 out_specs=(JP("y"), JP("x", "y"))))(x, b)
    for run in (fe.shard_map(f, mesh=m, **specs), fe.jit(fe.shard_map(f, mesh=m, **specs))):
        got = run(x, b)  # eager and under jit
        assert_same(got, want)
        assert got[1].sharding == NamedSharding(m, P("x", "y"))
    # closing over a traced value: an operand replicated on every device
    k = fe.jit(lambda x, c: fe.shard_map(lambda a: a * c, mesh=m, in_specs=P("x"),
                                         out_specs=P("x"))(x))(x, np.float32(3))
    np.testing.assert_allclose(k, x * 3, rtol=1e-6)
    # vmap of a shard_map: the batch axis over mesh axis 'y' (spmd_axis_name), as JAX's
    xb = rand(2, 8, 6)
    body = lambda a, L=lax: a - L.pmean(a, "x")  # noqa: E731
    ours = fe.jit(fe.vmap(fe.shard_map(body, mesh=m, in_specs=P("x"), out_specs=P("x")),
                          spmd_axis_name="y"))
    theirs = jax.jit(jax.vmap(jax.shard_map(lambda a: body(a, jlax), mesh=jm, in_specs=JP("x"),
                                            out_specs=JP("x")), spmd_axis_name="y"))
    assert_same(ours(xb), theirs(xb))
    assert 'in_shardings=[<@mesh, [{"y"}, {"x"}, {}]>]' in ours.lower(xb).as_text()
    plain = fe.jit(fe.vmap(fe.shard_map(body, mesh=m, in_specs=P("x"), out_specs=P("x"))))
    assert_same(plain(xb), theirs(xb))


def test_two_meshes_of_the_same_devices_in_one_program():
    """A 2-D mesh and a 1-D mesh over the same devices in another order: the second gets
    Shardy device_ids, and shard_map collectives and axis_index on it follow its order."""
    m, _ = meshes()
    rev = Mesh(np.array(fe.devices()[:8][::-1]), ("r",))
    x = rand(8, 4)

    def f(a):
        b = lax.with_sharding_constraint(a * 2, NamedSharding(m, P("x", "y")))
        idx = fe.shard_map(lambda v: (lax.axis_index("r") + 0 * v[:, 0].astype(np.int32),
                                      lax.ppermute(v, "r", [(k, (k + 1) % 8) for k in range(8)])),
                           mesh=rev, in_specs=P("r"), out_specs=P("r"))(b)
        return idx

    g = fe.jit(f)
    text = g.lower(x).as_text()
    assert 'sdy.mesh @mesh_1 = <["r"=8], device_ids=[7, 6, 5, 4, 3, 2, 1, 0]>' in text, text
    idx, rolled = g(x)
    np.testing.assert_array_equal(idx, np.arange(8))
    np.testing.assert_allclose(rolled, np.roll(x * 2, 1, axis=0))


def test_errors_worded_like_jax():
    """Errors that need an axis of size > 1: the same exception type and text as JAX's (the
    others are in tests/test_bad_inputs.py)."""
    m, jm = meshes()
    s, js = ours_and_jax(("x",))
    six = np.ones((6, 2), np.float32)
    pairs = [
        (lambda: fe.device_put(six, s), lambda: jax.device_put(six, js)),
        (lambda: fe.jit(lambda a: a, in_shardings=s)(six),
         lambda: jax.jit(lambda a: a, in_shardings=js)(six)),
        (lambda: fe.jit(lambda a: a[:6], out_shardings=s)(np.ones(8, np.float32)),
         lambda: jax.jit(lambda a: a[:6], out_shardings=js)(np.ones(8, np.float32))),
        (lambda: fe.jit(lambda a: a, in_shardings=s)(fe.device_put(np.ones((8, 2)), ours_and_jax(("y",))[0])),
         lambda: jax.jit(lambda a: a, in_shardings=js)(jax.device_put(np.ones((8, 2)), ours_and_jax(("y",))[1]))),
    ]
    for ours, theirs in pairs:
        assert _message(ours) == _message(theirs)
    # shard_map: JAX's text, with frontend's name for the check_vma switch
    ours = _message(lambda: fe.shard_map(lambda a: a, mesh=m, in_specs=P("x"), out_specs=P("x"))(
        np.ones(6, np.float32)))
    theirs = _message(lambda: jax.shard_map(lambda a: a, mesh=jm, in_specs=JP("x"), out_specs=JP("x"))(
        np.ones(6, np.float32)))
    assert ours == theirs and ours[0] == "ValueError"
    ours = _message(lambda: fe.shard_map(lambda a: a * 2, mesh=m, in_specs=P("x"), out_specs=P())(
        np.ones(8, np.float32)))
    theirs = _message(lambda: jax.shard_map(lambda a: a * 2, mesh=jm, in_specs=JP("x"), out_specs=JP())(
        np.ones(8, np.float32)))
    assert ours[1].split("mesh:")[1].replace("frontend", "jax") == \
        theirs[1].split("mesh:")[1], (ours, theirs)
    # two meshes of different devices in one program
    small = Mesh(np.array(fe.devices()[:2]), ("z",))
    kind, msg = _message(lambda: fe.jit(lambda a, b: a + b)(fe.device_put(np.ones(8), s),
                                                           fe.device_put(np.ones(8), NamedSharding(small, P("z")))))
    assert kind == "ValueError" and "Received incompatible devices for jitted computation" in msg


def test_gradients_through_a_sharded_jit_and_shard_map():
    """grad of a loss with the batch sharded (jit in_shardings; the jit inside the grad and
    the grad inside the jit) and of a shard_map whose body uses collectives, with replicated
    and sharded operands and results: equal to JAX's; the weight gradient's all-reduce is in
    XLA's partitioned HLO; jvp of the shard_map equals JAX's."""
    m, jm = meshes()
    x, w = rand(16, 6), rand(6, 5)
    ins = (NamedSharding(m, P()), NamedSharding(m, P(("x", "y"))))
    jins = (JNamed(jm, JP()), JNamed(jm, JP(("x", "y"))))

    def loss(N, w, x):
        return N.sum(N.tanh(x @ w) ** 2)

    g = fe.jit(fe.grad(lambda w, x: loss(fnp, w, x), argnums=(0, 1)), in_shardings=ins)
    want = jax.jit(jax.grad(lambda w, x: loss(jax.numpy, w, x), argnums=(0, 1)),
                   in_shardings=jins)(w, x)
    compiled = g.lower(w, x).compile()
    assert_same(compiled(w, x), want)
    assert "all-reduce(" in compiled.as_text()
    inner = fe.jit(lambda w, x: loss(fnp, w, x), in_shardings=ins)
    outer_jit = fe.jit(fe.grad(inner, argnums=(0, 1)))  # its shardings become constraints
    assert_same(outer_jit(w, x), want)
    assert "sdy.sharding_constraint" in outer_jit.lower(w, x).as_text()

    ring = [(k, (k + 1) % 4) for k in range(4)]

    def body(L, N, w, x):  # per device: w whole, 4 rows of x (sharded over 'x', same along 'y')
        h = N.tanh(x @ w)
        total = L.psum(N.sum(h * h), "x")
        return total, L.ppermute(h, "x", ring), L.all_gather(h, "x", tiled=True), \
            L.psum_scatter(h, "x", scatter_dimension=0, tiled=True)

    def outer(S, L, N, P_, mesh):
        sm = S(lambda w, x: body(L, N, w, x), mesh=mesh, in_specs=(P_(), P_("x")),
               out_specs=(P_(), P_("x"), P_("x"), P_("x")))

        def f(w, x):
            t, r, a, s = sm(w, x)
            return t + N.sum(r * x[:, :1]) + N.sum(N.sin(a)) + N.sum(s ** 2)
        return f

    def program(F, f):  # value, gradient and jvp: one compiled program
        return lambda w, x, tw, tx: (F.value_and_grad(f, argnums=(0, 1))(w, x),
                                     F.jvp(f, (w, x), (tw, tx)))

    ours = fe.jit(program(fe, outer(fe.shard_map, lax, fnp, P, m)))
    theirs = jax.jit(program(jax, outer(jax.shard_map, jlax, jax.numpy, JP, jm)))
    args = (w, x, rand(6, 5), rand(16, 6))
    assert_same(ours(*args), theirs(*args))


def test_per_example_gradients_through_shard_map():
    """vmap of grad of a shard_map, the batch over mesh axis 'y' (spmd_axis_name) or not;
    a result replicated without a collective and an integer result; second order: JAX's."""
    m, jm = meshes()
    xb, w = rand(2, 8, 6), rand(6)

    def make(S, L, N, P_, mesh):
        sm = S(lambda w, a: L.psum(N.sum(N.tanh(a * w) ** 2), "x"), mesh=mesh,
               in_specs=(P_(), P_("x")), out_specs=P_())
        other = S(lambda w, a: (w * 3.0, L.axis_index("x"), a * w), mesh=mesh,
                  in_specs=(P_(), P_("x")), out_specs=(P_(), P_(), P_("x")), check_vma=False)

        def program(F, w, xb):
            g = F.grad(sm)
            return (F.vmap(g, in_axes=(None, 0))(w, xb),
                    F.vmap(g, in_axes=(None, 0), spmd_axis_name="y")(w, xb),
                    F.grad(lambda w: F.grad(sm)(w, xb[0]).sum())(w),
                    F.grad(lambda w, a: (lambda r: r[0].sum() + (r[2] ** 2).sum())(other(w, a)),
                           argnums=(0, 1))(w, xb[1]))
        return program

    ours = fe.jit(lambda w, xb: make(fe.shard_map, lax, fnp, P, m)(fe, w, xb))
    theirs = jax.jit(lambda w, xb: make(jax.shard_map, jlax, jax.numpy, JP, jm)(jax, w, xb))
    assert_same(ours(w, xb), theirs(w, xb))
