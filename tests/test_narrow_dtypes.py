"""int4/uint4, the float8 family and float4_e2m1fn (ml_dtypes' numpy types) compared with
JAX: creation, host<->device transfers, astype to and from them, arithmetic, comparisons,
data movement (concatenate, sort, pad, gather, scatter) under jit, constants, the graph's
printed types, promotion (JAX's lattice: only bool, weak Python scalars and the type itself)
and JAX's TypePromotionError."""
import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import frontend as fe
import frontend.numpy as fnp
from frontend.core.dtypes import TypePromotionError

INTS = ["int4", "uint4"]
FLOATS = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
          "float8_e4m3b11fnuz", "float8_e4m3", "float8_e3m4", "float8_e8m0fnu", "float4_e2m1fn"]
# the default run: one type of each family (4-bit integers, float8 with and without
# infinities, exponent-only e8m0, 4-bit float); -m slow: every one
DEFAULT = {"int4", "uint4", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e8m0fnu",
           "float4_e2m1fn"}
NAMES = [n if n in DEFAULT else pytest.param(n, marks=pytest.mark.slow) for n in INTS + FLOATS]
VALUES = np.array([3, 0.25, 2, 1, 3, 2, 0.5, 1, 1.5])  # (0.25: 0 in int4; e8m0fnu has no 0)


def _same(ours, theirs, what=""):
    """Same structure, dtypes, weak types and values (NaNs equal; compared as float32)."""
    o_leaves, t_leaves = jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)
    assert len(o_leaves) == len(t_leaves), what
    for o, t in zip(o_leaves, t_leaves, strict=True):
        assert np.dtype(o.dtype) == np.dtype(t.dtype), f"{what}: {o.dtype} vs JAX {t.dtype}"
        assert getattr(o, "weak_type", False) == getattr(t, "weak_type", False), what
        np.testing.assert_array_equal(np.asarray(o).astype(np.float32),
                                      np.asarray(t).astype(np.float32), what)


def _program(lib, name):
    """Many operations on one narrow-typed vector: one compiled program per dtype."""
    def f(x):
        t = x.dtype
        out = {"add": x + x, "mul_weak": x * 2, "sub_weak": x - 1, "neg": -x,
               "max": lib.maximum(x, x[::-1]), "eq": x == x[::-1], "lt": x < 2,
               "where": lib.where(lib.arange(9) % 2 == 0, x, x[::-1]),
               "concat": lib.concatenate([x, x[:3]]), "sort": lib.sort(x), "slice": x[1:7:2],
               "pad": lib.pad(x, 2), "transpose": x.reshape(3, 3).T,
               "gather": x[lib.array([4, 0, 2])], "scatter": x.at[lib.array([1, 5])].set(x[0]),
               "to_f32": x.astype(np.float32), "to_i32": x.astype(np.int32),
               "to_bool": x.astype(bool), "from_f32": (x.astype(np.float32) * 0.5).astype(t),
               "const": x + lib.asarray(np.arange(9).astype(t)), "bool_mix": x * True,
               "argmax": lib.argmax(x), "reduce_max": x.max(), "reduce_min": x.min(), "cumsum": lib.cumsum(x),
               "fill": x.at[lib.array([1, 20])].get(mode="fill")}
        if name == "float8_e8m0fnu":  # JAX's max/min give NaN: its identity -inf/inf, which
            del out["reduce_max"], out["reduce_min"]  # e8m0fnu cannot hold, becomes NaN (ours: 4 and 0.25)
        if name in FLOATS:
            out.update({"weak_float": x * 1.5, "sum": x.sum(), "dot": x @ x, "div": x / x[::-1],
                        "exp": lib.exp(x)})
        return out
    return f


@pytest.mark.parametrize("name", NAMES)
def test_narrow_dtype_programs_match_jax(name):
    x = VALUES.astype(getattr(ml_dtypes, name))
    _same(fe.jit(_program(fnp, name))(x), jax.jit(_program(jnp, name))(x), name)
    if name == "float8_e8m0fnu":  # (the reductions JAX gets wrong for it: see _program)
        assert (float(fnp.max(x)), float(fnp.min(x))) == (4.0, 0.25)


@pytest.mark.parametrize("name", NAMES)
def test_narrow_dtype_creation_and_transfers_match_jax(name):
    ours, theirs = getattr(fnp, name), getattr(jnp, name)
    host = VALUES.astype(getattr(ml_dtypes, name))
    for expr in ("lib.ones(3, t)", "lib.zeros((2, 2), t)", "lib.full(3, 1, t)",
                 "lib.array([1, 0, 1], t)", "lib.arange(4.0).astype(t)", "lib.asarray(host)",
                 "lib.asarray(host)[2]", "lib.asarray(host).astype(np.float32)", "t(2)",
                 "lib.asarray(host) + lib.asarray(host)"):
        o = eval(expr, {"lib": fnp, "t": ours, "np": np, "host": host})
        _same(o, eval(expr, {"lib": jnp, "t": theirs, "np": np, "host": host}), expr)
    back = np.asarray(fe.device_put(host))
    assert back.dtype == host.dtype and back.tobytes() == host.tobytes()
    graph = str(fe.make_graph(lambda x: x + 1)(fnp.ones(3, ours)))
    jaxpr = str(jax.make_jaxpr(lambda x: x + 1)(jnp.ones(3, theirs)))
    short = jaxpr.split("a:")[1].split("[")[0]
    assert f"a:{short}[3]" in graph and f"1{'.0' if name in FLOATS else ''}:{short}[]" in graph


def test_narrow_dtype_promotion_matches_jax():
    others = ["bool", "int8", "uint8", "int32", "bfloat16", "float16", "float32", "complex64"]
    names = INTS + FLOATS
    for a in names:
        for b in names + others:
            try:
                want = jnp.promote_types(a, b)
            except ValueError:  # (JAX's TypePromotionError)
                want = None
            if want is None:
                with pytest.raises(ValueError, match="no available implicit dtype promotion"):
                    fnp.promote_types(a, b)
            else:
                assert fnp.promote_types(a, b) == want, (a, b)
        for scalar in (1, 1.0, 1j, True):
            try:
                want = jnp.result_type(jnp.ones(2, a), scalar)
            except ValueError:
                with pytest.raises(ValueError, match="do not support implicit promotion"):
                    fnp.result_type(fnp.ones(2, a), scalar)
            else:
                assert fnp.result_type(fnp.ones(2, a), scalar) == want, (a, scalar)
    x = fnp.ones(2, fnp.int4)
    with pytest.raises(TypePromotionError, match=r"4-bit integers do not support implicit promotion.*astype\('int32'\)"):
        x + fnp.ones(2, np.int8)
    with pytest.raises(ValueError, match=r"8-bit floats do not support implicit promotion"):
        fnp.ones(2, fnp.float8_e5m2) + fnp.ones(2, np.float16)
    assert fnp.issubdtype(fnp.int4, fnp.signedinteger) and fnp.issubdtype(fnp.uint4, np.integer)
    assert fnp.issubdtype(fnp.float8_e5m2, fnp.floating) and not fnp.issubdtype(fnp.int4, np.floating)
    assert fnp.finfo(fnp.float8_e4m3fn).max == jnp.finfo(jnp.float8_e4m3fn).max
    assert fnp.iinfo(fnp.int4).min == -8


def test_sub_byte_host_reads_do_not_import_jax():
    """int4/uint4/float4 values are packed two to a byte on the device: they are widened
    there (an exact convert) before the copy, not read through jax's conversion."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    code = ("import sys, numpy as np, frontend.numpy as fnp\n"
            "x = fnp.asarray(np.array([1, -2, 3, 7, 5], 'int4')) + 1\n"
            "print(np.asarray(x).tolist(), np.asarray(fnp.ones(3, fnp.float4_e2m1fn)).tolist(),"
            " 'jax' in sys.modules)\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True).stdout
    assert out.split() == ["[2,", "-1,", "4,", "-8,", "6]", "[1.0,", "1.0,", "1.0]", "False"], out
