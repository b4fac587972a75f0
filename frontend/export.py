"""Portable artifacts, shaped like JAX's export module.

    exp = export(jit(f))(x, y)     # Exported: in_avals, out_avals, in_tree, out_tree, ...
    blob = exp.serialize()         # bytes: a header and a StableHLO portable artifact
    exp2 = deserialize(blob)       # in another process too
    exp2.call(x, y)                # eagerly, under jit, under vmap

``serialize(target_version="1.10.0")`` writes the artifact for an older StableHLO version
(``stablehlo_versions()`` gives the range this jaxlib writes and reads);
``serialize(format="jax")`` writes JAX's export format, which ``jax.export.deserialize``
reads (with the ``flatbuffers`` package installed), and ``deserialize`` reads both.

``Exported.call`` is a primitive (``call_exported``) whose lowering calls the exported module
as a function of the enclosing module. Under ``vmap`` it is batched sequentially: the module
runs once per example in a loop (one ``stablehlo.while``); it is not re-traced.
"""
from __future__ import annotations

import hashlib
import json
import struct
import threading

import numpy as np

from . import _export_vjp
from ._export_header import (  # noqa: F401  (register_namedtuple_serialization: public)
    _aval_json,
    _aval_triple,
    _header_fields,
    _kind,
    _shape_from,
    _tree_to_json,
    register_namedtuple_serialization,
)
from .core import dtypes
from .core.arguments import abstractify
from .core.ir import Aval, Primitive, aval_of
from .core.pytree import tree_flatten, tree_unflatten
from .core.shape_poly import (  # noqa: F401  (jax.export's names)
    DimExpr,
    InconclusiveDimensionOperation,
    SymbolicScope,
    bind_shapes,
    evaluate_shape,
    is_symbolic_shape,
    symbolic_shape,
)
from .device import seam as _backend
from .interpreters.ad_util import Zero, tangent_aval
from .primitives.shape import instantiate_zeros
from .transforms.custom_derivatives import custom_lin_p
from .transforms.jit import jitted_of
from .transforms.vmap import sequential_batch

# (2: may carry the artifact of its VJP, see serialize's vjp_order; 3: symbolic shapes)
FORMAT_VERSION = 3
MAGIC = b"VMAPLAB-EXPORTED\n"

# call_exported(*args; exported): the exported module's @main on the kept arguments
call_exported_p = Primitive("call_exported", multiple_results=True)


@call_exported_p.def_abstract_eval
def _call_exported_abstract_eval(*avals, exported):
    env = exported._check_avals(avals, exported._kept_avals)
    return exported._out_avals_for(env)


@call_exported_p.def_batching
def _call_exported_batch(args, dims, *, exported):
    # one example at a time in a loop; the outputs have the batch axis at 0
    return sequential_batch(call_exported_p, args, dims, {"exported": exported})


@call_exported_p.def_jvp
def _call_exported_jvp(primals, tangents, *, exported):
    # as JAX's Exported.call (a custom_vjp function whose artifact carries no VJP): the
    # output tangents are a custom_lin of the input tangents; forward mode stops at it with
    # JAX's custom_vjp error, reverse mode at its transpose with JAX's "No VJP is available"
    outs = call_exported_p.bind(*primals, exported=exported)
    lin = tuple(tangent_aval(aval_of(x)).dtype != dtypes.float0 for x in primals)
    ts = [instantiate_zeros(t) for t, keep in zip(tangents, lin, strict=True) if keep]
    res, bwd = _backward(exported, primals)
    touts = custom_lin_p.bind(*res, *ts, num_res=len(res), bwd=bwd,
                              out_avals=tuple(exported.out_avals),
                              arg_avals=tuple(aval_of(x) for x in primals), linear=lin)
    return outs, [Zero(tangent_aval(a)) if tangent_aval(a).dtype == dtypes.float0 else t
                  for t, a in zip(touts, exported.out_avals, strict=True)]


def _no_vjp(res, cts):
    raise ValueError("No VJP is available: an exported function is differentiated in reverse "
                     "mode only through a VJP exported with it, and this artifact carries none "
                     "(serialize it with vjp_order=1, as JAX's Exported.serialize)")


def _backward(exported, primals) -> tuple:
    """(residuals, bwd) of the custom_lin of ``Exported.call``: the primal inputs and the
    artifact's VJP when it has one (frontend/_export_vjp.py), else JAX's error."""
    if not exported.has_vjp():
        return [], _no_vjp
    kept, n_in = exported.module_kept_var_idx, len(exported.in_avals)
    bwd = _export_vjp.vjp_backward(exported)

    def kept_bwd(res, cts):  # (arguments the module drops: any value; their cts are zero)
        env = exported._check_avals([aval_of(r) for r in res], exported._kept_avals)
        full = [np.zeros(evaluate_shape(a.shape, env), a.dtype) for a in exported.in_avals]
        for i, r in zip(kept, res, strict=True):
            full[i] = r
        outs = bwd(full, cts)
        return [outs[i] for i in kept] if len(kept) != n_in else outs
    return list(primals), kept_bwd


class Exported:
    """A function exported for one input signature: ``fun_name``, ``in_tree``, ``in_avals``,
    ``out_tree``, ``out_avals``, ``platforms``, ``nr_devices``, ``module_kept_var_idx``;
    ``mlir_module()`` (StableHLO text), ``mlir_module_serialized`` (a portable artifact),
    ``serialize()`` and ``call(*args, **kwargs)``."""

    nr_devices = 1

    def __init__(self, fun_name, in_tree, in_avals, out_tree, out_avals, platforms, text,
                 module_kept_var_idx=None):
        self.fun_name = fun_name
        self.in_tree = in_tree
        self.in_avals = tuple(in_avals)
        self.out_tree = out_tree
        self.out_avals = tuple(out_avals)
        self.platforms = tuple(platforms)
        self.module_kept_var_idx = tuple(range(len(self.in_avals))) \
            if module_kept_var_idx is None else tuple(module_kept_var_idx)
        self._kept_avals = tuple(self.in_avals[i] for i in self.module_kept_var_idx)
        self._text = text
        self._callees: dict = {}
        self._graph = None  # the traced graph it was exported from (its VJP is built from it)
        self._vjp = None    # the Exported of its VJP, once built or read
        self._lock = threading.Lock()

    def __repr__(self):
        ins = ", ".join(a.str_short() for a in self.in_avals)
        outs = ", ".join(a.str_short() for a in self.out_avals)
        return f"Exported({self.fun_name}: ({ins}) -> ({outs}))"

    def mlir_module(self) -> str:
        return self._text

    def has_vjp(self) -> bool:
        """Whether ``vjp()`` is available (JAX's ``has_vjp``): for a function exported in
        this process, and for an artifact serialized with ``vjp_order >= 1``."""
        return self._vjp is not None or self._graph is not None

    def vjp(self) -> Exported:
        """The Exported of this function's VJP, as JAX's: a function of the flat inputs and
        output cotangents giving the flat input cotangents."""
        if self._vjp is None:
            if self._graph is None:
                raise ValueError("No VJP is available: the artifact was serialized without "
                                 "one (serialize(vjp_order=1))")
            from .transforms.grad import vjp as _vjp_fn
            from .transforms.jit import jit as _jit
            self._vjp = _export_vjp.export_vjp(self, self._graph, export, _jit, _vjp_fn)
        return self._vjp

    @property
    def mlir_module_serialized(self) -> bytes:
        """The module as a portable artifact for the current StableHLO version."""
        return _backend.get().serialize_artifact(self._text)

    # -- calling

    def _check_avals(self, got, want) -> dict:
        """The values of the symbolic dimensions (name -> int; {} for static shapes) that
        the argument types ``got`` give ``want``'s; JAX's errors when they do not fit."""
        sym = self.is_symbolic()
        bad = [f"argument {i}: exported for {w.str_short()}, called with {g.str_short()}"
               for i, (g, w) in enumerate(zip(got, want, strict=True))
               if (g.shape != w.shape and not sym) or g.dtype != w.dtype]
        if len(got) != len(want) or bad:
            raise TypeError(f"Function {self.fun_name} was exported for argument types "
                            f"{[a.str_short() for a in want]}, called with "
                            f"{[a.str_short() for a in got]}: " + "; ".join(bad))
        if not sym:
            return {}
        if any(is_symbolic_shape(a.shape) for a in got):
            raise ValueError(f"Function {self.fun_name} was exported with symbolic shapes; it is "
                             f"called with symbolic shapes {[a.str_short() for a in got]}: call "
                             "it with arrays (or inside jit/vmap, on concrete shapes)")
        return bind_shapes([a.shape for a in want], [a.shape for a in got])

    def is_symbolic(self) -> bool:
        """Whether some argument has a symbolic dimension (shape-polymorphic export)."""
        return any(is_symbolic_shape(a.shape) for a in self.in_avals)

    def _out_avals_for(self, env: dict) -> list:
        if not env:
            return list(self.out_avals)
        return [a.update(shape=evaluate_shape(a.shape, env)) for a in self.out_avals]

    def callee(self, platform_index=None, types=None) -> tuple:
        """(function name, functions text) that a module adds to call this one; with
        ``platform_index`` (an int, for a module of several platforms) the module of that
        platform alone, which takes no platform index. ``types``: for a shape-polymorphic
        module, (argument types, result types) of the call (static type texts): the module
        refined to them (one refinement per distinct call signature)."""
        key = (platform_index, types if self.is_symbolic() else None)
        with self._lock:
            hit = self._callees.get(key)
            if hit is None:
                be = _backend.get()
                text = self._text if platform_index is None else \
                    be.exported_for_platform(self._text, platform_index)
                if key[1] is not None:
                    text = be.refine_exported(text, list(types[0]), list(types[1]))
                hit = self._callees[key] = be.exported_callee(text)
        return hit

    def platform_index(self):
        """None, or the index of this platform for a module exported for several (JAX's
        convention: @main then takes it as a leading i32 argument)."""
        return self.platform_branch(_backend.get().lowering_platform())

    def platform_branch(self, platform: str):
        """The index of ``platform`` among this module's platforms (None for a module of
        one platform); JAX's ValueError when it was not exported for it."""
        if platform not in self.platforms:
            raise ValueError(f"Function '{self.fun_name}' was exported for platforms "
                             f"'{self.platforms}' but it is used on '{(platform,)}'.")
        return self.platforms.index(platform) if len(self.platforms) > 1 else None

    def call(self, *args, **kwargs):
        """Run the exported function (eagerly, or traced under jit/vmap/make_graph)."""
        leaves, td = tree_flatten((args, kwargs))
        if td != self.in_tree:
            raise TypeError(f"Function {self.fun_name} was exported for an input pytree "
                            f"{self.in_tree}, called with {td}")
        avals = [abstractify(x, f"argument {i}", self.fun_name) for i, x in enumerate(leaves)]
        self._check_avals(avals, self.in_avals)
        outs = call_exported_p.bind(*(leaves[i] for i in self.module_kept_var_idx),
                                    exported=self)
        return tree_unflatten(self.out_tree, outs)

    # -- serialization

    def serialize(self, *, target_version: str | None = None, format: str = "vmaplab",
                  vjp_order: int = 0) -> bytearray:
        """The exported function as bytes: ``format="vmaplab"`` (a header with the types
        and pytrees, a checksum, and a StableHLO portable artifact for ``target_version``,
        default the current version) or ``format="jax"`` (JAX's export format, which keeps
        no weak types). ``vjp_order=n`` also writes its VJP (``vjp()``), and that one's to
        order n, so that the deserialized function can be differentiated n times in reverse
        mode (as JAX's)."""
        vjp_blob = _serialize_vjp(self, target_version, format, vjp_order)
        be = _backend.get()
        if format == "jax":
            return bytearray(be.write_jax_export(
                self.fun_name, self._text, self.in_tree.unflatten(range(len(self.in_avals))),
                [_aval_triple(a) for a in self.in_avals],
                self.out_tree.unflatten(range(len(self.out_avals))),
                [_aval_triple(a) for a in self.out_avals], self.platforms, target_version,
                self.module_kept_var_idx, vjp_blob or None,
                _symbolic_header(self).get("symbolic_constraints", ())))
        if format != "vmaplab":
            raise ValueError(f"unknown export format {format!r}: 'vmaplab' or 'jax'")
        version = be.check_stablehlo_version(target_version or be.stablehlo_versions()[1])
        artifact = be.serialize_artifact(self._text, version)
        header = json.dumps({
            "format_version": 1, "fun_name": self.fun_name,
            "in_tree": _tree_to_json(self.in_tree), "out_tree": _tree_to_json(self.out_tree),
            "in_avals": [_aval_json(a) for a in self.in_avals],
            "out_avals": [_aval_json(a) for a in self.out_avals],
            "platforms": list(self.platforms), "module_kept_var_idx": list(self.module_kept_var_idx),
            "stablehlo_version": version, **_vjp_header(vjp_blob),
            **_symbolic_header(self)}, sort_keys=True).encode()
        body = struct.pack(">I", len(header)) + header + artifact + vjp_blob
        return bytearray(MAGIC + hashlib.sha256(body).digest() + body)


def export(fun_jit, *, platforms=None):
    """``export(jit(f))(*args, **kwargs)``: the Exported of ``f`` for the signature of the
    arguments (arrays, ``frontend.ShapedArray``-like objects are not needed: examples with the
    right shapes and dtypes are). Static arguments are baked in and left out of the call.

    >>> import numpy as np
    >>> import frontend as fe
    >>> from frontend.export import deserialize, export
    >>> exp = export(fe.jit(lambda x: x * 2))(np.ones(3, np.float32))
    >>> deserialize(exp.serialize()).call(np.arange(3, dtype=np.float32))
    Array([0., 2., 4.], dtype=float32)
    """
    jitted = jitted_of(fun_jit)
    if jitted is None:
        raise TypeError(f"Function to be exported must be the result of `jit` but is: {fun_jit!r}")
    platforms = _export_platforms(jitted, platforms)

    def do_export(*args, **kwargs) -> Exported:
        try:
            lo = jitted.trace(*args, **kwargs)
        except InconclusiveDimensionOperation as e:
            e.add_note(_where_symbolic_failed(e.__traceback__))
            raise
        # (large constants inside too)
        text = _backend.get().lower_self_contained(lo.jaxpr, platforms)
        exp = Exported(getattr(fun_jit, "__name__", "fun"), lo.in_tree, lo.in_avals, lo.out_tree,
                       lo.out_avals, platforms, text)
        exp._graph = lo.jaxpr
        if exp.is_symbolic():  # (its module is verified now, not at its first call)
            _check_module(exp)
        return exp

    return do_export


def is_symbolic_dim(p) -> bool:
    """Whether ``p`` is a symbolic dimension (JAX's ``export.is_symbolic_dim``)."""
    return isinstance(p, DimExpr)


def symbolic_args_specs(args, shapes_specs, constraints=(), scope=None):
    """``ShapeDtypeStruct``s for ``args`` (a pytree of arrays or of objects with shape and
    dtype) with the symbolic shapes ``shapes_specs`` (one string for every leaf, or a pytree
    of strings, None for a static shape, matching ``args``), all in one scope; ``_`` in a
    spec takes the argument's dimension (JAX's ``export.symbolic_args_specs``)."""
    from .core.ir import ShapeDtypeStruct
    leaves, td = tree_flatten(args)
    if isinstance(shapes_specs, str) or shapes_specs is None:
        specs = [shapes_specs] * len(leaves)
    else:
        specs, spec_td = tree_flatten(shapes_specs, is_leaf=lambda x: x is None)
        if len(specs) != len(leaves):
            raise ValueError(f"shapes_specs {shapes_specs!r} must be a string or a pytree "
                             f"matching the arguments ({td}), got {spec_td}")
    if scope is None:
        scope = SymbolicScope(constraints)
    elif constraints:
        raise ValueError("Cannot specify both a `scope` and `constraints`.")
    out = []
    for a, spec in zip(leaves, specs, strict=True):
        shape = tuple(np.shape(a))
        if spec is not None:
            shape = symbolic_shape(spec, scope=scope, like=shape)
        out.append(ShapeDtypeStruct(shape, np.asarray(a).dtype if not hasattr(a, "dtype")
                                    else a.dtype))
    return tree_unflatten(td, out)


def _where_symbolic_failed(tb) -> str:
    """The library function the user called that could not handle a symbolic dimension (the
    first vmaplab frame below the user's last one), and the user's line."""
    frames = []
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    ours = __name__.rpartition(".")[0] + "."
    user = api = None
    for f in frames:
        mod = f.f_globals.get("__name__", "")
        if not mod.startswith(ours):
            user, api = f, None
        elif user is not None and api is None and not mod.startswith(
                (ours + "core.", ours + "transforms.", ours + "interpreters.")):
            api = f
    if api is None:
        return "while tracing the exported function with symbolic shapes"
    mod = api.f_globals["__name__"]
    public = ".".join(p for p in mod.split(".") if not p.startswith("_"))
    return (f"while tracing {public}.{api.f_code.co_name} (called at "
            f"{user.f_code.co_filename}:{user.f_lineno}): it does not support a symbolic "
            "dimension in this position")


def _export_platforms(jitted, platforms) -> tuple:
    """The platforms to export for (JAX's names; default: the jitted function's device's).
    Several give JAX's multi-platform module: @main takes the platform's index first."""
    from .transforms.stages import check_platforms
    if platforms is None:
        return (_backend.get().lowering_platform(jitted.device),)
    return check_platforms((platforms,) if isinstance(platforms, str) else platforms, "export")


def stablehlo_versions() -> tuple:
    """(oldest, newest) StableHLO version ``serialize(target_version=...)`` can write."""
    return _backend.get().stablehlo_versions()


def deserialize(blob) -> Exported:
    """An Exported from bytes written by ``Exported.serialize`` (either format)."""
    if not isinstance(blob, (bytes, bytearray, memoryview)):
        raise TypeError(f"deserialize expects bytes, got {type(blob).__name__}")
    blob = bytes(blob)
    if not blob.startswith(MAGIC):
        return _from_jax(_backend.get().read_jax_export(blob))
    digest, body = blob[len(MAGIC):len(MAGIC) + 32], blob[len(MAGIC) + 32:]
    try:
        (n,) = struct.unpack(">I", body[:4])
        header = json.loads(body[4:4 + n].decode())
    except (struct.error, UnicodeDecodeError, ValueError, RecursionError):
        raise ValueError("corrupt artifact: unreadable header") from None
    if not isinstance(header, dict) or "format_version" not in header:
        raise ValueError("corrupt artifact: the header has no format_version")
    version = header["format_version"]
    if type(version) is not int:
        raise ValueError(f"corrupt artifact: format_version must be an int, got "
                         f"{_kind(version)} {version!r}")
    if version > FORMAT_VERSION or version < 1:
        raise ValueError(f"the artifact has export format version {version}; this vmaplab reads "
                         f"versions 1 to {FORMAT_VERSION}")
    if hashlib.sha256(body).digest() != digest:
        raise ValueError("corrupt vmaplab export artifact: checksum mismatch")
    fields = _header_fields(header)
    vjp_n = _vjp_size(header, len(body) - 4 - n)
    text = _backend.get().deserialize_artifact(body[4 + n:len(body) - vjp_n])
    exp = Exported(*fields[:6], text, fields[6])
    if vjp_n:
        exp._vjp = deserialize(body[len(body) - vjp_n:])
    _check_module(exp)
    _check_custom_calls(exp)
    return exp


def _from_jax(d: dict) -> Exported:
    in_leaves, in_tree = tree_flatten(d["in_tree"])
    out_leaves, out_tree = tree_flatten(d["out_tree"])
    if in_leaves != list(range(len(d["in_avals"]))) or out_leaves != list(range(len(d["out_avals"]))):
        raise ValueError("the JAX artifact's pytrees hold node types vmaplab does not know")
    scope = SymbolicScope(d["symbolic_constraints"]) if d.get("symbolic_constraints") \
        is not None else None

    def aval(t, where):
        return Aval(_shape_from(list(t[0]), scope, where), *t[1:])
    exp = Exported(d["fun_name"], in_tree,
                   [aval(a, f"in_avals[{i}]") for i, a in enumerate(d["in_avals"])], out_tree,
                   [aval(a, f"out_avals[{i}]") for i, a in enumerate(d["out_avals"])],
                   d["platforms"], d["text"], d["kept_var_idx"])
    _check_module(exp)
    _check_custom_calls(exp)
    if d.get("vjp") is not None:
        exp._vjp = _from_jax(d["vjp"])
    return exp


def _check_custom_calls(exp: Exported) -> None:
    """The custom calls of the module this process would run (the running platform's, for
    a module of several platforms; none when it was not exported for this platform) must be
    ones it may run (lowering/custom_calls.py)."""
    be = _backend.get()
    text = exp._text
    if len(exp.platforms) > 1:
        here = be.lowering_platform()
        if here not in exp.platforms:
            return  # (calling it here is JAX's error; lowering it for another platform is fine)
        text = be.exported_for_platform(text, exp.platforms.index(here))
    be.check_custom_calls(text, f"the artifact of {exp.fun_name}")


def _serialize_vjp(exp: Exported, target_version, format: str, vjp_order) -> bytes:
    """The bytes of ``exp.vjp()`` serialized to order ``vjp_order - 1`` (b"" for 0)."""
    if isinstance(vjp_order, bool) or not isinstance(vjp_order, int) or vjp_order < 0:
        raise ValueError(f"vjp_order must be a non-negative int, got {vjp_order!r}")
    if vjp_order == 0:
        return b""
    return bytes(exp.vjp().serialize(target_version=target_version, format=format,
                                     vjp_order=vjp_order - 1))


def _vjp_header(vjp_blob: bytes) -> dict:
    """Header fields of an artifact carrying its VJP (format version 2), else none."""
    return {"vjp_bytes": len(vjp_blob), "format_version": 2} if vjp_blob else {}


def _symbolic_header(exp: Exported) -> dict:
    """Header fields of a shape-polymorphic artifact (format version 3): the constraints of
    its symbols' scope (the dimensions themselves are written as their text)."""
    scopes = {d.scope for a in exp.in_avals for d in a.shape if isinstance(d, DimExpr)}
    if not scopes:
        return {}
    return {"format_version": 3,
            "symbolic_constraints": [c for s in scopes for c in s.constraints()]}


def _vjp_size(header: dict, rest: int) -> int:
    n = header.get("vjp_bytes", 0)
    if type(n) is not int or not 0 <= n < rest:
        raise ValueError(f"corrupt artifact: vjp_bytes must be a byte count below {rest}, "
                         f"got {str(n)[:100]}")
    return n


def _check_module(exp: Exported) -> None:
    """The module's @main must take the kept arguments and give the results."""
    be = _backend.get()
    if exp.is_symbolic():  # (symbolic dimensions are the module's dynamic ones)
        ins, outs = be.exported_main_dims(exp._text)
        be.check_compilable(exp._text)
    else:
        _, ins, outs = be.stablehlo_signature(exp._text)
        ins, outs = ([(a.shape, a.dtype) for a in x] for x in (ins, outs))
    extra = 1 if len(exp.platforms) > 1 else 0

    def sig(avals):
        return [(tuple(None if isinstance(d, DimExpr) else d for d in a.shape), a.dtype)
                for a in avals]

    def show(sig):
        return [f"{np.dtype(d).name}[{','.join('?' if n is None else str(n) for n in s)}]"
                for s, d in sig]
    if list(ins[extra:]) != sig(exp._kept_avals) or list(outs) != sig(exp.out_avals):
        raise ValueError(f"the artifact's module does not match its header: @main takes "
                         f"{show(ins)} and gives {show(outs)}, the header says "
                         f"{show(sig(exp._kept_avals))} -> {show(sig(exp.out_avals))}")
