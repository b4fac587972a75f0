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
    ("core", ["frontend.core.jax_names", "frontend.core.dtypes", "frontend.core.pytree", "frontend.core.ir",
              "frontend.device.seam", "frontend.sharding", "frontend.device.array"]),
    ("tracing", ["frontend.interpreters.batching", "frontend.core.tracing"]),
    # autodiff's core: symbolic zeros, the JVP trace, linearize by partial evaluation
    ("autodiff", ["frontend.interpreters.ad_util", "frontend.interpreters.jvp", "frontend.interpreters.partial_eval"]),
    # frontend.interpreters.transpose (backward pass, graph-level jvp/linearize/transpose) binds add and
    # broadcast_in_dim and the control-flow rules use it: it sits with the primitives
    ("primitives", ["frontend.primitives", "frontend.interpreters.transpose"]),
    ("vmap", ["frontend.transforms.vmap"]),
    ("lax", ["frontend.lax"]),
    ("numpy", ["frontend.numpy"]),
    ("scipy", ["frontend.scipy"]),
    ("passes", ["frontend.passes"]),
    ("library", ["frontend.random", "frontend.nn", "frontend.ops"]),
    ("api", ["frontend.custom_batching", "frontend.device.array_methods", "frontend.transforms.jit", "frontend.tree_util",
             "frontend.transforms.grad", "frontend.transforms.custom_derivatives", "frontend.transforms.checkpoint",
             "frontend.extend", "frontend.ffi", "frontend.kernels", "frontend.transforms.shard_map",
             "frontend.distributed", "frontend"]),
    ("lowering", ["lowering.emit.shardy", "lowering.emit.module", "lowering.emit"]),
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
    """frontend reaches lowering only through frontend/device/seam.py (a lazy importlib call)."""
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


# The libraries over lax call lax's functions, never a primitive's bind: one place (lax)
# turns arguments into primitive parameters. The allowlist names (file, receiver) pairs
# that must stay, each with its reason.
LAX_CLIENTS = ("frontend/numpy", "frontend/scipy", "frontend/nn", "frontend/random")
BIND_ALLOWED = {
    # random_gamma_p is frontend.random's own primitive (defined in _gamma.py with its rules,
    # as a user's frontend.extend primitive would be): no lax function stands for it
    ("frontend/random/_gamma.py", "random_gamma_p"),
    ("frontend/random/_gamma_samplers.py", "random_gamma_p"),
}


def _binds(root: str) -> list:
    """(file, line, receiver) of every ``<receiver>.bind(...)`` call in the lax clients."""
    found = []
    for lib in LAX_CLIENTS:
        for dirpath, _, files in os.walk(os.path.join(root, lib)):
            for f in sorted(files):
                if not f.endswith(".py"):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                for node in ast.walk(ast.parse(open(path).read(), path)):
                    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                            and node.func.attr == "bind":
                        found.append((rel, node.lineno, ast.unparse(node.func.value)))
    return found


def test_libraries_call_lax_not_bind():
    bad = [f"{rel}:{line}: {recv}.bind(...)" for rel, line, recv in _binds(ROOT)
           if (rel, recv.rsplit(".", 1)[-1]) not in BIND_ALLOWED]
    assert not bad, ("bind a primitive through its frontend.lax function (add one to lax, "
                     "with an underscore if JAX's lax has none):\n" + "\n".join(bad))
