"""MkDocs hook (mkdocs.yml ``hooks:``) for the API reference:

- the docstrings' doctest examples (``>>>`` lines and their output, up to a blank line)
  become Python code blocks, shown as code instead of Markdown quotes and links;
- a function a public module exports that was made by a factory (the elementwise families:
  ``_unary.<locals>.fn``) or whose defining module does not hold it under its name is
  documented under the public module and name users call it by (mkdocstrings would drop it
  as an alias it cannot resolve)."""
import glob
import importlib
import inspect
import os
import re
import sys
import types

from markdown import Extension
from markdown.preprocessors import Preprocessor
from mkdocs.plugins import event_priority

_FENCE = re.compile(r"^\s*(```|~~~)")


class _Doctests(Preprocessor):
    def run(self, lines):
        out, fenced, block = [], False, None
        for line in lines + [""]:
            if block is not None:
                if line.strip():
                    block.append(line)
                    continue
                indent = len(block[0]) - len(block[0].lstrip())
                out += ["", " " * indent + "```pycon"] + block + [" " * indent + "```", ""]
                block = None
            if _FENCE.match(line):
                fenced = not fenced
            elif not fenced and line.lstrip().startswith(">>>"):
                block = [line]
                continue
            out.append(line)
        return out[:-1]


class DoctestBlocks(Extension):
    def extendMarkdown(self, md):  # noqa: N802 (Python-Markdown's name)
        md.preprocessors.register(_Doctests(md), "vmaplab_doctests", 28)


def _documented_modules(docs_dir):
    """The modules the API pages render (their ``::: module`` lines)."""
    names = []
    for page in sorted(glob.glob(os.path.join(docs_dir, "api", "*.md"))):
        with open(page, encoding="utf-8") as f:
            names += re.findall(r"^::: ([\w.]+)\s*$", f.read(), re.M)
    return names


def _adopt_exported_functions(modname):
    module = importlib.import_module(modname)
    names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    for name in names:
        fn = getattr(module, name, None)
        if not isinstance(fn, types.FunctionType):
            continue
        for f in {fn, inspect.unwrap(fn)}:  # (mkdocstrings reads the wrapped function)
            home = sys.modules.get(f.__module__)
            if home is not None and getattr(home, f.__qualname__, None) in (f, fn):
                continue  # found where it says it is defined: mkdocstrings resolves it
            f.__module__, f.__qualname__ = modname, name


@event_priority(100)  # before mkdocstrings reads the extensions
def on_config(config):
    config.markdown_extensions.append(DoctestBlocks())
    for modname in _documented_modules(config["docs_dir"]):
        _adopt_exported_functions(modname)
    return config
