"""The ``vmaplab`` command line, driven in subprocesses on examples/testbed.py: every stage of
``dump`` (to files and printed), ``check``, ``passes``, ``--help``, and bad input."""
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest
from harness import verify

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "examples", "testbed.py")
MLP = [f"{SCRIPT}:mlp", "--arg", "f32[8,3]", "--arg", "f32[3,4]", "--arg", "f32[4]",
       "--vmap", "0,None,None"]


def vmaplab(*args, timeout=120):
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-m", "lowering.cli", *args], capture_output=True,
                          text=True, timeout=timeout, env=env, cwd=ROOT)


def test_console_script_is_declared():
    text = open(os.path.join(ROOT, "pyproject.toml")).read()
    assert re.search(r'\[project\.scripts\]\s*\nvmaplab = "lowering\.cli:main"', text)
    from lowering.cli import main
    assert callable(main)


def test_dump_every_stage_to_files(tmp_path):
    out = tmp_path / "dump"
    r = vmaplab("dump", *MLP, "--passes", "strength_reduce,cse,dce", "--mlir-passes",
                "canonicalize", "--stage", "all", "--out", str(out), "--dot")
    assert r.returncode == 0, r.stderr
    files = {p.name: p.read_text() for p in out.iterdir() if p.suffix != ".png"}
    assert set(files) == {"graph.txt", "passes.txt", "stablehlo.mlir", "linalg.mlir", "hlo.txt",
                          "graph.dot"}
    assert "pow" in files["graph.txt"] and "a:f32[8,3]" in files["graph.txt"]
    assert re.search(r"strength_reduce\s+10 -> 10 .*\ncse\s+10 -> 8", files["passes.txt"])
    assert "---- after dce ----" in files["passes.txt"]
    verify(files["stablehlo.mlir"])
    assert "stablehlo.power" not in files["stablehlo.mlir"]
    assert files["stablehlo.mlir"].count("stablehlo.reduce(") == 1  # cse
    assert "linalg.generic" in files["linalg.mlir"] and "HloModule" in files["hlo.txt"]
    assert files["graph.dot"].startswith("digraph ") and "dot_general" in files["graph.dot"]
    assert "pow" not in files["graph.dot"]  # the graph after the passes
    if shutil.which("dot"):
        assert (out / "graph.png").read_bytes()[:4] == b"\x89PNG"
    else:
        assert "no PNG" in r.stdout


def test_check():
    r = vmaplab("check", *MLP, "--passes", "cse,simplify", "--seed", "3")
    assert r.returncode == 0, r.stderr
    assert re.search(r"output 0: float32\[8\] ok \(max abs diff [0-9.e-]+\)", r.stdout)
    assert "XLA and the reference interpreter agree" in r.stdout


@pytest.mark.parametrize("cmd", [[], ["dump"], ["check"], ["passes"]])
def test_help(cmd):
    r = vmaplab(*cmd, "--help")
    assert r.returncode == 0 and r.stdout.startswith("usage: vmaplab")
    if cmd[:1] == ["dump"]:
        assert "--stage {graph,passes,stablehlo,linalg,hlo,all}" in r.stdout and "--dot" in r.stdout


@pytest.mark.parametrize("args,message", [
    (["dump", f"{SCRIPT}:mlp", "--arg", "f32[8,x]"], "bad argument spec 'f32[8,x]'"),
    (["dump", f"{SCRIPT}:mlp", "--arg", "q32[3]"], "unknown dtype 'q32'"),
    (["dump", "nope.py:mlp"], "no such script: nope.py"),
    (["dump", SCRIPT], "expected SCRIPT.py:FUNCTION"),
    (["dump", f"{SCRIPT}:mlp", "--vmap", "0,x"], "bad --vmap in_axes '0,x'"),
    (["dump", f"{SCRIPT}:mlp", "--stage", "ir"], "argument --stage: invalid choice: 'ir'"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
])
def test_bad_input_is_a_clear_error(args, message):
    r = vmaplab(*args)
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def _main_in_a_subprocess(invocations) -> list:
    """(exit status, stdout, stderr) of lowering.cli.main(args) for each args, all run in one
    subprocess (one start-up of the frontend instead of one each)."""
    driver = textwrap.dedent(f"""
        import contextlib, io, json
        from lowering.cli import main
        res = []
        for args in {invocations!r}:
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
                try:
                    rc = main(args)
                except SystemExit as e:
                    rc = e.code
            res.append((rc, out.getvalue(), err.getvalue()))
        print(json.dumps(res))
    """)
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-c", driver], capture_output=True, text=True,
                       timeout=120, env=env, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().split("\n")[-1])


def test_printed_stages_passes_and_errors_needing_the_script():
    errors = [
        ([f"{SCRIPT}:nope", "--arg", "f32[3]"], "defines no function 'nope' (it defines: mlp"),
        ([f"{SCRIPT}:mlp", "--arg", "f32[3]"], "TypeError: mlp() missing 2 required positional"),
        ([f"{SCRIPT}:mlp", "--arg", "f32[3]", "--arg", "f32[4,4]", "--arg", "f32[4]"],
         "dot_general requires contracting dimensions to have the same shape"),
        (MLP + ["--passes", "cse,nope"], "unknown graph pass 'nope'"),
        (MLP + ["--mlir-passes", "nope"], "bad MLIR pass pipeline 'builtin.module(nope)'"),
    ]
    (rc, out, err), (rc2, listing, _), *bad = _main_in_a_subprocess(
        [["dump"] + MLP + ["--stage", "all"], ["passes"]] + [["dump"] + a for a, _ in errors])
    assert rc == 0, err
    assert re.findall(r"^==== (\w+) ====$", out, re.M) == ["graph", "passes", "stablehlo",
                                                           "linalg", "hlo"]
    assert "pipeline: fold_transposes, dce" in out and "stablehlo.power" in out
    assert rc2 == 0
    for name in ["dce", "cse", "fold_constants", "simplify", "fold_transposes",
                 "fold_dot_transposes", "default pipeline: fold_transposes, dce",
                 "stablehlo-legalize-to-linalg", "canonicalize", "sdy-"]:
        assert name in listing, name
    for (rc, _, err), (_, message) in zip(bad, errors):
        assert rc == 2 and err.startswith("vmaplab: error:") and message in err, err
