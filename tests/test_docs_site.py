"""The docs site (mkdocs.yml, docs/) builds with ``python -m mkdocs build --strict``: a broken
link or anchor, a page missing from the nav, a docstring mkdocstrings cannot render fail the
build, so they fail here. The API reference covers every public module. (tests/test_docs.py
runs the pages' code blocks.)"""
import importlib.util
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings") is None,
    reason="the docs toolchain is not installed (pip install -e '.[docs]')")


def _build(config, site):
    env = dict(os.environ, PYTHONPATH=ROOT, NO_MKDOCS_2_WARNING="1")
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", config,
                           "-d", site], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)


def _public_modules():
    from test_layers import OPT_IN_MODULES, PUBLIC_MODULES
    return PUBLIC_MODULES + OPT_IN_MODULES


def test_site_builds_strictly_with_every_public_module(tmp_path):
    r = _build(os.path.join(ROOT, "mkdocs.yml"), str(tmp_path / "site"))
    assert r.returncode == 0, r.stderr[-4000:]
    site = tmp_path / "site"
    pages = {p: (site / p).read_text() for p in (
        "index.html", "explorer/index.html", "vmap/index.html", "api/frontend/index.html")}
    assert 'src="images/explorer.png"' in pages["index.html"]
    assert (site / "images" / "explorer.png").stat().st_size > 10_000
    api = "".join(p.read_text() for p in (site / "api").rglob("index.html"))
    missing = [m for m in _public_modules() if f'id="{m}"' not in api]
    assert not missing, f"public modules without an API reference section: {missing}"
    for name in ("frontend.vmap", "frontend.explore", "frontend.numpy.tanh", "frontend.numpy.ceil",
                 "frontend.numpy.eye", "frontend.lax.scan", "frontend.lax.cumsum"):
        assert f'id="{name}"' in api, name  # (factory-made and undocumented functions too)
    # doctest examples of docstrings are code, not Markdown quotes (docs/hooks.py)
    assert "<blockquote>\n<blockquote>" not in api


def test_a_broken_reference_fails_the_build(tmp_path):
    """The same settings on a two-page site whose link points nowhere."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# A\n\nSee [the guide](guide.md#no-such-section).\n")
    (docs / "guide.md").write_text("# Guide\n\n## Section\n")
    config = open(os.path.join(ROOT, "mkdocs.yml")).read()
    settings = config[:config.index("\nplugins:")] + config[config.index("\nmarkdown_extensions:"):]
    settings = re.sub(r"\nhooks:\n(  - .*\n)+", "\n", settings)
    settings = settings[:settings.index("\nnav:")] + "\nnav:\n  - index.md\n  - guide.md\n"
    (tmp_path / "mkdocs.yml").write_text(settings.replace("docs_dir: docs", f"docs_dir: {docs}"))
    r = _build(str(tmp_path / "mkdocs.yml"), str(tmp_path / "site"))
    assert r.returncode != 0 and "no-such-section" in r.stderr, r.stderr[-2000:]
    (docs / "index.md").write_text("# A\n\nSee [the guide](guide.md#section).\n")
    r = _build(str(tmp_path / "mkdocs.yml"), str(tmp_path / "site"))
    assert r.returncode == 0, r.stderr[-2000:]
