"""The compiled programs the frontend runs: one ``Executable`` interface (call with the
argument buffers, ``as_text``, ``cost_analysis``) over a program for one XLA device
(``Compiled``), for the devices of a mesh (``ShardedCompiled``) and for the StableHLO
reference interpreter (``InterpretedCompiled``)."""
from __future__ import annotations

import numpy as np

from frontend.core.ir import Graph
from frontend.device.array import Array

from . import runtime
from .placement import to_device


class _ConstArgs:
    """The hoisted constants of a compiled graph as device buffers, made at the first run
    (an Array's own buffer when it is on the device, else one transfer) and kept.
    ``places``: a device, or one placement (device or NamedSharding) per constant."""

    __slots__ = ("values", "places", "_bufs")

    def __init__(self, graph: Graph, idx: tuple, places):
        self.values = [graph.consts[i] for i in idx]
        self.places = places if isinstance(places, list) else [places] * len(idx)
        self._bufs = None

    def buffers(self) -> list:
        if self._bufs is None:
            self._bufs = [c._buf if isinstance(c, Array) and c.device == p
                          else to_device(np.asarray(c), p)
                          for c, p in zip(self.values, self.places, strict=True)]
        return self._bufs


class Executable:
    """A compiled graph: call it with a list of device buffers (its arguments), get the
    list of result buffers. ``graph`` and ``text`` (its module) are what was compiled,
    ``device`` where it runs (None for a mesh's program), ``consts`` its hoisted constants
    (passed ahead of the arguments; None when there are none) and ``exe`` the runtime's
    executable (``hlo_text()``, ``cost_analysis()``)."""

    __slots__ = ("text", "exe", "device", "graph", "consts", "_run")

    def __init__(self, graph: Graph, text: str, device, exe, run, consts):
        self.graph = graph
        self.text = text
        self.device = device
        self.exe = exe
        self._run = run  # buffers -> result buffers
        self.consts = consts

    def __call__(self, bufs):
        if self.consts is not None:
            bufs = self.consts.buffers() + list(bufs)
        return self._run(bufs)

    def as_text(self) -> str:
        return self.exe.hlo_text()

    def cost_analysis(self):
        return self.exe.cost_analysis()


class Compiled(Executable):
    """A graph compiled for one XLA device."""

    __slots__ = ()

    def __init__(self, graph: Graph, text: str, device, const_idx: tuple = ()):
        exe = runtime.compile_text(text, device, len(graph.outvars))
        super().__init__(graph, text, device, exe, exe.run,
                         _ConstArgs(graph, const_idx, device) if const_idx else None)


class ShardedCompiled(Executable):
    """A graph compiled for the devices of a mesh (XLA's SPMD partitioner), its arguments
    placed as ``arg_shardings`` says (resharded when they are not); ``as_text`` is XLA's
    partitioned, optimized HLO (one device's program, with its collectives)."""

    __slots__ = ("mesh", "arg_shardings")

    def __init__(self, graph: Graph, text: str, meshes: list, const_idx: tuple, in_shardings,
                 out_shardings):
        """``in_shardings``: of the hoisted constants, then of the arguments."""
        k = len(const_idx)
        ins = list(in_shardings)
        outs = list(out_shardings or [None] * len(graph.outvars))
        exe = runtime.spmd.compile_spmd(text, meshes, ins, outs, graph.out_avals)
        super().__init__(graph, text, None, exe, exe,
                         _ConstArgs(graph, const_idx, list(exe.in_shardings[:k])) if k else None)
        self.mesh = meshes[0]
        self.arg_shardings = tuple(exe.in_shardings[k:])


class InterpretedCompiled(Executable):
    """A graph run by the StableHLO reference interpreter (``device="interpreter"``): its
    arguments and results live on the default XLA device, so the frontend sees ordinary
    Arrays."""

    __slots__ = ()

    def __init__(self, graph: Graph, text: str, const_idx: tuple = ()):
        xla = runtime.default_device()
        in_avals = tuple(graph.constvars[i].aval for i in const_idx) + graph.in_avals
        exe = runtime.interpreter.InterpretedExecutable(text, in_avals, graph.out_avals, xla)
        super().__init__(graph, text, runtime.interpreter.INTERPRETER, exe, exe,
                         _ConstArgs(graph, const_idx, xla) if const_idx else None)
