"""frontend.tree: JAX's ``jax.tree`` names (``map``, ``leaves``, ``flatten``, ...) over
vmaplab's pytrees (``frontend.core.pytree``).

>>> import frontend as fe
>>> fe.tree.map(lambda v: v + 1, [1, (2,)])
[2, (3,)]
"""
from __future__ import annotations

from .core import jax_names as _jax_names
from .core.pytree import (
    tree_all,
    tree_flatten,
    tree_flatten_with_path,
    tree_leaves,
    tree_leaves_with_path,
    tree_map,
    tree_map_with_path,
    tree_reduce,
    tree_structure,
    tree_unflatten,
)

flatten = tree_flatten
unflatten = tree_unflatten
leaves = tree_leaves
structure = tree_structure
map = tree_map  # noqa: A001
reduce = tree_reduce
all = tree_all  # noqa: A001
flatten_with_path = tree_flatten_with_path
leaves_with_path = tree_leaves_with_path
map_with_path = tree_map_with_path


def __getattr__(name):
    raise _jax_names.missing(__name__, name)
