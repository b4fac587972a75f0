"""Meshes, shardings and shard_map. This process has one CPU device: here the whole machinery
runs on a mesh of that device (every collective lowered in a shard_map and compared with the
same program under vmap and JAX's shard_map; constraints; batching rules), and the checks
over 8 devices (tests/spmd_cases.py) run in a subprocess that sets
``XLA_FLAGS=--xla_force_host_platform_device_count=8`` before its backend starts."""
import os
import subprocess
import sys

import jax
import numpy as np
from harness import RNG, assert_same
from jax import lax as jlax
from jax.sharding import Mesh as JMesh
from jax.sharding import PartitionSpec as JP
from test_collectives import JAX_LACKS, cases

import frontend as fe
import frontend.numpy as fnp
from frontend import lax
from frontend.sharding import Mesh, NamedSharding
from frontend.sharding import PartitionSpec as P
from lowering import backend

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def test_eight_devices_in_a_subprocess():
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8",
               PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o",
                        "addopts=", os.path.join(HERE, "spmd_cases.py")], capture_output=True,
                       text=True, timeout=600, env=env, cwd=ROOT)
    assert r.returncode == 0, r.stdout[-8000:] + r.stderr[-3000:]
    assert " passed" in r.stdout and "skipped" not in r.stdout, r.stdout[-2000:]


def test_one_device_mesh_every_collective_constraint_and_batching():
    """Every collective lowered in a shard_map (on a mesh of one device: a lane), equal to
    vmap over one lane and to JAX's shard_map; the constraint and shard_map under vmap."""
    devs = np.array(fe.devices()[:1])
    m, jm = Mesh(devs, ("x",)), JMesh(devs, ("x",))
    m2, jm2 = Mesh(devs.reshape(1, 1), ("x", "y")), JMesh(devs.reshape(1, 1), ("x", "y"))
    X = RNG.normal(size=(1, 1, 2)).astype(np.float32)
    names = [n for n, _, _ in cases(1)]

    def body(L, x):
        return {n: f(L, x, "x")[None] for n, f, _ in cases(1)}

    def program(x, xb):
        sm = fe.shard_map(lambda a: body(lax, a), mesh=m, in_specs=P("x"), out_specs=P("x"),
                          check_vma=False)(x[0])
        vm = fe.vmap(lambda a: {n: f(lax, a, "x") for n, f, _ in cases(1)}, axis_name="x")(x)
        con = fe.vmap(lambda a: lax.with_sharding_constraint(fnp.sin(a), NamedSharding(m, P())),
                      spmd_axis_name="x")(xb)
        mapped = fe.vmap(fe.shard_map(lambda a: a - lax.pmean(a, "x"), mesh=m2, in_specs=P("x"),
                                      out_specs=P("x")), spmd_axis_name="y")(xb)
        return sm, vm, con, mapped

    xb = RNG.normal(size=(3, 4)).astype(np.float32)
    jit = fe.jit(program)
    text = jit.lower(X, xb).as_text()
    assert "sdy.manual_computation" in text and "sdy.sharding_constraint" in text
    sm, vm, con, mapped = jit(X, xb)
    jnames = [n for n in names if n not in JAX_LACKS]
    theirs = jax.jit(jax.shard_map(lambda a: {n: v for n, v in body(jlax, a).items() if n in jnames},
                                   mesh=jm, in_specs=JP("x"), out_specs=JP("x"),
                                   check_vma=False))(X[0])
    for name, _, ref in cases(1):
        np.testing.assert_allclose(sm[name], vm[name], rtol=1e-6, atol=1e-6, err_msg=name)
        np.testing.assert_allclose(sm[name], ref(X), rtol=1e-6, atol=1e-6, err_msg=name)
        if name in jnames:
            assert_same(sm[name], theirs[name], name)
    np.testing.assert_allclose(con, np.sin(xb), rtol=1e-6)
    want = jax.vmap(jax.shard_map(lambda a: a - jlax.pmean(a, "x"), mesh=jm2, in_specs=JP("x"),
                                  out_specs=JP("x")), spmd_axis_name="y")(xb)
    assert_same(mapped, want)


def test_arrays_and_shardings_on_one_device(monkeypatch):
    m = fe.make_mesh((1,), ("x",))
    s = NamedSharding(m, P("x"))
    a = fe.device_put(np.arange(4.0, dtype=np.float32), s)
    assert a.sharding == s and a.shape == (4,) and a.device == fe.devices()[0]
    assert [sh.index for sh in a.addressable_shards] == [(slice(None),)]
    assert s == NamedSharding(m, P(("x",))) and s != NamedSharding(m, P("x", None))
    assert repr(P("x", None)) == "P('x', None)" and hash(P(("x",))) == hash(P("x"))
    assert fe.jit(lambda v: v * 2, in_shardings=s, out_shardings=s)(np.ones(4, np.float32)).sharding == s
    assert fe.process_index() == 0 and fe.process_count() == 1
    assert fe.local_devices() == fe.devices()
    # eager shard_map: the body traced again is the same graph, so one compile serves each call
    sm = fe.shard_map(lambda v: lax.psum(v * 3, "x"), mesh=m, in_specs=P("x"), out_specs=P())
    compiles = []
    orig = backend.compile_graph
    monkeypatch.setattr(backend, "compile_graph", lambda *a, **k: compiles.append(1) or orig(*a, **k))
    for k in range(3):
        np.testing.assert_allclose(sm(np.full(5, k, np.float32)), np.full(5, 3 * k))
    assert len(compiles) == 1


def error_of(fn):
    """(the exception's type name, its text without JAX's traceback note) of ``fn()``."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e).split("\n--------------------")[0]
    return None, "no error"


def test_errors_worded_like_jax_on_one_device():
    """A spec longer than the rank (device_put, jit in/out, the constraint, shard_map in/out),
    an unknown or repeated mesh axis: JAX's exception type and text, word for word (the
    errors that need an axis of size > 1 are compared in tests/spmd_cases.py)."""
    devs = np.array(fe.devices()[:1])
    m, jm = Mesh(devs, ("x",)), JMesh(devs, ("x",))
    v = np.ones(4, np.float32)

    def ours_theirs(spec):
        return NamedSharding(m, P(*spec)), jax.sharding.NamedSharding(jm, JP(*spec))

    def pair(build):
        return build(fe, lax, P, lambda spec: ours_theirs(spec)[0], m), \
            build(jax, jlax, JP, lambda spec: ours_theirs(spec)[1], jm)

    builds = [
        lambda F, L, S, N, M: lambda: N(("z",)),
        lambda F, L, S, N, M: lambda: N(("x", "x")),
        lambda F, L, S, N, M: lambda: F.device_put(v, N(("x", None))),
        lambda F, L, S, N, M: lambda: F.jit(lambda a: a, in_shardings=N((None, "x")))(v),
        lambda F, L, S, N, M: lambda: F.jit(lambda a: a.sum(), out_shardings=N(("x",)))(v),
        lambda F, L, S, N, M: lambda: F.jit(lambda a: L.with_sharding_constraint(
            a, N(("x", None))))(v),
        lambda F, L, S, N, M: lambda: F.shard_map(lambda a: a, mesh=M, in_specs=S("z"),
                                                  out_specs=S("x"))(v),
        lambda F, L, S, N, M: lambda: F.shard_map(lambda a: a, mesh=M, in_specs=S("x", None),
                                                  out_specs=S("x"))(v),
        lambda F, L, S, N, M: lambda: F.shard_map(lambda a: a, mesh=M, in_specs=S("x"),
                                                  out_specs=S("x", None))(v),
    ]
    for k, build in enumerate(builds):
        ours, theirs = (error_of(fn) for fn in pair(build))
        assert ours[0] is not None and ours == theirs, (k, ours, theirs)


def test_gradients_of_shard_map_and_constraints_on_one_device():
    """grad and jvp through a shard_map with psum (a replicated and a sharded operand), a
    sharding constraint, a jit with shardings, and grad inside a shard_map body
    (check_vma=False), equal to JAX's (8 devices: tests/spmd_cases.py)."""
    devs = np.array(fe.devices()[:1])
    m, jm = Mesh(devs, ("x",)), JMesh(devs, ("x",))
    w, x = RNG.normal(size=(3,)).astype(np.float32), RNG.normal(size=(8, 3)).astype(np.float32)

    def make(S, L, N, P_, mesh, named):
        sm = S(lambda w, x: (L.psum(N.sum(N.tanh(x @ w) ** 2), "x"), N.sin(x) * w),
               mesh=mesh, in_specs=(P_(), P_("x")), out_specs=(P_(), P_("x")))

        def f(w, x):
            t, y = sm(w, x)
            return t + N.sum(L.with_sharding_constraint(y * y, named(mesh, P_("x"))))
        return f

    ours = make(fe.shard_map, lax, fnp, P, m, NamedSharding)
    theirs = make(jax.shard_map, jlax, jax.numpy, JP, jm, jax.sharding.NamedSharding)
    s = (NamedSharding(m, P()), NamedSharding(m, P("x")))
    js = (jax.sharding.NamedSharding(jm, JP()), jax.sharding.NamedSharding(jm, JP("x")))
    sj = fe.jit(lambda w, x: fnp.sum(fnp.tanh(x @ w)), in_shardings=s)
    jj = jax.jit(lambda w, x: jax.numpy.sum(jax.numpy.tanh(x @ w)), in_shardings=js)
    tw, tx = RNG.normal(size=w.shape).astype(np.float32), RNG.normal(size=x.shape).astype(np.float32)

    def inside(S, F, L, N, P_, mesh):  # derivatives per device (check_vma=False), then psum
        return S(lambda w, x: L.psum(F.grad(lambda w: N.sum(N.tanh(x @ w) ** 2))(w), "x"),
                 mesh=mesh, in_specs=(P_(), P_("x")), out_specs=P_(), check_vma=False)

    def program(F, f, j, g):  # one compiled program each
        return lambda w, x, tw, tx: (F.grad(f, argnums=(0, 1))(w, x), F.jvp(f, (w, x), (tw, tx)),
                                     F.grad(j, argnums=(0, 1))(w, x), g(w, x))

    assert_same(fe.jit(program(fe, ours, sj, inside(fe.shard_map, fe, lax, fnp, P, m)))(w, x, tw, tx),
                jax.jit(program(jax, theirs, jj, inside(jax.shard_map, jax, jlax, jax.numpy, JP, jm)))(
                    w, x, tw, tx))
