"""Automatic differentiation with JAX's signatures and pytree handling: jvp, linearize, vjp,
grad, value_and_grad, jacfwd, jacrev, hessian.

Forward mode runs the JVP trace (frontend.interpreters.jvp); reverse mode linearizes by partial
evaluation (frontend.interpreters.partial_eval: the primal half runs in the enclosing trace, the tangent
half is recorded as a linear graph whose constants are the residuals) and transposes that
graph (frontend.interpreters.transpose.backward_pass). Everything runs under the current trace, so the
transformations compose with vmap and jit in any order:

>>> import numpy as np
>>> import frontend as fe
>>> import frontend.numpy as fnp
>>> def loss(w, x, y):
...     return (fnp.dot(x, w) - y) ** 2
>>> w, xs, ys = np.ones(2, np.float32), np.ones((3, 2), np.float32), np.arange(3.0, dtype=np.float32)
>>> fe.vmap(fe.grad(loss), in_axes=(None, 0, 0))(w, xs, ys)   # per-example gradients
Array([[4., 4.],
       [2., 2.],
       [0., 0.]], dtype=float32)
>>> fe.jit(fe.hessian(lambda x: fnp.sum(x ** 3)))(np.ones(2, np.float32))
Array([[6., 0.],
       [0., 6.]], dtype=float32)
"""
from __future__ import annotations

import functools

import numpy as np

from ..core import dtypes
from ..core.arguments import leaf_aval
from ..core.ir import aval_of, eval_graph, literal
from ..core.pytree import TreeDef, tree_flatten, tree_unflatten
from ..core.tracing import flatten_fun
from ..interpreters.ad_util import UndefinedPrimal, Zero, float0_zeros, tangent_aval
from ..interpreters.jvp import jvp_fun
from ..interpreters.partial_eval import linearize_fun
from ..interpreters.transpose import backward_pass
from ..lax._convert import as_operand, convert
from ..primitives.shape import broadcast_in_dim_p, instantiate_zeros, reshape_p
from .vmap import vmap


def _pytree(td: TreeDef) -> str:
    return f"PyTreeDef({td})"


def _check_callable(fun):
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun!r}")


def _operand(x):
    """A function argument as an array (numpy arrays and Python scalars go to the device,
    keeping their weak type)."""
    try:
        return as_operand(x)
    except TypeError:
        raise TypeError(f"Argument {x!r} of type {type(x)} is not a valid JAX type.") from None


def _flat_fun(fun, in_td, has_aux):
    """``fun`` on pytrees -> ``(flat, trees)``: ``flat`` takes flat values and returns
    [outputs..., aux leaves...]; ``trees()``, once it ran, is (output treedef, aux treedef)."""
    def with_aux(*args):
        out = fun(*args)
        if not has_aux:
            return out, None
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError("expected function with aux output to return a two-element "
                            f"tuple, but got type {type(out)} with value {out!r}")
        return tuple(out)

    flat, out_tree = flatten_fun(with_aux, in_td)
    return flat, lambda: out_tree().children


def _cast(t, aval):
    """A tangent with the dtype and weak type of ``aval`` (a float0 array for integers)."""
    if aval.dtype == dtypes.float0:
        return float0_zeros(aval.shape)
    if type(t) is Zero:
        t = instantiate_zeros(Zero(aval))
    return convert(t, aval.dtype, aval.weak_type)


def _split_aux(vals, trees):
    o_td, a_td = trees
    n = o_td.num_leaves
    return tree_unflatten(o_td, vals[:n]), tree_unflatten(a_td, vals[n:])


# ----------------------------------------------------------------------------- forward mode


def jvp(fun, primals, tangents, has_aux=False):
    """The Jacobian-vector product of ``fun`` at ``primals`` along ``tangents`` (tuples or
    lists of pytrees of the same structure): ``(fun(*primals), tangent_out)``, plus the aux
    output with ``has_aux``. Integer and boolean primals take float0 tangents.

    >>> import frontend as fe
    >>> import frontend.numpy as fnp
    >>> fe.jvp(fnp.sin, (0.5,), (1.0,))
    (Array(0.47942555, dtype=float32, weak_type=True), Array(0.87758255, dtype=float32, weak_type=True))
    """
    _check_callable(fun)
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("primal and tangent arguments to jax.jvp must be tuples or lists; found "
                        f"{type(primals).__name__} and {type(tangents).__name__}.")
    p_leaves, p_td = tree_flatten(primals)
    t_leaves, t_td = tree_flatten(tangents)
    if p_td != t_td:
        raise TypeError("primal and tangent arguments to jax.jvp must have the same tree "
                        f"structure; primals have tree structure {_pytree(p_td)} whereas "
                        f"tangents have tree structure {_pytree(t_td)}.")
    p_leaves = [_operand(p) for p in p_leaves]
    ts = []
    for p, t in zip(p_leaves, t_leaves, strict=True):
        pa, ta = p.aval, leaf_aval(t)
        if pa.shape != ta.shape:
            raise ValueError("jvp called with different primal and tangent shapes;Got primal "
                             f"shape {pa.shape} and tangent shape as {ta.shape}")
        want = tangent_aval(pa).dtype
        if ta.dtype != want:
            raise TypeError("primal and tangent arguments to jax.jvp do not match; dtypes must "
                            "be equal, or in case of int/bool primal dtype the tangent dtype "
                            f"must be float0.Got primal dtype {pa.dtype} and so expected "
                            f"tangent dtype {want}, but got tangent dtype {ta.dtype} instead.")
        ts.append(Zero(tangent_aval(pa)) if want == dtypes.float0
                  else convert(_operand(t), pa.dtype, pa.weak_type))
    flat, trees = _flat_fun(fun, p_td, has_aux)
    p_out, t_out = jvp_fun(flat, p_leaves, ts)
    out_td = trees()[0]
    n = out_td.num_leaves
    t_out = [_cast(t, tangent_aval(aval_of(p))) for p, t in zip(p_out[:n], t_out[:n], strict=True)]
    out, aux = _split_aux(p_out, trees())
    t_tree = tree_unflatten(out_td, t_out)
    return (out, t_tree, aux) if has_aux else (out, t_tree)


def _linearize(fun, primals, has_aux):
    """``fun`` linearized at ``primals`` (a tuple of pytrees), with respect to the inexact
    leaves: (leaves, their treedef, which are differentiated, primal outputs, Linearized,
    (output treedef, aux treedef))."""
    _check_callable(fun)
    leaves, in_td = tree_flatten(primals)
    leaves = [_operand(x) for x in leaves]
    nonzero = [dtypes.is_inexact(x.aval.dtype) for x in leaves]
    flat, trees = _flat_fun(fun, in_td, has_aux)
    p_out, lin = linearize_fun(flat, leaves, nonzero)
    return leaves, in_td, nonzero, p_out, lin, trees()


def linearize(fun, *primals, has_aux=False):
    """``(fun(*primals), f_jvp)`` where ``f_jvp(*tangents)`` is the jvp at ``primals``: the
    primal computation runs once, ``f_jvp`` evaluates only the linear part (plus the aux
    output with ``has_aux``)."""
    leaves, in_td, nonzero, p_out, lin, trees = _linearize(fun, primals, has_aux)
    out_td = trees[0]
    n = out_td.num_leaves
    out, aux = _split_aux(p_out, trees)

    def f_jvp(*tangents):
        t_leaves, t_td = tree_flatten(tangents)
        if t_td != in_td:
            raise ValueError(f"linearized function called on tangents of structure {t_td}, "
                             f"expected the structure of the primals {in_td}")
        for p, t in zip(leaves, t_leaves, strict=True):
            ta, want = leaf_aval(t), tangent_aval(p.aval)
            if ta.shape != want.shape or ta.dtype != want.dtype:
                raise ValueError(f"linearized function called on a tangent of type "
                                 f"{ta.str_short()} for a primal of type {p.aval.str_short()}")
        ins = [convert(_operand(t), p.aval.dtype, p.aval.weak_type)
               for p, t, nz in zip(leaves, t_leaves, nonzero, strict=True) if nz]
        it = iter(eval_graph(lin.graph, lin.graph.consts, ins))
        touts = [next(it) if nz else Zero(a)
                 for nz, a in zip(lin.out_nonzero, lin.out_tangent_avals, strict=True)][:n]
        return tree_unflatten(out_td, [_cast(t, a) for t, a in zip(touts, lin.out_tangent_avals,
                                                                     strict=True)])

    return (out, f_jvp, aux) if has_aux else (out, f_jvp)


# ----------------------------------------------------------------------------- reverse mode


def vjp(fun, *primals, has_aux=False):
    """``(fun(*primals), f_vjp)`` where ``f_vjp(cotangent)`` pulls a cotangent of the output
    (a pytree like it) back to a tuple of cotangents of the primals (plus the aux output with
    ``has_aux``).

    >>> import frontend as fe
    >>> y, f_vjp = fe.vjp(lambda x: x * x, 3.0)
    >>> f_vjp(1.0)
    (Array(6., dtype=float32, weak_type=True),)
    """
    leaves, in_td, nonzero, p_out, lin, trees = _linearize(fun, primals, has_aux)
    out_td = trees[0]
    n = out_td.num_leaves
    out, aux = _split_aux(p_out, trees)
    out_avals = [aval_of(o) for o in p_out[:n]]
    name = getattr(fun, "__name__", "fun")

    def f_vjp(cotangent):
        c_leaves, c_td = tree_flatten(cotangent)
        if c_td != out_td:
            raise ValueError(
                "unexpected tree structure.\n\nThe argument to a VJP function returned by "
                f"`jax.vjp` must match the pytree structure of the differentiated function "
                f"{name}.\n\nBut the tree structures differ: the output is a {_pytree(out_td)}, "
                f"the cotangent a {_pytree(c_td)}.")
        cts = []
        for c, oa, nz in zip(c_leaves, out_avals, lin.out_nonzero[:n], strict=True):
            ca, want = leaf_aval(c), tangent_aval(oa)
            if want.dtype == dtypes.float0 and ca.shape == want.shape:
                if nz:  # any dtype stands for the float0 cotangent of an integer output (JAX)
                    cts.append(Zero(want))
                continue
            if ca.shape != want.shape or ca.dtype != want.dtype:
                raise ValueError(
                    "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
                    f"{ca.str_short()}, but expected {want.str_short()} because the "
                    "corresponding output of the differentiated function had JAX type "
                    f"{oa.str_short()}")
            if nz:
                cts.append(convert(_operand(c), want.dtype, want.weak_type))
        cts += [Zero(a) for a, nz in zip(lin.out_tangent_avals[n:], lin.out_nonzero[n:], strict=True) if nz]
        g = lin.graph
        res = backward_pass(g, g.consts, [UndefinedPrimal(v.aval) for v in g.invars], cts)
        it = iter(res)
        ct_in = [_cast(next(it) if nz else None, tangent_aval(x.aval))
                 for x, nz in zip(leaves, nonzero, strict=True)]
        return tuple(tree_unflatten(in_td, ct_in))

    return (out, f_vjp, aux) if has_aux else (out, f_vjp)


def _argnums_partial(fun, argnums, args, kwargs, api="grad"):
    """(fun of the argnums arguments only, those arguments). The one check of ``argnums``
    for grad, value_and_grad, jacfwd, jacrev and hessian: ints in range (JAX's wording per
    api; negative ones count from the end), and no argument named twice."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums:
        raise ValueError(f"{api} argnums must be an int or a non-empty tuple of ints, got "
                         f"{argnums!r}")
    n = len(args)
    if api == "grad" and max(nums) >= n:
        raise TypeError(f"differentiating with respect to argnums={argnums} requires at least "
                        f"{max(nums) + 1} positional arguments to be passed by the caller, but "
                        f"got only {n} positional arguments.")
    for i in nums:
        if not -n <= i < n:
            raise ValueError("Positional argument indices, e.g. for `static_argnums`, must have "
                             "value greater than or equal to -len(args) and less than len(args), "
                             f"but got value {i} for len(args) == {n}.")
    nums = tuple(i % n for i in nums)
    if len(set(nums)) < len(nums):
        # (JAX passes None for the repeated argument, which the function then trips over)
        twice = next(i for i in nums if nums.count(i) > 1)
        raise TypeError(f"{api} argnums={argnums} names positional argument {twice} more than "
                        "once: each argument can be differentiated with respect to only once.")

    def f_partial(*dyn):
        full = list(args)
        for i, x in zip(nums, dyn, strict=True):
            full[i] = x
        return fun(*full, **kwargs)

    return f_partial, tuple(args[i] for i in nums)


def _check_input(name, holomorphic, allow_int, x):
    a = leaf_aval(x)
    if holomorphic and not dtypes.is_complex(a.dtype):
        raise TypeError(f"{name} with holomorphic=True requires inputs with complex dtype, "
                        f"but got {a.dtype.name}.")
    if (dtypes.is_int(a.dtype) or dtypes.is_bool(a.dtype)) and not allow_int:
        raise TypeError(f"{name} requires real- or complex-valued inputs (input dtype that is "
                        f"a sub-dtype of np.inexact), but got {a.dtype.name}. If you want to "
                        "use Boolean- or integer-valued inputs, use vjp or set allow_int to True.")


def _check_output(name, holomorphic, x):
    a = leaf_aval(x)
    if holomorphic:
        if not dtypes.is_complex(a.dtype):
            raise TypeError(f"{name} with holomorphic=True requires outputs with complex dtype, "
                            f"but got {a.dtype.name}.")
    elif dtypes.is_complex(a.dtype):
        raise TypeError(f"{name} requires real-valued outputs (output dtype that is a sub-dtype "
                        f"of np.floating), but got {a.dtype.name}. For holomorphic "
                        "differentiation, pass holomorphic=True. For differentiation of "
                        "non-holomorphic functions involving complex outputs, use jax.vjp "
                        "directly.")
    elif not dtypes.is_float(a.dtype):
        raise TypeError(f"{name} requires real-valued outputs (output dtype that is a sub-dtype "
                        f"of np.floating), but got {a.dtype.name}. For differentiation of "
                        "functions with integer outputs, use jax.vjp directly.")


def _check_scalar(x):
    try:
        a = leaf_aval(x)
    except TypeError:
        raise TypeError(f"Gradient only defined for scalar-output functions. Output was {x}.") from None
    if a.shape != ():
        raise TypeError(f"Gradient only defined for scalar-output functions. Output had shape: "
                        f"{a.shape}.")


def value_and_grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False,
                   reduce_axes=()):
    """``fun`` and its gradient with respect to the ``argnums`` arguments in one pass:
    ``(value, grad)`` (``((value, aux), grad)`` with ``has_aux``). ``fun`` must return a
    real scalar (complex with ``holomorphic=True``)."""
    _check_callable(fun)
    if reduce_axes:
        raise NotImplementedError("reduce_axes argument to grad is deprecated")

    @functools.wraps(fun)
    def value_and_grad_f(*args, **kwargs):
        f_partial, dyn = _argnums_partial(fun, argnums, args, kwargs)
        for leaf in tree_flatten(dyn)[0]:
            _check_input("grad", holomorphic, allow_int, leaf)
        res = vjp(f_partial, *dyn, has_aux=has_aux)
        ans, f_vjp = res[0], res[1]
        _check_scalar(ans)
        _check_output("grad", holomorphic, ans)
        a = aval_of(ans)
        g = f_vjp(broadcast_in_dim_p.bind(literal(1, a.dtype, a.weak_type), shape=(),
                                          broadcast_dimensions=()))
        g = g[0] if isinstance(argnums, int) else g
        return ((ans, res[2]) if has_aux else ans), g

    return value_and_grad_f


def grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False, reduce_axes=()):
    """The gradient of ``fun`` (a real scalar function) with respect to its ``argnums``
    arguments, with the structure of those arguments (``(grad, aux)`` with ``has_aux``).

    >>> import frontend as fe
    >>> import frontend.numpy as fnp
    >>> fe.grad(lambda x: fnp.sum(x ** 2))(fnp.arange(3.0))
    Array([0., 2., 4.], dtype=float32)
    """
    vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int, reduce_axes)

    @functools.wraps(fun)
    def grad_f(*args, **kwargs):
        value, g = vg(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return grad_f


# ----------------------------------------------------------------------------- jacobians


def _std_basis(leaves):
    """The identity, as one (N,) + leaf.shape block per leaf (N = total size)."""
    sizes = [int(np.prod(aval_of(x).shape, dtype=np.int64)) for x in leaves]
    n = sum(sizes)
    eye = np.eye(n)
    out, off = [], 0
    for x, s in zip(leaves, sizes, strict=True):
        a = aval_of(x)
        d = np.float32 if a.dtype == dtypes.float0 or not dtypes.is_inexact(a.dtype) else a.dtype
        out.append(np.asarray(eye[:, off:off + s].reshape((n,) + a.shape), d))
        off += s
    return out, n


def _check_jacfwd_input(holomorphic, x):
    a = leaf_aval(x)
    if holomorphic:
        if not dtypes.is_complex(a.dtype):
            raise TypeError("jacfwd with holomorphic=True requires inputs with complex dtype, "
                            f"but got {a.dtype.name}.")
    elif not dtypes.is_float(a.dtype):
        raise TypeError("jacfwd requires real-valued inputs (input dtype that is a sub-dtype of "
                        f"np.floating), but got {a.dtype.name}. For holomorphic "
                        "differentiation, pass holomorphic=True. For differentiation of "
                        "non-holomorphic functions involving complex inputs or integer inputs, "
                        "use jax.jvp directly.")


def _split_rows(jac, leaves, axis):
    """Split ``axis`` of ``jac`` (of size N = total size of ``leaves``) into one block per
    leaf, reshaped to that leaf's shape."""
    out, off = [], 0
    shp = aval_of(jac).shape
    for x in leaves:
        xa = aval_of(x)
        s = int(np.prod(xa.shape, dtype=np.int64))
        if axis == 0:
            block = jac[off:off + s] if (off, s) != (0, shp[0]) else jac
            new = xa.shape + tuple(shp[1:])
        else:
            block = jac[..., off:off + s] if (off, s) != (0, shp[-1]) else jac
            new = tuple(shp[:-1]) + xa.shape
        out.append(reshape_p.bind(block, new_sizes=new, dimensions=None)
                   if aval_of(block).shape != new else block)
        off += s
    return out


def jacfwd(fun, argnums=0, has_aux=False, holomorphic=False):
    """The Jacobian of ``fun`` by forward mode (vmap of jvp over the input basis): for each
    output leaf, an array of shape ``out.shape + in.shape`` (a tuple over ``argnums`` when it
    is a tuple)."""
    _check_callable(fun)

    def jacfun(*args, **kwargs):
        f_partial, dyn = _argnums_partial(fun, argnums, args, kwargs, "jacfwd")
        in_leaves, in_td = tree_flatten(dyn)
        for x in in_leaves:
            _check_jacfwd_input(holomorphic, x)
        in_leaves = [_operand(x) for x in in_leaves]
        dyn = tree_unflatten(in_td, in_leaves)
        basis, n = _std_basis(in_leaves)

        def pushfwd(*t_leaves):
            res = jvp(f_partial, dyn, tree_unflatten(in_td, list(t_leaves)), has_aux=has_aux)
            return (res[0], res[1], res[2]) if has_aux else (res[0], res[1])

        res = vmap(pushfwd, out_axes=(None, -1, None) if has_aux else (None, -1))(*basis)
        y, jac = res[0], res[1]
        y_leaves, y_td = tree_flatten(y)
        j_leaves = tree_flatten(jac)[0]
        for yl in y_leaves:
            if holomorphic and not dtypes.is_complex(aval_of(yl).dtype):
                raise TypeError("jacfwd with holomorphic=True requires outputs with complex "
                                f"dtype, but got {aval_of(yl).dtype.name}.")
        per_out = []
        for jl in j_leaves:
            blocks = _split_rows(jl, in_leaves, -1)
            tree = tree_unflatten(in_td, blocks)
            per_out.append(tree[0] if isinstance(argnums, int) else tree)
        out = tree_unflatten(y_td, per_out)
        return (out, res[2]) if has_aux else out

    return jacfun


def jacrev(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """The Jacobian of ``fun`` by reverse mode (vmap of vjp over the output basis): for each
    output leaf, an array of shape ``out.shape + in.shape``."""
    _check_callable(fun)

    def jacfun(*args, **kwargs):
        f_partial, dyn = _argnums_partial(fun, argnums, args, kwargs, "jacrev")
        in_leaves, in_td = tree_flatten(dyn)
        for x in in_leaves:
            _check_input("jacrev", holomorphic, allow_int, x)
        res = vjp(f_partial, *dyn, has_aux=has_aux)
        y, pullback = res[0], res[1]
        y_leaves, y_td = tree_flatten(y)
        for yl in y_leaves:
            _check_output("jacrev", holomorphic, yl)
        basis, n = _std_basis(y_leaves)
        basis = [b.astype(aval_of(yl).dtype) for b, yl in zip(basis, y_leaves, strict=True)]
        jac = vmap(lambda *c: pullback(tree_unflatten(y_td, list(c))))(*basis)
        j_leaves = tree_flatten(jac)[0]
        in_leaves = tree_flatten(dyn)[0]
        # per input leaf: (N_out,) + in.shape -> one block per output leaf
        per_in = [_split_rows(jl, y_leaves, 0) if aval_of(jl).dtype != dtypes.float0 else
                  [float0_zeros(aval_of(yl).shape + aval_of(xl).shape) for yl in y_leaves]
                  for jl, xl in zip(j_leaves, in_leaves, strict=True)]
        per_out = []
        for k in range(len(y_leaves)):
            tree = tree_unflatten(in_td, [blocks[k] for blocks in per_in])
            per_out.append(tree[0] if isinstance(argnums, int) else tree)
        out = tree_unflatten(y_td, per_out)
        return (out, res[2]) if has_aux else out

    return jacfun


def hessian(fun, argnums=0, has_aux=False, holomorphic=False):
    """The Hessian of a scalar ``fun``: ``jacfwd(jacrev(fun))``."""
    return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)


__all__ = ["grad", "hessian", "jacfwd", "jacrev", "jvp", "linearize", "value_and_grad", "vjp"]
