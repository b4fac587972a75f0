"""lax.with_sharding_constraint: where an intermediate value of a jitted program lives."""
from __future__ import annotations

from ..core.ir import EVAL, _trace_var
from ..core.pytree import broadcast_prefix, tree_flatten, tree_unflatten
from ..device.array import device_put
from ..primitives.sharding import sharding_constraint_p
from ..sharding import NamedSharding, PartitionSpec, SingleDeviceSharding, resolve
from ._convert import as_operand


def with_sharding_constraint(x, shardings):
    """``x`` (a pytree of arrays) laid out as ``shardings`` (a NamedSharding, a PartitionSpec
    under a context mesh, or a pytree prefix of them) at this point of the program: XLA's
    partitioner keeps that layout there and propagates it (Shardy's sharding constraint).
    Eagerly, the arrays are put on the devices as the shardings say.

    >>> import numpy as np
    >>> import frontend as fe
    >>> from frontend import lax
    >>> from frontend.sharding import NamedSharding, PartitionSpec as P
    >>> mesh = fe.make_mesh((len(fe.devices()),), ("data",))
    >>> f = fe.jit(lambda x: lax.with_sharding_constraint(x * 2, NamedSharding(mesh, P("data"))))
    >>> x = np.arange(4.0, dtype=np.float32)
    >>> f(x)
    Array([0., 2., 4., 6.], dtype=float32)
    >>> "sdy.sharding_constraint" in f.lower(x).as_text()
    True
    """
    leaves, td = tree_flatten(x)
    shs = broadcast_prefix(shardings, td, "with_sharding_constraint shardings",
                           is_leaf=lambda p: isinstance(p, PartitionSpec))
    out = []
    for v, s in zip(leaves, shs, strict=True):
        s = resolve(s, "with_sharding_constraint")
        if s is None or isinstance(s, SingleDeviceSharding):
            out.append(v)
            continue
        if not isinstance(s, NamedSharding):
            raise TypeError(f"with_sharding_constraint takes NamedShardings, got {s!r}")
        if _trace_var.get() is EVAL:  # eagerly: a transfer (as JAX's eager constraint)
            out.append(device_put(v, s))
            continue
        out.append(sharding_constraint_p.bind(as_operand(v), sharding=s))
    return tree_unflatten(td, out)
