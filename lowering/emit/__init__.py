"""StableHLO emitters, one per primitive, grouped by family like frontend/primitives."""
from . import elementwise  # noqa: F401
from . import shape  # noqa: F401
from . import indexing  # noqa: F401
from . import reductions  # noqa: F401
from . import linalg  # noqa: F401
from . import control  # noqa: F401
