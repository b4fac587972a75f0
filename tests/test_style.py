"""The project's lint rules (pyproject.toml [tool.ruff]: pyflakes and import order) hold, so
unused imports, unused variables and undefined names do not come back."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_ruff_is_clean():
    ruff = shutil.which("ruff")
    cmd = [ruff] if ruff else [sys.executable, "-m", "ruff"]
    try:
        r = subprocess.run(cmd + ["check", "--output-format", "concise", "frontend", "lowering",
                                  "vmaplab", "tests", "examples", "benchmarks"],
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        pytest.fail("ruff is not installed: pip install -e '.[test]'")
    if "No module named ruff" in r.stderr:
        pytest.fail("ruff is not installed: pip install -e '.[test]'")
    assert r.returncode == 0, r.stdout + r.stderr
