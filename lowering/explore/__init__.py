"""The explorer: one self-contained HTML page showing every stage of compiling a function
(Python source, traced/vmapped graphs, the graph passes, StableHLO, XLA's HLO), drawn and
cross-linked. ``vmaplab explore`` and ``frontend.explore`` call ``explore_page``."""
from .build import explore_data
from .page import Page, explore_page, graph_html, lowered_html, render

__all__ = ["Page", "explore_data", "explore_page", "graph_html", "lowered_html", "render"]
