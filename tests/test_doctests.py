"""Every ``>>>`` example in the docstrings of frontend/ and lowering/ runs and prints what it
shows: doctest (ELLIPSIS, NORMALIZE_WHITESPACE) over each module, one case per module that
holds examples. Each docstring starts from an empty namespace, as a user pasting it into a
fresh interpreter would, so an example must import what it uses.

The same examples run with ``python -m pytest --doctest-modules frontend lowering -o
addopts=""`` (pytest's doctest, which gives them the module's globals instead)."""
import doctest
import importlib
import os
import types

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _modules():
    """(module name, source path) of every .py file under frontend/ and lowering/."""
    out = []
    for pkg in ("frontend", "lowering"):
        for d, dirs, files in os.walk(os.path.join(ROOT, pkg)):
            dirs[:] = sorted(x for x in dirs if not x.startswith(("__", ".")))
            for f in sorted(files):
                if f.endswith(".py"):
                    path = os.path.join(d, f)
                    name = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
                    out.append((name.removesuffix(".__init__"), path))
    return out


MODULES = _modules()
# a module's examples are in its source text (generated docstrings too: their template is)
WITH_EXAMPLES = [name for name, path in MODULES if ">>>" in open(path, encoding="utf-8").read()]


class _Finder(doctest.DocTestFinder):
    # line numbers of decorated functions: the wrapped function's (as pytest's finder does)
    def _find_lineno(self, obj, source_lines):
        if callable(obj) and not isinstance(obj, type):
            obj = getattr(obj, "__wrapped__", obj)
        return super()._find_lineno(obj, source_lines)


def run_doctests(module, name=None):
    """Run ``module``'s docstring examples, each docstring in an empty namespace. Returns
    (examples tried, failures, report)."""
    report = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in _Finder().find(module, name or module.__name__, globs={}):
        if test.examples:
            runner.run(test, out=report.append)
    return runner.tries, runner.failures, "".join(report)


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples_run(name):
    tried, failed, report = run_doctests(importlib.import_module(name), name)
    assert tried, f"{name}: '>>>' in the source but no example found"
    assert not failed, f"{failed} of {tried} examples of {name} failed:\n{report}"


def test_every_module_with_examples_is_covered():
    missing = []
    for name, _ in MODULES:
        if name in WITH_EXAMPLES:
            continue
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        if any(t.examples for t in _Finder().find(mod, name)):
            missing.append(name)
    assert not missing, f"modules with docstring examples not run: {missing}"


def test_a_wrong_output_fails():
    mod = types.ModuleType("fake_doc_module", '''>>> import numpy as np
>>> int(np.arange(3).sum())
4
''')
    tried, failed, report = run_doctests(mod)
    assert (tried, failed) == (2, 1) and "Expected:\n    4\nGot:\n    3" in report
    mod.__doc__ = ">>> undefined_name + 1\n2\n"
    assert run_doctests(mod)[1] == 1
