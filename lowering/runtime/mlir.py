"""jaxlib's MLIR bindings: parsing and verifying StableHLO, running MLIR pass pipelines and
Python rewrite patterns over modules, reading ``@main``'s signature."""
from __future__ import annotations

import re
import threading

import numpy as np

_local = threading.local()
_registered = threading.Lock()
_passes_ready = [False]


def _context():
    ctx = getattr(_local, "ctx", None)
    if ctx is None:
        from jaxlib.mlir import ir
        from jaxlib.mlir._mlir_libs import _jax_mlir_ext
        from jaxlib.mlir.dialects import chlo, sdy, stablehlo
        ctx = ir.Context()
        registry = ir.DialectRegistry()  # the upstream dialects JAX registers (func, ...)
        _jax_mlir_ext.register_dialects(registry)
        ctx.append_dialect_registry(registry)
        ctx.load_all_available_dialects()
        stablehlo.register_dialect(ctx)
        chlo.register_dialect(ctx)  # the client HLO ops XLA legalizes itself (chlo.erf, ...)
        sdy.register_dialect(ctx)  # Shardy: meshes, shardings, manual computations
        _local.ctx = ctx
    return ctx


class StableHLOVerificationError(ValueError):
    pass


def parse_module(text: str):
    """Parse and verify a StableHLO module; raise StableHLOVerificationError with the
    verifier's diagnostics (and, for a module with locations, the equation, primitive and
    Python line of the op they point at)."""
    from jaxlib.mlir import ir
    ctx = _context()
    with ctx:
        try:
            return ir.Module.parse(text)
        except Exception as e:  # MLIRError carries the diagnostics
            where = explain_error(text, str(e))
            where = f"\n{where}" if where else ""
            raise StableHLOVerificationError(f"{e}{where}\n--- module ---\n{text}") from None


_ERR_LINE = re.compile(r"(?:^|[\s(])\"?-\"?:(\d+):\d+")
_LOC_USE = re.compile(r"loc\((#loc\d+)\)\s*$")
_LOC_NAMED = re.compile(r'loc\("(([^":]*):([^"]*))"(?:\("([^"]*)"\("((?:[^"\\]|\\.)*)":(\d+):(\d+))?')


def explain_error(text: str, message: str) -> str | None:
    """For a diagnostic that points at a line of ``text`` (``-:LINE:COL``) whose op carries
    a location written by ``lower_graph(debug_info=True)`` (or a diagnostic printed with
    such a location), the sentence naming the equation, its primitive and its Python line;
    else None."""
    m = _LOC_NAMED.search(message)
    if m is None:
        e = _ERR_LINE.search(message)
        if e is None:
            return None
        lines = text.split("\n")
        k = int(e.group(1)) - 1
        use = _LOC_USE.search(lines[k]) if 0 <= k < len(lines) else None
        if use is None:
            return None
        ref = use.group(1) + " = "
        m = next((_LOC_NAMED.match(ln, len(ref)) for ln in reversed(lines)
                  if ln.startswith(ref)), None)
        if m is None:
            return None
    _, prim, eqn_id, fn, file, line, col = m.groups()
    at = f", made at {file}:{line}:{col} ({fn})" if file is not None else ""
    return f"(the failing op was emitted for equation {eqn_id}, primitive {prim!r}{at})"


def verify(text: str) -> bool:
    """True when the module parses and verifies; raises otherwise."""
    m = parse_module(text)
    with _context():
        if not m.operation.verify():
            raise StableHLOVerificationError(f"module does not verify:\n{text}")
    return True


def module_text(module) -> str:
    """The text of a module (an ``ir.Module``, an operation, or text), without locations."""
    if isinstance(module, (bytes, bytearray)):
        module = bytes(module).decode()
    if isinstance(module, str):
        return module
    op = getattr(module, "operation", None)
    if op is None:
        raise TypeError(f"expected StableHLO text or an MLIR module, got {type(module).__name__}")
    return op.get_asm(enable_debug_info=False, large_elements_limit=None)


# ----------------------------------------------------------------------------- pass pipelines

# passes known to run on this project's modules with jaxlib 0.10.2: (pipeline element,
# what it does). ``vmaplab passes`` prints them; a test runs each.
MLIR_PASSES = (
    ("canonicalize", "MLIR canonicalization (does not fold StableHLO arithmetic)"),
    ("cse", "common-subexpression elimination"),
    ("symbol-dce", "drop private functions nobody calls"),
    ("inline", "inline func.call"),
    ("stablehlo-legalize-to-hlo,canonicalize,hlo-legalize-to-stablehlo",
     "round trip through MHLO, whose canonicalizer folds constants"),
    ("func.func(chlo-legalize-to-stablehlo)", "CHLO ops to StableHLO"),
    ("stablehlo-refine-shapes", "refine dynamic shapes from constants"),
    ("stablehlo-legalize-to-linalg", "StableHLO to linalg on tensors (does not compile on XLA)"),
    ("stablehlo-legalize-to-hlo", "StableHLO to MHLO"),
    ("sdy-add-data-flow-edges", "Shardy: data-flow edges for sharding propagation"),
    ("sdy-import-func-calls", "Shardy: import func.call as named computations"),
)

# dialects XLA's compiler takes
_COMPILABLE = {"builtin", "func", "stablehlo", "chlo", "mhlo", "sdy"}


def _register_passes():
    if _passes_ready[0]:
        return
    with _registered:
        if not _passes_ready[0]:
            from jaxlib.mlir._mlir_libs import _mlirHlo
            from jaxlib.mlir.dialects import stablehlo
            stablehlo.register_stablehlo_passes()
            _mlirHlo.register_mhlo_passes()
            _passes_ready[0] = True


def _pipeline_text(pipeline: str) -> str:
    if not isinstance(pipeline, str) or not pipeline.strip():
        raise ValueError(f"an MLIR pass pipeline is a non-empty string such as "
                         f"'builtin.module(canonicalize,cse)', got {pipeline!r}")
    p = pipeline.strip()
    return p if p.startswith("builtin.module(") else f"builtin.module({p})"


def run_pipeline(text: str, pipeline: str) -> str:
    """The module after the MLIR pass pipeline (parsed with the textual pipeline syntax;
    a bare list of passes is nested under builtin.module). The result is verified."""
    from jaxlib.mlir import ir, passmanager
    _register_passes()
    spec = _pipeline_text(pipeline)
    m = parse_module(text)
    with _context():
        try:
            pm = passmanager.PassManager.parse(spec)
        except Exception as e:
            raise ValueError(f"bad MLIR pass pipeline {spec!r}: {e}") from None
        try:
            pm.run(m.operation)
        except ir.MLIRError as e:
            raise ValueError(f"MLIR pass pipeline {spec!r} failed: {e}") from None
        if not m.operation.verify():
            raise StableHLOVerificationError(f"the module does not verify after {spec!r}")
        return module_text(m)


def compiler_ir(text: str):
    """A fresh parsed module (an ``ir.Module`` of this thread's context)."""
    return parse_module(text)


def hlo_text(text: str) -> str:
    """The HLO text of a StableHLO module (XLA's import of it, before any optimization), as
    JAX's ``Lowered.as_text(dialect="hlo")``."""
    from jaxlib import _jax
    return _jax.mlir.mlir_module_to_xla_computation(text, use_tuple_args=False,
                                                    return_tuple=False).as_hlo_text()


def foreign_ops(text: str) -> list:
    """Names of the ops in a module that XLA's compiler does not take (e.g. linalg)."""
    from jaxlib.mlir import ir
    m = parse_module(text)
    found: set = set()

    def visit(op):
        name = op.name
        if name.split(".", 1)[0] not in _COMPILABLE:
            found.add(name)
        return ir.WalkResult.ADVANCE

    with _context():
        m.operation.walk(visit)
    found.discard("builtin.module")
    return sorted(found)


def check_compilable(text: str) -> None:
    bad = foreign_ops(text)
    if bad:
        raise ValueError(f"the module holds ops XLA cannot compile ({', '.join(bad[:6])}"
                         f"{', ...' if len(bad) > 6 else ''}): only StableHLO (with func, chlo, "
                         "mhlo, sdy) compiles; print it with as_text() instead")


# ----------------------------------------------------------------------------- signatures

_ELEM = {"i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
         "ui8": "uint8", "ui16": "uint16", "ui32": "uint32", "ui64": "uint64",
         "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
         "complex<f32>": "complex64", "complex<f64>": "complex128",
         "i4": "int4", "ui4": "uint4", "f4E2M1FN": "float4_e2m1fn",
         **{"f8" + n[len("float8_"):].upper(): n for n in (
             "float8_e3m4", "float8_e4m3", "float8_e8m0fnu", "float8_e4m3b11fnuz", "float8_e4m3fn",
             "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz")}}


def _dtype(name: str):
    import ml_dtypes
    return np.dtype(getattr(ml_dtypes, name)) if hasattr(ml_dtypes, name) else np.dtype(name)


def main_signature(text: str, dynamic: bool = False):
    """([(shape, dtype)] of @main's arguments, [(shape, dtype)] of its results); a
    ValueError for a module without a public @main or with types other than static tensors
    (``dynamic``: dynamic dimensions allowed, given as None)."""
    from jaxlib.mlir import ir
    m = parse_module(text)
    with _context():
        main = None
        for op in m.body.operations:
            if op.operation.name == "func.func" and op.attributes["sym_name"].value == "main":
                main = op
        if main is None:
            raise ValueError("the module has no function @main to call")
        ft = main.type

        def conv(t, what, i):
            shape = getattr(t, "shape", None)
            elem = str(getattr(t, "element_type", ""))
            if shape is None or not (t.has_static_shape or dynamic) or elem not in _ELEM:
                raise ValueError(f"@main's {what} {i} has type {t}: only tensors of static shape "
                                 f"with element types {', '.join(_ELEM)} are supported")
            return (tuple(None if ir.ShapedType.is_dynamic_size(d) else d for d in shape),
                    _dtype(_ELEM[elem]))

        return ([conv(t, "argument", i) for i, t in enumerate(ft.inputs)],
                [conv(t, "result", i) for i, t in enumerate(ft.results)])


_MAIN_HEADER = re.compile(r"func\.func (?:public )?@main\((.*?)\n", re.S)
_TENSOR = re.compile(r"tensor<((?:[^<>]|<[^<>]*>)*)>")


def _tensor_type(t: str):
    m = re.match(r"((?:\d+x)*)(.*)$", t)
    return tuple(int(d) for d in m.group(1).split("x") if d), _dtype(_ELEM[m.group(2)])


def text_signature(text: str):
    """([(shape, dtype)] of @main's arguments, [(shape, dtype)] of its results) read off
    the text of a module vmaplab printed (no parsing: ``main_signature`` verifies)."""
    m = _MAIN_HEADER.search(text)
    if m is None:
        return main_signature(text)
    head = m.group(1)
    args, _, res = head.rpartition(") -> ") if ") -> " in head else (head, "", "")
    try:
        return ([_tensor_type(t) for t in _TENSOR.findall(args)],
                [_tensor_type(t) for t in _TENSOR.findall(res)])
    except KeyError:  # a type this reading does not know: the parser's answer
        return main_signature(text)


# ----------------------------------------------------------------------------- custom calls


class CustomCall:
    """One ``stablehlo.custom_call`` of a module, read through the MLIR bindings: ``target``,
    ``api_version`` (None when absent), ``operands``/``results`` ((shape, dtype) per value;
    None for a value that is no static tensor of a known element type), ``operand_layouts``
    / ``result_layouts`` (tuples of minor-to-major ints, or None when absent),
    ``aliases`` (``(output_tuple_indices, operand_index, operand_tuple_indices)``),
    ``config`` (the ``backend_config`` dictionary, or ``mhlo.backend_config``'s, as
    name -> (type, value): type an MLIR element type like 'ui8' or 'f64', 'str', or 'other';
    None when the config is a non-empty string), ``config_text`` (a string backend_config) and
    ``called`` (called computations)."""

    __slots__ = ("target", "api_version", "operands", "results", "operand_layouts",
                 "result_layouts", "aliases", "config", "config_text", "called")


def _value_type(t):
    from jaxlib.mlir import ir
    if not isinstance(t, ir.RankedTensorType):
        return None
    t = ir.RankedTensorType(t)
    elem = str(t.element_type)
    if not t.has_static_shape or elem not in _ELEM:
        return None
    return tuple(t.shape), _dtype(_ELEM[elem])


def _attr_value(a) -> tuple:
    from jaxlib.mlir import ir
    if isinstance(a, ir.BoolAttr):
        return "i1", bool(ir.BoolAttr(a).value)
    if isinstance(a, ir.IntegerAttr):
        a = ir.IntegerAttr(a)
        return str(a.type), a.value
    if isinstance(a, ir.FloatAttr):
        a = ir.FloatAttr(a)
        return str(a.type), a.value
    if isinstance(a, ir.StringAttr):
        return "str", ir.StringAttr(a).value
    return "other", str(a)


def _layouts(attrs, key):
    from jaxlib.mlir import ir
    if key not in attrs:
        return None
    return tuple(tuple(int(i) for i in ir.DenseIntElementsAttr(x)) for x in ir.ArrayAttr(attrs[key]))


def custom_calls(module) -> list:
    """The ``stablehlo.custom_call`` ops of a module (text or ``ir.Module``), nested regions
    included, as CustomCall records; a ValueError for one whose attributes are malformed."""
    from jaxlib.mlir import ir
    m = parse_module(module_text(module)) if not isinstance(module, ir.Module) else module
    found: list = []

    def visit(op):
        if op.name != "stablehlo.custom_call":
            return ir.WalkResult.ADVANCE
        try:
            found.append(_read_call(op))
        except Exception as e:  # attributes of unexpected kinds (a crafted module)
            found.append(ValueError(f"a stablehlo.custom_call with malformed attributes ({e})"))
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    with _context():
        m.operation.walk(visit)
    if found and isinstance(found[-1], ValueError):
        raise found[-1]
    return found


def _read_call(op) -> CustomCall:
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import stablehlo
    a = op.attributes
    c = CustomCall()
    c.target = ir.StringAttr(a["call_target_name"]).value
    c.api_version = ir.IntegerAttr(a["api_version"]).value if "api_version" in a else None
    c.operands = tuple(_value_type(v.type) for v in op.operands)
    c.results = tuple(_value_type(v.type) for v in op.results)
    c.operand_layouts = _layouts(a, "operand_layouts")
    c.result_layouts = _layouts(a, "result_layouts")
    c.aliases = tuple(
        (tuple(al.output_tuple_indices), al.operand_index, tuple(al.operand_tuple_indices))
        for al in map(stablehlo.OutputOperandAlias,
                      ir.ArrayAttr(a["output_operand_aliases"])
                      if "output_operand_aliases" in a else ()))
    c.config, c.config_text = {}, ""  # (an empty dictionary is not kept by artifacts)
    for key in ("backend_config", "mhlo.backend_config"):
        if key in a and isinstance(a[key], ir.DictAttr):
            c.config = {na.name: _attr_value(na.attr) for na in ir.DictAttr(a[key])}
        elif key in a and isinstance(a[key], ir.StringAttr):
            c.config_text = ir.StringAttr(a[key]).value
    if c.config_text and not c.config:
        c.config = None
    c.called = tuple(str(x) for x in ir.ArrayAttr(a["called_computations"])) \
        if "called_computations" in a else ()
    return c


# ----------------------------------------------------------------------------- rewrite patterns


def apply_patterns(module, patterns) -> str:
    """Run Python rewrite patterns over a module with MLIR's greedy driver (which also
    folds), and return the new module text. ``patterns`` is a list of ``(root, fn)``: root an
    op name ("stablehlo.multiply") or an OpView class, ``fn(op, rewriter) -> bool`` rewrites
    ``op`` with the ``PatternRewriter`` and returns True, or returns False when it does not
    apply. ``module`` is text or an ``ir.Module`` (left untouched: a copy is rewritten)."""
    from jaxlib.mlir._mlir_libs._mlir import rewrite
    m = parse_module(module_text(module))
    with _context():
        ps = rewrite.RewritePatternSet()
        for root, fn in patterns:
            # jaxlib's convention: the callable returns a falsy value when it matched
            ps.add(root, lambda op, rw, fn=fn: not fn(op, rw))
        rewrite.apply_patterns_and_fold_greedily(m, ps.freeze())
        if not m.operation.verify():
            raise StableHLOVerificationError("the module does not verify after the rewrite")
        return module_text(m)


# ----------------------------------------------------------------------------- builder rules


def builder_modules():
    """(ir, stablehlo dialect, func dialect) of jaxlib's MLIR Python bindings: what a
    lowering rule written with them (frontend.extend_mlir) builds ops with."""
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import func, stablehlo
    return ir, stablehlo, func


def build_function(name: str, in_types: list, out_types: list, body, what: str) -> str:
    """The text of ``func.func private @name(in_types) -> out_types`` whose body ops are
    built by ``body(arguments) -> results`` (``ir.Value``s; the context and an insertion
    point at the end of the entry block are current), verified; ``what`` names the rule in
    errors."""
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import func
    ctx = _context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        ins = [ir.Type.parse(t) for t in in_types]
        outs = [ir.Type.parse(t) for t in out_types]
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp(name, ir.FunctionType.get(ins, outs))
            fn.sym_visibility = ir.StringAttr.get("private")
            block = fn.add_entry_block()
        with ir.InsertionPoint(block):
            results = body(list(block.arguments))
            if isinstance(results, (ir.Value, ir.OpResult)):
                results = [results]
            results = [r.result if hasattr(r, "result") and not isinstance(r, ir.Value) else r
                       for r in _flatten_values(results)]
            if len(results) != len(outs):
                raise ValueError(f"{what} returned {len(results)} values for {len(outs)} "
                                 "outputs")
            got = [str(r.type) for r in results]
            if got != [str(t) for t in outs]:
                raise TypeError(f"{what} returned values of types {got}; the primitive's "
                                f"abstract evaluation says {[str(t) for t in outs]}")
            func.ReturnOp(results)
        try:
            ok = module.operation.verify()
        except Exception as e:  # MLIRError: the verifier's diagnostics
            raise StableHLOVerificationError(f"{what} built ops the verifier rejects: {e}") \
                from None
        if not ok:
            raise StableHLOVerificationError(f"{what} built ops the verifier rejects")
        return fn.operation.get_asm(enable_debug_info=False, large_elements_limit=None)


def _flatten_values(vals) -> list:
    """A rule's results: values, or sequences of values (JAX rules return lists of lists)."""
    out = []
    for v in vals:
        if isinstance(v, (list, tuple)):
            out += _flatten_values(v)
        else:
            out.append(v)
    return out
