"""The explorer's HTML: one self-contained file (styles, scripts and the graph layout library
inlined, no network at view time). Graphs are laid out by dagre (assets/dagre.min.js, MIT,
vendored: see assets/THIRD_PARTY_LICENSES.txt) and drawn as SVG by assets/explorer.js."""
from __future__ import annotations

import functools
import html
import json
import os

from .build import Keys, explore_data, stage

_ASSETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "assets")


@functools.cache
def _asset(name: str) -> str:
    with open(os.path.join(_ASSETS, name), encoding="utf-8") as f:
        return f.read()


def _script(text: str) -> str:
    return "<script>" + text.replace("</script", "<\\/script") + "</script>"


def render(data: dict) -> str:
    """The page of ``data`` (``explore_data``'s dict, or a part of it) as HTML text."""
    has_source, has_code = bool(data.get("files")), bool(data.get("stablehlo"))
    panes = []
    if has_source:
        panes.append('<section class="pane" id="pane-source"><h3>Python</h3>'
                     '<div id="stage-source" class="stage" data-stage="source"></div></section>')
    panes.append('<section class="pane" id="pane-graphs"></section>')
    if has_code:
        panes.append('<section class="pane" id="pane-code"></section>')
    summary = " \u2192 ".join(f"{s['title']}: {s['stats']['eqns']} equations"
                              for s in data["stages"])
    if data.get("stablehlo"):
        summary += f" \u2192 StableHLO: {data['stablehlo']['stats']['ops']} ops"
    if data.get("hlo"):
        summary += f" \u2192 HLO: {data['hlo']['stats']['instructions']} instructions"
        cost = data["hlo"].get("cost") or {}
        if "flops" in cost:
            summary += f" ({cost['flops']:g} flops, {cost.get('bytes accessed', 0):g} bytes)"
    args = f"({', '.join(data['args'])})" if data.get("args") is not None else ""
    payload = json.dumps({k: v for k, v in data.items() if k != "stablehlo_text"},
                         separators=(",", ":")).replace("</", "<\\/")
    title = html.escape(data["title"])
    return "\n".join([
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<link rel="icon" href="data:,">',
        f"<title>vmaplab explorer: {title}</title>",
        "<style>" + _asset("explorer.css") + "</style></head><body>",
        f"<header><h1>vmaplab explorer \u2014 <code>{title}{html.escape(args)}</code></h1>"
        f'<div class="summary">{html.escape(summary)}</div></header>',
        f'<main class="{"" if has_source or has_code else "single"}">{"".join(panes)}</main>',
        f'<script type="application/json" id="vm-data">{payload}</script>',
        _script(_asset("dagre.min.js")),
        _script(_asset("explorer.js")),
        "</body></html>", ""])


class Page:
    """An explorer page: ``html`` (the text), ``data`` (what it shows), ``save(path)``; in
    Jupyter it shows itself (in an iframe, so that its styles stay its own)."""

    def __init__(self, data: dict):
        self.data = data
        self.html = render(data)

    def save(self, path) -> str:
        """Write the page to ``path`` (whole or not at all: a temporary file renamed)."""
        path = os.fspath(path)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(self.html)
        os.replace(tmp, path)
        return path

    def _repr_html_(self) -> str:
        return (f'<iframe srcdoc="{html.escape(self.html, quote=True)}" style="width:100%;'
                'height:720px;border:1px solid #ccc" sandbox="allow-scripts"></iframe>')

    def __str__(self) -> str:
        return self.html


def explore_page(fn, args=(), kwargs=None, *, passes=None, path=None, title=None) -> Page:
    """The explorer page of ``jit(fn, passes=passes).lower(*args, **kwargs)``, written to
    ``path`` when one is given."""
    page = Page(explore_data(fn, args, kwargs, passes=passes, title=title))
    if path is not None:
        page.save(path)
    return page


def graph_html(g) -> str:
    """A graph drawn, with its printed text (``Graph._repr_html_``)."""
    data = dict(title="graph", stages=[stage("graph", "Graph", g, Keys(None, lines=False))])
    return Page(data)._repr_html_()


def lowered_html(lowered) -> str:
    """A Lowered drawn: its graph, its StableHLO (each op linked to its equation) and XLA's
    optimized HLO (``Lowered._repr_html_``)."""
    from .build import code_json
    g = lowered.graph
    keys = Keys(g, lines=False)
    stablehlo, hlo, _ = code_json(lowered, keys)
    data = dict(title="lowered", stages=[stage("passes", "Lowered graph", g, keys)],
                stablehlo=stablehlo, hlo=hlo)
    return Page(data)._repr_html_()
