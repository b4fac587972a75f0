"""Ragged batches (frontend.ragged): each supported operation under a vmap over a ragged batch
equals the per-example loop in JAX (lengths including 0 and 1, the ragged axis first and not
first), under jit and grad; the unsupported ones raise RaggedError naming the primitive."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fuzz import ragged as ragged_fuzz

import frontend as fe
import frontend.numpy as fnp
from frontend import lax, nn
from frontend.ragged import RaggedError

LENGTHS = [3, 0, 1, 5, 2]
NONEMPTY = [3, 1, 1, 5, 2]
W = np.linspace(-1, 1, 12).astype(np.float32).reshape(3, 4)


def _examples(lengths, axis, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for n in lengths:
        shape = [3]
        shape.insert(axis, n)
        out.append(rng.normal(size=shape).astype(np.float32))
    return out


def _ragged_rnn(m, lax_, x):
    def step(h, xt):
        h = m.tanh(h * 0.5 + xt)
        return h, h * 2
    return lax_.scan(step, m.zeros(3, np.float32), x)


# name -> (f(m, nn, x, a) with m the numpy module, a the ragged axis of the example;
#          needs non-empty examples, differentiable)
OPS = {
    "sum": (lambda m, n, x, a: m.sum(x, a), False, True),
    "sum_all": (lambda m, n, x, a: m.sum(x), False, True),
    "mean": (lambda m, n, x, a: m.mean(x, a), True, True),
    "max": (lambda m, n, x, a: m.max(x, a), True, True),
    "min": (lambda m, n, x, a: m.min(x, axis=a), True, True),
    "prod": (lambda m, n, x, a: m.prod(x, a), False, True),
    "argmax": (lambda m, n, x, a: m.argmax(x, a), True, False),
    "argmin": (lambda m, n, x, a: m.argmin(x, a), True, False),
    "logsumexp": (lambda m, n, x, a: n.logsumexp(x, a), False, True),
    "var": (lambda m, n, x, a: m.var(x, a), True, True),
    "std": (lambda m, n, x, a: m.std(x, a), True, True),
    "any": (lambda m, n, x, a: m.any(x > 1.0, a), False, False),
    "all": (lambda m, n, x, a: m.all(x > -1.0, a), False, False),
    "softmax": (lambda m, n, x, a: n.softmax(x, axis=a), False, True),
    "log_softmax": (lambda m, n, x, a: n.log_softmax(x, axis=a), False, True),
    "cumsum": (lambda m, n, x, a: m.cumsum(x, a), False, True),
    "cumsum_reverse": (lambda m, n, x, a: (lax if m is fnp else jax.lax).cumsum(x, a, reverse=True),
                       False, True),
    "cummax_reverse": (lambda m, n, x, a: (lax if m is fnp else jax.lax).cummax(x, a, reverse=True),
                       False, False),
    "cumprod": (lambda m, n, x, a: m.cumprod(x, a), False, True),
    "elementwise": (lambda m, n, x, a: m.tanh(x) * 2 + m.exp(-x), False, True),
    "dense_axis_sum": (lambda m, n, x, a: m.sum(m.sin(x), 1 - a), False, True),
    "contract": (lambda m, n, x, a: m.tensordot(x, x, axes=([a], [a])), False, True),
    "einsum": (lambda m, n, x, a: m.einsum("tc,td->cd" if a == 0 else "ct,dt->cd", x, x), False, True),
    "matmul_other_axis": (lambda m, n, x, a: (x.T @ W if a == 1 else x @ W), False, True),
    "last": (lambda m, n, x, a: x[-1] if a == 0 else x[:, -1], True, True),
    "second_last": (lambda m, n, x, a: x[-2] if a == 0 else x[:, -2], None, True),
    "first": (lambda m, n, x, a: x[0] if a == 0 else x[:, 0], True, True),
    "attention": (lambda m, n, x, a: (lambda s: n.softmax(s @ s.T, axis=-1) @ s)(x if a == 0 else x.T),
                  False, True),
    "relu_mean": (lambda m, n, x, a: m.mean(n.relu(x), a), True, True),

    "reshape_keep": (lambda m, n, x, a: m.sum(x.reshape(x.shape + (1,)), a), False, True),
    "transpose": (lambda m, n, x, a: m.sum(x.T * 2, 1 - a), False, True),
}


EAGER = {"mean", "softmax", "last", "attention"}


def _lengths(need):
    if need is None:
        return [3, 2, 2, 5, 2]
    return NONEMPTY if need else LENGTHS


def _loop(f, xs, axis):
    """JAX on each example (jitted: one program per example length, not one per operation)."""
    one = jax.jit(lambda x: f(jnp, jax.nn, x, axis))
    return [np.asarray(one(x)) for x in xs]


def _check(got, want, lengths, axis):
    if isinstance(got, fe.ragged.Ragged):
        assert got.lengths.tolist() == list(lengths)
        got = [np.asarray(g) for g in got.unstack()]
    else:
        got = list(np.asarray(got))
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5)


# the ragged axis second (axis 1): a few ops by default (one rule per op serves both axes),
# every op with -m slow
AXIS1_DEFAULT = {"mean", "max", "softmax", "attention", "contract", "last", "cumprod"}


@pytest.mark.parametrize("name,axis", [(n, 0) for n in sorted(OPS)] + [
    (n, 1) if n in AXIS1_DEFAULT else pytest.param(n, 1, marks=pytest.mark.slow)
    for n in sorted(OPS)])
def test_op_matches_loop(name, axis):
    f, need, _ = OPS[name]
    lengths = _lengths(need)
    xs = _examples(lengths, axis)
    r = fe.ragged.stack(xs, axis=axis)
    g = lambda x: f(fnp, nn, x, axis)  # noqa: E731
    want = _loop(f, xs, axis)
    if name in EAGER:  # (eager: one program per primitive; the rest run under jit only)
        _check(fe.vmap(g)(r), want, lengths, axis)
    _check(fe.jit(fe.vmap(g))(r), want, lengths, axis)


# the default run differentiates these; -m slow all of them
GRAD_DEFAULT = {"mean", "max", "softmax", "attention", "contract", "last", "cumprod", "var"}


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("name", [n if n in GRAD_DEFAULT else pytest.param(n, marks=pytest.mark.slow)
                                  for n in sorted(n for n, (_, _, d) in OPS.items() if d)])
def test_op_grad_matches_loop(name, axis):
    """The gradient of the summed results w.r.t. the padded data: each example's own
    gradient on its data, zero on the padding."""
    f, need, _ = OPS[name]
    lengths = _lengths(need)
    xs = _examples(lengths, axis, seed=1)
    r = fe.ragged.stack(xs, axis=axis)

    def loss(data):
        out = fe.vmap(lambda x: f(fnp, nn, x, axis))(fe.ragged.from_padded(data, r.lengths, axis + 1))
        if isinstance(out, fe.ragged.Ragged):
            out = out.to_padded()
        return fnp.sum(out)

    g = np.asarray(fe.jit(fe.grad(loss))(r.data))
    grad_one = jax.jit(jax.grad(lambda x: jnp.sum(f(jnp, jax.nn, x, axis))))
    for b, x in enumerate(xs):
        want = np.asarray(grad_one(x))
        n = lengths[b]
        lane = g[b]
        valid = lane[:n] if axis == 0 else lane[:, :n]
        pad = lane[n:] if axis == 0 else lane[:, n:]
        np.testing.assert_allclose(valid, want, rtol=2e-4, atol=2e-5)
        assert not pad.any(), f"gradient on the padding of example {b}: {pad}"


def test_rnn_scan_stops_at_each_length():
    xs = _examples(LENGTHS, 0, seed=2)
    r = fe.ragged.stack(xs)
    h, ys = fe.jit(fe.vmap(lambda x: _ragged_rnn(fnp, lax, x)))(r)
    assert isinstance(ys, fe.ragged.Ragged)
    for b, x in enumerate(xs):
        wh, wys = _ragged_rnn(jnp, jax.lax, jnp.asarray(x))
        np.testing.assert_allclose(np.asarray(h)[b], wh, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(ys.unstack()[b], wys, rtol=1e-5, atol=1e-6)
    # reverse scan: the lane's steps are its own positions, counted from its end
    hr = fe.vmap(lambda x: lax.scan(lambda c, a: (c * 0.9 + a, c), fnp.zeros(3), x,
                                    reverse=True)[0])(r)
    for b, x in enumerate(xs):
        wr = jax.lax.scan(lambda c, a: (c * 0.9 + a, c), jnp.zeros(3), jnp.asarray(x), reverse=True)[0]
        np.testing.assert_allclose(np.asarray(hr)[b], wr, rtol=1e-5, atol=1e-6)


def test_rnn_grad_wrt_params():
    xs = _examples(NONEMPTY, 0, seed=3)
    r = fe.ragged.stack(xs)
    w0 = np.float32(0.7)

    def step(m, w):
        return lambda h, xt: (m.tanh(h * w + xt), None)

    def loss(w):
        hs = fe.vmap(lambda x: lax.scan(step(fnp, w), fnp.zeros(3), x)[0])(r)
        return fnp.sum(hs)

    def one(w, x):
        return jnp.sum(jax.lax.scan(step(jnp, w), jnp.zeros(3), jnp.asarray(x))[0])

    want = sum(jax.grad(one)(w0, x) for x in xs)
    np.testing.assert_allclose(fe.grad(loss)(w0), want, rtol=1e-4)


def test_traced_index_counts_from_the_lane_end():
    xs = _examples(NONEMPTY, 0, seed=4)
    r = fe.ragged.stack(xs)
    idx = np.array([-1, 0, -1, -3, 1], np.int32)
    got = fe.vmap(lambda x, i: x[i])(r, idx)
    for b, x in enumerate(xs):
        np.testing.assert_allclose(np.asarray(got)[b], x[idx[b]])


def test_length_inside_and_outside():
    xs = _examples(LENGTHS, 0)
    r = fe.ragged.stack(xs)
    np.testing.assert_array_equal(fe.vmap(fe.ragged.length)(r), LENGTHS)
    assert fe.ragged.length(np.ones((4, 2)), 1) == 2  # dense: the size, as in the loop
    # fori_loop up to the lane's own length (a batched bound)
    got = fe.vmap(lambda x: lax.fori_loop(0, fe.ragged.length(x), lambda i, c: c + 1.0, 0.0))(r)
    np.testing.assert_array_equal(got, LENGTHS)


def test_mixed_dense_and_ragged_arguments():
    xs = _examples(LENGTHS, 0)
    r = fe.ragged.stack(xs)
    w = np.arange(3, dtype=np.float32)
    bias = np.arange(5, dtype=np.float32)
    got = fe.vmap(lambda w, x, b: fnp.sum(x * w) + b, in_axes=(None, 0, 0))(w, r, bias)
    np.testing.assert_allclose(got, [np.sum(x * w) + c for x, c in zip(xs, bias, strict=True)], rtol=1e-5)
    # a dict of Ragged and dense leaves, outputs ragged and dense
    out = fe.vmap(lambda d: {"y": d["x"] * 2, "s": fnp.sum(d["x"])})({"x": r})
    assert isinstance(out["y"], fe.ragged.Ragged) and not isinstance(out["s"], fe.ragged.Ragged)
    with pytest.raises(ValueError, match="out_axes must be 0"):
        fe.vmap(lambda x: x, out_axes=1)(r)
    with pytest.raises(ValueError, match="batch axis 0"):
        fe.vmap(lambda x: x, in_axes=1)(r)


def test_nested_vmap():
    xs = _examples(LENGTHS, 0)
    r = fe.ragged.stack(xs)
    ws = np.stack([W, W * 2])  # dense inside ragged: a vmap over weights per example
    got = fe.vmap(lambda x: fe.vmap(lambda w: fnp.mean(x @ w, 0))(ws))(fe.ragged.stack(_examples(NONEMPTY, 0)))
    for b, x in enumerate(_examples(NONEMPTY, 0)):
        np.testing.assert_allclose(np.asarray(got)[b], [np.mean(x @ w, 0) for w in ws], rtol=1e-5, atol=1e-6)
    # ragged inside dense: a vmap over a ragged batch built inside another vmap
    data = np.stack([r.data, r.data * 3])
    got = fe.vmap(lambda d: fe.vmap(fnp.sum)(fe.ragged.from_padded(d, r.lengths)))(data)
    want = [[np.sum(x) * k for x in xs] for k in (1, 3)]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_bucketing_shares_programs():
    a = fe.ragged.stack(_examples([3, 5], 0))
    b = fe.ragged.stack(_examples([6, 7, 2], 0))
    assert a.shape[1] == b.shape[1] == 8
    traces = []

    def g(x):
        traces.append(1)
        return fnp.sum(x, 0)

    f = fe.jit(fe.vmap(g))
    for lengths in ([3, 5], [6, 7], [8, 1]):  # three longest lengths, one padded length
        xs = _examples(lengths, 0)
        np.testing.assert_allclose(f(fe.ragged.stack(xs)), [x.sum(0) for x in xs], rtol=1e-5, atol=1e-6)
    assert len(traces) == 1
    text = f.lower(a).as_text()
    assert "stablehlo.select" in text and "stablehlo.while" not in text
    fe.config.update("ragged_bucket", "exact")
    try:
        assert fe.ragged.stack(_examples([3, 5], 0)).shape[1] == 5
        fe.config.update("ragged_bucket", 4)
        assert fe.ragged.stack(_examples([3, 5], 0)).shape[1] == 8
        with pytest.raises(ValueError, match="ragged_bucket"):
            fe.config.update("ragged_bucket", 0)
    finally:
        fe.config.update("ragged_bucket", "pow2")


def test_ragged_value():
    xs = _examples(LENGTHS, 1)
    r = fe.ragged.stack(xs, axis=1)
    assert r.shape == (5, 3, 8) and r.axes == (2,)
    for x, u in zip(xs, r.unstack(), strict=True):
        np.testing.assert_array_equal(u, x)
    p = np.asarray(r.to_padded(fill=-1.0))
    assert (p[1] == -1).all() and (p[0][:, :3] == xs[0]).all()
    back = fe.ragged.from_padded(r.data, np.asarray(LENGTHS), axis=2)
    assert back.lengths.dtype == np.int32
    leaves, td = fe.tree_util.tree_flatten(r)
    assert len(leaves) == 2 and fe.tree_util.tree_unflatten(td, leaves).axes == (2,)
    with pytest.raises(ValueError, match="every dimension but axis 0"):
        fe.ragged.stack([np.ones((2, 3)), np.ones((2, 4))])
    with pytest.raises(ValueError, match="lengths must be integers"):
        fe.ragged.from_padded(r.data, np.ones(4, np.int32))


UNSUPPORTED = {
    "sort": lambda x: fnp.sort(x, 0),
    "rev": lambda x: fnp.flip(x, 0),
    "slice": lambda x: x[1:],
    "concatenate": lambda x: fnp.concatenate([x, x], 0),
    "scan": lambda x: lax.scan(lambda c, _: (c * 2.0, None), x, None, length=2)[0],
    "while": lambda x: lax.while_loop(lambda c: c[0, 0] < 1.0, lambda c: c + 1.0, x),
    "gather": lambda x: x[np.array([0, 1])],
}


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_unsupported_raises_naming_the_primitive(name):
    r = fe.ragged.stack(_examples(LENGTHS, 0))
    with pytest.raises(RaggedError, match=f"primitive '{name}'"):
        fe.vmap(UNSUPPORTED[name])(r)


def test_different_lengths_refused():
    a = fe.ragged.stack(_examples([1, 2], 0))
    b = fe.ragged.stack(_examples([2, 1], 0))
    with pytest.raises(RaggedError, match="different lengths"):
        fe.vmap(lambda x, y: x + y)(a, b)


def test_dense_vmap_unchanged_after_ragged():
    fe.ragged.stack([np.ones(2)])
    np.testing.assert_allclose(fe.vmap(fnp.sum)(np.ones((3, 4), np.float32)), [4, 4, 4])


@pytest.mark.parametrize("seed", range(3))
def test_fuzz_ragged_programs_sample(seed):
    ragged_fuzz.check(seed)


@pytest.mark.slow
def test_fuzz_ragged_programs_1000():
    for seed in range(1000):
        ragged_fuzz.check(seed)


@pytest.mark.parametrize("k", [1, 2, 8])
def test_batch_size_and_lax_map(k):
    """vmap(batch_size=k) and lax.map(batch_size=k) over a Ragged: chunks of k lanes, each a
    ragged vmap; ragged outputs come back Ragged with the full lengths."""
    xs = _examples(LENGTHS, 0, seed=5)
    r = fe.ragged.stack(xs)
    s, y = fe.jit(fe.vmap(lambda x: (fnp.sum(x, 0), fnp.cumsum(x, 0)), batch_size=k))(r)
    np.testing.assert_allclose(s, [x.sum(0) for x in xs], rtol=1e-5, atol=1e-6)
    assert isinstance(y, fe.ragged.Ragged) and y.lengths.tolist() == LENGTHS
    for got, x in zip(y.unstack(), xs, strict=True):
        np.testing.assert_allclose(got, np.cumsum(x, 0), rtol=1e-5, atol=1e-6)
    got = lax.map(lambda x: fnp.sum(x, 0), r, batch_size=k)
    np.testing.assert_allclose(got, [x.sum(0) for x in xs], rtol=1e-5, atol=1e-6)


def test_custom_jvp_kept_for_elementwise_calls():
    """An elementwise custom_jvp function (nn.relu's kind) keeps its own derivative under a
    ragged vmap; one that reduces over the ragged axis runs its equations' ragged rules."""
    @fe.custom_jvp
    def double(x):
        return x * 2.0

    double.defjvp(lambda p, t: (double(p[0]), t[0] * 3.0))  # (deliberately not 2)

    @fe.custom_jvp
    def total(x):
        return fnp.sum(x, 0)

    total.defjvp(lambda p, t: (total(p[0]), fnp.sum(t[0], 0)))
    xs = _examples(LENGTHS, 0, seed=6)
    r = fe.ragged.stack(xs)
    g = fe.grad(lambda d: fnp.sum(fe.vmap(double)(fe.ragged.from_padded(d, r.lengths)).to_padded()))(r.data)
    for b, n in enumerate(LENGTHS):
        assert (np.asarray(g)[b, :n] == 3.0).all() and not np.asarray(g)[b, n:].any()
    np.testing.assert_allclose(fe.vmap(total)(r), [x.sum(0) for x in xs], rtol=1e-5, atol=1e-6)


def test_loops_reading_a_ragged_value():
    """fori_loop up to the lane's length and scans whose body reads a ragged value it closes
    over: the body's operations go through their ragged rules (masked mean, x[i] clamped
    into the example), as the JAX loop over each example."""
    xs = _examples(NONEMPTY, 0, seed=7)
    r = fe.ragged.stack(xs)

    def rnn(m, lax_, length, x):
        def body(i, h):
            return m.tanh(h * 0.5 + x[i] + m.mean(x, 0))
        return lax_.fori_loop(0, length(x), body, m.zeros(3, np.float32))

    got = fe.jit(fe.vmap(lambda x: rnn(fnp, lax, fe.ragged.length, x)))(r)
    for b, x in enumerate(xs):
        want = rnn(jnp, jax.lax, lambda x: x.shape[0], jnp.asarray(x))
        np.testing.assert_allclose(np.asarray(got)[b], want, rtol=1e-5, atol=1e-6)

    def scan_ctx(m, lax_, x):  # a scan over x whose body also reads all of x
        return lax_.scan(lambda c, xt: (c + xt * m.max(x, 0), None), m.zeros(3, np.float32), x)[0]

    got = fe.vmap(lambda x: scan_ctx(fnp, lax, x))(r)
    for b, x in enumerate(xs):
        np.testing.assert_allclose(np.asarray(got)[b], scan_ctx(jnp, jax.lax, jnp.asarray(x)),
                                   rtol=1e-5, atol=1e-6)
    # a while_loop whose condition reads a ragged sum
    got = fe.vmap(lambda x: lax.while_loop(lambda c: c < fnp.sum(fnp.abs(x)), lambda c: c + 1.0, 0.0))(r)
    np.testing.assert_allclose(got, [np.ceil(np.abs(x).sum()) for x in xs], rtol=1e-6)
