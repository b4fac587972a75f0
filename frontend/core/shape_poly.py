"""Symbolic dimensions for shape-polymorphic export (JAX's ``jax.export.symbolic_shape``).

A dimension is an int or a ``DimExpr``: a polynomial with int coefficients over atoms, an
atom being a symbol (``b``) or an operation the polynomial cannot express (``floordiv(b,
2)``, ``mod(b, 3)``, ``max(b, 4)``, ``min(b, c)``). Every symbol is an integer >= 1; a
``SymbolicScope`` adds the user's constraints (``"b >= 16"``, ``"b <= 1024"``, ``"c == 2*b"``).

Arithmetic with ints and other dimensions of the same scope gives a dimension (an int when
the symbols cancel). ``==`` is True when the two are provably equal, else False (as JAX's);
``<``, ``<=``, ``>``, ``>=`` answer when the bounds decide them and otherwise raise
``InconclusiveDimensionOperation``, as does ``int(d)`` / ``operator.index(d)``.

    >>> from frontend.export import symbolic_shape
    >>> b, n = symbolic_shape("b, 16")
    >>> (2 * b + 1, b * n, (2 * b + 1) // 2, b >= 1)
    (2*b + 1, 16*b, b, True)
"""
from __future__ import annotations

import ast
import itertools
import math
from typing import Any

import numpy as np

_DOCS = ("Please see https://docs.jax.dev/en/latest/export/shape_poly.html"
         "#comparison-of-symbolic-dimensions-is-partially-supported for more details.")
_INF = math.inf


class InconclusiveDimensionOperation(Exception):
    """A comparison or conversion of symbolic dimensions whose answer depends on the values
    of the symbols (JAX's exception of the same name)."""

    def __init__(self, message: str) -> None:
        super().__init__(
            f"{message}\nThis error arises for comparison operations with shapes that\n"
            "are non-constant, and the result of the operation cannot be represented as\n"
            "a boolean value for all values of the symbolic dimensions involved.\n\n" + _DOCS)


class SymbolicScope:
    """The constraints symbols of one ``symbolic_shape`` call (or of one ``scope=``) obey.
    Dimensions of different scopes never mix (JAX's rule)."""

    _ids = itertools.count()

    def __init__(self, constraints_str: Any = ()) -> None:
        if isinstance(constraints_str, str):
            raise ValueError("The symbolic constraints should be a sequence of strings. "
                             f"Got {constraints_str!r}")
        self.id = next(self._ids)
        self._constraints_str = tuple(constraints_str)
        self._geq: list = []  # expressions e with e >= 0 by a constraint
        self._eq: list = []   # (left, right) of the equality constraints (checked at call)
        for c in self._constraints_str:
            self._add_constraint(c)

    def _add_constraint(self, text: str) -> None:
        try:
            node = ast.parse(text.strip(), mode="eval").body
        except SyntaxError:
            node = None
        if not isinstance(node, ast.Compare) or len(node.ops) != 1 or \
                type(node.ops[0]) not in (ast.GtE, ast.LtE, ast.Eq):
            raise ValueError(f"Invalid constraint {text!r}: a constraint is 'e1 >= e2', "
                             "'e1 <= e2' or 'e1 == e2'")
        left, right = (_build(n, self, text) for n in (node.left, node.comparators[0]))
        diff = left - right
        if isinstance(diff, int) or not isinstance(left, DimExpr) and \
                not isinstance(right, DimExpr):
            raise ValueError(f"Invalid constraint {text!r}: it must involve a symbol")
        op = type(node.ops[0])
        if op is ast.GtE:
            self._geq.append(diff)
        elif op is ast.LtE:
            self._geq.append(-diff)
        else:
            self._geq += [diff, -diff]
            self._eq.append((left, right, text))

    def constraints(self) -> tuple:
        return self._constraints_str

    def __repr__(self) -> str:
        return f"SymbolicScope({list(self._constraints_str)})"


def _key(x: Any) -> str:
    return repr(x)


class DimExpr:
    """A symbolic dimension (see the module's doc). Immutable and hashable."""

    __slots__ = ("_terms", "scope", "_hash")

    def __init__(self, terms: dict, scope: SymbolicScope) -> None:
        # terms: monomial -> nonzero int coefficient; a monomial is a sorted tuple of
        # (atom, power); the constant's monomial is ()
        self._terms = tuple(sorted(((m, c) for m, c in terms.items() if c),
                                   key=lambda mc: _mono_order(mc[0])))
        self.scope = scope
        self._hash = hash((self._terms, scope.id))

    # -- construction helpers

    @staticmethod
    def _make(terms: dict, scope: SymbolicScope) -> Any:
        terms = {m: c for m, c in terms.items() if c}
        if not terms:
            return 0
        if list(terms) == [()]:
            return terms[()]
        return DimExpr(terms, scope)

    def _coerce(self, other: Any, what: str) -> dict | None:
        if isinstance(other, DimExpr):
            if other.scope is not self.scope:
                raise ValueError(f"Invalid mixing of symbolic scopes when {what} '{self}' "
                                 f"and '{other}': the symbols of one export must come from "
                                 "one symbolic_shape call, or share its scope= argument")
            return dict(other._terms)
        if isinstance(other, bool) or not _is_int(other):
            return None
        return {(): int(other)}

    # -- arithmetic

    def __add__(self, other: Any) -> Any:
        o = self._coerce(other, "adding")
        if o is None:
            return NotImplemented
        t = dict(self._terms)
        for m, c in o.items():
            t[m] = t.get(m, 0) + c
        return DimExpr._make(t, self.scope)

    __radd__ = __add__

    def __neg__(self) -> Any:
        return DimExpr._make({m: -c for m, c in self._terms}, self.scope)

    def __pos__(self) -> DimExpr:
        return self

    def __sub__(self, other: Any) -> Any:
        o = self._coerce(other, "subtracting")
        if o is None:
            return NotImplemented
        return self + DimExpr._make({m: -c for m, c in o.items()}, self.scope)

    def __rsub__(self, other: Any) -> Any:
        return (-self) + other

    def __mul__(self, other: Any) -> Any:
        o = self._coerce(other, "multiplying")
        if o is None:
            return NotImplemented
        t: dict = {}
        for m1, c1 in self._terms:
            for m2, c2 in o.items():
                m = _mono_mul(m1, m2)
                t[m] = t.get(m, 0) + c1 * c2
        return DimExpr._make(t, self.scope)

    __rmul__ = __mul__

    def __pow__(self, k: Any) -> Any:
        if not _is_int(k) or k < 0:
            return NotImplemented
        out: Any = 1
        for _ in range(int(k)):
            out = self * out
        return out

    def __floordiv__(self, other: Any) -> Any:
        return _divmod(self, other, "floordiv")

    def __rfloordiv__(self, other: Any) -> Any:
        return _divmod(other, self, "floordiv")

    def __mod__(self, other: Any) -> Any:
        return _divmod(self, other, "mod")

    def __rmod__(self, other: Any) -> Any:
        return _divmod(other, self, "mod")

    def __divmod__(self, other: Any) -> tuple:
        return self // other, self % other

    def __truediv__(self, other: Any) -> Any:
        q, r = self // other, self % other
        if isinstance(r, int) and r == 0:
            return q
        raise InconclusiveDimensionOperation(
            f"Cannot divide '{self}' by '{other}': the result is not known to be an integer")

    # -- comparison

    def __eq__(self, other: object) -> Any:
        if isinstance(other, DimExpr) and other.scope is not self.scope:
            return False  # (dimensions of two exports: never equal; a dict may compare them)
        if not (isinstance(other, DimExpr) or _is_int(other)):
            return NotImplemented
        diff = self - other
        if isinstance(diff, int):
            return diff == 0
        return _decide_geq(diff) is True and _decide_geq(-diff) is True

    def __ne__(self, other: object) -> Any:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return self._hash

    def __ge__(self, other: Any) -> Any:
        return _geq(self, other, f"'{self}' >= '{other}'")

    def __gt__(self, other: Any) -> Any:
        return _geq(self - 1, other, f"'{self}' > '{other}'")

    def __le__(self, other: Any) -> Any:
        return _geq(other, self, f"'{self}' <= '{other}'")

    def __lt__(self, other: Any) -> Any:
        return _geq(other, self + 1, f"'{self}' < '{other}'")

    # -- conversion

    def __index__(self) -> int:
        raise InconclusiveDimensionOperation(
            f"Symbolic dimension '{self}' used in a context that requires a constant")

    __int__ = __index__

    def __float__(self) -> float:
        raise InconclusiveDimensionOperation(
            f"Symbolic dimension '{self}' used in a context that requires a constant")

    def __copy__(self) -> DimExpr:
        return self  # (immutable; its scope is shared by identity)

    def __deepcopy__(self, memo: dict) -> DimExpr:
        return self

    def __reduce__(self) -> Any:
        raise TypeError(f"a symbolic dimension ('{self}') cannot be pickled: serialize the "
                        "Exported that holds it")

    # -- printing

    def __str__(self) -> str:
        out = ""
        for m, c in self._terms:
            mono = "*".join(_atom_str(a) + (f"^{p}" if p > 1 else "") for a, p in m)
            mag = abs(c)
            body = mono if mag == 1 and mono else (f"{mag}*{mono}" if mono else str(mag))
            if not out:
                out = ("-" if c < 0 else "") + body
            else:
                out += (" - " if c < 0 else " + ") + body
        return out

    __repr__ = __str__

    # -- queries

    def symbols(self) -> set:
        """The names of the symbols in the expression."""
        out: set = set()
        for m, _ in self._terms:
            for a, _p in m:
                out |= _atom_symbols(a)
        return out

    def evaluate(self, env: dict) -> int:
        """The int this dimension is for the symbol values ``env`` (name -> int)."""
        total = 0
        for m, c in self._terms:
            v = c
            for a, p in m:
                v *= _atom_eval(a, env) ** p
            total += v
        return total

    def as_symbol(self) -> str | None:
        """The symbol's name when the dimension is one symbol alone, else None."""
        if len(self._terms) == 1:
            m, c = self._terms[0]
            if c == 1 and len(m) == 1 and m[0][1] == 1 and m[0][0][0] == "sym":
                return m[0][0][1]
        return None

    def terms(self) -> tuple:
        """((monomial, coefficient), ...): a monomial is ((atom, power), ...), an atom
        ("sym", name) or (op, a, b) with op floordiv/mod/max/min (for lowering)."""
        return self._terms


def _is_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def canonical_dim(d: Any) -> Any:
    """A dimension as a Python int, or the DimExpr it is."""
    return d if type(d) is DimExpr else int(d)


def canonical_shape(shape: Any) -> tuple:
    return tuple(map(canonical_dim, shape))


def is_symbolic(d: Any) -> bool:
    return isinstance(d, DimExpr)


def is_symbolic_shape(shape: Any) -> bool:
    return any(isinstance(d, DimExpr) for d in shape)


def _mono_order(m: tuple) -> tuple:
    return (-sum(p for _, p in m), [_key(a) for a, _ in m]) if m else (1, [])


def _mono_mul(m1: tuple, m2: tuple) -> tuple:
    powers: dict = {}
    for a, p in (*m1, *m2):
        powers[a] = powers.get(a, 0) + p
    return tuple(sorted(powers.items(), key=lambda ap: _key(ap[0])))


def _atom_str(a: tuple) -> str:
    return a[1] if a[0] == "sym" else f"{a[0]}({a[1]}, {a[2]})"


def _atom_symbols(a: tuple) -> set:
    if a[0] == "sym":
        return {a[1]}
    return set().union(*(x.symbols() for x in a[1:] if isinstance(x, DimExpr)))


def _val(x: Any, env: dict) -> Any:
    return x.evaluate(env) if isinstance(x, DimExpr) else x


def _atom_eval(a: tuple, env: dict) -> int:
    if a[0] == "sym":
        if a[1] not in env:
            raise KeyError(a[1])
        return env[a[1]]
    x, y = _val(a[1], env), _val(a[2], env)
    return {"floordiv": lambda: x // y, "mod": lambda: x % y,
            "max": lambda: max(x, y), "min": lambda: min(x, y)}[a[0]]()


def _atom(kind: str, x: Any, y: Any, scope: SymbolicScope) -> DimExpr:
    return DimExpr({(((kind, x, y), 1),): 1}, scope)


def _scope_of(*xs: Any) -> SymbolicScope:
    scopes = {id(x.scope): x.scope for x in xs if isinstance(x, DimExpr)}
    if len(scopes) > 1:
        a, b = (x for x in xs if isinstance(x, DimExpr))
        a._coerce(b, "combining")
    return next(iter(scopes.values()))


def _divmod(x: Any, y: Any, kind: str) -> Any:
    if not (isinstance(x, DimExpr) or _is_int(x)) or not (isinstance(y, DimExpr) or _is_int(y)):
        return NotImplemented
    scope = _scope_of(x, y)
    if _is_int(y):
        y = int(y)
        if y == 0:
            raise InconclusiveDimensionOperation(f"Division by zero in '{x}' {kind} 0")
        if isinstance(x, DimExpr):
            # (n*q + r) // n == q + r // n and (n*q + r) % n == r % n
            q = {m: c // y for m, c in x._terms if c % y == 0}
            r = {m: c for m, c in x._terms if c % y != 0}
            qe, re = DimExpr._make(q, scope), DimExpr._make(r, scope)
            if kind == "floordiv":
                return qe + (re // y if isinstance(re, int) else _atom(kind, re, y, scope))
            return re % y if isinstance(re, int) else _atom(kind, re, y, scope)
    elif isinstance(x, DimExpr):
        q = _exact_quotient(x, y)
        if q is not None:
            return q if kind == "floordiv" else 0
    elif x >= 0 and _decide_geq(y - x - 1) is True:  # 0 <= x < y: x // y == 0, x % y == x
        return 0 if kind == "floordiv" else int(x)
    elif x < 0 and _decide_geq(y + x) is True:  # -y <= x < 0: x // y == -1, x % y == x + y
        return -1 if kind == "floordiv" else y + int(x)
    return _atom(kind, x, y, scope)


def _exact_quotient(x: DimExpr, y: DimExpr) -> Any:
    """x / y when y is one term (c * monomial) dividing every term of x, else None."""
    if x == y:
        return 1
    if len(y._terms) != 1:
        return None
    (my, cy), = y._terms
    py = dict(my)
    out: dict = {}
    for m, c in x._terms:
        pm = dict(m)
        if c % cy or any(pm.get(a, 0) < p for a, p in py.items()):
            return None
        rest = tuple((a, p - py.get(a, 0)) for a, p in m if p - py.get(a, 0) > 0)
        out[rest] = out.get(rest, 0) + c // cy
    return DimExpr._make(out, x.scope)


def max_dim(a: Any, b: Any) -> Any:
    """max of two dimensions: a symbolic ``max(a, b)`` unless the comparison is decided."""
    return _minmax(a, b, "max")


def min_dim(a: Any, b: Any) -> Any:
    """min of two dimensions: a symbolic ``min(a, b)`` unless the comparison is decided."""
    return _minmax(a, b, "min")


def _minmax(a: Any, b: Any, kind: str) -> Any:
    if not isinstance(a, DimExpr) and not isinstance(b, DimExpr):
        return max(a, b) if kind == "max" else min(a, b)
    d = _decide_geq(a - b)
    if d is not None:
        return (a if d else b) if kind == "max" else (b if d else a)
    return _atom(kind, a, b, _scope_of(a, b))


# ----------------------------------------------------------------------------- decisions

def _bounds(e: Any) -> tuple:
    """(lower, upper) bounds of a dimension (floats, +-inf when unknown)."""
    if not isinstance(e, DimExpr):
        return e, e
    lo = hi = 0.0
    for m, c in e._terms:
        mlo, mhi = 1.0, 1.0
        for a, p in m:
            alo, ahi = _atom_bounds(a, e.scope)
            if alo < 0:
                mlo, mhi = -_INF, _INF
                break
            mlo, mhi = mlo * alo ** p, mhi * ahi ** p
        if c > 0:
            lo, hi = lo + c * mlo, hi + c * mhi
        else:
            lo, hi = lo + c * mhi, hi + c * mlo
    return lo, hi


def _atom_bounds(a: tuple, scope: SymbolicScope) -> tuple:
    if a[0] == "sym":
        lo, hi = 1.0, _INF
        for g in scope._geq:  # constraints on the symbol alone: s - k >= 0, k - s >= 0
            if isinstance(g, DimExpr) and len(g._terms) <= 2:
                t = dict(g._terms)
                mono = (((a, 1),))
                c = t.get(mono)
                if c in (1, -1) and set(t) <= {mono, ()}:
                    k = t.get((), 0)
                    if c == 1:
                        lo = max(lo, -k)
                    else:
                        hi = min(hi, k)
        return lo, hi
    x, y = a[1], a[2]
    (xl, xh), (yl, yh) = _bounds(x), _bounds(y)
    if a[0] == "max":
        return max(xl, yl), max(xh, yh)
    if a[0] == "min":
        return min(xl, yl), min(xh, yh)
    if a[0] == "mod":
        return (0.0, yh - 1) if yl > 0 else (-_INF, _INF)
    if yl > 0 and xl >= 0:  # floordiv of non-negatives by a positive
        return math.floor(xl / yh) if yh < _INF else 0.0, \
            (math.floor(xh / yl) if xh < _INF else _INF)
    return -_INF, _INF


def _decide_geq(e: Any) -> bool | None:
    """True when ``e >= 0`` for every value of the symbols (under the scope's
    constraints), False when ``e < 0`` for all, None when undecided."""
    if not isinstance(e, DimExpr):
        return e >= 0
    for cand in (e, *(e - g for g in e.scope._geq)):
        lo, _ = _bounds(cand)
        if lo >= 0:
            return True
    neg = -e - 1
    if not isinstance(neg, DimExpr):
        return neg < 0
    for cand in (neg, *(neg - g for g in e.scope._geq)):
        lo, _ = _bounds(cand)
        if lo >= 0:
            return False
    return None


def _geq(a: Any, b: Any, what: str) -> Any:
    if not all(isinstance(x, DimExpr) or _is_int(x) for x in (a, b)):
        return NotImplemented
    d = _decide_geq(a - b)
    if d is None:
        raise InconclusiveDimensionOperation(f"Symbolic dimension comparison {what} is "
                                             "inconclusive.")
    return d



# ----------------------------------------------------------------------------- parsing

_FUNCS = {"max": max_dim, "min": min_dim, "mod": lambda a, b: a % b,
          "floordiv": lambda a, b: a // b}
_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
           ast.Mult: lambda a, b: a * b, ast.FloorDiv: lambda a, b: a // b,
           ast.Mod: lambda a, b: a % b, ast.BitXor: lambda a, b: a ** b,
           ast.Pow: lambda a, b: a ** b}


def _build(node: ast.AST, scope: SymbolicScope, text: str) -> Any:
    def bad(why: str) -> ValueError:
        return ValueError(f"syntax error in symbolic shape {text!r}: {why}")

    def go(n: ast.AST) -> Any:
        if isinstance(n, ast.Constant) and type(n.value) is int:
            return n.value
        if isinstance(n, ast.Name):
            return DimExpr({((("sym", n.id), 1),): 1}, scope)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            v = go(n.operand)
            return -v if isinstance(n.op, ast.USub) else v
        if isinstance(n, ast.BinOp) and type(n.op) in _BINOPS:
            a, b = go(n.left), go(n.right)
            if type(n.op) in (ast.BitXor, ast.Pow) and not _is_int(b):
                raise bad("a power must be a constant int")
            return _BINOPS[type(n.op)](a, b)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _FUNCS \
                and len(n.args) == 2 and not n.keywords:
            return _FUNCS[n.func.id](go(n.args[0]), go(n.args[1]))
        raise bad(f"unexpected {ast.unparse(n)!r} (dimensions are ints, symbols, + - * "
                  "and max/min/mod/floordiv(a, b))")
    return go(node)


def symbolic_shape(shape_spec: Any, *, constraints: Any = (), scope: SymbolicScope | None = None,
                   like: Any = None) -> tuple:
    """A shape of symbolic dimensions (JAX's ``jax.export.symbolic_shape``): ``"b, 16"``,
    ``"(b, 2*b + 1)"``, ``"max(b, 4), floordiv(b, 2)"``. Symbols are ints >= 1;
    ``constraints`` (``("b >= 16", "b <= 1024")``) or an existing ``scope`` (a
    ``SymbolicScope``, e.g. ``d.scope`` of another dimension) adds bounds; dimensions of
    one call share its scope. ``like``: a concrete shape whose entries fill the "_" dims."""
    if scope is not None and constraints:
        raise ValueError("Cannot specify both a `scope` and `constraints`.")
    if scope is None:
        scope = SymbolicScope(constraints)
    elif not isinstance(scope, SymbolicScope):
        raise TypeError(f"scope must be a SymbolicScope, got {type(scope).__name__}")
    if shape_spec is None:
        raise ValueError("symbolic_shape needs a shape specification string")
    if not isinstance(shape_spec, str):
        raise TypeError(f"shape_spec must be a string, got {type(shape_spec).__name__}")
    text = shape_spec.strip()
    if text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
        text = text[1:-1]
    if not text.strip():
        return ()
    try:
        node = ast.parse(f"({text},)", mode="eval").body
    except SyntaxError:
        raise ValueError(f"syntax error in symbolic shape {shape_spec!r}") from None
    if not isinstance(node, ast.Tuple):
        raise ValueError(f"syntax error in symbolic shape {shape_spec!r}")
    dims = []
    for i, n in enumerate(node.elts):
        if isinstance(n, ast.Name) and n.id == "_":
            if like is None or i >= len(like):
                raise ValueError(f"syntax error in symbolic shape {shape_spec!r}: '_' at "
                                 f"position {i} needs like= with a dimension there")
            dims.append(int(like[i]))
            continue
        d = _build(n, scope, shape_spec)
        if _is_int(d) and d < 0:
            raise ValueError(f"syntax error in symbolic shape {shape_spec!r}: negative "
                             f"dimension {d}")
        dims.append(d)
    return tuple(dims)


def _balanced(s: str) -> bool:
    depth = 0
    for ch in s:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


# ----------------------------------------------------------------------------- binding

def shape_str(shape: Any) -> str:
    return "(" + ", ".join(map(str, shape)) + ")"


def bind_shapes(specs: Any, shapes: Any, what: str = "args") -> dict:
    """The symbol values (name -> int) that make the symbolic ``specs`` (one shape per
    argument) equal the concrete ``shapes``; a ValueError in JAX's words when the shapes
    disagree with each other, with a constant dimension, or with a constraint."""
    env: dict = {}
    where: dict = {}
    specs_txt = specs_text(specs, what)
    scopes = []
    # first the dimensions that are one symbol alone, then solve the others with them
    for i, (spec, shape) in enumerate(zip(specs, shapes, strict=True)):
        if len(spec) != len(shape):
            raise ValueError(f"Rank mismatch for {what}[{i}]: expected {len(spec)} dimensions "
                             f"({shape_str(spec)}), called with shape {shape_str(shape)}")
        for k, (d, n) in enumerate(zip(spec, shape, strict=True)):
            if not isinstance(d, DimExpr):
                if d != n:
                    raise ValueError(f"Shape mismatch for {what}[{i}].shape[{k}] (expected same "
                                     f"constant): expected {shape_str(spec)} and called with "
                                     f"{shape_str(shape)}")
                continue
            if d.scope not in scopes:
                scopes.append(d.scope)
            s = d.as_symbol()
            if s is not None and s not in env:
                env[s] = n
                where[s] = f"{what}[{i}].shape[{k}] (= {n})"
    obtained = "".join(f"'{s}' = {v} from specification '{s}' for dimension {where[s]}, "
                       for s, v in env.items())
    pre, tail = assertion_text(specs_txt, obtained)

    def fail(msg: str) -> ValueError:
        return ValueError(f"{pre}{msg}. {tail}")

    for s, n in env.items():
        if n < 1:
            raise fail(f"Expected value >= 1 for dimension variable '{s}'")
    for i, (spec, shape) in enumerate(zip(specs, shapes, strict=True)):
        for k, (d, n) in enumerate(zip(spec, shape, strict=True)):
            if not isinstance(d, DimExpr):
                continue
            try:
                want = d.evaluate(env)
            except KeyError as e:
                raise ValueError(f"Cannot solve for the value of the dimension variable "
                                 f"{e.args[0]!r}: it must appear alone as some argument's "
                                 f"dimension (in {specs_txt})") from None
            if want != n:
                raise fail(f"Found inconsistency between dimension size {what}[{i}].shape[{k}] "
                           f"(= {n}) and the specification '{d}' (= {want})")
    for scope in scopes:
        for text in scope._constraints_str:
            msg = _constraint_failure(text, scope, env)
            if msg:
                raise ValueError(f"Input shapes do not match the symbolic shape constraint "
                                 f"{text}. {msg}.  {tail}")
    return env


def constraint_parts(text: str, scope: SymbolicScope) -> tuple:
    """("==", left, right) or (">=", e, 0) of a constraint of ``scope`` (``<=`` turned
    around): what its check compares."""
    node = ast.parse(text.strip(), mode="eval").body
    assert isinstance(node, ast.Compare)  # (checked when the scope was made)
    left, right = (_build(n, scope, text) for n in (node.left, node.comparators[0]))
    op = type(node.ops[0])
    if op is ast.Eq:
        return "==", left, right
    return ">=", (left - right if op is ast.GtE else right - left), 0


def constraint_message(kind: str, left: Any, right: Any, lv: Any, rv: Any) -> str:
    """JAX's words for a broken constraint (``lv``, ``rv``: the values found)."""
    if kind == "==":
        return f"Expected '{left}' to be equal to '{right}', but found {lv} != {rv}"
    return f"Expected '{left}' to be greater or equal to 0, but found {lv}"


def _constraint_failure(text: str, scope: SymbolicScope, env: dict) -> str | None:
    """JAX's words for a constraint the symbol values ``env`` break, else None."""
    kind, left, right = constraint_parts(text, scope)
    lv, rv = _val(left, env), _val(right, env)
    ok = lv == rv if kind == "==" else lv >= 0
    return None if ok else constraint_message(kind, left, right, lv, rv)


def assertion_text(specs_txt: str, obtained: str) -> tuple:
    """(start, end) of JAX's shape-assertion messages (the failure goes between)."""
    return ("Input shapes do not match the polymorphic shapes specification. ",
            f"Using the following polymorphic shapes specifications: {specs_txt}. Obtained "
            f"dimension variables: {obtained}. Please see https://docs.jax.dev/en/latest/"
            "export/shape_poly.html#shape-assertion-errors for more details.")


def specs_text(shapes: Any, what: str = "args") -> str:
    return ",".join(f"{what}[{i}].shape = {shape_str(s)}" for i, s in enumerate(shapes))


def evaluate_shape(shape: Any, env: dict) -> tuple:
    """The concrete shape of a symbolic one for the symbol values ``env``."""
    return tuple(_val(d, env) for d in shape)
