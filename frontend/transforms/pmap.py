"""``pmap``: ``fun`` mapped over the leading axis of its arguments, one slice per device, as
``jax.pmap``, and implemented as JAX 0.10 implements it: a ``shard_map`` over a 1-D mesh of
``axis_size`` devices named ``axis_name``, whose body takes each device's slice (its block
of size 1, squeezed) and gives its results a leading axis of size 1 again. Collectives over
``axis_name`` inside ``fun`` reduce across the devices."""
from __future__ import annotations

import functools

import numpy as np

from ..core.arguments import leaf_aval
from ..core.pytree import tree_flatten, tree_map, tree_unflatten
from ..device.queries import local_devices
from ..lax._shape import expand_dims, squeeze
from ..primitives.shape import moveaxis
from ..sharding import Mesh, PartitionSpec
from .shard_map import shard_map


def pmap(fun, axis_name=None, *, in_axes=0, out_axes=0, static_broadcasted_argnums=(),
         devices=None, backend=None, axis_size=None, donate_argnums=()):
    """``fun`` run on one device per slice of its arguments along ``in_axes`` (default: the
    leading axis), the results stacked along ``out_axes``, as ``jax.pmap``; ``axis_name``
    names the device axis for collectives (``lax.psum(x, axis_name)``). The mapped size
    must not exceed the devices (``devices``, default this process's).

    >>> import numpy as np
    >>> import frontend as fe
    >>> from frontend import lax
    >>> fe.pmap(lambda x: lax.psum(x, "i") * 2, axis_name="i")(np.ones((1, 3), np.float32))
    Array([[2., 2., 2.]], dtype=float32)
    """
    if backend is not None or axis_size is not None or donate_argnums not in ((), None):
        raise NotImplementedError("pmap's backend=, axis_size= and donate_argnums= are not "
                                  "supported by vmaplab (jit takes donate_argnums)")
    static = (static_broadcasted_argnums,) if isinstance(static_broadcasted_argnums, int) \
        else tuple(static_broadcasted_argnums)
    name = axis_name if axis_name is not None else "_pmap"

    @functools.wraps(fun)
    def mapped(*args):
        n = len(args)
        st = {i % n for i in static}
        dyn_pos = [i for i in range(n) if i not in st]
        if isinstance(in_axes, (list, tuple)):
            axes = list(in_axes) if len(in_axes) == len(dyn_pos) else \
                [in_axes[i] for i in dyn_pos]
        else:
            axes = [in_axes] * len(dyn_pos)
        moved, specs, sizes = [], [], []
        for i, ax in zip(dyn_pos, axes, strict=True):
            if ax is None:
                moved.append(args[i])
                specs.append(PartitionSpec())
                continue
            leaves, td = tree_flatten(args[i])
            for x in leaves:
                sizes.append(leaf_aval(x).shape[ax])
            moved.append(tree_unflatten(td, [moveaxis(x, ax, 0) for x in leaves]))
            specs.append(PartitionSpec(name))
        if not sizes:
            raise ValueError("pmap requires at least one argument with a mapped axis.")
        if len(set(sizes)) > 1:
            raise ValueError(f"pmap got inconsistent sizes for array axes to be mapped: {sizes}")
        devs = list(devices) if devices is not None else local_devices()
        mesh = Mesh(np.array(devs[:sizes[0]]), (name,))
        mapped_args = [ax is not None for ax in axes]

        def body(*blocks):
            it = iter(blocks)
            full = [args[i] if i in st else next(it) for i in range(n)]
            vals = []
            for i, a in enumerate(full):
                if i not in st and mapped_args[dyn_pos.index(i)]:
                    a = tree_map(lambda b: squeeze(b, (0,)), a)
                vals.append(a)
            return tree_map(lambda o: expand_dims(o, (0,)), fun(*vals))

        out = shard_map(body, mesh=mesh, in_specs=tuple(specs), out_specs=PartitionSpec(name),
                        check_vma=False)(*moved)
        if out_axes == 0:
            return out
        if not isinstance(out_axes, int):
            raise NotImplementedError("pmap's out_axes must be an int in vmaplab")
        return tree_map(lambda o: moveaxis(o, 0, out_axes), out)

    return mapped


__all__ = ["pmap"]
