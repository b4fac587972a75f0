"""The core layer: the graph IR and traces (``ir``), dtypes and promotion (``dtypes``), the
global config (``config``), pytrees (``pytree``), static parameters as cache keys and Graph
interning (``params``), graph upkeep shared by passes and transforms (``graph_utils``), a
traced function's arguments (``arguments``), the tracing entry points that turn Python
functions into Graphs (``tracing``), and the JAX names vmaplab mirrors."""
