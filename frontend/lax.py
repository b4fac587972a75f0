"""frontend.lax: a subset compatible with JAX's lax. Thin wrappers that bind one primitive each
(operands must already agree in dtype, as in JAX's lax)."""
from __future__ import annotations

from .primitives import elementwise as _ew
from .primitives.shape import *  # noqa: F401,F403
from .primitives.indexing import *  # noqa: F401,F403
from .primitives.reductions import *  # noqa: F401,F403
from .primitives.linalg import *  # noqa: F401,F403


def _lax_operands(name, args):
    from .numpy._core import convert
    from .core import aval_of
    from . import dtypes
    typed = [a for a in args if not isinstance(a, (bool, int, float, complex))]
    if not typed:
        from .numpy._core import promote_args
        return promote_args(name, *args, broadcast=False)
    d = aval_of(typed[0]).dtype
    weak = all(aval_of(a).weak_type for a in typed)
    out = []
    for a in args:
        if isinstance(a, (bool, int, float, complex)):
            out.append(convert(a, d, weak))
        else:
            out.append(a)
    del dtypes
    return out


def _wrap(prim, name):
    def fn(*args):
        return prim.bind(*_lax_operands(name, args))
    fn.__name__ = name
    fn.__doc__ = f"lax.{name}: the ``{prim.name}`` primitive."
    return fn


for _n, _p in {**_ew.UNARY, **_ew.BINARY, **_ew.COMPARE}.items():
    globals()[_n if _n not in ("not", "and", "or") else _n + "_"] = _wrap(_p, _n)
bitwise_not, bitwise_and, bitwise_or, bitwise_xor = not_, and_, or_, xor  # noqa: F821


def select(pred, on_true, on_false):
    """Choose on_true where pred else on_false (pred bool, same shape or rank 0)."""
    return _ew.select_p.bind(pred, *_lax_operands("select", (on_true, on_false)))


def convert_element_type(x, new_dtype):
    from .numpy._core import convert
    from . import dtypes
    import numpy as np
    return convert(x, dtypes.canonicalize(np.dtype(new_dtype)), False)
from .primitives.control import *  # noqa: F401,F403,E402
from .primitives.control import cond, fori_loop, map, scan, switch, while_loop  # noqa: F401,E402,A004
