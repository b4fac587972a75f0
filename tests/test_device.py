"""The device check (``python -m pytest -m device``): on a machine with a GPU or TPU, every
op-table family (tests/test_prims.py), vmapped and differentiated, runs jitted on that
device and is compared with the same program on the CPU, and the examples' programs too.
Without an accelerator every test skips with one line. ``--device-platform=cpu`` runs the
check against the CPU itself (how the check is tested on a CPU-only machine)."""
import numpy as np
import pytest

import frontend as fe

pytestmark = pytest.mark.device

# looser than the CPU-vs-JAX tables: another device's kernels (cuSOLVER, TPU matmul passes)
_TOL = dict(rtol=2e-3, atol=2e-3)


def accelerator(requested: str | None):
    """The first device of ``requested`` (a platform name), or of the first accelerator
    platform present (cuda/rocm as jaxlib's "gpu", then tpu); None without one."""
    for p in ([requested] if requested else ["gpu", "tpu"]):
        try:
            devs = fe.devices(p)
        except (ValueError, RuntimeError):
            continue
        if devs:
            return devs[0]
    return None


@pytest.fixture(scope="module")
def device(request):
    requested = request.config.getoption("device_platform")
    d = accelerator(requested)
    if d is None:
        pytest.skip("no accelerator (GPU/TPU) found: the device check runs on a machine with one")
    return d


def _close(on_device, on_cpu, what):
    import jax
    a_leaves = jax.tree_util.tree_leaves(on_device)
    b_leaves = jax.tree_util.tree_leaves(on_cpu)
    assert len(a_leaves) == len(b_leaves), what
    for a, b in zip(a_leaves, b_leaves, strict=True):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape and a.dtype == b.dtype, f"{what}: {a.shape} {a.dtype} vs {b.shape} {b.dtype}"
        if a.dtype.kind in "fc":
            np.testing.assert_allclose(a, b, err_msg=what, equal_nan=True, **_TOL)
        else:
            np.testing.assert_array_equal(a, b, err_msg=what)


def _families():
    import test_prims
    return test_prims


@pytest.mark.parametrize("family", ["elementwise", "special", "sort", "conv", "fft", "linalg",
                                    "windows"])
def test_family_on_device_vs_cpu(device, family):
    tp = _families()
    rows = tp.FAMILIES[family]
    args = [ex[0] for ex in tp._examples(family)]

    def program(all_args):
        return {row.name: row.fn(tp.OURS)(*a) for row, a in zip(rows, all_args, strict=True)}

    _close(fe.jit(program, device=device)(args), fe.jit(program)(args), family)


@pytest.mark.parametrize("family", ["elementwise", "linalg", "fft"])
def test_vmap_and_grad_on_device_vs_cpu(device, family):
    tp = _families()
    rows = [r for r in tp.FAMILIES[family]
            if all(mk().dtype == np.float32 for mk in r.makers)][:12]
    examples = tp._examples(family)
    for row in rows:
        i = tp.FAMILIES[family].index(row)
        stacked = [np.stack(a) for a in zip(*examples[i], strict=True)]
        f = row.fn(tp.OURS)
        batched = fe.vmap(f)
        _close(fe.jit(batched, device=device)(*stacked), fe.jit(batched)(*stacked),
               f"{family} {row.name} vmap")

        def loss(*a, f=f):
            import jax
            return sum(fe.numpy.sum(fe.numpy.real(x)) for x in jax.tree_util.tree_leaves(f(*a))
                       if np.dtype(x.dtype).kind in "fc")
        g = fe.grad(loss)
        try:
            want = fe.jit(g)(*examples[i][0])
        except (TypeError, NotImplementedError, ValueError):
            continue  # (rows that are not differentiable, e.g. integer results only)
        _close(fe.jit(g, device=device)(*examples[i][0]), want, f"{family} {row.name} grad")
