"""Names of JAX's public surface whose comparison with JAX is not a plain function call
(classes, primitives, key helpers): the surface tables (tests/surface/) point here."""
import jax
import numpy as np

import frontend as fe
from frontend import random as fr


def test_random_clone_and_key_impl():
    raw = np.array([0, 42], np.uint32)
    np.testing.assert_array_equal(np.asarray(fr.clone(raw)), np.asarray(jax.random.clone(raw)))
    assert str(fr.key_impl(fr.key(1))) == str(jax.random.key_impl(jax.random.key(1)))
    ks = fr.split(fr.key(3), 2)
    np.testing.assert_array_equal(np.asarray(fr.key_data(fr.clone(ks))),
                                  np.asarray(jax.random.key_data(jax.random.split(jax.random.key(3), 2))))
    assert isinstance(fr.clone(ks), type(ks)) and fe is not None


def test_lax_classes():
    """The enum and named-tuple classes of lax: the same members and fields as JAX's."""
    for name in ("FftType", "Precision", "RoundingMethod", "GatherScatterMode"):
        ours, theirs = getattr(fe.lax, name), getattr(jax.lax, name)
        assert sorted(m.name for m in ours) == sorted(m.name for m in theirs), name
    for alias in ("DotDimensionNumbers", "PrecisionLike", "ConvGeneralDilatedDimensionNumbers"):
        assert getattr(fe.lax, alias) is not None
    x = np.arange(4.0, dtype=np.float32)
    idx = np.array([[5]])
    dn = jax.lax.GatherDimensionNumbers((), (0,), (0,))
    for mode in ("CLIP", "FILL_OR_DROP"):
        ours = fe.lax.gather(x, idx, fe.lax.GatherDimensionNumbers((), (0,), (0,)), (1,),
                             mode=fe.lax.GatherScatterMode[mode])
        theirs = jax.lax.gather(x, idx, dn, (1,), mode=jax.lax.GatherScatterMode[mode])
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
    assert fe.lax.ConvDimensionNumbers._fields == jax.lax.ConvDimensionNumbers._fields
    dn = fe.lax.ConvDimensionNumbers((0, 1, 2, 3), (0, 1, 2, 3), (0, 1, 2, 3))
    assert tuple(dn) == tuple(jax.lax.ConvDimensionNumbers(*dn))


# our primitive names that differ from JAX's: scatter's follow StableHLO's op names
_PRIM_NAMES = {"scatter_add_p": "scatter_add", "scatter_max_p": "scatter_max",
               "scatter_min_p": "scatter_min", "scatter_mul_p": "scatter_mul",
               "select_n_p": "select", "scatter_sub_p": "scatter_sub"}


def lax_primitive_names():
    return sorted(n for n in dir(jax.lax) if n.endswith("_p") and hasattr(fe.lax, n))


def test_lax_primitives_are_ours_named_as_jax():
    """Each ``lax.*_p`` we export is one of our Primitive objects, named as JAX's, and binds."""
    from frontend.core.ir import Primitive
    names = lax_primitive_names()
    assert len(names) >= 125
    for n in names:
        p = getattr(fe.lax, n)
        assert isinstance(p, Primitive), n
        assert p.name == _PRIM_NAMES.get(n, getattr(jax.lax, n).name), n
    x, y = np.float32([1.5, -2.0]), np.float32([0.5, 4.0])
    for n in ("add_p", "mul_p", "atan2_p", "max_p"):
        np.testing.assert_array_equal(np.asarray(getattr(fe.lax, n).bind(x, y)),
                                      np.asarray(getattr(jax.lax, n).bind(x, y)))
    np.testing.assert_array_equal(
        np.asarray(fe.lax.reduce_sum_p.bind(x, axes=(0,))),
        np.asarray(jax.lax.reduce_sum_p.bind(x, axes=(0,), out_sharding=None)))
    g = fe.make_graph(lambda a: fe.lax.sin(a) * 2)(x)
    assert [e.prim for e in g.eqns][0] is fe.lax.sin_p


def test_initializer_protocol_and_log1mexp_grad():
    """nn.initializers.Initializer is a typing Protocol as JAX's; log1mexp's derivative is
    JAX's custom one (1 / expm1(x)), under grad and vmap."""
    import typing
    init = fe.nn.initializers.Initializer
    assert typing.Protocol in init.__mro__ and jax.nn.initializers.Initializer.__call__
    x = np.float32([1e-3, 0.5, 3.0])
    np.testing.assert_allclose(np.asarray(fe.vmap(fe.grad(fe.nn.log1mexp))(x)),
                               np.asarray(jax.vmap(jax.grad(jax.nn.log1mexp))(x)), rtol=1e-6)


def test_top_level_names_added_for_jax_programs():
    """jacobian, make_jaxpr, device counts, default_backend, NamedSharding/P as JAX's."""
    x = np.float32([1.0, 2.0, 3.0])
    f = lambda a: fe.numpy.sin(a) * a[::-1]  # noqa: E731
    jf = lambda a: jax.numpy.sin(a) * a[::-1]  # noqa: E731
    np.testing.assert_allclose(np.asarray(fe.jacobian(f)(x)), np.asarray(jax.jacobian(jf)(x)),
                               rtol=1e-6)
    g, shape = fe.make_jaxpr(f, return_shape=True)(x)
    jg, jshape = jax.make_jaxpr(jf, return_shape=True)(x)
    assert str(g) == str(fe.make_graph(f)(x))
    assert [e.primitive.name for e in g.eqns] == [e.primitive.name for e in jg.jaxpr.eqns]
    assert g.eqns[0].primitive is g.eqns[0].prim
    assert (shape.shape, shape.dtype) == (jshape.shape, jshape.dtype)
    assert (fe.device_count(), fe.local_device_count(), fe.default_backend()) == (
        jax.device_count(), jax.local_device_count(), jax.default_backend())
    assert fe.P is fe.sharding.PartitionSpec and fe.NamedSharding is fe.sharding.NamedSharding
    assert tuple(fe.P("x", None)) == tuple(jax.P("x", None))


def test_tree_util_keys_and_treedef_tuple():
    """keystr of a keyless custom node's child is JAX's '[<flat index 0>]'; keystr's simple/
    separator forms; treedef_tuple builds the tuple structure; KeyPath is a tuple type."""
    class Box:
        def __init__(self, v):
            self.v = v

    class JBox(Box):
        pass
    fe.tree_util.register_pytree_node(Box, lambda b: ((b.v,), None), lambda _, k: Box(*k))
    jax.tree_util.register_pytree_node(JBox, lambda b: ((b.v,), None), lambda _, k: JBox(*k))
    ours = fe.tree_util.tree_flatten_with_path({"a": Box(1.0)})[0]
    theirs = jax.tree_util.tree_flatten_with_path({"a": JBox(1.0)})[0]
    assert [fe.tree_util.keystr(p) for p, _ in ours] == [jax.tree_util.keystr(p) for p, _ in theirs]
    assert fe.tree_util.keystr(ours[0][0]) == "['a'][<flat index 0>]"
    for kw in ({"simple": True, "separator": "/"}, {"simple": True}, {"separator": "-"}):
        assert fe.tree_util.keystr(ours[0][0], **kw) == jax.tree_util.keystr(theirs[0][0], **kw)
    tds = [fe.tree_util.tree_structure([1, 2]), fe.tree_util.tree_structure(1)]
    td = fe.tree_util.treedef_tuple(tds)
    assert td == fe.tree_util.tree_structure(([1, 2], 3)) and td.num_leaves == 3
    assert fe.tree_util.KeyPath == tuple[fe.tree_util.KeyEntry, ...]
