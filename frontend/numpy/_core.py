"""What every numpy-style function (with JAX's semantics) needs: asarray, dtype promotion, numpy broadcasting."""
from __future__ import annotations

import warnings

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.config import config
from ..core.ir import Literal, Tracer, aval_of, literal
from ..core.shape_poly import DimExpr
from ..device.array import Array, device_put, from_foreign, host_const
from ..lax._convert import convert
from ..sharding import PartitionSpec, get_mesh, resolve

_SCALARS = (bool, int, float, complex)
# (a symbolic dimension is a weakly typed int, as in JAX's shape-polymorphic tracing)
ArrayLike = (Array, Tracer, np.ndarray, np.generic, Literal, DimExpr) + _SCALARS


def is_array(x) -> bool:
    return isinstance(x, (Array, Tracer))


def _foreign(a):
    """A jax.Array / DLPack / ``__array__`` operand as an Array (others as they are)."""
    if isinstance(a, ArrayLike):
        return a
    f = from_foreign(a)
    return a if f is None else f


def check_arraylike(name: str, *args, argnames=None):
    for i, a in enumerate(args):
        if not isinstance(a, ArrayLike) and not _is_foreign(a):
            which = argnames[i] if argnames else f"argument {i}"
            raise TypeError(f"{name} requires ndarray or scalar arguments, got {type(a).__name__} "
                            f"at {which}.")


def _is_foreign(a) -> bool:
    return any(hasattr(a, m) for m in ("__jax_array__", "__dlpack__", "__array__"))


def no_out(what: str, out) -> None:
    """JAX's NotImplementedError for an ``out=`` argument (``what``: "jnp.round", ...)."""
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to {what} is not supported.")


def placed(out, device, out_sharding=None):
    """``out`` on ``device`` (a Device or Sharding; None: the default one) or with
    ``out_sharding`` (a Sharding, or a PartitionSpec of the context mesh), as JAX's
    ``device=``/``out_sharding=`` of the creation functions; under a trace, where XLA
    places it."""
    if out_sharding is not None:
        if device is not None:
            raise ValueError(f"Only one of `device` or `out_sharding` can be set. Got "
                             f"device={device} and out_sharding={out_sharding}")
        if isinstance(out_sharding, PartitionSpec) and get_mesh() is None:
            raise ValueError("Using PartitionSpec when you are not under a mesh context is "
                             "not allowed. Please pass a NamedSharding instance or enter into "
                             f"a mesh context via `jax.set_mesh`. Got {out_sharding}")
        device = resolve(out_sharding, "out_sharding")
    if device is None or isinstance(out, Tracer):
        return out
    return device_put(out, device)


def asarray(a, dtype=None, order=None, *, copy=None, device=None,
            out_sharding=None) -> Array | Tracer:
    """frontend.numpy.asarray: arrays pass through (converted when ``dtype`` differs); Python
    scalars, lists and numpy arrays become device Arrays (Python scalars weakly typed).

    As JAX's, the result never shares memory with a numpy (or other mutable) source, whatever
    ``copy`` says: writing to the source later leaves the Array as it was (zero-copy only on
    request: ``frontend.from_dlpack``, ``frontend.device_put``)."""
    if order is not None and order != "K":
        raise NotImplementedError("Only implemented for order='K'")
    if device is not None or out_sharding is not None:
        return placed(asarray(a, dtype), device, out_sharding)
    if dtype is not None:
        dtype = dtypes.canonicalize(np.dtype(dtype))
    if isinstance(a, (Array, Tracer)):
        return a if dtype is None or a.dtype == dtype else astype(a, dtype)
    if isinstance(a, Literal):
        return convert(a, dtype or a.aval.dtype, a.aval.weak_type and dtype is None)
    if type(a) is DimExpr:
        return convert(a, dtype or dtypes.default_int(), dtype is None)
    if isinstance(a, _SCALARS):
        d, weak = dtypes.dtype_and_weak(a)
        if dtype is not None:
            d, weak = dtype, False
            _check_int_range(a, d)
        literal(a, d)  # (JAX's other wording for an int out of the weak type's range)
        return host_const(np.asarray(a, d), weak)
    if isinstance(a, (list, tuple)):
        return _from_sequence(a, dtype)
    if isinstance(a, (np.ndarray, np.generic)):
        d = dtypes.canonicalize(dtype or a.dtype)
        # a copy: the device buffer (zero-copy from an aligned host array) or the constant
        # of a trace must not see later writes to the user's array
        return host_const(np.array(a, d))
    f = from_foreign(a, copy=True)
    if f is not None:
        return asarray(f, dtype)
    raise TypeError(f"Value {a!r} of type {type(a).__name__} is not a valid array type")


def _check_int_range(x, dtype):
    """OverflowError (JAX's wording) for a Python int outside an integer dtype's range."""
    if type(x) is int and dtypes.is_int(dtype):
        info = dtypes.iinfo(dtype)
        if not info.min <= x <= info.max:
            raise OverflowError(f"Python integer {x} out of bounds for {np.dtype(dtype).name}")


def _from_sequence(a, dtype):
    """A (nested) list or tuple as one strongly typed array. Its dtype, unless given, is JAX's
    promotion of every leaf: Python scalars weak, numpy scalars and arrays and Arrays strong
    (so [0, np.float16(1)] is float16); a Python int out of that dtype's range is an
    OverflowError, as in JAX."""
    leaves = [_foreign(x) for x in _flat(a)]
    if dtype is None:
        dtype = dtypes.promote(*(dtypes.dtype_and_weak(x) for x in leaves))[0] if leaves else \
            dtypes.default_float()
    for x in leaves:
        _check_int_range(x, dtype)
    if any(isinstance(x, (Array, Tracer)) for x in leaves):
        return convert(_stack_rows([asarray(x, dtype) for x in a]), dtype, False)
    return host_const(np.asarray(a, dtype))


def _stack_rows(rows):
    """Equal-shape arrays stacked on a new leading axis (their dtypes promoted)."""
    rows = promote_args("asarray", *rows, broadcast=False)
    shapes = {aval_of(r).shape for r in rows}
    if len(shapes) != 1:
        raise ValueError(f"setting an array element with a sequence: the rows have shapes "
                         f"{sorted(shapes)}")
    shp = (1,) + shapes.pop()
    return lax.concatenate([lax.reshape(r, new_sizes=shp, dimensions=None) for r in rows],
                           dimension=0)


def _flat(a):
    for x in a:
        if isinstance(x, (list, tuple)):
            yield from _flat(x)
        else:
            yield x


def astype(x, dtype, /, *, copy=False, device=None):
    """x converted to ``dtype`` (a new array; ``copy`` and ``device`` as JAX's, for the
    default device)."""
    dtype = dtypes.canonicalize(np.dtype(dtype))
    if dtypes.is_complex(dtypes.dtype_and_weak(x)[0]) and (dtypes.is_int(dtype)
                                                            or dtypes.is_float(dtype)):
        warnings.warn("Casting from complex to real dtypes will soon raise a ValueError. Please "
                      "first use jnp.real or jnp.imag to take the real/imaginary component of "
                      "your input.", DeprecationWarning, stacklevel=2)
    return convert(x, dtype, False)


def broadcast_shapes(name: str, *shapes) -> tuple:
    """numpy broadcasting of shapes; JAX's error wording on a mismatch."""
    nd = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(nd):
        dims = {s[len(s) - nd + i] for s in shapes if len(s) - nd + i >= 0} - {1}
        if len(dims) > 1:
            raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                            + ", ".join(map(str, shapes)) + ".")
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def broadcast_to_shape(x, shape: tuple):
    """numpy broadcasting of x to ``shape`` with one broadcast_in_dim (none when equal)."""
    a = aval_of(x)
    if a.shape == tuple(shape):
        return x
    nd = len(shape)
    lead = nd - a.ndim
    if lead < 0 or any(s not in (1, t) for s, t in zip(a.shape, shape[lead:], strict=True)):
        raise ValueError(f"Incompatible shapes for broadcasting: {a.shape} and requested shape "
                         f"{tuple(shape)}")
    # size-1 dims stretch in the same broadcast_in_dim
    return lax.broadcast_in_dim(x, shape=tuple(shape), broadcast_dimensions=tuple(range(lead, nd)))


def promote_args(name: str, *args, broadcast: bool = True):
    """JAX's numpy promotion: one common dtype (weak scalars follow arrays) and, with
    ``broadcast``, one common shape (rank-0 operands stay rank 0: primitives broadcast them)."""
    if len(args) == 2:
        x, y = args
        # (a numpy array operand is a constant of the computation either way)
        if type(x) is np.ndarray:
            x = asarray(x)
        if type(y) is np.ndarray:
            y = asarray(y)
        fast = _promote_pair_fast(x, y, broadcast)
        if fast is not None:
            return fast
        x, y = _foreign(x), _foreign(y)
        if x is not args[0] or y is not args[1]:
            fast = _promote_pair_fast(x, y, broadcast)
            if fast is not None:
                return fast
        args = (x, y)
    elif len(args) == 1:
        args = (_foreign(args[0]),)
        if aval_of(args[0], host=False) is not None and not isinstance(args[0], Literal):
            return list(args)
    else:
        args = tuple(_foreign(a) for a in args)
    check_arraylike(name, *args)
    typed = [dtypes.dtype_and_weak(a) for a in args]
    d, weak = dtypes.promote(*typed)
    out = [convert(asarray(a) if isinstance(a, (np.ndarray, np.generic)) else a, d, weak)
           for a in args]
    if broadcast:
        shapes = [aval_of(a).shape for a in out]
        if config.numpy_rank_promotion != "allow":
            _check_rank_promotion(name, shapes)
        shp = broadcast_shapes(name, *shapes)
        out = [a if aval_of(a).shape in ((), shp) else broadcast_to_shape(a, shp) for a in out]
    return out


def _check_rank_promotion(name: str, shapes: list) -> None:
    """``numpy_rank_promotion``: "raise" or "warn" when operands of different nonzero ranks
    are broadcast together, with JAX's words."""
    if len({len(s) for s in shapes if s}) < 2:
        return
    shp = " ".join(map(str, shapes))
    url = "https://docs.jax.dev/en/latest/rank_promotion_warning.html"
    if config.numpy_rank_promotion == "raise":
        raise ValueError(f"Operands could not be broadcast together for {name} on shapes {shp} "
                         f"and with the config option jax_numpy_rank_promotion='raise'. For "
                         f"more information, see {url}.")
    warnings.warn(f"Following NumPy automatic rank promotion for {name} on shapes {shp}. Set "
                  f"the jax_numpy_rank_promotion config option to 'allow' to disable this "
                  f"warning; for more information, see {url}.", stacklevel=4)


def _promote_pair_fast(x, y, broadcast: bool = True):
    """The common cases of binary ops: two arrays of one dtype (and shape, when broadcasting),
    or an array and a Python scalar of a kind that does not change the array's dtype; None
    for everything else."""
    tx, ty = type(x), type(y)
    x_arr = tx is Array or isinstance(x, Tracer)
    y_arr = ty is Array or isinstance(y, Tracer)
    if x_arr and y_arr:
        ax, ay = x.aval, y.aval
        if ax.dtype == ay.dtype and ax.weak_type == ay.weak_type \
                and (ax.shape == ay.shape or not broadcast):
            return [x, y]
        return None
    if x_arr:
        arr, a, t, first = x, x.aval, ty, True
    elif y_arr:
        arr, a, t, first = y, y.aval, tx, False
    else:
        return None
    if a.weak_type or dtypes.canonicalize(a.dtype) != a.dtype:
        return None  # (64-bit data with 64-bit mode off: promotion narrows it, as JAX's)
    k = dtypes._kind(a.dtype)
    if (t is float and k in "fc") or (t is int and k in "iufc") or (t is bool and k == "b"):
        lit = literal(y if first else x, a.dtype, False)
        return [arr, lit] if first else [lit, arr]
    return None


def promote_dtypes_inexact(name: str, *args, broadcast: bool = True):
    """Promote (``broadcast``: to one shape too), then to JAX's float for the common type when
    it is not inexact (float32, also with 64-bit types on, except float64 for 64-bit ints)."""
    if len(args) == 1:
        a = aval_of(args[0], host=False)
        if a is not None and dtypes._kind(a.dtype) in "fc" and not isinstance(args[0], Literal):
            return list(args)
    out = promote_args(name, *args, broadcast=broadcast)
    d = aval_of(out[0]).dtype
    if not dtypes.is_inexact(d):
        # a weak bool (a comparison of weak values) has no weak float to become (as JAX)
        weak = not dtypes.is_bool(d) and all(aval_of(a).weak_type for a in out)
        f = dtypes.to_inexact(d)
        out = [convert(a, f, weak) for a in out]
    return out


def canonical_axis(axis: int, ndim: int, name: str = "axis") -> int:
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name} {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def canonical_axes(axis, ndim: int, name: str = "axis") -> tuple:
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        axis = (int(axis),)
    axes = tuple(canonical_axis(int(a), ndim, name) for a in axis)
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in {name}: {axis}")
    return axes
