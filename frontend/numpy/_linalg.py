"""JAX's numpy tensor contractions: dot, matmul, vdot, inner, outer, tensordot, einsum.

Every contraction is one ``dot_general`` (plus only the reshapes/transposes/reductions the
numpy semantics need). Operands are promoted to one dtype first (JAX's numpy promotion);
``preferred_element_type`` sets the result dtype (not weakly typed).
"""
from __future__ import annotations

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.ir import aval_of
from ..lax._convert import convert
from ._core import canonical_axis, check_arraylike, promote_args
from ._elementwise import multiply

__all__ = ["dot", "matmul", "vdot", "inner", "outer", "tensordot", "einsum"]


def _prepare(name, operands, preferred_element_type):
    """Promote the operands; return them with (preferred dtype param or None)."""
    ops = promote_args(name, *operands, broadcast=False)  # (checks the operands' types)
    pref = None
    if preferred_element_type is not None:
        pref = dtypes.canonicalize(np.dtype(preferred_element_type))
    return ops, pref


def _finish(out, pref):
    return out if pref is None else convert(out, pref, False)


def _dg(a, b, contract, batch=((), ()), precision=None, pref=None):
    return lax.dot_general(a, b, (contract, batch), precision, pref)


def _reshape(x, shape):
    shape = tuple(shape)
    if aval_of(x).shape == shape:
        return x
    return lax.reshape(x, new_sizes=shape, dimensions=None)


def _transpose(x, perm):
    perm = tuple(int(p) for p in perm)
    if perm == tuple(range(len(perm))):
        return x
    return lax.transpose(x, permutation=perm)


def _aval_str(x) -> str:
    a = aval_of(x)
    return f"{a.dtype.name}[{','.join(map(str, a.shape))}]"


# ----------------------------------------------------------------------------- dot, matmul


def dot(a, b, *, precision=None, preferred_element_type=None):
    """numpy.dot: scalar operands multiply; otherwise the last axis of ``a`` contracts with
    the only axis of a 1-D ``b`` or the second-to-last axis of ``b`` (batch axes stacked).

    >>> import frontend.numpy as fnp
    >>> fnp.dot(fnp.ones((2, 3)), fnp.ones(3)).shape
    (2,)
    """
    (a, b), pref = _prepare("dot", (a, b), preferred_element_type)
    an, bn = aval_of(a).ndim, aval_of(b).ndim
    if an == 0 or bn == 0:
        contract = ((), ())
    elif bn == 1:
        contract = ((an - 1,), (0,))
    else:
        contract = ((an - 1,), (bn - 2,))
    return _finish(_dg(a, b, contract, precision=precision, pref=pref), pref)


def matmul(a, b, *, precision=None, preferred_element_type=None):
    """numpy.matmul (the ``@`` operator): 1-D operands are promoted to matrices (and the
    added axis removed); leading batch axes broadcast. Equal batch axes become dot_general
    batching dims; an axis of size 1 against a larger one is squeezed from its operand and the
    other operand's axis becomes a free dim (nothing is broadcast).

    >>> import frontend.numpy as fnp
    >>> fnp.matmul(fnp.ones((4, 2, 3)), fnp.ones((3, 5))).shape
    (4, 2, 5)
    """
    orig = (a, b)
    (a, b), pref = _prepare("matmul", (a, b), preferred_element_type)
    ash, bsh = aval_of(a).shape, aval_of(b).shape
    for i, sh in enumerate((ash, bsh)):
        if not sh:
            raise ValueError(f"matmul input operand {i} must have ndim at least 1, but it has "
                             "ndim 0")
    if len(ash) <= 2 and len(bsh) <= 2:  # no batch axes: numpy.dot's contraction
        out = _dg(a, b, ((len(ash) - 1,), (max(len(bsh) - 2, 0),)), precision=precision, pref=pref)
        return _finish(out, pref)
    a_mat, b_mat = len(ash) > 1, len(bsh) > 1
    a_bat = ash[:-2] if a_mat else ()
    b_bat = bsh[:-2] if b_mat else ()
    nb = max(len(a_bat), len(b_bat))
    a_off, b_off = nb - len(a_bat), nb - len(b_bat)
    a_sq, b_sq, a_batch, b_batch = [], [], [], []
    idx_batch, idx_a, idx_b = [], [], []
    for i in range(nb):
        ia, ib = i - a_off, i - b_off
        sa = a_bat[ia] if ia >= 0 else None
        sb = b_bat[ib] if ib >= 0 else None
        if sa is None:
            idx_b.append(i)
        elif sb is None:
            idx_a.append(i)
        elif sa == sb:
            a_batch.append(ia)
            b_batch.append(ib)
            idx_batch.append(i)
        elif sa == 1:
            a_sq.append(ia)
            idx_b.append(i)
        elif sb == 1:
            b_sq.append(ib)
            idx_a.append(i)
        else:
            raise ValueError(f"Incompatible types for matmul arguments: {_aval_str(orig[0])} "
                             f"and {_aval_str(orig[1])}")
    if a_mat:
        idx_a.append(nb)
    if b_mat:
        idx_b.append(nb + a_mat)
    if a_sq:
        a = _reshape(a, [s for k, s in enumerate(ash) if k not in a_sq])
    if b_sq:
        b = _reshape(b, [s for k, s in enumerate(bsh) if k not in b_sq])
    a_batch = [k - sum(s < k for s in a_sq) for k in a_batch]
    b_batch = [k - sum(s < k for s in b_sq) for k in b_batch]
    an, bn = aval_of(a).ndim, aval_of(b).ndim
    out = _dg(a, b, ((an - 1,), (bn - 1 - b_mat,)), (a_batch, b_batch), precision, pref)
    order = idx_batch + idx_a + idx_b
    out = _transpose(out, sorted(range(len(order)), key=order.__getitem__))
    return _finish(out, pref)


def vdot(a, b, *, precision=None, preferred_element_type=None):
    """numpy.vdot: both operands flattened, ``a`` conjugated; a scalar result."""
    (a, b), pref = _prepare("vdot", (a, b), preferred_element_type)
    if dtypes.is_complex(aval_of(a).dtype):
        a = lax.conj(a)
    a = _reshape(a, (aval_of(a).size,))
    b = _reshape(b, (aval_of(b).size,))
    return dot(a, b, precision=precision, preferred_element_type=pref)


def inner(a, b, *, precision=None, preferred_element_type=None):
    """numpy.inner: contracts the last axis of both operands (scalars multiply)."""
    check_arraylike("inner", a, b)
    if aval_of(a).ndim == 0 or aval_of(b).ndim == 0:
        if preferred_element_type is not None:
            d = dtypes.canonicalize(np.dtype(preferred_element_type))
            a, b = (convert(promote_args("inner", x)[0], d) for x in (a, b))
        return multiply(a, b)
    return tensordot(a, b, (-1, -1), precision=precision, preferred_element_type=preferred_element_type)


def outer(a, b, out=None):
    """numpy.outer: ``a.ravel()[:, None] * b.ravel()[None, :]`` (one dot_general with no
    contraction)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.outer is not supported.")
    (a, b), _ = _prepare("outer", (a, b), None)
    a = _reshape(a, (aval_of(a).size,))
    b = _reshape(b, (aval_of(b).size,))
    return _dg(a, b, ((), ()))


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None):
    """numpy.tensordot: ``axes`` an int k (last k axes of a with first k of b), a pair of ints
    or a pair of axis sequences."""
    (a, b), pref = _prepare("tensordot", (a, b), preferred_element_type)
    an, bn = aval_of(a).ndim, aval_of(b).ndim
    if type(axes) is int:
        if axes > min(an, bn):
            raise TypeError(f"Number of tensordot axes (axes {axes}) exceeds input ranks "
                            f"({aval_of(a).shape} and {aval_of(b).shape})")
        contract = (tuple(range(an - axes, an)), tuple(range(axes)))
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        ax1, ax2 = axes
        if isinstance(ax1, (int, np.integer)) and isinstance(ax2, (int, np.integer)):
            contract = ((canonical_axis(int(ax1), an),), (canonical_axis(int(ax2), bn),))
        elif isinstance(ax1, (tuple, list)) and isinstance(ax2, (tuple, list)):
            if len(ax1) != len(ax2):
                raise TypeError(f"tensordot requires axes lists to have equal length, got {ax1} "
                                f"and {ax2}.")
            contract = (tuple(canonical_axis(int(i), an) for i in ax1),
                        tuple(canonical_axis(int(i), bn) for i in ax2))
        else:
            raise TypeError("tensordot requires both axes lists to be either ints, tuples or "
                            f"lists, got {ax1} and {ax2}")
    else:
        raise TypeError("tensordot axes argument must be an int, a pair of ints, or a pair of "
                        "lists/tuples of ints.")
    return _finish(_dg(a, b, contract, precision=precision, pref=pref), pref)


# ----------------------------------------------------------------------------- einsum

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _sublist_to_str(sub) -> str:
    s = ""
    for x in sub:
        if x is Ellipsis:
            s += "..."
        else:
            s += _LETTERS[int(x)]
    return s


def _interleaved(args):
    """einsum(op0, sub0, op1, sub1, ..., [sub_out]) -> (subscripts, operands)."""
    args = list(args)
    out = None
    if len(args) % 2 == 1:
        out = args.pop()
    ops = args[0::2]
    subs = ",".join(_sublist_to_str(s) for s in args[1::2])
    if out is not None:
        subs += "->" + _sublist_to_str(out)
    return subs, ops


def _split_spec(spec: str, k: int, ndim: int):
    """Labels of one operand spec: letters, and '...' expanded later (returned as None)."""
    if spec.count("...") > 1 or spec.replace("...", "").count(".") > 0:
        raise ValueError(f"Invalid Einstein sum subscript '{spec}' for operand {k}.")
    head, _, tail = spec.partition("...")
    for c in head + tail:
        if c not in _LETTERS:
            raise ValueError(f"Invalid character '{c}' in Einstein sum subscript '{spec}'.")
    has_ell = "..." in spec
    n_named = len(head) + len(tail)
    if (not has_ell and n_named != ndim) or (has_ell and n_named > ndim):
        raise ValueError(f"Einstein sum subscript '{spec}' does not contain the correct number "
                         f"of indices for operand {k}.")
    return list(head), list(tail), ndim - n_named if has_ell else 0, has_ell


def _parse_einsum(subscripts: str, shapes):
    s = subscripts.replace(" ", "")
    if s.count("->") > 1:
        raise ValueError("einsum subscripts string contains more than one '->'.")
    explicit = "->" in s
    ins, _, out_spec = s.partition("->")
    specs = ins.split(",")
    if len(specs) != len(shapes):
        raise ValueError(f"einsum got {len(shapes)} operands for {len(specs)} input subscripts "
                         f"'{ins}'.")
    parsed = [_split_spec(sp, k, len(sh)) for k, (sp, sh) in enumerate(zip(specs, shapes, strict=True))]
    n_ell = max((p[2] for p in parsed), default=0)
    ell = [f".{j}" for j in range(n_ell)]
    labels = [h + ell[n_ell - ne:] + t for h, t, ne, _ in parsed]
    if explicit:
        if out_spec.count("...") > 1 or out_spec.replace("...", "").count(".") > 0:
            raise ValueError(f"Invalid Einstein sum output subscript '{out_spec}'.")
        head, has, tail = out_spec.partition("...")
        out = list(head) + (ell if has else []) + list(tail)
        seen = set()
        for c in head + tail:
            if c in seen:
                raise ValueError(f"Output character '{c}' appeared more than once in the output.")
            seen.add(c)
            if not any(c in ls for ls in labels):
                raise ValueError(f"Output character '{c}' did not appear in the input")
    else:
        counts: dict = {}
        for ls in labels:
            for c in ls:
                counts[c] = counts.get(c, 0) + 1
        out = ell + sorted(c for c, n in counts.items() if n == 1 and not c.startswith("."))
    return labels, out


def _reduce(x, axes):
    if not axes:
        return x
    d = aval_of(x).dtype
    reduce = lax.reduce_or if dtypes.is_bool(d) else lax.reduce_sum
    return reduce(x, tuple(sorted(axes)))


def _take_diagonal(x, labels):
    """Collapse repeated labels of one operand (``ii->i``): mask off-diagonal entries and sum
    the repeated axis away."""
    labels = list(labels)
    while True:
        dup = next((c for c in labels if labels.count(c) > 1), None)
        if dup is None:
            return x, labels
        p = labels.index(dup)
        q = labels.index(dup, p + 1)
        a = aval_of(x)
        n = a.shape[p]
        mask = np.eye(n, dtype=bool)
        mask = lax.broadcast_in_dim(mask, shape=a.shape, broadcast_dimensions=(p, q))
        zero = convert(False if dtypes.is_bool(a.dtype) else 0, a.dtype, False)
        x = lax.select(mask, x, zero)
        x = _reduce(x, (q,))
        labels.pop(q)


def _pair_labels(la, lb, needed):
    """(batch, contracting) labels and the result label order of contracting la with lb."""
    batch = [c for c in la if c in lb and c in needed]
    contr = [c for c in la if c in lb and c not in needed]
    res = batch + [c for c in la if c not in lb] + [c for c in lb if c not in la]
    return batch, contr, res


def einsum(subscripts, /, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None, _dot_general=None):
    """numpy.einsum: any number of operands, '...' broadcasting, implicit output, repeated
    indices (diagonals) and summed indices. Operands are contracted pairwise with dot_general,
    greedily choosing the pair with the smallest intermediate result (``optimize=False``:
    left to right); indices used by no other operand are summed first.

    >>> import frontend.numpy as fnp
    >>> fnp.einsum("ij,jk->ik", fnp.ones((2, 3)), fnp.ones((3, 4))).shape
    (2, 4)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
    if not isinstance(subscripts, str):
        subscripts, operands = _interleaved((subscripts,) + operands)
    if not operands:
        raise ValueError("einsum requires at least one operand.")
    ops, pref = _prepare("einsum", operands, preferred_element_type)
    shapes = [aval_of(o).shape for o in ops]
    labels, out_labels = _parse_einsum(subscripts, shapes)

    # label sizes: named labels must agree; '...' labels broadcast (size 1 is squeezed away)
    size: dict = {}
    for k, (ls, sh) in enumerate(zip(labels, shapes, strict=True)):
        for c, n in zip(ls, sh, strict=True):
            if c.startswith(".") and n == 1:
                continue
            if size.setdefault(c, n) != n:
                shown = "..." if c.startswith(".") else c
                raise ValueError(f"Size of label '{shown}' for operand {k} ({n}) does not match "
                                 f"previous terms ({size[c]}).")
    terms = []
    for x, ls in zip(ops, labels, strict=True):
        sh = aval_of(x).shape
        drop = [i for i, c in enumerate(ls) if c.startswith(".") and sh[i] == 1 and size.get(c, 1) != 1]
        if drop:
            x = _reshape(x, [s for i, s in enumerate(sh) if i not in drop])
            ls = [c for i, c in enumerate(ls) if i not in drop]
        x, ls = _take_diagonal(x, ls)
        terms.append((x, ls))
    for c in out_labels + [c for _, ls in terms for c in ls]:
        size.setdefault(c, 1)

    def needed_except(skip):
        s = set(out_labels)
        for k, (_, ls) in enumerate(terms):
            if k not in skip:
                s.update(ls)
        return s

    # sum labels that no other operand and not the output uses
    for k, (x, ls) in enumerate(terms):
        need = needed_except({k})
        axes = [i for i, c in enumerate(ls) if c not in need]
        if axes:
            terms[k] = (_reduce(x, axes), [c for c in ls if c in need])

    greedy = optimize not in (False, None, "none")
    while len(terms) > 1:
        best = None
        pairs = [(i, j) for i in range(len(terms)) for j in range(i + 1, len(terms))]
        if not greedy:
            pairs = pairs[:1]
        for i, j in pairs:
            need = needed_except({i, j})
            _, _, res = _pair_labels(terms[i][1], terms[j][1], need)
            # (a symbolic dimension counts as 8 in the path's cost, as in JAX's einsum)
            cost = int(np.prod([size[c] if type(size[c]) is int else 8 for c in res],
                               dtype=np.int64))
            if best is None or cost < best[0]:
                best = (cost, i, j)
        _, i, j = best
        (xa, la), (xb, lb) = terms[i], terms[j]
        need = needed_except({i, j})
        if len(terms) == 2:
            _, _, res_ab = _pair_labels(la, lb, need)
            _, _, res_ba = _pair_labels(lb, la, need)
            if res_ab != out_labels and res_ba == out_labels:
                (xa, la), (xb, lb) = (xb, lb), (xa, la)
        batch, contr, res = _pair_labels(la, lb, need)
        dn = (([la.index(c) for c in contr], [lb.index(c) for c in contr]),
              ([la.index(c) for c in batch], [lb.index(c) for c in batch]))
        x = _dg(xa, xb, dn[0], dn[1], precision, pref)
        terms = [t for k, t in enumerate(terms) if k not in (i, j)]
        terms.insert(i, (x, res))

    x, ls = terms[0]
    extra = [i for i, c in enumerate(ls) if c not in out_labels]
    if extra:
        x = _reduce(x, extra)
        ls = [c for c in ls if c in out_labels]
    # output labels missing from the result (an all-size-1 '...' dim squeezed nowhere) cannot
    # occur: a label is only dropped from an operand when another operand keeps it
    x = _transpose(x, [ls.index(c) for c in out_labels])
    return _finish(x, pref)
