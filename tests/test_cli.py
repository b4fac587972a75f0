"""The ``vmaplab`` command line, driven in subprocesses on examples/testbed.py: every stage of
``dump`` (to files and printed), ``check``, ``passes``, ``--help``, and bad input."""
import json
import os
import re
import resource
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
        assert "--force" in r.stdout
    if cmd:
        assert "--traceback" in r.stdout
    else:
        assert "Exit status: 0 on success" in r.stdout


@pytest.mark.parametrize("args,message", [
    (["dump", f"{SCRIPT}:mlp", "--arg", "f32[8,x+]"], "bad argument spec 'f32[8,x+]'"),
    (["check", f"{SCRIPT}:mlp", "--arg", "f32[b,3]"], "symbolic dimension 'b' in --arg"),
    (["dump", f"{SCRIPT}:mlp", "--arg", "f32[b,3]", "--arg", "f32[3,4]", "--arg", "f32[4]",
      "--vmap", "0,None,None", "--stage", "hlo"], "XLA needs static shapes"),
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


def test_dump_takes_a_symbolic_batch_dimension():
    """--arg f32[b,3] (b shared by all the arguments): a verified module with dynamic
    dimensions, the batch size read with get_dimension_size, as frontend.export writes."""
    r = vmaplab("dump", f"{SCRIPT}:mlp", "--arg", "f32[b,3]", "--arg", "f32[3,4]", "--arg",
                "f32[4]", "--vmap", "0,None,None", "--stage", "stablehlo")
    assert r.returncode == 0, r.stderr
    text = r.stdout.split("==== stablehlo ====\n", 1)[1]
    verify(text)
    assert "@main(%arg0: tensor<?x3xf32>, %arg1: tensor<3x4xf32>, %arg2: tensor<4xf32>)" in text
    assert "-> (tensor<?xf32>)" in text and "stablehlo.get_dimension_size %arg0, dim = 0" in text
    assert "stablehlo.dynamic_broadcast_in_dim" in text


def _main_in_a_subprocess(invocations, memory=None) -> list:
    """(exit status, stdout, stderr) of lowering.cli.main(args) for each args, all run in one
    subprocess (one start-up of the frontend instead of one each). An invocation is an
    argument list, or (argument list, largest file size it may write in bytes). ``memory``
    caps the subprocess's address space (RLIMIT_AS), so an allocation beyond it fails."""
    invocations = [i if isinstance(i, tuple) else (i, None) for i in invocations]
    driver = textwrap.dedent(f"""
        import contextlib, io, json, resource
        from lowering.cli import main
        res = []
        for args, fsize in {invocations!r}:
            out, err = io.StringIO(), io.StringIO()
            if fsize is not None:
                resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, resource.RLIM_INFINITY))
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
                try:
                    rc = main(args)
                except SystemExit as e:
                    rc = e.code
                except BaseException as e:  # a crash: the row fails, the others still run
                    rc = "uncaught " + repr(e)
            resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY,) * 2)
            res.append((rc, out.getvalue(), err.getvalue()))
        print(json.dumps(res))
    """)
    env = dict(os.environ, PYTHONPATH=ROOT)

    def limit():
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    r = subprocess.run([sys.executable, "-c", driver], capture_output=True, text=True,
                       timeout=120, env=env, cwd=ROOT, preexec_fn=limit)
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
    for (rc, _, err), (_, message) in zip(bad, errors, strict=True):
        assert rc == 2 and err.startswith("vmaplab: error:") and message in err, err


# ----------------------------------------------------------------------------- the CLI rows
# Each row: (id, argv, exit status, a regex stderr must match). Every row with status 2 must
# print exactly ONE line on stderr (but --traceback rows). "{d}" is the directory of the
# scripts below; all rows run in one subprocess whose address space is capped at 4 GiB, so a
# row that allocated a f32[40000,40000] input (6.4 GB) would fail.

SCRIPTS = {
    "syntax.py": b"import math\n\n\ndef f(x):\n    return x +\n",
    "imports.py": b"import numpy\nimport no_such_module_for_vmaplab\n\n\ndef f(x):\n    return x\n",
    "user.py": textwrap.dedent('''\
        import frontend.numpy as fnp


        def helper(x):
            raise RuntimeError("boom while tracing")


        def f(x):
            y = fnp.sin(x)
            return helper(y)


        def matmul(x, w):
            return x @ w


        def two_lines(x):
            raise ValueError("first line\\n  second line")


        def total(x):
            return fnp.sum(x * 2.0, axis=0)


        def text(x):
            return "not an array"


        NOT_A_FUNCTION = 3


        class Unprintable(Exception):
            def __str__(self):
                raise RuntimeError("no message")


        def unprintable(x):
            raise Unprintable()


        def quits(x):
            import sys
            sys.exit(0)


        def uses_lapack(x):  # a custom call: XLA runs it, the reference interpreter cannot
            return fnp.linalg.cholesky(x @ x.T + 3.0 * fnp.eye(x.shape[0]))
        ''').encode(),
    "empty.py": b"",
    "constants.py": b"X = 1\n",
    "latin1.py": b'def f(x):\n    return "\xff\xfe"\n',
    "nul.py": b"\x00def f(x): return x\n",
    "exits.py": b"import sys\nsys.exit(3)\n",
    "notafile.py/keep": b"",
    "afile": b"x",
}
D = "{d}"
U = f"{D}/user.py"
BIG = ["--arg", "f32[40000,40000]"]
OLD = "old contents\n"  # what the --out rows' pre-existing files hold

CLI_ROWS = [
    # the script
    ("syntax-error", ["dump", f"{D}/syntax.py:f"], 2,
     r"^vmaplab: error: \S*syntax\.py:5: SyntaxError: invalid syntax$"),
    ("import-error", ["dump", f"{D}/imports.py:f"], 2,
     r"^vmaplab: error: \S*imports\.py:2: ModuleNotFoundError: No module named "
     r"'no_such_module_for_vmaplab'$"),
    ("missing-script", ["dump", f"{D}/missing.py:f"], 2, r"no such script: \S*missing\.py$"),
    ("script-is-a-directory", ["dump", f"{D}/notafile.py:f"], 2, r"notafile\.py is not a file$"),
    ("empty-script", ["dump", f"{D}/empty.py:f"], 2, r"empty\.py defines no function 'f'$"),
    ("no-functions", ["dump", f"{D}/constants.py:f"], 2, r"constants\.py defines no function 'f'$"),
    ("not-a-function", ["dump", f"{U}:NOT_A_FUNCTION"], 2,
     r"defines no function 'NOT_A_FUNCTION' \(it defines: Unprintable, f, helper, matmul"),
    ("bad-function-name", ["dump", f"{U}:nope"], 2, r"defines no function 'nope'"),
    ("non-utf8-script", ["dump", f"{D}/latin1.py:f"], 2,
     r"latin1\.py:2: SyntaxError: \(unicode error\) 'utf-8' codec can't decode byte 0xff"),
    ("nul-in-script", ["dump", f"{D}/nul.py:f"], 2,
     r"nul\.py: SyntaxError: source code string cannot contain null bytes$"),
    ("script-exits", ["dump", f"{D}/exits.py:f"], 2, r"exits\.py called sys\.exit"),
    # the function, at trace time: the user's file and line
    ("runtime-error", ["dump", f"{U}:f", "--arg", "f32[3]"], 2,
     r"^vmaplab: error: \S*user\.py:5: RuntimeError: boom while tracing$"),
    ("runtime-error-check", ["check", f"{U}:f", "--arg", "f32[3]"], 2,
     r"user\.py:5: RuntimeError: boom while tracing$"),
    ("shape-error", ["dump", f"{U}:matmul", "--arg", "f32[3]", "--arg", "f32[4,4]"], 2,
     r"user\.py:14: TypeError: dot_general requires contracting dimensions"),
    ("multi-line-message", ["dump", f"{U}:two_lines", "--arg", "f32[3]"], 2,
     r"user\.py:18: ValueError: first line second line$"),
    ("returns-text", ["dump", f"{U}:text", "--arg", "f32[3]"], 2,
     r"TypeError: function returned a value of type str"),
    ("unprintable-error", ["dump", f"{U}:unprintable", "--arg", "f32[3]"], 2,
     r"user\.py:38: Unprintable: \(its message could not be printed\)$"),
    ("sys-exit-in-function", ["dump", f"{U}:quits", "--arg", "f32[3]"], 2,
     r"user\.py:43: SystemExit: 0$"),
    ("interpreter-cannot-run", ["check", f"{U}:uses_lapack", "--arg", "f32[3,3]"], 2,
     r"the reference interpreter failed: .*cannot run custom calls"),
    ("too-few-args", ["dump", f"{U}:matmul", "--arg", "f32[3]"], 2,
     r"^vmaplab: error: TypeError: matmul\(\) missing 1 required positional argument"),
    ("traceback", ["dump", f"{U}:f", "--arg", "f32[3]", "--traceback"], 2,
     r"(?s)^Traceback \(most recent call last\):\n.*user\.py\", line 10, in f\n.*"
     r"user\.py\", line 5, in helper\n.*RuntimeError: boom while tracing\n"
     r"vmaplab: error: \S*user\.py:5: RuntimeError: boom while tracing\n$"),
    # the arguments
    ("bad-arg-spec", ["dump", f"{U}:f", "--arg", "f32[3"], 2, r"bad argument spec 'f32\[3'"),
    ("negative-dim", ["dump", f"{U}:f", "--arg", "f32[-3]"], 2, r"bad argument spec"),
    ("dim-beyond-int64", ["dump", f"{U}:f", "--arg", f"f32[{2**63}]"], 2,
     r"bad argument spec 'f32\[9223372036854775808\]': a dimension is at most 2\*\*63 - 1$"),
    ("unknown-flag", ["dump", f"{U}:f", "--frobnicate"], 2,
     r"^vmaplab: error: unrecognized arguments: --frobnicate"),
    ("no-command", [], 2, r"^vmaplab: error: the following arguments are required: COMMAND"),
    ("missing-target", ["dump"], 2, r"required: SCRIPT\.py:FUNCTION"),
    ("bad-seed", ["check", f"{U}:f", "--seed", "x"], 2, r"argument --seed: invalid int value"),
    ("vmap-bool", ["dump", f"{U}:f", "--vmap", "True"], 2, r"bad --vmap in_axes 'True'"),
    ("vmap-float", ["dump", f"{U}:f", "--vmap", "1.5"], 2, r"bad --vmap in_axes '1\.5'"),
    ("vmap-axis-out-of-range", ["dump", f"{U}:f", "--arg", "f32[3]", "--vmap", "1"], 2,
     r"ValueError: vmap was requested to map its argument along axis 1"),
    ("vmap-too-many-axes", ["dump", f"{U}:f", "--arg", "f32[3]", "--vmap", "0,0"], 2,
     r"vmap in_axes must be an int, None, or a tuple"),
    ("vmap-inconsistent-sizes", ["dump", f"{U}:matmul", "--arg", "f32[3]", "--arg", "f32[4]",
                                 "--vmap", "0,0"], 2,
     r"vmap got inconsistent sizes for array axes to be mapped: \* one axis had size 3"),
    # shapes only: dump never allocates its inputs; check does, and says so in one line
    ("huge-dump", ["dump", f"{U}:total", *BIG, "--stage", "all"], 0, r"^$"),
    ("huge-check", ["check", f"{U}:total", *BIG], 2,
     r"^vmaplab: error: cannot allocate the inputs \(--arg f32\[40000,40000\]\): "),
    # --out
    ("out-is-a-file", ["dump", f"{U}:total", "--arg", "f32[3]", "--out", f"{D}/afile"], 2,
     r"--out \S*afile: not a directory$"),
    ("out-under-a-file", ["dump", f"{U}:total", "--arg", "f32[3]", "--out", f"{D}/afile/sub"], 2,
     r"--out \S*afile/sub: \S*afile is not a directory$"),
    ("out-dev-full", ["dump", f"{U}:total", "--arg", "f32[3]", "--out", "/dev/full"], 2,
     r"--out /dev/full: not a directory$"),
    ("out-not-writable", ["dump", f"{U}:total", "--arg", "f32[3]", "--out", "/proc/1"], 2,
     r"--out /proc/1: not writable$"),
    ("out-cannot-create", ["dump", f"{U}:total", "--arg", "f32[3]", "--out", "/proc/1/d"], 2,
     r"--out /proc/1/d: /proc/1 is not writable$"),
    ("out-empty", ["dump", f"{U}:total", "--arg", "f32[3]", "--out="], 2, r"--out: an empty path$"),
    ("out-file-is-a-directory", ["dump", f"{U}:total", "--arg", "f32[3]", "--out", f"{D}/hasdir",
                                 "--force", "--stage", "all"], 2,
     r"^vmaplab: error: cannot write \S*hasdir/stablehlo\.mlir: Is a directory$"),
    ("out-missing-is-made", ["dump", f"{U}:total", "--arg", "f32[3]", "--out", f"{D}/new/dir"],
     0, r"^$"),
    ("out-exists", ["dump", f"{U}:total", "--arg", "f32[3]", "--out", f"{D}/old"], 2,
     r"--out \S*old already holds stablehlo\.mlir; pass --force to overwrite$"),
    ("out-force", ["dump", f"{U}:total", "--arg", "f32[3]", "--out", f"{D}/forced", "--force",
                   "--stage", "all"],
     0, r"^$"),
    ("out-fails-midway", (["dump", f"{U}:total", "--arg", "f32[3]", "--stage", "all", "--force",
                           "--out", f"{D}/midway"], 1000), 2,
     r"^vmaplab: error: cannot write \S*midway/\w+\.\w+: File too large$"),
    ("out-function-fails", ["dump", f"{U}:f", "--arg", "f32[3]", "--stage", "all", "--force",
                            "--out", f"{D}/unchanged"], 2, r"RuntimeError: boom"),
]
STAGE_FILES = ["graph.txt", "passes.txt", "stablehlo.mlir", "linalg.mlir", "hlo.txt"]


@pytest.fixture(scope="module")
def cli_rows(tmp_path_factory):
    """{row id: (exit status, stdout, stderr)} of every CLI row, run in one subprocess capped
    at 4 GiB of address space, and the scripts' directory."""
    d = tmp_path_factory.mktemp("cli")
    for name, data in SCRIPTS.items():
        (d / name).parent.mkdir(parents=True, exist_ok=True)
        (d / name).write_bytes(data)
    for sub in ["old", "forced", "midway", "unchanged"]:
        (d / sub).mkdir()
        for f in STAGE_FILES:
            (d / sub / f).write_text(OLD)
    (d / "hasdir" / "stablehlo.mlir").mkdir(parents=True)  # after graph.txt, passes.txt
    (d / "forced" / "graph.txt").unlink()  # --force also writes the files that are not there
    fill = lambda a: a.replace(D, str(d))  # noqa: E731
    invocations = [(list(map(fill, a[0])), a[1]) if isinstance(a, tuple) else list(map(fill, a))
                   for _, a, _, _ in CLI_ROWS]
    res = _main_in_a_subprocess(invocations, memory=4 << 30)
    return {row[0]: r for row, r in zip(CLI_ROWS, res, strict=True)}, d


@pytest.mark.parametrize("row", CLI_ROWS, ids=[r[0] for r in CLI_ROWS])
def test_cli_rows(cli_rows, row):
    name, _, status, pattern = row
    rc, out, err = cli_rows[0][name]
    assert rc == status, (rc, err)
    assert re.search(pattern, err.rstrip("\n") if name != "traceback" else err, re.M), err
    if status == 2 and name != "traceback":
        assert err.count("\n") == 1 and err.startswith("vmaplab: error: "), err


def test_cli_rows_dump_traces_shapes_only(cli_rows):
    """A f32[40000,40000] argument under a 4 GiB cap: every dump stage, and no allocation."""
    _, out, _ = cli_rows[0]["huge-dump"]
    assert "tensor<40000x40000xf32>" in out and "a:f32[40000,40000]" in out
    assert "HloModule" in out and "linalg.generic" in out


def test_cli_rows_out_files(cli_rows):
    """--out refuses to overwrite without --force, writes every file with it, and a run that
    fails (the function, or a write midway) leaves the files as they were and no temp files."""
    d = cli_rows[1]
    listing = lambda sub: sorted(os.listdir(d / sub))  # noqa: E731
    for sub in ["old", "midway", "unchanged"]:
        assert listing(sub) == sorted(STAGE_FILES), sub
        for f in STAGE_FILES:
            assert (d / sub / f).read_text() == OLD, (sub, f)
    assert listing("forced") == sorted(STAGE_FILES)
    assert listing("hasdir") == ["stablehlo.mlir"]  # no graph.txt, passes.txt, temp files
    assert listing("new/dir") == ["stablehlo.mlir"]
    for f in STAGE_FILES:
        assert (d / "forced" / f).read_text() != OLD, f
    assert "stablehlo.reduce" in (d / "forced" / "stablehlo.mlir").read_text()
    mode = os.stat(d / "forced" / "stablehlo.mlir").st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask  # as open() makes it, not mkstemp's 0o600


def test_unwritable_stdout_is_a_one_line_error():
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "lowering.cli", "passes"], stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=120, cwd=ROOT,
                           env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 2, r.stderr
    assert r.stderr == "vmaplab: error: cannot write to standard output: No space left on device\n"
