"""Differential fuzzing (issue 5): random programs from the op table (tests/fuzz/gen.py) run
three ways that must agree: ours batched (fe.vmap, nested up to depth 3, random in_axes /
out_axes incl. negative and None, jit on or off), ours as a per-example Python loop stacked
with fnp.stack, and JAX (jax.vmap + jax.numpy). A failure prints the program as Python.

Default run: hypothesis programs in this process plus a seeded batch in a worker process
(the machine has 2 cores). ``pytest -m slow tests/test_fuzz.py`` runs thousands.

Autodiff: a share of the programs (AD_SHARE; all of them in the slow autodiff run) is
differentiated: the vmapped (and maybe jitted) function is then ``grad``, ``vjp`` or ``jvp``
of the program with respect to its float inputs, checked the same three ways (JAX with
jax.grad/vjp/jvp). Where JAX rejects reverse mode through a while_loop, ours must raise the
same error."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from fuzz import Chooser, FuzzMismatch, Input, Level, Program, check_program, generate, pretty
from fuzz.run import make_args, run_jax
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import frontend as fe
import frontend.numpy as fnp

try:
    from frontend import lax as _lax
    CONTROL = all(hasattr(_lax, n) for n in ("cond", "while_loop", "fori_loop", "scan", "map"))
except Exception:  # pragma: no cover
    CONTROL = False

N_DEFAULT = int(os.environ.get("VMAPLAB_FUZZ_N", 25))
N_WORKER = int(os.environ.get("VMAPLAB_FUZZ_WORKER_N", 30))
N_SLOW = int(os.environ.get("VMAPLAB_FUZZ_SLOW_N", 2500))
N_AD_SLOW = int(os.environ.get("VMAPLAB_FUZZ_AD_SLOW_N", 1400))  # per worker: two in parallel
AD_SHARE = 0.25
COUNTS = {"programs": 0, "jax-rejected": 0}

_HC = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]


def _run(data, autodiff=AD_SHARE):
    prog = generate(Chooser(data=data), control=CONTROL, autodiff=autodiff)
    res = check_program(prog)
    COUNTS["programs"] += 1
    COUNTS[res] = COUNTS.get(res, 0) + 1
    if prog.ad:
        COUNTS[prog.ad] = COUNTS.get(prog.ad, 0) + 1


@pytest.fixture(scope="module")
def worker():
    """A second process fuzzing seeded programs while this one runs hypothesis."""
    p = _start_worker(100000, 100000 + N_WORKER, AD_SHARE)
    yield p
    if p.poll() is None:
        p.kill()


def _start_worker(start, stop, autodiff):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(__file__), os.path.dirname(os.path.dirname(__file__)),
         os.environ.get("PYTHONPATH", "")]))
    args = [sys.executable, "-m", "fuzz.worker", str(start), str(stop), f"autodiff={autodiff}"]
    if CONTROL:
        args.append("control")
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


@settings(max_examples=N_DEFAULT, deadline=None, derandomize=True, suppress_health_check=_HC,
          database=None)
@given(st.data())
def _fuzz_default(data):
    _run(data)


def test_fuzz_programs(worker):
    _fuzz_default()
    print(f"\nfuzzed {COUNTS['programs']} programs in-process "
          f"({COUNTS['jax-rejected']} rejected by JAX at run time; differentiated: "
          f"{ {k: COUNTS.get(k, 0) for k in ('grad', 'vjp', 'jvp')} })")


def test_fuzz_worker_programs(worker):
    out, err = worker.communicate(timeout=600)
    assert worker.returncode == 0, err[-3000:]
    res = json.loads(out.strip().splitlines()[-1])
    print(f"\nworker fuzzed {sum(res['stats'].values())} programs {res['stats']}, "
          f"verified {res['verified']} modules")
    assert not res["failures"], "\n\n".join(res["failures"][:3])


@pytest.mark.slow
@settings(max_examples=N_SLOW, deadline=None, suppress_health_check=_HC)
@given(st.data())
def test_fuzz_programs_slow(data):
    _run(data)


@pytest.mark.slow
def test_fuzz_autodiff_slow():
    """Thousands of differentiated programs (every program with a float input and output),
    seeded, in two worker processes at once: at least 1,000 autodiff programs, no mismatch."""
    procs = [_start_worker(200000 + k * N_AD_SLOW, 200000 + (k + 1) * N_AD_SLOW, 1.0)
             for k in range(2)]
    stats, fails = {}, []
    for p in procs:
        out, err = p.communicate(timeout=4 * 3600)
        assert p.returncode == 0, err[-3000:]
        res = json.loads(out.strip().splitlines()[-1])
        for k, v in res["stats"].items():
            stats[k] = stats.get(k, 0) + v
        fails += res["failures"]
    n_ad = sum(v for k, v in stats.items() if not k.startswith("none"))
    print(f"\nautodiff fuzz: {stats}; {n_ad} differentiated programs")
    assert not fails, "\n\n".join(fails[:3])
    assert n_ad >= 1000


# ----------------------------------------------------------------------------- the harness itself


def _prog(**kw):
    base = dict(inputs=[Input("x0", (3, 2), "float32"), Input("x1", (2,), "float32")],
                stmts=["v0 = np.sin(x0) * x1", "v1 = np.sum(v0, axis=-1)"], outputs=["v1", "v0"],
                levels=[Level((1, None), (0, -1), 4), Level((-1, 0), (0, 2), 3)],
                jit=True, seed=7)
    base.update(kw)
    return Program(**base)


def test_pretty_printer_prints_runnable_python():
    prog = _prog()
    text = pretty(prog)
    assert "def f(x0, x1):" in text and "v1 = np.sum(v0, axis=-1)" in text
    assert "g = vmap(vmap(f, in_axes=(-1, 0), out_axes=(0, 2)), in_axes=(1, None), out_axes=(0, -1))" in text
    assert "g = jit(g)" in text and "x0: float32[" in text
    # the printed program runs as is with our modules and gives the checked results
    code = text.split("\n# x0")[0]
    import frontend.lax as lax
    ns = {"np": fnp, "lax": lax, "vmap": fe.vmap, "jit": fe.jit}
    exec(code, ns)
    got = ns["g"](*make_args(prog))
    ref = run_jax(prog, make_args(prog))
    for a, b in zip(got, ref, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)
    assert check_program(prog) == "ok"


def test_harness_catches_a_wrong_batching_rule(monkeypatch):
    """A batching rule that puts the batch axis in the wrong place is caught and the failure
    prints the program."""
    from frontend.primitives.elementwise import sin_p as p
    orig = p.batching_rule

    def wrong(args, dims, **params):
        out, d = orig(args, dims, **params)
        return fnp.flip(out, axis=d), d  # scrambles the examples

    monkeypatch.setattr(p, "batching_rule", wrong)
    with pytest.raises(FuzzMismatch, match=r"(?s)values differ.*def f\(x0, x1\):.*np\.sin"):
        check_program(_prog(jit=False))


def test_generator_covers_the_op_table():
    """Over a fixed set of seeds the generator emits every op family."""
    seen = set()
    for seed in range(150):
        seen.update(s.split(" = ", 1)[1] for s in generate(Chooser(seed=seed), control=CONTROL).stmts)
    text = "\n".join(seen)
    for needle in ["np.sum(", "np.argmax(", "np.cumsum(", "reshape(", "np.transpose(", "np.expand_dims(",
                   "np.squeeze(", "np.concatenate(", "np.stack(", "::", "lax.dynamic_slice(",
                   "np.matmul(", "lax.dot_general(", "np.einsum(", "np.where(", "lax.select(",
                   "astype(np.bfloat16)", "sort(", "lax.conv_general_dilated(",
                   "lax.reduce_window("] + (["lax.cond(", "lax.scan(", "lax.fori_loop("] if CONTROL else []):
        assert needle in text, needle


def test_autodiff_programs_cover_every_mode_and_print_runnable():
    modes = {}
    for seed in range(40):
        prog = generate(Chooser(seed=seed), control=CONTROL, autodiff=1.0)
        if prog.ad:
            modes.setdefault(prog.ad, prog)
    assert set(modes) == {"grad", "vjp", "jvp"}
    import frontend.lax as lax
    for prog in modes.values():
        code = pretty(prog).split("\n# x0")[0]
        assert "def h(" in code and f"{prog.ad}(" in code
        ns = {"np": fnp, "lax": lax, "vmap": fe.vmap, "jit": fe.jit, "grad": fe.grad,
              "vjp": fe.vjp, "jvp": fe.jvp}
        exec(code, ns)
        got = ns["g"](*make_args(prog))
        ref = run_jax(prog, make_args(prog))
        for a, b in zip(jax_leaves(got), jax_leaves(ref), strict=True):
            np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64),
                                       rtol=2e-2, atol=2e-2)


def jax_leaves(x):
    import jax
    return jax.tree_util.tree_leaves(x)


def test_harness_catches_a_wrong_jvp_rule(monkeypatch):
    """A jvp rule off by 1% is caught in grad, vjp and jvp programs alike."""
    from frontend.primitives.elementwise import sin_p as p
    orig = p.jvp_rule

    def wrong(primals, tangents, **params):
        out, t = orig(primals, tangents, **params)
        return out, t * 1.01

    monkeypatch.setattr(p, "jvp_rule", wrong)
    lines = ("def h(x0, x1):", "    def fx(x0, x1):", "        out = (f(x0, x1),)",
             "        return np.sum(out[0].astype(np.float32))",
             "    return grad(fx, argnums=(0, 1))(x0, x1)")
    prog = _prog(outputs=["v1"], jit=False, levels=[Level((1, None), (0, 0), 4)], ad="grad",
                 ad_source=lines, n_f_inputs=2, n_ad_outputs=2)
    with pytest.raises(FuzzMismatch, match=r"(?s)values differ.*def h\(x0, x1\):.*grad\(fx"):
        check_program(prog)
