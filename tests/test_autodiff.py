"""Autodiff's public API against JAX: grad, value_and_grad, jvp, vjp, linearize, jacfwd,
jacrev, hessian (pytrees, argnums, has_aux, weak types, float0, holomorphic), composition
with vmap and jit in every order (per-example gradients against a Python loop), control
flow, custom_jvp / custom_vjp / checkpoint, and JAX's error messages."""
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from harness import assert_same, stablehlo
from jax import lax as jlax

import frontend as fe
import frontend.numpy as fnp
from frontend import lax

RNG = np.random.default_rng(3)


def r(*shape):
    return RNG.normal(size=shape).astype(np.float32)


def model(np_):
    """A small MLP loss on a dict of parameters, with an aux output."""
    def loss(params, x, y):
        h = np_.tanh(x @ params["w1"] + params["b1"])
        out = h @ params["w2"] + params["b2"]
        err = out - y
        return np_.mean(err ** 2), {"max": np_.max(np_.abs(err))}
    return loss


PARAMS = {"w1": r(3, 4), "b1": r(4), "w2": r(4, 2), "b2": r(2)}
XS, YS = r(5, 3), r(5, 2)


def test_grad_value_and_grad_pytrees_and_aux():
    for ours, theirs in [
        (fe.grad(model(fnp), has_aux=True), jax.grad(model(jnp), has_aux=True)),
        (fe.value_and_grad(model(fnp), argnums=(0, 1), has_aux=True),
         jax.value_and_grad(model(jnp), argnums=(0, 1), has_aux=True)),
    ]:
        want = jax.jit(theirs)(PARAMS, XS, YS)
        assert_same(fe.jit(ours)(PARAMS, XS, YS), want, "jit")
    assert_same(fe.grad(lambda p, x, y: model(fnp)(p, x, y)[0])(PARAMS, XS, YS),
                jax.jit(jax.grad(lambda p, x, y: model(jnp)(p, x, y)[0]))(PARAMS, XS, YS), "eager")


def test_weak_types_and_scalars_as_jax():
    for f, fj, args in [(lambda x: x * 2, lambda x: x * 2, (1.0,)),
                        (lambda x: x * 2, lambda x: x * 2, (np.float32(1.0),)),
                        (lambda x, y: x * y, lambda x, y: x * y, (1.0, np.float32(2.0)))]:
        assert_same(fe.grad(f, argnums=tuple(range(len(args))))(*args),
                    jax.grad(fj, argnums=tuple(range(len(args))))(*args), "grad")
        assert_same(fe.jvp(f, args, args), jax.jvp(fj, args, args), "jvp")
    assert_same(fe.jvp(lambda x: x * 2, (1.0,), (np.float32(1.0),)),
                jax.jvp(lambda x: x * 2, (1.0,), (np.float32(1.0),)), "jvp weak primal")


def test_nested_derivatives_keep_perturbations_apart():
    ours = fe.jit(lambda x: (fe.grad(lambda x: fe.grad(lambda y: x * y ** 2)(3.0))(x),
                             fe.grad(lambda x: x * fe.grad(lambda y: x * y)(1.0))(x),
                             fe.jvp(lambda x: fe.jvp(lambda y: x * y, (1.0,), (1.0,))[1], (x,), (1.0,)),
                             fe.grad(fe.grad(fe.grad(fnp.tanh)))(x)))
    theirs = jax.jit(lambda x: (jax.grad(lambda x: jax.grad(lambda y: x * y ** 2)(3.0))(x),
                                jax.grad(lambda x: x * jax.grad(lambda y: x * y)(1.0))(x),
                                jax.jvp(lambda x: jax.jvp(lambda y: x * y, (1.0,), (1.0,))[1], (x,), (1.0,)),
                                jax.grad(jax.grad(jax.grad(jnp.tanh)))(x)))
    assert_same(ours(0.3), theirs(0.3))


def test_jvp_vjp_linearize_on_pytrees():
    f = lambda p, x: {"a": fnp.sin(p["w1"]) @ x, "b": (fnp.sum(p["b1"] * p["b1"]), x * 2)}  # noqa: E731
    fj = lambda p, x: {"a": jnp.sin(p["w1"]) @ x, "b": (jnp.sum(p["b1"] * p["b1"]), x * 2)}  # noqa: E731
    p = {"w1": PARAMS["w1"].T, "b1": PARAMS["b1"]}
    x = r(3)
    tp = jax.tree_util.tree_map(lambda a: r(*a.shape), p)
    tx = r(3)
    assert_same(fe.jvp(f, (p, x), (tp, tx)), jax.jvp(fj, (p, x), (tp, tx)), "jvp")
    out, f_jvp = fe.linearize(f, p, x)
    assert_same((out, f_jvp(tp, tx)), jax.jvp(fj, (p, x), (tp, tx)), "linearize")
    ct = jax.tree_util.tree_map(lambda a: r(*np.shape(a)), fj(p, x))
    o1, pull = fe.vjp(f, p, x)
    o2, pullj = jax.vjp(fj, p, x)
    assert_same((o1, pull(ct)), (o2, pullj(ct)), "vjp")
    assert_same(fe.jit(lambda p, x, ct: fe.vjp(f, p, x)[1](ct))(p, x, ct), pullj(ct), "jit(vjp)")


def test_jacobians_and_hessian():
    f = lambda x, y: fnp.tanh(x)[:, None] * fnp.sin(y) + fnp.sum(x * x)  # noqa: E731
    fj = lambda x, y: jnp.tanh(x)[:, None] * jnp.sin(y) + jnp.sum(x * x)  # noqa: E731
    x, y = r(3), r(2)
    for ours, theirs in [(fe.jacfwd, jax.jacfwd), (fe.jacrev, jax.jacrev)]:
        assert_same(fe.jit(ours(f, argnums=(0, 1)))(x, y), jax.jit(theirs(fj, argnums=(0, 1)))(x, y),
                    ours.__name__)
    assert_same(fe.jacrev(lambda x: fnp.sin(x) * 2)(x), jax.jit(jax.jacrev(lambda x: jnp.sin(x) * 2))(x),
                "eager")
    h = lambda x: fnp.sum(fnp.sin(x) * x[::-1]) * fnp.prod(x)  # noqa: E731
    hj = lambda x: jnp.sum(jnp.sin(x) * x[::-1]) * jnp.prod(x)  # noqa: E731
    assert_same(fe.jit(fe.hessian(h))(x), jax.jit(jax.hessian(hj))(x), "hessian")
    d = {"a": x, "b": y}
    g = lambda d: {"u": d["a"] * d["b"][0], "v": fnp.sum(d["b"])}  # noqa: E731
    gj = lambda d: {"u": d["a"] * d["b"][0], "v": jnp.sum(d["b"])}  # noqa: E731
    assert_same(fe.jit(lambda d: (fe.jacrev(g)(d), fe.jacfwd(g)(d)))(d),
                jax.jit(lambda d: (jax.jacrev(gj)(d), jax.jacfwd(gj)(d)))(d), "jacobians of dicts")


def test_float0_tangents_of_integer_inputs():
    f = lambda x, i: x * i  # noqa: E731
    ours = fe.grad(f, argnums=(0, 1), allow_int=True)(1.5, 3)
    theirs = jax.grad(f, argnums=(0, 1), allow_int=True)(1.5, 3)
    assert_same(ours[0], theirs[0])
    assert ours[1].dtype == jax.dtypes.float0 and ours[1].shape == ()
    p, t = fe.jvp(lambda x: x * 2, (np.arange(3),), (np.zeros(3, jax.dtypes.float0),))
    assert t.dtype == jax.dtypes.float0 and t.shape == (3,)
    assert_same(p, np.arange(3, dtype=np.int32) * 2)
    (g,) = fe.vjp(lambda x: x.astype(np.int32), np.float32(1.5))[1](np.zeros((), jax.dtypes.float0))
    assert_same(g, np.float32(0))
    _, (ti, tf) = fe.vmap(lambda x: fe.jvp(lambda x: (x.astype(np.int32), x * 2), (x,), (x,)),
                          out_axes=-1)(np.ones((3, 2), np.float32))
    assert ti.dtype == jax.dtypes.float0 and ti.shape == (2, 3) and tf.shape == (2, 3)


def test_holomorphic():
    f = lambda z: fnp.sin(z) * z + fnp.exp(z * 1j)  # noqa: E731
    fj = lambda z: jnp.sin(z) * z + jnp.exp(z * 1j)  # noqa: E731
    z = np.complex64(0.5 + 0.3j)
    assert_same(fe.grad(f, holomorphic=True)(z), jax.grad(fj, holomorphic=True)(z))
    zs = (r(3) + 1j * r(3)).astype(np.complex64)
    assert_same(fe.jit(fe.jacrev(f, holomorphic=True))(zs), jax.jit(jax.jacrev(fj, holomorphic=True))(zs))


# ----------------------------------------------------------------------------- composition


def test_per_example_gradients_vmap_of_grad():
    loss = lambda p, x, y: model(fnp)(p, x, y)[0]  # noqa: E731
    lossj = lambda p, x, y: model(jnp)(p, x, y)[0]  # noqa: E731
    f = fe.vmap(fe.grad(loss), in_axes=(None, 0, 0))
    got = fe.jit(f)(PARAMS, XS, YS)
    assert_same(got, jax.jit(jax.vmap(jax.grad(lossj), in_axes=(None, 0, 0)))(PARAMS, XS, YS))
    loop = [fe.jit(fe.grad(loss))(PARAMS, x, y) for x, y in zip(XS, YS, strict=True)]
    for k in PARAMS:
        np.testing.assert_allclose(np.asarray(got[k]), np.stack([np.asarray(g[k]) for g in loop]),
                                   rtol=1e-5, atol=1e-6)
    # a dense layer's per-example weight gradients: one dot_general with batching dims, no loop
    dense = lambda w, x, y: fnp.sum((x @ w - y) ** 2)  # noqa: E731
    text = stablehlo(fe.vmap(fe.grad(dense), in_axes=(None, 0, 0)), PARAMS["w2"], r(5, 4), YS)
    assert "batching_dims = [0] x [0]" in text and "stablehlo.while" not in text


def test_grad_of_vmap_jit_anywhere_and_nested_axes():
    f = lambda w, x: fnp.sum(fnp.tanh(x @ w) ** 2)  # noqa: E731
    fj = lambda w, x: jnp.sum(jnp.tanh(x @ w) ** 2)  # noqa: E731
    w, xs = r(3, 2), r(4, 5, 3)
    ours = fe.grad(lambda w, xs: fnp.sum(fe.vmap(fe.jit(f), in_axes=(None, 1))(w, xs)))(w, xs)
    assert_same(ours, jax.jit(jax.grad(lambda w, xs: jnp.sum(jax.vmap(fj, in_axes=(None, 1))(w, xs))))(w, xs))
    nested = fe.jit(fe.vmap(fe.vmap(fe.grad(f, argnums=1), in_axes=(None, 0), out_axes=-1),
                            in_axes=(None, 1), out_axes=1))
    want = jax.jit(jax.vmap(jax.vmap(jax.grad(fj, argnums=1), in_axes=(None, 0), out_axes=-1),
                            in_axes=(None, 1), out_axes=1))(w, xs)
    assert_same(nested(w, xs), want, "nested vmap of grad")
    jac = fe.vmap(lambda x: fe.vjp(lambda x: fnp.sin(x) * x.sum(), xs[0, 0])[1](x))(np.eye(3, dtype=np.float32))
    assert_same(jac, jax.jit(jax.jacrev(lambda x: jnp.sin(x) * x.sum()))(xs[0, 0]), "jacrev = vmap(vjp)")
    assert_same(fe.jit(fe.grad(fe.jit(f)))(w, xs[0]), jax.jit(jax.grad(fj))(w, xs[0]), "jit(grad(jit))")


def test_control_flow_under_vmap_and_jit():
    def f(np_, lax_):
        def g(w, x):
            c = lax_.cond(np_.sum(x) > 0, lambda a: np_.sin(a) * w, lambda a: a * a, x)
            c, ys = lax_.scan(lambda c, r: (np_.tanh(c * w + r), c), c, np_.stack([x, c, x * 2]))
            c = lax_.fori_loop(0, 2, lambda i, c: c * w + i, c)
            return np_.sum(ys) + np_.sum(c * lax_.map(lambda r: r * 2, x))
        return g
    w, xs = r(3), r(4, 3)
    assert_same(fe.jit(fe.vmap(fe.grad(f(fnp, lax)), (None, 0)))(w, xs),
                jax.jit(jax.vmap(jax.grad(f(jnp, jlax)), (None, 0)))(w, xs), "jit(vmap(grad))")
    assert_same(fe.jit(fe.grad(lambda w, xs: fnp.sum(fe.vmap(f(fnp, lax), (None, 0))(w, xs))))(w, xs),
                jax.jit(jax.grad(lambda w, xs: jnp.sum(jax.vmap(f(jnp, jlax), (None, 0))(w, xs))))(w, xs),
                "grad(vmap)")
    wl = lambda np_, lax_: lambda x: lax_.while_loop(lambda c: np_.sum(np_.abs(c)) < 9.0,  # noqa: E731
                                                     lambda c: c * 1.5 + np_.sin(c), x)
    t = r(4, 3)
    assert_same(fe.jit(fe.vmap(lambda x, t: fe.jvp(wl(fnp, lax), (x,), (t,))))(xs, t),
                jax.jit(jax.vmap(lambda x, t: jax.jvp(wl(jnp, jlax), (x,), (t,))))(xs, t), "vmap(jvp(while))")


def test_stop_gradient():
    f = lambda x: fnp.sum(x * lax.stop_gradient(x) + lax.stop_gradient({"a": x})["a"])  # noqa: E731
    fj = lambda x: jnp.sum(x * jlax.stop_gradient(x) + jlax.stop_gradient({"a": x})["a"])  # noqa: E731
    x = r(3)
    assert_same(fe.grad(f)(x), jax.grad(fj)(x))
    assert "stop_gradient" in str(fe.make_graph(f)(x))
    xs = r(2, 3)
    assert_same(fe.jit(fe.vmap(fe.grad(f)))(xs), jax.vmap(jax.grad(fj))(xs), "vmap")


# ----------------------------------------------------------------------------- custom rules


def _customs(M):
    @M.custom_jvp
    def f(x, y):
        return M.np.sin(x) * y

    f.defjvps(lambda tx, ans, x, y: M.np.cos(x) * y * tx * 2.0, lambda ty, ans, x, y: M.np.sin(x) * ty)

    @M.custom_vjp
    def g(x, scale):
        return x * scale

    def g_fwd(x, scale):
        return x * scale, (scale,)

    g.defvjp(g_fwd, lambda res, ct: (M.np.clip(ct * res[0], -1.0, 1.0), None))

    @M.custom_jvp
    def h(n, x):  # n is static
        return x ** n

    h.defjvp(lambda n, p, t: (h(n, p[0]), n * p[0] ** (n - 1) * t[0]))
    return f, g, h


def test_custom_jvp_and_vjp_in_every_order():
    F = _customs(type("M", (), dict(np=fnp, custom_jvp=fe.custom_jvp, custom_vjp=fe.custom_vjp)))
    J = _customs(type("M", (), dict(np=jnp, custom_jvp=jax.custom_jvp, custom_vjp=jax.custom_vjp)))
    F = (F[0], F[1], fe.custom_jvp(F[2].fun, nondiff_argnums=(0,)))
    F[2].defjvp(lambda n, p, t: (F[2](n, p[0]), n * p[0] ** (n - 1) * t[0]))
    J = (J[0], J[1], jax.custom_jvp(J[2].fun, nondiff_argnums=(0,)))
    J[2].defjvp(lambda n, p, t: (J[2](n, p[0]), n * p[0] ** (n - 1) * t[0]))

    def loss(c):
        return lambda x, y: c[2](3, c[0](x, y)).sum() + c[1](x, 3.0).sum()

    x, y = r(4, 3), r(4, 3)
    lo, lj = loss(F), loss(J)
    ours = fe.jit(lambda x, y: (
        fe.grad(lo, (0, 1))(x, y), fe.vmap(fe.grad(lo, (0, 1)))(x, y),
        fe.grad(lambda x, y: fe.vmap(lo)(x, y).sum(), (0, 1))(x, y),
        fe.hessian(lambda x: lo(x, y[0]))(x[0]), fe.jvp(F[0], (x, y), (y, x))))
    theirs = jax.jit(lambda x, y: (
        jax.grad(lj, (0, 1))(x, y), jax.vmap(jax.grad(lj, (0, 1)))(x, y),
        jax.grad(lambda x, y: jax.vmap(lj)(x, y).sum(), (0, 1))(x, y),
        jax.hessian(lambda x: lj(x, y[0]))(x[0]), jax.jvp(J[0], (x, y), (y, x))))
    assert_same(ours(x, y), theirs(x, y), "grad, vmap(grad), grad(vmap), hessian, jvp")
    assert_same(fe.grad(lo, (0, 1))(x, y), theirs(x, y)[0], "eager grad")


def test_linear_custom_functions_on_tangents_transpose_as_written():
    """Beyond JAX: a custom_vjp function applied to tangents in a jvp rule is transposed as
    the function it computes (JAX has no rule for it)."""
    @fe.custom_vjp
    def triple(x):
        return x * 3.0

    triple.defvjp(lambda x: (triple(x), None), lambda res, g: (g * 3.0,))

    @fe.custom_jvp
    def double(x):
        return x * 2.0

    double.defjvp(lambda p, t: (double(p[0]), double(t[0])))

    @fe.custom_jvp
    def f(x):
        return fnp.sin(x) * 6.0

    f.defjvp(lambda p, t: (f(p[0]), triple(double(fnp.cos(p[0]) * t[0]))))
    x = r(3)
    np.testing.assert_allclose(np.asarray(fe.grad(lambda x: f(x).sum())(x)), 6 * np.cos(x), rtol=1e-6)


def test_checkpoint_recomputes_and_matches_jax():
    def net(np_, ck):
        layer = ck(lambda w, x: np_.tanh(x @ w))
        return lambda w, x: np_.sum(layer(w, layer(w, x)) ** 2)
    w, x = r(3, 3), r(2, 3)
    assert_same(fe.jit(fe.grad(net(fnp, fe.checkpoint)))(w, x), jax.jit(jax.grad(net(jnp, jax.checkpoint)))(w, x))
    assert_same(fe.vmap(fe.grad(net(fnp, fe.remat)), (None, 0))(w, x),
                jax.jit(jax.vmap(jax.grad(net(jnp, jax.remat)), (None, 0)))(w, x))
    text = stablehlo(fe.grad(net(fnp, fe.checkpoint)), w, x)
    assert "stablehlo.optimization_barrier" in text
    assert "optimization_barrier" not in stablehlo(fe.grad(net(fnp, lambda f: fe.checkpoint(
        f, prevent_cse=False))), w, x)


# ----------------------------------------------------------------------------- errors


def _err(exc, match, fn, *args):
    with pytest.raises(exc, match=match):
        fn(*args)


def test_errors_worded_as_jax():
    _err(TypeError, r"Gradient only defined for scalar-output functions\. Output had shape: \(3,\)\.",
         fe.grad(lambda x: x * 2), np.ones(3, np.float32))
    _err(TypeError, r"grad requires real- or complex-valued inputs \(input dtype that is a sub-dtype "
         r"of np\.inexact\), but got int32\. If you want to use Boolean- or integer-valued inputs, "
         r"use vjp or set allow_int to True\.", fe.grad(lambda x: x * 2), 1)
    _err(TypeError, r"grad requires real-valued outputs \(output dtype that is a sub-dtype of "
         r"np\.floating\), but got int32\. For differentiation of functions with integer outputs, "
         r"use jax\.vjp directly\.", fe.grad(lambda x: (x * 2).astype(np.int32)), 1.0)
    _err(TypeError, r"but got complex64\. For holomorphic differentiation, pass holomorphic=True",
         fe.grad(lambda x: x * 2), np.complex64(1))
    _err(TypeError, r"grad with holomorphic=True requires inputs with complex dtype, but got float32\.",
         fe.grad(lambda x: x * 2, holomorphic=True), 1.0)
    _err(TypeError, r"differentiating with respect to argnums=2 requires at least 3 positional "
         r"arguments to be passed by the caller, but got only 2 positional arguments\.",
         fe.grad(lambda x, y: x * y, argnums=2), 1.0, 2.0)
    _err(TypeError, "expected function with aux output to return a two-element tuple",
         fe.grad(lambda x: x, has_aux=True), 1.0)
    _err(TypeError, "Expected a callable value, got 1", fe.grad, 1)
    _err(ValueError, r"Reverse-mode differentiation does not work for lax\.while_loop or "
         r"lax\.fori_loop with dynamic start/stop values\. Try using lax\.scan, or using "
         r"fori_loop with static start/stop\.",
         fe.grad(lambda x: lax.while_loop(lambda c: c < 3.0, lambda c: c * 2.0, x)), 1.0)
    _err(TypeError, "primal and tangent arguments to jax.jvp must be tuples or lists; found float "
         "and float.", fe.jvp, lambda x: x, 1.0, 1.0)
    _err(TypeError, r"primals have tree structure PyTreeDef\(\[\*\]\) whereas tangents have tree "
         r"structure PyTreeDef\(\(\*,\)\)", fe.jvp, lambda x: x, [1.0], (1.0,))
    _err(ValueError, r"jvp called with different primal and tangent shapes;Got primal shape \(3,\) "
         r"and tangent shape as \(2,\)", fe.jvp, lambda x: x, (np.ones(3),), (np.ones(2),))
    _err(TypeError, r"Got primal dtype int32 and so expected tangent dtype \[\('float0', 'V'\)\], "
         r"but got tangent dtype int32 instead\.", fe.jvp, lambda x: x, (1,), (1,))
    pull = fe.vjp(lambda x: x * 2.0, 1.0)[1]
    _err(ValueError, r"unexpected JAX type \(e\.g\. shape/dtype\) for argument to VJP function: got "
         r"f32\[2\], but expected f32\[\] because the corresponding output of the differentiated "
         r"function had JAX type f32\[\]", pull, np.ones(2, np.float32))
    _err(ValueError, "unexpected tree structure", pull, (1.0,))


def test_custom_rule_errors_worded_as_jax():
    @fe.custom_vjp
    def f(x, y):
        return x * y

    f.defvjp(lambda x, y: (x * y, (x, y)), lambda res, g: (g,))
    _err(TypeError, r"Custom VJP bwd rule must produce an output with the same container \(pytree\) "
         r"structure as the args tuple of the primal function, and in particular must produce a "
         r"tuple of length equal to the number of arguments to the primal function, but got bwd "
         r"output structure PyTreeDef\(\(\*,\)\) for primal input structure PyTreeDef\(\(\*, \*\)\)\.",
         fe.grad(f), 1.0, 2.0)
    f.defvjp(lambda x, y: (x * y, None), lambda res, g: (np.ones(3, np.float32), g))
    _err(ValueError, r"at output\[0\] the bwd rule produced an output of type float32\[3\] "
         r"corresponding to an input of type float32\[\], so the shapes do not match",
         fe.grad(f), 1.0, 2.0)
    f.defvjp(lambda x, y: x * y, lambda res, g: (g, g))
    _err(TypeError, "Custom VJP fwd rule <lambda> for function f must produce a pair", fe.grad(f), 1.0, 2.0)
    f.defvjp(lambda x, y: (x * y, (x, y)), lambda res, g: (g, g))
    _err(TypeError, r"can't apply forward-mode autodiff \(jvp\) to a custom_vjp function\.",
         fe.jvp, f, (1.0, 2.0), (1.0, 1.0))
    _err(TypeError, r"can't apply forward-mode autodiff \(jvp\) to a custom_vjp function\.",
         fe.jit(lambda x, t: fe.jvp(f, (x, x), (t, t))), 1.0, 1.0)
    _err(TypeError, r"can't apply forward-mode autodiff \(jvp\) to a custom_vjp function\.",
         fe.vmap(lambda x, t: fe.jvp(f, (x, x), (t, t))), np.ones(2), np.ones(2))
    out, f_jvp = fe.linearize(lambda x: f(x, 2.0), 1.0)
    _err(TypeError, r"can't apply forward-mode autodiff \(jvp\) to a custom_vjp function\.",
         fe.jvp, f_jvp, (1.0,), (1.0,))

    @fe.custom_jvp
    def g(x):
        return x * 2

    _err(AttributeError, "No JVP defined for custom_jvp function g using defjvp.", fe.jit(g), 1.0)
    g.defjvp(lambda p, t: (g(p[0]),))
    _err(TypeError, r"Custom JVP rule <lambda> for function g must produce a pair \(list or tuple of "
         r"length two\) representing primal and tangent outputs", fe.jvp, g, (1.0,), (1.0,))
    g.defjvp(lambda p, t: (g(p[0]), fnp.ones(3)))
    _err(TypeError, r"Custom JVP rule must produce primal and tangent outputs with corresponding "
         r"shapes and dtypes\. Expected float32\[\] \(tangent type of float32\[\]\) but got "
         r"float32\[3\]\.", fe.jvp, g, (1.0,), (1.0,))


def test_argnums_checked_once_for_every_api():
    """A repeated argnums (also spelled with a negative index) is refused by all of grad,
    value_and_grad, jacfwd, jacrev and hessian: JAX fails with a TypeError (it passes None
    for the repeated argument); we said nothing and summed into the wrong slots. An index
    out of range is JAX's ValueError, not wrapped around."""
    def f(x, y):
        return x * y * x

    apis = [(fe.grad, jax.grad, "grad"), (fe.value_and_grad, jax.value_and_grad, "grad"),
            (fe.jacfwd, jax.jacfwd, "jacfwd"), (fe.jacrev, jax.jacrev, "jacrev"),
            (fe.hessian, jax.hessian, "jacfwd")]
    for ours, theirs, name in apis:
        for argnums, twice in [((0, 1, 0), 0), ((1, -1), 1), ((0, 0), 0)]:
            with pytest.raises(TypeError):
                theirs(f, argnums=argnums)(3.0, 2.0)
            _err(TypeError, rf"{name} argnums={re.escape(str(argnums))} names positional "
                 rf"argument {twice} more than once", ours(f, argnums=argnums), 3.0, 2.0)
        msg = (r"Positional argument indices, e\.g\. for `static_argnums`, must have value "
               r"greater than or equal to -len\(args\) and less than len\(args\), but got value "
               r"-3 for len\(args\) == 2\.")
        with pytest.raises(ValueError, match=msg):
            theirs(f, argnums=(0, -3))(3.0, 2.0)
        _err(ValueError, msg, ours(f, argnums=(0, -3)), 3.0, 2.0)
    # (0, 1) and (-2, -1) are the same request: the same gradients as JAX
    assert_same(fe.grad(f, argnums=(-2, -1))(3.0, 2.0), jax.grad(f, argnums=(0, 1))(3.0, 2.0),
                "grad")


def test_redefined_custom_rules_reach_jitted_programs():
    """defjvp / defvjp again after use: the same jitted function uses the new rule, as eager
    calls do (JAX's jit keeps the old one here; frontend drops programs built with a rule
    that was replaced, as it does for a primitive's)."""
    @fe.custom_jvp
    def f(x):
        return fnp.sin(x)

    @fe.custom_vjp
    def h(x):
        return fnp.sin(x)

    grads = {"custom_jvp": fe.jit(fe.grad(f)), "custom_vjp": fe.jit(fe.grad(h))}
    for k in (2.0, 3.0):
        f.defjvp(lambda p, t, k=k: (f(p[0]), k * t[0]))
        h.defvjp(lambda x: (h(x), None), lambda _, g, k=k: (k * g,))
        for name, g in grads.items():
            assert float(g(1.0)) == k, name
            assert float(fe.grad(f if name == "custom_jvp" else h)(1.0)) == k, name
