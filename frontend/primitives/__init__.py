"""Every primitive of vmaplab, one row each (abstract eval + batching rule here; the StableHLO
emitter in lowering/emit, keyed by the same name). Importing this package registers them all."""
from . import elementwise  # noqa: F401
from . import shape  # noqa: F401
from . import indexing  # noqa: F401
from . import reductions  # noqa: F401
from . import linalg  # noqa: F401
from . import control  # noqa: F401
