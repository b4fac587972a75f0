"""Symbolic dimensions at run time (shape-polymorphic modules): the value of a ``DimExpr``
(frontend/core/shape_poly.py) as a ``tensor<i64>`` computed from @main's arguments with
``stablehlo.get_dimension_size``, and shapes as the ``tensor<Nxi64>`` operands of the
dynamic ops (``dynamic_broadcast_in_dim``, ``dynamic_reshape``, ``dynamic_iota``, ...).

Each symbol is read from the first argument dimension that is that symbol alone (as JAX's
export solves its dimension variables); values are cached per function scope like the
scalar constants, so a region computes nothing twice and never uses a value of a sibling."""
from __future__ import annotations

import numpy as np

from frontend.core.ir import Aval
from frontend.core.shape_poly import (
    DimExpr,
    assertion_text,
    constraint_message,
    constraint_parts,
    specs_text,
)

_I64 = Aval((), np.dtype(np.int64))
_S = "tensor<i64>"


def is_static(shape) -> bool:
    return all(type(d) is int for d in shape)


def dim_sources(arg_names, avals, types) -> dict:
    """symbol -> (SSA name of an argument, its type text, axis) where it is read."""
    out: dict = {}
    for name, a, t in zip(arg_names, avals, types, strict=True):
        for k, d in enumerate(a.shape):
            s = d.as_symbol() if type(d) is DimExpr else None
            if s is not None and s not in out:
                out[s] = (name, t, k)
    return out


def dim_value(fn, d) -> str:
    """SSA name of a ``tensor<i64>`` holding dimension ``d`` (an int or a DimExpr)."""
    if type(d) is not DimExpr:
        return fn.constant(int(d), _I64)
    key = ("dim", d)
    name = fn._consts.get(key)
    if name is None:
        total = None
        for mono, c in d.terms():
            v = fn.constant(c, _I64) if c != 1 or not mono else None
            for atom, p in mono:
                a = _atom_value(fn, atom)
                for _ in range(p):
                    v = a if v is None else _bin(fn, "multiply", v, a)
            total = v if total is None else _bin(fn, "add", total, v)
        name = fn._consts[key] = total
    return name


def _bin(fn, op: str, x: str, y: str) -> str:
    return fn.op(f"stablehlo.{op} {x}, {y} : {_S}")


def _atom_value(fn, atom) -> str:
    key = ("dim atom", atom)
    name = fn._consts.get(key)
    if name is None:
        name = fn._consts[key] = _compute_atom(fn, atom)
    return name


def _compute_atom(fn, atom) -> str:
    kind = atom[0]
    if kind == "sym":
        src = fn.dim_sources.get(atom[1])
        if src is None:
            raise ValueError(
                f"the symbolic dimension {atom[1]!r} is not the size of any argument's "
                "dimension here: vmaplab reads each symbol from an argument dimension that is "
                "that symbol alone (JAX also solves linear ones such as 2*b), and a region "
                "isolated from @main cannot read it")
        arg, typ, axis = src
        size = fn.op(f"stablehlo.get_dimension_size {arg}, dim = {axis} : ({typ}) "
                     f"-> tensor<i32>")
        return fn.op(f"stablehlo.convert {size} : (tensor<i32>) -> {_S}")
    x, y = dim_value(fn, atom[1]), dim_value(fn, atom[2])
    if kind in ("max", "min"):
        return _bin(fn, "maximum" if kind == "max" else "minimum", x, y)
    # floor division and modulo (StableHLO's divide/remainder truncate toward zero)
    q, r = _bin(fn, "divide", x, y), _bin(fn, "remainder", x, y)
    zero = fn.constant(0, _I64)
    cmp = "(tensor<i64>, tensor<i64>) -> tensor<i1>"
    nz = fn.op(f"stablehlo.compare NE, {r}, {zero}, SIGNED : {cmp}")
    rneg = fn.op(f"stablehlo.compare LT, {r}, {zero}, SIGNED : {cmp}")
    yneg = fn.op(f"stablehlo.compare LT, {y}, {zero}, SIGNED : {cmp}")
    differ = fn.op(f"stablehlo.compare NE, {rneg}, {yneg}, UNSIGNED : "
                   "(tensor<i1>, tensor<i1>) -> tensor<i1>")
    adjust = fn.op(f"stablehlo.and {nz}, {differ} : tensor<i1>")
    if kind == "floordiv":
        one = fn.op(f"stablehlo.convert {adjust} : (tensor<i1>) -> {_S}")
        return _bin(fn, "subtract", q, one)
    plus = fn.op(f"stablehlo.select {adjust}, {y}, {zero} : tensor<i1>, {_S}")
    return _bin(fn, "add", r, plus)


def shape_value(fn, shape) -> str:
    """SSA name of a ``tensor<Nxi64>`` holding ``shape`` (ints and DimExprs)."""
    key = ("shape", tuple(shape))
    name = fn._consts.get(key)
    if name is None:
        n = len(shape)
        if is_static(shape):
            body = ", ".join(map(str, shape))
            name = fn.op(f"stablehlo.constant dense<[{body}]> : tensor<{n}xi64>")
        elif n == 1:
            name = fn.op(f"stablehlo.reshape {dim_value(fn, shape[0])} : ({_S}) -> tensor<1xi64>")
        else:
            parts = [fn.op(f"stablehlo.reshape {dim_value(fn, d)} : ({_S}) -> tensor<1xi64>")
                     for d in shape]
            types = ", ".join(["tensor<1xi64>"] * n)
            name = fn.op(f"stablehlo.concatenate {', '.join(parts)}, dim = 0 : ({types}) "
                         f"-> tensor<{n}xi64>")
        fn._consts[key] = name
    return name


def iota(ctx, aval, dimension: int) -> str:
    """An iota along ``dimension`` of ``aval`` (a ``dynamic_iota`` of a symbolic shape)."""
    if not is_static(aval.shape):
        return ctx.op(f"stablehlo.dynamic_iota {shape_value(ctx.fn, aval.shape)}, "
                      f"dim = {dimension} : (tensor<{aval.ndim}xi64>) -> {ctx.type(aval)}")
    return ctx.op(f"stablehlo.iota dim = {dimension} : {ctx.type(aval)}")


def shape_assertions(fn, arg_names, avals, types) -> None:
    """JAX's ``shape_assertion`` custom calls at the start of @main: each symbol >= 1, every
    other symbolic argument dimension equal to its expression, each constraint of the scope.
    The shape refinement of a call checks them (JAX's callers of our artifacts too) and
    removes them: XLA never sees them. Messages are JAX's, ``{k}`` the k-th value."""
    names = list(arg_names)
    obtained = "".join(
        f"'{s}' = {{{k}}} from specification '{s}' for dimension "
        f"args[{names.index(src[0])}].shape[{src[2]}] (= {{{k}}}), "
        for k, (s, src) in enumerate(fn.dim_sources.items()))
    scope = next(d.scope for a in avals for d in a.shape if type(d) is DimExpr)
    pre, tail = assertion_text(specs_text([a.shape for a in avals]), obtained)
    syms = [dim_value(fn, DimExpr({((("sym", s), 1),): 1}, scope)) for s in fn.dim_sources]
    n = len(syms)
    cmp = "(tensor<i64>, tensor<i64>) -> tensor<i1>"
    one = fn.constant(1, _I64)
    for s, v in zip(fn.dim_sources, syms, strict=True):
        pred = fn.op(f"stablehlo.compare GE, {v}, {one}, SIGNED : {cmp}")
        _assert(fn, pred, syms, f"{pre}Expected value >= 1 for dimension variable '{s}'. {tail}")
    for i, (name, a, t) in enumerate(zip(names, avals, types, strict=True)):
        for k, d in enumerate(a.shape):
            if type(d) is not DimExpr or fn.dim_sources.get(d.as_symbol(), ())[::2] == (name, k):
                continue
            size = fn.op(f"stablehlo.get_dimension_size {name}, dim = {k} : ({t}) -> tensor<i32>")
            got = fn.op(f"stablehlo.convert {size} : (tensor<i32>) -> {_S}")
            want = dim_value(fn, d)
            pred = fn.op(f"stablehlo.compare EQ, {got}, {want}, SIGNED : {cmp}")
            _assert(fn, pred, [*syms, got, want],
                    f"{pre}Found inconsistency between dimension size args[{i}].shape[{k}] "
                    f"(= {{{n}}}) and the specification '{d}' (= {{{n + 1}}}). {tail}")
    for text in scope.constraints():
        kind, left, right = constraint_parts(text, scope)
        lv, rv = dim_value(fn, left), dim_value(fn, right)
        pred = fn.op(f"stablehlo.compare {'EQ' if kind == '==' else 'GE'}, {lv}, {rv}, "
                     f"SIGNED : {cmp}")
        msg = constraint_message(kind, left, right, f"{{{n}}}", f"{{{n + 1}}}")
        _assert(fn, pred, [*syms, lv, rv], f"Input shapes do not match the symbolic shape "
                f"constraint {text}. {msg}.  {tail}")


def _assert(fn, pred: str, values: list, message: str) -> None:
    types = ", ".join(["tensor<i1>"] + [_S] * len(values))
    msg = message.replace("\\", "\\\\").replace('"', '\\"')
    fn.lines.append(f'    stablehlo.custom_call @shape_assertion({", ".join([pred, *values])}) '
                    f'{{api_version = 2 : i32, error_message = "{msg}", has_side_effect = true}}'
                    f" : ({types}) -> ()")


def dynamic_error(prim: str, shape) -> NotImplementedError:
    """The error of a lowering rule with no dynamic-shape form for a symbolic shape."""
    sym = next(d for d in shape if type(d) is DimExpr)
    return NotImplementedError(
        f"primitive {prim!r} cannot be lowered for the symbolic dimension '{sym}' (shape "
        f"({', '.join(map(str, shape))})): shape-polymorphic export supports it only with "
        "static dimensions there")
