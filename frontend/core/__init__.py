"""The core layer: the graph IR and traces (``ir``), dtypes and promotion (``dtypes``), the
global config (``config``), pytrees (``pytree``), the tracing entry points that turn Python
functions into Graphs (``tracing``), and the JAX names vmaplab mirrors."""
