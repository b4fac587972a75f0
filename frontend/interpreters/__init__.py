"""The interpreters of a graph or a trace: batching (vmap's trace), named axes (which
traces bind axis names, which primitives use them), forward mode (``jvp``), linearize by
partial evaluation, the backward pass (``transpose``), and the symbolic zeros they pass
around (``ad_util``)."""
