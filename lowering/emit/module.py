"""Graph -> StableHLO text: one pass over the equations, SSA names ``%0, %1, ...``.

Each equation is written by its primitive's lowering rule (``prim.def_lowering``; the
built-in rules are set in lowering/emit): ``rule(ctx, *operands, **params) -> [results]``
with SSA names in and out, and ``ctx`` a ``RuleCtx`` for that equation.
"""
from __future__ import annotations

import numpy as np

from frontend.core import dtypes
from frontend.core.ir import Aval, Graph, Literal, Var, loc_scope, param_graphs, source_info
from frontend.core.tracing import trace_graph

from . import dims as _dims
from . import shardy


def _float0_error():
    return TypeError("float0 values (the tangents of integer and boolean values) cannot be "
                     "inputs or outputs of a compiled function: return them from outside jit")


def elem_type(dtype) -> str:
    d = np.dtype(dtype)
    if d == dtypes.float0:
        raise _float0_error()
    if d == dtypes.bool_:
        return "i1"
    if d == dtypes.bfloat16:
        return "bf16"
    if d in dtypes.NARROW_TYPES:
        return dtypes.NARROW_TYPES[d][1]
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


class _TypeTable(dict):
    def __missing__(self, aval: Aval) -> str:
        dims = "x".join(str(d) if type(d) is int else "?" for d in aval.shape)  # (? symbolic)
        t = self[aval] = f"tensor<{dims}{'x' if dims else ''}{elem_type(aval.dtype)}>"
        return t


# tensor_type(aval) -> ``tensor<3x5xf32>``: a dict hit per aval seen before (avals are
# interned), made in C: it is asked several times per lowered equation.
tensor_type = _TypeTable().__getitem__


def _scalar_text(v, dtype) -> str:
    d = np.dtype(dtype)
    if d == dtypes.bool_:
        return "true" if bool(v) else "false"
    if dtypes.is_int(d):
        return str(int(v))
    if d.kind == "c":
        c = complex(v)
        part = np.float32 if d == dtypes.complex64 else np.float64
        return f"({_scalar_text(c.real, part)}, {_scalar_text(c.imag, part)})"
    f = float(v)
    if np.isfinite(f) and d.itemsize >= 4:  # (narrower floats: their bits, exactly)
        r = repr(f)
        # MLIR's float literals need a '.' before an exponent: 1e-06 -> 1.0e-06
        return r.replace("e", ".0e") if "e" in r and "." not in r else r
    return "0x" + np.asarray(v, d).tobytes()[::-1].hex().upper()


def dense_attr(value: np.ndarray, aval: Aval) -> str:
    """``dense<...>`` for a constant: a splat where all elements are equal (bit for bit:
    0.0 and -0.0 differ), else raw hex."""
    if aval.dtype == dtypes.float0:
        raise _float0_error()
    value = np.asarray(value, aval.dtype)
    n = value.size
    if n == 0:  # a splat: nested brackets cannot spell dims after a 0 (2x0x3)
        return f"dense<{_scalar_text(np.zeros((), aval.dtype), aval.dtype)}>"
    data = value.tobytes()  # (C order)
    if n == 1 or data == data[:value.itemsize] * n:
        return f"dense<{_scalar_text(value.reshape(-1)[0], aval.dtype)}>"
    return f'dense<"0x{data.hex()}">'


class FuncCtx:
    """Emission state of one function body."""

    def __init__(self, module: ModuleCtx):
        self.module = module
        self.lines: list = []
        self.n = 0
        self._consts: dict = {}
        # the platforms the ops emitted now are for (a branch of a platform case narrows
        # them) and the SSA name of @main's platform index (modules for several platforms)
        self.platforms: tuple = module.platforms
        self.platform_index: str | None = None
        self.known_ints: dict = {}  # SSA name -> the int it is known to hold (platform_index)
        self.token = None  # the last ordered effect's !stablehlo.token in this scope
        self.dim_sources: dict = {}  # symbolic dimension -> where it is read (emit/dims.py)

    def fresh(self) -> str:
        name = f"%{self.n}"
        self.n += 1
        return name

    def op(self, rhs: str, indent: str = "    ") -> str:
        """Emit ``%k = rhs`` and return ``%k``."""
        name = f"%{self.n}"
        self.n += 1
        self.lines.append(f"{indent}{name} = {rhs}")
        return name

    def constant(self, value, aval: Aval) -> str:
        """A ``stablehlo.constant``; scalars are emitted once per function (or region)."""
        if aval.shape:
            return self.op(f"stablehlo.constant {dense_attr(value, aval)} : {tensor_type(aval)}")
        t = type(value)
        if (t is int or t is bool) or (t is float and value):  # (0.0 and -0.0 are equal keys)
            key = (aval.dtype, t, value)
        else:
            key = (aval.dtype, _scalar_text(value, aval.dtype))
        name = self._consts.get(key)
        if name is None:
            name = self._consts[key] = self.op(
                f"stablehlo.constant {dense_attr(value, aval)} : {tensor_type(aval)}")
        return name

    def broadcast(self, x: str, in_aval: Aval, shape: tuple, dims=None) -> str:
        """broadcast_in_dim of x to ``shape`` (a rank-0 x with dims ()); one per value,
        shape and dims in a function (or region), like the scalar constants."""
        if dims is None:
            dims = tuple(range(len(shape) - in_aval.ndim, len(shape)))
        key = (x, shape, dims)
        name = self._consts.get(key)
        if name is None:
            out = Aval(shape, in_aval.dtype)
            dims_text = ", ".join(map(str, dims))
            if _dims.is_static(shape):
                rhs = (f"stablehlo.broadcast_in_dim {x}, dims = [{dims_text}] : "
                       f"({tensor_type(in_aval)}) -> {tensor_type(out)}")
            else:
                rhs = (f"stablehlo.dynamic_broadcast_in_dim {x}, "
                       f"{_dims.shape_value(self, shape)}, dims = [{dims_text}] : "
                       f"({tensor_type(in_aval)}, tensor<{len(shape)}xi64>) -> {tensor_type(out)}")
            name = self._consts[key] = self.op(rhs)
        return name

    def lower_body(self, g: Graph, in_names: list, const_names: list | None = None,
                   scope: str | tuple = "") -> list:
        """Emit the equations of ``g`` with its invars bound to ``in_names``; return the
        SSA names of its outputs. ``scope``: the equation-id prefix of ``g``'s equations
        ("" for @main's graph, "3.0." for sub-graph 0 of equation 3), or ``(ref,)``: every
        op takes the location ``ref`` (a graph inlined by ``lower_fun``)."""
        env: dict = {}  # Var -> SSA name
        if const_names is None:
            const_names = [self.constant(c, v.aval) for v, c in zip(g.constvars, g.consts, strict=True)]
        env.update(zip(g.constvars, const_names, strict=True))
        env.update(zip(g.invars, in_names, strict=True))

        def read(a):
            return self.constant(a.val, a.aval) if type(a) is Literal else env[a]

        locs = self.module.locs
        lines = self.lines
        for k, e in enumerate(g.eqns):
            prim = e.prim
            start = len(lines)
            eqn_id = scope if type(scope) is tuple else f"{scope}{k}"
            try:
                operands = [env[a] if type(a) is not Literal else read(a) for a in e.inputs]
                rule = prim.lowering_rule if not prim.platform_lowering_rules else \
                    self._platform_rule(e, operands, eqn_id)
                if rule is None:
                    raise NotImplementedError(
                        f"primitive {e.prim.name!r} has no lowering rule, so it cannot be "
                        f"compiled: define one with p.def_lowering(fn), fn(ctx, *operands, "
                        f"**params) -> [results] (see docs/extending.md)")
                # (a list: the results of a platform case, already emitted)
                outs = rule if type(rule) is list else \
                    rule(RuleCtx(self, e, eqn_id), *operands, **e.params)
            except KeyError as err:
                if err.args and type(err.args[0]) is Var:
                    raise ValueError(_unbound_error(e, err.args[0])) from None
                raise
            if locs is not None and len(lines) > start:
                ref = eqn_id[0] if type(eqn_id) is tuple else self.module.loc_ref(e, eqn_id)
                for i in range(start, len(lines)):
                    ln = lines[i]
                    if ln.rfind(" loc(#loc", -24) < 0:  # (not the ops of an inlined sub-graph)
                        lines[i] = f"{ln} loc({ref})"
            if type(outs) is str:
                outs = [outs]
            vs = e.outs
            if len(outs) != len(vs):
                raise ValueError(f"the lowering rule of primitive {e.prim.name!r} returned "
                                 f"{len(outs)} results for {len(vs)} outputs")
            if len(vs) == 1:
                env[vs[0]] = outs[0]
            else:
                env.update(zip(vs, outs, strict=True))
        return [read(v) for v in g.outvars]

    def _platform_rule(self, e, operands, eqn_id):
        """The rule of ``e`` for the platforms being emitted for: one rule when they agree
        (None when there is none), else the results of a ``stablehlo.case`` on the platform
        index, one branch per distinct rule (JAX's form of a multi-platform module)."""
        rules: list = []
        for p in self.platforms:
            r = e.prim.lowering_for(p)
            if r is None:
                raise NotImplementedError(
                    f"primitive {e.prim.name!r} has no lowering rule for platform {p!r}: "
                    "define one with p.def_lowering(fn, platform=...) or a default "
                    "p.def_lowering(fn)")
            if r not in rules:
                rules.append(r)
        if len(rules) == 1:
            return rules[0]
        index = self.platform_branch(lambda p: rules.index(e.prim.lowering_for(p)),
                                     f"primitive {e.prim.name!r}")
        saved = self.platforms
        regions = []
        try:
            for rule in rules:
                self.platforms = tuple(p for p in saved if e.prim.lowering_for(p) is rule)

                def body(_, rule=rule):
                    outs = rule(RuleCtx(self, e, eqn_id), *operands, **e.params)
                    return ([outs] if type(outs) is str else list(outs)), [v.aval for v in e.outs]
                regions.append(self.region(body))
        finally:
            self.platforms = saved
        types = ", ".join(tensor_type(v.aval) for v in e.outs)
        return self.op_results(f'"stablehlo.case"({index}) ({", ".join(regions)}) : '
                               f"(tensor<i32>) -> ({types})", len(e.outs))

    def platform_branch(self, branch_of, what: str):
        """The branch ``branch_of(platform)`` (an int) for the platforms being emitted for:
        that int when they agree, else the SSA name of an i32 computed from @main's
        platform index (what a ``stablehlo.case`` takes)."""
        ks = [branch_of(p) for p in self.platforms]
        if len(set(ks)) == 1:
            return ks[0]
        if self.platform_index is None:
            raise NotImplementedError(
                f"{what} lowers differently per platform inside a region that cannot see "
                "the platform index (e.g. a reduction body): lower for one platform at a time")
        which = dict(zip(self.platforms, ks, strict=True))
        mapping = tuple(which.get(p, 0) for p in self.module.platforms)
        if mapping == tuple(range(len(mapping))):
            return self.platform_index
        return self._index_map(mapping)

    def _index_map(self, mapping: tuple) -> str:
        """The branch index ``mapping[platform index]`` (a case returning constants, as
        JAX's), once per mapping in a function."""
        key = ("platform map", mapping)
        name = self._consts.get(key)
        if name is None:
            i32 = Aval((), np.dtype(np.int32))
            regions = [self.region(lambda _, k=k: ([self.constant(k, i32)], [i32]))
                       for k in mapping]
            name = self._consts[key] = self.op(
                f'"stablehlo.case"({self.platform_index}) ({", ".join(regions)}) : '
                f"(tensor<i32>) -> tensor<i32>")
        return name

    def scoped(self, body, arg_avals=(), isolated: bool = False):
        """Emit ``body(arg_names) -> (result_names, result_avals)`` into a nested scope (the
        ops of a region); return (arg names, the scope's lines, result names, result avals).
        Scalar constants emitted inside stay inside (the constant cache is scoped); an
        ``isolated`` scope (a region that cannot use values of the enclosing scope) starts
        with an empty cache."""
        saved_lines, saved_consts, saved_token = self.lines, self._consts, self.token
        saved_index, saved_dims = self.platform_index, self.dim_sources
        self.lines, self._consts, self.token = [], ({} if isolated else dict(saved_consts)), None
        if isolated:
            self.platform_index, self.dim_sources = None, {}
        try:
            args = [self.fresh() for _ in arg_avals]
            outs, out_avals = body(args)
            inner = self.lines
        finally:
            self.lines, self._consts, self.token = saved_lines, saved_consts, saved_token
            self.platform_index, self.dim_sources = saved_index, saved_dims
        return args, inner, outs, out_avals

    def region(self, body, arg_avals=()) -> str:
        """A region ``{ ^bb0(args): ... "stablehlo.return"(...) }`` for an op of this
        function. ``body(arg_names) -> (result_names, result_avals)`` emits the ops of the
        region (values of the enclosing scope may be used directly)."""
        args, inner, outs, out_avals = self.scoped(body, arg_avals)
        types = ", ".join(tensor_type(a) for a in out_avals)
        inner.append(f'    "stablehlo.return"({", ".join(outs)}) : ({types}) -> ()')
        lines = ["{"]
        if arg_avals:
            lines.append("    ^bb0(" + ", ".join(f"{n}: {tensor_type(a)}"
                                               for n, a in zip(args, arg_avals, strict=True)) + "):")
        lines += ["  " + ln for ln in "\n".join(inner).split("\n")]
        lines.append("    }")
        return "\n".join(lines)

    def op_results(self, rhs: str, n: int) -> list:
        """Emit an op with ``n`` results (``%k:n = rhs``); return ``[%k#0, ...]`` (``[%k]``
        for one result, ``[]`` for none)."""
        if n == 0:
            self.lines.append("    " + rhs)
            return []
        name = self.fresh()
        if n == 1:
            self.lines.append(f"    {name} = {rhs}")
            return [name]
        self.lines.append(f"    {name}:{n} = {rhs}")
        return [f"{name}#{i}" for i in range(n)]


def _unbound_error(e, v) -> str:
    where = f" (made at {_where(e)})" if e.loc is not None else ""
    return (f"equation {e.prim.name}{where} reads {v.aval.str_short()} value that no earlier "
            "equation defines: a graph pass left the graph ill-formed (run it with check=True "
            "to find the pass)")


def _where(e) -> str:
    info = source_info(e.loc)
    return f"{info[0]}:{info[1]}:{info[2]} ({info[4]})"


def _loc_text(name: str, loc) -> str:
    """``loc("name"("function"("file":line:col to :end)))``: a named location (the op's
    name in XLA's metadata, after the ``named_scope`` names: "scope/sin:0") around the
    user's frame."""
    scope = loc_scope(loc)
    if scope:
        name = f"{scope}/{name}"
    info = source_info(loc)
    if info is None:
        return f'loc("{name}")'
    file, line, col, end, fn = info
    esc = file.replace("\\", "\\\\").replace('"', '\\"')
    span = f" to :{end}" if end > col else ""
    return f'loc("{name}"("{fn}"("{esc}":{line}:{col}{span})))'


_FUN_GRAPHS: dict = {}  # (fn, avals, params) -> the graph ``RuleCtx.lower_fun`` inlines


class RuleCtx:
    """What a lowering rule gets for one equation: its primitive, ``avals_in`` and
    ``avals_out``, and the emitter of the enclosing function.

    - ``ctx.op(rhs)``: emit ``%k = rhs``, return ``%k``; ``ctx.op_results(rhs, n)`` for n results
    - ``ctx.type(aval)``: ``tensor<3x5xf32>``
    - ``ctx.constant(value, aval)``: a ``stablehlo.constant`` (scalars are shared)
    - ``ctx.broadcast(x, in_aval, shape, dims=None)``: a ``stablehlo.broadcast_in_dim``
    - ``ctx.region(body, arg_avals)``: the text of a region, ``body(args) -> (outs, avals)``
    - ``ctx.lower_body(graph, operands)``: inline a sub-Graph, return its outputs
    - ``ctx.fresh()``: a new SSA name, e.g. for region arguments
    - ``ctx.lower_fun(fn, operands, **params)``: inline ``fn`` (a function of primitives,
      like a lax function) traced on ``avals_in``: an algorithm written with primitives
    - ``ctx.add_function(name, text)``: module-level functions (once per name)
    - ``ctx.scoped(body, arg_avals, isolated)``: a nested scope's lines (custom region syntax)
    - ``ctx.mesh_ref(mesh)``: the module's ``sdy.mesh`` symbol for a mesh (declared once)
    - ``ctx.platforms``: the platforms the rule lowers for (see ``def_lowering(platform=)``)
    - ``ctx.channel()``: a new channel handle for a collective; ``ctx.manual``: the mesh of
      the enclosing shard_map (None outside one)
    """

    __slots__ = ("fn", "eqn", "eqn_id", "avals_in", "avals_out")

    type = staticmethod(tensor_type)

    def __init__(self, fn: FuncCtx, eqn, eqn_id: str | tuple = ""):
        self.fn = fn
        self.eqn = eqn
        self.eqn_id = eqn_id  # (see FuncCtx.lower_body's ``scope``)
        self.avals_in = tuple([a.aval for a in eqn.inputs])
        outs = eqn.outs
        self.avals_out = (outs[0].aval,) if len(outs) == 1 else tuple([v.aval for v in outs])

    @property
    def primitive(self):
        return self.eqn.prim

    @property
    def platforms(self) -> tuple:
        """The platforms this rule is lowering for (JAX's names: "cpu", "cuda", "rocm",
        "tpu"); one, except in a default rule of a module for several platforms."""
        return self.fn.platforms

    def op(self, rhs: str) -> str:
        return self.fn.op(rhs)

    def op_results(self, rhs: str, n: int) -> list:
        return self.fn.op_results(rhs, n)

    def fresh(self) -> str:
        return self.fn.fresh()

    def constant(self, value, aval: Aval) -> str:
        return self.fn.constant(value, aval)

    def broadcast(self, x: str, in_aval: Aval, shape: tuple, dims=None) -> str:
        return self.fn.broadcast(x, in_aval, shape, dims)

    def region(self, body, arg_avals=()) -> str:
        return self.fn.region(body, arg_avals)

    def lower_body(self, g: Graph, in_names: list) -> list:
        return self.fn.lower_body(g, in_names, None, self._sub_scope(g))

    def _sub_scope(self, g: Graph):
        """The equation-id scope of a graph this equation's rule lowers: "<id>.<k>." for its
        k-th sub-graph (param order, as ``subgraphs``), else this equation's own location."""
        eid = self.eqn_id
        if type(eid) is tuple:
            return eid
        k = 0
        for v in (self.eqn.params or {}).values():
            for sub in param_graphs(v):
                if sub is g:
                    return f"{eid}.{k}."
                k += 1
        mod = self.fn.module
        return (mod.loc_ref(self.eqn, eid) if mod.locs is not None else "",)

    def platform_branch(self, branch_of, what: str):
        """``branch_of(platform) -> int`` for the platforms being lowered for: that int when
        they agree, else the SSA name of an i32 (from @main's platform index) for a
        ``stablehlo.case``."""
        return self.fn.platform_branch(branch_of, what)

    def lower_fun(self, fn, operands, **params) -> list:
        """The outputs of ``fn(*operands, **params)`` (``fn`` binds primitives; traced once
        per avals and params, then inlined like a sub-graph)."""
        key = (fn, self.avals_in, tuple(sorted(params.items())))
        g = _FUN_GRAPHS.get(key)
        if g is None:
            def flat(*args):
                out = fn(*args, **params)
                return list(out) if isinstance(out, (list, tuple)) else [out]
            g = _FUN_GRAPHS[key] = trace_graph(flat, [a.strip_weak() for a in self.avals_in])
        return self.fn.lower_body(g, list(operands), None, self._sub_scope(g))

    def scoped(self, body, arg_avals=(), isolated: bool = False):
        return self.fn.scoped(body, arg_avals, isolated)

    def mesh_ref(self, mesh) -> str:
        return self.fn.module.mesh_ref(mesh)

    def channel(self) -> int:
        return self.fn.module.channel()

    def partition_ids(self, mesh):
        return self.fn.module.partition_ids(mesh)

    @property
    def manual(self):
        m = self.fn.module.manual
        return m[-1] if m else None

    def manual_scope(self, mesh):
        """``with ctx.manual_scope(mesh):`` collectives lowered inside work across the axes
        of ``mesh`` (the body of a shard_map)."""
        return _ManualScope(self.fn.module, mesh)

    def add_function(self, name: str, text: str) -> None:
        """Add functions (``func.func`` text) to the module, once per ``name``: e.g. a
        callee for ``func.call``."""
        self.fn.module.add_function(name, text)


class _ManualScope:
    def __init__(self, module, mesh):
        self.module, self.mesh = module, mesh

    def __enter__(self):
        self.module.manual.append(self.mesh)

    def __exit__(self, *exc):
        self.module.manual.pop()


class ModuleCtx:
    def __init__(self, name: str, mesh=None, platforms: tuple = ("cpu",),
                 debug_info: bool = False):
        self.name = name
        self.platforms = tuple(platforms)
        # ``#locK = loc(...)`` definitions, one per equation that emitted ops (None: the
        # module is written without locations)
        self.locs: list | None = [] if debug_info else None
        self._loc_refs: dict = {}
        self.funcs: list = []
        self._func_names: set = set()
        self.mesh = mesh      # the program's mesh: partition k runs on mesh.devices.flat[k]
        self.meshes: list = [mesh] if mesh is not None else []  # every mesh, @mesh first
        self.manual: list = []  # meshes of the shard_maps being lowered, innermost last
        self._channels = 0

    def mesh_ref(self, mesh) -> str:
        """The symbol of ``mesh`` in the module (declared once): ``@mesh`` for the program's
        mesh, ``@mesh_k`` for another mesh over the same devices."""
        if self.mesh is None:
            self.mesh = mesh
            self.meshes.append(mesh)
        if mesh not in self.meshes:
            ids = lambda m: sorted(m.device_ids.ravel().tolist())  # noqa: E731
            if ids(mesh) != ids(self.mesh):
                raise ValueError(
                    "Received incompatible devices for jitted computation: shardings on "
                    f"{self.mesh!r} (device ids {ids(self.mesh)}) and {mesh!r} (device ids "
                    f"{ids(mesh)}); the meshes of one program must have the same devices")
            self.meshes.append(mesh)
        k = self.meshes.index(mesh)
        return "@mesh" if k == 0 else f"@mesh_{k}"

    def partition_ids(self, mesh):
        """The partition number of each device of ``mesh`` (an array of the mesh's shape)."""
        self.mesh_ref(mesh)
        pos = {d: k for k, d in enumerate(self.mesh.device_ids.ravel().tolist())}
        return np.vectorize(pos.__getitem__, otypes=[np.int64])(mesh.device_ids)

    def loc_ref(self, eqn, eqn_id: str) -> str:
        """``#locK``: the location of the ops of equation ``eqn_id`` (declared once)."""
        ref = self._loc_refs.get(eqn_id)
        if ref is None:
            ref = self._loc_refs[eqn_id] = f"#loc{len(self.locs) + 1}"
            self.locs.append(f"{ref} = {_loc_text(f'{eqn.prim.name}:{eqn_id}', eqn.loc)}")
        return ref

    def channel(self) -> int:
        self._channels += 1
        return self._channels

    def add_function(self, name: str, text: str) -> None:
        """Add module-level function text (once per ``name``)."""
        if name not in self._func_names:
            self._func_names.add(name)
            self.funcs.append(text)


def lower_graph(g: Graph, name: str = "main", const_args: tuple = (), in_shardings=None,
                out_shardings=None, const_shardings=None, platforms: tuple = ("cpu",),
                debug_info: bool = False, aliases: tuple = ()) -> str:
    """The StableHLO module of a graph: ``func.func public @main``. Constants are written as
    ``stablehlo.constant``, except those whose indices are in ``const_args``: they lead the
    arguments of @main (in that order) and the caller passes them at run time.
    ``in_shardings``/``out_shardings`` (one NamedSharding or None per argument / result;
    ``const_shardings``: per hoisted constant) become Shardy ``sdy.sharding`` attributes on
    @main; a program with shardings (there or
    in its equations) declares its mesh and has one partition per device. ``platforms``:
    the platforms the module is for; for several, @main's first argument is the index of
    the running one in ``platforms`` (JAX's convention) and rules that differ per platform
    become a ``stablehlo.case`` on it. ``aliases``: (argument, result) index pairs of donated
    arguments whose buffer the result may take (``tf.aliasing_output``, as JAX writes it).

    ``debug_info``: every op an equation emitted ends with ``loc(#locK)``, and the module
    is followed by ``#locK = loc("<primitive>:<equation id>"("<function>"("<file>":line:
    col to :end_col)))``: the Python line that made the equation (XLA keeps the name as
    the instruction's ``op_name`` and the frame in its stack-frame table). The equation id
    is its index in the graph, "3.0.2" for equation 2 of sub-graph 0 of equation 3
    (docs/testbed.md, "Source locations")."""
    mod = ModuleCtx(name, platforms=platforms, debug_info=debug_info)
    f = FuncCtx(mod)
    hoisted = [g.constvars[i] for i in const_args]
    params = hoisted + list(g.invars)
    lead = 1 if len(mod.platforms) > 1 else 0
    arg_names = [f"%arg{i + lead}" for i in range(len(params))]
    if lead:
        f.platform_index = "%arg0"
    k = len(hoisted)
    ins = list(const_shardings or [None] * k) + list(in_shardings or [None] * len(g.invars))
    outs_sh = list(out_shardings or [None] * len(g.outvars))
    alias_of = {k + i: j for i, j in aliases}
    args = ", ".join(([PLATFORM_INDEX_ARG] if lead else []) + [
        f"{n}: {tensor_type(v.aval)}{_sdy_attr(mod, s, v.aval, alias_of.get(a))}"
        for a, (n, v, s) in enumerate(zip(arg_names, params, ins, strict=True))])
    const_names = dict(zip(const_args, arg_names[:k], strict=True))
    in_avals, in_types = [v.aval for v in g.invars], [tensor_type(v.aval) for v in g.invars]
    f.dim_sources = _dims.dim_sources(arg_names[k:], in_avals, in_types)
    if f.dim_sources:  # (a shape-polymorphic module checks its arguments' shapes, as JAX's)
        _dims.shape_assertions(f, arg_names[k:], in_avals, in_types)
    for i, (v, c) in enumerate(zip(g.constvars, g.consts, strict=True)):
        if i not in const_names:
            const_names[i] = f.constant(c, v.aval)
    outs = f.lower_body(g, arg_names[k:], [const_names[i] for i in range(len(g.consts))])
    res_types = [tensor_type(v.aval) for v in g.outvars]
    results = [t + _sdy_attr(mod, s, v.aval)
               for t, v, s in zip(res_types, g.outvars, outs_sh, strict=True)]
    ret = f"    return {', '.join(outs)} : {', '.join(res_types)}" if outs else "    return"
    parts = mod.mesh.size if mod.mesh is not None else 1
    # (JAX refines the shapes of a module it calls only when this attribute says so)
    poly = "jax.uses_shape_polymorphism = true, " if f.dim_sources else ""
    head = [f"module @{name} attributes {{{poly}mhlo.num_partitions = {parts} : i32, "
            f"mhlo.num_replicas = 1 : i32}} {{"]
    for m in mod.meshes:
        head.append("  " + shardy.mesh_decl(mod.mesh_ref(m), m, mod.partition_ids(m)))
    if k:
        head.append(f"  // {arg_names[0]}{f' .. {arg_names[k - 1]}' if k > 1 else ''}: closed-over "
                    f"constants ({', '.join(v.aval.str_short() for v in hoisted)}), passed as arguments")
    head.append(f"  func.func public @main({args}) -> ({', '.join(results)}) {{")
    body = [*f.lines, ret, "  }"]
    return "\n".join([*head, *body, *mod.funcs, "}", *(mod.locs or ()), ""])


# @main's leading argument in a module for several platforms (JAX's spelling)
PLATFORM_INDEX_ARG = '%arg0: tensor<i32> {jax.global_constant = "_platform_index"}'


def _sdy_attr(mod: ModuleCtx, sharding, aval: Aval, alias: int | None = None) -> str:
    """`` {sdy.sharding = ...}`` for an argument or result with a sharding; for a donated
    argument also ``tf.aliasing_output = <result index>``."""
    attrs = [] if alias is None else [f"tf.aliasing_output = {alias} : i32"]
    if sharding is not None:
        attr = shardy.sharding_attr(mod.mesh_ref(sharding.mesh), sharding.dims(aval.ndim))
        attrs.insert(0, f"sdy.sharding = {attr}")
    return f" {{{', '.join(attrs)}}}" if attrs else ""
