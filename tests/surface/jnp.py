"""jax.numpy: every public name compared with JAX on a few sampled operands (float32, int32,
bool, complex64 where the function takes them), or accounted for elsewhere/absent."""
import numpy as np

from surface.common import c

JAX, OURS, REQUIRED = "jax.numpy", "frontend.numpy", 0.95

XF = np.linspace(-0.9, 0.9, 12, dtype=np.float32).reshape(3, 4)
YF = np.linspace(0.3, 2.0, 12, dtype=np.float32).reshape(3, 4)[::-1].copy()
XI = np.arange(-5, 7, dtype=np.int32).reshape(3, 4)
YI = np.array([3, -2, 1, 4] * 3, dtype=np.int32).reshape(3, 4)
XB = (np.arange(12) % 3 == 0).reshape(3, 4)
YB = (np.arange(12) % 2 == 0).reshape(3, 4)
XC = (XF + 1j * YF).astype(np.complex64)
V = np.array([0.5, -1.0, 2.0, 3.5, 0.0], np.float32)
W = np.array([1.0, 2.0, -1.0], np.float32)
IDX = np.array([2, 0, 1], np.int32)
NANS = np.where(XB, np.nan, XF).astype(np.float32)
SQ = np.array([[2.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 4.0]], np.float32)
U = [XF, XI, XB, XC]
B = [(XF, YF), (XI, YI), (XB, YB), (XC, XC)]


def _fail(ours, theirs):
    raise AssertionError(f"{ours} vs JAX {theirs}")


def _each(names, operands):
    return {n: [c(*(o if isinstance(o, tuple) else (o,))) for o in operands] for n in names}


CASES = {}
# elementwise and reductions over every dtype (the probe of all four passes in JAX)
CASES.update(_each("""acos acosh all amax amin angle any arccos arccosh arcsin arcsinh arctan
    arctanh argsort atan atanh asin asinh atleast_1d atleast_2d atleast_3d average
    broadcast_arrays column_stack concat concatenate conj conjugate copy cos cosh count_nonzero
    cumprod cumsum deg2rad degrees diag diagflat diagonal diff dstack empty_like exp exp2 expm1
    flip fliplr flipud hstack imag isfinite isinf isnan lexsort log log10 log1p log2
    logical_not matrix_transpose max mean min nan_to_num nanmax nanmean nanmin nanprod nanstd
    nansum nanvar ndim ones_like positive prod rad2deg radians ravel real reciprocal rot90
    shape sin sinh size sort sqrt squeeze stack std sum tan tanh trace transpose tril
    tril_indices_from triu triu_indices_from var vstack zeros_like""".split(), U))
CASES.update(_each("ediff1d negative ptp".split(), U[:2] + U[3:]))
CASES.update(_each("argmax argmin cbrt ceil clip floor frexp isneginf isposinf median nanmedian "
                   "signbit".split(), U[:3]))
CASES.update(_each("bitwise_not invert".split(), [XI, XB]))
CASES.update(_each("""add allclose divide equal full_like greater greater_equal inner isclose less
    less_equal logaddexp logaddexp2 logical_and logical_or logical_xor maximum minimum multiply
    not_equal outer select tensordot true_divide vdot""".split(), B))
CASES.update(_each("arctan2 copysign divmod floor_divide hypot mod nextafter remainder".split(),
                   B[:3]))
CASES.update(_each("bitwise_and bitwise_or bitwise_xor ldexp".split(), B[1:3]))
CASES.update(_each("fmod".split(), B[:2]))
CASES.update(_each("kron subtract".split(), [B[0], B[1], B[3]]))
CASES.update({
    "abs": [c(XF), c(XI), c(XC)],
    "absolute": [c(XF), c(XI), c(XC)],
    "sign": [c(XF), c(XI), c(XC)],
    "square": [c(XF), c(XI), c(XC)],
    "round": [c(XF), c(XI), c(XF, 1)],
    "around": [c(XF), c(XI)],
    "power": [c(XF, YF), c(XC, XC), c(XF, 2), c(XI, 3), c(XI, YI), c(XB, YB),
              c(np.int32([1, -1, 2, -1, 3, 0]), np.int32([-3, -1, -1, -2, -4, -1]))],
    "take": [c(XI, IDX), c(XF, IDX, axis=1)],
    "arange": [c(5), c(1, 7, 2), c(0.5, 3.0, 0.5), c(4, dtype=np.float32)],
    "argwhere": [c(XB, _jit=False), c(XB, size=6)],
    "array_split": [c(XF, 2, axis=1), c(V, [1, 3])],
    "astype": [c(XF, np.int32), c(XI, np.float32), c(XB, np.int8)],
    "bincount": [c(np.array([0, 1, 1, 3]), _jit=False), c(np.array([0, 1, 1, 3]), length=5)],
    "broadcast_shapes": [c((3, 1), (1, 4)), c((2, 3), (4,), _raises=ValueError)],
    "broadcast_to": [c(W, (2, 3)), c(XI, (2, 3, 4))],
    "convolve": [c(V, W), c(V, W, mode="same")],
    "correlate": [c(V, W), c(V, W, mode="full")],
    "dot": [c(XF, YF.T), c(XI, YI.T), c(W, W)],
    "einsum": [c("ij,kj->ik", XF, YF), c("ii", SQ)],
    "empty": [c((2, 3)), c(4, dtype=np.int32)],
    "expand_dims": [c(XF, 0), c(XI, (0, 2))],
    "eye": [c(3), c(3, 4, 1), c(2, dtype=np.int32)],
    "flatnonzero": [c(XB, _jit=False), c(XB, size=5, fill_value=-1)],
    "full": [c((2, 3), 1.5), c(3, 2, dtype=np.int8)],
    "geomspace": [c(1.0, 100.0, 5), c(2, 32, 5, dtype=np.float32)],
    "identity": [c(3), c(2, dtype=np.int32)],
    "interp": [c(np.array([0.5, 1.5, 2.5], np.float32), np.arange(4.0, dtype=np.float32), W.repeat(2)[:4])],
    "isdtype": [c(np.float32, "real floating"), c(np.int32, ("bool", "integral"))],
    "issubdtype": [c(np.float32, np.floating), c(np.int32, np.floating)],
    "linspace": [c(0.0, 1.0, 5), c(0, 10, 4, endpoint=False), c(1, 2, 3, dtype=np.int32)],
    "logspace": [c(0.0, 2.0, 5), c(1, 2, 3, base=2.0)],
    "matmul": [c(XF, YF.T), c(XI, YI.T), c(XC, XC.T)],
    "meshgrid": [c(V, W), c(V, W, indexing="ij")],
    "moveaxis": [c(XF, 0, 1)],
    "nanpercentile": [c(NANS, 50.0), c(NANS, 25.0, axis=1)],
    "nanquantile": [c(NANS, 0.5), c(NANS, 0.25, axis=1)],
    "nonzero": [c(XB, _jit=False), c(XB, size=5)],
    "ones": [c((2, 3)), c(4, dtype=np.bool_)],
    "pad": [c(XF, 1), c(XI, ((1, 0), (0, 2)), mode="reflect")],
    "percentile": [c(XF, 50.0), c(XI, 25.0, axis=1)],
    "permute_dims": [c(XF, (1, 0))],
    "quantile": [c(XF, 0.5), c(XF, np.array([0.1, 0.9], np.float32), axis=0)],
    "repeat": [c(XF, 2), c(XI, 2, axis=1)],
    "reshape": [c(XF, (4, 3)), c(XI, (-1,))],
    "result_type": [c(np.float32, np.int32), c(XI, 1.0, _jit=False)],
    "roll": [c(XF, 1), c(XI, (1, -1), (0, 1))],
    "searchsorted": [c(np.sort(V), W), c(np.sort(V), W, side="right")],
    "split": [c(XF, 3), c(V, [2])],
    "swapaxes": [c(XF, 0, 1)],
    "take_along_axis": [c(XF, np.argsort(XF, axis=1), axis=1)],
    "tile": [c(W, 2), c(XI, (2, 1))],
    "tri": [c(3), c(3, 4, -1, dtype=np.int32)],
    "tril_indices": [c(3), c(4, 1)],
    "triu_indices": [c(3), c(4, -1)],
    "unique": [c(XI, _jit=False), c(XI, size=12, fill_value=0)],
    "where": [c(XB, XF, YF), c(XB, _jit=False)],
    "zeros": [c((2, 3)), c(4, dtype=np.int32)],
    "array": [c(XF), c(XI, dtype=np.float32), c([1, 2.5]), c(3)],
    "asarray": [c(XF), c(XB, dtype=np.int32), c([[1, 2], [3, 4]])],
    "piecewise": [c(V, [V < 0, V > 2], [-1.0, lambda x: x * 2, 0.0])],
})
A1 = np.array([3, 1, 2, 3, 5, 1], np.int32)
A2 = np.array([2, 5, 7, 2], np.int32)
P5 = np.array([5, 1, 4, 2, 3], np.float32)
CASES.update(_each("fabs i0 rint sinc spacing trunc".split(), U[:3]))
CASES.update(_each("iscomplex isreal iscomplexobj isrealobj isscalar iterable modf "
                   "sort_complex".split(), U))
CASES.update(_each("float_power fmax fmin heaviside pow atan2".split(), B[:3]))
CASES.update(_each("gcd lcm left_shift right_shift bitwise_left_shift "
                   "bitwise_right_shift".split(), [(XI, YI), (XI, 3)]))
CASES.update(_each("bitwise_count bitwise_invert".split(), [XI, XB]))
CASES.update({
    "fabs": [c(XF), c(XI), c(XC, _raises=TypeError)],
    "gcd": [c(XI, YI), c(XI, 4), c(XF, YF, _raises=ValueError)],
    "left_shift": [c(XI, np.abs(YI)), c(XB, YB), c(XF, 1, _raises=TypeError)],
    "right_shift": [c(XI, np.abs(YI)), c(np.uint8([200, 7]), 1)],
    "isscalar": [c(1, _jit=False), c(np.float32(1), _jit=False), c(XF, _jit=False),
                 c(np.ones(()), _jit=False), c([1], _jit=False)],
    "iterable": [c(XF, _jit=False), c(1, _jit=False)],
    "iscomplexobj": [c(XF, _jit=False), c(XC, _jit=False)],
    "isrealobj": [c(XF, _jit=False), c(XC, _jit=False)],
    "isin": [c(A1, A2), c(XI, A2, invert=True)],
    "intersect1d": [c(A1, A2, _jit=False), c(A1, A2, size=4), c(A1, A2, size=4, fill_value=-1),
                    c(A1, A2, return_indices=True, _jit=False)],
    "setdiff1d": [c(A1, A2, _jit=False), c(A1, A2, size=4)],
    "setxor1d": [c(A1, A2, _jit=False), c(A1, A2, size=6)],
    "union1d": [c(A1, A2, _jit=False), c(A1, A2, size=8)],
    "unique_all": [c(A1, _jit=False), c(A1, size=5)],
    "unique_counts": [c(XI, _jit=False)],
    "unique_inverse": [c(XI, _jit=False)],
    "unique_values": [c(XF, _jit=False), c(A1, size=6)],
    "partition": [c(P5, 2), c(XF, 1, axis=0), c(XB, 1, _raises=TypeError)],
    "modf": [c(XF), c(XI), c(XB), c(XC, _raises=TypeError)],
    "argpartition": [c(P5, 2), c(XI, 1, axis=0)],
    "nanargmax": [c(NANS, axis=1), c(NANS), c(XI, axis=0, keepdims=True)],
    "nanargmin": [c(NANS, axis=1), c(NANS)],
    "nancumsum": [c(NANS), c(XI, axis=0)],
    "nancumprod": [c(NANS, axis=1)],
    "cumulative_sum": [c(A1, include_initial=True), c(XI, axis=1), c(XB, axis=0),
                       c(XI, _raises=ValueError)],
    "cumulative_prod": [c(XI, axis=1), c(XF, axis=0, include_initial=True)],
})
CASES.update({
    "bartlett": [c(5), c(1), c(0)],
    "blackman": [c(7), c(1)],
    "hamming": [c(6), c(2.5)],
    "hanning": [c(5)],
    "kaiser": [c(6, 3.0), c(5, np.float32(0.5))],
    "ix_": [c(A1, A2), c(XB[0], _raises=NotImplementedError)],
    "indices": [c((2, 3)), c((2, 3), sparse=True), c((2, 3), dtype=np.int8)],
    "diag_indices": [c(3), c(2, 3)],
    "diag_indices_from": [c(SQ)],
    "mask_indices": [c(3, np.triu), c(3, np.tril, 1)],
    "ravel_multi_index": [c((np.int32([1, 2]), np.int32([0, 3])), (3, 4), _jit=False),
                          c((np.int32([1, 2]), np.int32([0, 5])), (3, 4), mode="clip"),
                          c((np.int32([1, 2]), np.int32([0, 5])), (3, 4), mode="wrap", order="F"),
                          c((np.int32([1, 2]), np.int32([0, 5])), (3, 4), _raises=ValueError)],
    "unravel_index": [c(np.int32([0, 5, 11, 13, -1]), (3, 4)), c(7, (3, 4))],
    "fill_diagonal": [c(XF, 5.0, inplace=False), c(np.zeros((2, 2, 2), np.int32), 4, inplace=False),
                      c(XF, 5.0, _raises=NotImplementedError)],
})
PA, PB = np.array([1, 2, 3], np.int32), np.array([4, 5], np.int32)
XS = np.arange(6.0, dtype=np.float32)
YS = (XS ** 2 - 2 * XS + 0.5).astype(np.float32)
H = np.array([1, 2, 2, 3, 7, 5], np.int32)
X4 = np.float32([0.1, 0.5, 0.3, 0.9])
CASES.update({
    "polyval": [c(PA, 2), c(PA, PB), c(W, XF), c(np.ones((3, 2), np.float32), PB)],
    "polyadd": [c(PA, PB), c(W, PA)],
    "polysub": [c(PB, PA)],
    "polymul": [c(PA, PB), c(np.array([0, 1]), PB, trim_leading_zeros=True, _jit=False)],
    "polyder": [c(PA), c(PA, 2), c(W, 0)],
    "polyint": [c(PA), c(PA, 2, k=np.array([1, 2])), c(W, 1, k=3.0)],
    "polydiv": [c(PA, PB), c(W, np.float32([2.0]))],
    "vander": [c(PB), c(W, 4, increasing=True), c(XB[0], _raises=TypeError)],
    "polyfit": [c(XS, YS, 2), c(XS, YS, 2, w=XS + 1), c(XS, np.stack([YS, XS], 1), 1),
                c(XS, YS, 2, full=True), c(XS, YS, 1, cov=True)],
    "poly": [c(W), c(PA), c(SQ)],
    "roots": [c(W, _jit=False), c(np.float32([0, 0, 1, -3, 2]), _jit=False),
              c(np.float32([1, 0, 1]), _jit=False), c(PA, _jit=False)],
    "trim_zeros": [c(np.int32([0, 0, 1, 2, 0]), _jit=False),
                   c(np.int32([0, 0, 1, 2, 0]), "b", _jit=False),
                   c(np.int32([[0, 0, 0], [0, 1, 0]]), _jit=False)],
    "digitize": [c(X4, np.float32([0.2, 0.6])), c(H, np.int32([5, 2])),
                 c(H, np.int32([5, 2]), right=True)],
    "histogram_bin_edges": [c(H, 3), c(XF, 4, range=(-1, 1)), c(np.ones(3, np.float32), 2)],
    "histogram": [c(H, 3), c(H, 3, density=True), c(X4, np.float32([0, 0.5, 1]), weights=X4),
                  c(XF)],
    "histogram2d": [c(X4, X4, 2), c(X4, X4[::-1].copy(), [2, 3], weights=X4),
                    c(X4, X4, 2, density=True)],
    "histogramdd": [c(np.stack([X4, X4], 1), 2),
                    c(np.stack([X4, X4, X4], 1), (2, 3, 1), range=[(0, 1), (0, 1), None])],
    "cov": [c(np.stack([X4, X4 * 2])), c(X4), c(H), c(H, ddof=3), c(XF, rowvar=False),
            c(XF, YF), c(XF, bias=True), c(X4, fweights=np.int32([1, 2, 1, 3])),
            c(X4, fweights=np.int32([1, 2, 1, 3]), aweights=X4), c(XC)],
    "corrcoef": [c(np.stack([X4, X4 ** 2])), c(XF), c(X4), c(XC)],
})
CASES.update({
    "gradient": [c(X4), c(np.stack([X4, X4 * 2]), 2.0), c(X4, X4), c(XF, axis=1),
                 c(XF, 1.0, np.float32([0, 1, 3, 4])), c(X4, edge_order=2, _raises=NotImplementedError)],
    "trapezoid": [c(X4), c(X4, X4), c(XF, dx=0.5, axis=0), c(XI)],
    "unwrap": [c(np.float32([0, 3, 6.5, 1])), c(XF * 9, axis=0), c(XI * 2, discont=4)],
    "fromfunction": [c(lambda i, k: i + k, (2, 3)), c(lambda i, k: i * 3 - k, (2, 3), dtype=int)],
    "apply_along_axis": [c(lambda v: v.sum(), 1, XF), c(lambda v: v[::-1] * 2, 0, XF),
                         c(lambda v: v[:, None] * v[None, :], 1, XF)],
    "apply_over_axes": [c(lambda a, ax: a.sum(axis=ax), np.ones((2, 3, 4), np.float32), (0, 2))],
})
A23 = np.arange(6, dtype=np.int32).reshape(2, 3)
U8 = np.uint8([[5, 200], [1, 2]])
CASES.update({
    "append": [c(A23, 1), c(A23, A23, axis=0)],
    "delete": [c(A23, 1), c(A23, np.int32([0, 2]), axis=1, _jit=False),
               c(A23, slice(0, 2), axis=1), c(A23, -1, axis=0)],
    "insert": [c(A23, 1, 9), c(A23, np.int32([1, 2]), np.int32([7, 8]), axis=1, _jit=False),
               c(A23, 1, 9.5, axis=0), c(A23, 3, np.int32([[1], [2]]), axis=1),
               c(A23, slice(0, 2), 0, axis=1), c(A23, 1, np.int32([7, 8, 9]), axis=0)],
    "resize": [c(A23, (3, 3)), c(A23, 4)],
    "rollaxis": [c(np.ones((2, 3, 4), np.float32), 2), c(np.ones((2, 3, 4), np.float32), 0, 3),
                 c(np.ones((2, 3, 4), np.float32), 1, -1)],
    "block": [c([[A23, A23], [A23, A23]]), c([A23, A23[:, :1]]), c([[1, 2], [3, 4]]), c([W, W])],
    "choose": [c(np.int32([0, 1, 0]), [np.int32([1, 2, 3]), np.int32([4, 5, 6])], _jit=False),
               c(np.int32([0, 3, 0]), [np.int32([1, 2, 3]), np.int32([4, 5, 6])], mode="clip"),
               c(np.int32([0, 3, -1]), [np.int32([1, 2, 3]), 4.5], mode="wrap")],
    "compress": [c(np.array([True, False, True]), A23, axis=1, _jit=False),
                 c(np.array([True, False]), A23, _jit=False),
                 c(np.array([True, False, True]), A23, axis=1, size=3, fill_value=-1)],
    "extract": [c(A23 > 2, A23, _jit=False), c(A23 > 2, A23, size=5)],
    "place": [c(A23, A23 > 2, np.int32([9, 8]), inplace=False),
              c(A23, A23 > 2, np.int32([9, 8]), _raises=ValueError)],
    "put": [c(A23, np.int32([0, 5]), np.int32([9, 8]), inplace=False),
            c(A23, np.int32([0, 7]), 3, inplace=False, mode="clip"),
            c(A23, np.int32([0, 7]), np.int32([1, 2]), inplace=False, mode="wrap")],
    "put_along_axis": [c(A23, np.int32([[0], [1]]), 9, axis=1, inplace=False),
                       c(A23, np.int32([[0, 2], [-1, 1]]), np.int32([[5, 6], [7, 8]]), axis=1,
                         inplace=False),
                       c(A23, np.int32([[1, 0, 1]]), 0, axis=0, inplace=False)],
    "packbits": [c(np.array([1, 0, 1, 1, 0, 0, 0, 1, 1])), c(A23 > 2, axis=1, bitorder="little"),
                 c(XB, axis=0), c(XI), c(XF, _raises=TypeError)],
    "unpackbits": [c(np.uint8([5, 200])), c(np.uint8([5, 200]), count=3, bitorder="little"),
                   c(U8, axis=1), c(U8, axis=0, count=-2), c(np.uint8([5]), count=10)],
    "array_equal": [c(A23, A23), c(A23, A23[:1]), c(NANS, NANS, equal_nan=True), c(NANS, NANS)],
    "array_equiv": [c(A23, A23[:1]), c(A23[:1], A23), c(XF, A23, _raises=TypeError)],
    "matvec": [c(np.ones((2, 3, 4), np.float32), np.ones(4, np.float32)), c(XF, V[:4])],
    "vecmat": [c(np.ones(3, np.float32), np.ones((3, 4), np.float32)), c(XC[0, :3], XC[:, :3])],
    "vecdot": [c(np.ones((2, 3), np.float32), np.ones(3, np.float32)), c(XC, XC),
               c(XF, YF, axis=0), c(XI, YI)],
    "cross": [c(np.float32([1, 2, 3]), np.float32([4, 5, 6])), c(np.float32([1, 2]), np.float32([4, 5])),
              c(np.float32([1, 2]), np.float32([4, 5, 6])), c(XF[:, :3], YF[:, :3]),
              c(SQ, YI[:3, :3], axisa=0, axisb=1, axisc=0)],
    "unstack": [c(A23), c(A23, axis=1)],
    "frombuffer": [c(b"\x01\x02\x03\x04", dtype=np.uint8), c(np.float32([1, 2]).tobytes())],
    "fromstring": [c("1 2 3", sep=" ", dtype=np.int32)],
    "hsplit": [c(A23, 3), c(W, 3)],
    "vsplit": [c(A23, 2), c(W, 3)],
    "dsplit": [c(np.ones((2, 2, 4), np.float32), 2)],
})
CASES.update({
    "promote_types": [c(np.int64, np.int32), c(np.int8, float), c("uint8", np.int8),
                      c(np.float16, "bfloat16")],
    "can_cast": [c("bfloat16", np.float16, "same_kind"), c(np.int8, "bfloat16"),
                 c(np.int32, np.float32), c(np.float32, np.int32, "unsafe")],
    "einsum_path": [c("ij,jk", np.ones((2, 3)), np.ones((3, 4)), _jit=False,
                      _compare=lambda o, t: o[0] == t[0] or _fail(o[0], t[0]))],
})
SCALAR_TYPES = """bool bfloat16 bool_ cdouble complex128 complex64 complex_ csingle double float16
    float32 float64 float_ int16 int32 int64 int8 int_ single uint uint16 uint32 uint64
    uint8""".split()
CASES.update({n: [c(XF), c(2)] for n in SCALAR_TYPES})
ELSEWHERE = {
    **{n: "test_numpy_surface.py::test_io_and_printing_match_jax" for n in
       "save savez load array_str array_repr printoptions get_printoptions "
       "set_printoptions".split()},
    **{n: "test_numpy_surface.py::test_ufunc_objects_match_jax" for n in ("ufunc", "frompyfunc")},
    **{n: "test_numpy_surface.py::test_dtype_classes_match_jax" for n in
       "ComplexWarning character flexible object_".split()},
    "vectorize": "test_numpy_surface.py::test_vectorize_matches_jax",
    **{n: "test_numpy_surface.py::test_constants_match_jax" for n in "e pi inf nan newaxis euler_gamma".split()},
    **{n: "test_numpy_surface.py::test_dtype_classes_match_jax" for n in
       "complexfloating floating generic inexact integer number signedinteger unsignedinteger "
       "dtype ndarray finfo iinfo".split()},
    **{n: "test_numpy_surface.py::test_index_tricks_match_jax" for n in
       "r_ c_ mgrid ogrid s_ index_exp".split()},
    "fft": "test_surface.py::test_every_name_is_accounted_for_once",
    "linalg": "test_surface.py::test_every_name_is_accounted_for_once",
    "from_dlpack": "test_interop.py::test_from_dlpack_errors_and_copies",
}
NARROW_TYPES = """float4_e2m1fn float8_e3m4 float8_e4m3 float8_e4m3b11fnuz float8_e4m3fn
    float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz float8_e8m0fnu int4 uint4""".split()
# (more of them in test_narrow_dtypes.py; positive operands: e8m0fnu has no sign)
CASES.update({n: [c(np.abs(XF) + 0.25), c(2)] for n in NARROW_TYPES})
IMPURE = "JAX's own function raises NotImplementedError (it may be non-pure under jit)"
ABSENT = {}
ABSENT.update({n: "StableHLO has no 1-bit integer type: JAX lowers int1 as i1 (bool's type) and "
               "uint1 to tensor<ui1>, which the StableHLO verifier rejects"
               for n in ("int1", "uint1")})
ABSENT.update({n: "XLA CPU cannot run 2-bit integers: a concatenate aborts the process "
               "(ir_array.cc 'Check failed: bit_offset != nullptr') and sort returns wrong "
               "values, for JAX's arrays too" for n in ("int2", "uint2")})
ABSENT.update({n: "XLA CPU has no 6-bit floats: JAX's own arrays of them fail with 'Invalid "
               f"XLA PrimitiveType: {k}'" for n, k in (("float6_e2m3fn", "36 (F6E2M3FN)"),
                                                       ("float6_e3m2fn", "35 (F6E3M2FN)"))})
ABSENT.update({"fromfile": IMPURE, "fromiter": IMPURE})
