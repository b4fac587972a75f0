"""Where data and programs live: host data put on a device or laid out over a mesh
(``to_device``), the shardings of the buffers a program gets (``arg_shardings``), and the
placement of a program (``placement``): the meshes its shardings name, or its one device."""
from __future__ import annotations

import numpy as np

from frontend import sharding as fs
from frontend.core.ir import Graph, param_graphs
from frontend.device.array import Array

from . import runtime


def to_device(x: np.ndarray, device=None):
    """A device buffer of ``x``: on ``device``, or laid out as a NamedSharding says. A named
    device (the interpreter) keeps its data on the default XLA device."""
    if isinstance(device, fs.NamedSharding):
        return runtime.spmd.put(x, device)
    return runtime.to_device(x, None if isinstance(device, str) else device)


def arg_shardings(bufs) -> tuple | None:
    """The shardings of the buffers that span several devices (None for the others, and for
    entries that are None); None when no buffer does."""
    out = None
    for i, b in enumerate(bufs):
        if b is not None and runtime.spmd.is_sharded(b):
            out = out or [None] * len(bufs)
            out[i] = runtime.spmd.sharding_of(b)
    return None if out is None else tuple(out)


_PLAIN = (int, bool, str, float, type(None), np.dtype)
_PLAIN_TYPES = frozenset(_PLAIN)  # (a set lookup for the exact types, the common case)


def _graph_meshes(g: Graph, acc: list) -> None:
    for e in g.eqns:
        if not e.params:
            continue
        for v in e.params.values():
            t = type(v)
            if t in _PLAIN_TYPES:
                continue
            gs = param_graphs(v)
            if gs:
                for s in gs:
                    _graph_meshes(s, acc)
                continue
            for x in (v if t is tuple else (v,)):
                tx = type(x)
                if tx is tuple or tx in _PLAIN_TYPES or isinstance(x, _PLAIN):
                    continue  # (dimension numbers and other plain tuples hold no mesh)
                m = x.mesh if isinstance(x, fs.NamedSharding) else x if isinstance(x, fs.Mesh) \
                    else None
                if m is not None and m not in acc:
                    acc.append(m)


def placement(graph: Graph, idx: tuple, in_shardings, out_shardings, device):
    """(meshes or None, shardings of the hoisted constants ``idx``, in_shardings,
    out_shardings, device) of a program: the NamedShardings of its arguments, results,
    sharded constants and equations are on meshes of the same devices (the first one met
    orders the partitions); SingleDeviceShardings place a program without one on their
    device (and are left to the partitioner in one with a mesh)."""
    meshes: list = []
    singles: set = set()
    consts = tuple(runtime.spmd.sharding_of(c._buf)
                   if isinstance(c, Array) and runtime.spmd.is_sharded(c._buf)
                   else None for c in (graph.consts[i] for i in idx))
    for s in consts + (in_shardings or ()) + (out_shardings or ()):
        if isinstance(s, fs.NamedSharding) and s.mesh not in meshes:
            meshes.append(s.mesh)
        elif isinstance(s, fs.SingleDeviceSharding):
            singles.add(s._device)
    _graph_meshes(graph, meshes)
    ids = {tuple(sorted(m.device_ids.ravel().tolist())) for m in meshes}
    if len(ids) > 1 or (not meshes and len(singles) > 1):
        what = [f"{m!r} (device ids {sorted(m.device_ids.ravel().tolist())})" for m in meshes] + \
            [f"device {d.id}" for d in singles]
        raise ValueError("Received incompatible devices for jitted computation: shardings on "
                         + " and ".join(what))
    named = lambda shs: tuple(s if isinstance(s, fs.NamedSharding) else None  # noqa: E731
                              for s in shs) if shs else None
    if not meshes:
        if singles:
            d = singles.pop()
            if device is not None and device != d:
                raise ValueError(f"jit got device={device} and shardings on device {d}")
            device = d
        return None, None, None, None, device
    if device is not None:
        raise ValueError("a program with shardings runs on the devices of its mesh: do not "
                         f"pass device={device!r} too")
    return meshes, consts, named(in_shardings), named(out_shardings), None
