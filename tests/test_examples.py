"""Every script in examples/ runs as a test (in a subprocess, as a user would run it)."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = sorted(f for f in os.listdir(os.path.join(ROOT, "examples")) if f.endswith(".py"))
# the child imports this checkout's frontend, not whichever one is installed
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_runs(name, tmp_path):
    args = [sys.executable, os.path.join(ROOT, "examples", name)]
    if name == "dense_layer.py":
        args.append(str(tmp_path / "grid.png"))
    r = subprocess.run(args, capture_output=True, text=True, timeout=300, cwd=tmp_path, env=ENV)
    assert r.returncode == 0, f"{name} failed:\n{r.stdout[-3000:]}\n{r.stderr[-5000:]}"
    if name == "dense_layer.py":
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            return
        assert (tmp_path / "grid.png").stat().st_size > 1000


def test_quickstart_output():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "quickstart.py")],
                       capture_output=True, text=True, timeout=300, env=ENV)
    assert r.returncode == 0, r.stderr
    assert "stablehlo.dot_general" in r.stdout and "matches the per-example loop: True" in r.stdout
