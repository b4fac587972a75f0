"""jax.lax names beyond the elementwise/shape table (tests/surface/lax.py): implicit solves,
patches and local convolutions, XLA's RNG, ragged dots, dot algorithms, compared with JAX."""
import jax
import jax.lax as jl
import jax.numpy as jnp
import numpy as np
import pytest
from harness import assert_same

import frontend as fe
import frontend.numpy as fnp
from frontend import lax

R = np.random.default_rng(260)
_A = R.normal(size=(3, 3)).astype(np.float32)
A = _A @ _A.T + 3 * np.eye(3, dtype=np.float32)
A_NS = (A + np.triu(A, 1)).astype(np.float32)    # not symmetric
B = R.normal(size=(3,)).astype(np.float32)


def _solver(m, np_, symmetric=False, has_aux=False, with_transpose=True):
    """x = A^-1 b through custom_linear_solve, with a dense solve as ``solve``."""
    def f(a, b):
        def solve(mv, r):
            x = np_.linalg.solve(a, r)
            return (x, np_.sum(x)) if has_aux else x
        tsolve = None
        if with_transpose and not symmetric:
            def tsolve(vm, r):
                x = np_.linalg.solve(a.T, r)
                return (x, np_.sum(x)) if has_aux else x
        return m.custom_linear_solve(lambda x: a @ x, b, solve, tsolve, symmetric=symmetric,
                                     has_aux=has_aux)
    return f


def _both(**kw):
    return _solver(lax, fnp, **kw), _solver(jl, jnp, **kw)


@pytest.mark.parametrize("kw", [dict(), pytest.param(dict(symmetric=True), marks=pytest.mark.slow),
                                pytest.param(dict(has_aux=True), marks=pytest.mark.slow)])
def test_custom_linear_solve_values_and_derivatives(kw):
    """Values, grad (with respect to the matrix a matvec closes over and to b), jvp and
    vmap(grad) of custom_linear_solve equal JAX's."""
    a = A if kw.get("symmetric") else A_NS
    ours, theirs = _both(**kw)
    assert_same(ours(a, B), theirs(a, B))
    assert_same(fe.jit(ours)(a, B), theirs(a, B))

    def loss(f):
        return lambda a, b: jax.tree_util.tree_leaves(f(a, b))[0].sum() if f is theirs else \
            fe.tree_util.tree_leaves(f(a, b))[0].sum()
    g = fe.jit(fe.grad(loss(ours), (0, 1)))(a, B)
    jg = jax.grad(loss(theirs), (0, 1))(a, B)
    for o, t in zip(g, jg, strict=True):
        np.testing.assert_allclose(np.asarray(o), np.asarray(t), rtol=2e-5, atol=1e-6)
    t_ours = fe.jit(lambda *p: fe.jvp(ours, p[:2], p[2:])[1])(a, B, A, B)
    t_jax = jax.jvp(theirs, (a, B), (A, B))[1]
    for o, t in zip(fe.tree_util.tree_leaves(t_ours), jax.tree_util.tree_leaves(t_jax), strict=True):
        np.testing.assert_allclose(np.asarray(o), np.asarray(t), rtol=2e-5, atol=1e-6)
    if not kw:
        aa, bb = np.stack([a, 2 * a]), np.stack([B, -B])
        o = fe.jit(fe.vmap(fe.grad(loss(ours), (0, 1))))(aa, bb)
        t = jax.vmap(jax.grad(loss(theirs), (0, 1)))(aa, bb)
        for x, y in zip(o, t, strict=True):
            np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=2e-5, atol=1e-6)
        assert_same(fe.vmap(ours, (None, 0))(a, bb), jax.vmap(theirs, (None, 0))(a, bb))


def test_custom_linear_solve_errors_as_jax():
    """No transpose_solve: forward mode works, reverse mode is JAX's TypeError; a solve of
    the wrong shape or structure is JAX's error."""
    ours, theirs = _both(with_transpose=False)
    t = fe.jvp(ours, (A, B), (A, B))[1]
    np.testing.assert_allclose(np.asarray(t), np.asarray(jax.jvp(theirs, (A, B), (A, B))[1]),
                               rtol=2e-5, atol=1e-6)
    for f, grad in ((ours, fe.grad), (theirs, jax.grad)):
        with pytest.raises(TypeError, match="transpose_solve required"):
            grad(lambda b, f=f: f(A, b).sum())(B)
    for m in (lax, jl):
        with pytest.raises(ValueError, match=r"solve\(\) output shapes must match b"):
            m.custom_linear_solve(lambda x: x, B, lambda mv, r: r[:2])
        with pytest.raises(TypeError, match=r"solve\(\) output pytree structure must match b"):
            m.custom_linear_solve(lambda x: x, B, lambda mv, r: (r,))


def _sqrt(m):
    def sqrt(a):   # the root of x**2 - a by Newton's method, differentiated implicitly
        newton = lambda f, x0: m.fori_loop(0, 20, lambda i, x: x - f(x) / (2 * x), x0)  # noqa: E731
        return m.custom_root(lambda x: x ** 2 - a, 1.0, newton, lambda g, y: y / g(1.0))
    return sqrt


def test_custom_root_implicit_derivatives():
    """custom_root's value, grad, vmap(grad) and jvp equal JAX's; the derivative is the
    implicit one (a fori_loop solver is not differentiated through)."""
    a = np.float32([4.0, 9.0, 2.0])
    assert_same(fe.vmap(_sqrt(lax))(a), jax.vmap(_sqrt(jl))(a))
    assert_same(fe.grad(_sqrt(lax))(a[0]), jax.grad(_sqrt(jl))(a[0]))
    np.testing.assert_allclose(np.asarray(fe.vmap(fe.grad(_sqrt(lax)))(a)),
                               np.asarray(jax.vmap(jax.grad(_sqrt(jl)))(a)), rtol=1e-6)
    assert_same(fe.jvp(_sqrt(lax), (a[1],), (a[2],))[1], jax.jvp(_sqrt(jl), (a[1],), (a[2],))[1])
    for m in (lax, jl):
        with pytest.raises(TypeError, match=r"output pytree structure must match initial_guess"):
            m.custom_root(lambda x: (x, x), 1.0, lambda f, x: x, lambda g, y: y)


@pytest.mark.slow
def test_custom_root_pytree_and_aux():
    """custom_root on a dict guess with has_aux and a tangent_solve of a dict equals JAX's
    (value and grad)."""
    def vec(m, np_):  # a pytree guess, has_aux, tangent_solve by a dense Jacobian solve
        def f(p):
            def fn(x):
                return {"u": x["u"] ** 3 - p}
            def solve(g, x0):
                x = m.fori_loop(0, 30, lambda i, x: {"u": x["u"] - g(x)["u"] / (3 * x["u"] ** 2)}, x0)
                return x, np_.max(np_.abs(g(x)["u"]))
            def tsolve(g, y):
                return {"u": y["u"] / g({"u": np_.ones_like(y["u"])})["u"]}
            x, err = m.custom_root(fn, {"u": np_.ones(3, np.float32)}, solve, tsolve, has_aux=True)
            return x["u"].sum() + 0 * err
        return f
    p = np.float32([8.0, 27.0, 2.0])
    assert_same(vec(lax, fnp)(p), vec(jl, jnp)(p))
    np.testing.assert_allclose(np.asarray(fe.grad(vec(lax, fnp))(p)),
                               np.asarray(jax.grad(vec(jl, jnp))(p)), rtol=1e-6)


def test_xla_rng_ops_as_jax():
    """rng_bit_generator is bit-equal to JAX's (every algorithm, under jit and under JAX's
    odd vmap rule: lane 0's key draws every lane's bits); RandomAlgorithm has JAX's members;
    rng_uniform (stateful in XLA: JAX's own calls differ) lowers to the same stablehlo.rng
    and gives JAX's shape, dtype, weak type and range, and JAX's errors."""
    assert [(a.name, int(a)) for a in lax.RandomAlgorithm] == \
        [(a.name, int(a)) for a in jl.RandomAlgorithm]
    assert str(lax.RandomAlgorithm.RNG_PHILOX) == str(jl.RandomAlgorithm.RNG_PHILOX)
    keys = np.uint32([[1, 2, 3, 4], [5, 6, 7, 8], [9, 9, 9, 9]])
    for alg in range(3):
        def bits(m, alg=alg):
            return lambda k: m.rng_bit_generator(k, (2, 3), np.uint32, m.RandomAlgorithm(alg))
        assert_same(fe.jit(bits(lax))(keys[1]), jax.jit(bits(jl))(keys[1]))
    assert_same(fe.vmap(bits(lax))(keys), jax.vmap(bits(jl))(keys))
    with pytest.raises(TypeError, match="the key must be uint32"):
        lax.rng_bit_generator(np.uint32([1, 2]), (2,))

    def uni(m):
        return lambda: m.rng_uniform(np.float32(-1), np.float32(2), (500,))
    text = fe.jit(uni(lax)).lower().as_text()
    jtext = jax.jit(uni(jl)).lower().as_text()
    op = "stablehlo.rng %"
    assert [ln.split("distribution")[1] for ln in text.splitlines() if op in ln] == \
        [ln.split("distribution")[1] for ln in jtext.splitlines() if op in ln]
    o, t = uni(lax)(), uni(jl)()
    assert o.dtype == t.dtype and o.shape == t.shape and o.weak_type == t.weak_type
    assert -1 <= np.asarray(o).min() and np.asarray(o).max() < 2 and np.ptp(np.asarray(o)) > 2
    assert lax.rng_uniform(0.0, 1.0, (2,)).weak_type == jl.rng_uniform(0.0, 1.0, (2,)).weak_type
    for m in (lax, jl):
        with pytest.raises(ValueError, match="must have identical dtypes"):
            m.rng_uniform(np.float32(0), np.float16(1), (2,))
        with pytest.raises(ValueError, match="must be scalars"):
            m.rng_uniform(np.float32([0, 1]), np.float32(1), (2,))


_X = R.normal(size=(3, 4)).astype(np.float32)
_Y = R.normal(size=(3, 4)).astype(np.float32)
_IMG = R.normal(size=(2, 6, 5)).astype(np.float32)
_TOTAL = np.float32([np.nan, -0.0, 0.0, 1.0, -np.inf, np.inf])
_WIN = dict(window_dimensions=(1, 2, 2), window_strides=(1, 1, 2), padding=((0, 0), (1, 0), (0, 1)))
_SRC = R.normal(size=(2, 6, 3)).astype(np.float32)   # one per window of _IMG under _WIN
_JAX_SUB = jax.make_jaxpr(lambda x, u: jl.scatter_sub(
    x, np.array([[0], [2]]), u, jl.ScatterDimensionNumbers((1,), (0,), (0,))))(_X, _Y[:2, :1])
_BINDS = [   # (primitive name, operands, params); a callable param is f(module)
    ("clamp_p", (np.float32(-0.5), _X, np.float32(0.5)), {}),
    ("split_p", (_X,), dict(sizes=(1, 3), axis=1)),
    ("tile_p", (_X,), dict(reps=(2, 1))),
    ("stack_p", (_X, _Y), dict(axis=1)),
    ("unstack_p", (_X,), dict(axis=1)),
    ("cumlogsumexp_p", (_X,), dict(axis=1, reverse=True)),
    ("approx_top_k_p", (_X,), dict(k=2, reduction_dimension=-1, recall_target=0.95,
                                   is_max_k=False, reduction_input_size_override=-1,
                                   aggregate_to_topk=True)),
    ("copy_p", (_X,), {}),
    ("stage_p", (_X,), {}),
    ("eq_to_p", (_TOTAL, _TOTAL[::-1].copy()), {}),
    ("le_to_p", (_TOTAL, _TOTAL[::-1].copy()), {}),
    ("lt_to_p", (_TOTAL, _TOTAL[::-1].copy()), {}),
    ("scatter_sub_p", (_X, np.array([[0], [2]]), _Y[:2, :1]),
     dict(dimension_numbers=lambda m: m.ScatterDimensionNumbers((1,), (0,), (0,)),
          indices_are_sorted=False, unique_indices=False,
          mode=lambda m: m.GatherScatterMode.FILL_OR_DROP, update_consts=(),
          update_jaxpr=lambda m: _JAX_SUB.eqns[-1].params["update_jaxpr"] if m is jl else None)),
    ("select_and_gather_add_p", (_IMG[::-1].copy(), _IMG),
     dict(select_prim=lambda m: m.ge_p, base_dilation=(1, 1, 1), window_dilation=(1, 1, 1), **_WIN)),
    ("select_and_scatter_add_p", (_SRC, _IMG), dict(select_prim=lambda m: m.le_p, **_WIN)),
]


def _bind(m, name, args, params):
    return getattr(m, name).bind(*args, **{k: v(m) if callable(v) else v for k, v in params.items()})


@pytest.mark.parametrize("name,args,params", _BINDS, ids=[b[0] for b in _BINDS])
def test_lax_primitives_bind_as_jax(name, args, params):
    """Each of these ``lax.*_p`` binds with JAX's operands and params to JAX's result, and
    is one equation named as JAX's primitive in our graph."""
    assert_same(_bind(lax, name, args, params), _bind(jl, name, args, params), name)
    g = fe.make_graph(lambda *a: _bind(lax, name, a, params))(*args)
    assert [e.prim for e in g.eqns] == [getattr(lax, name)]


def test_lax_primitives_derived_transform_as_jax():
    """The derived primitives batch and differentiate as JAX's: grad through split_p and
    select_and_scatter_add_p (max-pool's backward), vmap of tile_p and cumlogsumexp_p."""
    outs = []
    for m, grad, vmap, jit in ((lax, fe.grad, fe.vmap, fe.jit), (jl, jax.grad, jax.vmap, jax.jit)):
        f = lambda x, m=m: (m.split_p.bind(x, sizes=(1, 3), axis=1)[1] ** 2).sum()  # noqa: E731
        h = lambda s, m=m: (m.select_and_scatter_add_p.bind(  # noqa: E731
            s, _IMG, select_prim=m.ge_p, **_WIN) * _IMG).sum()
        outs.append(jit(lambda x, s, grad=grad, vmap=vmap, m=m, f=f, h=h: [
            grad(f)(x), grad(h)(s), vmap(lambda x: m.tile_p.bind(x, reps=(2,)), 1)(x),
            vmap(lambda x: m.cumlogsumexp_p.bind(x, axis=0, reverse=False))(_IMG)])(_X, _SRC))
    for o, t in zip(*outs, strict=True):
        assert_same(o, t)


def test_ragged_dot_modes_grads_and_vmap():
    """ragged_dot_general in its three modes (ragged non-contracting with a batch dimension,
    ragged contracting, ragged batch) equals JAX's, RaggedDotDimensionNumbers has JAX's
    fields, grads equal JAX's, and vmap (which JAX's rule refuses off axis 0) equals a loop."""
    import dataclasses
    fields = [[f.name for f in dataclasses.fields(m.RaggedDotDimensionNumbers)] for m in (lax, jl)]
    assert fields[0] == fields[1]
    assert repr(lax.RaggedDotDimensionNumbers((([1], [0]), ([], [])), [1], [])) == \
        repr(jl.RaggedDotDimensionNumbers((([1], [0]), ([], [])), [1], []))
    gs = np.int32([1, 0, 2])

    def dn(m, d, ragged, group):
        return m.RaggedDotDimensionNumbers(d, ragged, group)
    cases = [  # (lhs, rhs, dot dimension numbers, lhs ragged, rhs group)
        (R.normal(size=(2, 4, 3)), R.normal(size=(2, 3, 3, 5)), (((2,), (2,)), ((0,), (0,))), (1,), (1,)),
        (R.normal(size=(4, 2)), R.normal(size=(4, 5)), (((0,), (0,)), ((), ())), (0,), ()),
        (R.normal(size=(4, 3, 2)), R.normal(size=(4, 2, 2)), (((2,), (1,)), ((0,), (0,))), (0,), ()),
    ]
    for lhs, rhs, d, ragged, group in cases:
        lhs, rhs = lhs.astype(np.float32), rhs.astype(np.float32)
        o = fe.jit(lambda a, b, d=d, ragged=ragged, group=group: lax.ragged_dot_general(
            a, b, gs, dn(lax, d, ragged, group)))(lhs, rhs)
        t = jl.ragged_dot_general(lhs, rhs, gs, dn(jl, d, ragged, group))
        assert_same(o, t)
    lhs, rhs = R.normal(size=(4, 3)).astype(np.float32), R.normal(size=(3, 3, 2)).astype(np.float32)
    g = fe.jit(fe.grad(lambda a, b: (lax.ragged_dot(a, b, gs) ** 2).sum(), (0, 1)))(lhs, rhs)
    t = jax.grad(lambda a, b: (jl.ragged_dot(a, b, gs) ** 2).sum(), (0, 1))(lhs, rhs)
    for x, y in zip(g, t, strict=True):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-6)
    sizes = np.int32([[1, 0, 2], [3, 1, 0]])
    o = fe.jit(fe.vmap(lax.ragged_dot, (None, 0, 0)))(lhs, np.stack([rhs, -rhs]), sizes)
    for i in range(2):
        assert_same(o[i], jl.ragged_dot(lhs, [rhs, -rhs][i], sizes[i]))


def _dot_lines(text):
    import re
    return [re.sub(r"%\S+", "%", ln.strip()) for ln in text.splitlines()
            if "dot_general" in ln or "convert" in ln]


def test_dot_algorithms_as_jax():
    """DotAlgorithm / DotAlgorithmPreset (members, fields, str/repr, supported types) are
    JAX's; precision= a preset, its name or a DotAlgorithm lowers to JAX's converts and
    ``algorithm`` attribute (CPU and CUDA text) with bit-equal results, the presets CPU
    ignores are JAX's ValueError, and a convolution with a preset lowers as JAX's."""
    assert [p.name for p in lax.DotAlgorithmPreset] == [p.name for p in jl.DotAlgorithmPreset]
    assert lax.DotAlgorithm._fields == jl.DotAlgorithm._fields
    assert lax.DotAlgorithm(np.float16, np.float16, np.float32) == \
        jl.DotAlgorithm(np.float16, np.float16, np.float32)
    for ours, theirs in zip(lax.DotAlgorithmPreset, jl.DotAlgorithmPreset, strict=True):
        assert (str(ours), repr(ours)) == (str(theirs), repr(theirs))
        assert ours.supported_lhs_types == theirs.supported_lhs_types, ours
        assert ours.accumulation_type == theirs.accumulation_type, ours
        for d in (np.float16, np.float32):
            assert ours.supported_output_types(d, d) == theirs.supported_output_types(d, d)
    x = R.normal(size=(2, 3)).astype(np.float32)
    y = R.normal(size=(3, 4)).astype(np.float16)
    for name in ("F32_F32_F32", "BF16_BF16_F32_X3", "F16_F16_F16", "F64_F64_F64", "DEFAULT"):
        ours = lambda a, b, name=name: lax.dot(a, b, precision=getattr(lax.DotAlgorithmPreset, name))  # noqa: E731
        theirs = lambda a, b, name=name: jl.dot(a, b, precision=name)  # noqa: E731
        assert _dot_lines(fe.jit(ours).lower(x, y).as_text()) == \
            _dot_lines(jax.jit(theirs).lower(x, y).as_text()), name
        assert_same(fe.jit(ours)(x, y), jax.jit(theirs)(x, y))
    np.testing.assert_array_equal(
        np.asarray(fe.grad(lambda a: lax.dot(a, x.T, precision="BF16_BF16_F32").sum())(x)),
        np.asarray(jax.grad(lambda a: jl.dot(a, x.T, precision="BF16_BF16_F32").sum())(x)))
    for m, jit in ((lax, fe.jit), (jl, jax.jit)):
        for p in ("TF32_TF32_F32", m.DotAlgorithm(np.float32, np.float32, np.float32)):
            with pytest.raises(ValueError, match="is not supported by dot_general on CPU"):
                jit(lambda a, b, p=p, m=m: m.dot(a, b, precision=p)).lower(x, x.T)
    img, ker = R.normal(size=(1, 2, 5, 5)).astype(np.float32), R.normal(size=(3, 2, 3, 3)).astype(np.float32)
    conv = [jit(lambda a, b, m=m: m.conv_general_dilated(a, b, (1, 1), "VALID", precision="F32_F32_F32"))
            for m, jit in ((lax, fe.jit), (jl, jax.jit))]   # (JAX's convolution: DEFAULT config)
    assert [ln.split("precision_config")[1] for ln in conv[0].lower(img, ker).as_text().splitlines()
            if "convolution" in ln] == \
        [ln.split("precision_config")[1] for ln in conv[1].lower(img, ker).as_text().splitlines()
         if "convolution" in ln]
    assert_same(conv[0](img, ker), conv[1](img, ker))
    for p in ("TF32_TF32_F32_X3", "BF16_BF16_BF16"):
        texts = [jit(lambda a, b, p=p, m=m: m.dot(a, b, precision=p)).trace(x, x.T).lower(
            lowering_platforms=("cuda",)).as_text() for m, jit in ((lax, fe.jit), (jl, jax.jit))]
        assert _dot_lines(texts[0]) == _dot_lines(texts[1]), p


@pytest.mark.parametrize("name,args,params", _BINDS, ids=[b[0] for b in _BINDS])
def test_lax_primitives_batch_and_differentiate_as_jax(name, args, params):
    """Each ``lax.*_p`` under vmap (every array operand batched) and grad (w.r.t. its float
    operands: jvp, and the transpose of the linear ones) equals JAX's; primitives with
    integer or boolean results get their jvp rule called directly (zero tangents)."""
    axes = [0 if isinstance(a, np.ndarray) and a.ndim else None for a in args]
    batched = [np.stack([a, a]) if ax == 0 else a for a, ax in zip(args, axes, strict=True)]

    def vmapped(m, vmap):
        return vmap(lambda *a: _bind(m, name, a, params), in_axes=axes)(*batched)
    assert_same(vmapped(lax, fe.vmap), vmapped(jl, jax.vmap), f"vmap {name}")
    floats = [i for i, a in enumerate(args) if np.asarray(a).dtype.kind == "f"]
    if name == "clamp_p":  # (JAX's clamp_p jvp fails for rank-0 bounds: a select of two shapes)
        floats = [1]
    out = _bind(lax, name, args, params)
    if all(np.asarray(o).dtype.kind == "f" for o in jax.tree_util.tree_leaves(out)):
        def loss(m, np_):
            def f(*fl):
                full = list(args)
                for i, x in zip(floats, fl, strict=True):
                    full[i] = x
                return sum(np_.sum(o ** 2) for o in jax.tree_util.tree_leaves(_bind(m, name, full, params)))
            return f
        argnums = tuple(range(len(floats)))
        got = fe.grad(loss(lax, fnp), argnums)(*[args[i] for i in floats])
        assert_same(got, jax.grad(loss(jl, jnp), argnums)(*[args[i] for i in floats]), f"grad {name}")
        if getattr(lax, name).transpose_rule is not None:  # (a linear primitive: its transpose)
            def linear(m, i=floats[0]):
                return lambda x: _bind(m, name, args[:i] + (x,) + args[i + 1:], params)
            ct = jax.tree_util.tree_map(np.ones_like, out)
            assert_same(fe.linear_transpose(linear(lax), args[floats[0]])(ct),
                        jax.linear_transpose(linear(jl), args[floats[0]])(ct), f"transpose {name}")
    else:
        from frontend.interpreters.ad_util import Zero
        p = getattr(lax, name)
        zeros = tuple(Zero(fe.ShapedArray(np.shape(a), np.asarray(a).dtype)) for a in args)
        p.jvp_rule(tuple(args), zeros, **{k: v(lax) if callable(v) else v for k, v in params.items()})


def test_xla_rng_rules_run():
    """rng_uniform under vmap (JAX's NotImplementedError: it has no batching rule) and the jvp rules
    of both XLA generators (their results are not differentiable: zero tangents)."""
    from frontend.interpreters.ad_util import Zero
    for m, vmap in ((lax, fe.vmap), (jl, jax.vmap)):  # (JAX has no batching rule for it either)
        with pytest.raises(NotImplementedError, match="rng_uniform"):
            vmap(lambda lo, m=m: m.rng_uniform(lo, np.float32(5), (3,)))(np.float32([0, 4]))
    for p, args, params in ((lax.rng_uniform_p, (np.float32(0), np.float32(1)), {"shape": (2,)}),
                            (lax.rng_bit_generator_p, (np.uint32([1, 2, 3, 4]),),
                             {"shape": (2,), "dtype": np.dtype(np.uint32),
                              "algorithm": lax.RandomAlgorithm.RNG_DEFAULT})):
        zeros = tuple(Zero(fe.ShapedArray(np.shape(a), np.asarray(a).dtype)) for a in args)
        if p is lax.rng_uniform_p:  # (as JAX's: not differentiable)
            with pytest.raises(NotImplementedError, match="rng_uniform"):
                p.jvp_rule(args, zeros, **params)
        else:
            p.jvp_rule(args, zeros, **params)
