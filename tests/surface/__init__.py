"""Tables of JAX's public surface, one module per JAX module (see common.py)."""
