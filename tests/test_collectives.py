"""Named axes and collectives: ``vmap(f, axis_name=...)`` with lax.psum, pmean, pmax, pmin,
all_gather, psum_scatter, all_to_all, ppermute, pshuffle, axis_index and axis_size, against
a numpy reference computed over the stacked lanes (and jax.vmap where JAX supports the
case), with the batch axis anywhere, nested vmaps over two names, tuples of names, inside
loops and branches, under jit, and over no lanes. Each test compiles one program."""
from types import SimpleNamespace

import jax
import numpy as np
import pytest
from harness import RNG, assert_same, stablehlo
from jax import lax as jlax

import frontend as fe
from frontend import lax


def _bc(y, n):
    """Every one of n lanes holds y."""
    return np.broadcast_to(y, (n,) + np.shape(y))


def cases(S):
    """(name, f(lax module, x, axis name), numpy reference on the stacked lanes X) for a
    named axis of S lanes; a lane's x has shape (S, 2S)."""
    ring = [(k, (k + 1) % S) for k in range(S)]
    return [
        ("psum", lambda L, x, N: L.psum(x, N), lambda X: _bc(X.sum(0), S)),
        ("psum_bool", lambda L, x, N: L.psum(x > 0, N),
         lambda X: _bc((X > 0).sum(0).astype(np.int32), S)),
        ("pmean", lambda L, x, N: L.pmean(x, N), lambda X: _bc(X.mean(0), S)),
        ("pmax", lambda L, x, N: L.pmax(x, N), lambda X: _bc(X.max(0, initial=-np.inf), S)),
        ("pmin", lambda L, x, N: L.pmin(x, N), lambda X: _bc(X.min(0, initial=np.inf), S)),
        ("all_gather", lambda L, x, N: L.all_gather(x, N), lambda X: _bc(X, S)),
        ("all_gather_last", lambda L, x, N: L.all_gather(x, N, axis=-1),
         lambda X: _bc(np.moveaxis(X, 0, -1), S)),
        ("all_gather_tiled", lambda L, x, N: L.all_gather(x, N, axis=1, tiled=True),
         lambda X: _bc(X.transpose(1, 0, 2).reshape(S, 2 * S * S), S)),
        ("psum_scatter", lambda L, x, N: L.psum_scatter(x, N), lambda X: X.sum(0)),
        ("psum_scatter_tiled",
         lambda L, x, N: L.psum_scatter(x, N, scatter_dimension=1, tiled=True),
         lambda X: X.sum(0).reshape(S, S, 2).transpose(1, 0, 2)),
        ("all_to_all", lambda L, x, N: L.all_to_all(x, N, 0, 1), lambda X: X.transpose(1, 2, 0)),
        ("all_to_all_same_axis", lambda L, x, N: L.all_to_all(x, N, 0, 0),
         lambda X: X.transpose(1, 0, 2)),
        ("all_to_all_tiled", lambda L, x, N: L.all_to_all(x, N, 1, 0, tiled=True),
         lambda X: X.reshape(S, S, S, 2).transpose(2, 0, 1, 3).reshape(S, S * S, 2)),
        ("ppermute_ring", lambda L, x, N: L.ppermute(x, N, ring), lambda X: np.roll(X, 1, 0)),
        ("ppermute_partial", lambda L, x, N: L.ppermute(x, N, [(0, S - 1)]),
         lambda X: np.concatenate([np.zeros_like(X[:-1]), X[:1]])),
        ("pshuffle", lambda L, x, N: L.pshuffle(x, N, list(range(S))[::-1]), lambda X: X[::-1]),
        ("axis_index", lambda L, x, N: L.axis_index(N), lambda X: np.arange(S, dtype=np.int32)),
        ("axis_size", lambda L, x, N: x * L.axis_size(N), lambda X: X * S),
        ("centered", lambda L, x, N: x - L.pmean(x, N), lambda X: X - X.mean(0)),
    ]


JAX_LACKS = {"ppermute_partial"}  # jax.vmap asserts a full permutation


def _all(L, x, N, S, only=None):
    return {name: f(L, x, N) for name, f, _ in cases(S) if only is None or name in only}


def _lanes(S, lanes=None):
    """Random lanes (``lanes``: their shape, default (S,)) of per-lane shape (S, 2S)."""
    return RNG.normal(size=(lanes or (S,)) + (S, 2 * S)).astype(np.float32)


def test_one_named_axis_vs_numpy_and_jax():
    S = 3
    X = _lanes(S)
    X1 = np.moveaxis(X, 0, 1).copy()  # the lanes on axis 1
    f = lambda x: _all(lax, x, "i", S)  # noqa: E731
    got, got1 = fe.jit(lambda a, b: (fe.vmap(f, axis_name="i")(a),
                                     fe.vmap(f, in_axes=1, out_axes=-1, axis_name="i")(b)))(X, X1)
    for name, _, ref in cases(S):
        want = ref(X)
        np.testing.assert_allclose(got[name], want, rtol=1e-5, atol=1e-5, err_msg=name)
        np.testing.assert_allclose(np.moveaxis(np.asarray(got1[name]), -1, 0), want, rtol=1e-5,
                                   atol=1e-5, err_msg=f"{name}, in_axes=1, out_axes=-1")
    jf = lambda x: _all(jlax, x, "i", S, only={n for n, _, _ in cases(S)} - JAX_LACKS)  # noqa: E731
    theirs = jax.jit(jax.vmap(jf, axis_name="i"))(X)
    assert_same({k: got[k] for k in theirs}, theirs, "vs jax.vmap")


def _nested_ref(ref, X, N):
    """Reference over the lanes of an (i: A, j: B) grid X for the names N: per column for
    'i', per row for 'j', over the combined axis (first name major) for a tuple."""
    A, B = X.shape[:2]
    if N == "i":
        return np.stack([ref(X[:, b]) for b in range(B)], axis=1)
    if N == "j":
        return np.stack([ref(X[a]) for a in range(A)])
    if N == ("j", "i"):
        return np.swapaxes(_nested_ref(ref, np.swapaxes(X, 0, 1), ("i", "j")), 0, 1)
    out = ref(X.reshape((A * B,) + X.shape[2:]))
    return out.reshape((A, B) + out.shape[1:])


NESTED = {"i": 3, "j": 2, ("i", "j"): 6, ("j", "i"): 6}  # names -> combined axis size


def test_nested_vmaps_two_names_and_tuples():
    A, B = 3, 2
    inputs = {N: _lanes(S, (A, B)) for N, S in NESTED.items()}

    def program(*xs):
        return [fe.vmap(fe.vmap(lambda x, N=N, S=S: _all(lax, x, N, S), axis_name="j"),
                        axis_name="i")(x) for (N, S), x in zip(NESTED.items(), xs, strict=True)]

    # on the reference interpreter: the resolved programs are ordinary ops (XLA runs the
    # same rules in the tests above; compiling this large module would take seconds)
    outs = fe.jit(program, device="interpreter")(*inputs.values())
    for (N, S), got in zip(NESTED.items(), outs, strict=True):
        for name, _, ref in cases(S):
            np.testing.assert_allclose(got[name], _nested_ref(ref, inputs[N], N), rtol=1e-5,
                                       atol=1e-5, err_msg=f"{name} over {N}")


def test_outer_name_with_the_inner_batch_axis_last():
    """The inner vmap's batch axis after every per-lane axis: the positional rules shift the
    collective's axes, not the batch axis, and the batch axis moves past an axis that goes."""
    X = RNG.normal(size=(3, 3, 5, 2)).astype(np.float32)  # lanes i: 3; per i (3, 5, j: 2)

    def inner(f):
        return fe.vmap(fe.vmap(f, in_axes=-1, axis_name="j"), axis_name="i")

    got = fe.jit(lambda x: (inner(lambda v: lax.psum_scatter(v, "i"))(x),
                            inner(lambda v: lax.all_gather(v, "i", axis=1))(x),
                            inner(lambda v: lax.all_to_all(v, "i", 0, 1))(x)),
                 device="interpreter")(X)
    lanes = np.moveaxis(X, -1, 1)  # (i, j, 3, 5)
    want = (np.stack([lanes.sum(0)[:, i] for i in range(3)]),
            np.broadcast_to(np.moveaxis(lanes, 0, 2)[None], (3, 2, 3, 3, 5)),
            np.stack([np.stack([lanes[:, j, i].T for j in range(2)]) for i in range(3)]))
    for k, (o, w) in enumerate(zip(got, want, strict=True)):
        np.testing.assert_allclose(o, w, rtol=1e-5, atol=1e-5, err_msg=str(k))


def test_collectives_in_loops_branches_and_jit():
    S = 4
    X = _lanes(S)

    def f(x):
        total, idx = lax.scan(lambda c, r: (c + lax.psum(r, "i"), lax.axis_index("i")),
                              np.zeros(2 * S, np.float32), x)
        bumped = lax.fori_loop(0, 3, lambda k, c: c + lax.axis_index("i"), 0)  # unbatched carry
        picked = lax.cond(x[0, 0] > 0, lambda a: lax.pmax(a, "i"), lambda a: -a, x)
        rounds = lax.while_loop(lambda c: lax.psum(c, "i") < 40, lambda c: c + 1 + lax.axis_index("i"), 0)
        inner = fe.jit(lambda a: a - lax.pmean(a, "i"))(x)
        return total, idx, bumped, picked, rounds, inner

    got = fe.jit(fe.vmap(f, axis_name="i"))(X)
    want = jax.vmap(lambda x: (
        jlax.scan(lambda c, r: (c + jlax.psum(r, "i"), jlax.axis_index("i")),
                  np.zeros(2 * S, np.float32), x),
        jlax.fori_loop(0, 3, lambda k, c: c + jlax.axis_index("i"), 0),
        jlax.cond(x[0, 0] > 0, lambda a: jlax.pmax(a, "i"), lambda a: -a, x),
        jlax.while_loop(lambda c: jlax.psum(c, "i") < 40, lambda c: c + 1 + jlax.axis_index("i"), 0),
        x - jlax.pmean(x, "i")), axis_name="i")(X)
    want = (*want[0], *want[1:])
    for k, (o, t) in enumerate(zip(got, want, strict=True)):
        np.testing.assert_allclose(np.asarray(o), np.asarray(t), rtol=1e-5, atol=1e-5, err_msg=str(k))
    # eagerly too (no jit): the same resolution on the eager trace
    np.testing.assert_allclose(fe.vmap(lambda x: x - lax.pmean(x, "i"), axis_name="i")(X),
                               X - X.mean(0), rtol=1e-5, atol=1e-6)


def test_pmean_is_a_reduction_and_a_broadcast_no_loop():
    text = stablehlo(fe.vmap(lambda x: x - lax.pmean(x, "i"), axis_name="i"), _lanes(3))
    assert "stablehlo.reduce" in text
    assert "stablehlo.while" not in text and "custom_call" not in text
    graph = str(fe.make_graph(fe.vmap(lambda x: lax.ppermute(x, "i", [(0, 1), (1, 2), (2, 0)]),
                                      axis_name="i"))(_lanes(3)))
    assert "gather" in graph and "scan" not in graph and "while" not in graph


def test_zero_lanes():
    X = np.zeros((0, 0, 0), np.float32)

    def f(x):
        return (lax.psum(x, "i"), lax.pmax(x, "i"), lax.all_gather(x, "i"),
                lax.all_gather(x, "i", axis=1, tiled=True), lax.psum_scatter(x, "i"),
                lax.psum_scatter(x, "i", scatter_dimension=1, tiled=True),
                lax.all_to_all(x, "i", 0, 1), lax.all_to_all(x, "i", 1, 0, tiled=True),
                lax.ppermute(x, "i", []), lax.axis_index("i"))

    got = fe.jit(fe.vmap(f, axis_name="i"))(X)
    shapes = [(0, 0, 0), (0, 0, 0), (0, 0, 0, 0), (0, 0, 0), (0, 0), (0, 0, 0), (0, 0, 0),
              (0, 0, 0), (0, 0, 0), (0,)]
    assert [np.shape(g) for g in got] == shapes


def test_pytrees_constants_and_sizes():
    X = _lanes(3)

    def f(x):
        tree = lax.psum({"a": x, "b": (x[0], 2 * x)}, "i")
        return tree, lax.psum(1, "i"), lax.axis_size("i"), lax.psum(np.ones(2, np.int8), "i")

    tree, one, size, const = fe.vmap(f, axis_name="i", out_axes=None)(X)
    np.testing.assert_allclose(tree["b"][1], 2 * X.sum(0), rtol=1e-5)
    assert one == 3 and type(one) is int and size == 3 and type(size) is int
    assert const.dtype == np.int8 and (np.asarray(const) == 3).all()
    # axis_size with no mapped argument, and an outer name seen through an inner vmap
    out = fe.vmap(lambda: lax.axis_index("k") * 10, in_axes=(), axis_name="k", axis_size=4)()
    np.testing.assert_array_equal(out, [0, 10, 20, 30])
    same = fe.vmap(lambda x: lax.axis_index("i"), axis_name="i")(X[:, 0, 0])  # shadowed below
    inner = fe.vmap(fe.vmap(lambda x: lax.axis_index("i"), axis_name="i"), axis_name="i")(X[:, :2, 0])
    np.testing.assert_array_equal(same, [0, 1, 2])
    np.testing.assert_array_equal(inner, np.tile([0, 1], (3, 1)))  # the innermost binds "i"


def test_unbound_names_are_name_errors():
    x = np.ones(3, np.float32)
    msg = r"unbound axis name: j"
    with pytest.raises(NameError, match=msg):
        fe.vmap(lambda v: lax.psum(v, "j"), axis_name="i")(x)
    with pytest.raises(NameError, match=msg):
        fe.jit(lambda v: lax.all_gather(v, "j"))(x)
    with pytest.raises(NameError, match=msg):
        lax.axis_index("j")
    with pytest.raises(NameError, match=msg):
        lax.psum(1.0, "j")
    with pytest.raises(NameError, match=msg):
        fe.vmap(lambda v: lax.psum(v, ("i", "j")), axis_name="i")(x)
    with pytest.raises(NameError, match=msg):
        fe.vmap(lambda v: lax.pmax(v, "j"))(x)  # an unnamed vmap binds no name
    with pytest.raises(ValueError, match="batch_size cannot be combined with axis_name"):
        fe.vmap(lambda v: v, axis_name="i", batch_size=2)



# ----------------------------------------------------------------------------- autodiff

# every case's float result, made nonlinear before the collective: per lane, its jvp and its
# vjp under vmap(axis_name='i') (the collectives' jvp and transpose rules), vs jax.vmap of
# jax.jvp / jax.vjp. JAX 0.10.2 has no rule for pmax/pmin: their reference is the max of the
# gathered lanes, whose derivative (reduce_max's) is what ours gives.
AD_SKIP = {"psum_bool", "axis_index"}  # integer results
# jax.vmap's vjp of an untiled all_to_all with split_axis != concat_axis fails in JAX 0.10.2
# (its transpose gives the cotangent with the unit axis at the wrong place)
AD_JAX_LACKS = JAX_LACKS | {"all_to_all"}


def _ad_cases(S):
    out = [(n, f) for n, f, _ in cases(S) if n not in AD_SKIP]
    out.append(("axis_index_times", lambda L, x, N: x * L.axis_index(N)))
    return out


def _jax_case(name, f):
    if name in ("pmax", "pmin"):
        red = jax.numpy.max if name == "pmax" else jax.numpy.min
        return lambda L, x, N: red(L.all_gather(x, N), axis=0)
    return f


def _ad_program(L, jvp, vjp, S, cases_):
    def per_lane(x, t, cts):
        out = {}
        for name, f in cases_:
            def g(x, f=f):
                return f(L, x * x + x, "i")
            y, ty = jvp(g, (x,), (t,))
            out[name] = (y, ty, vjp(g, x)[1](cts[name])[0])
        return out
    return per_lane


def test_autodiff_under_named_vmap_vs_jax():
    S = 4
    X, T = _lanes(S), _lanes(S)
    names = [n for n, _ in _ad_cases(S) if n not in AD_JAX_LACKS]
    jcases = [(n, _jax_case(n, f)) for n, f in _ad_cases(S) if n in names]
    shapes = jax.eval_shape(jax.vmap(lambda x: {n: f(jlax, x, "i") for n, f in jcases},
                                     axis_name="i"), X)
    cts = {n: RNG.normal(size=s.shape).astype(np.float32) for n, s in shapes.items()}
    theirs = jax.jit(jax.vmap(_ad_program(jlax, jax.jvp, jax.vjp, S, jcases),
                              axis_name="i"))(X, T, cts)
    ours_cases = [(n, f) for n, f in _ad_cases(S) if n in names]
    ours = fe.jit(fe.vmap(_ad_program(lax, fe.jvp, fe.vjp, S, ours_cases), axis_name="i"))(X, T, cts)
    assert_same(ours, theirs, "jvp/vjp under vmap(axis_name='i')")
    # the cases JAX cannot do: the vjp is the transpose of the jvp, <ct, J t> == <J^T ct, t>
    # over all lanes
    part = [(n, f) for n, f in _ad_cases(S) if n in AD_JAX_LACKS]
    refs = {n: ref for n, _, ref in cases(S)}
    pc = {n: RNG.normal(size=refs[n](X).shape).astype(np.float32) for n, _ in part}
    got = fe.jit(fe.vmap(_ad_program(lax, fe.jvp, fe.vjp, S, part), axis_name="i"))(X, T, pc)
    for n, _ in part:
        _, ty, vj = (np.asarray(v, np.float64) for v in got[n])
        np.testing.assert_allclose(np.sum(pc[n] * ty), np.sum(vj * T), rtol=1e-5, err_msg=n)


def test_grad_through_loops_branches_and_custom_rules_with_collectives():
    """vmap(grad) over a named axis of a scan, a cond, a checkpoint and a custom_jvp rule
    holding collectives: their linear halves hold the collectives too, and are batched over
    the name (vs jax.vmap(jax.grad))."""
    X = RNG.normal(size=(4, 3)).astype(np.float32)

    def model(M, L, checkpoint, custom_jvp):
        @custom_jvp
        def h(y):
            return L.psum(y * y, "i") * y

        h.defjvp(lambda p, t: (h(p[0]), L.psum(2 * p[0] * t[0], "i") * p[0]
                               + L.psum(p[0] * p[0], "i") * t[0]))

        def f(x):
            c, ys = L.scan(lambda c, r: (M.tanh(c * L.psum(r, "i") + L.pmean(c, "i")), c * r),
                           x[0], x)
            c2 = L.cond(M.sum(x) > 0, lambda a: L.psum(a * a, "i"), lambda a: a, c)
            c3 = checkpoint(lambda a: L.pmax(M.sin(a), "i") * a)(x[1])
            return M.sum(ys) + M.sum(c2) + M.sum(c3 * h(x[2]))
        return f

    got = fe.jit(fe.vmap(fe.grad(model(fe.numpy, lax, fe.checkpoint, fe.custom_jvp)),
                         axis_name="i"))(X)
    # JAX has no pmax rule: the max of the gathered lanes is its reference
    jl = SimpleNamespace(psum=jlax.psum, pmean=jlax.pmean, scan=jlax.scan, cond=jlax.cond,
                         pmax=lambda v, n: jax.numpy.max(jlax.all_gather(v, n), axis=0))
    want = jax.jit(jax.vmap(jax.grad(model(jax.numpy, jl, jax.checkpoint, jax.custom_jvp)),
                            axis_name="i"))(X)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)
