"""Every code block of README.md and docs/*.md runs, so the documentation cannot drift from
the code. The rules, by the block's language:

- ``python``: the blocks of one file run in order in one fresh interpreter (one namespace, as
  a reader pasting them one after the other), in a temporary directory, so nothing is written
  into the repository. ``XLA_FLAGS`` gives that interpreter 8 CPU devices (the sharding
  examples use meshes of 4 and say so).
- ``python file=NAME``, ``cpp file=NAME``: a file the following blocks use (``vmaplab dump
  model.py:f``, a C++ handler to compile), written to NAME in that directory, not run itself.
- ``bash``: one command a line (``\\`` continues it, ``&&`` chains commands), run in the same
  directory (where ``examples/`` is linked) and must exit 0: ``vmaplab ...`` as ``python -m
  lowering.cli ...`` (this checkout's code), ``g++ ...`` through bash (it compiles a ``cpp
  file=`` block, a second or two). Commands matching ``SKIPPED`` are not run, for the reason
  given there; any other command fails the test, so a new kind gets a rule here.
- ``text`` (output, diagrams, layouts) and ``cpp`` without ``file=`` (a C++ sketch) are not
  run. A fence without a language fails.
"""
import json
import os
import re
import shlex
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = ["README.md"] + sorted(os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs"))
                              if f.endswith(".md"))
SKIPPED = [
    (r"pip install\b", "installs packages into the environment"),
    (r"python -m pytest\b", "runs the test suite itself"),
    (r"python examples/", "tests/test_examples.py runs every example"),
    (r"python benchmarks/", "benchmarks are long timing runs"),
    (r"cmake ", "builds the kernels (tests/test_platforms.py builds the CUDA ones, -m slow)"),
]
NOT_RUN = {"text", "cpp"}
FENCE = re.compile(r"^```(.*)$")


def code_blocks(text):
    """[(line of the opening fence, info string, code)] of a markdown text."""
    blocks, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j] != "```":
            j += 1
        if j == len(lines):
            raise ValueError(f"line {i + 1}: unclosed code fence")
        blocks.append((i + 1, m.group(1).strip(), "\n".join(lines[i + 1:j]) + "\n"))
        i = j + 1
    return blocks


def bash_commands(code):
    """The commands of a bash block: continuation lines joined, split at ``&&``, comments
    and blank commands dropped."""
    cmds = []
    for line in code.replace("\\\n", " ").split("\n"):
        for cmd in line.split("&&"):
            if shlex.split(cmd, comments=True):
                cmds.append(cmd.strip())
    return cmds


_RUNNER = r"""
import json, sys, traceback
reply, sys.stdout = sys.stdout, sys.stderr  # the blocks' prints go to stderr
ns = {"__name__": "__main__"}
for line in sys.stdin:
    where, code = json.loads(line)
    try:
        exec(compile(code, where, "exec"), ns)
        reply.write("ok\n")
    except BaseException:
        reply.write(json.dumps(traceback.format_exc()) + "\n")
    reply.flush()
"""


class _Interpreter:
    """One Python process running blocks, one after the other, in one namespace."""

    def __init__(self, cwd, env):
        self.log = open(os.path.join(cwd, ".blocks.log"), "w+")
        self.proc = subprocess.Popen([sys.executable, "-c", _RUNNER], cwd=cwd, env=env, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log)

    def run(self, where, code):
        self.proc.stdin.write(json.dumps([where, code]) + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline()
        if reply != "ok\n":
            self.log.seek(0)
            out = self.log.read()[-3000:]
            self.close()
            pytest.fail(f"the python block at {where} failed:\n"
                        f"{json.loads(reply) if reply else 'the interpreter died'}\n{out}")

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=120)
        self.log.close()


def _env():
    return dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
                PYTHONDONTWRITEBYTECODE="1", MPLBACKEND="Agg",
                XLA_FLAGS="--xla_force_host_platform_device_count=8")


def run_markdown(text, name, cwd):
    """Run the blocks of one markdown file by the rules above; returns the list of what was
    skipped (block line, command, reason). Fails the test on a block that fails."""
    os.symlink(os.path.join(ROOT, "examples"), os.path.join(cwd, "examples"))
    env, skipped, py = _env(), [], None

    for line, info, code in code_blocks(text):
        lang, *opts = info.split() if info else ("",)
        where = f"{name}:{line}"
        if lang in ("python", "cpp") and opts:
            assert len(opts) == 1 and opts[0].startswith("file="), f"{where}: unknown option {opts}"
            with open(os.path.join(cwd, opts[0][5:]), "w") as f:
                f.write(code)
        elif lang == "python":
            py = py or _Interpreter(cwd, env)
            py.run(where, code)
        elif lang == "bash":
            for cmd in bash_commands(code):
                reason = next((why for pat, why in SKIPPED if re.match(pat, cmd)), None)
                if reason:
                    skipped.append((where, cmd, reason))
                    continue
                words = shlex.split(cmd, comments=True)
                if words[0] == "vmaplab":
                    args = [sys.executable, "-m", "lowering.cli", *words[1:]]
                elif words[0] == "g++":
                    args = ["bash", "-c", cmd]
                else:
                    raise AssertionError(f"{where}: no rule for the command {cmd!r}")
                r = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
                assert r.returncode == 0, f"{where}: {cmd} exited {r.returncode}:\n{r.stderr[-3000:]}"
        else:
            assert lang in NOT_RUN, f"{where}: a code block without a known language ({info!r})"
    if py:
        py.close()
    return skipped


@pytest.mark.parametrize("name", DOCS)
def test_code_blocks_run(name, tmp_path):
    with open(os.path.join(ROOT, name), encoding="utf-8") as f:
        run_markdown(f.read(), name, str(tmp_path))


def test_the_rules(tmp_path):
    md = ("```python file=m.py\nX = 4\n```\n```python\nimport m\nassert m.X == 4\nprint(m.X)\n```\n"
          "```text\nnot run\n```\n```bash\npip install -e . && python -m pytest -q\n```\n")
    skipped = run_markdown(md, "t.md", str(tmp_path))
    assert [s[1] for s in skipped] == ["pip install -e .", "python -m pytest -q"]
    assert bash_commands("vmaplab dump a.py:f \\\n  --arg f32[3]   # note\n# only a comment\n") == \
        ["vmaplab dump a.py:f    --arg f32[3]   # note"]
    for bad, message in [("```python\nassert 1 == 2\n```\n", "block at t.md:1 failed"),
                         ("```bash\nrm -rf build\n```\n", "no rule for the command"),
                         ("```\nx\n```\n", "without a known language")]:
        (tmp_path / "x").mkdir(exist_ok=True)
        with pytest.raises((AssertionError, pytest.fail.Exception), match=message):
            run_markdown(bad, "t.md", str(tmp_path / "x"))
        (tmp_path / "x" / "examples").unlink()
