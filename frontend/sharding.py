"""Meshes and shardings, with JAX's meanings (``jax.sharding``): a ``Mesh`` names the axes of
an array of devices; a ``NamedSharding(mesh, PartitionSpec(...))`` says which mesh axes split
each dimension of an array (the other axes hold replicas). They are descriptions: XLA's SPMD
partitioner (Shardy) does the partitioning of programs that carry them (``jit`` with
``in_shardings``/``out_shardings``, ``lax.with_sharding_constraint``, ``shard_map``), and
``device_put(x, sharding)`` lays an array out over the devices.

>>> import frontend as fe
>>> from frontend.sharding import NamedSharding, PartitionSpec as P
>>> n = len(fe.devices())
>>> mesh = fe.make_mesh((n,), ("data",))          # every device along one axis
>>> NamedSharding(mesh, P("data", None)).shard_shape((8 * n, 3))
(8, 3)

Mesh axes are JAX's ``AxisType.Auto`` axes (sharding as a hint to the partitioner); sharding
in types (``Explicit`` axes) is not supported.
"""
from __future__ import annotations

import contextvars
import enum
import math

import numpy as np

from .device import seam as _backend


class AxisType(enum.Enum):
    Auto = "Auto"
    Explicit = "Explicit"
    Manual = "Manual"

    def __repr__(self):
        return self.value


class IndivisibleError(ValueError):
    """An array dimension that its mesh axes do not divide evenly."""


class DuplicateSpecError(ValueError):
    """A mesh axis used for two dimensions of one PartitionSpec."""


# ----------------------------------------------------------------------------- PartitionSpec


class _Unconstrained:
    def __repr__(self):
        return "UNCONSTRAINED"


class PartitionSpec(tuple):
    """One entry per leading array dimension: None (not split), a mesh axis name, or a tuple
    of names (split over their product, the first major). Missing trailing entries are None.

    >>> from frontend.sharding import PartitionSpec as P
    >>> P("data", None)
    P('data', None)
    """

    UNCONSTRAINED = _Unconstrained()

    def __new__(cls, *partitions):
        return super().__new__(cls, partitions)

    def __repr__(self):
        inner = ", ".join(map(repr, self))
        return f"P({inner}{',' if len(self) == 1 else ''})"

    __str__ = __repr__

    def _normal(self) -> tuple:
        """Entries as tuples of names (a singleton tuple equals its name, as in JAX)."""
        return tuple(() if p is None else p if isinstance(p, tuple) else (p,) for p in self)

    def __eq__(self, other):
        if not isinstance(other, tuple):
            return False
        o = other._normal() if isinstance(other, PartitionSpec) else PartitionSpec(*other)._normal()
        return self._normal() == o

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self._normal())

    def __reduce__(self):
        return (PartitionSpec, tuple(self))


P = PartitionSpec


# ----------------------------------------------------------------------------- Mesh

_context_mesh: contextvars.ContextVar = contextvars.ContextVar("vmaplab_mesh", default=None)
_mesh_tokens: contextvars.ContextVar = contextvars.ContextVar("vmaplab_mesh_tokens", default=())


class Mesh:
    """An n-dimensional array of devices with a name per axis (JAX's ``Mesh``). ``with
    mesh:`` makes it the context mesh, for shardings given as a bare ``PartitionSpec``.

    >>> import numpy as np
    >>> import frontend as fe
    >>> from frontend.sharding import Mesh
    >>> mesh = Mesh(np.array(fe.devices()[:1]), ("data",))
    >>> mesh.shape
    {'data': 1}
    """

    def __init__(self, devices, axis_names, axis_types=None):
        if isinstance(axis_names, str):
            axis_names = (axis_names,)
        axis_names = tuple(axis_names)
        arr = np.empty(np.shape(devices), dtype=object)
        arr[...] = devices if isinstance(devices, np.ndarray) else _nested(devices)
        if arr.ndim != len(axis_names):
            raise ValueError(
                "Mesh requires the ndim of its first argument (`devices`) to equal the length "
                f"of its second argument (`axis_names`), but got devices.ndim == {arr.ndim} and "
                f"len(axis_names) == {len(axis_names)}.")
        if len(set(axis_names)) != len(axis_names):
            raise ValueError(f"Mesh axis names must be unique, got {axis_names}")
        for n in axis_names:
            if not isinstance(n, str):
                raise TypeError(f"Mesh axis names must be strings, got {n!r} in {axis_names}")
        ids = [d.id for d in arr.flat]
        if len(set(ids)) != len(ids):
            raise ValueError(f"Mesh devices must be distinct, got device ids {ids}")
        if axis_types is not None:
            types = tuple(axis_types) if isinstance(axis_types, (tuple, list)) else (
                (axis_types,) * len(axis_names))
            if len(types) != len(axis_names) or any(t is not AxisType.Auto for t in types):
                raise NotImplementedError(
                    f"Mesh axis_types={types!r}: only AxisType.Auto axes are supported (XLA's "
                    "partitioner decides what is not constrained; explicit sharding in types is "
                    "not implemented)")
        arr.flags.writeable = False
        self.devices = arr
        self.axis_names = axis_names
        self._key = (tuple(ids), arr.shape, axis_names)
        self._hash = hash(self._key)

    shape = property(lambda self: dict(zip(self.axis_names, self.devices.shape, strict=True)))
    axis_sizes = property(lambda self: self.devices.shape)
    size = property(lambda self: self.devices.size)
    axis_types = property(lambda self: (AxisType.Auto,) * len(self.axis_names))
    device_ids = property(lambda self: np.vectorize(lambda d: d.id, otypes=[int])(self.devices)
                          if self.size else np.zeros(self.devices.shape, int))
    empty = property(lambda self: self.size == 0)

    @property
    def local_devices(self) -> list:
        """The mesh's devices that belong to this process."""
        p = _backend.get().process_index()
        return [d for d in self.devices.flat if d.process_index == p]

    @property
    def is_multi_process(self) -> bool:
        return len({d.process_index for d in self.devices.flat}) > 1

    def __eq__(self, other):
        return self is other or (isinstance(other, Mesh) and self._key == other._key)

    def __hash__(self):
        return self._hash

    def __repr__(self):
        axes = ", ".join(f"{n!r}: {s}" for n, s in zip(self.axis_names, self.devices.shape, strict=True))
        types = ", ".join("Auto" for _ in self.axis_names)
        return f"Mesh({axes}, axis_types=({types}{',' if len(self.axis_names) == 1 else ''}))"

    def __enter__(self):
        _mesh_tokens.set(_mesh_tokens.get() + (_context_mesh.set(self),))
        return self

    def __exit__(self, *exc):
        tokens = _mesh_tokens.get()
        _mesh_tokens.set(tokens[:-1])
        _context_mesh.reset(tokens[-1])


def _nested(devices):
    """A (nested) sequence of devices as an object array of that shape."""
    shp = np.shape(np.asarray(devices, dtype=object))
    out = np.empty(shp, dtype=object)
    for idx in np.ndindex(shp):
        v = devices
        for i in idx:
            v = v[i]
        out[idx] = v
    return out


def make_mesh(axis_shapes, axis_names, axis_types=None, *, devices=None) -> Mesh:
    """A mesh of the first ``prod(axis_shapes)`` devices (default: ``frontend.devices()``) in
    that shape (JAX's ``make_mesh``; the axes are ``AxisType.Auto``).

    >>> from frontend.sharding import make_mesh
    >>> make_mesh((1,), ("data",))
    Mesh('data': 1, axis_types=(Auto,))
    """
    if devices is None:
        devices = _backend.get().devices()
    shapes = tuple(axis_shapes)
    if not all(isinstance(s, (int, np.integer)) and s >= 0 for s in shapes):
        raise ValueError("`axis_shapes` passed to `make_mesh` should be a sequence of ints. "
                         f"Got {axis_shapes}")
    n = math.prod(shapes)
    if n > len(devices):
        raise ValueError(f"Number of devices {len(devices)} must be >= the product of "
                         f"mesh_shape {shapes}")
    arr = np.empty(n, dtype=object)
    arr[:] = list(devices)[:n]
    return Mesh(arr.reshape(shapes), axis_names, axis_types)


def get_mesh() -> Mesh | None:
    """The context mesh (``with mesh:`` / ``set_mesh``), or None."""
    return _context_mesh.get()


class set_mesh:
    """``with set_mesh(mesh):`` makes ``mesh`` the context mesh (as ``with mesh:``)."""

    def __init__(self, mesh: Mesh):
        if not isinstance(mesh, Mesh):
            raise TypeError(f"set_mesh takes a Mesh, got {type(mesh).__name__}")
        self.mesh = mesh

    def __enter__(self):
        return self.mesh.__enter__()

    def __exit__(self, *exc):
        self.mesh.__exit__(*exc)


# ----------------------------------------------------------------------------- shardings


class Sharding:
    """How an array is laid out over devices (JAX's ``jax.sharding.Sharding``)."""

    device_set = property(lambda self: set(self._device_list()))
    num_devices = property(lambda self: len(self._device_list()))

    @property
    def is_fully_addressable(self) -> bool:
        p = _backend.get().process_index()
        return all(d.process_index == p for d in self._device_list())

    @property
    def addressable_devices(self) -> set:
        p = _backend.get().process_index()
        return {d for d in self._device_list() if d.process_index == p}

    def addressable_devices_indices_map(self, global_shape) -> dict:
        """device -> the index (a tuple of slices) of its shard, for this process's devices."""
        p = _backend.get().process_index()
        return {d: i for d, i in self.devices_indices_map(global_shape).items()
                if d.process_index == p}


class SingleDeviceSharding(Sharding):
    """The whole array on one device."""

    def __init__(self, device):
        self._device = device

    def _device_list(self):
        return [self._device]

    is_fully_replicated = property(lambda _: True)

    def shard_shape(self, global_shape) -> tuple:
        return tuple(global_shape)

    def devices_indices_map(self, global_shape) -> dict:
        return {self._device: tuple(slice(None) for _ in global_shape)}

    def __eq__(self, other):
        return isinstance(other, SingleDeviceSharding) and other._device == self._device

    def __hash__(self):
        return hash(("single", self._device))

    def __repr__(self):
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind=device)"


class NamedSharding(Sharding):
    """An array split over the axes of ``mesh`` as ``spec`` says (JAX's ``NamedSharding``).

    >>> from frontend.sharding import NamedSharding, PartitionSpec as P, make_mesh
    >>> s = NamedSharding(make_mesh((1,), ("data",)), P("data"))
    >>> s.spec, s.num_devices
    (P('data',), 1)
    """

    def __init__(self, mesh: Mesh, spec: PartitionSpec = PartitionSpec()):
        if not isinstance(mesh, Mesh):
            raise TypeError(f"NamedSharding takes a Mesh, got {type(mesh).__name__}")
        if not isinstance(spec, PartitionSpec):
            if isinstance(spec, tuple) or spec is None:
                spec = PartitionSpec(*(spec or ()))
            else:
                raise TypeError(f"NamedSharding spec must be a PartitionSpec, got {spec!r}")
        self.mesh = mesh
        self.spec = spec
        seen: set = set()
        for entry in spec._normal():
            for name in entry:
                if name is PartitionSpec.UNCONSTRAINED:
                    raise NotImplementedError("PartitionSpec.UNCONSTRAINED is not supported")
                if name not in mesh.axis_names:
                    raise ValueError(f"Resource axis: {name} of {spec!r} is not found in mesh: "
                                     f"{mesh.axis_names}.")
                if name in seen:
                    raise DuplicateSpecError(
                        "A single NamedSharding spec specification can map every mesh axis to "
                        f"at most one positional dimension, but {spec!r} has duplicate entries "
                        f"for `{name}`")
                seen.add(name)
        self._hash = hash((mesh, spec._normal()))

    def _device_list(self):
        return list(self.mesh.devices.flat)

    @property
    def is_fully_replicated(self) -> bool:
        sizes = self.mesh.shape
        return all(sizes[n] == 1 for e in self.spec._normal() for n in e)

    def dims(self, ndim: int) -> tuple:
        """The mesh axes of each of ``ndim`` dimensions: a tuple of tuples of names."""
        d = self.spec._normal()
        return d + ((),) * (ndim - len(d))

    def tiling(self, ndim: int) -> list:
        """How many pieces each dimension is cut into."""
        sizes = self.mesh.shape
        return [math.prod(sizes[n] for n in e) for e in self.dims(ndim)]

    def check_rank(self, ndim: int, what: str) -> None:
        """JAX's error for a spec longer than the rank; ``what`` names the value (e.g. "One of
        device_put args")."""
        if len(self.spec) > ndim:
            raise ValueError(
                f"{what} is incompatible with its sharding annotation {self!r}: Sharding "
                f"{self!r} is only valid for values of rank at least {len(self.spec)}, but was "
                f"applied to a value of rank {ndim}."
                + (" For scalars the PartitionSpec should be P()" if ndim == 0 else ""))

    def check_divisible(self, shape) -> None:
        """JAX's IndivisibleError for a dimension its mesh axes do not split evenly."""
        t = self.tiling(len(shape))
        for k, (n, m) in enumerate(zip(shape, t, strict=True)):
            if n % m:
                raise IndivisibleError(
                    f"Sharding {self!r} implies that array axis {k} is partitioned {m} times, "
                    f"but the dimension size is {n} (full shape: {tuple(shape)}, per-dimension "
                    f"tiling factors: {t} should evenly divide the shape)")

    def shard_shape(self, global_shape) -> tuple:
        self.check_divisible(global_shape)
        return tuple(n // m for n, m in zip(global_shape, self.tiling(len(global_shape)), strict=True))

    def devices_indices_map(self, global_shape) -> dict:
        """device -> the index (a tuple of slices) of the shard it holds."""
        shape = tuple(global_shape)
        self.check_rank(len(shape), "The array")
        local = self.shard_shape(shape)
        sizes = self.mesh.shape
        dims = self.dims(len(shape))
        out = {}
        for pos, dev in np.ndenumerate(self.mesh.devices):
            at = dict(zip(self.mesh.axis_names, pos, strict=True))
            idx = []
            for names, m, n in zip(dims, local, shape, strict=True):
                if m == n:  # not split (JAX's index: the whole dimension)
                    idx.append(slice(None))
                    continue
                k = 0
                for n in names:  # the first name major
                    k = k * sizes[n] + at[n]
                idx.append(slice(k * m, (k + 1) * m))
            out[dev] = tuple(idx)
        return out

    def with_spec(self, spec) -> NamedSharding:
        return NamedSharding(self.mesh, spec if isinstance(spec, PartitionSpec)
                             else PartitionSpec(*spec))

    def __eq__(self, other):
        return self is other or (isinstance(other, NamedSharding) and self.mesh == other.mesh
                                 and self.spec._normal() == other.spec._normal())

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return f"NamedSharding(mesh={self.mesh!r}, spec={self.spec!r}, memory_kind=device)"


class Shard:
    """One device's piece of an Array: ``device``, ``index`` (a tuple of slices into the
    global array), ``replica_id`` and ``data`` (an Array on that device)."""

    __slots__ = ("device", "index", "replica_id", "data")

    def __init__(self, device, index, replica_id, data):
        self.device, self.index, self.replica_id, self.data = device, index, replica_id, data

    def __repr__(self):
        return (f"Shard(device={self.device!r}, index={self.index}, replica_id={self.replica_id}, "
                f"data={self.data})")


def resolve(sharding, what: str):
    """A sharding argument as a Sharding: a bare PartitionSpec takes the context mesh (JAX's
    error without one); None stays None."""
    if sharding is None or isinstance(sharding, Sharding):
        return sharding
    if isinstance(sharding, PartitionSpec):
        mesh = get_mesh()
        if mesh is None:
            raise RuntimeError(
                f"{what} requires a non-empty mesh in context if you are passing "
                "`PartitionSpec`s to shardings. You can define a context mesh via `with mesh:` "
                "or `frontend.sharding.set_mesh(mesh)`. Alternatively, provide `Sharding`s to "
                "shardings and then the mesh context manager is not required.")
        return NamedSharding(mesh, sharding)
    raise TypeError(f"{what}: expected a Sharding (NamedSharding, SingleDeviceSharding) or a "
                    f"PartitionSpec, got {type(sharding).__name__}: {sharding!r}")
