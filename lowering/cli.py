"""The ``vmaplab`` command line: dump the stages of a function's compilation, check it on XLA
against the StableHLO reference interpreter, list the passes.

    vmaplab dump model.py:mlp --arg f32[8,3] --arg f32[3,4] --vmap 0,None --stage all --out dump/
    vmaplab check model.py:mlp --arg f32[8,3] --arg f32[3,4]
    vmaplab explore model.py -o page.html     # every stage on one HTML page, linked
    vmaplab passes

Argument specs are ``DTYPE[DIMS]``: ``f32[8,3]``, ``i32[]``, ``bool[4]``, ``bf16[2,2]`` (or
numpy names: ``float32[8,3]``); ``dump`` also takes symbolic dimensions, ``f32[b,16]`` (JAX's
``export.symbolic_shape`` syntax, one scope for all the arguments: a module with dynamic
``?`` dimensions, as ``frontend.export`` writes). The frontend is imported only when a command runs, so
``--help`` and bad specs answer at once. ``dump`` traces with the specs' shapes and dtypes
only (no input is allocated); ``check`` runs the function on random inputs.

Exit status: 0 on success, 1 when ``check`` finds XLA and the interpreter disagree, 2 on any
error, printed as ONE line ``vmaplab: error: ...`` (an error raised by the user's code names
the script's line, ``model.py:12: TypeError: ...``; ``--traceback`` prints the whole
traceback first). ``--out DIR`` writes each file atomically (a temporary file in DIR, synced,
then renamed over the name) and only after every stage succeeded, so a failed run leaves DIR
as it was; it refuses to replace existing files unless ``--force``.
"""
from __future__ import annotations

import argparse
import ast
import errno
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import traceback

STAGES = ("graph", "passes", "stablehlo", "linalg", "hlo")
# the file of each thing dump writes to --out
FILES = {"graph": "graph.txt", "passes": "passes.txt", "stablehlo": "stablehlo.mlir",
         "linalg": "linalg.mlir", "hlo": "hlo.txt", "dot": "graph.dot", "png": "graph.png"}
_DTYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
           "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
           "u16": "uint16", "u32": "uint32", "u64": "uint64", "bool": "bool", "pred": "bool",
           "c64": "complex64", "c128": "complex128"}
_SPEC = re.compile(r"^\s*([A-Za-z0-9_]+)\s*\[([^\]\[]*)\]\s*$")


class CLIError(Exception):
    """A usage error: printed as ``vmaplab: error: ...``, exit status 2."""


# ----------------------------------------------------------------------------- inputs


def parse_spec(spec: str) -> tuple:
    """'f32[8,3]' -> ((8, 3), 'float32'); a symbolic dimension (shape-polymorphic lowering,
    JAX's ``export.symbolic_shape`` syntax) stays text: 'f32[b,16]' -> (('b', 16), 'float32')."""
    m = _SPEC.match(spec)
    if m is None:
        raise CLIError(f"bad argument spec {spec!r}: expected DTYPE[DIMS] such as f32[8,3] or i32[]")
    name, dims = m.groups()
    dtype = _DTYPES.get(name, name if name in _DTYPES.values() else None)
    if dtype is None:
        raise CLIError(f"bad argument spec {spec!r}: unknown dtype {name!r}; one of "
                       f"{', '.join(_DTYPES)} (or the numpy names)")
    parts = [p.strip() for p in dims.split(",")] if dims.strip() else []
    for p in parts:
        if not p.isdigit() and not _symbolic_dim_ok(p):
            raise CLIError(f"bad argument spec {spec!r}: dimensions are non-negative integers "
                           f"or symbolic dimensions such as b or 2*b (got {p!r})")
    if any(p.isdigit() and int(p) >= 2 ** 63 for p in parts):
        raise CLIError(f"bad argument spec {spec!r}: a dimension is at most 2**63 - 1")
    return tuple(int(p) if p.isdigit() else p for p in parts), dtype


def _symbolic_dim_ok(text: str) -> bool:
    """Whether ``text`` is one symbolic dimension (names a symbol; JAX's syntax)."""
    from frontend.core.shape_poly import symbolic_shape
    if not re.search(r"[A-Za-z_]", text):
        return False
    try:
        return len(symbolic_shape(text)) == 1
    except (ValueError, TypeError):
        return False


_SPEC_TOKEN = re.compile(r"([A-Za-z][A-Za-z0-9_]*)\s*\[([^\]\[]*)\]")


class _Spec(tuple):
    """A leaf of a pytree of specs: ((shape), dtype name)."""


def parse_arg(text: str):
    """One ``--arg``: ``static:LITERAL`` (a static argument: a hashable Python literal,
    baked into the function as jit's static arguments are), a spec ``f32[8,3]``, or a pytree
    of specs written as a Python literal (tuples, lists, dicts with str keys):
    ``{'w': f32[3,4], 'b': f32[4]}``. Returns ("static", value) or ("tree", pytree of
    _Spec)."""
    if text.startswith("static:"):
        try:
            value = ast.literal_eval(text[len("static:"):].strip())
            hash(value)
        except (ValueError, SyntaxError, TypeError):
            raise CLIError(f"bad static argument {text!r}: static:LITERAL with a hashable "
                           "Python literal, such as static:3 or static:'relu'") from None
        return "static", value
    if _SPEC.match(text):
        return "tree", _Spec(parse_spec(text))
    specs = []

    def slot(m):
        specs.append(_Spec(parse_spec(m.group(0))))
        return f"__spec{len(specs) - 1}__"
    try:
        tree = ast.literal_eval(repr_tree(_SPEC_TOKEN.sub(slot, text)))
    except (ValueError, SyntaxError):
        raise CLIError(f"bad argument spec {text!r}: expected DTYPE[DIMS] such as f32[8,3], a "
                       "pytree of them such as {'w': f32[3,4], 'b': f32[4]}, or "
                       "static:LITERAL") from None
    if not specs:
        raise CLIError(f"bad argument spec {text!r}: no DTYPE[DIMS] in it (a Python value "
                       "is passed with static:LITERAL)")

    def back(t):
        if isinstance(t, str) and t.startswith("__spec") and t.endswith("__"):
            return specs[int(t[6:-2])]
        if isinstance(t, (tuple, list)):
            return type(t)(back(c) for c in t)
        if isinstance(t, dict):
            return {k: back(v) for k, v in t.items()}
        raise CLIError(f"bad argument spec {text!r}: a pytree holds only specs, tuples, "
                       f"lists and dicts, not {t!r}")
    return "tree", back(tree)


def repr_tree(text: str) -> str:
    """The placeholders ``__specK__`` quoted, so that the text is a Python literal."""
    return re.sub(r"__spec\d+__", lambda m: repr(m.group(0)), text)


def parse_axes(text: str):
    """'0' -> 0, '0,None' -> (0, None), '(1, None)' -> (1, None)."""
    try:
        v = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise CLIError(f"bad --vmap in_axes {text!r}: an int, None, or a tuple of them "
                       "such as 0,None") from None
    if isinstance(v, list):
        v = tuple(v)
    ok = lambda a: a is None or isinstance(a, int) and not isinstance(a, bool)  # noqa: E731
    if not (ok(v) or isinstance(v, tuple) and all(map(ok, v))):
        raise CLIError(f"bad --vmap in_axes {text!r}: an int, None, or a tuple of them")
    return v


def split_target(target: str) -> tuple:
    """'path/script.py:name' -> ('path/script.py', 'name')."""
    path, sep, name = target.rpartition(":")
    if not sep or not path or not name:
        raise CLIError(f"expected SCRIPT.py:FUNCTION, got {target!r}")
    return path, name


def run_script(path: str, run_name: str = "__vmaplab__") -> dict:
    """Run the script at ``path`` (as module ``run_name``: its ``if __name__ == "__main__"``
    part runs only when that is "__main__"; its folder first on sys.path); its namespace."""
    import runpy
    if not os.path.exists(path):
        raise CLIError(f"no such script: {path}")
    if not os.path.isfile(path):
        raise CLIError(f"{path} is not a file")
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        return runpy.run_path(path, run_name=run_name)
    except SystemExit:
        raise CLIError(f"{path} called sys.exit while it was loaded") from None
    except SyntaxError as e:
        e.filename = e.filename or path  # compile() names no file for, say, a NUL byte
        raise


def load_function(target: str):
    """'path/script.py:name' -> the function ``name`` defined by running the script."""
    path, name = split_target(target)
    ns = run_script(path)
    fn = ns.get(name)
    if not callable(fn):
        defined = sorted(k for k, v in ns.items() if callable(v) and not k.startswith("_")
                         and getattr(v, "__module__", None) == "__vmaplab__")
        raise CLIError(f"{path} defines no function {name!r}"
                       + (f" (it defines: {', '.join(defined)})" if defined else ""))
    return fn


def _dtype(name: str):
    import numpy as np

    from frontend.core import dtypes
    return dtypes.bfloat16 if name == "bfloat16" else np.dtype(name)


def _map_specs(fn, tree):
    """``tree`` (a pytree of _Spec) with each spec replaced by ``fn(shape, dtype name)``."""
    if isinstance(tree, _Spec):
        return fn(*tree)
    if isinstance(tree, (tuple, list)):
        return type(tree)(_map_specs(fn, c) for c in tree)
    return {k: _map_specs(fn, v) for k, v in tree.items()}


def abstract_inputs(specs) -> list:
    """The specs (pytrees of them) as ShapeDtypeStructs: enough to trace, lower and compile,
    nothing allocated. Symbolic dimensions of all the specs share one scope (``b`` is the
    same size in every argument)."""
    import frontend as fe
    from frontend.core.shape_poly import SymbolicScope, symbolic_shape
    scope = SymbolicScope()

    def one(shape, name):
        shape = tuple(d if type(d) is int else symbolic_shape(d, scope=scope)[0] for d in shape)
        return fe.ShapeDtypeStruct(shape, _dtype(name))
    return [_map_specs(one, t) for t in specs]


def symbolic_dims(specs) -> list:
    """The symbolic dimensions (texts) of the specs, in order."""
    out: list = []
    _map_specs(lambda shape, _name: out.extend(d for d in shape if type(d) is not int), specs)
    return out


def make_inputs(specs, seed: int) -> list:
    """Random arrays of the specs (pytrees of them; ``check`` runs on them)."""
    import numpy as np
    rng = np.random.default_rng(seed)

    def one(shape, name):
        dt = _dtype(name)
        if dt == np.bool_:
            return rng.integers(0, 2, size=shape).astype(bool)
        if dt.kind in "iu":
            return rng.integers(0 if dt.kind == "u" else -5, 6, size=shape).astype(dt)
        if dt.kind == "c":
            return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dt)
        return rng.normal(size=shape).astype(dt)
    return [_map_specs(one, t) for t in specs]


def _with_statics(fn, parsed):
    """``fn`` with the static arguments of ``parsed`` (``parse_arg`` results, in order)
    baked in at their positions: a function of the other arguments."""
    statics = {i: v for i, (kind, v) in enumerate(parsed) if kind == "static"}
    if not statics:
        return fn
    n = len(parsed)

    def with_statics(*dyn):
        it = iter(dyn)
        return fn(*[statics[i] if i in statics else next(it) for i in range(n)])
    with_statics.__name__ = getattr(fn, "__name__", "fn")
    return with_statics


def specs_of(args) -> list:
    """The spec pytrees of the --arg options (static arguments left out)."""
    return [t for kind, t in (parse_arg(s) for s in args.arg) if kind == "tree"]


def _prepare(args, concrete: bool):
    """(function after --vmap, inputs, graph passes) from the parsed arguments; the inputs
    are random arrays when ``concrete``, else ShapeDtypeStructs."""
    parsed = [parse_arg(s) for s in args.arg]
    specs = [t for kind, t in parsed if kind == "tree"]
    axes = [parse_axes(a) for a in args.vmap]
    passes = None
    if args.passes is not None:
        passes = tuple(p.strip() for p in args.passes.split(",") if p.strip())
    fn = _with_statics(load_function(args.target), parsed)
    import frontend as fe
    from frontend import passes as P
    if passes is not None:
        try:
            passes = P.Pipeline(passes)
        except (ValueError, TypeError) as e:
            raise CLIError(str(e)) from None
    for a in axes:
        fn = fe.vmap(fn, in_axes=a)
    if not concrete:
        return fn, abstract_inputs(specs), passes
    sym = symbolic_dims(specs)
    if sym:
        raise CLIError(f"symbolic dimension {sym[0]!r} in --arg: it needs concrete sizes to run "
                       "the function; only dump (without --stage hlo) takes symbolic "
                       "dimensions")
    try:
        return fn, make_inputs(specs, args.seed), passes
    except MemoryError as e:
        raise CLIError(f"cannot allocate the inputs ({' '.join('--arg ' + a for a in args.arg)})"
                       f": {e}") from None


# ----------------------------------------------------------------------------- commands


def check_out(out: str, filenames, force: bool) -> None:
    """Refuse an --out DIR that cannot take ``filenames`` before any work is done: DIR (or
    its nearest existing ancestor, when DIR is still to be made) must be a writable
    directory, and the files must not exist unless ``force``."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise CLIError(f"--out {out}: not a directory")
    if os.path.isdir(out):
        if not os.access(out, os.W_OK | os.X_OK):
            raise CLIError(f"--out {out}: not writable")
        there = [f for f in filenames if os.path.lexists(os.path.join(out, f))]
        if there and not force:
            raise CLIError(f"--out {out} already holds {', '.join(there)}; pass --force to "
                           "overwrite")
        return
    parent = os.path.dirname(os.path.abspath(out))
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    shown = os.path.relpath(parent) if not os.path.isabs(out) else parent
    if not os.path.isdir(parent):
        raise CLIError(f"--out {out}: {shown} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise CLIError(f"--out {out}: {shown} is not writable")


def write_files(out: str, files) -> list:
    """Write ``files`` ((name, bytes) pairs) into the directory ``out`` (made if missing),
    all or none: each goes to a temporary file in ``out``, synced; only when all are written
    are they renamed over their names. On failure the temporary files are removed and the
    files already in ``out`` are untouched. Returns the paths written."""
    made = not os.path.isdir(out)
    temps, path = [], out
    mask = os.umask(0)
    os.umask(mask)
    try:
        os.makedirs(out, exist_ok=True)
        for name, data in files:
            path = os.path.join(out, name)
            if os.path.isdir(path):  # found now, not after the first renames
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=out)
            temps.append(tmp)
            with os.fdopen(fd, "wb") as f:
                os.fchmod(f.fileno(), 0o666 & ~mask)  # as open() would make it, not 0o600
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        paths = [os.path.join(out, name) for name, _ in files]
        for tmp, path in zip(temps, paths, strict=True):
            os.replace(tmp, path)
        temps = []
        dfd = os.open(out, os.O_RDONLY)
        try:
            os.fsync(dfd)  # the renames too
        finally:
            os.close(dfd)
        return paths
    except OSError as e:
        for tmp in temps:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        if made:
            try:
                os.rmdir(out)
            except OSError:
                pass
        raise CLIError(f"cannot write {path}: {e.strerror or e}") from None


class _Sink:
    """Prints each stage, or keeps it for write_files into --out once every stage is done."""

    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.files = []  # (stage, filename, bytes)

    def emit(self, stage: str, text) -> None:
        if self.out_dir:
            data = text if isinstance(text, bytes) else \
                (text if text.endswith("\n") else text + "\n").encode()
            self.files.append((stage, FILES[stage], data))
        else:
            _print(f"==== {stage} ====")
            _print(text.rstrip("\n"))

    def commit(self) -> None:
        if self.out_dir:
            paths = write_files(self.out_dir, [(name, data) for _, name, data in self.files])
            for (stage, _, _), path in zip(self.files, paths, strict=True):
                _print(f"{stage:<10} -> {path}")


def _png(dot_text: str) -> bytes:
    """Graphviz's rendering of DOT text."""
    r = subprocess.run(["dot", "-Tpng"], input=dot_text.encode(), capture_output=True)
    if r.returncode != 0:
        raise CLIError(f"Graphviz's dot failed: {_one_line(r.stderr.decode(errors='replace'))}")
    return r.stdout


def cmd_dump(args) -> int:
    stages = STAGES if args.stage == "all" else (args.stage,)
    png = bool(args.dot and args.out and shutil.which("dot"))
    if args.out == "":
        raise CLIError("--out: an empty path")
    if args.out:
        check_out(args.out, [FILES[s] for s in stages + ("dot",) * args.dot + ("png",) * png],
                  args.force)
    fn, inputs, passes = _prepare(args, concrete=False)
    import frontend as fe
    from frontend import passes as P
    sink = _Sink(args.out)
    pipeline = passes if passes is not None else P.DEFAULT
    traced = fe.make_graph(fn, passes=())(*inputs)
    res = P.Pipeline(pipeline.passes, keep_graphs=True).run(traced)
    if "graph" in stages:
        sink.emit("graph", str(traced))
    if "passes" in stages:
        parts = [f"pipeline: {', '.join(P.pass_name(p) for p in pipeline.passes) or '(none)'}",
                 res.report()]
        for name, g in res.graphs[1:]:
            parts.append(f"---- after {name} ----\n{g}")
        sink.emit("passes", "\n".join(parts))
    lowered = fe.jit(fn, passes=pipeline).lower(*inputs)
    if args.mlir_passes:
        lowered = lowered.apply_passes(args.mlir_passes)
    if "stablehlo" in stages:
        sink.emit("stablehlo", lowered.as_text())
    if "linalg" in stages:
        sink.emit("linalg", lowered.apply_passes("stablehlo-legalize-to-linalg").as_text())
    if "hlo" in stages:
        if symbolic_dims(specs_of(args)):
            if args.stage == "hlo":
                raise CLIError("--stage hlo compiles the module: XLA needs static shapes, and "
                               "an --arg has a symbolic dimension")
            _print("(no hlo stage: the module has symbolic dimensions; XLA compiles static "
                   "shapes only)")
        else:
            sink.emit("hlo", lowered.compile().as_text())
    if args.dot:
        dot = P.to_dot(res.graph, getattr(fn, "__name__", "graph"))
        sink.emit("dot", dot)
        if png:
            sink.emit("png", _png(dot))
    sink.commit()
    if args.dot and args.out and not png:
        _print("(no PNG: Graphviz's dot is not installed)")
    return 0


def cmd_check(args) -> int:
    fn, inputs, passes = _prepare(args, concrete=True)
    import numpy as np

    import frontend as fe
    from frontend.core.pytree import tree_leaves
    xla = tree_leaves(fe.jit(fn, passes=passes)(*inputs))
    try:
        ref = tree_leaves(fe.jit(fn, passes=passes, device="interpreter")(*inputs))
    except Exception as e:  # an op the interpreter lacks, say: no verdict, an error
        raise CLIError(f"the reference interpreter failed: {_one_line(e)}") from e
    ok = True
    for i, (a, b) in enumerate(zip(xla, ref, strict=True)):
        a, b = np.asarray(a), np.asarray(b)
        loose = a.dtype.name in ("bfloat16", "float16")
        rtol = args.rtol if args.rtol is not None else (2e-2 if loose else 1e-5)
        atol = args.atol if args.atol is not None else (2e-2 if loose else 1e-6)
        if a.shape != b.shape or a.dtype != b.dtype:
            same, what = False, f"{a.dtype}{list(a.shape)} vs {b.dtype}{list(b.shape)}"
        elif a.dtype.kind in "fc" or loose:
            a64, b64 = a.astype(np.complex128), b.astype(np.complex128)
            same = bool(np.allclose(a64, b64, rtol=rtol, atol=atol, equal_nan=True))
            diff = np.abs(a64 - b64)
            what = f"max abs diff {float(np.nanmax(diff, initial=0.0)):.3g}"
        else:
            same, what = bool(np.array_equal(a, b)), "exact"
        ok &= same
        _print(f"output {i}: {a.dtype}{list(a.shape)} {'ok' if same else 'MISMATCH'} ({what})")
    _print("XLA and the reference interpreter agree" if ok else
          "XLA and the reference interpreter DISAGREE")
    return 0 if ok else 1


def _explore_target(args) -> tuple:
    """(script, function name or None) of ``vmaplab explore``: ``SCRIPT --fn NAME``,
    ``SCRIPT.py:NAME`` (as dump takes it) or ``SCRIPT`` alone."""
    if args.fn:
        return args.target, args.fn
    path, sep, name = args.target.rpartition(":")
    if sep and path and name and not os.path.isfile(args.target):
        return path, name
    return args.target, None


def cmd_explore(args) -> int:
    import contextlib
    import io
    script, name = _explore_target(args)
    if not args.out:
        raise CLIError("--out: an empty path")
    if os.path.isdir(args.out):
        raise CLIError(f"--out {args.out}: a directory (the page is one HTML file)")
    from lowering.explore import explore_page
    if name is not None:
        args.target = f"{script}:{name}"
        fn, inputs, passes = _prepare(args, concrete=False)
        kwargs = {}
    else:
        if args.arg or args.vmap:
            raise CLIError("--arg and --vmap describe a function's arguments: name the function "
                           "with --fn NAME (without it, the page shows the first program the "
                           "script lowers with jit(f).lower(...))")
        from frontend import passes as P
        from lowering.explore.record import Lowering, first_lowering
        try:
            passes = None if args.passes is None else P.Pipeline(
                tuple(p.strip() for p in args.passes.split(",") if p.strip()))
        except (ValueError, TypeError) as e:
            raise CLIError(str(e)) from None
        try:
            with first_lowering() as called, contextlib.redirect_stdout(io.StringIO()):
                run_script(script, run_name="__main__")  # as `python SCRIPT` runs it
        except Lowering as found:
            called = [found]
        if not called:
            raise CLIError(f"{script} neither lowers nor calls a jitted function: name the "
                           "function to show with --fn NAME and its arguments with --arg SPEC")
        fn, inputs, kwargs = called[0].jitted, called[0].args, called[0].kwargs
    page = explore_page(fn, inputs, kwargs, passes=passes)
    out = os.path.abspath(args.out)
    if not os.path.isdir(os.path.dirname(out)):
        raise CLIError(f"--out {args.out}: no such directory {os.path.dirname(args.out)!r}")
    try:
        page.save(out)
    except OSError as e:
        raise CLIError(f"cannot write {args.out}: {e.strerror or e}") from None
    stages = " -> ".join(f"{s['title']} {s['stats']['eqns']} eqns" for s in page.data["stages"])
    _print(f"{page.data['title']}({', '.join(page.data['args'])}): {stages}, StableHLO "
           f"{page.data['stablehlo']['stats']['ops']} ops, HLO "
           f"{page.data['hlo']['stats']['instructions']} instructions")
    _print(f"explore -> {args.out} ({len(page.html.encode()) // 1024} KiB)")
    return 0


def _summary(doc) -> str:
    """The first paragraph of a docstring, on one line."""
    return " ".join((doc or "").split("\n\n")[0].split())


def cmd_passes(_args) -> int:
    from frontend import passes as P
    from lowering import backend
    _print("graph passes (jit(f, passes=[...]), --passes a,b):")
    for name, p in P.GRAPH_PASSES.items():
        _print(f"  {name}")
        _print(textwrap.fill(_summary(p.__doc__), 96, initial_indent=" " * 6,
                            subsequent_indent=" " * 6))
    _print(f"  default pipeline: {', '.join(P.DEFAULT_PASSES)}")
    _print("\nMLIR passes (Lowered.apply_passes('builtin.module(...)'), --mlir-passes):")
    for name, what in backend.MLIR_PASSES:
        _print(f"  {name}\n      {what}")
    return 0


# ----------------------------------------------------------------------------- parser


def _function_args(p):
    p.add_argument("target", metavar="SCRIPT.py:FUNCTION", help="the function to compile")
    p.add_argument("--arg", action="append", default=[], metavar="SPEC",
                   help="an argument, DTYPE[DIMS] such as f32[8,3] or i32[] (for dump, a symbolic "
                        "dimension such as f32[b,16]: one scope for all), a pytree of them "
                        "such as \"{'w': f32[3,4], 'b': f32[4]}\", or static:LITERAL (a "
                        "static argument); repeat, in order")
    p.add_argument("--vmap", action="append", default=[], metavar="IN_AXES",
                   help="wrap the function in vmap(in_axes=IN_AXES), e.g. 0 or 0,None "
                        "(repeat to nest; the first is innermost)")
    p.add_argument("--passes", metavar="P1,P2",
                   help="graph passes to run after tracing (default: the jit default, "
                        "fold_transposes,dce; an empty string for none)")


def _traceback_arg(p):
    p.add_argument("--traceback", action="store_true",
                   help="on an error, print the whole traceback before the one-line message")


class _Parser(argparse.ArgumentParser):
    """argparse with its usage errors on one line, as every other error of vmaplab."""

    def error(self, message):
        self.exit(2, f"vmaplab: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="vmaplab", description="vmaplab's compiler testbed: dump the stages of a "
                 "function, check it, explore it on an HTML page, list the passes.", epilog="Exit status: 0 on success, 1 "
                 "when check finds a difference, 2 on any error (one line on stderr; "
                 "--traceback for the whole traceback).")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", required=True)
    d = sub.add_parser("dump", help="print or write the stages of compiling a function",
                       description="Trace SCRIPT.py:FUNCTION on arguments of the given specs "
                       "(their shapes and dtypes only: no input is allocated) and print (or "
                       "write to --out) each stage: the traced graph, the graph passes, "
                       "StableHLO, linalg, XLA's optimized HLO.")
    _function_args(d)
    d.add_argument("--stage", choices=STAGES + ("all",), default="stablehlo",
                   help="what to show (default: stablehlo)")
    d.add_argument("--mlir-passes", metavar="PIPELINE",
                   help="an MLIR pass pipeline run on the module, e.g. 'canonicalize,cse'")
    d.add_argument("--out", metavar="DIR",
                   help="write each stage to a file in DIR (made if missing), all at the end "
                        "and atomically: a failed run leaves DIR as it was")
    d.add_argument("--force", action="store_true",
                   help="let --out replace files already in DIR (refused without it)")
    d.add_argument("--dot", action="store_true",
                   help="also the graph after the passes as Graphviz DOT (a PNG with --out "
                        "when dot is installed)")
    _traceback_arg(d)
    d.set_defaults(run=cmd_dump)
    c = sub.add_parser("check", help="run a function on XLA and on the reference interpreter",
                       description="Run SCRIPT.py:FUNCTION on random inputs on XLA and on the "
                       "StableHLO reference interpreter and compare the results (exit status "
                       "1 when they differ, 2 when they could not be compared).")
    _function_args(c)
    c.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    c.add_argument("--rtol", type=float, help="relative tolerance for floats (default 1e-5)")
    c.add_argument("--atol", type=float, help="absolute tolerance for floats (default 1e-6)")
    _traceback_arg(c)
    c.set_defaults(run=cmd_check)
    _explore_parser(sub)
    p = sub.add_parser("passes", help="list the graph and MLIR passes",
                       description="List the built-in graph passes and the MLIR passes known "
                       "to run on vmaplab's modules.")
    _traceback_arg(p)
    p.set_defaults(run=cmd_passes)
    return ap


def _explore_parser(sub):
    e = sub.add_parser("explore", help="write an HTML page showing every stage, cross-linked",
                       description="Write one self-contained HTML page (no network needed to "
                       "view it) showing the Python source, the traced, vmapped and optimized "
                       "graphs (drawn and printed), StableHLO and XLA's HLO, linked: clicking "
                       "an equation highlights its Python line and its StableHLO and HLO ops. "
                       "Without a function, the first program SCRIPT lowers with "
                       "jit(f).lower(...) is shown (the script runs as `python SCRIPT` would, "
                       "until then), or else the first jitted function it calls.")
    _function_args(e)
    for a in e._actions:  # (SCRIPT alone is enough here)
        if a.dest == "target":
            a.metavar, a.help = "SCRIPT[:FUNCTION]", "the script (and the function of it to show)"
    e.add_argument("--fn", metavar="NAME", help="the function of SCRIPT to show (with its "
                   "--arg specs); default: the first program the script lowers (or calls, "
                   "jitted)")
    e.add_argument("-o", "--out", required=True, metavar="PAGE.html", help="the page to write")
    _traceback_arg(e)
    e.set_defaults(run=cmd_explore)


# ----------------------------------------------------------------------------- errors


class _StdoutError(Exception):
    """Standard output cannot be written (a full disk, a closed pipe)."""


def _print(*args, **kwargs) -> None:
    """print() to standard output; its failure is an error of its own, not the user's."""
    try:
        print(*args, **kwargs)
    except OSError as e:
        raise _StdoutError(e.strerror or str(e)) from None


def _one_line(e) -> str:
    """The message of an exception (or a text) on one line."""
    try:
        text = str(e)
    except Exception:  # a user's exception whose __str__ fails
        text = "(its message could not be printed)"
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def _place(filename: str, script) -> str:
    """``filename`` as the user wrote it when it is the script."""
    same = script and os.path.realpath(filename) == os.path.realpath(script)
    return script if same else filename


def describe(e: BaseException, script=None) -> str:
    """The one-line message of an error: ``script.py:12: TypeError: ...`` naming the last line
    of ``script`` in the traceback of ``e`` (or of the exceptions it came from), or the file
    and line of a SyntaxError."""
    if isinstance(e, CLIError):
        return _one_line(e)
    if isinstance(e, _StdoutError):
        return f"cannot write to standard output: {e}"
    if isinstance(e, SyntaxError) and e.filename:
        where = _place(e.filename, script) + (f":{e.lineno}" if e.lineno else "")
        return f"{where}: SyntaxError: {_one_line(e.msg)}"
    where, seen, cause = None, set(), e
    while script and where is None and cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        frames = [f for f in traceback.extract_tb(cause.__traceback__)
                  if _place(f.filename, script) == script]
        where = f"{script}:{frames[-1].lineno}" if frames else None
        cause = cause.__cause__ or cause.__context__
    text = f"{type(e).__name__}: {_one_line(e)}" if _one_line(e) else type(e).__name__
    return f"{where}: {text}" if where else text


def main(argv=None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    try:
        script = split_target(args.target)[0] if hasattr(args, "target") else None
    except CLIError:
        script = None
    try:
        rc = args.run(args)
        try:
            sys.stdout.flush()
        except OSError as e:
            raise _StdoutError(e.strerror or str(e)) from None
        return rc
    except KeyboardInterrupt:
        ap.exit(130, "vmaplab: interrupted\n")
    except (Exception, SystemExit) as e:  # SystemExit: the user's function called sys.exit
        if isinstance(e, _StdoutError):
            _silence_stdout()
        elif args.traceback and not isinstance(e, CLIError):
            traceback.print_exception(e)
        ap.exit(2, f"vmaplab: error: {describe(e, script)}\n")


def _silence_stdout() -> None:
    """Point a failed standard output at /dev/null, so that the interpreter's flush at exit
    does not fail again (Python's advice for a closed pipe)."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError, AttributeError):  # not a file (redirected in-process)
        pass


if __name__ == "__main__":
    sys.exit(main())
