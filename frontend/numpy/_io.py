"""Host-side helpers JAX's numpy has: printing (printoptions, array_str, array_repr), npy
files (save and savez are numpy's, as in JAX; load gives Arrays) and einsum_path."""
from __future__ import annotations

import numpy as np

from ._core import asarray

__all__ = ["printoptions", "get_printoptions", "set_printoptions", "array_str", "array_repr",
           "save", "savez", "load", "einsum_path"]

# Arrays print through numpy's formatting, so numpy's print options are theirs
printoptions, get_printoptions, set_printoptions = (np.printoptions, np.get_printoptions,
                                                    np.set_printoptions)
save, savez = np.save, np.savez


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """The values of ``a`` as ``str`` prints them."""
    return np.array_str(np.asarray(a), max_line_width, precision, suppress_small)


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """``repr`` of ``arr`` with the given print options (named after its type)."""
    text = np.array_repr(np.asarray(arr), max_line_width, precision, suppress_small)
    return type(arr).__name__ + text[len("array"):] if text.startswith("array") else text


def load(file, *args, **kwargs):
    """numpy's load, with the arrays it reads as Arrays (an .npz archive: a dict of them)."""
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray) and out.dtype != object:
        return asarray(out)
    if isinstance(out, np.lib.npyio.NpzFile):
        with out:
            return {k: asarray(out[k]) for k in out.files}
    return out


def einsum_path(subscripts, /, *operands, optimize="auto"):
    """(contraction path, report) of an einsum: the pairwise order of the greedy strategy."""
    strategy = "greedy" if optimize in ("auto", True, "greedy", "optimal", "dp") else optimize
    path, report = np.einsum_path(subscripts, *(np.broadcast_to(0.0, np.shape(o))
                                                for o in operands), optimize=strategy)
    return [tuple(step) for step in path[1:]], report
