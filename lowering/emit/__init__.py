"""The lowering rules of the built-in primitives, grouped by family like
frontend/primitives; importing this package sets them (``prim.def_lowering``)."""
from . import (  # noqa: F401
    bits,
    callback,
    collectives,
    control,
    conv,
    decompositions,
    elementwise,
    exported,
    ffi,
    fft,
    indexing,
    linalg,
    numeric,
    random,
    reductions,
    shape,
    sharding,
    sort,
    special,
    windows,
)
