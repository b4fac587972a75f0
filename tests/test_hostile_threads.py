"""Every public transformation from several threads at once: eager and jitted grad,
value_and_grad, jvp, vjp, linearize, jacfwd, jacrev, hessian, vmap, jit, checkpoint,
custom_jvp / custom_vjp functions and plain eager ops, 8 threads started together by a
barrier, each running every case several times in its own order. Each result must equal
the one a serial run gives (the same executables: bit for bit), and no call may fail.

(The eager trace is every thread's: a trace that computes with it must not keep its
context-variable tokens on it, or threads reset each other's "current trace".)"""
import random
import sys
import threading

import numpy as np
import pytest

import frontend as fe
import frontend.numpy as fnp

N_THREADS = 8


def _loss(x, y):
    return fnp.sum(fnp.sin(x) * y * y)


def _vec(x):
    return fnp.sin(x) * x


_jitted_vec = fe.jit(_vec)


@fe.custom_jvp
def _softplus(x):
    return fnp.log1p(fnp.exp(x))


_softplus.defjvp(lambda p, t: (_softplus(p[0]), t[0] / (1 + fnp.exp(-p[0]))))


@fe.custom_vjp
def _clipped(x):
    return fnp.sin(x)


_clipped.defvjp(lambda x: (fnp.sin(x), fnp.cos(x)),
                lambda c, g: (fnp.clip(g * c, -0.5, 0.5),))


def _cases() -> dict:
    """name -> f(x, y) (x: f32[4], y: f32[4]) returning a pytree of arrays."""
    return {
        "eager ops": lambda x, y: (fnp.sin(x) @ y, fnp.sort(x * y)),
        "grad": lambda x, y: fe.grad(_loss, argnums=(0, 1))(x, y),
        "value_and_grad": lambda x, y: fe.value_and_grad(_loss)(x, y),
        "jvp": lambda x, y: fe.jvp(_vec, (x,), (y,)),
        "vjp": lambda x, y: fe.vjp(_vec, x)[1](y),
        "linearize": lambda x, y: fe.linearize(_vec, x)[1](y),
        "jacfwd": lambda x, y: fe.jacfwd(_vec)(x),
        "jacrev": lambda x, y: fe.jacrev(_vec)(y),
        "hessian": lambda x, y: fe.hessian(_loss)(x, y),
        "vmap": lambda x, y: fe.vmap(fe.grad(_loss), in_axes=(0, None))(fnp.outer(x, y), y),
        "jit": lambda x, y: _jitted_vec(x * y),
        "checkpoint": lambda x, y: fe.grad(lambda a: _loss(fe.checkpoint(_vec)(a), y))(x),
        "custom_jvp": lambda x, y: fe.jvp(_softplus, (x,), (y,)),
        "custom_vjp": lambda x, y: fe.grad(lambda a: fnp.sum(_clipped(a) * y))(x),
    }


def _programs() -> dict:
    """(name, eager|jit) -> a callable of (x, y)."""
    out = {}
    for name, f in _cases().items():
        out[name, "eager"] = f
        out[name, "jit"] = fe.jit(f)
    return out


def _leaves(tree) -> list:
    return [np.asarray(v) for v in fe.tree_util.tree_leaves(tree)]


def _run_concurrently(iters: int, seed: int, fresh_jits: bool) -> None:
    """Every program from N_THREADS threads, ``iters`` times each; ``fresh_jits``: the
    threads race on the first trace and compile of the jitted ones too (else they reuse
    those of the serial run, which is faster)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=4).astype(np.float32)
    y = rng.normal(size=4).astype(np.float32)
    programs = _programs()
    serial = {k: _leaves(f(x, y)) for k, f in programs.items()}
    if fresh_jits:
        programs = _programs()
    keys = list(programs)
    barrier = threading.Barrier(N_THREADS)
    failures: list = []
    lock = threading.Lock()

    def worker(i):
        order = random.Random(i).sample(keys * iters, len(keys) * iters)
        barrier.wait()
        for k in order:
            try:
                got = _leaves(programs[k](fe.device_put(x), fe.device_put(y)))
                assert len(got) == len(serial[k]), "number of results"
                for g, w in zip(got, serial[k], strict=True):
                    np.testing.assert_array_equal(g, w)
            except Exception as e:  # noqa: BLE001 (every failure is reported below)
                with lock:
                    failures.append((k, f"{type(e).__name__}: {e}"))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(N_THREADS)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch threads often: every interleaving gets its chance
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    if failures:
        kinds = {}
        for k, msg in failures:
            kinds.setdefault(k, []).append(msg)
        report = "\n".join(f"{k}: {len(v)}/{N_THREADS * iters} calls failed, e.g. {v[0][:300]}"
                           for k, v in sorted(kinds.items()))
        pytest.fail(f"concurrent calls failed:\n{report}")


def test_every_transformation_from_eight_threads():
    _run_concurrently(iters=6, seed=0, fresh_jits=False)


@pytest.mark.slow
def test_every_transformation_from_eight_threads_long():
    for seed in range(5):
        _run_concurrently(iters=10, seed=seed, fresh_jits=True)


def test_the_eager_trace_is_not_entered_with_with():
    """``with trace:`` keeps its token on the trace, which is right only for a trace of one
    thread: the eager trace, every thread's, refuses it (set_current keeps a local token)."""
    from frontend.core import ir as core

    with pytest.raises(RuntimeError, match="shared by every thread"):
        with core.EVAL:
            pass
    assert core.current_trace() is core.EVAL
