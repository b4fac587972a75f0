"""Shardy's textual forms (the ``sdy`` dialect XLA's SPMD partitioner reads): mesh
declarations and tensor shardings. A sharding is written from its per-dimension mesh axes
(``NamedSharding.dims``), e.g. ``#sdy.sharding<@mesh, [{"data"}, {}]>``."""
from __future__ import annotations


def mesh_decl(ref: str, mesh, partition_ids) -> str:
    """``sdy.mesh @mesh = <["x"=4, "y"=2]>``; ``partition_ids``: the partition number of each
    device of the mesh, written as ``device_ids`` unless they are 0, 1, ... in mesh order
    (the program's own mesh: partition k is ``mesh.devices.flat[k]``)."""
    axes = ", ".join(f'"{n}"={s}' for n, s in zip(mesh.axis_names, mesh.devices.shape, strict=True))
    ids = [int(i) for i in partition_ids.ravel()]
    extra = "" if ids == list(range(len(ids))) else f", device_ids=[{', '.join(map(str, ids))}]"
    return f"sdy.mesh {ref} = <[{axes}]{extra}>"


def dims(per_dim) -> str:
    """``[{"x"}, {}, {"y", "z"}]``: the mesh axes of each dimension, major first."""
    return "[" + ", ".join("{" + ", ".join(f'"{n}"' for n in names) + "}"
                           for names in per_dim) + "]"


def tensor_sharding(ref: str, per_dim) -> str:
    """``<@mesh, [{"x"}, {}]>`` (the form of ``sdy.sharding_constraint`` and of manual
    computations' in/out shardings)."""
    return f"<{ref}, {dims(per_dim)}>"


def sharding_attr(ref: str, per_dim) -> str:
    """``#sdy.sharding<@mesh, [{"x"}, {}]>`` (arguments and results of a function)."""
    return "#sdy.sharding" + tensor_sharding(ref, per_dim)


def axes_set(names) -> str:
    """``{"x", "y"}`` (a manual computation's manual axes)."""
    return "{" + ", ".join(f'"{n}"' for n in names) + "}"
