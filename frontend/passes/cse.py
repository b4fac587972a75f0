"""Common-subexpression elimination, as a local rule of the rewriter."""
from __future__ import annotations

from ..core.ir import Eqn, Literal
from ..core.params import literal_key, param_key
from .rewrite import rewrite_pass


def _eqn_key(e: Eqn):
    """Equal keys: the same primitive on the same operands with the same params (None when a
    param is unhashable, e.g. a numpy array)."""
    try:
        params = tuple((k, param_key(v)) for k, v in sorted(e.params.items()))
        key = (e.prim, tuple(literal_key(a) if type(a) is Literal else id(a) for a in e.inputs),
               params, tuple(v.aval for v in e.outs))
        hash(key)
    except TypeError:
        return None
    return key


def common_subexpression(e, rw):
    """An equation that repeats an earlier one (same primitive, operands and params) reads
    the earlier one's outputs."""
    if e.params.get("has_side_effect"):
        return None  # a side-effecting call (ffi_call) runs as often as written
    key = _eqn_key(e)
    if key is None:
        return None
    first = rw.memo.setdefault(("cse", key), e)
    return None if first is e else list(first.outs)


cse = rewrite_pass(
    common_subexpression, name="cse",
    doc="Common-subexpression elimination: an equation that repeats an earlier one (same "
        "primitive, operands and params) is dropped and its outputs read the earlier outputs; "
        "also inside sub-graphs. Primitives are pure (a call declaring has_side_effect is "
        "never merged), so no value changes.")
