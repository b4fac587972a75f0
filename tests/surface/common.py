"""The surface tables' contract (tests/test_surface.py runs them).

Each module ``tests/surface/<name>.py`` describes one JAX module and defines:

- ``JAX``: the JAX module's import path (``"jax.numpy"``); ``OURS``: ours (``"frontend.numpy"``).
- ``REQUIRED``: the least fraction of JAX's public names that must be present and compared
  (a float, or None where the issue sets no bar).
- ``CASES``: ``{name: [Case, ...]}``: ``ours.name(*args, **kwargs)`` and
  ``jax_module.name(*args, **kwargs)`` are compared (structure, shapes, dtypes, weak types,
  values; or both raise ``raises``), eagerly and, for ``jit=True``, under ``fe.jit``/``jax.jit``
  with the array arguments traced.
  An argument ``Side(f)`` is ``f(module)`` on each side (a function of the module, e.g. lax.add).
- ``ELSEWHERE``: ``{name: "tests/test_x.py::test_name"}``: names compared with JAX by a test of
  their own (transformations, classes, constants); the test must exist.
- ``ABSENT``: ``{name: reason}``: names left out on purpose.

Every public name of the installed JAX module is in exactly one of the three.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Case:
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    jit: bool = True
    raises: type[BaseException] | None = None
    compare: Callable[[Any, Any], None] | None = None   # (ours, theirs) -> raises on mismatch


@dataclass(frozen=True)
class Side:
    """An argument that names something of the module under test: ``Side(lambda m: m.add)``
    is ``frontend.lax.add`` in our call and ``jax.lax.add`` in JAX's."""
    pick: Callable[[Any], Any]


def c(*args: Any, _jit: bool = True, _raises: type[BaseException] | None = None,
      _compare: Callable[[Any, Any], None] | None = None, **kwargs: Any) -> Case:
    """One call of a table row: positional and keyword arguments, plus the options."""
    return Case(args, kwargs, _jit, _raises, _compare)


def public_names(module: Any) -> list[str]:
    """JAX's public names of a module, as the tables count them."""
    return sorted(n for n in dir(module) if not n.startswith("_"))
