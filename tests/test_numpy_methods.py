"""Array (and Tracer) methods and operators JAX's arrays have, compared with JAX's: the .at[]
updates, shifts, divmod, round, `in`, copies, view/byteswap/tobytes/item, compress/choose/
argpartition, astype(copy=), NotImplemented for unknown operands, no item assignment."""
import copy

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from harness import assert_same

import frontend as fe
import frontend.numpy as fnp

XI = np.arange(-5, 7, dtype=np.int32).reshape(3, 4)
XF = np.linspace(-0.9, 0.9, 12, dtype=np.float32).reshape(3, 4)
XB = (np.arange(12) % 3 == 0).reshape(3, 4)

EXPRS = [
    "x.at[1].subtract(2)", "x.at[np.int32([0, 0, 2])].subtract(1)", "f.at[:, 1].divide(2.0)",
    "x.at[1].divide(2)", "x.at[1].power(2)", "x.at[0].power(-1)",
    "f.at[np.int32([0, 0, 2])].apply(lambda v: v * 2 + 1)",
    "f.at[1:, ::2].apply(lambda v: v * 2 + 1)",
    "x << 2", "2 << x", "x >> 1", "16 >> x", "divmod(x, 3)", "divmod(7, x)", "divmod(f, 0.25)",
    "round(f)", "round(f, 1)", "x.compress(np.array([True, False, True]), axis=0)",
    "x.argpartition(1)", "x.argpartition(0, axis=0)",
    "lib.asarray(np.int32([0, 1, 0])).choose([np.int32([1, 2, 3]), np.int32([4, 5, 6])])",
    "x.view(np.float32)", "x.view(np.uint8)", "x.view(np.int16)", "f.view(np.int32)",
    "lib.asarray(np.uint8([1, 2, 3, 4])).view(np.int32)", "b.view(np.uint8)",
    "x.byteswap()", "f.byteswap()", "f.astype(np.int32, copy=True)",
]


def _env(lib, x=XI, f=XF, b=XB):
    return {"x": lib.asarray(x), "f": lib.asarray(f), "b": lib.asarray(b), "np": np, "lib": lib}


@pytest.mark.parametrize("expr", EXPRS)
def test_methods_match_jax(expr):
    assert_same(eval(expr, _env(fnp)), eval(expr, _env(jnp)), expr)


def test_methods_under_jit_match_jax():
    for expr in EXPRS[:8] + ["x << 2", "divmod(x, 3)", "x.view(np.uint8)", "f.byteswap()",
                             "x.argpartition(1)"]:
        ours = fe.jit(lambda x, f, b, e=expr: eval(e, _env(fnp, x, f, b)))(XI, XF, XB)
        theirs = jax.jit(lambda x, f, b, e=expr: eval(e, _env(jnp, x, f, b)))(XI, XF, XB)
        assert_same(ours, theirs, expr)


def test_host_side_methods_match_jax():
    for lib in (fnp, jnp):
        x, v = lib.asarray(XI), lib.asarray(XI[2])
        assert (3 in v, 100 in v) == (True, False)
        with pytest.raises(ValueError, match="one-dimensional"):
            3 in x  # noqa: B015
        assert x.tobytes() == XI.tobytes() and (x.item(5), x.item((1, 2))) == (0, 1)
        assert_same(copy.deepcopy(x), jnp.asarray(XI)) and assert_same(copy.copy(x), jnp.asarray(XI))
        with pytest.raises(TypeError):
            x[0] = 1
        for bad in ([1], "a", {1: 2}):
            with pytest.raises(TypeError):
                x + bad  # noqa: B018


def test_unknown_operands_defer_to_their_reflected_operators():
    class Other:
        def __radd__(self, other):
            return "radd"

        def __rlshift__(self, other):
            return "rlshift"

    x = fnp.asarray(XI)
    assert x + Other() == "radd" and x << Other() == "rlshift"
    assert fnp.asarray(XI).__add__([1]) is NotImplemented
