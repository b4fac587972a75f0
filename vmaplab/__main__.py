"""``python -m vmaplab``: the same as the ``vmaplab`` console script."""
import sys

from .cli import main

sys.exit(main())
