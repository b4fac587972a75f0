// vmaplab explorer: draws the stages embedded in #vm-data and links them by keys.
// Every item with data-keys="k1 k2 ..." is clickable; a click (or hover) highlights the items
// that share its first key (class hl) and, lightly, those sharing its other keys (class hl2).
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("vm-data").textContent);
  const $ = (sel, root) => (root || document).querySelector(sel);
  const el = (tag, attrs, text) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const SVG = "http://www.w3.org/2000/svg";
  const svgEl = (tag, attrs) => {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    return e;
  };
  const CHAR = 7.2, LINE = 15, MAX_NODES = 1500;

  // ------------------------------------------------------------------ code panes
  function codeBlock(lines, first, cls) {
    const pre = el("div", { class: "code " + (cls || "") });
    lines.forEach(([text, keys], i) => {
      const row = el("div", { class: "ln" + (keys.length ? " linked" : "") });
      if (keys.length) row.dataset.keys = keys.join(" ");
      row.appendChild(el("span", { class: "no" }, String(first + i)));
      const t = el("span", { class: "tx" });
      if (cls === "diff") t.classList.add(text.startsWith("+") ? "add" : text.startsWith("-") ? "del" : "ctx");
      t.textContent = text;
      row.appendChild(t);
      pre.appendChild(row);
    });
    return pre;
  }

  // ------------------------------------------------------------------ graphs (dagre)
  function nodeText(n) {
    const lines = [n.label];
    if (n.sub) lines.push(n.sub.length > 44 ? n.sub.slice(0, 43) + "\u2026" : n.sub);
    if (n.out) lines.push("\u2192 " + n.out);
    return lines;
  }

  function drawGraph(host, G, collapsed) {
    host.textContent = "";
    if (G.nodes.length > MAX_NODES) {
      host.appendChild(el("p", { class: "note" }, `${G.nodes.length} nodes: too many to draw; see the text view.`));
      return;
    }
    const clusters = {};
    G.clusters.forEach((c) => (clusters[c.id] = c));
    const drawn = (cid) => { // a cluster is drawn when neither it nor an ancestor is collapsed
      for (let c = clusters[cid]; c; c = clusters[c.parent]) if (collapsed.has(c.owner)) return false;
      return true;
    };
    const placeOf = (n) => { // [visible, drawn parent cluster]
      for (let cid = n.parent; cid; cid = clusters[cid].parent) {
        const c = clusters[cid];
        if (collapsed.has(c.owner) && c.owner !== n.id) return [false, null];
      }
      let p = n.parent;
      while (p && !drawn(p)) p = clusters[p].parent;
      return [true, p];
    };
    const g = new dagre.graphlib.Graph({ compound: true, multigraph: true });
    g.setGraph({ rankdir: "TB", nodesep: 16, ranksep: 26, edgesep: 6, marginx: 6, marginy: 6 });
    g.setDefaultEdgeLabel(() => ({}));
    const visible = {};
    G.clusters.forEach((c) => { if (drawn(c.id)) g.setNode(c.id, { label: c.label, cluster: c }); });
    G.clusters.forEach((c) => { if (drawn(c.id) && c.parent && drawn(c.parent)) g.setParent(c.id, c.parent); });
    G.nodes.forEach((n) => {
      const [vis, parent] = placeOf(n);
      if (!vis) return;
      visible[n.id] = n;
      const lines = nodeText(n);
      const w = Math.max(...lines.map((s) => s.length)) * CHAR + 14;
      g.setNode(n.id, { width: w, height: lines.length * LINE + 8, n: n, lines: lines });
      if (parent) g.setParent(n.id, parent);
    });
    G.edges.forEach((e, i) => {
      if (!(e.s in visible && e.t in visible)) return;
      const w = e.label ? e.label.length * 6.2 + 4 : 0;
      g.setEdge(e.s, e.t, { label: e.label, width: w, height: e.label ? 12 : 0, labelpos: "c", e: e }, "e" + i);
    });
    dagre.layout(g);
    const W = Math.ceil(g.graph().width || 10), H = Math.ceil(g.graph().height || 10);
    const svg = svgEl("svg", { width: W, height: H, viewBox: `0 0 ${W} ${H}`, class: "graph" });
    const defs = svgEl("defs");
    const marker = svgEl("marker", { id: "arrow", viewBox: "0 0 8 8", refX: 8, refY: 4, markerWidth: 7, markerHeight: 7, orient: "auto" });
    marker.appendChild(svgEl("path", { d: "M0,0 L8,4 L0,8 z", class: "arrowhead" }));
    defs.appendChild(marker);
    svg.appendChild(defs);
    g.nodes().forEach((id) => {
      const v = g.node(id);
      if (!v || !v.cluster) return;
      const c = svgEl("g", { class: "cluster" });
      c.appendChild(svgEl("rect", { x: v.x - v.width / 2, y: v.y - v.height / 2, width: v.width, height: v.height, rx: 6 }));
      const t = svgEl("text", { x: v.x - v.width / 2 + 6, y: v.y - v.height / 2 + 11, class: "clabel" });
      t.textContent = v.cluster.label;
      c.appendChild(t);
      svg.appendChild(c);
    });
    g.edges().forEach((ref) => {
      const ed = g.edge(ref);
      const pts = ed.points.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`);
      const path = svgEl("path", { d: "M" + pts.join(" L"), class: "edge" + (ed.e.sub ? " sub" : ""), "marker-end": "url(#arrow)" });
      svg.appendChild(path);
      if (ed.label) {
        const t = svgEl("text", { x: ed.x, y: ed.y + 4, class: "elabel" });
        t.textContent = ed.label;
        svg.appendChild(t);
      }
    });
    Object.keys(visible).forEach((id) => {
      const v = g.node(id), n = v.n;
      const grp = svgEl("g", { class: "node " + n.kind, "data-node": n.id });
      if (n.keys && n.keys.length) grp.dataset.keys = n.keys.join(" ");
      grp.appendChild(svgEl("rect", { x: v.x - v.width / 2, y: v.y - v.height / 2, width: v.width, height: v.height, rx: 4 }));
      v.lines.forEach((s, i) => {
        const t = svgEl("text", { x: v.x - v.width / 2 + 7, y: v.y - v.height / 2 + 15 + i * LINE, class: i ? "nsub" : "nlabel" });
        t.textContent = s;
        grp.appendChild(t);
      });
      if (n.cluster) {
        const open = !collapsed.has(n.id);
        const b = svgEl("text", { x: v.x + v.width / 2 - 14, y: v.y - v.height / 2 + 14, class: "toggle", "data-toggle": n.id });
        b.textContent = open ? "\u2212" : "+";
        const tip = svgEl("title");
        tip.textContent = open ? "collapse the sub-graphs" : "expand the sub-graphs";
        b.appendChild(tip);
        grp.appendChild(b);
      }
      svg.appendChild(grp);
    });
    host.appendChild(svg);
    reapply();
  }

  function graphView(G, defaultOpen) {
    const host = el("div", { class: "graphhost" });
    const collapsed = new Set();
    if (!defaultOpen) G.clusters.forEach((c) => collapsed.add(c.owner));
    host.addEventListener("click", (ev) => {
      const t = ev.target.closest("[data-toggle]");
      if (!t) return;
      ev.stopPropagation();
      const id = t.getAttribute("data-toggle");
      if (collapsed.has(id)) collapsed.delete(id); else collapsed.add(id);
      drawGraph(host, G, collapsed);
    });
    drawGraph(host, G, collapsed);
    return host;
  }

  // ------------------------------------------------------------------ stages
  function statsTable(title, kinds, head) {
    const box = el("div", { class: "stat" });
    box.appendChild(el("h4", {}, title));
    const tb = el("table");
    if (head) {
      const tr = el("tr");
      head.forEach((h) => tr.appendChild(el("th", {}, h)));
      tb.appendChild(tr);
    }
    Object.entries(kinds).forEach(([k, v]) => {
      const tr = el("tr");
      tr.appendChild(el("td", {}, k));
      (Array.isArray(v) ? v : [v]).forEach((x) => tr.appendChild(el("td", { class: "num" }, String(x))));
      tb.appendChild(tr);
    });
    box.appendChild(tb);
    return box;
  }

  function graphStage(st) {
    const box = el("div", { id: "stage-" + st.name, class: "stage", "data-stage": st.name });
    const bar = el("div", { class: "bar" });
    bar.appendChild(el("span", { class: "note" }, `${st.stats.eqns} equations${st.note ? " \u00b7 " + st.note : ""}`));
    const views = el("span", { class: "views" });
    const gbtn = el("button", { type: "button", class: "on" }, "graph");
    const tbtn = el("button", { type: "button" }, "text");
    views.append(gbtn, tbtn);
    bar.appendChild(views);
    box.appendChild(bar);
    const open = st.graph.nodes.length <= 80;
    const gv = graphView(st.graph, open), tv = codeBlock(st.text, 1, "graphtext");
    tv.hidden = true;
    gbtn.onclick = () => { gv.hidden = false; tv.hidden = true; gbtn.classList.add("on"); tbtn.classList.remove("on"); };
    tbtn.onclick = () => { gv.hidden = true; tv.hidden = false; tbtn.classList.add("on"); gbtn.classList.remove("on"); };
    box.append(gv, tv);
    return box;
  }

  function diffStage() {
    const box = el("div", { id: "stage-diff", class: "stage", "data-stage": "diff" });
    if (!D.diffs.length) {
      box.appendChild(el("p", { class: "note" }, "no graph passes ran"));
      return box;
    }
    const bar = el("div", { class: "bar" });
    const body = el("div");
    const show = (d, btn) => {
      bar.querySelectorAll("button").forEach((b) => b.classList.remove("on"));
      btn.classList.add("on");
      body.textContent = "";
      if (!d.changed) {
        body.appendChild(el("p", { class: "note" }, `${d.name}: the graph is unchanged`));
        return;
      }
      const sides = el("div", { class: "sides" });
      [["before", d.before], ["after", d.after]].forEach(([label, G]) => {
        const s = el("div", { class: "side" });
        s.appendChild(el("h4", {}, `${label} ${d.name}`));
        s.appendChild(graphView(G, G.nodes.length <= 80));
        sides.appendChild(s);
      });
      body.appendChild(sides);
      body.appendChild(codeBlock(d.diff.map((l) => [l, []]), 1, "diff"));
    };
    let first = null;
    D.diffs.forEach((d) => {
      const b = el("button", { type: "button", class: d.changed ? "changed" : "" }, d.name + (d.changed ? " *" : ""));
      b.onclick = () => show(d, b);
      bar.appendChild(b);
      if (!first || (d.changed && !first[0].changed)) first = [d, b];
    });
    box.append(bar, body);
    show(first[0], first[1]);
    return box;
  }

  function statsStage() {
    const box = el("div", { id: "stage-stats", class: "stage", "data-stage": "stats" });
    const row = el("div", { class: "stats" });
    const counts = {};
    D.stages.forEach((st) => (counts[st.title] = st.stats.eqns));
    if (D.stablehlo) counts["StableHLO ops"] = D.stablehlo.stats.ops;
    if (D.hlo) counts["HLO instructions"] = D.hlo.stats.instructions;
    row.appendChild(statsTable("Sizes", counts));
    D.stages.forEach((st) => row.appendChild(statsTable(st.title + ": equations", st.stats.kinds)));
    if (D.passes && D.passes.length) {
      const p = {};
      D.passes.forEach((s) => (p[s.name] = [s.before, s.after, s.ms]));
      row.appendChild(statsTable("Graph passes", p, ["pass", "eqns before", "after", "ms"]));
    }
    if (D.stablehlo) row.appendChild(statsTable("StableHLO ops", D.stablehlo.stats.kinds));
    if (D.hlo) {
      row.appendChild(statsTable("HLO instructions", D.hlo.stats.kinds));
      row.appendChild(statsTable("XLA cost analysis", D.hlo.cost));
    }
    box.appendChild(row);
    return box;
  }

  function tabs(pane, entries, open) {
    const nav = el("nav", { class: "tabs" });
    const host = $("#" + pane);
    entries.forEach(([title, node], i) => {
      const b = el("button", { type: "button", "data-tab": node.id }, title);
      b.onclick = () => {
        nav.querySelectorAll("button").forEach((x) => x.classList.toggle("on", x === b));
        entries.forEach(([, n]) => (n.hidden = n !== node));
      };
      nav.appendChild(b);
      node.hidden = i !== (open || 0);
      if (i === (open || 0)) b.classList.add("on");
    });
    host.append(nav, ...entries.map(([, n]) => n));
  }

  // ------------------------------------------------------------------ highlighting
  let selected = [];
  const withKey = (k) => document.querySelectorAll(`[data-keys~="${k}"]`);
  function mark(keys, cls, cls2) {
    document.querySelectorAll("." + cls + ", ." + cls2).forEach((e) => e.classList.remove(cls, cls2));
    if (!keys.length) return;
    withKey(keys[0]).forEach((e) => e.classList.add(cls));
    keys.slice(1).forEach((k) => withKey(k).forEach((e) => { if (!e.classList.contains(cls)) e.classList.add(cls2); }));
  }
  function reapply() { if (selected.length) mark(selected, "hl", "hl2"); }
  function select(keys, origin) {
    selected = keys;
    document.body.dataset.selected = keys.join(" ");
    mark(keys, "hl", "hl2");
    document.querySelectorAll(".code").forEach((c) => {
      if (c.contains(origin) || c.offsetParent === null) return;
      const hit = c.querySelector(".hl") || c.querySelector(".hl2");
      if (hit) c.scrollTop = Math.max(0, hit.offsetTop - c.offsetTop - c.clientHeight / 3);
    });
  }
  document.addEventListener("click", (ev) => {
    if (ev.target.closest("[data-toggle]") || ev.target.closest("button")) return;
    const t = ev.target.closest("[data-keys]");
    select(t ? t.dataset.keys.split(" ") : [], t);
  });
  document.addEventListener("mouseover", (ev) => {
    const t = ev.target.closest("[data-keys]");
    mark(t ? t.dataset.keys.split(" ") : [], "hv", "hv2");
  });

  // ------------------------------------------------------------------ the page
  if (D.files && D.files.length) {
    const src = $("#stage-source");
    D.files.forEach((f) => {
      src.appendChild(el("h4", {}, f.name));
      src.appendChild(codeBlock(f.lines, f.first, "python"));
    });
  }
  const graphs = D.stages.map((st) => [st.title, graphStage(st)]);
  if (D.diffs) graphs.push(["Pass diff", diffStage()]);
  if (D.passes || D.hlo) graphs.push(["Statistics", statsStage()]);
  tabs("pane-graphs", graphs, D.stages.length - 1);  // the lowered graph: linked to the code
  const code = [];
  if (D.stablehlo) {
    const s = el("div", { id: "stage-stablehlo", class: "stage", "data-stage": "stablehlo" });
    s.appendChild(el("div", { class: "bar note" }, `${D.stablehlo.stats.ops} ops`));
    s.appendChild(codeBlock(D.stablehlo.lines, 1, "mlir"));
    code.push(["StableHLO", s]);
  }
  if (D.hlo) {
    const s = el("div", { id: "stage-hlo", class: "stage", "data-stage": "hlo" });
    const c = D.hlo.cost || {};
    const cost = "flops" in c ? ` \u00b7 ${c.flops} flops, ${c["bytes accessed"]} bytes accessed` : "";
    s.appendChild(el("div", { class: "bar note" }, `XLA's optimized HLO: ${D.hlo.stats.instructions} instructions${cost}`));
    s.appendChild(codeBlock(D.hlo.lines, 1, "hlo"));
    code.push(["HLO (XLA)", s]);
  }
  if (code.length) tabs("pane-code", code);
  document.body.dataset.ready = "1";
})();
