"""Convolution lax functions: conv_general_dilated (dimension numbers as strings or axis
tuples, padding as 'SAME'/'SAME_LOWER'/'VALID' or (low, high) pairs), conv,
conv_with_general_padding, conv_dimension_numbers, padtype_to_pads."""
from __future__ import annotations

import math
import operator

import numpy as np

from ..core import dtypes
from ..core.ir import aval_of
from ..primitives.conv import ConvDimensionNumbers, conv_general_dilated_p
from ._convert import as_operand
from ._linalg import canonicalize_precision, dot_general
from ._shape import transpose

ConvGeneralDilatedDimensionNumbers = tuple[str, str, str] | ConvDimensionNumbers | None


def padtype_to_pads(in_shape, window_shape, window_strides, padding) -> list:
    """(low, high) padding per spatial dim for 'VALID', 'SAME' (odd extra at the end) or
    'SAME_LOWER' (odd extra at the start); 'SAME' keeps ceil(in / stride) outputs."""
    kind = padding.upper() if isinstance(padding, str) else getattr(padding, "name", padding)
    if kind not in ("VALID", "SAME", "SAME_LOWER"):
        raise RuntimeError(f"Unrecognized padding type: expected 'VALID', 'SAME', or "
                           f"'SAME_LOWER', got {padding}.")
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    pads = []
    for n, k, s in zip(in_shape, window_shape, window_strides, strict=True):
        total = max((-(-n // s) - 1) * s + k - n, 0)
        lo = total // 2 if kind == "SAME" else total - total // 2
        pads.append((lo, total - lo))
    return pads


def _spec_perm(spec: str, pair, rhs_spec: str) -> tuple:
    """(axis of pair[0], axis of pair[1], spatial axes in the rhs spec's letter order)."""
    spatial = [i for i, c in enumerate(spec) if c not in pair]
    if spec is not rhs_spec:
        spatial.sort(key=lambda i: rhs_spec.index(spec[i]))
    return (spec.index(pair[0]), spec.index(pair[1])) + tuple(spatial)


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
    """ConvDimensionNumbers from None (NCHW, OIHW, NCHW), a ConvDimensionNumbers (or any
    triple of axis tuples) or three strings such as ('NHWC', 'HWIO', 'NHWC')."""
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if hasattr(dimension_numbers, "lhs_spec"):  # e.g. JAX's own namedtuple
        return ConvDimensionNumbers(*(tuple(map(int, s)) for s in dimension_numbers))
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError(f"convolution requires lhs and rhs ndim to be equal, got "
                        f"{len(lhs_shape)} and {len(rhs_shape)}.")
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if not isinstance(dimension_numbers, (list, tuple)):
        raise TypeError(f"convolution dimension_numbers must be tuple/list or None, got "
                        f"{type(dimension_numbers)}.")
    if len(dimension_numbers) != 3:
        raise TypeError(f"convolution dimension_numbers list/tuple must be length 3, got "
                        f"{len(dimension_numbers)}.")
    if all(isinstance(s, (tuple, list)) for s in dimension_numbers):
        return ConvDimensionNumbers(*(tuple(map(int, s)) for s in dimension_numbers))
    if not all(isinstance(s, str) for s in dimension_numbers):
        raise TypeError(f"convolution dimension_numbers elements must be strings, got "
                        f"{tuple(map(type, dimension_numbers))}.")
    for i, s in enumerate(dimension_numbers):
        if len(s) != len(lhs_shape):
            raise TypeError(f"convolution dimension_numbers[{i}] must have len equal to the "
                            f"ndim of lhs and rhs, got {len(s)} for lhs and rhs shapes "
                            f"{tuple(lhs_shape)} and {tuple(rhs_shape)}.")
    pairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (a, b) in enumerate(pairs):
        s = dimension_numbers[i]
        if not s.count(a) == s.count(b) == 1:
            raise TypeError(f"convolution dimension_numbers[{i}] must contain the characters "
                            f"'{a}' and '{b}' exactly once, got {s}.")
        if len(s) != len(set(s)):
            raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate "
                            f"characters, got {s}.")
    lhs_s, rhs_s, out_s = dimension_numbers
    if not (set(lhs_s) - {"N", "C"} == set(rhs_s) - {"O", "I"} == set(out_s) - {"N", "C"}):
        raise TypeError("convolution dimension_numbers elements must each have the same set "
                        f"of spatial characters, got {tuple(dimension_numbers)}.")
    return ConvDimensionNumbers(_spec_perm(lhs_s, pairs[0], rhs_s),
                                _spec_perm(rhs_s, pairs[1], rhs_s),
                                _spec_perm(out_s, pairs[2], rhs_s))


def _ints(name, xs, n) -> tuple:
    """One integer per spatial dimension (``n`` of them); None: all ones."""
    if xs is None:
        return (1,) * n
    try:
        out = tuple(operator.index(v) for v in xs)
    except TypeError:
        raise TypeError(f"conv_general_dilated {name} must be a sequence of integers, got "
                        f"{xs!r}") from None
    if len(out) != n:
        if name == "window_strides":  # (JAX's wording)
            raise ValueError("conv_general_dilated window and window_strides must have the same "
                             f"number of dimensions, but got {n} and {len(out)}")
        raise ValueError(f"conv_general_dilated {name} must have one entry per spatial "
                         f"dimension ({n}), got {xs!r}")
    return out


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None,
                         rhs_dilation=None, dimension_numbers=None, feature_group_count=1,
                         batch_group_count=1, precision=None, preferred_element_type=None):
    """General dilated convolution (``stablehlo.convolution``).

    >>> import numpy as np
    >>> from frontend import lax
    >>> x = np.ones((1, 3, 8, 8), np.float32)      # NCHW
    >>> w = np.ones((4, 3, 3, 3), np.float32)      # OIHW
    >>> lax.conv_general_dilated(x, w, (1, 1), "SAME").shape
    (1, 4, 8, 8)
    """
    lhs, rhs = as_operand(lhs), as_operand(rhs)
    la, ra = aval_of(lhs), aval_of(rhs)
    dn = conv_dimension_numbers(la.shape, ra.shape, dimension_numbers)
    nsp = la.ndim - 2
    strides = _ints("window_strides", window_strides, nsp)
    lhs_dil = _ints("lhs_dilation", lhs_dilation, nsp)
    rhs_dil = _ints("rhs_dilation", rhs_dilation, nsp)
    if isinstance(padding, str):
        if any(d != 1 for d in lhs_dil):
            raise ValueError("String padding is not implemented for transposed convolution "
                             "using this op. Please either exactly specify the required "
                             "padding or use conv_transpose.")
        window = [1 + d * (ra.shape[a] - 1) if ra.shape[a] else 0
                  for a, d in zip(dn.rhs_spec[2:], rhs_dil, strict=True)]
        pads = padtype_to_pads([la.shape[a] for a in dn.lhs_spec[2:]], window, strides, padding)
    else:
        try:
            pads = [(operator.index(lo), operator.index(hi)) for lo, hi in padding]
        except (ValueError, TypeError):
            raise ValueError("padding argument to conv_general_dilated should be a string or a "
                             f"sequence of (low, high) pairs, got {padding}") from None
    pref = None if preferred_element_type is None else \
        dtypes.canonicalize(np.dtype(preferred_element_type))
    return conv_general_dilated_p.bind(
        lhs, rhs, window_strides=strides, padding=tuple(tuple(p) for p in pads),
        lhs_dilation=lhs_dil, rhs_dilation=rhs_dil, dimension_numbers=dn,
        feature_group_count=operator.index(feature_group_count),
        batch_group_count=operator.index(batch_group_count),
        precision=canonicalize_precision(precision), preferred_element_type=pref)


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """Convolution of NCHW ``lhs`` with OIHW ``rhs`` (no dilation)."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                              precision=None, preferred_element_type=None):
    """Convolution of NCHW ``lhs`` with OIHW ``rhs`` with dilations."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                rhs_dilation=rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


def _window_out(size, window, stride, lo, hi) -> int:
    """Outputs of a strided window over ``size`` padded by (lo, hi) (0 when it does not fit)."""
    return max((size + lo + hi - window) // stride + 1, 0)


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1) -> tuple:
    """The NC... output shape of an NC... by OI... convolution (pads: pairs or a padding name)."""
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError(f"Wrong number of explicit pads for convolution: expected "
                        f"{len(lhs_shape) - 2}, got {len(pads)}.")
    space = tuple(_window_out(n, k, s, lo, hi) for n, k, s, (lo, hi)
                  in zip(lhs_shape[2:], rhs_shape[2:], strides, pads, strict=True))
    return (lhs_shape[0] // batch_group_count, rhs_shape[0]) + space


def conv_general_permutations(dimension_numbers) -> tuple:
    """The (lhs, rhs, out) axis permutations of three layout strings such as ('NHWC', 'HWIO',
    'NHWC') (each maps to batch/feature first, then the spatial axes)."""
    lhs, rhs, out = dimension_numbers
    if not all(isinstance(s, str) for s in dimension_numbers):
        raise TypeError(f"convolution dimension_numbers must be three strings, got "
                        f"{dimension_numbers}.")
    n = len(lhs)
    return tuple(conv_dimension_numbers((0,) * n, (0,) * len(rhs), (lhs, rhs, out)))


def _to_spec_order(shape, perm) -> tuple:
    return tuple(shape[i] for i in perm)


def _from_spec_order(shape, perm) -> tuple:
    out = [0] * len(perm)
    for i, p in enumerate(perm):
        out[p] = shape[i]
    return tuple(out)


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                             dimension_numbers) -> tuple:
    """conv_general_dilated's output shape for shapes laid out as ``dimension_numbers``."""
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    out = conv_shape_tuple(_to_spec_order(lhs_shape, dn.lhs_spec),
                           _to_spec_order(rhs_shape, dn.rhs_spec), window_strides, padding)
    return _from_spec_order(out, dn.out_spec)


def _transpose_pads(k: int, s: int, padding: str) -> tuple:
    """(low, high) padding of the lhs-dilated input that makes a transposed convolution with
    a kernel of (dilated) size k and stride s give 'SAME' (in * s) or 'VALID' sizes."""
    kind = padding.upper()
    if kind == "SAME":
        total, lo = k + s - 2, (k - 1 if s > k - 1 else -(-(k + s - 2) // 2))
    elif kind == "VALID":
        total, lo = k + s - 2 + max(k - s, 0), k - 1
    else:
        raise ValueError(f"Padding type {padding!r} not implemented for conv_transpose.")
    return lo, total - lo


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                               dimension_numbers) -> tuple:
    """conv_transpose's output shape for shapes laid out as ``dimension_numbers``."""
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    lhs = _to_spec_order(lhs_shape, dn.lhs_spec)
    rhs = _to_spec_order(rhs_shape, dn.rhs_spec)
    if isinstance(padding, str):
        padding = [_transpose_pads(k, s, padding) for k, s in zip(rhs[2:], window_strides,
                                                                    strict=True)]
    space = tuple((n - 1) * s - k + 2 + lo + hi for n, k, s, (lo, hi)
                  in zip(lhs[2:], rhs[2:], window_strides, padding, strict=True))
    return _from_spec_order((lhs[0], rhs[0]) + space, dn.out_spec)


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
                   transpose_kernel: bool = False, precision=None, preferred_element_type=None,
                   use_consistent_padding: bool = False):
    """lax.conv_transpose: the gradient-style (fractionally strided) convolution, i.e.
    conv_general_dilated with the input dilated by ``strides``; ``transpose_kernel`` flips the spatial axes and
    swaps the kernel's in/out axes. Default layouts are channels-last (NHWC, HWIO, NHWC).

    >>> import numpy as np
    >>> from frontend import lax
    >>> x, w = np.ones((1, 4, 4, 2), np.float32), np.ones((3, 3, 2, 5), np.float32)
    >>> lax.conv_transpose(x, w, (2, 2), "SAME").shape
    (1, 8, 8, 5)
    """
    if use_consistent_padding:
        raise NotImplementedError("conv_transpose(use_consistent_padding=True) is not "
                                  "implemented in vmaplab yet.")
    lhs, rhs = as_operand(lhs), as_operand(rhs)
    la, ra = aval_of(lhs), aval_of(rhs)
    nsp = la.ndim - 2
    if dimension_numbers is None:  # channels last, as JAX's: NHWC, HWIO, NHWC in 2-D
        letters = "".join(chr(ord("D") + i) for i in range(nsp))  # 'D', 'E', ... not N/C/I/O
        dimension_numbers = ("N" + letters + "C", letters + "IO", "N" + letters + "C")
    dn = conv_dimension_numbers(la.shape, ra.shape, dimension_numbers)
    k_space = [ra.shape[a] for a in dn.rhs_spec[2:]]
    rhs_dil = _ints("rhs_dilation", rhs_dilation, nsp)
    strides = _ints("window_strides", strides, nsp)
    if isinstance(padding, str):
        dilated = [(k - 1) * d + 1 for k, d in zip(k_space, rhs_dil, strict=True)]
        pads = [_transpose_pads(k, s, padding) for k, s in zip(dilated, strides, strict=True)]
    else:
        pads = padding
    if transpose_kernel:
        from ._shape import rev
        rhs = rev(rhs, dn.rhs_spec[2:])
        dn = ConvDimensionNumbers(dn.lhs_spec, (dn.rhs_spec[1], dn.rhs_spec[0]) + dn.rhs_spec[2:],
                                  dn.out_spec)
    return conv_general_dilated(lhs, rhs, (1,) * nsp, pads, lhs_dilation=strides,
                                rhs_dilation=rhs_dil, dimension_numbers=dn, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_general_dilated_patches(lhs, filter_shape, window_strides, padding, lhs_dilation=None,
                                 rhs_dilation=None, dimension_numbers=None, precision=None,
                                 preferred_element_type=None):
    """The patches a convolution with a ``filter_shape`` window sees, flattened into the
    output's feature dimension (channel-major: ``c * prod(filter_shape) + window index``), as
    ``jax.lax.conv_general_dilated_patches``: a grouped convolution with an identity kernel.

    >>> import numpy as np
    >>> from frontend import lax
    >>> lax.conv_general_dilated_patches(np.ones((1, 2, 5, 5), np.float32), (3, 3), (1, 1),
    ...                                  "VALID").shape
    (1, 18, 3, 3)
    """
    lhs = as_operand(lhs)
    la = aval_of(lhs)
    filter_shape = tuple(filter_shape)
    dn = conv_dimension_numbers(la.shape, (1, 1) + filter_shape, dimension_numbers)
    size = math.prod(filter_shape)
    n_channels = la.shape[dn.lhs_spec[1]]
    # kernel (c*size + k, 1, *filter): one output channel per (input channel, window position)
    eye = np.broadcast_to(np.eye(size, dtype=la.dtype), (n_channels, size, size))
    rhs = np.moveaxis(eye.reshape((n_channels * size, 1) + filter_shape), (0, 1),
                      (dn.rhs_spec[0], dn.rhs_spec[1]))
    return conv_general_dilated(
        lhs, np.ascontiguousarray(rhs), window_strides, padding, lhs_dilation, rhs_dilation,
        dimension_numbers, feature_group_count=n_channels,
        precision=None if precision is None else (precision, "DEFAULT"),
        preferred_element_type=preferred_element_type)


def conv_general_dilated_local(lhs, rhs, window_strides, padding, filter_shape,
                               lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
                               precision=None):
    """A convolution with a separate (unshared) kernel at each output position, as
    ``jax.lax.conv_general_dilated_local``: ``rhs``'s spatial axes are the output's, and its
    ``I`` axis holds the input channel and the window position together (channel-major).

    >>> import numpy as np
    >>> from frontend import lax
    >>> lax.conv_general_dilated_local(np.ones((1, 2, 5, 5), np.float32),
    ...                                np.ones((4, 18, 3, 3), np.float32), (1, 1), "VALID",
    ...                                (3, 3)).shape
    (1, 4, 3, 3)
    """
    c_prec = canonicalize_precision(precision)
    lhs_prec = None if c_prec is None else c_prec[0]
    patches = conv_general_dilated_patches(lhs, filter_shape, window_strides, padding,
                                           lhs_dilation, rhs_dilation, dimension_numbers,
                                           precision=lhs_prec)
    lhs = as_operand(lhs)
    dn = conv_dimension_numbers(aval_of(lhs).shape, (1, 1) + tuple(filter_shape),
                                dimension_numbers)
    rhs_spec, out_spec = dn.rhs_spec, dn.out_spec
    out_b = list(out_spec[2:])
    rhs_b = [rhs_spec[2:][i] for i in sorted(range(len(out_b)), key=lambda k: out_b[k])]
    dnums = (([out_spec[1]], [rhs_spec[1]]), (sorted(out_b), rhs_b))
    out = dot_general(patches, rhs, dnums, precision=precision)   # (*spatial, N, O)
    nsp = len(out_b)
    it = iter(range(nsp))
    return transpose(out, tuple(nsp if j == out_spec[0] else nsp + 1 if j == out_spec[1]
                                else next(it) for j in range(nsp + 2)))
