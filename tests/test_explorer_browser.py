"""The explorer page in a real browser: headless Chromium driven by Selenium loads the pages
``vmaplab explore`` writes for examples/quickstart.py and examples/per_example_grads.py, with
no console errors, every stage drawn, and clicks that highlight the right StableHLO lines.
A screenshot of each page is written to the test's temporary directory (its path printed).

The browser is Debian's ``chromium`` + ``chromium-driver`` (installed with apt-get when
missing, as root under CI; .ci/run does it); without one the tests skip, saying so."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = ("quickstart", "per_example_grads")
STAGES = ("source", "traced", "vmapped", "passes", "diff", "stats", "stablehlo", "hlo")


def _browser():
    """(chromium, chromedriver) paths, installing them with apt-get as root under CI; or
    the reason there is none."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    find = lambda: [shutil.which(n) for n in ("chromium", "chromedriver")]  # noqa: E731
    paths = find()
    if None in paths and os.environ.get("CI") and hasattr(os, "geteuid") and os.geteuid() == 0 \
            and shutil.which("apt-get"):
        subprocess.run(["apt-get", "install", "-y", "-q", "chromium", "chromium-driver"],
                       capture_output=True)
        paths = find()
    if None in paths:
        return "no Chromium here (apt-get install chromium chromium-driver)"
    return paths


@pytest.fixture(scope="module")
def driver():
    found = _browser()
    if isinstance(found, str):
        pytest.skip(f"explorer browser test skipped: {found}")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    chromium, chromedriver = found
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              "--window-size=1600,1000"):
        opts.add_argument(a)
    profile = tempfile.mkdtemp(prefix="vmaplab-chromium-")
    opts.add_argument(f"--user-data-dir={profile}")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(chromedriver), options=opts)
    yield d
    d.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """The two pages, written by the command line (both at once, in two processes)."""
    out = tmp_path_factory.mktemp("explorer")
    env = dict(os.environ, PYTHONPATH=ROOT)
    procs = {name: subprocess.Popen(
        [sys.executable, "-m", "lowering.cli", "explore", os.path.join(ROOT, "examples", f"{name}.py"),
         "-o", str(out / f"{name}.html")], env=env, cwd=str(out), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True) for name in EXAMPLES}
    for name, p in procs.items():
        stdout, stderr = p.communicate(timeout=120)
        assert p.returncode == 0, stderr
        assert f"{name}.html" in stdout, stdout
    return out


def _open(driver, path):
    from selenium.webdriver.support.ui import WebDriverWait
    driver.get_log("browser")  # (drop what an earlier page logged)
    driver.get(path.as_uri())
    WebDriverWait(driver, 20).until(
        lambda d: d.execute_script("return document.body.dataset.ready") == "1")
    return json.loads(driver.execute_script("return document.getElementById('vm-data').textContent"))


def _highlighted(driver, stage, cls="hl"):
    return driver.execute_script(
        f"return [...document.querySelectorAll('#stage-{stage} .ln.{cls} .tx')].map(e => e.textContent)")


@pytest.mark.parametrize("name", EXAMPLES)
def test_page_loads_with_every_stage_and_no_console_errors(driver, pages, name):
    from selenium.webdriver.common.by import By
    data = _open(driver, pages / f"{name}.html")
    errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert not errors, errors
    for stage in STAGES:
        assert driver.find_elements(By.ID, f"stage-{stage}"), f"stage {stage} is missing"
    for stage in ("traced", "vmapped", "passes"):  # each drawn by the layout library
        drawn = driver.find_elements(By.CSS_SELECTOR, f"#stage-{stage} svg g.node")
        n = len(next(s for s in data["stages"] if s["name"] == stage)["graph"]["nodes"])
        assert len(drawn) == n > 0, (stage, len(drawn), n)
    assert len(driver.find_elements(By.CSS_SELECTOR, "#stage-stablehlo .ln")) == \
        len(data["stablehlo"]["lines"])
    shot = pages / f"{name}.png"
    driver.save_screenshot(str(shot))
    print(f"screenshot: {shot}")


def test_clicking_an_equation_highlights_its_stablehlo_lines(driver, pages):
    """quickstart: the lowered graph's dot_general node -> exactly the StableHLO lines its
    lowering wrote (one stablehlo.dot_general), its Python line lightly."""
    from selenium.webdriver.common.by import By
    data = _open(driver, pages / "quickstart.html")
    node = next(n for n in data["stages"][-1]["graph"]["nodes"] if n["label"] == "dot_general")
    driver.find_element(By.CSS_SELECTOR, f'#stage-passes g.node[data-node="{node["id"]}"]').click()
    assert driver.execute_script("return document.body.dataset.selected").split() == node["keys"]
    got = _highlighted(driver, "stablehlo")
    want = [t for t, k in data["stablehlo"]["lines"] if node["keys"][0] in k]
    assert got == want and len(got) == 1 and "stablehlo.dot_general" in got[0], got
    py = _highlighted(driver, "source", "hl2")
    assert len(py) == 1 and "W @ x" in py[0], py
    assert any(" dot(" in line for line in _highlighted(driver, "hlo")), "no HLO dot highlighted"


def test_python_line_of_the_seed_model_highlights_one_batched_dot(driver, pages):
    """per_example_grads: clicking the model's line (params["M"] @ v) highlights, among its
    ops, exactly one stablehlo.dot_general with batching dims: dM of every example at once."""
    from selenium.webdriver.common.by import By
    _open(driver, pages / "per_example_grads.html")
    rows = driver.find_elements(By.CSS_SELECTOR, "#stage-source .ln")
    row = next(r for r in rows if 'params["M"] @ v' in r.text)
    row.click()
    lines = _highlighted(driver, "stablehlo")
    dots = [t for t in lines if "stablehlo.dot_general" in t]
    batched = [t for t in dots if re.search(r"batching_dims = \[\d", t)]
    assert len(batched) == 1, lines
    # and the graph nodes of that line are highlighted in every graph stage
    for stage in ("traced", "vmapped", "passes"):
        assert driver.find_elements(By.CSS_SELECTOR, f"#stage-{stage} g.node.hl"), stage


def test_sub_graphs_collapse_and_expand(driver, tmp_path):
    """A scan's body is a cluster: its corner button collapses it to the scan's node and
    expands it again (the layout is redone each time)."""
    import numpy as np
    from selenium.webdriver.common.by import By

    import frontend as fe
    import frontend.numpy as fnp
    from frontend import lax

    def f(x):
        return lax.fori_loop(0, 3, lambda k, c: c + fnp.tanh(c), x).sum()

    fe.explore(fe.vmap(f), np.ones((4, 3), np.float32), path=tmp_path / "loop.html")
    data = _open(driver, tmp_path / "loop.html")
    count = lambda: len(driver.find_elements(By.CSS_SELECTOR, "#stage-passes svg g.node"))  # noqa: E731
    total = len(data["stages"][-1]["graph"]["nodes"])
    assert count() == total
    driver.find_element(By.CSS_SELECTOR, "#stage-passes [data-toggle]").click()
    inner = [n for n in data["stages"][-1]["graph"]["nodes"] if n["parent"] and "g" in n["parent"]]
    assert inner and count() == total - len(inner)
    assert driver.find_elements(By.CSS_SELECTOR, "#stage-passes svg .cluster") == []
    driver.find_element(By.CSS_SELECTOR, "#stage-passes [data-toggle]").click()
    assert count() == total
    assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
