"""The stages of a jitted function, as JAX's: ``Traced`` (the graph of one specialization,
lowered for any platforms), ``Lowered`` (the StableHLO of one
specialization, with the testbed's MLIR passes and rewrites) and ``Compiled`` (its executable,
called with the arguments it was lowered for), and ``compile_stablehlo`` (a ``Compiled`` from
module text someone wrote)."""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.arguments import abstractify
from ..core.config import config
from ..core.ir import LOWERING_PLATFORMS, Graph, ShapeDtypeStruct, Tracer
from ..core.pytree import tree_flatten, tree_unflatten
from ..device import seam as _backend
from ..device.array import Array, adopt_foreign, to_buffer


class Traced:
    """One specialization of a jitted function, traced (JAX's ``Traced``, from
    ``jit(f).trace(*args)``): ``jaxpr`` is its graph (after the graph passes), ``out_info``
    the shapes and dtypes of its result; ``lower(lowering_platforms=...)`` writes its
    module for any platforms, without their devices.

    >>> import numpy as np
    >>> import frontend as fe
    >>> t = fe.jit(lambda x: x * 2).trace(np.ones(3, np.float32))
    >>> t.out_info
    ShapeDtypeStruct(shape=(3,), dtype=float32)
    >>> "stablehlo.multiply" in t.lower(lowering_platforms=("cuda",)).as_text()
    True
    """

    def __init__(self, graph: Graph, out_td, device, in_tree, pass_stats, shardings,
                 aliases=()):
        self._aliases = aliases  # (argument, result) pairs of donated arguments
        self.jaxpr = graph
        self.out_tree = out_td
        self.in_tree = in_tree
        self._device = device
        self._pass_stats = pass_stats
        self._shardings = shardings

    graph = property(lambda self: self.jaxpr)
    in_avals = property(lambda self: self.jaxpr.in_avals)
    out_avals = property(lambda self: self.jaxpr.out_avals)

    @property
    def out_info(self):
        return tree_unflatten(self.out_tree, [
            ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
            for a in self.jaxpr.out_avals])

    def lower(self, *, lowering_platforms: tuple | None = None) -> Lowered:
        """The module for ``lowering_platforms`` (a tuple of "cpu", "cuda", "rocm", "tpu";
        default: the platform of the device it runs on). For several platforms @main takes
        the index of the running one in that tuple first (JAX's convention)."""
        platforms = check_platforms(lowering_platforms, "lower")
        ins, outs = self._shardings
        text = _backend.get().lower(self.jaxpr, ins, outs, platforms, aliases=self._aliases)
        return Lowered(self.jaxpr, text, self.out_tree, self._device, self.in_tree,
                       self._pass_stats, shardings=self._shardings, platforms=platforms,
                       aliases=self._aliases)


def check_platforms(platforms, what: str) -> tuple | None:
    """``platforms`` (None, or a sequence of JAX's platform names) as a tuple; ValueError
    for an unknown or repeated name, TypeError for a string."""
    if platforms is None:
        return None
    if isinstance(platforms, str):
        raise TypeError(f"{what}: lowering_platforms must be a tuple of platform names, got "
                        f"the string {platforms!r}")
    platforms = tuple(platforms)
    if not platforms:
        raise ValueError(f"{what}: lowering_platforms must name at least one platform")
    for p in platforms:
        if p not in LOWERING_PLATFORMS:
            raise ValueError(f"{what}: unknown platform {p!r}; expected one of "
                             f"{LOWERING_PLATFORMS}")
    if len(set(platforms)) != len(platforms):
        raise ValueError(f"{what}: lowering_platforms {platforms} names a platform twice")
    return platforms


class Lowered:
    """The StableHLO of one specialization of a jitted function (JAX's ``Lowered``):
    ``graph`` is the graph that was lowered (after the graph passes, whose statistics are
    ``pass_stats``); ``compile()`` gives a callable ``Compiled``. ``platforms``: the
    platforms the module is for (None: the running one)."""

    def __init__(self, graph: Graph, text: str, out_td, device, in_tree=None, pass_stats=(),
                 foreign: bool = False, shardings=(None, None), platforms=None, aliases=()):
        self.platforms = platforms
        self._aliases = aliases  # (argument, result) pairs of donated arguments
        self.graph = graph
        self._shardings = shardings  # (in_shardings, out_shardings) it was lowered with
        self._text = text
        self.out_tree = out_td
        self.in_tree = in_tree
        self.device = device
        self.pass_stats = tuple(pass_stats)
        self._foreign = foreign  # the text went through an MLIR pipeline

    in_avals = property(lambda self: self.graph.in_avals)
    out_avals = property(lambda self: self.graph.out_avals)

    def as_text(self, dialect: str | None = None, *, debug_info: bool = False) -> str:
        """The module's text; ``debug_info=True`` adds each op's location (``loc(#locK)``,
        defined after the module: the primitive, the equation id and the Python line that
        made it; docs/testbed.md, "Source locations"), as JAX's ``as_text(debug_info=True)``.
        ``dialect="hlo"``: XLA's HLO of the module before optimization (JAX's form; the
        optimized one is ``compile().as_text()``)."""
        if dialect == "hlo":
            return _backend.get().hlo_text(self.as_text(debug_info=debug_info))
        _check_dialect(dialect or "stablehlo", "as_text")
        if debug_info and not self._foreign:
            return _backend.get().lower(self.graph, *self._shardings, debug_info=True,
                                        aliases=self._aliases)
        return self._text

    def compiler_ir(self, dialect: str = "stablehlo"):
        """The module parsed by jaxlib's MLIR bindings (an ``ir.Module`` of this thread's
        context), with its ops' locations, as JAX's ``compiler_ir`` gives it (a verifier
        error names the equation, primitive and Python line of the op)."""
        _check_dialect(dialect, "compiler_ir")
        return _backend.get().compiler_ir(self.as_text(debug_info=True))

    def apply_passes(self, pipeline: str) -> Lowered:
        """A new Lowered whose module is this one after the MLIR pass pipeline ``pipeline``
        (e.g. ``"builtin.module(canonicalize,cse)"``; a bare ``"canonicalize,cse"`` is run on
        the module). The result compiles when the pipeline leaves StableHLO."""
        text = _backend.get().run_mlir_pipeline(self._text, pipeline)
        return Lowered(self.graph, text, self.out_tree, self.device, self.in_tree,
                       self.pass_stats, foreign=True, shardings=self._shardings,
                       platforms=self.platforms)

    def apply_patterns(self, patterns) -> Lowered:
        """A new Lowered whose module is this one rewritten by Python rewrite patterns with
        MLIR's greedy driver: ``patterns`` is a list of ``(root, fn)``, ``root`` an op name
        such as "stablehlo.multiply", ``fn(op, rewriter) -> bool`` (True when it rewrote
        ``op``; see docs/testbed.md, section 4)."""
        text = _backend.get().apply_patterns(self._text, patterns)
        return Lowered(self.graph, text, self.out_tree, self.device, self.in_tree,
                       self.pass_stats, foreign=True, shardings=self._shardings,
                       platforms=self.platforms)

    def compile(self) -> Compiled:
        be = _backend.get()
        text = self._text
        if self.platforms is not None:
            here = be.lowering_platform(self.device)
            if here not in self.platforms:
                raise ValueError(
                    f"The module was lowered for {self.platforms} and cannot be compiled "
                    f"here: this process runs on {here!r} and has no device or plugin for "
                    f"{self.platforms[0]!r}. Compile it where one is present, or lower with "
                    f"lowering_platforms=({here!r},)")
            if self.platforms != (here,):
                if self._foreign:
                    raise ValueError("compile: a module for several platforms rewritten by "
                                     "MLIR passes cannot be compiled; lower it for "
                                     f"({here!r},) and apply the passes to that")
        if self._foreign:
            be.check_compilable(text)
        ins, outs = self._shardings
        if not self._foreign:
            text = None  # lowered again, for this device's platform, with locations
        return Compiled(be.compile_graph(self.graph, self.device, text, ins, outs,
                                         self._aliases),
                        self.in_tree, self.graph.in_avals, self.out_tree, self.graph.out_avals,
                        self.device)


def _check_dialect(dialect, what):
    if dialect != "stablehlo":
        raise ValueError(f"{what}: unknown dialect {dialect!r}; 'stablehlo' is supported "
                         "(as_text also takes 'hlo'; XLA's optimized HLO is "
                         "Lowered.compile().as_text())")


class Compiled:
    """An executable for one input signature (JAX's ``Compiled``): call it with the
    arguments the function was lowered with (static arguments left out)."""

    def __init__(self, compiled, in_tree, in_avals, out_tree, out_avals, device=None):
        self._c = compiled
        self.in_tree = in_tree
        self.in_avals = tuple(in_avals)
        self.out_tree = out_tree
        self.out_avals = tuple(out_avals)
        self.device = device

    def __call__(self, *args, **kwargs):
        leaves, td = tree_flatten((args, kwargs))
        leaves = adopt_foreign(leaves)
        if self.in_tree is not None and td != self.in_tree:
            raise TypeError("Function compiled with input pytree does not match the input "
                            f"pytree it was called with: compiled for {self.in_tree}, called "
                            f"with {td}")
        if len(leaves) != len(self.in_avals):
            raise TypeError(f"compiled function takes {len(self.in_avals)} arguments, got "
                            f"{len(leaves)}")
        bad = []
        for i, (x, a) in enumerate(zip(leaves, self.in_avals, strict=True)):
            if isinstance(x, Tracer):
                raise TypeError("a Compiled function takes arrays, not traced values: call "
                                "the jitted function inside jit/vmap instead")
            got = abstractify(x, f"argument {i}", "Compiled")
            scalar_ok = got.weak_type and got.shape == a.shape and \
                dtypes._kind(got.dtype) in _WEAK_INTO.get(dtypes._kind(a.dtype), "")
            if not scalar_ok and (got.shape != a.shape or got.dtype != a.dtype):
                bad.append(f"Argument {i} compiled with {a.str_short()} and called with "
                           f"{got.str_short()}")
        if bad:
            wide = [a for a in self.in_avals if a.dtype.itemsize == 8 and a.dtype.kind != "c"
                    or a.dtype == np.complex128]
            hint = "" if config.enable_x64 or not wide else (
                "\n(64-bit arguments need 64-bit mode: frontend.config.update('enable_x64', True))")
            raise TypeError("Argument types differ from the types for which this computation "
                            "was compiled. The mismatches are:\n" + "\n".join(bad) + hint)
        bufs = self._c(arg_buffers(self._c, leaves, self.in_avals, self.device))
        outs = [Array(b, a) for b, a in zip(bufs, self.out_avals, strict=True)]
        return tree_unflatten(self.out_tree, outs)

    def as_text(self) -> str:
        """XLA's optimized HLO (the interpreter's module for device="interpreter")."""
        return self._c.as_text()

    def cost_analysis(self):
        return self._c.cost_analysis()


def arg_buffers(compiled, leaves, avals, device) -> list:
    """The device buffers of a compiled program's arguments: host values go straight to
    their placement (a device, or a program's argument shardings)."""
    places = getattr(compiled, "arg_shardings", None)
    if places is None:
        return [to_buffer(x, a, device) for x, a in zip(leaves, avals, strict=True)]
    return [to_buffer(x, a, p) for x, a, p in zip(leaves, avals, places, strict=True)]


# a Python scalar (weakly typed) may be passed for an argument of these kinds
_WEAK_INTO = {"b": "b", "i": "bi", "u": "bi", "f": "bif", "c": "bifc"}


def compile_stablehlo(module, device=None) -> Compiled:
    """Compile a StableHLO module someone wrote or edited (text, or an ``ir.Module`` from
    ``Lowered.compiler_ir``) for ``device`` (default: the first device; "interpreter" runs
    it on the reference interpreter). The result takes ``@main``'s arguments (arrays of
    exactly its types, Python scalars) and returns Arrays: one, or a tuple for several.

    >>> import numpy as np
    >>> import frontend as fe
    >>> f = fe.compile_stablehlo(\'\'\'func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
    ...   %0 = stablehlo.add %x, %x : tensor<3xf32>
    ...   return %0 : tensor<3xf32>
    ... }\'\'\')
    >>> f(np.ones(3, np.float32))
    Array([2., 2., 2.], dtype=float32)
    """
    be = _backend.get()
    text, in_avals, out_avals = be.stablehlo_signature(module)
    compiled = be.compile_module(text, in_avals, out_avals, device)
    in_tree = tree_flatten((tuple(range(len(in_avals))), {}))[1]
    outs = tuple(range(len(out_avals)))
    out_tree = tree_flatten(outs[0] if len(outs) == 1 else outs)[1]
    return Compiled(compiled, in_tree, in_avals, out_tree, out_avals, device)
