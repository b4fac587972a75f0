"""Random programs for differential fuzzing.

A program is Python source: ``def f(x0, x1, ...)`` whose body is a list of statements
``vK = <expr>`` written against two module names, ``np`` and ``lax``, so the same text runs
with ``frontend.numpy``/``frontend.lax`` and with ``jax.numpy``/``jax.lax``. Shapes and dtypes
of every variable are known to the generator: each candidate statement is checked with
``jax.eval_shape`` (the oracle); candidates JAX rejects are dropped. Operands that an op needs
with a particular shape (the other side of a matmul, an index array, a dynamic start) become
new inputs of the program.

Choices come from a ``Chooser`` (hypothesis ``data.draw`` or ``random.Random``), so
hypothesis can shrink a failing program.
"""
from __future__ import annotations

import dataclasses
import math
import random
import string

import numpy as np

FLOAT, INT, BOOL, BF16 = "float32", "int32", "bool", "bfloat16"


class NoChoice(Exception):
    """An op has no valid parameters for the chosen operand (e.g. an empty axis)."""


class Chooser:
    """Random choices from hypothesis (``data``) or from a seeded ``random.Random``."""

    def __init__(self, data=None, seed=None):
        self.data = data
        self.rng = random.Random(seed)

    def int(self, lo: int, hi: int) -> int:
        if hi < lo:
            raise NoChoice  # e.g. an index into an empty axis: the op is skipped
        if self.data is not None:
            from hypothesis import strategies as st
            return self.data.draw(st.integers(lo, hi))
        return self.rng.randint(lo, hi)

    def pick(self, seq):
        seq = list(seq)
        return seq[self.int(0, len(seq) - 1)]

    def flip(self, p: float = 0.5) -> bool:
        return self.int(0, 999) < p * 1000

    def shuffle(self, seq) -> list:
        seq = list(seq)
        for i in range(len(seq) - 1, 0, -1):
            j = self.int(0, i)
            seq[i], seq[j] = seq[j], seq[i]
        return seq

    def weighted(self, table: dict):
        total = sum(table.values())
        r = self.int(0, total - 1)
        for k, w in table.items():
            if r < w:
                return k
            r -= w
        raise AssertionError


@dataclasses.dataclass
class Input:
    name: str
    shape: tuple
    dtype: str
    lo: int = -5   # integer inputs: values in [lo, hi]
    hi: int = 5
    values: str = "normal"  # float inputs: "normal", "ties" (from TIE_VALUES) or "equal"


# float values of a "ties" input: zeros of both signs, kinks (+-1, 6 of relu6, 3 of
# hard_sigmoid), values repeated across elements and shared between inputs (x == y)
TIE_VALUES = (0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, 6.0)


@dataclasses.dataclass
class Level:
    """One vmap level: in_axes per input (None: not mapped), out_axes per output, size."""
    in_axes: tuple
    out_axes: tuple
    size: int


@dataclasses.dataclass
class Program:
    inputs: list
    stmts: list          # source lines "vK = expr"
    outputs: list        # variable names
    levels: list         # outermost first
    jit: bool
    seed: int
    uses_control: bool = False
    ad: str | None = None  # "grad", "vjp" or "jvp": the vmapped function is h, f's derivative
    ad_source: tuple = ()  # the lines of h
    n_f_inputs: int = 0    # f takes inputs[:n_f_inputs]; h takes all of them
    n_ad_outputs: int = 0

    @property
    def n_outputs(self) -> int:
        return self.n_ad_outputs if self.ad else len(self.outputs)

    @property
    def fname(self) -> str:
        return "h" if self.ad else "f"

    def source(self) -> str:
        f_inputs = self.inputs[:self.n_f_inputs] if self.ad else self.inputs
        args = ", ".join(i.name for i in f_inputs)
        body = [f"    {s}" for s in self.stmts]
        ret = self.outputs[0] if len(self.outputs) == 1 else "(" + ", ".join(self.outputs) + ")"
        return "\n".join([f"def f({args}):", *body, f"    return {ret}", "", *self.ad_source, ""])

    def function(self, np_mod, lax_mod, ad_mod=None):
        """The program's function (f, or its derivative h, with ``ad_mod`` giving grad, vjp
        and jvp) written against the modules given."""
        ns = {"np": np_mod, "lax": lax_mod}
        if self.ad:
            ns.update(grad=ad_mod.grad, vjp=ad_mod.vjp, jvp=ad_mod.jvp)
        exec(compile(self.source(), "<fuzz program>", "exec"), ns)
        return ns[self.fname]

    def in_axes_arg(self, lv: Level):
        """The in_axes argument as a user would write it: an int when all inputs share it."""
        if len(set(lv.in_axes)) == 1 and lv.in_axes[0] is not None:
            return lv.in_axes[0]
        return tuple(lv.in_axes)

    def out_axes_arg(self, lv: Level):
        if self.n_outputs == 1:
            return lv.out_axes[0]
        if len(set(lv.out_axes)) == 1 and lv.out_axes[0] is not None:
            return lv.out_axes[0]
        return tuple(lv.out_axes)


# ----------------------------------------------------------------------------- generator


class Gen:
    def __init__(self, ch: Chooser, *, control: bool = False, max_inputs: int = 4):
        import jax
        self.jax = jax
        self.ch = ch
        self.control = control
        self.max_inputs = max_inputs
        self.inputs: list = []
        self.stmts: list = []
        self.env: dict = {}     # name -> jax.ShapeDtypeStruct (per example)
        self.deps: dict = {}    # name -> frozenset of input indices
        self.order: list = []   # variable names in definition order
        self.uses_control = False

    # -- values
    def new_input(self, shape, dtype, lo=-5, hi=5) -> str | None:
        if len(self.inputs) >= self.max_inputs:
            return None
        name = f"x{len(self.inputs)}"
        values = "normal"
        if dtype in (FLOAT, BF16):  # ties, zeros and kinks: derivatives where they are defined by rule
            values = self.ch.weighted({"normal": 6, "ties": 3, "equal": 1})
        self.inputs.append(Input(name, tuple(shape), dtype, lo, hi, values))
        self.env[name] = self.jax.ShapeDtypeStruct(tuple(shape), np.dtype(_np_dtype(dtype)))
        self.deps[name] = frozenset([len(self.inputs) - 1])
        self.order.append(name)
        return name

    def shape_of(self, v):
        return tuple(self.env[v].shape)

    def dtype_of(self, v) -> str:
        return str(self.env[v].dtype)

    def vars(self, pred=lambda v: True):
        return [v for v in self.order if pred(v)]

    def pick_var(self, pred=lambda v: True):
        vs = self.vars(pred)
        if not vs:
            return None
        # favour recent values so programs chain
        if self.ch.flip(0.6):
            return vs[-1] if self.ch.flip(0.5) or len(vs) == 1 else vs[-2]
        return self.ch.pick(vs)

    def rand_shape(self, max_rank=3, max_dim=3, empty=False):
        """A shape; with ``empty`` a dim is now and then 0 (a zero-size array)."""
        r = self.ch.int(0, max_rank)
        return tuple(0 if empty and self.ch.flip(0.08) else self.ch.int(1, max_dim) for _ in range(r))

    def scalar_literal(self, dtype):
        if dtype == BOOL:
            return self.ch.pick(["True", "False"])
        if dtype == INT:
            return self.ch.pick(["2", "-1", "3"])
        return self.ch.pick(["2", "1.5", "-0.5", "3"])

    # -- statements
    def add_stmt(self, expr: str, used: list, control=False) -> str | None:
        """Check ``expr`` with jax.eval_shape; keep it when JAX accepts it."""
        import jax.lax as jlax
        import jax.numpy as jnp
        names = [v for v in self.order]
        src = f"lambda {', '.join(names)}: {expr}" if names else f"lambda: {expr}"
        try:
            fn = eval(src, {"np": jnp, "lax": jlax})
            out = self.jax.eval_shape(fn, *[self.env[v] for v in names])
        except Exception:
            return None
        if not isinstance(out, self.jax.ShapeDtypeStruct):
            return None
        if out.size > 4096 or len(out.shape) > 5:
            return None
        name = f"v{len(self.stmts)}"
        self.stmts.append(f"{name} = {expr}")
        self.env[name] = out
        self.deps[name] = frozenset().union(*[self.deps[u] for u in used]) if used else frozenset()
        self.order.append(name)
        self.uses_control |= control
        return name

    def step(self):
        kinds = dict(unary=6, binary=8, compare=2, reduce=5, argmax=2, cumsum=1, reshape=3,
                     transpose=2, expand=2, squeeze=1, concat=2, stack=1, slice=4, int_index=2,
                     dynamic_slice=2, matmul=3, dot_general=3, einsum=2, where=2, select=1,
                     astype=1, methods=2, sort=1, conv=2, window=1)
        if self.control:
            kinds.update(cond=2, fori=1, while_=1, scan=2, map=1)
        kind = self.ch.weighted(kinds)
        try:
            return getattr(self, "op_" + kind)()
        except NoChoice:
            return None

    # -- op table
    def op_unary(self):
        a = self.pick_var()
        if a is None:
            return None
        d = self.dtype_of(a)
        if d == BOOL:
            fn = self.ch.pick(["np.logical_not({a})", "np.invert({a})", "~{a}", "np.sin({a})"])
        elif d == INT:
            fn = self.ch.pick(["np.abs({a})", "np.negative({a})", "-{a}", "np.square({a})",
                               "np.sign({a})", "np.sin({a})", "np.floor_divide({a}, 2)",
                               "np.remainder({a}, 3)", "np.clip({a}, -2, 3)"])
        else:
            fn = self.ch.pick(["np.sin({a})", "np.tanh({a})", "np.exp(np.tanh({a}))", "np.abs({a})",
                               "np.negative({a})", "np.sqrt(np.abs({a}))", "np.floor({a})",
                               "np.sign({a})", "np.square({a})", "np.log1p(np.abs({a}))",
                               "np.cos({a})", "np.clip({a}, -1.0, 0.5)", "np.round({a})",
                               "lax.logistic({a})"])
        return self.add_stmt(fn.format(a=a), [a])

    def _broadcast_partner(self, a):
        """A variable whose shape broadcasts with a's (or a new input shaped so)."""
        sa = self.shape_of(a)
        cands = [v for v in self.vars() if v != a and _broadcastable(sa, self.shape_of(v))]
        if cands and self.ch.flip(0.7):
            return self.ch.pick(cands)
        # new input: a suffix of a's shape with some dims set to 1, maybe extra leading dims
        k = self.ch.int(0, len(sa))
        shape = [d if self.ch.flip(0.7) else 1 for d in sa[len(sa) - k:]]
        if self.ch.flip(0.2) and len(sa) < 3:
            shape = [self.ch.int(1, 3)] + shape
        dtype = self.ch.weighted({FLOAT: 5, INT: 2, BOOL: 1, BF16: 1})
        return self.new_input(tuple(shape), dtype)

    def op_binary(self):
        a = self.pick_var()
        if a is None:
            return None
        if self.ch.flip(0.3):
            b = self.scalar_literal(self.ch.pick([FLOAT, INT, BOOL]))
            used = [a]
        else:
            b = self._broadcast_partner(a)
            if b is None:
                return None
            used = [a, b]
        if self.ch.flip(0.5):
            a, b = b, a
        fn = self.ch.pick(["np.add({a}, {b})", "{a} + {b}", "np.subtract({a}, {b})", "{a} * {b}",
                           "np.multiply({a}, {b})", "np.maximum({a}, {b})", "np.minimum({a}, {b})",
                           "np.true_divide({a}, {b})", "np.arctan2({a}, {b})", "np.power({a}, 2)",
                           "np.logical_and({a}, {b})", "np.logical_or({a}, {b})"])
        return self.add_stmt(fn.format(a=a, b=b), used)

    def op_compare(self):
        a = self.pick_var()
        if a is None:
            return None
        b = self._broadcast_partner(a) if self.ch.flip(0.5) else None
        bs = b if b is not None else self.scalar_literal(self.ch.pick([FLOAT, INT]))
        fn = self.ch.pick(["np.greater", "np.less", "np.equal", "np.not_equal", "np.greater_equal"])
        return self.add_stmt(f"{fn}({a}, {bs})", [a] + ([b] if b else []))

    def _axes(self, nd, allow_none=True, allow_tuple=True):
        if nd == 0:
            return "None" if allow_none else None
        c = self.ch.int(0, 3)
        if c == 0 and allow_none:
            return "None"
        if c == 1 and allow_tuple and nd >= 2:
            k = self.ch.int(1, nd)
            axes = sorted(self.ch.shuffle(range(nd))[:k])
            axes = [ax - nd if self.ch.flip(0.3) else ax for ax in axes]
            return "(" + ", ".join(map(str, axes)) + ("," if len(axes) == 1 else "") + ")"
        ax = self.ch.int(-nd, nd - 1)
        return str(ax)

    def op_reduce(self):
        a = self.pick_var()
        if a is None:
            return None
        nd = len(self.shape_of(a))
        fn = self.ch.pick(["np.sum", "np.max", "np.min", "np.mean", "np.prod", "np.any", "np.all"])
        if fn == "np.prod" and self.dtype_of(a) == BF16:
            fn = "np.sum"
        ax = self._axes(nd)
        keep = ", keepdims=True" if self.ch.flip(0.3) else ""
        return self.add_stmt(f"{fn}({a}, axis={ax}{keep})", [a])

    def op_argmax(self):
        a = self.pick_var(lambda v: self.dtype_of(v) in (FLOAT, INT) and len(self.shape_of(v)) > 0)
        if a is None:
            return None
        nd = len(self.shape_of(a))
        fn = self.ch.pick(["np.argmax", "np.argmin"])
        ax = "None" if self.ch.flip(0.2) else str(self.ch.int(-nd, nd - 1))
        keep = ", keepdims=True" if self.ch.flip(0.3) else ""
        return self.add_stmt(f"{fn}({a}, axis={ax}{keep})", [a])

    def op_cumsum(self):
        a = self.pick_var(lambda v: len(self.shape_of(v)) > 0 and self.dtype_of(v) != BF16)
        if a is None:
            return None
        nd = len(self.shape_of(a))
        fn = self.ch.pick(["np.cumsum", "np.cumprod", "lax.cummax"])
        if fn == "lax.cummax":
            if self.dtype_of(a) == BOOL:
                return None
            return self.add_stmt(f"lax.cummax({a}, axis={self.ch.int(0, nd - 1)}, "
                                 f"reverse={self.ch.pick(['False', 'True'])})", [a])
        return self.add_stmt(f"{fn}({a}, axis={self.ch.int(-nd, nd - 1)})", [a])

    def op_sort(self):
        a = self.pick_var(lambda v: len(self.shape_of(v)) > 0 and self.dtype_of(v) != BOOL)
        if a is None:
            return None
        nd = len(self.shape_of(a))
        ax = self.ch.int(-nd, nd - 1)
        c = self.ch.int(0, 3)
        if c == 0:
            return self.add_stmt(f"np.sort({a}, axis={ax})", [a])
        if c == 1:
            desc = ", descending=True" if self.ch.flip(0.3) else ""
            return self.add_stmt(f"np.argsort({a}, axis={ax}{desc})", [a])
        if c == 2:
            k = self.ch.int(0, self.shape_of(a)[-1])
            return self.add_stmt(f"lax.top_k({a}, {k})[{self.ch.int(0, 1)}]", [a])
        b = self._same_shape_partner(a)
        if b is None:
            return None
        return self.add_stmt(f"lax.sort(({a}, {b}), dimension={ax % nd}, num_keys=1)"
                             f"[{self.ch.int(0, 1)}]", [a, b])

    def op_conv(self):
        """A small 1-D or 2-D convolution of a float value (as (batch, features, spatial...))
        with a new kernel input."""
        a = self.pick_var(lambda v: len(self.shape_of(v)) in (3, 4) and self.dtype_of(v) == FLOAT)
        if a is None:  # an image-like input of its own
            a = self.new_input((self.ch.int(1, 2), self.ch.int(1, 3))
                               + tuple(self.ch.int(2, 4) for _ in range(self.ch.int(1, 2))), FLOAT)
            if a is None:
                return None
        sh = self.shape_of(a)
        nsp = len(sh) - 2
        groups = self.ch.pick([g for g in (1, 2, 3) if sh[1] % g == 0])
        out_f = groups * self.ch.int(1, 2)
        win = tuple(self.ch.int(1, 3) for _ in range(nsp))
        w = self.new_input((out_f, sh[1] // groups) + win, FLOAT)
        if w is None:
            return None
        strides = tuple(self.ch.int(1, 2) for _ in range(nsp))
        pad = self.ch.pick(["'SAME'", "'VALID'", repr(tuple((self.ch.int(0, 1), self.ch.int(0, 1))
                                                            for _ in range(nsp)))])
        dil = tuple(self.ch.int(1, 2) for _ in range(nsp))
        return self.add_stmt(f"lax.conv_general_dilated({a}, {w}, {strides}, {pad}, "
                             f"rhs_dilation={dil}, feature_group_count={groups})", [a, w])

    def op_window(self):
        """A window reduction (sum, max or min; strides, padding) or a cumulative one."""
        a = self.pick_var(lambda v: len(self.shape_of(v)) > 0 and self.dtype_of(v) in (FLOAT, INT))
        if a is None:
            return None
        sh = self.shape_of(a)
        nd = len(sh)
        if self.ch.flip(0.3):
            fn = self.ch.pick(["np.cumsum", "lax.cummin", "lax.cumlogsumexp"] if
                              self.dtype_of(a) == FLOAT else ["np.cumsum", "lax.cummin"])
            ax = self.ch.int(0, nd - 1)
            rev = f", reverse={self.ch.pick(['False', 'True'])}" if fn != "np.cumsum" else ""
            return self.add_stmt(f"{fn}({a}, axis={ax}{rev})", [a])
        comp, init = self.ch.pick([("lax.add", "0"), ("lax.max", "-np.inf"), ("lax.min", "np.inf")]
                                  if self.dtype_of(a) == FLOAT else [("lax.add", "0")])
        win = tuple(self.ch.int(1, min(d, 3)) for d in sh)
        strides = tuple(self.ch.int(1, 2) for _ in sh)
        pad = self.ch.pick(["'SAME'", "'VALID'"])
        return self.add_stmt(f"lax.reduce_window({a}, {init}, {comp}, {win}, {strides}, {pad})", [a])

    def op_reshape(self):
        a = self.pick_var()
        if a is None:
            return None
        n = int(np.prod(self.shape_of(a), dtype=np.int64))
        shape = _random_factorization(n, self.ch)
        if shape and self.ch.flip(0.3):
            i = self.ch.int(0, len(shape) - 1)
            shape = list(shape)
            shape[i] = -1
        txt = "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
        if self.ch.flip(0.5):
            return self.add_stmt(f"np.reshape({a}, {txt})", [a])
        return self.add_stmt(f"{a}.reshape({txt})", [a])

    def op_transpose(self):
        a = self.pick_var()
        if a is None:
            return None
        nd = len(self.shape_of(a))
        if self.ch.flip(0.2):
            return self.add_stmt(f"{a}.T", [a])
        perm = self.ch.shuffle(range(nd))
        if self.ch.flip(0.3) and nd >= 2:
            return self.add_stmt(f"np.swapaxes({a}, {self.ch.int(-nd, nd - 1)}, {self.ch.int(0, nd - 1)})", [a])
        if self.ch.flip(0.2) and nd >= 1:
            return self.add_stmt(f"np.moveaxis({a}, {self.ch.int(-nd, nd - 1)}, {self.ch.int(-nd, nd - 1)})", [a])
        return self.add_stmt(f"np.transpose({a}, {tuple(perm)})", [a])

    def op_expand(self):
        a = self.pick_var()
        if a is None:
            return None
        nd = len(self.shape_of(a))
        return self.add_stmt(f"np.expand_dims({a}, {self.ch.int(-nd - 1, nd)})", [a])

    def op_squeeze(self):
        a = self.pick_var(lambda v: 1 in self.shape_of(v))
        if a is None:
            return None
        sh = self.shape_of(a)
        ones = [i for i, d in enumerate(sh) if d == 1]
        if self.ch.flip(0.3):
            return self.add_stmt(f"np.squeeze({a})", [a])
        i = self.ch.pick(ones)
        if self.ch.flip(0.4):
            i -= len(sh)
        return self.add_stmt(f"np.squeeze({a}, axis={i})", [a])

    def _same_shape_partner(self, a, ax=None):
        sa = self.shape_of(a)
        cands = [v for v in self.vars() if v != a and (
            self.shape_of(v) == sa if ax is None else
            len(self.shape_of(v)) == len(sa) and all(
                x == y for i, (x, y) in enumerate(zip(self.shape_of(v), sa, strict=True))
                if i != ax % len(sa)))]
        if cands and self.ch.flip(0.6):
            return self.ch.pick(cands)
        shape = list(sa)
        if ax is not None:
            shape[ax % len(sa)] = self.ch.int(1, 3)
        return self.new_input(tuple(shape), self.ch.pick([self.dtype_of(a), FLOAT]))

    def op_concat(self):
        a = self.pick_var(lambda v: len(self.shape_of(v)) > 0)
        if a is None:
            return None
        nd = len(self.shape_of(a))
        ax = self.ch.int(-nd, nd - 1)
        b = self._same_shape_partner(a, ax)
        if b is None:
            return None
        return self.add_stmt(f"np.concatenate([{a}, {b}], axis={ax})", [a, b])

    def op_stack(self):
        a = self.pick_var()
        if a is None:
            return None
        nd = len(self.shape_of(a))
        b = self._same_shape_partner(a)
        if b is None:
            return None
        return self.add_stmt(f"np.stack([{a}, {b}], axis={self.ch.int(-nd - 1, nd)})", [a, b])

    def op_slice(self):
        a = self.pick_var(lambda v: len(self.shape_of(v)) > 0)
        if a is None:
            return None
        sh = self.shape_of(a)
        parts = []
        for d in sh:
            c = self.ch.int(0, 5)
            if c == 0:
                parts.append(":")
            elif c == 1 and d > 0:
                parts.append(str(self.ch.int(-d, d - 1)))
            elif c == 2:
                parts.append(f"{self.ch.int(0, d)}:{self.ch.int(-d, d)}")
            elif c == 3:
                parts.append(f"::{self.ch.pick([2, -1, 3, -2])}")
            elif c == 4 and d > 0:
                parts.append(f"{self.ch.int(0, d - 1)}::{self.ch.pick([1, 2])}")
            else:
                parts.append("None, :")
        if len(parts) > 1 and self.ch.flip(0.2):
            parts = parts[: self.ch.int(1, len(parts) - 1)] + ["..."]
        return self.add_stmt(f"{a}[{', '.join(parts)}]", [a])

    def op_int_index(self):
        a = self.pick_var(lambda v: len(self.shape_of(v)) > 0)
        if a is None:
            return None
        sh = self.shape_of(a)
        ax = self.ch.int(0, len(sh) - 1)
        n = sh[ax]
        if n == 0:  # nothing to index on an empty axis
            return None
        if self.ch.flip(0.5):
            idx = self.new_input(self.rand_shape(2, 3), INT, lo=-n, hi=n - 1)
            used = [a, idx]
        else:
            idx = "np.array([" + ", ".join(str(self.ch.int(-n, n - 1)) for _ in range(self.ch.int(1, 3))) + "])"
            used = [a]
        if idx is None:
            return None
        if self.ch.flip(0.3):
            return self.add_stmt(f"np.take({a}, {idx}, axis={ax})", used)
        return self.add_stmt(f"{a}[{', '.join([':'] * ax + [idx])}]", used)

    def op_dynamic_slice(self):
        a = self.pick_var(lambda v: len(self.shape_of(v)) > 0)
        if a is None:
            return None
        sh = self.shape_of(a)
        starts, used = [], [a]
        sizes = tuple(self.ch.int(1, d) for d in sh)
        for d, z in zip(sh, sizes, strict=True):
            if self.ch.flip(0.4):
                # traced starts stay in range: XLA CPU miscompiles a clamped dynamic_slice
                # followed by a gather (it affects JAX as well; see tests/test_interpreter.py)
                s = self.new_input((), INT, lo=0, hi=d - z)
                if s is None:
                    s = str(self.ch.int(0, d - 1))
                else:
                    used.append(s)
            else:
                s = str(self.ch.int(0, d - 1))
            starts.append(s)
        return self.add_stmt(f"lax.dynamic_slice({a}, ({', '.join(starts)},), {sizes})", used)

    def op_matmul(self):
        a = self.pick_var(lambda v: len(self.shape_of(v)) >= 1 and self.dtype_of(v) != BOOL)
        if a is None:
            return None
        sa = self.shape_of(a)
        k = sa[-1]
        c = self.ch.int(0, 2)
        if c == 0:
            shape = (k,)
        elif c == 1:
            shape = (k, self.ch.int(1, 4))
        else:
            batch = sa[:-2] if len(sa) >= 3 else (self.ch.int(1, 3),)
            shape = batch + (k, self.ch.int(1, 3))
        b = self.new_input(shape, self.ch.pick([self.dtype_of(a), FLOAT]))
        if b is None:
            return None
        fn = self.ch.pick(["np.matmul({a}, {b})", "{a} @ {b}", "np.dot({a}, {b})"])
        return self.add_stmt(fn.format(a=a, b=b), [a, b])

    def op_dot_general(self):
        a = self.pick_var(lambda v: len(self.shape_of(v)) >= 1 and self.dtype_of(v) in (FLOAT, INT))
        if a is None:
            return None
        sa = self.shape_of(a)
        nd = len(sa)
        dims = self.ch.shuffle(range(nd))
        nb = self.ch.int(0, min(1, nd))
        nc = self.ch.int(0, min(2, nd - nb))
        lb = dims[:nb]
        lc = dims[nb:nb + nc]
        # rhs: batch dims, contracting dims and free dims at random positions
        rnd = nb + nc + self.ch.int(0, 2)
        rpos = self.ch.shuffle(range(rnd))
        rb, rc, rf = rpos[:nb], rpos[nb:nb + nc], rpos[nb + nc:]
        shape = [0] * rnd
        for l, r in zip(lb, rb, strict=True):
            shape[r] = sa[l]
        for l, r in zip(lc, rc, strict=True):
            shape[r] = sa[l]
        for r in rf:
            shape[r] = self.ch.int(1, 3)
        b = self.new_input(tuple(shape), self.dtype_of(a))
        if b is None:
            return None
        dn = f"(({tuple(lc)}, {tuple(rc)}), ({tuple(lb)}, {tuple(rb)}))"
        return self.add_stmt(f"lax.dot_general({a}, {b}, {dn})", [a, b])

    def op_einsum(self):
        a = self.pick_var(lambda v: 1 <= len(self.shape_of(v)) <= 3 and self.dtype_of(v) in (FLOAT, INT))
        if a is None:
            return None
        sa = self.shape_of(a)
        letters = string.ascii_lowercase[: len(sa)]
        sizes = dict(zip(letters, sa, strict=True))
        shared = [x for x in letters if self.ch.flip(0.5)] or [letters[-1]]
        extra = [string.ascii_lowercase[10 + i] for i in range(self.ch.int(0, 1))]
        for e in extra:
            sizes[e] = self.ch.int(1, 3)
        bl = shared + extra
        # shuffle b's labels
        bl = self.ch.shuffle(bl)
        everything = list(letters) + extra
        out = [x for x in everything if self.ch.flip(0.5)]
        b = self.new_input(tuple(sizes[x] for x in bl), self.dtype_of(a))
        if b is None:
            return None
        spec = f"{''.join(letters)},{''.join(bl)}->{''.join(out)}"
        return self.add_stmt(f"np.einsum('{spec}', {a}, {b})", [a, b])

    def op_where(self):
        a = self.pick_var()
        if a is None:
            return None
        conds = [v for v in self.vars(lambda v: self.dtype_of(v) == BOOL)
                 if _broadcastable(self.shape_of(v), self.shape_of(a))]
        if conds and self.ch.flip(0.6):
            c = self.ch.pick(conds)
            cexpr, used = c, [a, c]
        else:
            cexpr, used = f"{a} > 0", [a]
        b = self._broadcast_partner(a) if self.ch.flip(0.5) else None
        bexpr = b if b is not None else self.scalar_literal(FLOAT)
        if b is not None:
            used.append(b)
        return self.add_stmt(f"np.where({cexpr}, {a}, {bexpr})", used)

    def op_select(self):
        a = self.pick_var(lambda v: self.dtype_of(v) != BOOL)
        if a is None:
            return None
        sa = self.shape_of(a)
        b = self.new_input(sa, self.dtype_of(a))
        if b is None:
            return None
        return self.add_stmt(f"lax.select({a} > {b}, {a}, {b})", [a, b])

    def op_astype(self):
        a = self.pick_var()
        if a is None:
            return None
        d = self.ch.pick(["np.float32", "np.int32", "np.bool_", "np.bfloat16"])
        if self.dtype_of(a) in (FLOAT, BF16) and d in ("np.int32",):
            return self.add_stmt(f"np.round({a}).astype({d})", [a])
        return self.add_stmt(f"{a}.astype({d})", [a])

    def op_methods(self):
        a = self.pick_var(lambda v: len(self.shape_of(v)) > 0)
        if a is None:
            return None
        nd = len(self.shape_of(a))
        m = self.ch.pick([f"{a}.sum(axis={self.ch.int(-nd, nd - 1)})", f"{a}.max()",
                          f"{a}.mean(axis=0, keepdims=True)", f"{a}.ravel()",
                          f"{a}.transpose()", f"{a}.astype(np.float32).var(axis=-1)"])
        return self.add_stmt(m, [a])

    # -- control flow (lax.cond / fori_loop / while_loop / scan / map)
    def _float_var(self, min_rank=0):
        return self.pick_var(lambda v: self.dtype_of(v) == FLOAT and len(self.shape_of(v)) >= min_rank)

    def op_cond(self):
        a = self._float_var()
        if a is None:
            return None
        p = self.pick_var(lambda v: self.shape_of(v) == () and v != a)
        pred = f"{p} > 0" if p is not None and self.ch.flip(0.6) else f"np.sum({a}) > 0"
        used = [a] + ([p] if p is not None and pred.startswith(p) else [])
        # (a dot or a loop in a branch: vmap guards it and masks the loop by the branch's lanes)
        t = self.ch.pick(["lambda y: np.sin(y) * 2.0", "lambda y: y + 1.0", "lambda y: np.cumsum(y.reshape(-1)).reshape(y.shape)",
                          "lambda y: np.tanh(np.dot(y.reshape(-1), y.reshape(-1))) + y"])
        f = self.ch.pick(["lambda y: -y", "lambda y: np.tanh(y)", "lambda y: y * y",
                          "lambda y: lax.while_loop(lambda c: (c[0] < 3) & (np.sum(c[1]) > 0), "
                          "lambda c: (c[0] + 1, c[1] * 0.5), (0, y))[1]"])
        return self.add_stmt(f"lax.cond({pred}, {t}, {f}, {a})", used, control=True)

    def op_fori(self):
        a = self._float_var()
        if a is None:
            return None
        n = self.ch.int(0, 3)
        body = self.ch.pick(["lambda i, c: c * 0.5 + i", "lambda i, c: np.sin(c) + c",
                             "lambda i, c: c + np.sum(c) * 0.1"])
        return self.add_stmt(f"lax.fori_loop(0, {n}, {body}, {a})", [a], control=True)

    def op_while_(self):
        a = self._float_var()
        if a is None:
            return None
        # data-dependent trip count: double until the sum's magnitude exceeds a bound
        return self.add_stmt(
            f"lax.while_loop(lambda c: (np.sum(np.abs(c[1])) < 10.0) & (c[0] < 5), "
            f"lambda c: (c[0] + 1, c[1] * 2.0 + 0.1), (0, {a}))[1]", [a], control=True)

    def op_scan(self):
        a = self._float_var(min_rank=1)
        if a is None:
            return None
        sa = self.shape_of(a)
        init = self.new_input(sa[1:], FLOAT) if self.ch.flip(0.5) else None
        init_expr = init if init is not None else f"np.zeros({tuple(sa[1:])}, np.float32)"
        body = self.ch.pick(["lambda c, x: (c + x, c * x)", "lambda c, x: (np.maximum(c, x), c - x)"])
        which = self.ch.int(0, 1)
        used = [a] + ([init] if init is not None else [])
        return self.add_stmt(f"lax.scan({body}, {init_expr}, {a})[{which}]", used, control=True)

    def op_map(self):
        a = self._float_var(min_rank=1)
        if a is None:
            return None
        body = self.ch.pick(["lambda r: np.sin(r) * 2.0", "lambda r: np.sum(r) + r"])
        return self.add_stmt(f"lax.map({body}, {a})", [a], control=True)


def _np_dtype(d):
    if d == BF16:
        import ml_dtypes
        return ml_dtypes.bfloat16
    return np.dtype(d)


def _broadcastable(a, b) -> bool:
    for x, y in zip(a[::-1], b[::-1], strict=False):  # ranks may differ
        if x != y and x != 1 and y != 1:
            return False
    return True


def _random_factorization(n: int, ch: Chooser) -> tuple:
    if n == 0:
        return (0,)
    factors = []
    m = n
    p = 2
    while m > 1 and p * p <= m:
        while m % p == 0:
            factors.append(p)
            m //= p
        p += 1
    if m > 1:
        factors.append(m)
    rank = ch.int(0 if n == 1 else 1, 3)
    if rank == 0:
        return ()
    dims = [1] * rank
    for f in factors:
        dims[ch.int(0, rank - 1)] *= f
    assert math.prod(dims) == n
    return tuple(dims)


# ----------------------------------------------------------------------------- programs


def generate(ch: Chooser, *, control: bool = False, max_ops: int = 6, autodiff: float = 0.0) -> Program:
    """A random program; with probability ``autodiff`` the vmapped function is its grad, vjp
    or jvp with respect to its float inputs (when it has float inputs and outputs)."""
    g = Gen(ch, control=control)
    n_in = ch.int(1, 2)
    for _ in range(n_in):
        g.new_input(g.rand_shape(empty=True), ch.weighted({FLOAT: 6, INT: 2, BOOL: 1, BF16: 1}))
    n_ops = ch.int(1, max_ops)
    tries = 0
    while len(g.stmts) < n_ops and tries < 4 * max_ops:
        tries += 1
        g.step()
    if not g.stmts:
        g.add_stmt(f"{g.inputs[0].name} * 2", [g.inputs[0].name])
    outs = [g.order[-1]]
    if len(g.stmts) > 1 and ch.flip(0.3):
        other = ch.pick([s.split(" = ")[0] for s in g.stmts[:-1]])
        outs.append(other)
    n_f = len(g.inputs)
    ad = _autodiff(ch, g, outs) if autodiff and ch.flip(autodiff) else None
    if ad is None:
        descr = [(g.shape_of(o), g.deps[o]) for o in outs]
        mode, lines, n_ad = None, (), 0
    else:
        mode, lines, descr = ad
        n_ad = len(descr)
    levels = _levels(ch, g, descr)
    return Program(g.inputs, g.stmts, outs, levels, jit=ch.flip(0.5), seed=ch.int(0, 2**31 - 1),
                   uses_control=g.uses_control, ad=mode, ad_source=tuple(lines), n_f_inputs=n_f,
                   n_ad_outputs=n_ad)


_FLOATS = (FLOAT, BF16)


def _autodiff(ch: Chooser, g: Gen, outs: list):
    """(mode, lines of h, output descriptors) for a derivative of f, or None when f has no
    float input or output. Tangent and cotangent inputs are appended to ``g.inputs``."""
    names = [i.name for i in g.inputs]
    diff = [i.name for i in g.inputs if i.dtype in _FLOATS]
    f_outs = [k for k, o in enumerate(outs) if g.dtype_of(o) in _FLOATS]
    if not diff or not f_outs:
        return None
    mode = ch.pick(["grad", "vjp", "jvp"])
    single = len(outs) == 1
    everything = frozenset(range(len(g.inputs) + len(diff) + len(f_outs)))

    def extra(prefix, src):
        inp = Input(f"{prefix}{len(g.inputs)}", g.shape_of(src), g.dtype_of(src))
        g.inputs.append(inp)
        return inp.name

    fx = [f"    def fx({', '.join(diff)}):",
          f"        out = f({', '.join(names)})",
          "        out = (out,)" if single else "        out = tuple(out)"]
    if mode == "grad":
        loss = " + ".join(f"np.sum(out[{k}].astype(np.float32))" for k in f_outs)
        lines = [f"def h({', '.join(names)}):", *fx, f"        return {loss}",
                 f"    return grad(fx, argnums={tuple(range(len(diff)))!r})({', '.join(diff)})"]
        descr = [(g.shape_of(d), everything) for d in diff]
    elif mode == "vjp":
        cts = [extra("c", outs[k]) for k in f_outs]
        lines = [f"def h({', '.join(names + cts)}):", *fx,
                 f"        return ({''.join(f'out[{k}], ' for k in f_outs)})",
                 f"    _, pull = vjp(fx, {', '.join(diff)})",
                 f"    return pull(({''.join(c + ', ' for c in cts)}))"]
        descr = [(g.shape_of(d), everything) for d in diff]
    else:
        ts = [extra("t", d) for d in diff]
        lines = [f"def h({', '.join(names + ts)}):", *fx, "        return out",
                 f"    outs, touts = jvp(fx, ({''.join(d + ', ' for d in diff)}), "
                 f"({''.join(t + ', ' for t in ts)}))",
                 f"    return ({''.join(f'outs[{k}], ' for k in range(len(outs)))}"
                 f"{''.join(f'touts[{k}], ' for k in f_outs)})"]
        descr = ([(g.shape_of(o), g.deps[o]) for o in outs]
                 + [(g.shape_of(outs[k]), everything) for k in f_outs])
    return mode, lines, descr


def _levels(ch: Chooser, g: Gen, outs: list) -> list:
    """vmap levels for outputs described by (per-example shape, input indices they depend on)."""
    depth = ch.weighted({1: 10, 2: 6, 3: 3})
    n_in = len(g.inputs)
    sizes = [2, 3, 4]
    mapped = []  # per level (outermost first), set of mapped inputs
    for _ in range(depth):
        m = {i for i in range(n_in) if ch.flip(0.75)}
        if not m:
            m = {ch.int(0, n_in - 1)}
        mapped.append(m)
    levels = []
    for k in range(depth):
        deeper = mapped[k + 1:]
        in_axes = []
        for i, inp in enumerate(g.inputs):
            if i not in mapped[k]:
                in_axes.append(None)
                continue
            r = len(inp.shape) + sum(i in m for m in deeper)
            in_axes.append(ch.int(-(r + 1), r))
        out_axes = []
        for shape, dep in outs:
            r = len(shape) + len(deeper)  # inner levels: every output gets an axis
            if not (dep & mapped[k]) and ch.flip(0.4):
                out_axes.append(None)
            else:
                out_axes.append(ch.int(-(r + 1), r))
        levels.append(Level(tuple(in_axes), tuple(out_axes), ch.pick(sizes)))
    # out_axes=None at an inner level removes that level's axis from the output
    for k in range(depth):
        for j, (shape, _) in enumerate(outs):
            inner_none = sum(levels[q].out_axes[j] is None for q in range(k + 1, depth))
            ax = levels[k].out_axes[j]
            if ax is None or inner_none == 0:
                continue
            r = len(shape) + (depth - k - 1) - inner_none
            ax = max(-(r + 1), min(r, ax))
            oa = list(levels[k].out_axes)
            oa[j] = ax
            levels[k] = Level(levels[k].in_axes, tuple(oa), levels[k].size)
    return levels
