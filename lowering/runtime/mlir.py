"""The MLIR StableHLO parser and verifier from jaxlib's MLIR bindings."""
from __future__ import annotations

import threading

_local = threading.local()


def _context():
    ctx = getattr(_local, "ctx", None)
    if ctx is None:
        from jax.extend import lowering as _jl
        from jaxlib.mlir import ir
        from jaxlib.mlir.dialects import stablehlo
        ctx = ir.Context()
        ctx.append_dialect_registry(_jl.upstream_dialects)
        ctx.load_all_available_dialects()
        stablehlo.register_dialect(ctx)
        _local.ctx = ctx
    return ctx


class StableHLOVerificationError(ValueError):
    pass


def parse_module(text: str):
    """Parse and verify a StableHLO module; raise StableHLOVerificationError with the
    verifier's diagnostics."""
    from jaxlib.mlir import ir
    ctx = _context()
    with ctx:
        try:
            return ir.Module.parse(text)
        except Exception as e:  # MLIRError carries the diagnostics
            raise StableHLOVerificationError(f"{e}\n--- module ---\n{text}") from None


def verify(text: str) -> bool:
    """True when the module parses and verifies; raises otherwise."""
    m = parse_module(text)
    with _context():
        if not m.operation.verify():
            raise StableHLOVerificationError(f"module does not verify:\n{text}")
    return True
