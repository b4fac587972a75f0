"""tree_util's keyed node registration and the default registry, compared with JAX's."""
import jax
import numpy as np

import frontend as fe
from frontend import tree_util as ftu


def _pair_classes(tu):
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

    def with_keys(p):
        return ((tu.GetAttrKey("a"), p.a), (tu.DictKey("bee"), p.b)), "aux"
    tu.register_pytree_with_keys(Pair, with_keys, lambda aux, kids: Pair(*kids))

    @tu.register_pytree_with_keys_class
    class Named:
        def __init__(self, d):
            self.d = d

        def tree_flatten_with_keys(self):
            keys = sorted(self.d)
            return tuple((tu.DictKey(k), self.d[k]) for k in keys), tuple(keys)

        @classmethod
        def tree_unflatten(cls, keys, kids):
            return cls(dict(zip(keys, kids, strict=True)))
    return Pair, Named


def _paths(tu, tree):
    return [(tu.keystr(p), x) for p, x in tu.tree_flatten_with_path(tree)[0]]


def test_tree_util_register_pytree_with_keys():
    """Keyed nodes: key paths from the node's own keys (a value's keys, not its type's),
    plain flattening without them, flatten_one_level_with_keys, and jit/vmap through them."""
    ours, theirs = _pair_classes(ftu), _pair_classes(jax.tree_util)
    def tree(P, N):
        return [P(1.0, (2.0, N({"x": 3.0, "y": None}))), {"k": N({"z": 4.0})}]
    t_ours, t_theirs = tree(*ours), tree(*theirs)
    assert _paths(ftu, t_ours) == _paths(jax.tree_util, t_theirs)
    assert ftu.tree_leaves(t_ours) == jax.tree_util.tree_leaves(t_theirs) == [1.0, 2.0, 3.0, 4.0]
    mapped = ftu.tree_map_with_path(lambda p, x: ftu.keystr(p), t_ours)
    assert mapped[0].b[1].d["x"] == "[0]['bee'][1]['x']"
    for o, t in [(t_ours[0], t_theirs[0]), (t_ours[1]["k"], t_theirs[1]["k"]), ({"a": 1}, {"a": 1})]:
        (k_o, aux_o), (k_t, aux_t) = (ftu.flatten_one_level_with_keys(o),
                                      jax.tree_util.flatten_one_level_with_keys(t))
        assert [repr(k) for k, _ in k_o] == [repr(k) for k, _ in k_t] and aux_o == aux_t
        assert type(k_o) is type(k_t) and len(ftu.flatten_one_level(o)[0]) == len(k_t)
    P = ours[0]
    out = fe.jit(lambda p: P(p.b * 2, p.a))(P(np.float32(1), np.arange(3.0, dtype=np.float32)))
    np.testing.assert_array_equal(np.asarray(out.a), [0, 2, 4])
    vm = fe.vmap(lambda p: p.a + p.b)(P(np.ones(2, np.float32), np.full(2, 3, np.float32)))
    np.testing.assert_array_equal(np.asarray(vm), [4, 4])


def test_tree_util_default_registry():
    """default_registry's methods answer as JAX's PyTreeRegistry's."""
    ours, theirs = ftu.default_registry, jax.tree_util.default_registry
    tree = {"b": [1, None], "a": (2,)}
    assert ours.flatten(tree)[0] == theirs.flatten(tree)[0]
    assert ours.flatten([1, None], lambda x: x is None)[0] == theirs.flatten([1, None], lambda x: x is None)[0]
    assert repr(ours.flatten_with_path(tree)[0]) == repr(theirs.flatten_with_path(tree)[0])
    for x in [(1, 2), None, {"a": 1}]:
        assert ours.flatten_one_level(x) == theirs.flatten_one_level(x)
        assert repr(ours.flatten_one_level_with_keys(x)) == repr(theirs.flatten_one_level_with_keys(x))
    for t in (list, int, type(None)):
        assert ours.is_node(t) == theirs.is_node(t)

    class Box:
        def __init__(self, v):
            self.v = v
    ours.register_node(Box, lambda b: ((b.v,), None), lambda _, k: Box(*k),
                       lambda b: (((ftu.GetAttrKey("v"), b.v),), None))
    assert _paths(ftu, [Box(5)]) == [("[0].v", 5)]
