"""The StableHLO reference interpreter (``jaxlib.mlir.dialects.stablehlo.eval_module``) as an
execution backend: ``fe.jit(f, device="interpreter")`` runs the very module we lowered, op by
op, without XLA. It is slow; it exists to cross-check XLA (a lowering bug that XLA tolerates,
e.g. through its own canonicalizations, shows up as a disagreement).

Arguments arrive as device buffers of the default XLA device and results go back there, so
the frontend sees ordinary Arrays. The MLIR Python bindings cannot move bf16 or complex
tensors across the numpy boundary; for those the module gets a public wrapper ``@main`` that
takes/returns bit patterns (bf16 <-> i16 with ``bitcast_convert``) and real/imaginary parts
(``complex``/``real``/``imag``) and calls the untouched original function.
"""
from __future__ import annotations

import re

import numpy as np

INTERPRETER = "interpreter"


class InterpreterError(RuntimeError):
    """The reference interpreter rejected or failed to run a module (e.g. an op it lacks)."""


def _elem(dtype) -> str:
    from lowering.emit.module import elem_type
    return elem_type(dtype)


def _ttype(shape, elem: str) -> str:
    dims = "x".join(map(str, shape))
    return f"tensor<{dims}{'x' if dims else ''}{elem}>"


def _kind(dtype) -> str:
    """'bf16', 'complex' or '' (passes through numpy unchanged)."""
    d = np.dtype(dtype)
    if d.kind == "c":
        return "complex"
    if d.name == "bfloat16":
        return "bf16"
    return ""


def _wrap(text: str, in_avals, out_avals) -> str:
    """Rename the module's ``@main`` to ``@__vmaplab_inner`` and add a ``@main`` whose
    boundary types the numpy bindings can carry."""
    inner = "__vmaplab_inner"
    body, n = re.subn(r"func\.func public @main\(", f"func.func private @{inner}(", text, count=1)
    if n != 1:
        raise InterpreterError("module has no public @main function")
    args, lines, call_args = [], [], []
    k = 0

    def fresh():
        nonlocal k
        k += 1
        return f"%w{k}"

    for i, a in enumerate(in_avals):
        t = _ttype(a.shape, _elem(a.dtype))
        kind = _kind(a.dtype)
        if kind == "bf16":
            args.append(f"%a{i}: {_ttype(a.shape, 'i16')}")
            v = fresh()
            lines.append(f"    {v} = stablehlo.bitcast_convert %a{i} : ({_ttype(a.shape, 'i16')}) -> {t}")
            call_args.append(v)
        elif kind == "complex":
            part = "f32" if np.dtype(a.dtype).itemsize == 8 else "f64"
            pt = _ttype(a.shape, part)
            args += [f"%a{i}re: {pt}", f"%a{i}im: {pt}"]
            v = fresh()
            lines.append(f"    {v} = stablehlo.complex %a{i}re, %a{i}im : {t}")
            call_args.append(v)
        else:
            args.append(f"%a{i}: {t}")
            call_args.append(f"%a{i}")
    in_types = ", ".join(_ttype(a.shape, _elem(a.dtype)) for a in in_avals)
    out_types = [_ttype(a.shape, _elem(a.dtype)) for a in out_avals]
    res = fresh()
    n_out = len(out_avals)
    call = f"func.call @{inner}({', '.join(call_args)}) : ({in_types}) -> ({', '.join(out_types)})"
    if n_out == 0:
        lines.append(f"    {call}")
        outs = []
    elif n_out == 1:
        lines.append(f"    {res} = {call}")
        outs = [res]
    else:
        lines.append(f"    {res}:{n_out} = {call}")
        outs = [f"{res}#{j}" for j in range(n_out)]
    rets, ret_types = [], []
    for o, a, t in zip(outs, out_avals, out_types, strict=True):
        kind = _kind(a.dtype)
        if kind == "bf16":
            v = fresh()
            it = _ttype(a.shape, "i16")
            lines.append(f"    {v} = stablehlo.bitcast_convert {o} : ({t}) -> {it}")
            rets.append(v)
            ret_types.append(it)
        elif kind == "complex":
            part = "f32" if np.dtype(a.dtype).itemsize == 8 else "f64"
            pt = _ttype(a.shape, part)
            for op in ("real", "imag"):
                v = fresh()
                lines.append(f"    {v} = stablehlo.{op} {o} : ({t}) -> {pt}")
                rets.append(v)
                ret_types.append(pt)
        else:
            rets.append(o)
            ret_types.append(t)
    ret = f"    return {', '.join(rets)} : {', '.join(ret_types)}" if rets else "    return"
    wrapper = "\n".join([f"  func.func public @main({', '.join(args)}) -> ({', '.join(ret_types)}) {{",
                         *lines, ret, "  }"])
    cut = body.rstrip().rfind("}")
    return body[:cut] + wrapper + "\n}\n"


def _to_attrs(x: np.ndarray, aval) -> list:
    from jaxlib.mlir import ir
    x = np.array(x, aval.dtype, order="C")  # (np.ascontiguousarray would make rank 0 rank 1)
    kind = _kind(aval.dtype)
    if kind == "bf16":
        return [ir.DenseElementsAttr.get(x.view(np.int16))]
    if kind == "complex":
        return [ir.DenseElementsAttr.get(np.array(x.real, order="C")),
                ir.DenseElementsAttr.get(np.array(x.imag, order="C"))]
    if x.dtype.kind == "u":
        return [ir.DenseElementsAttr.get(x, signless=False)]
    return [ir.DenseElementsAttr.get(x)]


def _from_attrs(attrs: list, aval) -> np.ndarray:
    kind = _kind(aval.dtype)
    if kind == "complex":
        re_, im_ = (np.asarray(a) for a in attrs)
        out = re_.astype(aval.dtype) + 1j * im_.astype(aval.dtype)
    elif kind == "bf16":
        out = np.asarray(attrs[0]).astype(np.int16).view(aval.dtype)
    else:
        out = np.asarray(attrs[0]).astype(aval.dtype, copy=False)
    return np.asarray(out, aval.dtype).reshape(aval.shape)


class InterpretedExecutable:
    """A module run by the reference interpreter; called like an XLA executable with device
    buffers, returns device buffers on ``result_device`` (the default XLA device)."""

    def __init__(self, text: str, in_avals, out_avals, result_device=None):
        from .ffi import targets
        from .mlir import parse_module
        calls = targets(text)
        if calls:
            raise ValueError(f"the StableHLO reference interpreter cannot run custom calls (this "
                             f"module calls @{calls[0]}): their handlers are native code only XLA "
                             f"runs; use an XLA device (frontend.devices()) for this function")
        if re.search(r"\bstablehlo\.fft\b", text):  # its fft aborts the process (jaxlib 0.10.2)
            raise ValueError("the StableHLO reference interpreter cannot run stablehlo.fft (it "
                             "aborts on it); use an XLA device (frontend.devices()) for this "
                             "function")
        self.text = text
        self.in_avals = tuple(in_avals)
        self.out_avals = tuple(out_avals)
        self.result_device = result_device
        needs_wrap = any(_kind(a.dtype) for a in (*self.in_avals, *self.out_avals))
        self.run_text = _wrap(text, self.in_avals, self.out_avals) if needs_wrap else text
        if "chlo." in self.run_text:  # the interpreter runs StableHLO only: expand CHLO ops
            from .mlir import run_pipeline
            self.run_text = run_pipeline(self.run_text, "func.func(chlo-legalize-to-stablehlo)")
        self.module = parse_module(self.run_text)

    def run_host(self, arrays: list) -> list:
        """numpy arrays in, numpy arrays out."""
        from jaxlib.mlir.dialects import stablehlo

        from .mlir import _context
        if len(arrays) != len(self.in_avals):
            raise ValueError(f"interpreted module takes {len(self.in_avals)} arguments, "
                             f"got {len(arrays)}")
        with _context():
            attrs = []
            for x, a in zip(arrays, self.in_avals, strict=True):
                attrs += _to_attrs(x, a)
            try:
                res = stablehlo.eval_module(self.module, attrs)
            except Exception as e:  # the interpreter reports unsupported ops as errors
                raise InterpreterError(f"StableHLO reference interpreter failed: {e}") from None
            outs, k = [], 0
            for a in self.out_avals:
                n = 2 if _kind(a.dtype) == "complex" else 1
                outs.append(_from_attrs(list(res[k:k + n]), a))
                k += n
        return outs

    def __call__(self, bufs: list) -> list:
        from .xla import to_device, to_host
        outs = self.run_host([to_host(b) for b in bufs])
        return [to_device(np.array(o, order="C"), self.result_device) for o in outs]

    def hlo_text(self) -> str:
        return self.text

    def cost_analysis(self):
        return {}
