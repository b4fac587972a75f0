"""The convolution primitive: ``conv_general_dilated`` (StableHLO's convolution).

``dimension_numbers`` is a ConvDimensionNumbers of three axis tuples: ``lhs_spec`` (batch
axis, feature axis, spatial axes), ``rhs_spec`` (output-feature axis, input-feature axis,
spatial axes) and ``out_spec`` (batch, feature, spatial); ``padding`` is a (low, high) pair
per spatial axis, already resolved from 'SAME'/'VALID' by the lax wrapper.

Batching never loops and never convolves per example: a batched lhs folds the vmap axis
into its batch axis, a batched rhs folds it into its output features, both batched fold it
into the feature groups (or batch groups); the result's batch or feature axis is split back.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core import dtypes
from ..core.ir import Aval, Primitive, aval_of
from ..interpreters import batching
from ..interpreters.ad_util import Zero, is_undefined_primal
from .elementwise import add_p, convert_element_type_p
from .linalg import _bits
from .shape import moveaxis, reshape_p, rev_p, transpose_p, zeros_like_aval


class ConvDimensionNumbers(NamedTuple):
    """Axis numbers of a convolution's operands and result (lax.ConvDimensionNumbers)."""
    lhs_spec: tuple
    rhs_spec: tuple
    out_spec: tuple


def _dilate(n: int, d: int) -> int:
    return 0 if n == 0 else 1 + d * (n - 1)


def conv_out_shape(lhs_shape, rhs_shape, dn, window_strides, padding, lhs_dilation,
                   rhs_dilation, batch_group_count) -> tuple:
    """The result shape (in ``out_spec`` order)."""
    lspec, rspec, ospec = dn
    spatial = []
    for i, (s, (lo, hi)) in enumerate(zip(window_strides, padding, strict=True)):
        n = _dilate(lhs_shape[lspec[2 + i]], lhs_dilation[i]) + lo + hi
        if n < 0:
            raise ValueError("Negative padding is larger than the size of the corresponding "
                             f"dimension: got padding={tuple(padding)} for lhs_shape[2:]="
                             f"{tuple(lhs_shape[k] for k in lspec[2:])}")
        k = _dilate(rhs_shape[rspec[2 + i]], rhs_dilation[i])
        spatial.append(max(0, (n - k) // s + 1) if n >= k else 0)
    trans = (lhs_shape[lspec[0]] // batch_group_count, rhs_shape[rspec[0]], *spatial)
    out = [0] * len(trans)
    for pos, axis in enumerate(ospec):
        out[axis] = trans[pos]
    return tuple(out)


# conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
# dimension_numbers, feature_group_count, batch_group_count, precision,
# preferred_element_type)
conv_general_dilated_p = Primitive("conv_general_dilated")


@conv_general_dilated_p.def_abstract_eval
def _conv_abstract_eval(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count,
                        precision=None, preferred_element_type=None):
    dn = dimension_numbers
    if lhs.ndim != rhs.ndim:
        raise ValueError("conv_general_dilated lhs and rhs must have the same number of "
                         f"dimensions, but got {lhs.shape} and {rhs.shape}.")
    if lhs.dtype != rhs.dtype:
        raise TypeError("conv_general_dilated requires arguments to have the same dtypes, got "
                        f"{lhs.dtype.name}, {rhs.dtype.name}.")
    fgc, bgc = feature_group_count, batch_group_count
    if not fgc > 0:
        raise ValueError("conv_general_dilated feature_group_count must be a positive "
                         f"integer, got {fgc}.")
    lf, rif, rof = lhs.shape[dn.lhs_spec[1]], rhs.shape[dn.rhs_spec[1]], rhs.shape[dn.rhs_spec[0]]
    if lf % fgc:
        raise ValueError("conv_general_dilated feature_group_count must divide lhs feature "
                         f"dimension size, but {fgc} does not divide {lf}.")
    if lf // fgc != rif:
        raise ValueError("conv_general_dilated lhs feature dimension size divided by "
                         "feature_group_count must equal the rhs input feature dimension "
                         f"size, but {lf} // {fgc} != {rif}.")
    if rof % fgc:
        raise ValueError("conv_general_dilated rhs output feature dimension size must be a "
                         f"multiple of feature_group_count, but {rof} is not a multiple of "
                         f"{fgc}.")
    if not bgc > 0:
        raise ValueError("conv_general_dilated batch_group_count must be a positive integer, "
                         f"got {bgc}.")
    lb = lhs.shape[dn.lhs_spec[0]]
    if bgc > 1 and lb % bgc:
        raise ValueError("conv_general_dilated batch_group_count must divide lhs batch "
                         f"dimension size, but {bgc} does not divide {lb}.")
    if rof % bgc:
        raise ValueError("conv_general_dilated rhs output feature dimension size must be a "
                         f"multiple of batch_group_count, but {rof} is not a multiple of {bgc}.")
    if bgc > 1 and fgc > 1:
        raise ValueError("At most one of batch_group_count and feature_group_count may be > "
                         f"1, got batch_group_count={bgc} and feature_group_count={fgc}")
    nsp = len(dn.rhs_spec) - 2
    if nsp != len(window_strides):
        raise ValueError("conv_general_dilated window and window_strides must have the same "
                         f"number of dimensions, but got {nsp} and {len(window_strides)}")
    if len(padding) != nsp:
        raise TypeError(f"Wrong number of explicit pads for convolution: expected {nsp}, got "
                        f"{len(padding)}.")
    for name, vals in (("window_strides", window_strides), ("lhs_dilation", lhs_dilation),
                       ("rhs_dilation", rhs_dilation)):
        if len(vals) != nsp or any(v <= 0 for v in vals):
            raise ValueError(f"conv_general_dilated {name} must be {nsp} positive integers, "
                             f"got {tuple(vals)}")
    shape = conv_out_shape(lhs.shape, rhs.shape, dn, window_strides, padding, lhs_dilation,
                           rhs_dilation, bgc)
    dtype = lhs.dtype
    if preferred_element_type is not None and np.dtype(preferred_element_type) != dtype:
        pref = np.dtype(preferred_element_type)
        if dtypes.is_inexact(dtype) != dtypes.is_inexact(pref) or (
                not dtypes.is_float(dtype) and _bits(pref) < _bits(dtype)):
            raise TypeError("`preferred_element_type` must not be narrower than the original "
                            f"type, got preferred_element_type of {pref} for result type of "
                            f"{dtype}.")
        dtype = pref
    return Aval(shape, dtype, lhs.weak_type and rhs.weak_type and preferred_element_type is None)


def _fold(x, d: int, axis: int):
    """x (its vmap axis at ``d``) with the vmap axis folded into per-example axis ``axis``
    as its major part: the per-example layout, that axis ``size * n`` long."""
    x = moveaxis(x, d, axis)
    shp = batching.shape(x)
    new = shp[:axis] + (shp[axis] * shp[axis + 1],) + shp[axis + 2:]
    return reshape_p.bind(x, new_sizes=new, dimensions=None)


def _split(x, axis: int, sizes: tuple):
    """Axis ``axis`` of x reshaped into ``sizes`` (row-major)."""
    shp = batching.shape(x)
    return reshape_p.bind(x, new_sizes=shp[:axis] + tuple(sizes) + shp[axis + 1:],
                          dimensions=None)


def _merge(x, axis: int):
    """Axes ``axis`` and ``axis + 1`` of x merged (row-major)."""
    shp = batching.shape(x)
    return reshape_p.bind(x, new_sizes=shp[:axis] + (shp[axis] * shp[axis + 1],) + shp[axis + 2:],
                          dimensions=None)


def _fold_grouped(x, d: int, axis: int, groups: int):
    """x with the vmap axis (at ``d``) folded into per-example axis ``axis`` inside each of
    its ``groups`` contiguous groups: (groups, size, n / groups), flattened."""
    shp = batching.shape(x)
    axis_b = axis + (d <= axis)  # the axis in x (which still has the vmap axis)
    x = _split(x, axis_b, (groups, shp[axis_b] // groups))
    x = _fold(x, d + (d > axis_b), axis + 1)  # per-example layout now has the group axis
    return _merge(x, axis)


@conv_general_dilated_p.def_batching
def _conv_batch(args, dims, **params):
    # lhs batched: the vmap axis becomes the major part of the lhs batch axis (within each
    # batch group); rhs batched: of the rhs output features (within each feature or batch
    # group); both: of the lhs features and rhs output features with size times the
    # feature groups (or of the lhs batch with size times the batch groups). The result's
    # batch or feature axis is split back: the batch axis ends up at out_spec[0] (lhs
    # batched) or out_spec[1].
    (lhs, rhs), (ld, rd) = args, dims
    size = batching.axis_size(args, dims)
    if size == 0:  # no examples: no groups to fold into; zeros of the per-example result
        per = [Aval(tuple(s for i, s in enumerate(batching.shape(x)) if i != d), aval_of(x).dtype)
               if d is not None else aval_of(x) for x, d in zip(args, dims, strict=True)]
        out = _conv_abstract_eval(*per, **params)
        return zeros_like_aval(Aval((0,) + out.shape, out.dtype)), 0
    lspec, rspec, ospec = params["dimension_numbers"]
    fgc, bgc = params["feature_group_count"], params["batch_group_count"]
    bind = conv_general_dilated_p.bind
    if ld is not None and rd is not None:
        if bgc > 1:
            lhs, params = _fold(lhs, ld, lspec[0]), dict(params, batch_group_count=bgc * size)
        else:
            lhs, params = _fold(lhs, ld, lspec[1]), dict(params, feature_group_count=fgc * size)
        out = bind(lhs, _fold(rhs, rd, rspec[0]), **params)
        return _split(out, ospec[1], (size, batching.shape(out)[ospec[1]] // size)), ospec[1]
    if ld is not None:
        lhs = _fold(lhs, ld, lspec[0]) if bgc == 1 else _fold_grouped(lhs, ld, lspec[0], bgc)
        out = bind(lhs, rhs, **params)
        return _split(out, ospec[0], (size, batching.shape(out)[ospec[0]] // size)), ospec[0]
    if fgc == 1 and bgc == 1:
        out = bind(lhs, _fold(rhs, rd, rspec[0]), **params)
        return _split(out, ospec[1], (size, batching.shape(out)[ospec[1]] // size)), ospec[1]
    groups = max(fgc, bgc)
    out = bind(lhs, _fold_grouped(rhs, rd, rspec[0], groups), **params)
    t = ospec[1]
    n = batching.shape(out)[t] // (groups * size)
    out = _split(out, t, (groups, size, n))  # (groups, vmap, features per group)
    perm = list(range(len(batching.shape(out))))
    perm[t], perm[t + 1] = perm[t + 1], perm[t]
    return _merge(transpose_p.bind(out, permutation=tuple(perm)), t + 1), t


# ----------------------------------------------------------------------------- autodiff
# Linear in each operand: the jvp convolves each tangent with the other operand; the
# transposes are JAX's: the lhs cotangent is the output cotangent convolved with the
# spatially reversed kernel (input and output features swapped, strides and lhs dilation
# exchanged), the rhs cotangent the lhs convolved with the output cotangent as kernel.


def _dilated(shape, dilation):
    return tuple(_dilate(n, d) for n, d in zip(shape, dilation, strict=True))


def conv_vjp_lhs_padding(in_shape, window_dimensions, window_strides, out_shape, padding,
                         lhs_dilation, rhs_dilation) -> tuple:
    """The padding of the convolution that maps an output cotangent back to the input."""
    lhs_d = _dilated(in_shape, lhs_dilation)
    rhs_d = _dilated(window_dimensions, rhs_dilation)
    out_d = _dilated(out_shape, window_strides)
    before = [k - lo - 1 for k, (lo, _) in zip(rhs_d, padding, strict=True)]
    after = [n + k - 1 - o - b for n, k, o, b in zip(lhs_d, rhs_d, out_d, before, strict=True)]
    return tuple(zip(before, after, strict=True))


def _conv_vjp_rhs_padding(in_shape, window_dimensions, window_strides, out_shape, padding,
                          lhs_dilation, rhs_dilation) -> tuple:
    lhs_d = _dilated(in_shape, lhs_dilation)
    rhs_d = _dilated(window_dimensions, rhs_dilation)
    out_d = _dilated(out_shape, window_strides)
    return tuple((lo, (o - n) + (k - lo - 1))
                 for (lo, _), n, k, o in zip(padding, lhs_d, rhs_d, out_d, strict=True))


def _swap01(spec):
    return (spec[1], spec[0]) + tuple(spec[2:])


def _axis_into(src: int, dst: int, x):
    """Axis ``src`` merged into axis ``dst`` (numbered without src) as its major part."""
    nd = len(batching.shape(x))
    perm = [i for i in range(nd) if i != src]
    perm.insert(dst, src)
    return _merge(transpose_p.bind(x, permutation=tuple(perm)), dst)


def _take(shape, axes):
    return tuple(shape[a] for a in axes)


def _as_dtype(x, dtype):
    """x converted to ``dtype`` (the transposes of a conv with a preferred_element_type
    convolve in the cotangent's dtype and return the operand's)."""
    if aval_of(x).dtype == dtype:
        return x
    return convert_element_type_p.bind(x, new_dtype=dtype, weak_type=False)


def _conv_transpose_lhs(ct, lhs_aval, rhs, *, window_strides, padding, lhs_dilation,
                        rhs_dilation, dimension_numbers, feature_group_count,
                        batch_group_count, precision=None, preferred_element_type=None):
    lspec, rspec, ospec = dimension_numbers
    rshape = batching.shape(rhs)
    groups = feature_group_count
    if feature_group_count > 1 or batch_group_count > 1:
        g = max(feature_group_count, batch_group_count)
        rhs = _axis_into(rspec[0], rspec[1], _split(rhs, rspec[0], (g, rshape[rspec[0]] // g)))
        groups = g
    rshape = batching.shape(rhs)
    pads = conv_vjp_lhs_padding(_take(lhs_aval.shape, lspec[2:]), _take(rshape, rspec[2:]),
                                window_strides, _take(batching.shape(ct), ospec[2:]), padding,
                                lhs_dilation, rhs_dilation)
    kernel = _as_dtype(rev_p.bind(rhs, dimensions=tuple(rspec[2:])), aval_of(ct).dtype)
    out = conv_general_dilated_p.bind(
        ct, kernel, window_strides=tuple(lhs_dilation), padding=pads,
        lhs_dilation=tuple(window_strides), rhs_dilation=tuple(rhs_dilation),
        dimension_numbers=ConvDimensionNumbers(ospec, _swap01(rspec), lspec),
        feature_group_count=groups, batch_group_count=1, precision=precision,
        preferred_element_type=preferred_element_type)
    if batch_group_count > 1:
        oshape = batching.shape(out)
        out = _axis_into(lspec[1], lspec[0], _split(out, lspec[1], (batch_group_count,
                                                                     oshape[lspec[1]] // batch_group_count)))
    return _as_dtype(out, lhs_aval.dtype)


def _conv_transpose_rhs(ct, lhs, rhs_aval, *, window_strides, padding, lhs_dilation,
                        rhs_dilation, dimension_numbers, feature_group_count,
                        batch_group_count, precision=None, preferred_element_type=None):
    lspec, rspec, ospec = dimension_numbers
    fgc, bgc = feature_group_count, batch_group_count
    if bgc > 1:
        fgc, bgc = bgc, 1
    elif fgc > 1:
        fgc, bgc = 1, fgc
    pads = _conv_vjp_rhs_padding(_take(batching.shape(lhs), lspec[2:]),
                                 _take(rhs_aval.shape, rspec[2:]), window_strides,
                                 _take(batching.shape(ct), ospec[2:]), padding, lhs_dilation,
                                 rhs_dilation)
    out = conv_general_dilated_p.bind(
        _as_dtype(lhs, aval_of(ct).dtype), ct, window_strides=tuple(rhs_dilation), padding=pads,
        lhs_dilation=tuple(lhs_dilation), rhs_dilation=tuple(window_strides),
        dimension_numbers=ConvDimensionNumbers(_swap01(lspec), _swap01(ospec), _swap01(rspec)),
        feature_group_count=fgc, batch_group_count=bgc, precision=precision,
        preferred_element_type=preferred_element_type)
    return _as_dtype(out, rhs_aval.dtype)


@conv_general_dilated_p.def_jvp
def _conv_jvp(primals, tangents, **params):
    (lhs, rhs), (tl, tr) = primals, tangents
    out = conv_general_dilated_p.bind(lhs, rhs, **params)
    terms = []
    if type(tl) is not Zero:
        terms.append(conv_general_dilated_p.bind(tl, rhs, **params))
    if type(tr) is not Zero:
        terms.append(conv_general_dilated_p.bind(lhs, tr, **params))
    t = terms[0] if len(terms) == 1 else add_p.bind(*terms)
    return out, t


@conv_general_dilated_p.def_transpose
def _conv_transpose(ct, lhs, rhs, **params):
    if is_undefined_primal(lhs) and is_undefined_primal(rhs):
        raise TypeError("conv_general_dilated is nonlinear in both operands: it cannot be "
                        "transposed (this is a bug in a jvp rule that convolves two tangents)")
    if type(ct) is Zero:
        return [None if not is_undefined_primal(lhs) else Zero(lhs.aval),
                None if not is_undefined_primal(rhs) else Zero(rhs.aval)]
    if is_undefined_primal(lhs):
        return [_conv_transpose_lhs(ct, lhs.aval, rhs, **params), None]
    if 0 in aval_of(ct).shape:  # the cotangent would be a window of size 0 (invalid)
        return [None, Zero(rhs.aval)]
    return [None, _conv_transpose_rhs(ct, lhs, rhs.aval, **params)]
