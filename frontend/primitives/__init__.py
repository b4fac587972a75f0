"""Every built-in primitive of vmaplab, one row each: a ``Primitive`` object with its
abstract evaluation, batching, jvp and (for linear ones) transpose rules (its StableHLO
lowering is set by ``lowering/emit``). Rows are module globals named ``<name>_p``."""
from . import bits, control, elementwise, indexing, linalg, padding, reductions, shape  # noqa: F401
