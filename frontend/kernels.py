"""vmaplab's own C++ kernels (``kernels/*.cc``, XLA FFI handlers built by CMakeLists.txt),
each a function over ``frontend.ffi.ffi_call`` with a declared signature (checked when
traced), a vmap_method (``"expand_dims"`` by default: the kernels loop over leading axes and
broadcast size-1 ones themselves, so vmap is one custom call, no loop, and an unbatched
operand is never copied per example; any of ffi_call's methods may be passed) and a numpy
reference (``*_reference``).

    >>> import numpy as np
    >>> import frontend as fe
    >>> from frontend.kernels import rms_norm
    >>> x = np.ones((2, 3), np.float32)
    >>> fe.vmap(rms_norm)(x)                                # one custom call on 2 rows
    Array([[0.9999995, 0.9999995, 0.9999995],
           [0.9999995, 0.9999995, 0.9999995]], dtype=float32)
    >>> fe.jit(fe.vmap(rms_norm)).lower(x).as_text().count("stablehlo.custom_call")
    1
"""
from __future__ import annotations

import numpy as np

from .core import dtypes
from .core.arguments import leaf_aval
from .core.ir import Aval
from .ffi import Operand, Signature, declare_ffi_target, ffi_call
from .lax import convert_element_type, reshape

_FLOATS = ("float32", "float64")

# ----------------------------------------------------------------------------- rms_norm

declare_ffi_target("vmaplab_rms_norm", Signature(
    [Operand("x", _FLOATS, ndim=1)], {"eps": np.float64}, batch="equal"))


def rms_norm(x, eps: float = 1e-6, *, vmap_method: str = "expand_dims"):
    """``x / sqrt(mean(x**2, axis=-1, keepdims=True) + eps)``, fused in one pass per row.
    Leading axes are independent rows; under vmap the batch is more rows. float32 or
    float64, rank >= 1."""
    a = leaf_aval(x)
    return ffi_call("vmaplab_rms_norm", Aval(a.shape, a.dtype),
                    vmap_method=vmap_method)(x, eps=float(eps))


def rms_norm_reference(x, eps: float = 1e-6) -> np.ndarray:
    """numpy: the same in the dtype of x."""
    x = np.asarray(x)
    return (x / np.sqrt((x * x).mean(-1, keepdims=True) + x.dtype.type(eps))).astype(x.dtype)


# ----------------------------------------------------------------------------- tridiagonal_solve

declare_ffi_target("vmaplab_tridiagonal_solve", Signature(
    [Operand("dl", _FLOATS, 1), Operand("d", _FLOATS, 1), Operand("du", _FLOATS, 1),
     Operand("b", _FLOATS, 2)], {}, batch="broadcast", same_dtype=True))


def tridiagonal_solve(dl, d, du, b, *, vmap_method: str = "expand_dims"):
    """Solve ``A x = b`` for tridiagonal ``A`` with sub-, main and super-diagonals ``dl``,
    ``d``, ``du`` (shape ``[..., m]``; ``dl[..., 0]`` and ``du[..., m-1]`` are ignored) and
    ``b`` of shape ``[..., m, n]``, as ``jax.lax.linalg.tridiagonal_solve``. The Thomas
    algorithm, without pivoting (for diagonally dominant or positive definite systems).
    Leading axes are independent systems; under vmap an unbatched operand (one matrix for
    many right-hand sides, say) stays one copy that the kernel shares across the batch."""
    avals = [leaf_aval(v) for v in (dl, d, du, b)]
    bl = avals[3]
    if bl.ndim < 2:
        raise ValueError(f"tridiagonal_solve: b must have rank >= 2 ([..., m, n]), got shape {bl.shape}")
    for name, a in zip(("dl", "d", "du"), avals[:3], strict=True):
        if a.shape != bl.shape[:-1]:
            raise ValueError(f"tridiagonal_solve: {name} must have shape b.shape[:-1] = "
                             f"{bl.shape[:-1]}, got {a.shape}")
    return ffi_call("vmaplab_tridiagonal_solve", Aval(bl.shape, bl.dtype),
                    vmap_method=vmap_method)(dl, d, du, b)


def tridiagonal_solve_reference(dl, d, du, b) -> np.ndarray:
    """numpy: the dense matrix of each system, solved with numpy.linalg.solve."""
    dl, d, du, b = (np.asarray(v) for v in (dl, d, du, b))
    m = d.shape[-1]
    a = np.zeros(d.shape + (m,), d.dtype)
    i = np.arange(m)
    a[..., i, i] = d
    a[..., i[1:], i[:-1]] = dl[..., 1:]
    a[..., i[:-1], i[1:]] = du[..., :-1]
    return np.linalg.solve(a, b).astype(b.dtype)


# ----------------------------------------------------------------------------- segment_sum

declare_ffi_target("vmaplab_segment_sum", Signature(
    [Operand("data", _FLOATS, 2), Operand("segment_ids", ("int32",), 1)],
    {"num_segments": np.int64}, batch="broadcast"))


def segment_sum(data, segment_ids, num_segments: int, *, vmap_method: str = "expand_dims"):
    """Sums of the rows of ``data`` (shape ``[n, ...]``) by segment, as
    ``jax.ops.segment_sum(data, segment_ids, num_segments)``: result ``[num_segments, ...]``,
    ids outside ``[0, num_segments)`` dropped. Under vmap an unbatched ``segment_ids`` stays
    one row that the kernel shares across the batch (``vmap_method="expand_dims"``)."""
    a, ia = leaf_aval(data), leaf_aval(segment_ids)
    if isinstance(num_segments, bool) or not isinstance(num_segments, (int, np.integer)) \
            or num_segments < 0:
        raise ValueError(f"segment_sum: num_segments must be a non-negative int, got {num_segments!r}")
    if a.ndim < 1 or ia.shape != a.shape[:1]:
        raise ValueError(f"segment_sum: segment_ids must have shape data.shape[:1], got data "
                         f"{a.shape} and segment_ids {ia.shape}")
    if not dtypes.is_int(ia.dtype):
        raise TypeError(f"segment_sum: segment_ids must be integers, got {ia.dtype.name}")
    rest = a.shape[1:]
    r = int(np.prod(rest, dtype=np.int64))
    rows = reshape(data, (a.shape[0], r))
    ids = convert_element_type(segment_ids, np.int32) if ia.dtype != np.int32 else segment_ids
    out = ffi_call("vmaplab_segment_sum", Aval((int(num_segments), r), a.dtype),
                   vmap_method=vmap_method)(rows, ids, num_segments=int(num_segments))
    return reshape(out, (int(num_segments),) + rest)


def segment_sum_reference(data, segment_ids, num_segments: int) -> np.ndarray:
    """numpy: ``np.add.at`` over the ids in range."""
    data, ids = np.asarray(data), np.asarray(segment_ids)
    out = np.zeros((num_segments,) + data.shape[1:], data.dtype)
    keep = (ids >= 0) & (ids < num_segments)
    np.add.at(out, ids[keep], data[keep])
    return out


__all__ = ["rms_norm", "rms_norm_reference", "segment_sum", "segment_sum_reference",
           "tridiagonal_solve", "tridiagonal_solve_reference"]
