"""The core's one way of doing each thing: tracing a pytree function (trace_pytree /
flatten_fun), the sub-graph test (param_graphs) and the aval accessor (aval_of)."""
from __future__ import annotations

import numpy as np
import pytest

import frontend as fe
from frontend import lax
from frontend.core.ir import Aval, aval_of, param_graphs, subgraphs
from frontend.core.pytree import tree_flatten
from frontend.core.tracing import flatten_fun, trace_pytree

F32 = np.dtype(np.float32)


def test_trace_pytree_gives_the_graph_and_the_output_tree():
    args = ({"w": np.ones((2, 3), np.float32)}, np.ones(3, np.float32))
    leaves, in_tree = tree_flatten(args)
    g, out_tree = trace_pytree(lambda p, x: {"y": p["w"] @ x, "z": (x, x * 2)}, in_tree,
                               [aval_of(x) for x in leaves])
    assert out_tree == tree_flatten({"y": 0, "z": (0, 0)})[1]
    assert g.out_avals == (Aval((2,), F32), Aval((3,), F32), Aval((3,), F32))
    assert g.in_avals == (Aval((2, 3), F32), Aval((3,), F32))


def test_trace_pytree_with_keyword_arguments():
    leaves, in_tree = tree_flatten(((np.ones(2, np.float32),), {"scale": np.float32(3)}))
    g, out_tree = trace_pytree(lambda a, kw: (lambda x, scale: [x * scale])(*a, **kw), in_tree,
                               [aval_of(x) for x in leaves])
    assert out_tree == tree_flatten([0])[1] and len(g.eqns) == 1


def test_flatten_fun_out_tree_only_after_a_call():
    flat, out_tree = flatten_fun(lambda x: (x, [x]), tree_flatten((1.0,))[1])
    with pytest.raises(RuntimeError, match="before the flattened function ran"):
        out_tree()
    assert flat(2.0) == [2.0, 2.0]
    assert out_tree() == tree_flatten((0, [0]))[1]


def test_param_graphs_is_the_one_sub_graph_test():
    g = fe.make_graph(lambda p, x: lax.cond(p, lambda v: v + 1, lambda v: v * 2, x))(
        True, np.float32(1))
    (e,) = [e for e in g.eqns if e.prim.name == "cond"]
    branches = e.params["branches"]
    assert param_graphs(branches) == branches and len(branches) == 2
    assert param_graphs(branches[0]) == (branches[0],)
    assert param_graphs((1, 2)) == () and param_graphs(()) == () and param_graphs(None) == ()
    assert subgraphs(e) == list(branches)


def test_aval_of_tells_host_data_from_arrays():
    x = np.ones((2,), np.float64)
    assert aval_of(x, host=False) is None and aval_of(2.0, host=False) is None
    assert aval_of(x) == Aval((2,), F32)  # (the canonical dtype, 64-bit mode off)
    assert aval_of(2.0) == Aval((), F32, True)
    a = fe.device_put(np.ones(3, np.float32))
    assert aval_of(a, host=False) is a.aval is aval_of(a)
    with pytest.raises(TypeError, match="not a valid array type"):
        aval_of("abc")
