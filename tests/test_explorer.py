"""The explorer's data and page without a browser (tests/test_explorer_browser.py drives the
page itself): each stage present, the links between equations, Python lines, StableHLO
and HLO lines right, the page self-contained, the command line's ways to name a program."""
import json
import os
import re

import numpy as np
import pytest

import frontend as fe
import frontend.numpy as fnp
from frontend import lax
from frontend.core.ir import register_exclusion
from lowering import cli
from lowering.explore import explore_data

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
W = np.arange(12, dtype=np.float32).reshape(4, 3) / 10


def model(x):
    h = fnp.tanh(W @ x + 0.5)   # LINE_MODEL
    return h.sum()


def loss(params, v, y):
    return (fnp.tanh(params["M"] @ v).sum() - y) ** 2   # LINE_LOSS


def looped(x, i):
    y = lax.cond(i > 0, lambda v: fnp.sin(v), lambda v: fnp.cos(v), x)
    return lax.fori_loop(0, 3, lambda k, c: c + fnp.tanh(c), y).sum()   # LINE_LOOP


def _line(marker):
    src = open(__file__).read().split("\n")
    return next(i + 1 for i, s in enumerate(src) if s.endswith(f"# {marker}") and "def" not in s)


# tests/conftest.py wraps every rule (to record which ran): its frames are not the user's lines
register_exclusion(os.path.join(ROOT, "tests", "conftest.py"))


@pytest.fixture(scope="module")
def quick():
    return explore_data(fe.vmap(model), (np.ones((8, 3), np.float32),))


@pytest.fixture(scope="module")
def grads():
    params = {"M": np.ones((2, 3), np.float32)}
    f = fe.vmap(fe.grad(loss), in_axes=(None, 0, 0))
    return explore_data(f, (params, np.ones((5, 3), np.float32), np.ones(5, np.float32)))


def _py(data, marker):
    f = data["files"][0]
    n = _line(marker)
    assert f["name"].endswith("test_explorer.py") and f["first"] <= n
    return f"py:0:{n}"


def test_stages_of_a_vmap(quick):
    names = [s["name"] for s in quick["stages"]]
    assert names == ["traced", "vmapped", "passes"]
    traced, vmapped, final = quick["stages"]
    # the traced graph is the one example's: x is f32[3], the vmapped one's f32[8,3]
    assert "f32[3]" in traced["text"][0][0] and "f32[8,3]" in vmapped["text"][0][0]
    assert final["stats"]["kinds"] == {"dot_general": 1, "add": 1, "tanh": 1, "reduce_sum": 1}
    assert quick["stablehlo_text"] == fe.jit(fe.vmap(model)).lower(np.ones((8, 3), np.float32)).as_text()
    assert quick["hlo"]["cost"]["flops"] > 0 and quick["hlo"]["stats"]["kinds"]["dot"] == 1
    assert [p["name"] for p in quick["passes"]] == ["fold_transposes", "dce"]


def test_equation_links_to_its_stablehlo_and_hlo_and_python_line(quick):
    final = quick["stages"][-1]
    dot = next(n for n in final["graph"]["nodes"] if n["label"] == "dot_general")
    q, py = dot["keys"]
    assert q.startswith("q:") and py == _py(quick, "LINE_MODEL")
    ops = [t for t, k in quick["stablehlo"]["lines"] if q in k]
    assert len(ops) == 1 and "stablehlo.dot_general" in ops[0]
    hlo = [t for t, k in quick["hlo"]["lines"] if q in k]
    assert hlo and any(" dot(" in t for t in hlo), hlo
    # the same line of every graph stage, and of the printed text, carries the Python key
    for st in quick["stages"]:
        assert any(py in n.get("keys", ()) and n["label"] == "dot_general" for n in st["graph"]["nodes"])
        assert any(py in k and "dot_general" in t for t, k in st["text"])
    assert not any("vmaplab.explore" in t for t, _ in quick["stablehlo"]["lines"] + quick["hlo"]["lines"])


def test_backward_pass_equations_get_the_line_they_differentiate(grads):
    """The per-example dM (a dot_general with batching dims, made by the transpose of M @ v
    after the user's function returned) links to the line of M @ v."""
    py = _py(grads, "LINE_LOSS")
    lines = [t for t, k in grads["stablehlo"]["lines"] if py in k]
    batched = [t for t in lines if "stablehlo.dot_general" in t and "batching_dims" in t]
    assert len(batched) == 1, lines


def test_control_flow_sub_graphs_are_clusters():
    d = explore_data(fe.vmap(looped), (np.ones((4, 3), np.float32), np.ones(4, np.int32)))
    g = d["stages"][0]["graph"]  # one example: cond and while hold sub-graphs
    owners = {c["owner"] for c in g["clusters"]}
    labels = {n["id"]: n["label"] for n in g["nodes"]}
    assert {labels[o] for o in owners} >= {"cond", "scan"}, g["clusters"]  # fori_loop: a scan
    inner = [n for n in g["nodes"] if n["parent"] and n["kind"] == "eqn" and n["id"] not in owners]
    assert any(n["label"] == "tanh" for n in inner)
    py = _py(d, "LINE_LOOP")
    body = [t for t, k in d["stablehlo"]["lines"] if py in k]
    assert any("stablehlo.tanh" in t for t in body) and any("stablehlo.while" in t for t in body)
    # each printed line of the graph text maps to an equation or to nothing, never shifted
    for text, keys in d["stages"][0]["text"]:
        if "tanh" in text:
            assert keys == [py]
    # a loop's lines, first to closing, are its equation's, but for the ops inside it that
    # have equations of their own (read from the module's locations and HLO's op_name)
    nodes = d["stages"][-1]["graph"]["nodes"]
    scan, tanh = (next(n["keys"][0] for n in nodes if n["label"] == name) for name in ("scan", "tanh"))
    assert tanh.startswith(scan + ".0.")  # (equation ids: the tanh is in the loop's body)
    lines = d["stablehlo"]["lines"]
    mine = [i for i, (_, k) in enumerate(lines) if scan in k]
    assert "stablehlo.while" in lines[mine[0]][0] and lines[mine[-1]][0].lstrip().startswith("})")
    assert [t for t, k in lines if tanh in k] == [t for t, _ in lines if "stablehlo.tanh" in t]
    assert all(tanh not in k for i, (_, k) in enumerate(lines) if i in mine)
    assert not any("loc(" in t for t, _ in lines)
    hlo = [t for t, k in d["hlo"]["lines"] if tanh in k]
    assert hlo and all(" tanh(" in t for t in hlo), hlo


def test_pass_diff_shows_what_a_pass_changed():
    def f(x):
        return fnp.sin(x) * fnp.sin(x)
    d = explore_data(f, (np.ones(3, np.float32),), passes=("cse", "dce"))
    cse, dce = d["diffs"]
    assert cse["changed"] and any(line.startswith("-") and "sin" in line for line in cse["diff"])
    assert len(cse["before"]["nodes"]) == len(cse["after"]["nodes"]) + 1
    assert [(p["name"], p["before"], p["after"]) for p in d["passes"]] == [("cse", 3, 2), ("dce", 2, 2)]
    assert [s["name"] for s in d["stages"]] == ["traced", "passes"]  # no vmap: no vmapped stage


def test_page_is_self_contained(tmp_path):
    page = fe.explore(fe.vmap(model), np.ones((8, 3), np.float32), path=tmp_path / "p.html")
    text = (tmp_path / "p.html").read_text()
    assert text == page.html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", text), "a network reference"
    assert "dagre" in text and "MIT License" in text
    data = json.loads(re.search(r'id="vm-data">(.*?)</script>', text, re.S).group(1).replace("<\\/", "</"))
    assert data["title"] == "model"


def test_jupyter_reprs():
    xs = np.ones((8, 3), np.float32)
    g = fe.make_graph(fe.vmap(model))(xs)
    html = g._repr_html_()
    assert html.startswith("<iframe srcdoc=") and "dot_general" in html
    lo = fe.jit(fe.vmap(model)).lower(xs)
    html = lo._repr_html_()
    assert "stablehlo.dot_general" in html and "HloModule" in html
    # the Lowered's ops are linked to its graph's equations
    assert re.search(r"stablehlo.dot_general.{0,200}|q:\d", html)


def _cli(argv, capsys):
    try:
        rc = cli.main(argv)
    except SystemExit as e:
        rc = e.code
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_cli_function_by_name_and_by_first_lowering(tmp_path, capsys):
    script = tmp_path / "m.py"
    body = ("import numpy as np\nimport frontend as fe\nimport frontend.numpy as fnp\n\n"
            "def f(x):\n    return fnp.cos(x) * 2.0\n\n")
    script.write_text(body + "if __name__ == '__main__':  # run as `python m.py` would\n"
                      "    print('running')\n    fe.jit(fe.vmap(f)).lower(np.ones((4, 2), np.float32))\n"
                      "    raise SystemExit('not reached')\n")
    page = tmp_path / "page.html"
    rc, out, err = _cli(["explore", str(script), "-o", str(page)], capsys)
    assert rc == 0, err
    assert "running" not in out and "f(f32[4,2])" in out and "KiB" in out
    assert "stablehlo.cosine" in page.read_text()
    script.write_text(body)
    for argv in (["explore", str(script), "--fn", "f"], ["explore", f"{script}:f"]):
        rc, out, err = _cli([*argv, "--arg", "f32[5,3]", "--vmap", "0", "-o", str(page)], capsys)
        assert rc == 0, err
        assert "f(f32[5,3])" in out and "Vmapped" in out


@pytest.mark.parametrize("argv,message", [
    (["--arg", "f32[3]"], "name the function with --fn NAME"),
    (["--fn", "nope"], "defines no function 'nope'"),
])
def test_cli_errors(tmp_path, capsys, argv, message):
    script = tmp_path / "m.py"
    script.write_text("def f(x):\n    return x\n")
    rc, out, err = _cli(["explore", str(script), *argv, "-o", str(tmp_path / "p.html")], capsys)
    assert rc == 2 and message in err and err.count("\n") == 1, err


def test_cli_script_that_only_calls_a_jitted_function(tmp_path, capsys):
    """No lower: the first jitted function called on arrays (not one inside a vmap)."""
    script = tmp_path / "m.py"
    script.write_text("import numpy as np\nimport frontend as fe\nimport frontend.numpy as fnp\n"
                      "g = fe.jit(lambda x: x + 1.0)\nfe.vmap(g)(np.ones((3, 2), np.float32))\n"
                      "def f(x):\n    return fnp.sin(x)\n"
                      "fe.jit(fe.vmap(f))(np.ones((7, 2), np.float32))\n")
    rc, out, err = _cli(["explore", str(script), "-o", str(tmp_path / "p.html")], capsys)
    assert rc == 0, err
    assert "f(f32[7,2])" in out and "stablehlo.sine" in (tmp_path / "p.html").read_text()


def test_cli_script_that_lowers_nothing(tmp_path, capsys):
    script = tmp_path / "m.py"
    script.write_text("def f(x):\n    return x\n")
    rc, _, err = _cli(["explore", str(script), "-o", str(tmp_path / "p.html")], capsys)
    assert rc == 2 and "neither lowers nor calls a jitted function" in err
    assert not (tmp_path / "p.html").exists()


def test_static_and_keyword_arguments():
    def f(x, n, *, scale):
        return fnp.sin(x) * n * scale
    d = explore_data(fe.jit(f, static_argnums=1), (np.ones(3, np.float32), 3), {"scale": 2.0})
    assert d["args"] == ["f32[3]", "3", "scale=f32[]"]
    assert [s["name"] for s in d["stages"]] == ["traced", "passes"]
