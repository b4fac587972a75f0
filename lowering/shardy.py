"""Shardy's textual forms (the ``sdy`` dialect XLA's SPMD partitioner reads): mesh
declarations and tensor shardings. A sharding is written from its per-dimension mesh axes
(``NamedSharding.dims``), e.g. ``#sdy.sharding<@mesh, [{"data"}, {}]>``."""
from __future__ import annotations


def mesh_decl(ref: str, mesh) -> str:
    """``sdy.mesh @mesh = <["x"=4, "y"=2]>``: partition k is ``mesh.devices.flat[k]`` (the
    executable's device assignment), so the mesh needs no device ids."""
    axes = ", ".join(f'"{n}"={s}' for n, s in zip(mesh.axis_names, mesh.devices.shape))
    return f"sdy.mesh {ref} = <[{axes}]>"


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
