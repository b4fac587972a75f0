"""The ``vmaplab`` command line: dump the stages of a function's compilation, check it on XLA
against the StableHLO reference interpreter, list the passes.

    vmaplab dump model.py:mlp --arg f32[8,3] --arg f32[3,4] --vmap 0,None --stage all --out dump/
    vmaplab check model.py:mlp --arg f32[8,3] --arg f32[3,4]
    vmaplab passes

Argument specs are ``DTYPE[DIMS]``: ``f32[8,3]``, ``i32[]``, ``bool[4]``, ``bf16[2,2]`` (or
numpy names: ``float32[8,3]``). The frontend is imported only when a command runs, so
``--help`` and bad specs answer at once.
"""
from __future__ import annotations

import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
import textwrap

STAGES = ("graph", "passes", "stablehlo", "linalg", "hlo")
_DTYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
           "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
           "u16": "uint16", "u32": "uint32", "u64": "uint64", "bool": "bool", "pred": "bool",
           "c64": "complex64", "c128": "complex128"}
_SPEC = re.compile(r"^\s*([A-Za-z0-9_]+)\s*\[\s*([0-9,\s]*)\]\s*$")


class CLIError(Exception):
    """A usage error: printed as ``vmaplab: error: ...``, exit status 2."""


# ----------------------------------------------------------------------------- inputs


def parse_spec(spec: str) -> tuple:
    """'f32[8,3]' -> ((8, 3), 'float32')."""
    m = _SPEC.match(spec)
    if m is None:
        raise CLIError(f"bad argument spec {spec!r}: expected DTYPE[DIMS] such as f32[8,3] or i32[]")
    name, dims = m.groups()
    dtype = _DTYPES.get(name, name if name in _DTYPES.values() else None)
    if dtype is None:
        raise CLIError(f"bad argument spec {spec!r}: unknown dtype {name!r}; one of "
                       f"{', '.join(_DTYPES)} (or the numpy names)")
    parts = [p.strip() for p in dims.split(",")] if dims.strip() else []
    if any(not p.isdigit() for p in parts):
        raise CLIError(f"bad argument spec {spec!r}: dimensions are non-negative integers")
    return tuple(int(p) for p in parts), dtype


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


def load_function(target: str):
    """'path/script.py:name' -> the function ``name`` defined by running the script."""
    import runpy
    path, sep, name = target.rpartition(":")
    if not sep or not path or not name:
        raise CLIError(f"expected SCRIPT.py:FUNCTION, got {target!r}")
    if not os.path.isfile(path):
        raise CLIError(f"no such script: {path}")
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        ns = runpy.run_path(path, run_name="__vmaplab__")
    except SystemExit:
        raise CLIError(f"{path} called sys.exit while it was loaded") from None
    fn = ns.get(name)
    if not callable(fn):
        defined = sorted(k for k, v in ns.items() if callable(v) and not k.startswith("_")
                         and getattr(v, "__module__", None) == "__vmaplab__")
        raise CLIError(f"{path} defines no function {name!r}"
                       + (f" (it defines: {', '.join(defined)})" if defined else ""))
    return fn


def make_inputs(specs, seed: int) -> list:
    import numpy as np

    from frontend import dtypes
    rng = np.random.default_rng(seed)
    out = []
    for shape, name in specs:
        dt = dtypes.bfloat16 if name == "bfloat16" else np.dtype(name)
        if dt == np.bool_:
            x = rng.integers(0, 2, size=shape).astype(bool)
        elif dt.kind in "iu":
            x = rng.integers(0 if dt.kind == "u" else -5, 6, size=shape).astype(dt)
        elif dt.kind == "c":
            x = (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dt)
        else:
            x = rng.normal(size=shape).astype(dt)
        out.append(x)
    return out


def _prepare(args):
    """(function after --vmap, inputs, graph passes) from the parsed arguments."""
    specs = [parse_spec(s) for s in args.arg]
    axes = [parse_axes(a) for a in args.vmap]
    passes = None
    if args.passes is not None:
        passes = tuple(p.strip() for p in args.passes.split(",") if p.strip())
    fn = load_function(args.target)
    import frontend as fe
    from frontend import passes as P
    if passes is not None:
        try:
            passes = P.Pipeline(passes)
        except (ValueError, TypeError) as e:
            raise CLIError(str(e)) from None
    for a in axes:
        fn = fe.vmap(fn, in_axes=a)
    return fn, make_inputs(specs, args.seed), passes


# ----------------------------------------------------------------------------- commands


class _Sink:
    """Prints each stage, or writes it to a file of --out."""

    def __init__(self, out_dir):
        self.out_dir = out_dir
        if out_dir:
            os.makedirs(out_dir, exist_ok=True)

    def emit(self, stage: str, filename: str, text: str) -> None:
        if self.out_dir:
            path = os.path.join(self.out_dir, filename)
            with open(path, "w") as f:
                f.write(text if text.endswith("\n") else text + "\n")
            print(f"{stage:<10} -> {path}")
        else:
            print(f"==== {stage} ====")
            print(text.rstrip("\n"))


def cmd_dump(args) -> int:
    fn, inputs, passes = _prepare(args)
    import frontend as fe
    from frontend import passes as P
    stages = STAGES if args.stage == "all" else (args.stage,)
    sink = _Sink(args.out)
    pipeline = passes if passes is not None else P.DEFAULT
    traced = fe.make_graph(fn, passes=())(*inputs)
    res = P.Pipeline(pipeline.passes, keep_graphs=True).run(traced)
    if "graph" in stages:
        sink.emit("graph", "graph.txt", str(traced))
    if "passes" in stages:
        parts = [f"pipeline: {', '.join(P.pass_name(p) for p in pipeline.passes) or '(none)'}",
                 res.report()]
        for name, g in res.graphs[1:]:
            parts.append(f"---- after {name} ----\n{g}")
        sink.emit("passes", "passes.txt", "\n".join(parts))
    lowered = fe.jit(fn, passes=pipeline).lower(*inputs)
    if args.mlir_passes:
        lowered = lowered.apply_passes(args.mlir_passes)
    if "stablehlo" in stages:
        sink.emit("stablehlo", "stablehlo.mlir", lowered.as_text())
    if "linalg" in stages:
        sink.emit("linalg", "linalg.mlir", lowered.apply_passes("stablehlo-legalize-to-linalg").as_text())
    if "hlo" in stages:
        sink.emit("hlo", "hlo.txt", lowered.compile().as_text())
    if args.dot:
        sink.emit("dot", "graph.dot", P.to_dot(res.graph, getattr(fn, "__name__", "graph")))
        if args.out and shutil.which("dot"):
            png = os.path.join(args.out, "graph.png")
            subprocess.run(["dot", "-Tpng", os.path.join(args.out, "graph.dot"), "-o", png],
                           check=True)
            print(f"{'png':<10} -> {png}")
        elif args.out:
            print("(no PNG: Graphviz's dot is not installed)")
    return 0


def cmd_check(args) -> int:
    fn, inputs, passes = _prepare(args)
    import numpy as np

    import frontend as fe
    from frontend.tree import tree_leaves
    xla = tree_leaves(fe.jit(fn, passes=passes)(*inputs))
    try:
        ref = tree_leaves(fe.jit(fn, passes=passes, device="interpreter")(*inputs))
    except Exception as e:  # an op the interpreter lacks, say
        print(f"the reference interpreter failed: {e}", file=sys.stderr)
        return 1
    ok = True
    for i, (a, b) in enumerate(zip(xla, ref)):
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
        print(f"output {i}: {a.dtype}{list(a.shape)} {'ok' if same else 'MISMATCH'} ({what})")
    print("XLA and the reference interpreter agree" if ok else
          "XLA and the reference interpreter DISAGREE")
    return 0 if ok else 1


def _summary(doc) -> str:
    """The first paragraph of a docstring, on one line."""
    return " ".join((doc or "").split("\n\n")[0].split())


def cmd_passes(args) -> int:
    from frontend import passes as P
    from lowering import backend
    print("graph passes (jit(f, passes=[...]), --passes a,b):")
    for name, p in P.GRAPH_PASSES.items():
        print(f"  {name}")
        print(textwrap.fill(_summary(p.__doc__), 96, initial_indent=" " * 6,
                            subsequent_indent=" " * 6))
    print(f"  default pipeline: {', '.join(P.DEFAULT_PASSES)}")
    print("\nMLIR passes (Lowered.apply_passes('builtin.module(...)'), --mlir-passes):")
    for name, what in backend.MLIR_PASSES:
        print(f"  {name}\n      {what}")
    return 0


# ----------------------------------------------------------------------------- parser


def _function_args(p):
    p.add_argument("target", metavar="SCRIPT.py:FUNCTION", help="the function to compile")
    p.add_argument("--arg", action="append", default=[], metavar="SPEC",
                   help="an argument, DTYPE[DIMS] such as f32[8,3] or i32[] (repeat, in order)")
    p.add_argument("--vmap", action="append", default=[], metavar="IN_AXES",
                   help="wrap the function in vmap(in_axes=IN_AXES), e.g. 0 or 0,None "
                        "(repeat to nest; the first is innermost)")
    p.add_argument("--passes", metavar="P1,P2",
                   help="graph passes to run after tracing (default: the jit default, "
                        "fold_transposes,dce; an empty string for none)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="vmaplab", description="vmaplab's compiler testbed: dump "
                                 "the stages of a function, check it, list the passes.")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", required=True)
    d = sub.add_parser("dump", help="print or write the stages of compiling a function",
                       description="Trace SCRIPT.py:FUNCTION on random inputs of the given "
                       "specs and print (or write to --out) each stage: the traced graph, the "
                       "graph passes, StableHLO, linalg, XLA's optimized HLO.")
    _function_args(d)
    d.add_argument("--stage", choices=STAGES + ("all",), default="stablehlo",
                   help="what to show (default: stablehlo)")
    d.add_argument("--mlir-passes", metavar="PIPELINE",
                   help="an MLIR pass pipeline run on the module, e.g. 'canonicalize,cse'")
    d.add_argument("--out", metavar="DIR", help="write each stage to a file in DIR")
    d.add_argument("--dot", action="store_true",
                   help="also the graph after the passes as Graphviz DOT (a PNG with --out "
                        "when dot is installed)")
    d.set_defaults(run=cmd_dump)
    c = sub.add_parser("check", help="run a function on XLA and on the reference interpreter",
                       description="Run SCRIPT.py:FUNCTION on random inputs on XLA and on the "
                       "StableHLO reference interpreter and compare the results (exit status "
                       "1 when they differ).")
    _function_args(c)
    c.add_argument("--rtol", type=float, help="relative tolerance for floats (default 1e-5)")
    c.add_argument("--atol", type=float, help="absolute tolerance for floats (default 1e-6)")
    c.set_defaults(run=cmd_check)
    p = sub.add_parser("passes", help="list the graph and MLIR passes",
                       description="List the built-in graph passes and the MLIR passes known "
                       "to run on vmaplab's modules.")
    p.set_defaults(run=cmd_passes)
    return ap


def main(argv=None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    try:
        return args.run(args)
    except CLIError as e:
        ap.exit(2, f"vmaplab: error: {e}\n")
    except (TypeError, ValueError, IndexError) as e:  # from tracing the user's function
        ap.exit(2, f"vmaplab: error: {type(e).__name__}: {e}\n")


if __name__ == "__main__":
    sys.exit(main())
