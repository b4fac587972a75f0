"""Random programs over ragged batches: each draws a chain of supported operations on a
ragged example ``x`` (rows ragged, C columns), runs it under ``jit(vmap(f))`` of a
``frontend.ragged`` batch, and compares with JAX's loop over the unpadded examples.

A program is Python source ``def f(x):`` written against ``np``/``nn`` (frontend.numpy and
frontend.nn, or jax.numpy and jax.nn) and a constant ``W`` (C x C). Variables are ragged
(rows, C) or dense (C,); the results are the dense variables and the last ragged one.
"""
from __future__ import annotations

import random

import numpy as np

C = 3

# (template, kinds of the operands, kind of the result, needs every example non-empty)
OPS = [
    ("np.tanh({0})", "r", "r", False),
    ("np.sin({0}) * 1.5 + 0.25", "r", "r", False),
    ("np.exp(-np.abs({0}))", "r", "r", False),
    ("nn.relu({0})", "r", "r", False),
    ("{0} + {1}", "rr", "r", False),
    ("{0} * {1}", "rr", "r", False),
    ("np.maximum({0}, {1})", "rr", "r", False),
    ("{0} + {1}", "rd", "r", False),
    ("{0} @ W", "r", "r", False),
    ("nn.softmax({0}, axis=0)", "r", "r", False),
    ("nn.log_softmax({0}, axis=0)", "r", "r", True),
    ("np.cumsum({0}, 0)", "r", "r", False),
    ("nn.softmax({0} @ {1}.T, axis=-1) @ {1}", "rr", "r", False),
    ("{0} - np.mean({0}, 0)", "r", "r", True),
    ("np.sum({0}, 0)", "r", "d", False),
    ("np.mean({0}, 0)", "r", "d", True),
    ("np.max({0}, 0)", "r", "d", True),
    ("np.min({0}, axis=0)", "r", "d", True),
    ("nn.logsumexp({0}, 0)", "r", "d", True),
    ("np.var({0}, 0)", "r", "d", True),
    ("{0}[-1]", "r", "d", True),
    ("{0}[0] * 2", "r", "d", True),
    ("np.sum({0} @ W, 0)", "r", "d", False),
    ("np.tensordot({0}, {1}, axes=([0], [0])) @ np.ones(3)", "rr", "d", False),
    ("np.tanh({0}) + {1}", "dd", "d", False),
]


def program(rng: random.Random, n_stmts: int, nonempty: bool) -> str:
    """The source of one random program."""
    kinds = {"x": "r"}
    lines = ["def f(x):"]
    ops = [o for o in OPS if nonempty or not o[3]]
    for k in range(n_stmts):
        for _ in range(50):
            tpl, operands, out, _ = rng.choice(ops)
            names = []
            for want in operands:
                pool = [v for v, kd in kinds.items() if kd == want]
                if not pool:
                    break
                names.append(rng.choice(pool))
            else:
                break
        else:
            continue
        v = f"v{k}"
        lines.append(f"    {v} = {tpl.format(*names)}")
        kinds[v] = out
    dense = [v for v, kd in kinds.items() if kd == "d"]
    last_r = [v for v, kd in kinds.items() if kd == "r"][-1]
    lines.append(f"    return [{', '.join(dense)}], {last_r}")
    return "\n".join(lines) + "\n"


def case(seed: int):
    """(source, examples) of program ``seed``."""
    rng = random.Random(seed)
    nonempty = rng.random() < 0.6
    lengths = [rng.randint(1 if nonempty else 0, 9) for _ in range(rng.randint(1, 5))]
    if not nonempty:
        lengths[0] = rng.choice([0, 1])
    src = program(rng, rng.randint(1, 6), nonempty)
    data = np.random.default_rng(seed)
    xs = [data.normal(size=(n, C)).astype(np.float32) for n in lengths]
    return src, xs


W = np.linspace(-1.0, 1.0, C * C).astype(np.float32).reshape(C, C) / C


def check(seed: int) -> None:
    """Run program ``seed`` both ways; AssertionError (with the program) on a mismatch."""
    import jax
    import jax.numpy as jnp

    import frontend as fe
    import frontend.numpy as fnp
    from frontend import nn

    src, xs = case(seed)
    ours_ns = {"np": fnp, "nn": nn, "W": W}
    theirs_ns = {"np": jnp, "nn": jax.nn, "W": jnp.asarray(W)}
    exec(src, ours_ns)
    exec(src, theirs_ns)
    r = fe.ragged.stack(xs)
    dense, rag = fe.jit(fe.vmap(ours_ns["f"]))(r)
    rows = rag.unstack()
    for b, x in enumerate(xs):
        want_d, want_r = theirs_ns["f"](jnp.asarray(x))
        try:
            for g, w in zip(dense, want_d, strict=True):
                np.testing.assert_allclose(np.asarray(g)[b], np.asarray(w), rtol=1e-4, atol=1e-4)
            np.testing.assert_allclose(np.asarray(rows[b]), np.asarray(want_r), rtol=1e-4, atol=1e-4)
        except AssertionError as e:
            raise AssertionError(f"ragged program {seed} (lengths {[len(x) for x in xs]}), "
                                 f"example {b}:\n{src}\n{e}") from None
