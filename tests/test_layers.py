"""The module graph: no import cycles among the project's modules (imports inside functions
count), and imports go one way through the layers below. A new module must be given a
layer here (the test names any module that has none)."""
from __future__ import annotations

import ast
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("frontend", "lowering")

# lowest first; a module may import modules of its own layer or below. A module belongs to
# the layer of the longest prefix that names it.
LAYERS = [
    ("core", ["frontend._jax_names", "frontend.dtypes", "frontend.tree", "frontend.core",
              "frontend._backend", "frontend.sharding", "frontend.array"]),
    ("tracing", ["frontend.batching", "frontend.tracing"]),
    # autodiff's core: symbolic zeros, the JVP trace, linearize by partial evaluation
    ("autodiff", ["frontend.ad_util", "frontend.jvp", "frontend.partial_eval"]),
    # frontend.ad (backward pass, graph-level jvp/linearize/transpose) binds add and
    # broadcast_in_dim and the control-flow rules use it: it sits with the primitives
    ("primitives", ["frontend.primitives", "frontend.ad"]),
    ("vmap", ["frontend.vectorize"]),
    # custom_jvp / custom_vjp: the libraries below the API define derivatives with them
    # (logaddexp, relu, xlogy: JAX's custom rules, so values at ties and edges match)
    ("custom rules", ["frontend.custom_derivatives"]),
    ("lax", ["frontend.lax"]),
    ("numpy", ["frontend.numpy"]),
    ("scipy", ["frontend.scipy"]),
    ("passes", ["frontend.passes"]),
    ("library", ["frontend.random", "frontend.nn", "frontend.ops"]),
    ("api", ["frontend.custom_batching", "frontend.array_methods", "frontend.api", "frontend.tree_util",
             "frontend.autodiff", "frontend.checkpoint",
             "frontend.extend", "frontend.ffi", "frontend.kernels", "frontend.spmd",
             "frontend.distributed", "frontend"]),
    ("lowering", ["lowering.shardy", "lowering.hlo", "lowering.emit"]),
    ("backend", ["lowering.runtime", "lowering.backend", "lowering"]),
    ("cli", ["lowering.cli"]),
]
# only these may import jax / jaxlib (the one seam for unstable APIs)
JAX_USERS = ("lowering.runtime",)


def _modules() -> dict:
    """module name -> path, for every .py file of the packages."""
    mods = {}
    for pkg in PACKAGES:
        for dirpath, _, files in os.walk(os.path.join(ROOT, pkg)):
            for f in files:
                if not f.endswith(".py"):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, f), ROOT)[:-3].split(os.sep)
                if rel[-1] == "__init__":
                    rel = rel[:-1]
                mods[".".join(rel)] = os.path.join(dirpath, f)
    return mods


def _imports(name: str, path: str, mods: dict):
    """(imported project modules, imported external top-level packages) of one module,
    counting imports anywhere in it."""
    tree = ast.parse(open(path).read(), path)
    is_pkg = path.endswith("__init__.py")
    here = name.split(".") if is_pkg else name.split(".")[:-1]
    inner, outer = set(), set()

    def add(target):
        if target.split(".")[0] in PACKAGES:
            while target not in mods and "." in target:
                target = target.rsplit(".", 1)[0]
            inner.add(target)
        else:
            outer.add(target.split(".")[0])

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                add(a.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = here[:len(here) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            for a in node.names:
                full = f"{base}.{a.name}"
                add(full if full in mods else base)
    inner.discard(name)
    return inner, outer


def _graph():
    mods = _modules()
    return mods, {m: _imports(m, p, mods) for m, p in mods.items()}


def _layer(name: str):
    best = None
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if name == p or name.startswith(p + "."):
                if best is None or len(p) > best[1]:
                    best = (i, len(p))
    return None if best is None else best[0]


def _cycles(edges: dict) -> list:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles():
    _, g = _graph()
    cycles = _cycles({m: inner for m, (inner, _) in g.items()})
    assert not cycles, "import cycles among the project's modules:\n" + "\n".join(
        " <-> ".join(c) for c in cycles)


def test_every_module_has_a_layer():
    mods, _ = _graph()
    missing = sorted(m for m in mods if _layer(m) is None)
    assert not missing, f"modules without a layer in tests/test_layers.py: {missing}"


def test_imports_go_down_the_layers():
    _, g = _graph()
    bad = []
    for m, (inner, _) in g.items():
        lm = _layer(m)
        for t in inner:
            lt = _layer(t)
            if lm is not None and lt is not None and lt > lm:
                bad.append(f"{m} ({LAYERS[lm][0]}) imports {t} ({LAYERS[lt][0]})")
    assert not bad, "imports that go up a layer:\n" + "\n".join(sorted(bad))


def test_frontend_never_imports_lowering_or_jax():
    """frontend reaches lowering only through frontend/_backend.py (a lazy importlib call)."""
    _, g = _graph()
    bad = [f"{m} imports {t}" for m, (inner, outer) in g.items() if m.startswith("frontend")
           for t in sorted(inner | outer) if t.startswith("lowering") or t in ("jax", "jaxlib")]
    assert not bad, "\n".join(bad)


def test_only_the_runtime_touches_jax():
    _, g = _graph()
    bad = [f"{m} imports {t}" for m, (_, outer) in g.items()
           if not m.startswith(JAX_USERS) for t in sorted(outer) if t in ("jax", "jaxlib")]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("snippet,cycle", [
    ("a: from . import b\nb: from . import a", True),
    ("a: from . import b\nb: import os", False),
])
def test_cycle_finder_finds_cycles(snippet, cycle):
    edges = {}
    for line in snippet.split("\n"):
        m, imp = line.split(": ")
        edges[m] = {imp.split()[-1]} if "from ." in imp else set()
    assert bool(_cycles(edges)) == cycle
