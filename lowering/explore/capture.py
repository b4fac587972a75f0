"""What the explorer records while it traces and lowers: the Python line each equation came
from, and the StableHLO lines each equation's lowering rule wrote.

Both are recorded by wrapping, for the duration of a ``with`` block and under one lock,
the constructor of ``Eqn`` and the emitter methods of ``lowering.emit.module``; nothing in
the traced graphs or the module text is changed for other callers. (When equations carry
their own source locations, ``source_of`` is where to read them instead.)

An equation's Python line is the innermost frame outside vmaplab's packages that is inside a
function (not a module's top level), unless a vmaplab frame below it is working on an
equation that has a line already (the backward pass transposing it, a pass rewriting it, a
batching rule re-tracing a sub-graph): the new equation gets that equation's line, as JAX's
source_info follows the equation being transformed."""
from __future__ import annotations

import contextlib
import os
import re
import sys
import sysconfig
import threading

from frontend.core.ir import Eqn

from ..emit import module as _emit

_LOCK = threading.RLock()
_PACKAGES = tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep
                  for m in (sys.modules["frontend"], sys.modules["lowering"]))
_STDLIB = tuple(p + os.sep for p in {sysconfig.get_paths()["stdlib"],
                                     sysconfig.get_paths()["platstdlib"]})
_EQN_LOCALS = ("e", "eqn")
_HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep


# files whose frames are not the user's code either (as JAX's traceback exclusions): say, a
# module that wraps the primitives' rules
excluded_files: set = set()


def _internal(filename: str) -> bool:
    return filename.startswith(_PACKAGES) or filename.startswith(_STDLIB) or \
        filename.startswith("<frozen") or filename in excluded_files


class Sources:
    """Eqn -> (filename, line) of the equations made while ``record()`` is active."""

    def __init__(self):
        self.of: dict = {}
        self.codes: set = set()  # the code objects of the user's frames met

    def _frame_source(self, frame):
        """(filename, line) of the equation being made in ``frame``'s call stack, or None."""
        f = frame
        while f is not None:
            code = f.f_code
            if code.co_filename.startswith(_HERE):
                return None  # the explorer's own call: what is above it is not the traced code
            if _internal(code.co_filename):
                if any(n in code.co_varnames for n in _EQN_LOCALS):
                    loc = f.f_locals
                    for n in _EQN_LOCALS:
                        e = loc.get(n)
                        if type(e) is Eqn and e in self.of:
                            return self.of[e]
            elif code.co_name != "<module>":
                self.codes.add(code)
                return code.co_filename, f.f_lineno
            f = f.f_back
        return None

    @contextlib.contextmanager
    def record(self):
        init = Eqn.__init__
        sources = self

        def recording_init(self, *args, **kwargs):
            init(self, *args, **kwargs)
            src = sources._frame_source(sys._getframe(1))
            if src is not None:
                sources.of[self] = src

        with _LOCK:
            Eqn.__init__ = recording_init
            try:
                yield self
            finally:
                Eqn.__init__ = init


def source_of(sources: Sources, e):
    return sources.of.get(e)


# ----------------------------------------------------------------------------- StableHLO lines

_MARK = re.compile(r' loc\("vmaplab\.explore\.(\d+)\.(\d+)"\)$')
_HAS_LOC = re.compile(r"\bloc\(.*\)\s*$")


class Emission:
    """Which lines of a lowered module each equation's lowering rule wrote: while
    ``record()`` is active every op a rule emits ends with a marker location, which
    ``split(text)`` reads and removes."""

    def __init__(self):
        self.eqns: list = []      # tag -> Eqn
        self.parent: list = []    # tag -> the tag of the equation whose rule lowered it, or None
        self._cur = None
        self._outer: list = []

    def _mark(self, rhs: str) -> str:
        if self._cur is None or _HAS_LOC.search(rhs.rsplit("\n", 1)[-1]):
            return rhs  # (an op with a location of its own keeps it)
        return f'{rhs} loc("vmaplab.explore.{self._cur}.{rhs.count(chr(10))}")'

    @contextlib.contextmanager
    def record(self):
        F, R = _emit.FuncCtx, _emit.RuleCtx
        op, op_results, lower_body, rule_init = F.op, F.op_results, F.lower_body, R.__init__
        em = self

        def marked_op(self, rhs, *args, **kwargs):
            return op(self, em._mark(rhs), *args, **kwargs)

        def marked_op_results(self, rhs, *args, **kwargs):
            return op_results(self, em._mark(rhs), *args, **kwargs)

        def scoped_lower_body(self, *args, **kwargs):
            saved = em._cur
            em._outer.append(saved)
            try:
                return lower_body(self, *args, **kwargs)
            finally:
                em._outer.pop()
                em._cur = saved

        def tagging_init(self, fn, eqn, *args, **kwargs):
            rule_init(self, fn, eqn, *args, **kwargs)
            em._cur = len(em.eqns)
            em.eqns.append(eqn)
            em.parent.append(em._outer[-1] if em._outer else None)

        with _LOCK:
            F.op, F.op_results, F.lower_body, R.__init__ = \
                marked_op, marked_op_results, scoped_lower_body, tagging_init
            try:
                yield self
            finally:
                F.op, F.op_results, F.lower_body, R.__init__ = op, op_results, lower_body, rule_init

    def split(self, text: str, known) -> tuple:
        """(the text without markers, {0-based line: Eqn}) where each line of an op maps to
        the equation that emitted it (the innermost op's for the lines of a region), and an
        op emitted by a rule's helper equations (``ctx.lower_fun``) to the equation in
        ``known`` (a set of the lowered graph's equations) that they were lowered for."""
        lines = text.split("\n")
        spans = []
        for i, line in enumerate(lines):
            m = _MARK.search(line)
            if m:
                lines[i] = line[:m.start()]
                tag, extra = int(m.group(1)), int(m.group(2))
                spans.append((i - extra, i, tag))
        owner: dict = {}
        for start, end, tag in sorted(spans, key=lambda s: s[0] - s[1]):  # widest first
            e = self._known(tag, known)
            if e is not None:
                for k in range(start, end + 1):
                    owner[k] = e
        return "\n".join(lines), owner

    def _known(self, tag, known):
        while tag is not None and self.eqns[tag] not in known:
            tag = self.parent[tag]
        return None if tag is None else self.eqns[tag]
