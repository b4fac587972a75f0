"""JAX's block-scaled matmuls: ``scaled_matmul`` (a batched matmul whose operands are multiplied
by per-block scales along the contracting axis), ``scaled_dot_general`` and the block-scale
configurations ``get_scaled_dot_general_config`` makes.

JAX runs these as one cuDNN call on GPUs (CPU has no lowering for it); vmaplab computes the
documented mathematics in float32: ``einsum('BMK,BNK->BMN', a * repeat(a_scales), b *
repeat(b_scales))``, converted to ``preferred_element_type``.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import lax
from .. import numpy as fnp
from ..core import dtypes
from ..numpy._core import check_arraylike


@dataclass
class BlockScaleConfig:
    """How ``scaled_dot_general`` quantizes one operand: blocks of ``block_size`` elements
    stored as ``data_type`` with one ``scale_type`` scale each (JAX's fields and printed form)."""
    mode: str
    block_size: int
    data_type: Any
    scale_type: Any
    global_scale: Any
    infer_only: bool


def get_scaled_dot_general_config(mode, global_scale=None):
    """The block-scale configuration of ``mode``: ``"mxfp8"`` (float8_e4m3fn data in blocks of
    32 with float8_e8m0fnu scales) or ``"nvfp4"`` (float4_e2m1fn data in blocks of 16 with
    float8_e4m3fn scales and a float32 ``global_scale``, ``[1.]`` when not given)."""
    if mode == "mxfp8":
        return BlockScaleConfig(mode="mxfp8", block_size=32,
                                data_type=dtypes.float8["float8_e4m3fn"].type,
                                scale_type=dtypes.float8["float8_e8m0fnu"].type,
                                global_scale=None, infer_only=False)
    if mode == "nvfp4":
        if global_scale is None:
            global_scale = fnp.array([1.0], fnp.float32)
        return BlockScaleConfig(mode="nvfp4", block_size=16,
                                data_type=dtypes.float4_e2m1fn.type,
                                scale_type=dtypes.float8["float8_e4m3fn"].type,
                                global_scale=global_scale, infer_only=False)
    raise ValueError(f"Unsupported mode: {mode}")


def _check_scaled_matmul_shapes(a, b, a_scales, b_scales):
    """JAX's checks (and its wording), then the two JAX leaves to the GPU kernel: each scale
    has the batch of its operand and its block count divides K."""
    if not all(x.ndim == 3 for x in (a, b, a_scales, b_scales)):
        raise ValueError("scaled_matmul requires all inputs to be 3-dimensional arrays")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[2]:
        raise ValueError("scaled_matmul requires inputs a and b to have matching batch (B) and "
                         f"contract (K) dimensions, but got shapes {a.shape} and {b.shape}")
    if a_scales.shape[0] != b_scales.shape[0] or a_scales.shape[2] != b_scales.shape[2]:
        raise ValueError("scaled_matmul requires scales to have matching batch (B) and contract "
                         f"(K) dimensions, but got shapes {a_scales.shape} and "
                         f"{b_scales.shape}")
    if a_scales.shape[1] != a.shape[1] or b_scales.shape[1] != b.shape[1]:
        raise ValueError("scaled_matmul requires scales to match non-contract dimensions of "
                         f"inputs, but got shapes a: {a.shape}, b: {b.shape}, a_scales: "
                         f"{a_scales.shape}, b_scales: {b_scales.shape}")
    if a_scales.shape[0] != a.shape[0]:
        raise ValueError("scaled_matmul requires the scales to have the batch (B) dimension of "
                         f"the inputs, but got shapes a: {a.shape}, a_scales: {a_scales.shape}")
    blocks = a_scales.shape[2]
    if blocks == 0 or a.shape[2] % blocks:
        raise ValueError("scaled_matmul requires the scales' last dimension to divide the "
                         f"contract (K) dimension {a.shape[2]}, but got {blocks}")


def _scaled(x, scales):
    """``x * repeat(scales, K // K_s, axis=-1)`` in float32 (the fixed compute type)."""
    block = x.shape[2] // scales.shape[2]
    x = lax.convert_element_type(x, np.float32)
    return x * fnp.repeat(lax.convert_element_type(scales, np.float32), block, axis=2)


def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.float32):
    """Block-scaled batched matmul: ``lhs`` (B, M, K) and ``rhs`` (B, N, K) times their
    scales (B, M, K_a) and (B, N, K_b), each scale repeated over its block of K // K_s
    elements, contracted over K in float32: the result (B, M, N) as
    ``preferred_element_type``."""
    for name, x in (("lhs", lhs), ("rhs", rhs), ("lhs_scales", lhs_scales),
                    ("rhs_scales", rhs_scales)):
        check_arraylike(f"scaled_matmul {name}", x)
    a, b, a_s, b_s = (fnp.asarray(x) for x in (lhs, rhs, lhs_scales, rhs_scales))
    _check_scaled_matmul_shapes(a, b, a_s, b_s)
    out = lax.dot_general(_scaled(a, a_s), _scaled(b, b_s), (((2,), (2,)), ((0,), (0,))),
                          preferred_element_type=np.float32)
    return lax.convert_element_type(out, preferred_element_type)


def scaled_dot_general(lhs, rhs, dimension_numbers, preferred_element_type=np.float32,
                       configs=None, implementation=None):
    """``lax.dot_general`` whose operands are block-quantized by ``configs`` (see
    ``get_scaled_dot_general_config``); with ``configs=None`` it is ``lax.dot_general`` with
    ``preferred_element_type`` (float32 unless given)."""
    if implementation is not None:
        warnings.warn("Backend selector, now ignored. The system chooses the backend "
                      "automatically.", DeprecationWarning, stacklevel=2)
    if configs is None:
        return lax.dot_general(lhs, rhs, dimension_numbers,
                               preferred_element_type=preferred_element_type)
    # JAX's own CPU backend has no lowering for the quantized path either (it raises this
    # error class); vmaplab does not implement the quantization yet.
    raise NotImplementedError("scaled_dot_general with configs (block-scaled quantization) "
                              "is not implemented in vmaplab; JAX runs it only on GPUs")


__all__ = ["get_scaled_dot_general_config", "scaled_dot_general", "scaled_matmul"]
