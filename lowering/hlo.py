"""Graph -> StableHLO text: one pass over the equations, SSA names ``%0, %1, ...``.

Emitters are registered per primitive name with ``@emitter("add")``; an emitter gets the
context, the equation and the SSA names of its inputs and returns the names of its outputs.
"""
from __future__ import annotations

import numpy as np

from frontend import dtypes
from frontend.core import Aval, Graph, Literal

EMITTERS: dict = {}


def emitter(*names):
    def deco(fn):
        for n in names:
            if n in EMITTERS:
                raise ValueError(f"emitter for {n} registered twice")
            EMITTERS[n] = fn
        return fn
    return deco


def elem_type(dtype) -> str:
    d = np.dtype(dtype)
    if d == dtypes.bool_:
        return "i1"
    if d == dtypes.bfloat16:
        return "bf16"
    k = d.kind
    bits = d.itemsize * 8
    if k == "f":
        return f"f{bits}"
    if k == "i":
        return f"i{bits}"
    if k == "u":
        return f"ui{bits}"
    if k == "c":
        return f"complex<f{bits // 2}>"
    raise TypeError(f"no StableHLO type for dtype {d}")


_TYPE_CACHE: dict = {}


def tensor_type(aval: Aval) -> str:
    """``tensor<3x5xf32>`` (cached per aval)."""
    t = _TYPE_CACHE.get(aval)
    if t is None:
        dims = "x".join(map(str, aval.shape))
        t = _TYPE_CACHE[aval] = f"tensor<{dims}{'x' if dims else ''}{elem_type(aval.dtype)}>"
    return t


def _scalar_text(v, dtype) -> str:
    d = np.dtype(dtype)
    if d == dtypes.bool_:
        return "true" if bool(v) else "false"
    if d.kind in "iu":
        return str(int(v))
    if d.kind == "c":
        c = complex(v)
        part = np.float32 if d == dtypes.complex64 else np.float64
        return f"({_scalar_text(c.real, part)}, {_scalar_text(c.imag, part)})"
    f = float(v)
    if np.isfinite(f) and d not in (dtypes.bfloat16, dtypes.float16):
        return repr(f)
    return "0x" + np.asarray(v, d).tobytes()[::-1].hex().upper()


def dense_attr(value: np.ndarray, aval: Aval) -> str:
    """``dense<...>`` for a constant: a splat where all elements are equal, else raw hex."""
    value = np.asarray(value, aval.dtype)
    flat = value.reshape(-1)
    if flat.size == 0:
        return "dense<>" if False else "dense<[]>" if aval.ndim == 1 else "dense<" + "[" * aval.ndim + "]" * aval.ndim + ">"
    if flat.size == 1 or (flat == flat[0]).all() and not (flat.dtype.kind == "f" and np.isnan(flat[0])):
        return f"dense<{_scalar_text(flat[0], aval.dtype)}>"
    return f'dense<"0x{np.ascontiguousarray(value).tobytes().hex().upper()}">'


class FuncCtx:
    """Emission state of one function body."""

    def __init__(self, module: "ModuleCtx"):
        self.module = module
        self.lines: list = []
        self.n = 0
        self._consts: dict = {}

    def fresh(self) -> str:
        name = f"%{self.n}"
        self.n += 1
        return name

    def op(self, rhs: str, indent: str = "    ") -> str:
        """Emit ``%k = rhs`` and return ``%k``."""
        name = self.fresh()
        self.lines.append(f"{indent}{name} = {rhs}")
        return name

    def constant(self, value, aval: Aval) -> str:
        key = None
        if aval.ndim == 0:
            key = (aval.dtype, _scalar_text(value, aval.dtype))
            hit = self._consts.get(key)
            if hit is not None:
                return hit
        name = self.op(f"stablehlo.constant {dense_attr(value, aval)} : {tensor_type(aval)}")
        if key is not None:
            self._consts[key] = name
        return name

    def broadcast(self, x: str, in_aval: Aval, shape: tuple, dims=None) -> str:
        """broadcast_in_dim of x to ``shape`` (a rank-0 x with dims ())."""
        if dims is None:
            dims = tuple(range(len(shape) - in_aval.ndim, len(shape)))
        out = Aval(shape, in_aval.dtype)
        return self.op(f"stablehlo.broadcast_in_dim {x}, dims = [{', '.join(map(str, dims))}] : "
                       f"({tensor_type(in_aval)}) -> {tensor_type(out)}")

    def lower_body(self, g: Graph, in_names: list, const_names: list | None = None) -> list:
        """Emit the equations of ``g`` with its invars bound to ``in_names``; return the
        SSA names of its outputs."""
        env: dict = {}
        if const_names is None:
            const_names = [self.constant(c, v.aval) for v, c in zip(g.constvars, g.consts)]
        for v, n in zip(g.constvars, const_names, strict=True):
            env[id(v)] = n
        for v, n in zip(g.invars, in_names, strict=True):
            env[id(v)] = n

        def read(a):
            if type(a) is Literal:
                return self.constant(a.val, a.aval)
            return env[id(a)]

        for e in g.eqns:
            try:
                emit = EMITTERS[e.prim.name]
            except KeyError:
                raise NotImplementedError(f"no StableHLO emitter for primitive {e.prim.name}") from None
            outs = emit(self, e, *[env[id(a)] if type(a) is not Literal else read(a) for a in e.inputs])
            for v, n in zip(e.outs, outs, strict=True):
                env[id(v)] = n
        return [read(v) for v in g.outvars]


class ModuleCtx:
    def __init__(self, name: str):
        self.name = name
        self.funcs: list = []


def lower_graph(g: Graph, name: str = "main", consts_as_args: bool = False) -> str:
    """The StableHLO module of a graph: ``func.func public @main``. Constants are emitted as
    ``stablehlo.constant`` unless ``consts_as_args`` (then they lead the arguments)."""
    mod = ModuleCtx(name)
    f = FuncCtx(mod)
    params = list(g.constvars) + list(g.invars) if consts_as_args else list(g.invars)
    arg_names = [f"%arg{i}" for i in range(len(params))]
    args = ", ".join(f"{n}: {tensor_type(v.aval)}" for n, v in zip(arg_names, params))
    if consts_as_args:
        k = len(g.constvars)
        outs = f.lower_body(g, arg_names[k:], arg_names[:k])
    else:
        outs = f.lower_body(g, arg_names)
    res_types = [tensor_type(v.aval) for v in g.outvars]
    ret = f"    return {', '.join(outs)} : {', '.join(res_types)}" if outs else "    return"
    head = (f"module @{name} attributes {{mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32}} {{\n"
            f"  func.func public @main({args}) -> ({', '.join(res_types)}) {{")
    return "\n".join([head, *mod.funcs, *f.lines, ret, "  }", "}", ""]) if not mod.funcs else \
        "\n".join([head, *f.lines, ret, "  }", *mod.funcs, "}", ""])


# ----------------------------------------------------------------------------- regions
# (control flow: stablehlo.if / case / while bodies are emitted inside the current function,
# sharing its SSA counter so every name stays unique.)


def emit_region(ctx: FuncCtx, body, arg_avals=()) -> str:
    """A region ``{ ^bb0(args): ... "stablehlo.return"(...) }`` for an op of the current
    function. ``body(arg_names) -> (result_names, result_avals)`` emits the ops of the region
    with ``ctx`` (values of the enclosing scope may be used directly). Scalar constants
    emitted inside stay inside (the constant cache is scoped)."""
    saved_lines, saved_consts = ctx.lines, ctx._consts
    ctx.lines, ctx._consts = [], dict(saved_consts)
    try:
        args = [ctx.fresh() for _ in arg_avals]
        outs, out_avals = body(args)
        types = ", ".join(tensor_type(a) for a in out_avals)
        ctx.lines.append(f'    "stablehlo.return"({", ".join(outs)}) : ({types}) -> ()')
        inner = ctx.lines
    finally:
        ctx.lines, ctx._consts = saved_lines, saved_consts
    lines = ["{"]
    if arg_avals:
        lines.append("    ^bb0(" + ", ".join(f"{n}: {tensor_type(a)}" for n, a in zip(args, arg_avals)) + "):")
    lines += ["  " + ln for ln in "\n".join(inner).split("\n")]
    lines.append("    }")
    return "\n".join(lines)


def op_results(ctx: FuncCtx, rhs: str, n: int, indent: str = "    ") -> list:
    """Emit an op with ``n`` results (``%k:n = rhs``); return ``[%k#0, ...]`` (``[%k]`` for
    one result, ``[]`` for none)."""
    if n == 0:
        ctx.lines.append(indent + rhs)
        return []
    name = ctx.fresh()
    if n == 1:
        ctx.lines.append(f"{indent}{name} = {rhs}")
        return [name]
    ctx.lines.append(f"{indent}{name}:{n} = {rhs}")
    return [f"{name}#{i}" for i in range(n)]
