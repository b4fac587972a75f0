"""jax.tree_util: the functions on one nested dict/tuple/list/None tree (results compared as
pytrees; tree structures by their printed form)."""
import numpy as np

from surface.common import c

JAX, OURS, REQUIRED = "jax.tree_util", "frontend.tree_util", None
TREE = {"b": (1, [2.0, None]), "a": np.float32(3), "c": {"d": np.arange(3, dtype=np.int32)}}
TREES = [TREE, TREE]


def _str(ours, theirs):
    assert str(ours) == str(theirs), (str(ours), str(theirs))


CASES = {
    "tree_leaves": [c(TREE, _jit=False), c(TREE, is_leaf=lambda x: isinstance(x, list), _jit=False)],
    "tree_map": [c(lambda x: x * 2, TREE, _jit=False), c(lambda x, y: (x, y), TREE, TREE, _jit=False)],
    "tree_all": [c([1, (2.0,)], _jit=False), c([1, 0], _jit=False)],
    "all_leaves": [c([1, 2.0], _jit=False), c([TREE], _jit=False)],
    "tree_reduce": [c(lambda a, b: a + np.sum(b), [1.0, (2.0, np.float32(3))], _jit=False)],
    "tree_leaves_with_path": [c(TREE, _jit=False, _compare=_str)],
    "tree_map_with_path": [c(lambda p, x: len(p), TREE, _jit=False)],
    "tree_transpose": [c(__import__("jax").tree_util.tree_structure([0, 0]),
                         __import__("jax").tree_util.tree_structure((0, 0)), [(1, 2), (3, 4)],
                         _jit=False)],
    "flatten_one_level": [c(TREE, _jit=False), c((1, [2]), _jit=False), c(None, _jit=False),
                          c(3, _jit=False, _raises=ValueError)],
    "flatten_one_level_with_keys": [c(TREE, _jit=False, _compare=_str),
                                    c([1, (2,)], _jit=False, _compare=_str),
                                    c(None, _jit=False, _compare=_str),
                                    c(3, _jit=False, _raises=ValueError)],
    "tree_broadcast": [c((1, {"a": 2}), ((3, 4), {"a": [5, 6]}), _jit=False)],
    "is_tree_node": [c(t, _jit=False) for t in (int, list, dict, type(None), tuple)],
    "tree_reduce_associative": [c(lambda a, b: a * 10 + b, [1, (2, 3), 4, 5], _jit=False),
                                c(lambda a, b: a + b, [], identity=0, _jit=False),
                                c(lambda a, b: a + b, [], _jit=False, _raises=TypeError)],
}
_P = "test_programs_api.py::test_tree_util_custom_nodes_in_jit_and_vmap"
ELSEWHERE = {n: _P for n in [
    "DictKey", "FlattenedIndexKey", "GetAttrKey", "Partial", "PyTreeDef", "SequenceKey", "keystr",
    "register_dataclass", "register_pytree_node", "register_pytree_node_class", "register_static",
    "tree_unflatten", "treedef_children", "treedef_is_leaf",
    # (str(PyTreeDef) lacks JAX's "PyTreeDef(...)" wrapper: the structure itself is compared there)
    "tree_flatten", "tree_structure", "tree_flatten_with_path"]}
ELSEWHERE.update({n: "test_surface_extra.py::test_tree_util_keys_and_treedef_tuple"
                  for n in ["KeyEntry", "KeyPath", "treedef_tuple"]})
ELSEWHERE.update({n: "test_tree_keys.py::test_tree_util_register_pytree_with_keys"
                  for n in ["register_pytree_with_keys", "register_pytree_with_keys_class"]})
ELSEWHERE["default_registry"] = "test_tree_keys.py::test_tree_util_default_registry"
ABSENT = {}
