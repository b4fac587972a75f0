"""Source locations: each equation records the user's Python frame (vmaplab's own frames
skipped), ``Graph.pretty_print(source_info=True)`` prints them, ``as_text(debug_info=True)``
writes ``loc(...)`` with the same file:line:column as JAX's, XLA's compiled HLO carries them
in its stack-frame table, and compile/verifier errors name the equation, primitive and line."""
import inspect
import re
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import frontend as fe
import frontend.numpy as fnp
from frontend import lax
from frontend import passes as P
from frontend.core.ir import Eqn, Graph, register_exclusion, source_info
from frontend.extend import Primitive

F32 = np.float32
X = np.linspace(-1, 1, 3).astype(F32)
HERE = __file__
# conftest.py wraps every rule (to record coverage): its frames are not the user's code
register_exclusion(str(Path(__file__).with_name("conftest.py")))


def _sin_twice(np_mod, x):
    y = np_mod.sin(x)                     # SIN_LINE
    return np_mod.cos(y) * 2.0            # COS_LINE


def _line_of(tag: str) -> int:
    src, first = inspect.getsourcelines(_sin_twice)
    return first + next(i for i, s in enumerate(src) if tag in s)


def _file_locs(text: str) -> set:
    """(line, col, end) of every ``"<this file>":line:col to :end`` in module text."""
    pat = re.escape(f'"{HERE}"') + r":(\d+):(\d+)(?: to :(\d+))?"
    return {(int(a), int(b), int(c or b)) for a, b, c in re.findall(pat, text)}


def test_equations_record_the_users_line_not_vmaplabs():
    g = fe.make_graph(lambda x: _sin_twice(fnp, x))(X)
    infos = [source_info(e.loc) for e in g.eqns]
    assert [i[0] for i in infos] == [HERE] * 3
    assert [i[1] for i in infos] == [_line_of("SIN_LINE"), _line_of("COS_LINE"),
                                     _line_of("COS_LINE")]
    assert infos[0][4] == "_sin_twice"
    text = g.pretty_print(source_info=True)
    assert f"= sin a  # {HERE}:{_line_of('SIN_LINE')}:8 (_sin_twice)" in text
    assert "# " not in str(g)  # (off by default, as JAX's)


def test_locations_survive_vmap_grad_and_nested_graphs():
    def body(i, c):
        return fnp.tanh(c)                # BODY_LINE
    body_line = inspect.getsourcelines(body)[1] + 1
    f = lambda x: lax.fori_loop(0, 2, body, _sin_twice(fnp, x))  # noqa: E731
    for g in (fe.make_graph(fe.vmap(f))(np.stack([X, X])),
              fe.make_graph(fe.grad(lambda x: f(x).sum()))(X)):
        text = g.pretty_print(source_info=True)
        assert f"sin a  # {HERE}:{_line_of('SIN_LINE')}" in text
        assert f"tanh b  # {HERE}:{body_line}:15 (body)" in text
    # the backward pass's equations name the line of the forward equation they come from
    # (as JAX's): the last one multiplies by cos(x), sin's derivative
    assert source_info(g.eqns[-1].loc)[1] == _line_of("SIN_LINE")
    assert all(source_info(e.loc)[0] == HERE for e in g.eqns)


def test_debug_info_text_has_jaxs_file_line_columns():
    ours = fe.jit(lambda x: _sin_twice(fnp, x)).lower(X)
    theirs = jax.jit(lambda x: _sin_twice(jnp, x)).lower(X).as_text(debug_info=True)
    text = ours.as_text(debug_info=True)
    from lowering.runtime import mlir
    mlir.parse_module(text)  # (the verifier reads it)
    want = _file_locs(theirs)
    assert {(_line_of("SIN_LINE"), 8, 21)} <= want  # (JAX spells the same spans)
    # the innermost user frames are the same spans (JAX also writes the callers' frames)
    inner = {t for t in want if t[0] in (_line_of("SIN_LINE"), _line_of("COS_LINE"))}
    assert _file_locs(text) == inner and len(inner) == 3
    # each op names its primitive and equation: "sin:0" is equation 0
    assert re.search(r'stablehlo\.sine %arg0 : tensor<3xf32> loc\((#loc\d+)\)', text)
    assert re.search(r'= loc\("sin:0"\("_sin_twice"\(', text)
    assert "loc(" not in ours.as_text()  # (without debug_info, as JAX's as_text())


def test_nested_equation_ids_name_the_sub_graph():
    def f(x):
        return lax.fori_loop(0, 2, lambda i, c: fnp.tanh(c), fnp.sin(x))
    text = fe.jit(f).lower(X).as_text(debug_info=True)
    g = fe.make_graph(f)(X)
    assert g.eqns[1].prim.name == "scan"
    assert g.eqns[1].params["body"].eqns[1].prim.name == "tanh"
    assert 'loc("tanh:1.0.1"(' in text and 'loc("scan:1"(' in text


def test_compiled_hlo_names_the_python_lines():
    hlo = fe.jit(lambda x: _sin_twice(fnp, x)).lower(X).compile().as_text()
    files = dict(re.findall(r'^(\d+) "(.*)"$', hlo.split("FunctionNames")[0], re.M))
    fid = next(k for k, v in files.items() if v == HERE)
    lines = {int(n) for n in re.findall(rf"file_name_id={fid} function_name_id=\d+ line=(\d+)",
                                        hlo)}
    assert lines == {_line_of("SIN_LINE"), _line_of("COS_LINE")}
    assert 'op_name="sin:0"' in hlo or 'op_name="cos:1"' in hlo


_bad_p = Primitive("bad_sine")
_bad_p.def_abstract_eval(lambda a: a)
_bad_p.def_lowering(lambda ctx, x: ctx.op(f"stablehlo.sinee {x} : {ctx.type(ctx.avals_in[0])}"))


def test_compile_errors_name_equation_primitive_and_line():
    def f(x):
        return _bad_p.bind(x) + 1.0       # BAD_LINE
    line = inspect.getsourcelines(f)[1] + 1
    with pytest.raises(Exception, match=rf"equation 0, primitive 'bad_sine', made at "
                                        rf"{re.escape(HERE)}:{line}:15 \(f\)"):
        fe.jit(f)(X)


def test_verifier_errors_name_equation_primitive_and_line():
    from lowering.runtime import mlir
    p = Primitive("bad_add")
    p.def_abstract_eval(lambda a: a)
    # an add of a tensor<3xf32> typed as tensor<4xf32>: the verifier rejects it
    p.def_lowering(lambda ctx, x: ctx.op(f"stablehlo.add {x}, {x} : tensor<4xf32>"))
    lowered = fe.jit(lambda x: p.bind(x)).lower(X)
    with pytest.raises(mlir.StableHLOVerificationError, match="primitive 'bad_add', made at"):
        mlir.parse_module(lowered.as_text(debug_info=True))
    with pytest.raises(mlir.StableHLOVerificationError, match="primitive 'bad_add', made at"):
        lowered.compiler_ir()


def test_broken_pass_without_check_names_the_equation():
    def drop_first(g: Graph) -> Graph:  # forgets the first equation: its output is unbound
        return Graph(g.invars, g.constvars, g.consts, g.eqns[1:], g.outvars)

    def f(x):
        return fnp.cos(fnp.sin(x))
    with pytest.raises(ValueError, match=r"equation cos \(made at .*test_locations.py:\d+:\d+ "
                                         r"\(f\)\) reads f32\[3\] value that no earlier"):
        fe.jit(f, passes=P.Pipeline([drop_first], check=False))(X)


def test_passes_keep_locations():
    def f(x):
        return fnp.transpose(fnp.transpose(x)) + 0.0
    g = fe.make_graph(f)(np.ones((2, 3), F32))
    assert all(isinstance(e, Eqn) and source_info(e.loc)[0] == HERE for e in g.eqns)
