"""Graph -> StableHLO text (``emit``), the backend the frontend calls (``backend``),
XLA through jaxlib (``runtime``, the only jaxlib user), the ``vmaplab`` command (``cli``)."""
