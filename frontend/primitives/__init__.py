"""Every built-in primitive of vmaplab, one row each: a ``Primitive`` object with its
abstract evaluation, batching, jvp and (for linear ones) transpose rules (its StableHLO
lowering is set by ``lowering/emit``). Rows are module globals named ``<name>_p``."""
from . import (  # noqa: F401
    barrier,
    bits,
    control,
    elementwise,
    general_reduce,
    indexing,
    linalg,
    padding,
    reductions,
    shape,
    windows,
)
