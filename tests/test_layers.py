"""The module graph: no import cycles among the project's modules (imports inside functions
count), and imports go one way through the layers below, each layer a folder. A new module
must be given a layer here (the test names any module that has none). Also: every public
module path and every name the README's examples use imports, and the frontend asks the
backend only for names it exports."""
from __future__ import annotations

import ast
import functools
import importlib
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("frontend", "lowering")

# Lowest first; a module may import modules of its own layer or below. A module belongs to
# the layer of the longest prefix that names it; a prefix is a folder, except the modules
# in EXCEPTIONS (whose imports do not fit their folder's layer) and the public modules at
# the package roots.
LAYERS = [
    ("core", ["frontend.core"]),
    # Array and shardings are values every layer above handles (tracing entry points,
    # lax, passes): the device side's values sit right above core
    ("device", ["frontend.device", "frontend.sharding"]),
    ("interpreters", ["frontend.interpreters"]),
    ("primitives", ["frontend.primitives"]),
    ("lax", ["frontend.lax"]),
    ("numpy", ["frontend.numpy"]),
    # random below scipy: scipy.stats.gaussian_kde.resample draws with random (as JAX's)
    ("random", ["frontend.random"]),
    ("scipy", ["frontend.scipy"]),
    ("libraries", ["frontend.nn", "frontend.passes"]),
    ("transforms", ["frontend.transforms"]),
    ("public", ["frontend.custom_batching", "frontend.tree", "frontend.tree_util",
                "frontend.extend", "frontend.ffi", "frontend.kernels", "frontend.distributed",
                "frontend.export", "frontend.ops", "frontend.explorer", "frontend.compilation_cache",
                "frontend.ragged", "frontend"]),
    ("emit", ["lowering.emit"]),
    ("runtime", ["lowering.runtime"]),
    ("backend", ["lowering"]),
    ("cli", ["lowering.cli"]),
]
# module -> (layer, why its folder's layer does not fit)
EXCEPTIONS = {
    "frontend.transforms.custom_derivatives": (
        "primitives", "lax, numpy, nn and scipy define JAX's custom derivatives with custom_jvp "
        "(logaddexp, relu, xlogy: values at ties and edges as JAX's)"),
    "frontend.core.arguments": (
        "device", "abstractify reads an Array's aval; foreign arrays are adopted as Arrays"),
    "frontend.device.fusion": (
        "interpreters", "eager fusion traces a numpy function through core.tracing"),
    "frontend.core.tracing": (
        "interpreters", "traces a shard_map body with interpreters' ManualTrace, adopts Arrays"),
    "frontend.interpreters.transpose": (
        "primitives", "the backward pass binds add and broadcast_in_dim"),
    "frontend.scipy.optimize": (
        "transforms", "minimize differentiates the objective (value_and_grad), as JAX's; "
        "frontend.scipy imports it on first use"),
    "frontend.transforms.vmap": (
        "primitives", "lax.map, the loops' batching rules and random's gamma call vmap"),
}
_LAYER_NAMES = [n for n, _ in LAYERS]

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


@functools.cache
def _graph():
    mods = _modules()
    return mods, {m: _imports(m, p, mods) for m, p in mods.items()}


def _layer(name: str, exceptions: bool = True):
    if exceptions and name in EXCEPTIONS:
        return _LAYER_NAMES.index(EXCEPTIONS[name][0])
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
    stale = sorted(set(EXCEPTIONS) - set(mods))
    assert not stale, f"EXCEPTIONS names modules that do not exist: {stale}"


def _upward_imports(g: dict, layer_of) -> list:
    bad = []
    for m, (inner, _) in g.items():
        lm = layer_of(m)
        for t in inner:
            lt = layer_of(t)
            if lm is not None and lt is not None and lt > lm:
                bad.append(f"{m} ({LAYERS[lm][0]}) imports {t} ({LAYERS[lt][0]})")
    return sorted(bad)


def test_imports_go_down_the_layers():
    _, g = _graph()
    bad = _upward_imports(g, _layer)
    assert not bad, "imports that go up a layer:\n" + "\n".join(bad)


@pytest.mark.parametrize("module", sorted(EXCEPTIONS))
def test_each_exception_is_needed(module):
    """Without its exception, the module's folder layer would have an import going up."""
    _, g = _graph()
    bad = _upward_imports(g, lambda m: _layer(m, exceptions=m != module))
    assert any(module in b for b in bad), f"{module} fits its folder's layer: drop its exception"


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


def test_frontend_asks_the_backend_only_for_its_interface():
    """The frontend calls the backend by name through its seam (``_backend.get().X``, or
    ``be.X`` with ``be = _backend.get()``): every such name is in lowering.backend.__all__,
    and each name there is asked for by the frontend (or by lowering.cli / the tests)."""


    import lowering.backend as backend

    asked: dict = {}
    pattern = re.compile(r"\b(?:_backend\.get\(\)|be)\.([A-Za-z_]\w*)")
    for name, path in _modules().items():
        if not name.startswith("frontend"):
            continue
        text = open(path).read()
        if "seam" not in text:
            continue
        for m in pattern.finditer(text):
            asked.setdefault(m.group(1), name)
    assert len(asked) > 30, sorted(asked)
    unknown = sorted(f"{n} (asked by {m})" for n, m in asked.items() if n not in backend.__all__)
    assert not unknown, f"names the frontend asks lowering.backend for but it lacks: {unknown}"
    missing = [n for n in backend.__all__ if not hasattr(backend, n)]
    assert not missing, f"lowering.backend.__all__ names what it does not define: {missing}"
    others = "".join(open(os.path.join(ROOT, *p.split("/"))).read() for p in (
        "lowering/cli.py", "tests/test_mlir_passes.py", "tests/test_sharding.py"))
    unused = [n for n in backend.__all__ if n not in asked and f"backend.{n}" not in others]
    assert not unused, f"lowering.backend exports names nobody asks for: {unused}"


# every public module path (as JAX's: jax.numpy.linalg, jax.scipy.special, ...) and the command
PUBLIC_MODULES = [
    "frontend", "frontend.numpy", "frontend.numpy.linalg", "frontend.numpy.fft", "frontend.lax",
    "frontend.lax.linalg", "frontend.random", "frontend.nn", "frontend.nn.initializers",
    "frontend.scipy", "frontend.scipy.linalg", "frontend.scipy.special", "frontend.scipy.stats",
    "frontend.scipy.signal", "frontend.scipy.fft", "frontend.scipy.integrate",
    "frontend.scipy.interpolate", "frontend.scipy.ndimage", "frontend.scipy.cluster",
    "frontend.scipy.cluster.vq", "frontend.scipy.spatial", "frontend.scipy.spatial.transform",
    "frontend.scipy.sparse", "frontend.scipy.sparse.linalg", "frontend.scipy.optimize",
    "frontend.tree",
    "frontend.tree_util", "frontend.extend", "frontend.export", "frontend.ffi",
    "frontend.sharding", "frontend.custom_batching", "frontend.distributed", "frontend.ops",
    "frontend.passes", "frontend.debug", "frontend.experimental", "frontend.ragged",
    "frontend.ad_checkpoint", "frontend.custom_derivatives", "frontend.dlpack",
    "frontend.dtypes", "frontend.errors", "frontend.monitoring", "frontend.stages",
    "frontend.typing", "frontend.version", "frontend.profiler",
]
# imported by name only (not attributes of ``import frontend``): the optional kernels, the command
OPT_IN_MODULES = ["frontend.kernels", "lowering.cli"]


def test_public_module_paths_import_and_are_the_attributes():
    """Each public path imports, and after ``import frontend`` alone, ``frontend.a.b`` as an
    attribute is that module (not another object bound to the name), in a fresh process;
    the opt-in modules import."""
    code = (
        "import importlib, sys\n"
        "import frontend\n"
        "bad = []\n"
        f"for path in {PUBLIC_MODULES!r}:\n"
        "    root, *rest = path.split('.')\n"
        "    obj = importlib.import_module(root)\n"
        "    try:\n"
        "        for a in rest:\n"
        "            obj = getattr(obj, a)\n"
        "    except AttributeError as e:\n"
        "        obj = e\n"
        "    if obj is not importlib.import_module(path):\n"
        "        bad.append(f'{path}: the attribute is {obj!r}')\n"
        f"for path in {OPT_IN_MODULES!r}:\n"
        "    importlib.import_module(path)\n"
        "print('\\n'.join(bad))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-2000:]
    assert not r.stdout.strip(), r.stdout


_README_ROOTS = {"fe": "frontend", "fnp": "frontend.numpy", "lax": "frontend.lax",
                 "frontend": "frontend"}


def _resolve(dotted: str):
    """The object a dotted path names (modules imported as needed)."""
    parts = dotted.split(".")
    obj = importlib.import_module(parts[0])
    for i, a in enumerate(parts[1:], 1):
        try:
            obj = getattr(obj, a)
        except AttributeError:
            obj = importlib.import_module(".".join(parts[:i + 1]))
    return obj


def _readme_names() -> list:
    """The dotted names the README's code uses: ``fe.X``, ``fnp.X``, ``lax.X``,
    ``frontend.X.Y`` and the names its ``from frontend... import`` lines take."""
    text = open(os.path.join(ROOT, "README.md")).read()
    code = "\n".join(re.findall(r"```python\n(.*?)```", text, re.S) + re.findall(r"`([^`\n]+)`", text))
    names = set()
    for alias, dotted in re.findall(r"(?<![\w.])(fe|fnp|lax|frontend)((?:\.[A-Za-z_]\w*)+)", code):
        names.add(_README_ROOTS[alias] + dotted)
    for mod, what in re.findall(r"^\s*from (frontend[\w.]*) import ([^#\n]+)", code, re.M):
        for item in what.strip("() ").split(","):
            if item.strip():
                names.add(f"{mod}.{item.split(' as ')[0].strip()}")
    return sorted(names)


def test_every_name_the_readme_uses_exists():
    names = _readme_names()
    assert len(names) > 40 and "frontend.jit" in names and "frontend.numpy.tanh" in names, names
    bad = []
    for n in names:
        try:
            _resolve(n)
        except (AttributeError, ImportError) as e:
            bad.append(f"{n}: {e}")
    assert not bad, "names the README uses that do not exist:\n" + "\n".join(bad)


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
