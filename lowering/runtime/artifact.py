"""StableHLO portable artifacts (versioned MLIR bytecode of the VHLO dialect), a module's
functions made callable from another module, and JAX's export format (read and written
through JAX's public export API; writing needs the ``flatbuffers`` package, as JAX does)."""
from __future__ import annotations

import itertools
import re

import numpy as np

from . import bytecode_reader
from .mlir import _context, module_text, parse_module

_BYTECODE_MAGIC = b"ML\xefR"
_PRODUCER = re.compile(rb"StableHLO_v(\d+)\.(\d+)\.(\d+)\x00")


def _v(s: str) -> tuple:
    return tuple(int(p) for p in s.split("."))


def current_version() -> str:
    from jaxlib.mlir.dialects import stablehlo
    return stablehlo.get_current_version()


def minimum_version() -> str:
    from jaxlib.mlir.dialects import stablehlo
    return stablehlo.get_minimum_version()


def check_version(version: str) -> str:
    """``version`` ('1.10.0') when this jaxlib reads and writes it, else a ValueError."""
    if not isinstance(version, str) or not re.fullmatch(r"\d+\.\d+\.\d+", version):
        raise ValueError(f"a StableHLO version is a string 'MAJOR.MINOR.PATCH', got {version!r}")
    lo, hi = minimum_version(), current_version()
    if not _v(lo) <= _v(version) <= _v(hi):
        raise ValueError(f"StableHLO version {version} is outside the versions this jaxlib "
                         f"reads and writes ({lo} to {hi})")
    return version


def serialize(text: str, target_version: str | None = None) -> bytes:
    """A portable artifact of the module for ``target_version`` (default: the current one).
    Works on the text, so no module object is rewritten in place."""
    from jaxlib.mlir.dialects import stablehlo
    version = check_version(target_version or current_version())
    try:
        return bytes(stablehlo.serialize_portable_artifact_str(text, version))
    except ValueError as e:
        raise ValueError(f"cannot serialize the module for StableHLO {version}: {e}") from None


def artifact_version(blob: bytes) -> str:
    """The StableHLO version an artifact was written for (read from its header, before MLIR
    sees the bytes); a ValueError when ``blob`` is no portable artifact."""
    if not bytes(blob[:4]) == _BYTECODE_MAGIC:
        raise ValueError("not a StableHLO portable artifact (no MLIR bytecode header)")
    m = _PRODUCER.search(bytes(blob[:64]))
    if m is None:
        raise ValueError("not a StableHLO portable artifact (no StableHLO producer version)")
    return ".".join(x.decode() for x in m.groups())


def deserialize(blob: bytes) -> str:
    """The module text of a portable artifact. The version is checked first; the bytecode is
    read in a helper process (bytecode_reader: MLIR's reader corrupts the memory of the
    process reading damaged or crafted bytes), and its text parsed and verified here."""
    version = artifact_version(blob)
    try:
        check_version(version)
    except ValueError:
        raise ValueError(f"the artifact was written for StableHLO {version}; this jaxlib reads "
                         f"{minimum_version()} to {current_version()}") from None
    try:
        ok, text = bytecode_reader.read(bytes(blob))
    except bytecode_reader.ReaderCrashed as e:
        raise ValueError(f"corrupt artifact: the StableHLO bytecode reader failed on it ({e})") \
            from None
    if not ok:
        raise ValueError(f"cannot read the portable artifact: {text}")
    try:
        return module_text(parse_module(text))
    except ValueError as e:
        raise ValueError(f"corrupt artifact: its module does not verify: {str(e)[:2000]}") from None


# ----------------------------------------------------------------------------- callees

_counter = itertools.count()


def callee(text: str) -> tuple:
    """(name, functions text): the module's functions, renamed with a fresh prefix and all
    private, ready to be added to another module and called as ``func.call @name``."""
    from jaxlib.mlir import ir
    m = parse_module(text)
    prefix = f"__vmaplab_exported{next(_counter)}_"
    with _context():
        ops = list(m.body.operations)
        for op in ops:
            if op.operation.name != "func.func":
                raise ValueError(f"cannot call an exported module holding a top-level "
                                 f"{op.operation.name}: only func.func is supported")
        names = [op.attributes["sym_name"].value for op in ops]
        if "main" not in names:
            raise ValueError("the exported module has no function @main")
        for op, old in zip(ops, names, strict=True):
            ir.SymbolTable.set_symbol_name(op, prefix + old)
            ir.SymbolTable.replace_all_symbol_uses(old, prefix + old, m.operation)
            op.attributes["sym_visibility"] = ir.StringAttr.get("private")
            for k in ("arg_attrs", "res_attrs"):
                if k in op.attributes:
                    del op.attributes[k]
        text = "\n".join(op.operation.get_asm(enable_debug_info=False, large_elements_limit=None)
                         for op in ops)
    return prefix + "main", text


def refine(text: str, in_types: list, out_types: list) -> str:
    """A shape-polymorphic module (dynamic dimensions, ``?``) made static for arguments of
    the static types ``in_types`` (type texts, ``tensor<3x16xf32>``) giving ``out_types``:
    a @main of those types calls the module's, and jaxlib's shape refinement (the pass JAX
    runs when it calls a polymorphic artifact) propagates the shapes, folds the dimension
    computations and checks JAX's shape assertions."""
    from jaxlib import _jax
    from jaxlib.mlir import ir
    name, funcs = callee(text)
    m = parse_module(text)
    with _context():
        main = next(op for op in m.body.operations if op.operation.name == "func.func"
                    and op.attributes["sym_name"].value == "main")
        dyn_in = [str(t) for t in main.type.inputs]
        dyn_out = [str(t) for t in main.type.results]
    if len(dyn_in) != len(in_types) or len(dyn_out) != len(out_types):
        raise ValueError(f"cannot refine the module for {len(in_types)} arguments and "
                         f"{len(out_types)} results: its @main takes {len(dyn_in)} and gives "
                         f"{len(dyn_out)}")
    lines = [f"  func.func public @main({', '.join(f'%a{i}: {t}' for i, t in enumerate(in_types))})"
             f" -> ({', '.join(out_types)}) {{"]
    args = []
    for i, (s, d) in enumerate(zip(in_types, dyn_in, strict=True)):
        lines.append(f"    %c{i} = stablehlo.convert %a{i} : ({s}) -> {d}" if s != d
                     else f"    %c{i} = stablehlo.convert %a{i} : {s}")
        args.append(f"%c{i}")
    n = len(dyn_out)
    res = "%r" + (f":{n}" if n > 1 else "")
    call = f"func.call @{name}({', '.join(args)}) : ({', '.join(dyn_in)}) -> ({', '.join(dyn_out)})"
    lines.append(f"    {res} = {call}" if n else f"    {call}")
    outs = []
    for i, (s, d) in enumerate(zip(out_types, dyn_out, strict=True)):
        r = f"%r#{i}" if n > 1 else "%r"
        lines.append(f"    %o{i} = stablehlo.convert {r} : ({d}) -> {s}")
        outs.append(f"%o{i}")
    lines.append(f"    return {', '.join(outs)} : {', '.join(out_types)}" if n else "    return")
    wrapper = "\n".join(["module @refined {", *lines, "  }", funcs, "}"])
    m = parse_module(wrapper)
    with _context():
        bytecode = _bytecode(m)
    try:
        refined = _jax.mlir.refine_polymorphic_shapes(
            mlir_module=bytecode, enable_shape_assertions=True, validate_static_shapes=True,
            enable_shardy=False)
    except Exception as e:  # (jaxlib raises its own error types)
        m = re.search(r"error: (Input shapes do not match[^\n]*)", str(e))
        if m:  # (a shape assertion of a JAX artifact failed: JAX's message)
            raise ValueError(m.group(1)) from None
        raise ValueError(f"Error refining shapes for arguments {in_types}: {e}") from None
    with _context():
        return module_text(parse_module(module_text(ir.Module.parse(refined))))


def _bytecode(m) -> bytes:
    import io
    out = io.BytesIO()
    m.operation.write_bytecode(file=out)
    return out.getvalue()


def for_platform(text: str, index: int) -> str:
    """A module for several platforms (@main's first argument the platform's index, JAX's
    convention) as the module of the platform at ``index``: that argument replaced by the
    constant and the platform cases folded (MLIR's canonicalize), so that no other
    platform's custom call is left for the compiler to refuse."""
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import stablehlo

    from .mlir import run_pipeline
    m = parse_module(text)
    with _context(), ir.Location.unknown():
        main = next(op for op in m.body.operations
                    if op.operation.name == "func.func" and op.attributes["sym_name"].value == "main")
        block = main.regions[0].blocks[0]
        i32 = ir.IntegerType.get_signless(32)
        with ir.InsertionPoint.at_block_begin(block):
            const = stablehlo.ConstantOp(ir.DenseElementsAttr.get(
                np.asarray(index, np.int32), type=ir.RankedTensorType.get([], i32)))
        block.arguments[0].replace_all_uses_with(const.result)
        block.erase_argument(0)
        ftype = ir.FunctionType(main.attributes["function_type"].value)
        main.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get(list(ftype.inputs)[1:], list(ftype.results)))
        if "arg_attrs" in main.attributes:
            main.attributes["arg_attrs"] = ir.ArrayAttr.get(list(main.attributes["arg_attrs"])[1:])
        text = module_text(m)
    return run_pipeline(text, "builtin.module(canonicalize)")


# ----------------------------------------------------------------------------- JAX's format


def read_jax(blob: bytes) -> dict:
    """The parts of a JAX export artifact this project can call: a dict with fun_name,
    in_tree/out_tree (Python structures with int leaves), in_avals/out_avals
    ((shape, dtype, weak) triples), platforms, kept_var_idx and the module text."""
    from jax import export as jex
    try:
        exp = jex.deserialize(bytearray(blob))
    except ImportError as e:
        raise ValueError("not a vmaplab export artifact; reading it as JAX's export format needs "
                         f"the flatbuffers package: {e}") from None
    except Exception as e:
        raise ValueError(f"not an artifact of vmaplab's export nor of JAX's export ({e})") from None
    return _jax_parts(exp)


def _jax_parts(exp) -> dict:
    """read_jax's dict of a ``jax.export.Exported`` (``vjp``: its VJP's, or None). The
    float0 cotangents of a VJP's integer arguments are the booleans its module has."""
    from jax import tree_util
    from jax.dtypes import float0
    if exp.nr_devices != 1:
        raise ValueError(f"the JAX artifact runs on {exp.nr_devices} devices; only single-device "
                         "artifacts can be called")
    if exp.ordered_effects or exp.unordered_effects:
        raise ValueError("the JAX artifact has effects; only pure functions can be called")

    scopes: list = []

    def aval(a):
        # (a symbolic dimension as its text; the constraints of its scope are kept)
        for d in a.shape:
            if not isinstance(d, (int, np.integer)) and d.scope not in scopes:
                scopes.append(d.scope)
        dtype = np.dtype(bool) if a.dtype == float0 else np.dtype(a.dtype)  # (as in its module)
        return tuple(int(d) if isinstance(d, (int, np.integer)) else str(d) for d in a.shape), \
            dtype, bool(a.weak_type)

    in_avals, out_avals = [aval(a) for a in exp.in_avals], [aval(a) for a in exp.out_avals]
    constraints = [c.debug_str for s in scopes for c in getattr(s, "_explicit_constraints", ())]
    return dict(symbolic_constraints=constraints if scopes else None,
        fun_name=exp.fun_name, platforms=tuple(exp.platforms),
        in_tree=tree_util.tree_unflatten(exp.in_tree, list(range(len(in_avals)))),
        out_tree=tree_util.tree_unflatten(exp.out_tree, list(range(len(out_avals)))),
        in_avals=in_avals, out_avals=out_avals, kept_var_idx=tuple(exp.module_kept_var_idx),
        text=deserialize(exp.mlir_module_serialized),
        vjp=_jax_parts(exp.vjp()) if exp.has_vjp() else None)


def _vjp_depth(exp) -> int:
    """How many VJPs a JAX Exported carries, one inside the other."""
    n = 0
    while exp.has_vjp():
        exp, n = exp.vjp(), n + 1
    return n


def write_jax(fun_name: str, text: str, in_tree, in_avals, out_tree, out_avals, platform,
              target_version: str | None = None, kept_var_idx=None, vjp: bytes | None = None,
              symbolic_constraints=()) -> bytes:
    """A JAX export artifact (``jax.export.deserialize`` reads it) of a single-device, pure
    module whose @main takes the arguments ``kept_var_idx`` (default: all). ``in_tree`` and
    ``out_tree`` are Python structures with int leaves; avals are (shape, dtype, weak)
    triples; ``platform`` a name or a tuple of them. JAX's format keeps no weak types.
    ``vjp``: a JAX artifact of its VJP (written by this function), serialized with it (as
    ``serialize(vjp_order=...)``). A symbolic dimension is its text (``"2*b"``), read in
    one JAX symbolic scope with ``symbolic_constraints``."""
    import jax
    from jax import export as jex
    from jax import tree_util
    scope = jex.SymbolicScope(tuple(symbolic_constraints))

    def sa(a):
        shape, dtype, weak = a
        shape = tuple(d if isinstance(d, int) else jex.symbolic_shape(d, scope=scope)[0]
                      for d in shape)
        return jax.core.ShapedArray(shape, dtype, weak_type=weak)

    n_in, n_out = len(in_avals), len(out_avals)
    try:
        exp = jex.Exported(
            fun_name=fun_name, in_tree=tree_util.tree_structure(in_tree),
            in_avals=tuple(map(sa, in_avals)), out_tree=tree_util.tree_structure(out_tree),
            out_avals=tuple(map(sa, out_avals)), _has_named_shardings=True,
            _in_named_shardings=(None,) * n_in, _out_named_shardings=(None,) * n_out,
            in_shardings_hlo=(None,) * n_in, out_shardings_hlo=(None,) * n_out, nr_devices=1,
            platforms=(platform,) if isinstance(platform, str) else tuple(platform),
            ordered_effects=(), unordered_effects=(),
            disabled_safety_checks=(), mlir_module_serialized=serialize(text, target_version),
            calling_convention_version=10,
            module_kept_var_idx=tuple(range(n_in)) if kept_var_idx is None else tuple(kept_var_idx),
            # (a symbolic module: JAX's caller refines the shapes when this is set)
            uses_global_constants=any(not isinstance(d, int) for a in in_avals for d in a[0]),
            _get_vjp=None if vjp is None else (lambda _: jex.deserialize(bytearray(vjp))))
        order = 0 if vjp is None else 1 + _vjp_depth(jex.deserialize(bytearray(vjp)))
        return bytes(exp.serialize(vjp_order=order))
    except ImportError as e:
        raise ValueError(f"writing JAX's export format needs the flatbuffers package: {e}") from None
