"""Reading StableHLO portable artifacts (MLIR bytecode) in a helper process.

MLIR's bytecode reader trusts its input: crafted or damaged bytes (a checksum is easy to
recompute) corrupt the heap of the process that reads them ("malloc(): corrupted size",
SIGSEGV). So the bytes never reach it in this process: a long-lived child (this file run as
a script; it imports only jaxlib's MLIR bindings) reads, verifies and prints each artifact,
and this process parses the printed text, which MLIR's text parser checks. A child that dies
on an artifact is reported as a corrupt artifact and started again for the next one.

Protocol over the child's stdin/stdout: a request is an 8-byte big-endian length and the
bytes; a reply is a status byte (0: module text, 1: error message), an 8-byte length and
UTF-8 text.
"""
from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import threading

_TIMEOUT_SECS = 120.0
_lock = threading.Lock()
_child: list = [None, None]  # (Popen, pid of the process that started it)


class ReaderCrashed(Exception):
    """The helper process died or hung on an artifact."""


def _start():
    proc, owner = _child
    if proc is not None and owner == os.getpid() and proc.poll() is None:
        return proc
    proc = subprocess.Popen([sys.executable, "-I", os.path.abspath(__file__)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, bufsize=0)
    _child[:] = [proc, os.getpid()]
    return proc


def _read_exactly(fd: int, n: int, deadline_secs: float) -> bytes:
    out = bytearray()
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while len(out) < n:
            if not sel.select(deadline_secs):
                raise TimeoutError
            chunk = os.read(fd, n - len(out))
            if not chunk:
                raise EOFError
            out += chunk
    return bytes(out)


def _why(proc) -> str:
    try:
        rc = proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return "it did not answer"
    if rc < 0:
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit status {rc}"


def read(blob: bytes) -> tuple:
    """(True, module text) or (False, the reader's error message) for the artifact bytes;
    ReaderCrashed when the reader dies or hangs on them."""
    with _lock:
        proc = _start()
        try:
            proc.stdin.write(len(blob).to_bytes(8, "big") + bytes(blob))
            proc.stdin.flush()
            fd = proc.stdout.fileno()
            head = _read_exactly(fd, 9, _TIMEOUT_SECS)
            payload = _read_exactly(fd, int.from_bytes(head[1:], "big"), _TIMEOUT_SECS)
        except TimeoutError:
            proc.kill()
            raise ReaderCrashed(_why(proc)) from None
        except (EOFError, OSError):
            raise ReaderCrashed(_why(proc)) from None
    return head[0] == 0, payload.decode("utf-8", "replace")


# ----------------------------------------------------------------------------- the child


def _context():
    from jaxlib.mlir import ir
    from jaxlib.mlir._mlir_libs import _jax_mlir_ext
    from jaxlib.mlir.dialects import chlo, sdy, stablehlo
    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)
    ctx = ir.Context()
    ctx.append_dialect_registry(registry)
    ctx.load_all_available_dialects()
    stablehlo.register_dialect(ctx)
    chlo.register_dialect(ctx)
    sdy.register_dialect(ctx)
    return ctx


def _serve() -> None:
    from jaxlib.mlir.dialects import stablehlo
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    ctx = _context()
    while True:
        head = inp.read(8)
        if len(head) < 8:
            return
        blob = inp.read(int.from_bytes(head, "big"))
        with ctx:
            try:
                m = stablehlo.deserialize_portable_artifact(ctx, blob)
                if not m.operation.verify():
                    raise ValueError("the module does not verify")
                ok, text = 0, m.operation.get_asm(enable_debug_info=False,
                                                  large_elements_limit=None)
            except Exception as e:  # the reader's diagnostics
                ok, text = 1, str(e) or type(e).__name__
        data = text.encode("utf-8", "replace")
        out.write(bytes([ok]) + len(data).to_bytes(8, "big") + data)
        out.flush()


if __name__ == "__main__":
    _serve()
