"""The custom calls a module from elsewhere (a deserialized artifact, a module given to
``compile_stablehlo``) may make, checked before it is compiled.

A custom call runs native code that trusts the types it is given: a LAPACK kernel told its
result is smaller than its operand overflows the heap, a Python callback given a made-up
index reads wild memory. A checksum does not stop a crafted artifact (anyone can recompute
it), so every ``stablehlo.custom_call`` must be one of:

- a jaxlib LAPACK kernel vmaplab's own lowering emits (``lapack_<s|d|c|z><routine>_ffi``),
  with exactly the operand and result types, layouts, aliases and attributes that lowering
  would give it (the rules in lowering/emit/decompositions.py, which emits from them);
- one of vmaplab's kernels (kernels/, which check their result types themselves), its
  operands and attributes as its declared Signature says;
- a target the user registered with ``frontend.ffi.register_ffi_target`` (or declared with
  ``declare_ffi_target``), its operands checked against a declared Signature.

Anything else, Python callbacks included, is refused with a ValueError naming the target.
"""
from __future__ import annotations

import numpy as np

from frontend import ffi as _ffi
from frontend import kernels as _kernels  # noqa: F401  (declares the kernels' Signatures)
from frontend.core.ir import Aval

from . import runtime
from .emit import decompositions as _dc

_PYTHON_CALLBACK = ("python", "callback")


def _where(what: str, c) -> str:
    return f"{what}: custom call to {c.target!r}"


def _avals(what: str, c, types, kind: str) -> list:
    out = []
    for i, t in enumerate(types):
        if t is None:
            raise ValueError(f"{_where(what, c)}: {kind} {i} is not a tensor of static shape")
        out.append(Aval(*t))
    return out


def _short(avals) -> str:
    return "(" + ", ".join(a.str_short() for a in avals) + ")"


def _check_lapack(what: str, c, prefix: str, rule) -> None:
    where = _where(what, c)
    ins = _avals(what, c, c.operands, "operand")
    dtype = _dc.DTYPE_OF_PREFIX[prefix]
    n_in = rule.operands
    if len(ins) != n_in or any(a.dtype != dtype for a in ins):
        raise ValueError(f"{where}: takes {n_in} operand(s) of dtype {dtype.name}, got {_short(ins)}")
    if c.api_version != 4 or c.config is None or c.called:
        raise ValueError(f"{where}: must be an XLA FFI call (api_version = 4, a dictionary "
                         "backend_config, no called computations)")
    attrs = {}
    for k, (t, v) in c.config.items():
        allowed = rule.attrs.get(k)
        if allowed is int and t == "i32":
            attrs[k] = v
            continue
        if allowed is None or allowed is int or t != "ui8" or chr(v) not in allowed:
            raise ValueError(f"{where}: unexpected attribute {k} = {v} : {t} (the kernel takes "
                             f"{', '.join(f'{n} in {a!r}' for n, a in rule.attrs.items()) or 'none'})")
        attrs[k] = v
    if set(attrs) != set(rule.attrs):
        raise ValueError(f"{where}: needs the attributes {sorted(rule.attrs)}, got {sorted(attrs)}")
    try:
        want = rule.results(ins, attrs)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    got = _avals(what, c, c.results, "result")
    if [(a.shape, a.dtype) for a in got] != [(a.shape, a.dtype) for a in want]:
        raise ValueError(f"{where}: operands {_short(ins)} give the results {_short(want)}, the "
                         f"module says {_short(got)}")
    rank = max(a.ndim for a in ins)
    layouts = (tuple(_dc.layout(a, rank) for a in ins), tuple(_dc.layout(a, rank) for a in want))
    if (c.operand_layouts, c.result_layouts) != layouts:
        raise ValueError(f"{where}: layouts {c.operand_layouts} -> {c.result_layouts}, the "
                         f"kernel takes {layouts[0]} -> {layouts[1]}")
    multi = len(want) > 1
    aliases = tuple(((o,) if multi else (), i, ()) for o, i in rule.aliases.items())
    if tuple(sorted(c.aliases)) != aliases:
        raise ValueError(f"{where}: output_operand_aliases {c.aliases}, the kernel writes "
                         f"{aliases}")


def _lapack_rule(target: str):
    if not (target.startswith("lapack_") and target.endswith("_ffi")):
        return None
    body = target[len("lapack_"):-len("_ffi")]
    rule = _dc.ROUTINES.get(body[1:])
    if rule is None or body[:1] not in rule.prefixes:
        return None
    return body[0], rule


def _attr(t: str, v):
    """A backend_config entry as the Python value ffi_call would have recorded."""
    if t in ("str", "i1", "i64", "f64"):
        return {"i64": int, "f64": float}.get(t, lambda x: x)(v)
    dtype = runtime.mlir._ELEM.get(t)
    if dtype is None:
        raise TypeError(f"an attribute of MLIR type {t}")
    return np.dtype(dtype).type(v)


def _check_declared(what: str, c, sig) -> None:
    where = _where(what, c)
    ins = _avals(what, c, c.operands, "operand")
    _avals(what, c, c.results, "result")
    if c.api_version != 4 or c.config is None:
        raise ValueError(f"{where}: must be an XLA FFI call (api_version = 4, a dictionary "
                         "backend_config)")
    try:
        attrs = tuple(sorted((k, _attr(t, v)) for k, (t, v) in c.config.items()))
        sig.check(c.target, ins, attrs)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{where} does not match its signature: {e}") from None


def check(module, what: str) -> None:
    """A ValueError unless every custom call of ``module`` (text or ir.Module) is one this
    process may run for a module it did not lower itself (see the module docstring)."""
    try:
        calls = runtime.mlir.custom_calls(module)
    except ValueError as e:
        raise ValueError(f"{what}: {str(e)[:2000]}") from None
    for c in calls:
        t = c.target
        if t == "shape_assertion":  # (JAX's checks of symbolic shapes: the shape refinement
            continue                # of a call checks and removes them, XLA never sees them)
        lapack = _lapack_rule(t)
        if lapack is not None:
            _check_lapack(what, c, *lapack)
            continue
        sig = _ffi._SIGNATURES.get(t)
        if t in runtime.native.HANDLERS:
            _check_declared(what, c, sig)
            continue
        if t in runtime.ffi.user_targets or sig is not None:
            if sig is not None:
                _check_declared(what, c, sig)
            continue
        if all(w in t.lower() for w in _PYTHON_CALLBACK):
            raise ValueError(f"{_where(what, c)} refused: a Python callback of another process "
                             "(its index would point into this process's callbacks)")
        raise ValueError(f"{_where(what, c)} refused: not a target vmaplab emits (LAPACK "
                         "kernels, vmaplab's kernels) nor one registered with "
                         "frontend.ffi.register_ffi_target")
