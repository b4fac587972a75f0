"""vmap of cond/switch with a batched predicate: guarded branches (a branch runs only when
some lane takes it), the cost model and ``config.vmap_cond``, lane masks that stop a loop in
an untaken branch (JAX issue 2947), and derivatives of the guarded form. Values against
jax.vmap and the per-example loop on mixed, all-true and all-false batches."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from harness import assert_same, loop_reference, rand, stablehlo

import frontend as fe
import frontend.numpy as fnp
from frontend import lax
from frontend.core.config import config

OURS = (lax, fnp)
JAX = (jax.lax, jnp)
RNG = np.random.default_rng(29)
W = (rand((4, 4), rng=RNG) / 4).astype(np.float32)


# (select mode is JAX's way, kept from before: its rows run with -m slow)
@pytest.fixture(params=["auto", "guarded", pytest.param("select", marks=pytest.mark.slow)])
def mode(request):
    old = config.vmap_cond
    fe.config.update("vmap_cond", request.param)
    yield request.param
    fe.config.update("vmap_cond", old)


@pytest.fixture
def guarded():
    old = config.vmap_cond
    fe.config.update("vmap_cond", "guarded")
    yield
    fe.config.update("vmap_cond", old)


# ----------------------------------------------------------------------------- programs
# make(L, N) -> f(p, x): p a bool (or an int for switch), x f32[4]


def expensive(L, N):
    return lambda x: N.tanh(N.dot(W, N.dot(W, x))) + 1.0


def halving(L, N):
    # a loop that ends on every lane (so that JAX, which runs it on every lane, ends too)
    return lambda x: L.while_loop(lambda y: N.abs(y).sum() > 0.1, lambda y: y * 0.5, x)


def cond_dot(L, N):
    return lambda p, x: L.cond(p, expensive(L, N), lambda x: x * 2.0, x)


def cond_loop(L, N):
    return lambda p, x: L.cond(p, lambda x: x - 1.0, halving(L, N), x)


def cond_pytree(L, N):
    # two outputs, one an operand returned as it is by both branches
    return lambda p, x: L.cond(p, lambda x, y: (expensive(L, N)(x), y),
                               lambda x, y: (N.sin(x), y), x, x[0])


def switch_three(L, N):
    return lambda i, x: L.switch(i, [expensive(L, N), halving(L, N), lambda x: -x], x)


def nested(L, N):
    def f(p, x):
        inner = lambda x: L.cond(x[0] > 0, expensive(L, N), halving(L, N), x)  # noqa: E731
        return L.cond(p, inner, lambda x: x + 3.0, x)
    return f


def in_scan(L, N):
    def f(p, x):
        def body(c, k):
            c = L.cond(p ^ (k % 2 == 0), expensive(L, N), lambda c: c * 0.5, c)
            return c, c.sum()
        return L.scan(body, x, N.arange(3))
    return f


def in_while(L, N):
    def f(p, x):
        def body(c):
            k, y = c
            return k + 1, L.cond(p, expensive(L, N), lambda y: y - 0.25, y)
        return L.while_loop(lambda c: c[0] < 3, body, (0, x))[1]
    return f


PROGRAMS = {f.__name__: f for f in (cond_dot, cond_loop, cond_pytree, switch_three, nested,
                                    in_scan, in_while)}
B = 5
BATCHES = {
    "mixed": np.array([True, False, True, True, False]),
    "all_true": np.ones(B, bool),
    "all_false": np.zeros(B, bool),
}
SWITCH_BATCHES = {"mixed": np.array([0, 2, 1, 0, 7], np.int32), "all_true": np.zeros(B, np.int32),
                  "all_false": np.full(B, 2, np.int32)}


def _batch(name, which):
    p = (SWITCH_BATCHES if name == "switch_three" else BATCHES)[which]
    return p, rand((B, 4), rng=RNG)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_values_equal_jax_and_the_loop(name, mode, request):
    if mode == "guarded" and request.config.getoption("-m") != "slow":
        pytest.skip("forced guarded mode: -m slow (auto mode guards these programs' branches)")
    ours, theirs = PROGRAMS[name](*OURS), PROGRAMS[name](*JAX)
    mine, jaxs = fe.jit(fe.vmap(ours)), jax.jit(jax.vmap(theirs))  # one compile per program
    for which in BATCHES:
        p, x = _batch(name, which)
        ref = loop_reference(ours, [p, x], (0, 0))
        got = mine(p, x)
        assert_same(got, ref, f"jit(vmap) vs loop, {which}")
        assert_same(got, jaxs(p, x), f"vs jax.vmap, {which}")
        if which == "mixed":
            assert_same(fe.vmap(ours)(p, x), ref, "eager vmap vs loop")


@pytest.mark.parametrize("name", ["cond_dot", "switch_three", "nested"])
def test_nested_vmap(name, guarded):
    ours, theirs = PROGRAMS[name](*OURS), PROGRAMS[name](*JAX)
    p = np.stack([_batch(name, w)[0] for w in ("mixed", "all_true", "all_false")])
    x = rand((3, B, 4), rng=RNG)
    got = fe.jit(fe.vmap(fe.vmap(ours)))(p, x)
    assert_same(got, jax.vmap(jax.vmap(theirs))(p, x), "nested vmap vs jax")
    # the inner axis batched only in x: the outer vmap batches a guard made by the inner one
    got = fe.jit(fe.vmap(fe.vmap(ours, in_axes=(None, 0)), in_axes=(0, 1)))(p[0], x)
    assert_same(got, jax.vmap(jax.vmap(theirs, in_axes=(None, 0)), in_axes=(0, 1))(p[0], x))


# ----------------------------------------------------------------------------- derivatives


def sqrt_or_id(L, N):
    # the untaken branch has a nan derivative on the other branch's lanes (x < 0): JAX's
    # grad stays finite, and so must ours
    return lambda p, x: L.cond(p, lambda x: N.sqrt(x).sum() + N.dot(W, x).sum(),
                               lambda x: (x * x).sum(), x)


@pytest.mark.parametrize("make", [sqrt_or_id, lambda L, N: lambda p, x: cond_dot(L, N)(p, x).sum()],
                         ids=["sqrt_or_id", "cond_dot"])
def test_gradients(make, mode):
    ours, theirs = make(*OURS), make(*JAX)
    tot = lambda f, V: lambda p, x: V(f)(p, x).sum()  # noqa: E731
    g_ours, g_jax = fe.jit(fe.grad(tot(ours, fe.vmap), argnums=1)), jax.jit(jax.grad(tot(theirs, jax.vmap), argnums=1))
    vg_ours = fe.jit(fe.vmap(fe.grad(ours, argnums=1)))
    vg_jax = jax.jit(jax.vmap(jax.grad(theirs, argnums=1)))
    for which, p in BATCHES.items():
        x = np.where(p[:, None], np.abs(rand((B, 4), rng=RNG)) + 0.5, -np.abs(rand((B, 4), rng=RNG)))
        x = x.astype(np.float32)
        g = g_ours(p, x)
        assert np.isfinite(np.asarray(g)).all()
        assert_same(g, g_jax(p, x), f"grad(vmap), {which}")
        assert_same(vg_ours(p, x), vg_jax(p, x), f"vmap(grad), {which}")
    t = rand((B, 4), rng=RNG)
    po, to = fe.jvp(lambda x: fe.vmap(ours)(p, x), (x,), (t,))
    pj, tj = jax.jvp(lambda x: jax.vmap(theirs)(p, x), (x,), (t,))
    assert_same(po, pj, "jvp primal")
    assert_same(to, tj, "jvp tangent")
    _, f_lin = fe.linearize(lambda x: fe.vmap(ours)(p, x), x)
    assert_same(f_lin(t), tj, "linearize")


# ----------------------------------------------------------------------------- what runs


def _conditionals(text: str) -> int:
    return text.count('"stablehlo.if"') + text.count('"stablehlo.case"')


def test_the_guard_is_in_the_stablehlo():
    p, x = _batch("cond_dot", "mixed")
    cheap = lambda p, x: lax.cond(p, lambda x: x + 1.0, lambda x: x * 2.0, x)  # noqa: E731
    old = config.vmap_cond
    try:
        # auto: the branch with dots is guarded, the cheap one runs on every lane
        assert _conditionals(stablehlo(fe.vmap(cond_dot(*OURS)), p, x)) == 1
        assert _conditionals(stablehlo(fe.vmap(cheap), p, x)) == 0
        # a switch: a guard for the dot branch and one for the loop branch
        i, _ = _batch("switch_three", "mixed")
        assert _conditionals(stablehlo(fe.vmap(switch_three(*OURS)), i, x)) == 2
        fe.config.update("vmap_cond", "guarded")
        assert _conditionals(stablehlo(fe.vmap(cheap), p, x)) == 2
        fe.config.update("vmap_cond", "select")
        assert _conditionals(stablehlo(fe.vmap(cond_dot(*OURS)), p, x)) == 0
        # an unbatched predicate stays one conditional whatever the mode
        assert _conditionals(stablehlo(fe.vmap(cond_dot(*OURS), in_axes=(None, 0)), True, x)) == 1
    finally:
        fe.config.update("vmap_cond", old)


def test_switching_the_mode_reaches_a_jitted_function():
    p, x = _batch("cond_dot", "mixed")
    f = fe.jit(fe.vmap(cond_dot(*OURS)))
    old = config.vmap_cond
    try:
        fe.config.update("vmap_cond", "select")
        a = f.lower(p, x).as_text()
        f(p, x)
        fe.config.update("vmap_cond", "guarded")
        b = f.lower(p, x).as_text()
        assert _conditionals(a) == 0 and _conditionals(b) == 2
        assert_same(f(p, x), loop_reference(cond_dot(*OURS), [p, x], (0, 0)))
    finally:
        fe.config.update("vmap_cond", old)


def test_make_graph_prints_the_guard():
    p, x = _batch("cond_dot", "mixed")
    text = str(fe.make_graph(fe.vmap(cond_dot(*OURS)))(p, x))
    assert "reduce_or[axes=(0,)]" in text and "cond[branches=(" in text and "dot_general" in text


def test_lane_mask_reaches_the_loop():
    # the loop inside the branch ands its batched predicate with the branch's lanes
    p, x = _batch("cond_loop", "mixed")
    text = str(fe.make_graph(fe.vmap(cond_loop(*OURS)))(p, x))
    loop = text[text.index("while["):]
    assert " and " in loop[:loop.index("cond_nconsts")]


def test_bad_mode():
    with pytest.raises(ValueError, match="vmap_cond must be one of 'auto', 'select', 'guarded'"):
        fe.config.update("vmap_cond", "fast")
    assert config.vmap_cond in ("auto", "select", "guarded")


# ----------------------------------------------------------------------------- compaction


def lane_steps(L, N):
    # n steps of a body with a dot: the lanes' trip counts differ
    return lambda x, n: L.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, N.tanh(N.dot(W, c[1]))),
                                     (0, x))[1]


def test_while_compacts_its_active_lanes():
    ours, theirs = lane_steps(*OURS), lane_steps(*JAX)
    n = np.array([1, 2, 9, 1, 3, 0, 2, 1, 1, 12, 2, 1, 3, 1, 2, 5], np.int32)  # 16 lanes
    x = rand((16, 4), rng=RNG)
    ref = loop_reference(ours, [x, n], (0, 0))
    expected = jax.jit(jax.vmap(theirs))(x, n)
    text = stablehlo(fe.vmap(ours), x, n)  # the loop over all lanes, then over 4 of them
    assert text.count('"stablehlo.while"') == 2 and "stablehlo.scatter" in text
    assert_same(fe.jit(fe.vmap(ours))(x, n), ref, "jit(vmap) vs loop")
    assert_same(fe.jit(fe.vmap(ours))(x, n), expected, "vs jax")
    assert_same(fe.vmap(ours)(x, n), ref, "eager vmap vs loop")
    for m in (np.zeros(16, np.int32), np.full(16, 3, np.int32)):  # no lane, or all at once
        assert_same(fe.jit(fe.vmap(ours))(x, m), jax.jit(jax.vmap(theirs))(x, m))
    # the batch axis elsewhere, nested vmap, jvp
    assert_same(fe.jit(fe.vmap(ours, in_axes=(1, 0)))(x.T, n), expected, "in_axes=1")
    x2, n2 = rand((2, 16, 4), rng=RNG), np.stack([n, n[::-1]])
    assert_same(fe.jit(fe.vmap(fe.vmap(ours)))(x2, n2), jax.vmap(jax.vmap(theirs))(x2, n2))
    t = rand((16, 4), rng=RNG)
    got = fe.jvp(lambda x: fe.vmap(ours)(x, n), (x,), (t,))
    want = jax.jvp(lambda x: jax.vmap(theirs)(x, n), (x,), (t,))
    assert_same(got[0], want[0], "jvp primal")
    assert_same(got[1], want[1], "jvp tangent")
    old = config.vmap_cond
    try:
        fe.config.update("vmap_cond", "select")  # JAX's way: every lane stepped to the end
        assert stablehlo(fe.vmap(ours), x, n).count('"stablehlo.while"') == 1
    finally:
        fe.config.update("vmap_cond", old)


# ----------------------------------------------------------------------------- JAX issue 2947

ISSUE_2947 = textwrap.dedent("""
    import numpy as np
    import frontend as fe
    import frontend.numpy as fnp
    from frontend import lax

    pos = lambda x: lax.while_loop(lambda y: (y <= 0) | (y > 1e-6), lambda y: y * 0.1, x)
    neg = lambda x: lax.while_loop(lambda y: y < -1e-6, lambda y: y * 0.1, x)
    issue = lambda x: lax.cond(x >= 0, pos, neg, x)
    # fori_loop with dynamic bounds: the other branch's lanes would count to 2e9
    far = lambda ok, n: np.int32(0) + fnp.where(ok, n, 2e9).astype(np.int32)
    fori = lambda x: lax.cond(x >= 0,
                              lambda x: lax.fori_loop(0, far(x >= 0, x * 10), lambda i, c: c + 1.0, x),
                              lambda x: lax.fori_loop(0, far(x < 0, -x * 10), lambda i, c: c - 1.0, x),
                              x)
    # nested conds compose the masks; the inner cond is a switch on a batched index
    nest = lambda x: lax.cond(x > -5, lambda x: lax.switch((x > 1).astype(np.int32),
                                                           [neg, pos], x), lambda x: x, x)
    # an inner cond on an unbatched predicate, inside a masked branch
    unb = lambda x: lax.cond(x >= 0, lambda x: lax.cond(True, pos, neg, x), neg, x)
    # a loop in a loop body: a lane done with the outer loop would never end the inner one
    # (in float32, y - 1 stops changing below -2**24)
    down = lambda n: lax.while_loop(lambda y: y != 0, lambda y: y - 1.0, n)
    nested_loops = lambda x: lax.while_loop(lambda n: n >= 1, lambda n: down(n - 1.0), fnp.floor(x))
    x = np.array([3.0, -2.0, 0.5, -0.1, 7.0], np.float32)
    for mode in ("auto", "select", "guarded"):
        fe.config.update("vmap_cond", mode)
        for f in (issue, fori, nest, unb, nested_loops):
            ref = np.array([np.asarray(f(v)) for v in x])
            for g in ((fe.vmap(f), fe.jit(fe.vmap(f))) if f is issue else (fe.jit(fe.vmap(f)),)):
                np.testing.assert_allclose(np.asarray(g(x)), ref, rtol=1e-6)
    print("terminated")
""")


def test_issue_2947_terminates():
    # (every mode: the lane mask does not depend on the guard)
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(root))
    r = subprocess.run([sys.executable, "-c", ISSUE_2947], env=env, capture_output=True,
                       text=True, timeout=300, cwd=root)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "terminated" in r.stdout


def test_readme_prints_the_current_graph():
    # README's vmap section shows the guard as make_graph prints it (its notes after "<-")
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    sec = readme[readme.index("### Control flow under vmap"):]
    shown = sec[sec.index("```text\n") + 8:]
    shown = shown[:shown.index("```")]
    A = np.eye(2, dtype=np.float32)  # noqa: N806  (the README's name)

    def step(x):
        return lax.cond(x[0] > 0, lambda x: fnp.tanh(A @ x), lambda x: -x, x)
    got = str(fe.make_graph(fe.vmap(step))(np.ones((3, 2), np.float32)))
    strip = lambda t: [ln.split("<-")[0].rstrip() for ln in t.strip().splitlines()]  # noqa: E731
    assert strip(shown) == strip(got)
