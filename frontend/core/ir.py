"""The graph IR (Aval, Var, Literal, Eqn, Graph), primitives, and the trace machinery.

The current trace is a context variable; every trace knows its parent. ``bind`` hands a
primitive application to the current trace. A trace that needs to compute with plain values
(the batching trace, say) sets its parent as current and binds again.
"""
from __future__ import annotations

import contextvars
import functools
import itertools
import math
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar, overload
from typing import Literal as TypingLiteral

import numpy as np

from . import dtypes
from .shape_poly import DimExpr, canonical_shape

RuleT = TypeVar("RuleT", bound=Callable[..., Any])
TraceT = TypeVar("TraceT", bound="Trace")

# ----------------------------------------------------------------------------- avals

_DTYPE_TYPES = {type(np.dtype(t)) for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8,
                                             np.uint16, np.uint32, np.uint64, np.float16, np.float32,
                                             np.float64, np.complex64, np.complex128)}
_DTYPE_TYPES.add(type(dtypes.bfloat16))


_SHAPES: dict[Any, tuple[int, ...]] = {}
# The one Aval of each (shape, dtype, weak_type) in canonical form. Never dropped: one object
# per value is what makes identity the equality (and hash) of avals, so cache lookups keyed
# by avals cost no Python-level __hash__/__eq__. An aval is small; a program has few.
_AVALS: dict[tuple[Any, Any, Any], Aval] = {}
_SPELLINGS: dict[tuple[Any, Any, Any], Aval] = {}  # other spellings of the key (numpy ints, a scalar type) -> the Aval


def _canonical_shape(shape: Any) -> tuple[int, ...]:
    """``shape`` as a tuple of Python ints: one shared tuple per shape (a dict hit for the
    shapes seen before, which equal-valued tuples of numpy ints find too)."""
    try:
        return _SHAPES[shape]
    except (KeyError, TypeError):
        pass
    t = canonical_shape(shape)
    if len(_SHAPES) > 100_000:
        _SHAPES.clear()
    _SHAPES[t] = t
    return t


_INT64_MAX = 2 ** 63 - 1


def _check_extent(shape: tuple[int, ...], dtype: np.dtype) -> None:
    """ValueError for a shape no XLA array can have: a negative dimension, or a size in
    bytes whose running product overflows int64 (XLA aborts the process on those)."""
    if any(d < 0 for d in shape):
        raise ValueError(f"negative dimensions are not allowed, got shape {shape}")
    n = 1
    for d in (*shape, dtype.itemsize):
        if type(d) is DimExpr:  # (symbolic: bounded when called with concrete shapes)
            continue
        n *= d
        if n > _INT64_MAX:
            raise ValueError(f"shape {shape} of {dtype.name} is too large: its size in bytes "
                             f"overflows a 64-bit integer (the largest XLA can hold)")


class Aval:
    """Abstract value: shape, dtype and weak type. Immutable and interned: one object per
    value, so equality and hashing are by identity (cache key material)."""

    __slots__ = ("shape", "dtype", "weak_type")
    shape: tuple[int, ...]
    dtype: np.dtype
    weak_type: bool

    def __new__(cls, shape: Any, dtype: Any, weak_type: bool = False) -> Aval:
        key: Any = (shape, dtype, weak_type)  # (None for an unhashable shape)
        try:
            return _AVALS[key]
        except KeyError:  # new, or spelled differently (numpy ints in the shape, a scalar type)
            hit = _SPELLINGS.get(key)
            if hit is not None:
                return hit
        except TypeError:  # an unhashable shape (a list)
            key = None
        shape = _canonical_shape(shape)
        dtype = dtype if type(dtype) in _DTYPE_TYPES else np.dtype(dtype)
        weak_type = weak_type if type(weak_type) is bool else bool(weak_type)
        canon = (shape, dtype, weak_type)
        self = _AVALS.get(canon)
        if self is None:
            _check_extent(shape, dtype)
            new = object.__new__(cls)
            sa = object.__setattr__
            sa(new, "shape", shape)
            sa(new, "dtype", dtype)
            sa(new, "weak_type", weak_type)
            # (one atomic step: a thread that made the same aval at the same time gets ours)
            self = _AVALS.setdefault(canon, new)
        if key is not None and key not in _AVALS:
            if len(_SPELLINGS) > 100_000:
                _SPELLINGS.clear()
            _SPELLINGS[key] = self
        return self

    def __reduce__(self) -> tuple[type[Aval], tuple[tuple[int, ...], np.dtype, bool]]:
        return Aval, (self.shape, self.dtype, self.weak_type)

    def __setattr__(self, k: str, v: object) -> NoReturn:
        raise AttributeError("Aval is immutable")

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def update(self, shape: Sequence[int] | None = None, dtype: Any = None,
               weak_type: bool | None = None) -> Aval:
        return Aval(self.shape if shape is None else shape,
                    self.dtype if dtype is None else dtype,
                    self.weak_type if weak_type is None else weak_type)

    def strip_weak(self) -> Aval:
        return self if not self.weak_type else Aval(self.shape, self.dtype, False)

    # (equality and hash: object identity, see _AVALS)

    def str_short(self) -> str:
        return f"{dtypes.short_name(self.dtype)}[{','.join(map(str, self.shape))}]"

    def __repr__(self) -> str:
        return self.str_short() + ("{weak}" if self.weak_type else "")


class ShapeDtypeStruct:
    """A stand-in for an array of ``shape`` and ``dtype`` (JAX's ``ShapeDtypeStruct``):
    what ``eval_shape`` returns, and what ``jit(f).lower`` and ``eval_shape`` accept in
    place of arrays."""

    __slots__ = ("shape", "dtype", "weak_type", "sharding")

    def __init__(self, shape: Sequence[int], dtype: Any, *, sharding: Any = None,
                 weak_type: bool = False) -> None:
        self.shape = canonical_shape(shape)
        self.dtype = np.dtype(dtype)
        self.weak_type = bool(weak_type)
        self.sharding = sharding

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))

    @property
    def aval(self) -> Aval:
        return Aval(self.shape, dtypes.canonicalize(self.dtype), self.weak_type)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ShapeDtypeStruct) and (self.shape, self.dtype, self.weak_type) \
            == (other.shape, other.dtype, other.weak_type)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.weak_type))

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak})"


@overload
def aval_of(x: Any, host: TypingLiteral[True] = ...) -> Aval: ...
@overload
def aval_of(x: Any, host: bool) -> Aval | None: ...
def aval_of(x: Any, host: bool = True) -> Aval | None:
    """The aval of a value: the one an Array, tracer or Literal carries; for host data the
    one it gets on the device (Python scalars weakly typed, numpy arrays in the canonical
    dtype; TypeError for anything else). ``host=False``: None for host data, so that
    ``aval_of(x, host=False) is None`` tells host data from arrays. The one aval accessor
    (no ``hasattr(x, "aval")`` elsewhere)."""
    a = getattr(x, "aval", None)
    if a is not None or not host:
        return a
    if isinstance(x, (bool, int, float, complex)):
        d, w = dtypes.dtype_and_weak(x)
        return Aval((), d, w)
    if isinstance(x, (np.ndarray, np.generic)):
        return Aval(x.shape, dtypes.canonicalize(x.dtype), False)
    raise TypeError(f"Value {x!r} of type {type(x).__name__} is not a valid array type")


# ----------------------------------------------------------------------------- graph IR


class Var:
    """A graph variable. Identity equality; names are given when printing."""

    __slots__ = ("aval",)

    def __init__(self, aval: Aval) -> None:
        self.aval = aval

    def __repr__(self) -> str:
        return f"Var({self.aval})"


class Literal:
    """A scalar constant written inline in an equation."""

    __slots__ = ("val", "aval")

    def __init__(self, val: Any, aval: Aval) -> None:
        self.val = val
        self.aval = aval

    def __repr__(self) -> str:
        return f"{_literal_str(self.val, self.aval)}:{self.aval.str_short()}"


# an operand of an equation, an output of a graph
Atom = Var | Literal

_SCALAR_AVALS: dict[tuple[Any, bool], Aval] = {}
_INT_RANGE: dict[Any, tuple[int, int]] = {}


def literal(value: Any, dtype: Any, weak: bool = False) -> Literal:
    """A rank-0 constant of ``dtype`` (the value as the Python scalar of the dtype's kind).
    A Python int outside the dtype's range is an OverflowError, as in JAX."""
    kind = dtypes._kind(dtype)
    if kind == "b":
        value = bool(value)
    elif kind in "iu":
        if dtype in dtypes.NARROW_TYPES:  # int2/int4/...: Python ints wrap around, as JAX's
            value = np.asarray(int(value)).astype(dtype)
        elif type(value) is int:
            r = _INT_RANGE.get(dtype)
            if r is None:
                info = dtypes.iinfo(dtype)
                r = _INT_RANGE[dtype] = (int(info.min), int(info.max))
            if not r[0] <= value <= r[1]:
                raise OverflowError(f"Python int {value} too large to convert to "
                                    f"{np.dtype(dtype).name}")
        value = int(value)
    elif kind == "c":
        value = complex(value)
    else:
        value = float(value.real) if isinstance(value, complex) else float(value)
    key = (dtype, weak)
    a = _SCALAR_AVALS.get(key)
    if a is None:
        a = _SCALAR_AVALS[key] = Aval((), dtype, weak)
    return Literal(value, a)


def _literal_str(val: Any, aval: Aval) -> str:
    if dtypes.is_bool(aval.dtype):
        return str(bool(val))
    if dtypes.is_int(aval.dtype):
        return str(int(val))
    return repr(float(val)) if not dtypes.is_complex(aval.dtype) else repr(complex(val))


class Params(dict):
    """The params of an equation whose primitive names a param otherwise than JAX does:
    also readable by JAX's name (``eqn.params["jaxpr"]`` is a scan's ``body``), as
    ``Primitive.param_aliases`` says."""

    __slots__ = ("_aliases",)

    def __init__(self, params: dict[str, Any], aliases: dict[str, str]) -> None:
        super().__init__(params)
        self._aliases = aliases

    def __missing__(self, key: str) -> Any:
        real = self._aliases.get(key)
        if real is None:
            raise KeyError(key)
        return self[real]

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or key in self._aliases

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default


class Eqn:
    """One primitive application: ``outs = prim[params](*inputs)``. Not mutated after
    construction (passes build new equations, passing ``loc`` on). ``loc``: where the user's
    code made it, ``(code object, bytecode offset)`` of the innermost frame outside vmaplab,
    or None (``source_info(e.loc)`` spells it out)."""

    __slots__ = ("prim", "inputs", "params", "outs", "loc")

    def __init__(self, prim: Primitive, inputs: tuple[Atom, ...], params: dict[str, Any],
                 outs: tuple[Var, ...], loc: tuple[Any, int] | None = None) -> None:
        self.prim = prim
        self.inputs = inputs  # of Var | Literal
        aliases = prim.param_aliases
        self.params = params if aliases is None else Params(params, aliases)
        self.outs = outs  # of Var
        self.loc = loc

    @property
    def primitive(self) -> Primitive:
        """JAX's name for ``prim`` (``jaxpr.eqns[i].primitive``)."""
        return self.prim

    def __repr__(self) -> str:
        return f"Eqn({self.prim.name}, {self.inputs}, {self.params}, {self.outs})"


# ----------------------------------------------------------------------------- source locations

_INTERNAL_DIRS = tuple(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), d) + os.sep for d in ("frontend", "lowering"))
_internal_code: dict[Any, bool] = {}  # code object -> whether it is vmaplab's own
# The location equations take while ``eval_graph`` re-binds a graph's equations (inlining,
# batching or differentiating a traced graph): the one each came from.
_rebinding_loc: contextvars.ContextVar[tuple[Any, int] | None] = contextvars.ContextVar(
    "vmaplab_loc", default=None)


class source_loc:
    """``with source_loc(e.loc):`` the equations made inside take ``e.loc`` (nothing
    changes for None): re-binding a graph's equations (inlining, the backward pass) keeps
    the user's lines of the equations they come from, as JAX's ``user_context``."""

    __slots__ = ("loc", "token")

    def __init__(self, loc: tuple[Any, int] | None) -> None:
        self.loc = loc
        self.token: contextvars.Token[tuple[Any, int] | None] | None = None

    def __enter__(self) -> None:
        if self.loc is not None:
            self.token = _rebinding_loc.set(self.loc)

    def __exit__(self, *exc: Any) -> None:
        if self.token is not None:
            _rebinding_loc.reset(self.token)


def register_exclusion(path: str) -> None:
    """Frames of files under ``path`` are not the user's (as JAX's
    ``source_info_util.register_exclusion``): e.g. a library wrapping vmaplab's functions."""
    global _INTERNAL_DIRS
    _INTERNAL_DIRS = (*_INTERNAL_DIRS, os.path.abspath(path))
    _internal_code.clear()
    source_info.cache_clear()


# the names of the enclosing ``named_scope``s, joined by "/" ("" outside any)
name_stack: contextvars.ContextVar[str] = contextvars.ContextVar("name_stack", default="")


def user_frame() -> tuple[Any, ...] | None:
    """``(code, bytecode offset)`` of the innermost frame outside frontend/ and lowering/
    (JAX's traceback filtering): the user's line that is making an equation, plus the
    ``named_scope`` names around it as a third item when there are some. Cheap: a walk of
    frame objects, with one dict hit per frame; the line is found only when asked for."""
    loc = _rebinding_loc.get()
    if loc is not None:
        return loc
    f: Any = sys._getframe(2)
    internal = _internal_code
    while f is not None:
        c = f.f_code
        i = internal.get(c)
        if i is None:
            i = internal[c] = c.co_filename.startswith(_INTERNAL_DIRS)
        if not i:
            scope = name_stack.get()
            return (c, f.f_lasti, scope) if scope else (c, f.f_lasti)
        f = f.f_back
    return None


def loc_scope(loc: tuple | None) -> str:
    """The ``named_scope`` names an equation was made under ("a/b"; "" for none)."""
    return loc[2] if loc is not None and len(loc) > 2 else ""


@functools.lru_cache(maxsize=8192)
def source_info(loc: tuple[Any, int] | None) -> tuple[str, int, int, int, str] | None:
    """``(file, line, column, end column, function)`` of an equation's ``loc`` (columns
    counted from 0, as Python's and JAX's locations); None for None."""
    if loc is None:
        return None
    code, lasti = loc[0], loc[1]
    pos = next(itertools.islice(code.co_positions(), lasti // 2, None), None)
    line, _, col, end = pos if pos is not None else (None, None, None, None)
    if line is None:
        line = code.co_firstlineno
    col = col or 0
    return (code.co_filename, line, col, end if end is not None else col, code.co_name)


def format_loc(loc: tuple[Any, int] | None) -> str:
    """``file:line:column (function)``, or "" for None."""
    info = source_info(loc)
    return "" if info is None else f"{info[0]}:{info[1]}:{info[2]} ({info[4]})"


def param_graphs(v: Any) -> tuple[Graph, ...]:
    """The sub-graphs a param value holds: ``(v,)`` for a Graph, ``v`` for a tuple of Graphs
    (cond branches), ``()`` for anything else. The one test of "this param is a sub-graph",
    which every walk over sub-graphs goes through."""
    t = type(v)
    if t is Graph:
        return (v,)
    if t is tuple and v and type(v[0]) is Graph:
        return v
    return ()


def subgraphs(e: Eqn) -> list[Graph]:
    """The Graphs held in the params of ``e`` (cond branches, loop bodies), in param order."""
    gs: list[Graph] = []
    if e.params:
        for v in e.params.values():
            gs += param_graphs(v)
    return gs


@dataclass(frozen=True, eq=False)
class Graph:
    """invars: arguments; constvars + consts: captured constants; eqns; outvars."""

    invars: tuple[Var, ...]
    constvars: tuple[Var, ...]
    consts: tuple[Any, ...]
    eqns: tuple[Eqn, ...]
    outvars: tuple[Atom, ...]

    @property
    def in_avals(self) -> tuple[Aval, ...]:
        return tuple(v.aval for v in self.invars)

    @property
    def jaxpr(self) -> Graph:
        """The graph itself (JAX's ``ClosedJaxpr.jaxpr``: ours holds its constants too)."""
        return self

    # Facts the passes ask of every graph, found once per graph (a Graph is not mutated):
    @functools.cached_property
    def nested(self) -> tuple[Eqn, ...]:
        """The equations holding sub-graphs (control flow, calls), in order."""
        return tuple([e for e in self.eqns if e.params and subgraphs(e)])

    @functools.cached_property
    def prims(self) -> frozenset[Primitive]:
        """The primitives of the equations (not those of sub-graphs)."""
        return frozenset([e.prim for e in self.eqns])

    @property
    def out_avals(self) -> tuple[Aval, ...]:
        return tuple(v.aval for v in self.outvars)

    def __str__(self) -> str:
        return pp_graph(self)

    def pretty_print(self, *, source_info: bool = False) -> str:
        """The printed graph; ``source_info=True`` adds each equation's Python location
        (``# file:line:column (function)``), as JAX's ``Jaxpr.pretty_print``."""
        return pp_graph(self, 0, source_info)

    __repr__ = __str__

    def typecheck(self) -> Graph:
        """Re-run abstract evaluation on every equation; raise JaxprTypeError (a TypeError)
        on a mismatch."""
        typecheck(self)
        return self


def _names() -> Iterator[str]:
    for n in itertools.count():
        s = ""
        n += 1
        while n:
            n, r = divmod(n - 1, 26)
            s = chr(97 + r) + s
        yield s


def _fmt_param(v: Any, indent: int, source_info: bool = False) -> str:
    gs = param_graphs(v)
    if gs:
        text = ", ".join("\n" + pp_graph(g, indent + 4, source_info) for g in gs)
        return text if type(v) is Graph else "(" + text + ")"
    if isinstance(v, np.dtype):
        return str(v)
    return repr(v) if not isinstance(v, str) else v


def pp_graph(g: Graph, indent: int = 0, source_info: bool = False) -> str:
    """Print like a jaxpr: ``{ lambda a:f32[3]; b:f32[3,5]. let c:f32[3] = ... in (c,) }``;
    with ``source_info``, each equation ends with ``# file:line:column (function)``, the
    user's line that made it (as JAX's ``pretty_print(source_info=True)``)."""
    gen = _names()
    names: dict[int, str] = {}

    def name(v: Atom) -> str:
        if isinstance(v, Literal):
            return repr(v)
        n = names.get(id(v))
        if n is None:
            n = names[id(v)] = next(gen)
        return n

    def decl(v: Atom) -> str:
        return f"{name(v)}:{v.aval.str_short()}"

    pad = " " * indent
    consts = " ".join(decl(v) for v in g.constvars)
    args = " ".join(decl(v) for v in g.invars)
    lines = [f"{pad}{{ lambda {consts}; {args}. let"]
    for e in g.eqns:
        outs = " ".join(decl(v) for v in e.outs)
        params = ""
        if e.params:
            params = "[" + " ".join(f"{k}={_fmt_param(v, indent, source_info)}"
                                    for k, v in sorted(e.params.items())) + "]"
        ins = " ".join(name(v) for v in e.inputs)
        line = f"{pad}    {outs} = {e.prim.name}{params} {ins}".rstrip()
        if source_info and e.loc is not None:
            line += f"  # {format_loc(e.loc)}"
        lines.append(line)
    outs = ", ".join(name(v) for v in g.outvars)
    lines.append(f"{pad}  in ({outs}{',' if len(g.outvars) == 1 else ''}) }}")
    return "\n".join(lines)


class JaxprTypeError(TypeError):
    """A graph that does not type-check (JAX's ``JaxprTypeError``)."""


def typecheck(g: Graph) -> None:
    env = set(map(id, g.invars)) | set(map(id, g.constvars))
    for v, c in zip(g.constvars, g.consts, strict=True):
        if aval_of(c).shape != v.aval.shape:
            raise JaxprTypeError(f"constant of shape {np.shape(c)} bound to {v.aval}")
    for e in g.eqns:
        for x in e.inputs:
            if isinstance(x, Var) and id(x) not in env:
                raise JaxprTypeError(f"{e.prim.name}: input {x} used before it is defined")
        outs = e.prim.abstract_eval(*(x.aval for x in e.inputs), **e.params)
        outs = outs if e.prim.multiple_results else (outs,)
        got = tuple(v.aval for v in e.outs)
        if tuple(a.strip_weak() for a in outs) != tuple(a.strip_weak() for a in got):
            raise JaxprTypeError(f"{e.prim.name}: equation declares {got}, abstract eval gives {tuple(outs)}")
        env.update(map(id, e.outs))
    for o in g.outvars:
        if isinstance(o, Var) and id(o) not in env:
            raise JaxprTypeError(f"graph output {o} is not defined")


# ----------------------------------------------------------------------------- primitives


_rule_listeners: list[Callable[[], object]] = []

# the platforms a program can be lowered for (JAX's names)
LOWERING_PLATFORMS = ("cpu", "cuda", "rocm", "tpu")


def on_rule_change(fn: Callable[[], object]) -> None:
    """Call ``fn()`` whenever a rule is replaced (see ``rule_replaced``): caches of programs
    built with the old rule drop them (eager executables, jitted signatures)."""
    _rule_listeners.append(fn)


def rule_replaced() -> None:
    """A rule that programs may have been built with was replaced (a primitive's, or a
    custom_jvp / custom_vjp / custom_vmap function's): drop those programs."""
    for listener in _rule_listeners:
        listener()


class Primitive:
    """A primitive operation: one object holding its rules, each set with a ``def_*`` method.

    - ``def_abstract_eval(fn)``: ``fn(*avals, **params)`` gives the output Aval (a list of
      them with ``multiple_results``) and raises TypeError/ValueError for bad input.
    - ``def_batching(fn)``: ``fn(batched_args, batch_dims, **params) -> (out, out_dim)``
      (JAX's signature): ``batch_dims[i]`` is where argument i carries the batch axis, or None
      when it is not batched; the rule runs under the enclosing trace, binds ordinary
      primitives and says where the batch axis of the result is (lists of both for
      ``multiple_results``). Without one, vmap runs the primitive in a loop, with a warning.
    - ``def_lowering(fn)``: ``fn(ctx, *operands, **params) -> [results]`` writes StableHLO:
      ``operands`` and ``results`` are SSA names, ``ctx`` the per-equation emitter context
      that ``lowering/`` passes in (``ctx.avals_in``, ``ctx.avals_out``, ``ctx.op(text)``,
      ``ctx.type(aval)``, constants, broadcasts, regions).
      ``def_lowering(fn, platform="cuda")`` (JAX's platform names: "cpu", "cuda", "rocm",
      "tpu") sets the rule for one platform; the rule without a platform is the default.
    - ``def_jvp(fn)`` / ``def_transpose(fn)``: the autodiff rules.
    - ``def_impl(fn)``: ``fn(*args, **params)`` runs the primitive eagerly (outside any
      transformation) instead of compiling it (JAX's ``def_impl``): ``args`` are the
      concrete operands (Arrays, numpy arrays or scalars); return what ``bind`` returns.

    Rules live on the object and are found there; ``name`` is only for printing, so two
    primitives may share a name. Arrays are positional, static params keyword-only and
    hashable (tuples, not lists).

    >>> import numpy as np
    >>> import frontend as fe
    >>> from frontend.extend import Primitive
    >>> rms_norm_p = Primitive("rms_norm")
    >>> @rms_norm_p.def_abstract_eval
    ... def _rms_norm_abstract_eval(x, *, eps):
    ...     return x                     # same shape and dtype as the operand
    >>> print(fe.make_graph(lambda x: rms_norm_p.bind(x, eps=1e-6))(np.ones(3, np.float32)))
    { lambda ; a:f32[3]. let
        b:f32[3] = rms_norm[eps=1e-06] a
      in (b,) }
    """

    # {JAX's param name: ours} for the params named otherwise than JAX's (sub-graphs)
    param_aliases: dict[str, str] | None = None

    def __init__(self, name: str, *, multiple_results: bool = False) -> None:
        self.name = name
        self.multiple_results = multiple_results
        self.abstract_eval_rule: Callable[..., Any] | None = None
        self.batching_rule: Callable[..., Any] | None = None
        self.lowering_rule: Callable[..., Any] | None = None  # the default (any platform)
        self.platform_lowering_rules: dict[str, Callable[..., Any]] = {}
        self.jvp_rule: Callable[..., Any] | None = None
        self.transpose_rule: Callable[..., Any] | None = None
        self.impl_rule: Callable[..., Any] | None = None

    def __repr__(self) -> str:
        return self.name

    looped = False  # set once vmap ran it in a loop for want of a batching rule
    # vmap over a ragged batch (frontend.interpreters.ragged): ``fn(args, raxes, lane_length,
    # **params) -> (out, out_raxes)``, written for one example; None: a ragged operand is an error
    ragged_rule: Callable[..., Any] | None = None

    def def_abstract_eval(self, fn: RuleT) -> RuleT:
        return self._set_rule("abstract_eval_rule", fn)

    def def_batching(self, fn: RuleT) -> RuleT:
        return self._set_rule("batching_rule", fn)

    def def_lowering(self, fn: RuleT | None = None, *, platform: str | None = None) -> Any:
        """Set the lowering rule (for ``platform``, one of ``LOWERING_PLATFORMS``; None: the
        default); ``@p.def_lowering(platform="tpu")`` works as a decorator too."""
        if fn is None:
            return lambda f: self.def_lowering(f, platform=platform)
        if platform is None:
            return self._set_rule("lowering_rule", fn)
        if platform not in LOWERING_PLATFORMS:
            raise ValueError(f"def_lowering: unknown platform {platform!r}; expected one of "
                             f"{LOWERING_PLATFORMS} (or None for the default rule)")
        old = self.platform_lowering_rules.get(platform)
        self.platform_lowering_rules = {**self.platform_lowering_rules, platform: fn}
        if old is not None and old is not fn:
            rule_replaced()
        return fn

    def lowering_for(self, platform: str) -> Callable[..., Any] | None:
        """The lowering rule for ``platform``: its own, else the default."""
        rules = self.platform_lowering_rules
        return rules.get(platform, self.lowering_rule) if rules else self.lowering_rule

    def def_ragged(self, fn: RuleT) -> RuleT:
        return self._set_rule("ragged_rule", fn)

    def def_jvp(self, fn: RuleT) -> RuleT:
        return self._set_rule("jvp_rule", fn)

    def def_transpose(self, fn: RuleT) -> RuleT:
        return self._set_rule("transpose_rule", fn)

    def def_impl(self, fn: RuleT) -> RuleT:
        return self._set_rule("impl_rule", fn)

    def _set_rule(self, slot: str, fn: RuleT) -> RuleT:
        """Set a rule. A rule replaced after use takes effect at the next trace: the programs
        built with the old one (or with vmap's loop, for a first batching rule) are dropped
        by the listeners of ``on_rule_change``. A first rule costs nothing: nothing was
        built with it."""
        old = getattr(self, slot)
        setattr(self, slot, fn)
        if old is not fn and (old is not None or slot == "batching_rule" and self.looped):
            rule_replaced()
        return fn

    def abstract_eval(self, *avals: Aval, **params: Any) -> Any:  # Aval | list[Aval]
        rule = self.abstract_eval_rule
        if rule is None:
            raise NotImplementedError(
                f"primitive {self.name!r} has no abstract evaluation rule: define one with "
                f"p.def_abstract_eval(fn), fn(*avals, **params) -> output aval(s)")
        out = rule(*avals, **params)
        if self.multiple_results:
            if type(out) is not list:
                out = _as_aval_list(self, out)
            elif not all(type(a) is Aval for a in out):
                out = _as_aval_list(self, out)
        elif type(out) is not Aval:
            out = _as_aval(self, out)
        return out

    def bind(self, *args: Any, **params: Any) -> Any:
        return _trace_var.get().process(self, args, params)


def _as_aval(prim: Primitive, a: Any) -> Aval:
    """An abstract-eval result as an Aval: ours, or any object with ``shape`` and ``dtype``
    (JAX's ShapedArray, ShapeDtypeStruct)."""
    if isinstance(a, Aval):
        return a
    if hasattr(a, "shape") and hasattr(a, "dtype"):
        return Aval(tuple(a.shape), dtypes.canonicalize(np.dtype(a.dtype)),
                    bool(getattr(a, "weak_type", False)))
    what = "a list of avals" if prim.multiple_results else "an aval"
    raise TypeError(f"the abstract evaluation rule of primitive {prim.name!r} must return "
                    f"{what} (frontend.ShapedArray), got {type(a).__name__}: {a!r}")


def _as_aval_list(prim: Primitive, outs: Any) -> list[Aval]:
    if not isinstance(outs, (list, tuple)):
        raise TypeError(f"primitive {prim.name!r} has multiple_results=True: its abstract "
                        f"evaluation rule must return a list of avals, got {type(outs).__name__}")
    return [_as_aval(prim, a) for a in outs]


# ----------------------------------------------------------------------------- traces
# The current trace lives in ``_trace_var`` (defined below, once EVAL exists, so that every
# thread starts at EVAL).


# Functions called with the trace that becomes current whenever ``with trace:`` enters or
# leaves one (the backend keeps the C++ jit dispatcher's cache key in step with it).
trace_hooks: list[Callable[[Trace], object]] = []


class Trace:
    """Base trace. ``parent`` is the trace a value of this one is computed with."""

    _batch_rule: Any = None  # the child BatchTrace whose batching rule computes with this trace

    def __init__(self, parent: Trace | None) -> None:
        self.parent = parent
        self.depth: int = 0 if parent is None else parent.depth + 1
        self._tokens: list[contextvars.Token[Trace]] = []

    def process(self, prim: Primitive, args: Sequence[Any], params: dict[str, Any]) -> Any:
        raise NotImplementedError

    def const(self, x: np.ndarray, weak: bool = False) -> Any:
        """A host constant (numpy array of a canonical dtype) as a value of this trace. A
        constant is the same for every lane or tangent, so by default it is a value of the
        parent trace; a graph trace records it as a constvar (no device transfer)."""
        assert self.parent is not None  # (only the eager trace has none; it overrides const)
        return self.parent.const(x, weak)

    def __enter__(self: TraceT) -> TraceT:
        # (``with trace:`` keeps the token on the trace: only for a trace of one thread, one
        # made by new_trace; the eager trace is every thread's, see set_current)
        self._tokens.append(set_current(self))
        return self

    def __exit__(self, *exc: object) -> None:
        reset_current(self._tokens.pop())

    def is_ancestor_of(self, other: Trace) -> bool:
        t: Trace | None = other
        while t is not None:
            if t is self:
                return True
            t = t.parent
        return False


def set_current(trace: Trace) -> contextvars.Token[Trace]:
    """Make ``trace`` current; returns the token that ``reset_current`` takes back. The
    caller keeps the token (a local variable): a trace that may be current in several
    threads at once, as the eager trace always is, must not hold it (a token only resets
    the context, i.e. the thread, that made it)."""
    token = _trace_var.set(trace)
    for hook in trace_hooks:
        hook(trace)
    return token


def reset_current(token: contextvars.Token[Trace]) -> None:
    _trace_var.reset(token)
    if trace_hooks:
        t = _trace_var.get()
        for hook in trace_hooks:
            hook(t)


class EvalTrace(Trace):
    """The outermost trace: runs each primitive on the device (frontend.device.array.eager_apply).
    Every thread's, so never entered with ``with`` (see set_current)."""

    def __enter__(self) -> NoReturn:
        raise RuntimeError("the eager trace is shared by every thread: make it current with "
                           "set_current(trace) and reset_current(token), keeping the token")

    def process(self, prim: Primitive, args: Sequence[Any], params: dict[str, Any]) -> Any:
        for a in args:
            if isinstance(a, Tracer):
                raise escaped_tracer_error(a)
        impl = prim.impl_rule
        if impl is not None:
            return impl(*args, **params)
        return _eager_apply(prim, args, params)

    def const(self, x: np.ndarray, weak: bool = False) -> Any:
        return _eager_const(x, weak)


def escaped_tracer_error(t: Tracer) -> Exception:
    return UnexpectedTracerError(
        f"Encountered a traced value {t.aval.str_short()} outside the transformation that "
        "created it (it was stored somewhere and used after the function returned). "
        "Return it as an output instead of keeping it in a global or closure.")


class JAXTypeError(TypeError):
    """The base of JAX's TypeErrors about traced values (``frontend.errors``)."""


class JAXIndexError(IndexError):
    """The base of JAX's IndexErrors about traced values (``frontend.errors``)."""


class UnexpectedTracerError(JAXTypeError):
    pass


def _no_eager(*_args: Any) -> NoReturn:
    raise RuntimeError("eager execution is not installed: import frontend (frontend.device.array "
                       "installs it with set_eager_apply)")


# set by frontend.device.array (set_eager_apply)
_eager_apply: Callable[[Primitive, Sequence[Any], dict[str, Any]], Any] = _no_eager
_eager_const: Callable[[np.ndarray, bool], Any] = _no_eager


def set_eager_apply(fn: Callable[[Primitive, Sequence[Any], dict[str, Any]], Any],
                    const: Callable[[np.ndarray, bool], Any]) -> None:
    """Install eager execution: ``fn(prim, args, params)`` runs one primitive, ``const(x,
    weak)`` puts a host constant on the device."""
    global _eager_apply, _eager_const
    _eager_apply, _eager_const = fn, const


EVAL = EvalTrace(None)
_trace_var: contextvars.ContextVar[Trace] = contextvars.ContextVar("vmaplab_trace", default=EVAL)


def current_trace() -> Trace:
    return _trace_var.get()


def new_trace(cls: type[TraceT], *a: Any, **kw: Any) -> TraceT:
    return cls(current_trace(), *a, **kw)


class Tracer:
    """A value under a trace. Operators and methods come from frontend.numpy (see
    frontend.device.array_methods), shared with the eager Array."""

    __slots__ = ("_trace",)
    __array_priority__ = 1000
    _trace: Trace

    if TYPE_CHECKING:  # (subclasses give it as a slot or a property)
        aval: Aval
    else:
        @property
        def aval(self) -> Aval:
            raise NotImplementedError

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def _concrete_error(self, what: str) -> ConcretizationTypeError:
        cls = {"bool()": TracerBoolConversionError, "__index__()": TracerIntegerConversionError,
               "numpy.asarray()": TracerArrayConversionError}.get(what, ConcretizationTypeError)
        return cls(
            f"Abstract tracer value encountered where concrete value is expected: {what} was "
            f"called on a traced {self.aval.str_short()} value. Inside jit, vmap and make_graph "
            "values are abstract (only shape and dtype are known) while the function is traced, "
            "so Python control flow cannot depend on them. Use fnp.where or lax.cond / "
            "lax.while_loop instead, or mark the argument static with jit(static_argnums=...).")

    def __bool__(self) -> NoReturn:
        raise self._concrete_error("bool()")

    def __int__(self) -> NoReturn:
        raise self._concrete_error("int()")

    def __float__(self) -> NoReturn:
        raise self._concrete_error("float()")

    def __index__(self) -> NoReturn:
        raise self._concrete_error("__index__()")

    def __complex__(self) -> NoReturn:
        raise self._concrete_error("complex()")

    def __array__(self, *a: Any, **k: Any) -> NoReturn:
        raise self._concrete_error("numpy.asarray()")

    if TYPE_CHECKING:  # (indexing comes from frontend.numpy, see frontend.device.array_methods)
        def __getitem__(self, i: Any) -> Any: ...

    def __iter__(self) -> Iterator[Any]:
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __hash__(self) -> NoReturn:
        raise TypeError("unhashable type: traced array")


class ConcretizationTypeError(JAXTypeError):
    pass


class TracerBoolConversionError(ConcretizationTypeError):
    """bool() of a traced value."""


class TracerIntegerConversionError(ConcretizationTypeError):
    """A traced value used as an index (``__index__``): JAX's class of this name, here
    also a ConcretizationTypeError (as vmaplab raised before it had the class)."""


class TracerArrayConversionError(ConcretizationTypeError):
    """numpy.asarray() of a traced value: JAX's class of this name, here also a
    ConcretizationTypeError (as vmaplab raised before it had the class)."""


# ----------------------------------------------------------------------------- graph tracing


class GraphTracer(Tracer):
    __slots__ = ("_var", "aval")  # not ``var``: that name is the numpy method x.var()

    def __init__(self, trace: GraphTrace, var: Var) -> None:
        self._trace = trace
        self._var = var
        self.aval = var.aval

    def __repr__(self) -> str:
        return f"Traced<{self.aval.str_short()}>"


class GraphTrace(Trace):
    """Records equations. Values from outside (numpy arrays, eager Arrays, tracers of an
    ancestor trace) become constvars; Python scalars become Literals."""

    def __init__(self, parent: Trace | None) -> None:
        super().__init__(parent)
        self.eqns: list[Eqn] = []
        self.constvars: list[Var] = []
        self.consts: list[Any] = []
        # id(value) -> (value, var): the value is kept alive
        self._const_ids: dict[tuple[int, bool], tuple[Any, Var]] = {}

    def const(self, x: Any, weak: bool = False) -> GraphTracer:
        return GraphTracer(self, self._constvar(x, weak))

    def new_arg(self, aval: Aval) -> GraphTracer:
        return GraphTracer(self, Var(aval))

    def to_atom(self, x: Any) -> Atom:
        if isinstance(x, GraphTracer) and x._trace is self:
            return x._var
        if isinstance(x, Literal):
            return x
        if isinstance(x, (bool, int, float, complex)):
            return Literal(x, aval_of(x))
        if isinstance(x, Tracer) and not x._trace.is_ancestor_of(self):
            raise escaped_tracer_error(x)
        return self._constvar(x, False)

    def _constvar(self, x: Any, weak: bool) -> Var:
        """The constvar of a value from outside, one per (object, weak type)."""
        key = (id(x), weak)
        hit = self._const_ids.get(key)
        if hit is not None:
            return hit[1]
        c = x
        if isinstance(c, np.generic):
            c = np.asarray(c)
        if isinstance(c, np.ndarray):
            d = dtypes.canonicalize(c.dtype)
            if c.dtype != d:
                c = c.astype(d)
            v = Var(Aval(c.shape, d, weak))
        else:
            a = aval_of(c)
            v = Var(a if not weak else a.update(weak_type=True))
        self._const_ids[key] = (x, v)
        self.constvars.append(v)
        self.consts.append(c)
        return v

    def process(self, prim: Primitive, args: Sequence[Any], params: dict[str, Any]) -> Any:
        atoms = tuple([a._var if type(a) is GraphTracer and a._trace is self
                       else a if type(a) is Literal else self.to_atom(a) for a in args])
        avals = [a.aval for a in atoms]
        rule = prim.abstract_eval_rule
        if prim.multiple_results or rule is None:
            out_avals = prim.abstract_eval(*avals, **params)
            if prim.multiple_results:
                outs = tuple(Var(a) for a in out_avals)
                self.eqns.append(Eqn(prim, atoms, params, outs, user_frame()))
                return [GraphTracer(self, v) for v in outs]
        else:  # (Primitive.abstract_eval without its call, for the common case)
            out_avals = rule(*avals, **params)
            if type(out_avals) is not Aval:
                out_avals = _as_aval(prim, out_avals)
        out = Var(out_avals)
        self.eqns.append(Eqn(prim, atoms, params, (out,), user_frame()))
        return GraphTracer(self, out)

    def to_graph(self, in_tracers: Sequence[GraphTracer], out_vals: Sequence[Any]) -> Graph:
        outvars = tuple(self.to_atom(o) for o in out_vals)
        invars = tuple(t._var for t in in_tracers)
        return Graph(invars, tuple(self.constvars), tuple(self.consts), tuple(self.eqns), outvars)


def eval_graph(g: Graph, consts: Sequence[Any], args: Sequence[Any]) -> list[Any]:
    """Re-bind every equation of ``g`` under the current trace (inlining)."""
    env: dict[int, Any] = {}
    for v, x in zip(g.constvars, consts, strict=True):
        env[id(v)] = x
    for v, x in zip(g.invars, args, strict=True):
        env[id(v)] = x

    def read(a: Atom) -> Any:
        return a if type(a) is Literal else env[id(a)]  # Literals keep their dtype

    for e in g.eqns:
        with source_loc(e.loc):
            out = e.prim.bind(*map(read, e.inputs), **e.params)
        if e.prim.multiple_results:
            for v, o in zip(e.outs, out, strict=True):
                env[id(v)] = o
        else:
            env[id(e.outs[0])] = out
    return [read(v) for v in g.outvars]


def inline_graph(g: Graph, args: Sequence[Any]) -> list[Any]:
    """``eval_graph`` with the graph's own constants: ``g`` as a function of its arguments."""
    return eval_graph(g, g.consts, args)
