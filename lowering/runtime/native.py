"""vmaplab's own C++ kernels (``kernels/``, built by CMakeLists.txt into one shared library
next to this file): finding the library, refusing a missing or stale one with a message that
says how to rebuild it, and registering its handlers as custom call targets.

The library is loaded the first time a module calling one of its targets is compiled (or
loaded from the persistent cache), so importing vmaplab never needs it.
"""
from __future__ import annotations

import ctypes
import glob
import hashlib
import os
import sys
import threading

# custom call target -> exported handler symbol
HANDLERS = {
    "vmaplab_rms_norm": "VmaplabRmsNorm",
    "vmaplab_segment_sum": "VmaplabSegmentSum",
    "vmaplab_tridiagonal_solve": "VmaplabTridiagonalSolve",
}

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(os.path.dirname(_HERE))  # the source tree, in an editable install
REBUILD = ("rebuild it from the repository root with `pip install -e .` (or by hand: "
           "`cmake -S . -B build && cmake --build build`)")


class KernelLibraryError(RuntimeError):
    """The kernel library is missing, stale, or cannot be loaded."""


def library_name() -> str:
    if sys.platform == "win32":
        return "vmaplab_kernels.dll"
    return "libvmaplab_kernels" + (".dylib" if sys.platform == "darwin" else ".so")


def library_path() -> str:
    return os.path.join(_HERE, library_name())


def sources_hash(root: str = _ROOT) -> str | None:
    """The hash CMakeLists.txt compiles in, of ``root/kernels/*.{cc,h}``; None when there is no
    source tree (an installed wheel: its library and Python files come from one build)."""
    if not os.path.isfile(os.path.join(root, "CMakeLists.txt")):
        return None
    files = sorted(glob.glob(os.path.join(root, "kernels", "*.cc"))
                   + glob.glob(os.path.join(root, "kernels", "*.h")))
    text = ""
    for f in files:
        with open(f, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
        text += f"{os.path.relpath(f, root).replace(os.sep, '/')}\n{digest}\n"
    return hashlib.sha256(text.encode()).hexdigest()


def open_library(path: str, root: str = _ROOT):
    """Load the library at ``path`` and check it was built from the sources in ``root``."""
    if not os.path.isfile(path):
        raise KernelLibraryError(f"vmaplab's kernel library {os.path.basename(path)} is missing "
                                 f"(looked in {os.path.dirname(path)}): {REBUILD}")
    try:
        lib = ctypes.CDLL(path)
        lib.vmaplab_kernels_sources_hash.restype = ctypes.c_char_p
        built = lib.vmaplab_kernels_sources_hash().decode()
    except (OSError, AttributeError) as e:
        raise KernelLibraryError(f"vmaplab's kernel library {path} cannot be loaded ({e}): "
                                 f"{REBUILD}") from None
    want = sources_hash(root)
    if want is not None and built != want:
        raise KernelLibraryError(f"vmaplab's kernel library {path} is stale: it was built from "
                                 f"other sources than those in {os.path.join(root, 'kernels')}; "
                                 f"{REBUILD}")
    missing = [s for s in HANDLERS.values() if not hasattr(lib, s)]
    if missing:
        raise KernelLibraryError(f"vmaplab's kernel library {path} lacks the handlers {missing}: "
                                 f"it is stale; {REBUILD}")
    return lib


_lock = threading.Lock()
_lib = None


def load():
    """The checked kernel library of this installation (loaded once)."""
    global _lib
    with _lock:
        if _lib is None:
            _lib = open_library(library_path())
        return _lib


def handler(target: str):
    """The ctypes function of a project target's handler."""
    return getattr(load(), HANDLERS[target])


# ----------------------------------------------------------------------------- CUDA
# The CUDA versions of the kernels (kernels/cuda, built with cmake -DVMAPLAB_CUDA=ON) are a
# second library next to this one; each handler is the CPU one's symbol + "Cuda".
_cuda_lib = []


def cuda_handler(target: str):
    """The ctypes function of a project target's CUDA handler (KernelLibraryError when the
    CUDA library was not built)."""
    with _lock:
        if not _cuda_lib:
            path = os.path.join(_HERE, library_name().replace("vmaplab_kernels",
                                                              "vmaplab_kernels_cuda"))
            if not os.path.isfile(path):
                raise KernelLibraryError(
                    f"{target} on a CUDA GPU needs vmaplab's CUDA kernels ({path} is missing): "
                    "build them with `cmake -S . -B build -DVMAPLAB_CUDA=ON && cmake --build "
                    "build` (a CUDA toolkit is needed)")
            try:
                _cuda_lib.append(ctypes.CDLL(path))
            except OSError as e:
                raise KernelLibraryError(f"vmaplab's CUDA kernel library {path} cannot be "
                                         f"loaded ({e})") from None
        return getattr(_cuda_lib[0], HANDLERS[target] + "Cuda")

