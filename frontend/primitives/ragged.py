"""Ragged batches: the ``Ragged`` value (padded data + lengths) and the ragged rules of the
built-in primitives (see frontend.interpreters.ragged for the model and the rule signature).

Each rule is written for one example: it masks the padding where the result would see it
(``masked``: a select against ``iota < lane_length``) and says which axes of its result stay
ragged. Families:

- elementwise (the unary and n-ary families, select, convert): padding in, padding out; the
  result is ragged where any operand is.
- reductions over a ragged axis: the padding is replaced by the monoid's identity (0, 1,
  -inf, inf, False, True), so sum/prod/max/min/any/all, argmax/argmin and everything built on
  them (mean, var, softmax, logsumexp) see only the data; other axes stay ragged.
- cumulative ops: a forward scan never reads past a position (stays ragged); a reversed one
  along a ragged axis masks first.
- dot_general contracting a ragged axis: the ragged operands are zeroed past the length.
- shape ops keep a ragged axis where it goes (transpose, broadcast_in_dim, reshape that keeps
  it, full slices); a size-1 selection from it (``x[i]``) is no longer ragged; slicing,
  padding or concatenating along it is an error.
- scan over a ragged axis (``lax.scan``, ``lax.map``): a lane's carry stops changing after
  its length; the stacked outputs are ragged.
"""
from __future__ import annotations

import math

import numpy as np

from ..core import dtypes
from ..core.config import config
from ..core.graph_utils import closure_convert
from ..core.ir import Aval, Literal, Primitive, aval_of, inline_graph, literal
from ..core.pytree import register_node
from ..core.tracing import trace_graph
from ..device.array import Array, device_put
from ..interpreters.ragged import RaggedError, axis_length, is_ragged, ragged_axes, with_raxes
from . import bits as _bits
from . import elementwise as _ew
from . import numeric as _numeric
from . import reductions as _red
from . import special as _special
from .control import scan_p, while_p
from .elementwise import and_p, convert_element_type_p, lt_p, select_p, stop_gradient_p
from .indexing import dynamic_slice_p
from .linalg import dot_general_p
from .padding import concatenate_p, pad_p, slice_p
from .shape import (
    broadcast_in_dim_p,
    iota_p,
    reduce_sum_p,
    reshape_p,
    squeeze_p,
    transpose_p,
)

_I32 = np.dtype(np.int32)


# ----------------------------------------------------------------------------- the value


class Ragged:
    """A batch of examples whose lengths differ along some axes: ``data`` (the batch axis
    first, each ragged axis padded to one length) and ``lengths`` (int32, one per example).
    ``axes`` are the ragged axes of ``data`` (not 0). A pytree (children ``data`` and
    ``lengths``), so it passes through ``jit``; ``vmap`` maps it along the batch axis and the
    mapped function sees one padded example whose ragged axes the batching rules track.

    >>> import numpy as np
    >>> import frontend as fe, frontend.numpy as fnp
    >>> r = fe.ragged.stack([np.ones(2, np.float32), np.ones(3, np.float32)])
    >>> r.shape, r.lengths
    ((2, 4), Array([2, 3], dtype=int32))
    >>> fe.vmap(fnp.mean)(r)
    Array([1., 1.], dtype=float32)
    """

    __slots__ = ("data", "lengths", "axes")
    made = False  # (set once one exists: vmap looks for Ragged arguments only then)

    def __init__(self, data, lengths, axes=(1,)):
        Ragged.made = True
        self.data = data
        self.lengths = lengths
        self.axes = tuple(sorted(axes))

    shape = property(lambda self: tuple(aval_of(self.data).shape))
    dtype = property(lambda self: aval_of(self.data).dtype)
    ndim = property(lambda self: len(self.shape))

    def __repr__(self) -> str:
        return (f"Ragged(shape={self.shape}, dtype={self.dtype}, ragged axes={self.axes}, "
                f"lengths={self.lengths!r})")

    def to_padded(self, fill=0):
        """The data with every position past an example's length set to ``fill``."""
        d = self.data
        a = aval_of(d)
        lens = broadcast_in_dim_p.bind(self.lengths, shape=a.shape, broadcast_dimensions=(0,))
        return masked(d, self.axes, lens, fill)

    def unstack(self) -> list[Array]:
        """The examples, each cut to its length (host round trip)."""
        data, lens = np.asarray(self.data), np.asarray(self.lengths)
        out = []
        for b in range(data.shape[0]):
            idx = tuple(slice(0, int(lens[b])) if ax in self.axes else slice(None)
                        for ax in range(1, data.ndim))
            out.append(device_put(data[b][idx]))
        return out


register_node(Ragged, lambda r: ((r.data, r.lengths), r.axes),
              lambda axes, kids: Ragged(kids[0], kids[1], axes))


def bucket(n: int) -> int:
    """The padded length for a longest example of length ``n`` (``config.ragged_bucket``)."""
    how = config.ragged_bucket
    if how == "exact":
        return max(n, 1)
    if how == "pow2":
        return 1 << max(n - 1, 0).bit_length()
    return max(-(-n // how), 1) * how


def stack(arrays, axis=0) -> Ragged:
    """A ``Ragged`` batch of ``arrays``, equal in every dimension but ``axis`` (the ragged
    axis, counted per example), padded to the bucketed longest length (see
    ``config.ragged_bucket``) with zeros; device-resident."""
    arrays = [np.asarray(a) for a in arrays]
    if not arrays:
        raise ValueError("ragged.stack needs at least one array")
    nd = arrays[0].ndim
    if nd == 0:
        raise ValueError("ragged.stack needs arrays of rank >= 1, got a scalar")
    if not -nd <= axis < nd:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {nd}")
    axis %= nd
    dt = np.result_type(*arrays)
    rest = arrays[0].shape[:axis] + arrays[0].shape[axis + 1:]
    for i, a in enumerate(arrays):
        if a.ndim != nd or a.shape[:axis] + a.shape[axis + 1:] != rest:
            raise ValueError(f"ragged.stack: array {i} has shape {a.shape}, but every array "
                             f"must equal array 0 ({arrays[0].shape}) in every dimension but "
                             f"axis {axis}")
    lens = np.array([a.shape[axis] for a in arrays], np.int32)
    t = bucket(int(lens.max()))
    data = np.zeros((len(arrays),) + rest[:axis] + (t,) + rest[axis:], dt)
    for b, a in enumerate(arrays):
        idx = (b,) + (slice(None),) * axis + (slice(0, a.shape[axis]),)
        data[idx] = a
    return Ragged(device_put(data), device_put(lens), (axis + 1,))


def from_padded(x, lengths, axis=1) -> Ragged:
    """A ``Ragged`` of the padded ``x`` (batch axis 0) whose ragged ``axis`` of ``x`` holds
    ``lengths[b]`` valid entries in example b (the rest is padding, of any value)."""
    a = aval_of(x)
    la = aval_of(lengths)
    nd = len(a.shape)
    if nd < 2:
        raise ValueError(f"ragged.from_padded needs x of rank >= 2 (batch, ragged, ...), got "
                         f"shape {a.shape}")
    if not -nd <= axis < nd or axis % nd == 0:
        raise ValueError(f"ragged.from_padded: axis {axis} must be an axis of x other than the "
                         f"batch axis 0 (x has shape {a.shape})")
    if la.shape != (a.shape[0],) or not dtypes.is_int(la.dtype):
        raise ValueError(f"ragged.from_padded: lengths must be integers of shape "
                         f"({a.shape[0]},), got {la.dtype.name}{list(la.shape)}")
    if isinstance(lengths, (np.ndarray, list, tuple)):
        lengths = device_put(np.asarray(lengths).astype(_I32))
    elif la.dtype != _I32:
        lengths = convert_element_type_p.bind(lengths, new_dtype=_I32, weak_type=False)
    return Ragged(x, lengths, (axis % nd,))


# ----------------------------------------------------------------------------- masks


def valid(shape, axes, length):
    """True where every ragged axis in ``axes`` is below ``length`` (of ``shape``). Under a
    ragged vmap (``length`` the lane's length) one mask per shape and axes is made."""
    cache = getattr(getattr(length, "_trace", None), "masks", None)
    key = (tuple(shape), tuple(axes), id(length))
    if cache is not None and key in cache:
        return cache[key][1]
    m = None
    for ax in axes:
        c = lt_p.bind(iota_p.bind(dtype=_I32, shape=tuple(shape), dimension=ax), length)
        m = c if m is None else and_p.bind(m, c)
    if cache is not None:
        cache[key] = (length, m)  # (length kept alive: its id is in the key)
    return m


def masked(x, axes, length, fill):
    """``x`` with the padding along ``axes`` set to ``fill``."""
    a = aval_of(x)
    if not axes:
        return x
    f = broadcast_in_dim_p.bind(literal(fill, a.dtype, False), shape=a.shape,
                                broadcast_dimensions=())
    return select_p.bind(valid(a.shape, axes, length), x, f)


def zero_padding_gradient(x):
    """A ragged argument as the mapped function sees it: ``x``, with a gradient exactly zero
    on its padding (a select against its own stop_gradient: a NaN that the backward pass
    computes in padding, e.g. a softmax over an empty example, stops there)."""
    r = ragged_axes(x)
    if not r:
        return x
    m = valid(aval_of(x).shape, r, axis_length(x, r[0]))
    return select_p.bind(m, x, stop_gradient_p.bind(x))


def _error(prim, why):
    return RaggedError(f"vmap over a ragged batch: primitive {prim.name!r} {why}, so its "
                       "result would see the padding past each example's length. See "
                       "docs/ragged.md for the supported operations.")


def _drop(raxes, removed):
    """Ragged axes after the axes ``removed`` are taken out (ragged ones among them vanish)."""
    return tuple(r - sum(1 for k in removed if k < r) for r in raxes if r not in removed)


# ----------------------------------------------------------------------------- rules


def elementwise_rule(prim):
    def rule(args, raxes, lane_length, **params):
        return prim.bind(*args, **params), _union(raxes)
    rule.elementwise = True
    return rule


def _union(raxes):
    out = set()
    for r in raxes:
        out.update(r)
    return tuple(sorted(out))


def _elementwise_graph(g, args, raxes) -> bool:
    """Whether every equation of ``g`` is elementwise and every output has the shape of the
    ragged operands (then padding in is padding out, as for one elementwise primitive)."""
    shapes = {aval_of(a).shape for a, r in zip(args, raxes, strict=True) if r}
    return (len(shapes) == 1 and all(o.aval.shape in shapes for o in g.outvars)
            and all(getattr(e.prim.ragged_rule, "elementwise", False) for e in g.eqns))


def reduction_rule(prim, fill):
    def rule(args, raxes, lane_length, *, axes, **params):
        (x,), (r,) = args, raxes
        hit = tuple(k for k in r if k in axes)
        if hit:
            x = masked(x, hit, lane_length, fill(aval_of(x).dtype))
        return prim.bind(x, axes=axes, **params), _drop(r, axes)
    return rule


def cumulative_rule(prim, fill):
    def rule(args, raxes, lane_length, *, axis, reverse=False):
        (x,), (r,) = args, raxes
        if reverse and axis in r:  # (a forward scan reads no position past its own)
            x = masked(x, (axis,), lane_length, fill(aval_of(x).dtype))
        return prim.bind(x, axis=axis, reverse=reverse), r
    return rule


def _dot_general_ragged(args, raxes, lane_length, *, dimension_numbers, **params):
    (x, y), (rx, ry) = args, raxes
    (lc, rc), (lb, rb) = dimension_numbers
    mx = tuple(a for a in lc if a in rx)
    my = tuple(b for b in rc if b in ry)
    x = masked(x, mx, lane_length, 0)
    y = masked(y, my, lane_length, 0)
    out = dot_general_p.bind(x, y, dimension_numbers=dimension_numbers, **params)
    xf = [d for d in range(len(aval_of(x).shape)) if d not in lc and d not in lb]
    yf = [d for d in range(len(aval_of(y).shape)) if d not in rc and d not in rb]
    res = [i for i, (a, b) in enumerate(zip(lb, rb, strict=True)) if a in rx or b in ry]
    res += [len(lb) + j for j, d in enumerate(xf) if d in rx]
    res += [len(lb) + len(xf) + j for j, d in enumerate(yf) if d in ry]
    return out, tuple(res)


def _transpose_ragged(args, raxes, lane_length, *, permutation):
    (x,), (r,) = args, raxes
    return transpose_p.bind(x, permutation=permutation), \
        tuple(j for j, p in enumerate(permutation) if p in r)


def _broadcast_in_dim_ragged(args, raxes, lane_length, *, shape, broadcast_dimensions, **params):
    (x,), (r,) = args, raxes
    xs = aval_of(x).shape
    out = []
    for k in r:
        d = broadcast_dimensions[k]
        if shape[d] != xs[k]:
            raise _error(broadcast_in_dim_p, f"would broadcast the ragged axis {k} (size {xs[k]}) "
                                             f"to size {shape[d]}")
        out.append(d)
    return broadcast_in_dim_p.bind(x, shape=shape, broadcast_dimensions=broadcast_dimensions,
                                   **params), tuple(out)


def _reshape_ragged(args, raxes, lane_length, *, new_sizes, dimensions=None):
    (x,), (r,) = args, raxes
    old = aval_of(x).shape
    out = []
    for k in r:
        before = math.prod(old[:k])
        j = next((j for j in range(len(new_sizes))
                  if math.prod(new_sizes[:j]) == before and new_sizes[j] == old[k]), None)
        if j is None or dimensions is not None:
            if old[k] == 1:  # a selection of the only position (x[0] of a length-1 padding)
                continue
            raise _error(reshape_p, f"would merge or split the ragged axis {k} of shape {old} "
                                    f"(new sizes {tuple(new_sizes)})")
        out.append(j)
    return reshape_p.bind(x, new_sizes=new_sizes, dimensions=dimensions), tuple(out)


def _squeeze_ragged(args, raxes, lane_length, *, dimensions):
    (x,), (r,) = args, raxes
    return squeeze_p.bind(x, dimensions=dimensions), _drop(r, dimensions)


def _slice_ragged(args, raxes, lane_length, *, start_indices, limit_indices, strides=None):
    (x,), (r,) = args, raxes
    shp = aval_of(x).shape
    keep, gone = [], []
    for k in r:
        s, e = start_indices[k], limit_indices[k]
        step = 1 if strides is None else strides[k]
        if s == 0 and e == shp[k] and step == 1:
            keep.append(k)
        elif e - s == 1:
            gone.append(k)  # one position: the result no longer has this ragged axis
        else:
            raise _error(slice_p, f"slices the ragged axis {k} ({s}:{e}:{step} of {shp[k]}); "
                                  "only the whole axis or one position is supported")
    out = slice_p.bind(x, start_indices=start_indices, limit_indices=limit_indices,
                       strides=strides)
    return out, tuple(keep)


def _dynamic_slice_ragged(args, raxes, lane_length, *, slice_sizes):
    x, *starts = args
    r = raxes[0]
    if any(raxes[1:]):
        raise _error(dynamic_slice_p, "got a ragged start index")
    shp = aval_of(x).shape
    keep, starts = [], list(starts)
    for k in r:
        if slice_sizes[k] == shp[k]:
            keep.append(k)
        elif slice_sizes[k] == 1:  # clamped into the example, as dynamic_slice clamps
            s = convert_element_type_p.bind(starts[k], new_dtype=_I32, weak_type=False)
            last = lane_length - literal(1, _I32)
            starts[k] = _ew.max_p.bind(_ew.min_p.bind(s, last), literal(0, _I32))
        else:
            raise _error(dynamic_slice_p, f"takes {slice_sizes[k]} positions of the ragged axis "
                                          f"{k}; only the whole axis or one position is supported")
    return dynamic_slice_p.bind(x, *starts, slice_sizes=slice_sizes), tuple(keep)


def _concatenate_ragged(args, raxes, lane_length, *, dimension):
    out = set()
    for r in raxes:
        out.update(r)
    if dimension in out:
        raise _error(concatenate_p, f"concatenates along the ragged axis {dimension}")
    return concatenate_p.bind(*args, dimension=dimension), tuple(sorted(out))


def _pad_ragged(args, raxes, lane_length, *, padding_config):
    (x, pv), (r, _) = args, raxes
    for k in r:
        if tuple(padding_config[k]) != (0, 0, 0):
            raise _error(pad_p, f"pads the ragged axis {k} ({padding_config[k]})")
    return pad_p.bind(x, pv, padding_config=padding_config), r


def eval_graph_ragged(g, consts, args, raxes, lane_length):
    """``g``'s equations re-bound under the current trace, the ragged ones (an input ragged
    along ``raxes[i]``, lengths ``lane_length``) through their ragged rules: a loop body
    that reads a ragged value it closes over, interpreted for one example. Returns (outputs,
    their ragged axes)."""
    env, renv = {}, {}
    for v, x in zip(g.constvars, consts, strict=True):
        env[id(v)] = x
    for v, x, r in zip(g.invars, args, raxes, strict=True):
        env[id(v)], renv[id(v)] = x, r

    def read(a):
        return a if type(a) is Literal else env[id(a)]

    def rread(a):
        return () if type(a) is Literal else renv.get(id(a), ())

    for e in g.eqns:
        ins, rs = [read(a) for a in e.inputs], tuple(rread(a) for a in e.inputs)
        if any(rs):
            if e.prim.ragged_rule is None:
                raise _error(e.prim, "has no ragged rule (in a loop body that reads a ragged value)")
            out, orax = e.prim.ragged_rule(ins, rs, lane_length, **e.params)
        else:
            out = e.prim.bind(*ins, **e.params)
            orax = [()] * len(e.outs) if e.prim.multiple_results else ()
        if not e.prim.multiple_results:
            out, orax = [out], [orax]
        for v, o, r in zip(e.outs, out, orax, strict=True):
            env[id(v)], renv[id(v)] = o, r
    return [read(a) for a in g.outvars], [rread(a) for a in g.outvars]


def _dense_carry(prim, out_raxes, nk):
    if any(out_raxes[:nk]):
        raise _error(prim, "would carry a ragged value from one iteration to the next")


def _while_ragged(args, raxes, lane_length, *, cond_graph, body_graph, cond_nconsts, body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    if any(raxes[nc + nb:]):
        raise _error(while_p, "got a ragged loop carry")
    cc, bc, init = args[:nc], args[nc:nc + nb], args[nc + nb:]
    cr, br = raxes[:nc], raxes[nc:nc + nb]
    i32 = Aval((), _I32, False)
    cavals = [aval_of(c) for c in init]

    def cond(lane, *vals):
        return eval_graph_ragged(cond_graph, cond_graph.consts, vals, cr + ((),) * len(init), lane)[0]

    def body(lane, *vals):
        outs, orax = eval_graph_ragged(body_graph, body_graph.consts, vals, br + ((),) * len(init), lane)
        _dense_carry(while_p, orax, len(init))
        return outs

    cg, cconsts = closure_convert(trace_graph(cond, [i32, *map(aval_of, cc), *cavals]))
    bg, bconsts = closure_convert(trace_graph(body, [i32, *map(aval_of, bc), *cavals]))
    outs = while_p.bind(*cconsts, lane_length, *cc, *bconsts, lane_length, *bc, *init,
                        cond_graph=cg, body_graph=bg, cond_nconsts=len(cconsts) + 1 + nc,
                        body_nconsts=len(bconsts) + 1 + nb)
    return outs, [()] * len(outs)


def _scan_ragged(args, raxes, lane_length, *, body, num_consts, num_carry, length, reverse):
    nc, nk = num_consts, num_carry
    if any(raxes[nc:nc + nk]):
        raise _error(scan_p, "got a ragged loop carry")
    xr = raxes[nc + nk:]
    if any(r and 0 not in r for r in xr):
        raise _error(scan_p, "scans over a value ragged along an axis other than the scanned one")
    over = any(xr)  # (scanning over a ragged axis: a lane's carry stops at its length)
    row_r = [tuple(a - 1 for a in r if a) for r in xr]  # each step's row, ragged along these
    consts, carry, xs = args[:nc], args[nc:nc + nk], args[nc + nk:]
    cavals = [aval_of(c) for c in carry]
    i32 = Aval((), _I32, False)

    def step(lane, *vals):  # (lane length, consts, counter, carry, xs) -> (counter, carry, ys)
        k, c, x = vals[nc], vals[nc + 1:nc + 1 + nk], vals[nc + 1 + nk:]
        outs, orax = eval_graph_ragged(body, body.consts, [*vals[:nc], *c, *x],
                                       (*raxes[:nc], *[()] * nk, *row_r), lane)
        _dense_carry(scan_p, orax, nk)
        ys_r[:] = orax[nk:]
        if not over:
            return [k, *outs]
        pos = k if not reverse else literal(length - 1, _I32) - k
        live = lt_p.bind(pos, lane)
        new = [select_p.bind(broadcast_in_dim_p.bind(live, shape=a.shape, broadcast_dimensions=()),
                             o, old) for o, old, a in zip(outs[:nk], c, cavals, strict=True)]
        return [k + literal(1, _I32), *new, *outs[nk:]]

    ys_r = []

    in_avals = [i32, *map(aval_of, consts), i32, *cavals,
                *[Aval(a.shape[1:], a.dtype, a.weak_type) for a in map(aval_of, xs)]]
    g, gconsts = closure_convert(trace_graph(step, in_avals))
    outs = scan_p.bind(*gconsts, lane_length, *consts, literal(0, _I32), *carry, *xs, body=g,
                       num_consts=len(gconsts) + 1 + nc, num_carry=nk + 1, length=length,
                       reverse=reverse)
    outs = outs[1:]
    return outs, [()] * nk + [((0,) if over else ()) + tuple(a + 1 for a in r) for r in ys_r]


def call_rule(prim, graph_param):
    """The ragged rule of a call primitive: an elementwise graph (nn.relu's custom_jvp) is
    bound as it is, keeping the call's own rules (its custom derivative); any other runs its
    graph's equations one by one, each by its own ragged rule."""
    def rule(args, raxes, lane_length, **params):
        g = params[graph_param]
        if _elementwise_graph(g, args, raxes):
            return prim.bind(*args, **params), [_union(raxes)] * len(g.outvars)
        args = [with_raxes(a, r, lane_length) for a, r in zip(args, raxes, strict=True)]
        return inline_graph(g, args), [() for _ in g.outvars]  # (ragged where they are)
    return rule


def _fill_zero(d):
    return False if dtypes.is_bool(d) else 0


def _fill_one(d):
    return True if dtypes.is_bool(d) else 1


_vec_code = _ew.vectorized_batch(None).__code__
_same_code = _ew.same_axis_batch(None).__code__


def install_elementwise(prims):
    """Give every elementwise primitive (batched by the elementwise families' rules) of
    ``prims`` the elementwise ragged rule (one without a ragged rule yet)."""
    for p in prims:
        r = p.batching_rule
        if p.ragged_rule is None and r is not None and getattr(r, "__code__", None) in (_vec_code, _same_code):
            p.def_ragged(elementwise_rule(p))


for _p, _fill in ((reduce_sum_p, _fill_zero), (_red.reduce_or_p, _fill_zero), (_red.reduce_xor_p, _fill_zero),
                  (_red.reduce_prod_p, _fill_one), (_red.reduce_and_p, _red._all_ones), (_red.reduce_max_p, _red.lowest),
                  (_red.reduce_min_p, _red.highest), (_red.argmax_p, _red.lowest), (_red.argmin_p, _red.highest)):
    _p.def_ragged(reduction_rule(_p, _fill))
for _p, _fill in ((_red.cumsum_p, _fill_zero), (_red.cumprod_p, _fill_one), (_red.cummax_p, _red.lowest),
                  (_red.cummin_p, _red.highest)):
    _p.def_ragged(cumulative_rule(_p, _fill))
dot_general_p.def_ragged(_dot_general_ragged)
transpose_p.def_ragged(_transpose_ragged)
broadcast_in_dim_p.def_ragged(_broadcast_in_dim_ragged)
reshape_p.def_ragged(_reshape_ragged)
squeeze_p.def_ragged(_squeeze_ragged)
slice_p.def_ragged(_slice_ragged)
dynamic_slice_p.def_ragged(_dynamic_slice_ragged)
concatenate_p.def_ragged(_concatenate_ragged)
pad_p.def_ragged(_pad_ragged)
scan_p.def_ragged(_scan_ragged)
while_p.def_ragged(_while_ragged)
for _mod in (_ew, _numeric, _special, _bits):
    install_elementwise(v for v in vars(_mod).values() if isinstance(v, Primitive))

__all__ = ["Ragged", "stack", "from_padded", "bucket", "masked", "valid", "is_ragged",
           "zero_padding_gradient",
           "install_elementwise", "call_rule"]
