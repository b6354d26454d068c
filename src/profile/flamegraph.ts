/**
 * What the flamegraphs are drawn from. Pure: trees in, a .cpuprofile object or HTML text out.
 *
 * - `flamegraphProfile`: a side's merged call tree as a .cpuprofile for 0x
 *   (`0x --visualize-cpu-profile`), which draws its nodes' hitCounts.
 * - `renderDiffFlamegraph`: the differential flamegraph, one self-contained HTML page: head's
 *   call tree drawn as an icicle (root on top, width = head's total time), each frame coloured by
 *   how its self time per request changed against the same call path in base (Gregg,
 *   "Differential Flame Graphs", 2014: red grew, blue shrank; in shares of each side's samples
 *   when there is no time per request), and marked by its origin — own code, dependency, Node
 *   core, V8/native — with a stripe on its left edge (or, switched to "colour by origin", filled
 *   with the origin's colour), with a legend, search and click-to-zoom.
 */
import type { FunctionCategory } from '../results/types.js';
import type { CallNode, CallTree } from './call-tree.js';
import type { CpuProfile } from './cpuprofile.js';
import { displayName } from './names.js';
import { describeLocation } from './frames.js';

/** Text with no < or >: 0x embeds names and titles in a <script> element unescaped. */
export function inert(text: string): string {
  return text.replace(/</g, '\u2039').replace(/>/g, '\u203a');
}

/**
 * The script URL 0x is given for a function. 0x colours frames by the shape of "name url:line"
 * (its v8cats: paths with node_modules are deps, `internal/…` and bare `fs.js` are core, other
 * paths are app), written for its own tick format; these URLs follow it, so the flamegraph's
 * app/deps/core filters work on profiles from recent Node, whose core URLs are node:….
 */
function zeroXUrl(node: CallNode): string {
  const { file, category } = node.fn;
  if (category === 'native' || file === '') return '';
  if (category === 'node') return `${file.replace(/^node:/, '')}.js`;
  return file.startsWith('/') ? file : `./${file}`;
}

/**
 * The merged tree as a CPU profile for 0x: one node per call path, hitCount = self samples.
 * Lines are 1-based (0x prints lineNumber as is, and the report's lines are 1-based), so this
 * file is 0x's input, not a faithful V8 profile: the per-process profiles are kept for DevTools.
 */
export function flamegraphProfile(tree: CallTree): CpuProfile {
  const nodes: CpuProfile['nodes'] = [];
  const add = (node: CallNode): number => {
    const id = nodes.length + 1;
    const entry: CpuProfile['nodes'][number] = {
      id,
      callFrame: {
        functionName: inert(node.fn.name),
        scriptId: '0',
        url: inert(zeroXUrl(node)),
        lineNumber: node.fn.line,
        columnNumber: node.fn.column,
      },
      hitCount: node.self,
      children: [],
    };
    nodes.push(entry);
    entry.children = node.children.map(add);
    return id;
  };
  add(tree.root);
  return { nodes, startTime: 0, endTime: 0, samples: [], timeDeltas: [] };
}

/* ------------------------------------------------------------------ differential flamegraph */

export interface DiffFlamegraphInput {
  head: CallTree;
  base: CallTree;
  /** head function key → base function key, for functions whose line moved (diff.ts matching). */
  moved: ReadonlyMap<string, string>;
  /** Shown as the page's heading, e.g. "GET /hello: head my-branch@abc1234 against base main@def5678". */
  title: string;
  /**
   * The CPU time per request one sample stands for on each side, µs (V8's interval ÷ the
   * responses in the profiled window): the colours are then time per request added (diff.ts), or
   * null (a side served no response): changes of shares.
   */
  usPerSample?: { base: number; head: number } | null;
}

const CATEGORY_INDEX: Record<FunctionCategory, number> = { own: 0, dependency: 1, node: 2, native: 3 };

/** A frame: [name, where, category, head self, head total, base self (−1: no such path in base), children]. */
type Frame = [number, number, number, number, number, number, Frame[]];

/** Head's tree as frames, each with the self samples of the same call path in base. */
function framesOf(input: DiffFlamegraphInput, strings: Map<string, number>): Frame {
  const id = (text: string) => {
    let index = strings.get(text);
    if (index === undefined) {
      index = strings.size;
      strings.set(text, index);
    }
    return index;
  };
  const baseChildren = new Map<CallNode, Map<string, CallNode>>();
  const baseChild = (parent: CallNode | null, key: string): CallNode | null => {
    if (parent === null) return null;
    let index = baseChildren.get(parent);
    if (!index) {
      index = new Map(parent.children.map((c) => [c.key, c]));
      baseChildren.set(parent, index);
    }
    return index.get(input.moved.get(key) ?? key) ?? null;
  };
  const build = (node: CallNode, base: CallNode | null): Frame => [
    id(displayName(node.fn)),
    id(describeLocation(node.fn)),
    CATEGORY_INDEX[node.fn.category],
    node.self,
    node.total,
    base === null ? -1 : base.self,
    node.children.map((child) => build(child, baseChild(base, child.key))),
  ];
  return build(input.head.root, input.base.root);
}

/** JSON that is safe inside a <script> element: nothing in it can end the element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

/** The page: data as JSON, drawn by a small script (no network, no dependencies). */
export function renderDiffFlamegraph(input: DiffFlamegraphInput): string {
  const strings = new Map<string, number>();
  const root = framesOf(input, strings);
  const data = {
    title: input.title,
    headSamples: input.head.samples,
    baseSamples: input.base.samples,
    usPerSample: input.usPerSample ?? null,
    strings: [...strings.keys()],
    root,
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`Differential flamegraph · ${input.title}`)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<header>
  <h1 id="title"></h1>
  <p id="summary"></p>
  <div class="bar">
    <label>colour by <select id="colour-by" aria-label="colour frames by">
      <option value="change">change</option>
      <option value="origin">origin</option>
    </select></label>
    <div id="legend" aria-label="colour legend"></div>
    <div id="origins" aria-label="origin legend"></div>
    <input id="search" type="search" placeholder="search functions" aria-label="search functions" autocomplete="off">
    <span id="matches"></span>
    <button id="reset" type="button">reset zoom</button>
  </div>
</header>
<main id="graph" role="img" aria-label="differential flamegraph"></main>
<footer id="details">Hover a frame for its numbers; click to zoom in.</footer>
<script id="data" type="application/json">${scriptJson(data)}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}

const PAGE_STYLE = `
body { margin: 0; font: 13px system-ui, -apple-system, "Segoe UI", sans-serif; color: #222; background: #fff; }
header { padding: 10px 14px 6px; border-bottom: 1px solid #ddd; }
h1 { font-size: 16px; margin: 0 0 4px; }
#summary { margin: 0 0 8px; color: #555; }
.bar { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; }
#legend { display: flex; align-items: center; gap: 6px; }
#legend .scale { width: 220px; height: 12px; border: 1px solid #bbb; }
#legend .new { display: inline-block; width: 18px; height: 12px; border: 1px dashed #444; background: #fff; }
#origins { display: flex; align-items: center; gap: 6px; }
#origins .swatch { display: inline-block; width: 14px; height: 12px; border: 1px solid #888; }
#search { width: 220px; padding: 3px 6px; }
#matches { color: #5b2a86; font-weight: 600; }
#graph { position: relative; margin: 8px 14px; }
.frame { position: absolute; height: 17px; box-sizing: border-box; border: 1px solid #fff; overflow: hidden;
  white-space: nowrap; text-overflow: ellipsis; font-size: 11px; line-height: 15px; padding: 0 3px; cursor: pointer; }
.frame.newpath { border: 1px dashed #444; }
.frame, .frame.newpath { border-left-width: 4px; border-left-style: solid; }
.frame.ancestor { opacity: 0.55; }
.frame.match { outline: 2px solid #7b1fa2; outline-offset: -2px; font-weight: 700; color: #4a148c; }
footer { position: sticky; bottom: 0; background: #f7f7f7; border-top: 1px solid #ddd; padding: 6px 14px; min-height: 18px; }
`;

/* The page's script: plain ES2017, runs once, builds the frames with textContent (never HTML). */
const PAGE_SCRIPT = String.raw`
(function () {
  var data = JSON.parse(document.getElementById('data').textContent);
  var S = data.strings, ROW = 18, CATS = ['own code', 'dependency', 'Node core', 'V8/native'];
  // Origin, by category index: the stripe (strong) and the fill when colouring by origin (light).
  var ORIGIN_CLASS = ['own', 'dependency', 'node', 'native'];
  var ORIGIN_STRONG = ['rgb(46, 125, 50)', 'rgb(123, 31, 162)', 'rgb(239, 108, 0)', 'rgb(97, 97, 97)'];
  var ORIGIN_LIGHT = ['rgb(200, 230, 201)', 'rgb(225, 190, 231)', 'rgb(255, 224, 178)', 'rgb(224, 224, 224)'];
  var colourBy = document.getElementById('colour-by');
  var graph = document.getElementById('graph');
  var search = document.getElementById('search');
  var matches = document.getElementById('matches');
  var details = document.getElementById('details');
  function pct(x) { return (100 * x).toFixed(x >= 0.1 ? 1 : 2) + '%'; }
  function pp(x) { var v = 100 * x; return (v > 0 ? '+' : v < 0 ? '\u2212' : '') + Math.abs(v).toFixed(Math.abs(v) >= 10 ? 1 : 2) + ' pp'; }
  // U: CPU time per request of one sample on each side (µs), or null: changes are then in shares
  var U = data.usPerSample;
  function us(x) { return x >= 1000 ? Number((x / 1000).toPrecision(3)) + ' ms' : Number(x.toPrecision(3)) + ' \u00b5s'; }
  function added(x) { return (x > 0 ? '+' : x < 0 ? '\u2212' : '') + us(Math.abs(x)); }
  function headShare(f) { return data.headSamples > 0 ? f[3] / data.headSamples : 0; }
  function baseShare(f) { return f[5] < 0 || data.baseSamples === 0 ? 0 : f[5] / data.baseSamples; }
  function delta(f) { return U ? f[3] * U.head - Math.max(0, f[5]) * U.base : headShare(f) - baseShare(f); }
  function change(x) { return U ? added(x) : pp(x); }
  var maxAbs = 0;
  (function walk(f) { maxAbs = Math.max(maxAbs, Math.abs(delta(f))); f[6].forEach(walk); })(data.root);
  var scale = Math.max(maxAbs, U ? 0.01 : 0.001);
  function colour(f) {
    if (f[3] === 0 && f[5] <= 0) return 'hsl(0, 0%, 91%)';
    var d = delta(f), t = Math.min(1, Math.abs(d) / scale);
    var light = 96 - 46 * t;
    return d >= 0 ? 'hsl(4, 85%, ' + light + '%)' : 'hsl(214, 85%, ' + light + '%)';
  }
  document.getElementById('title').textContent = 'Differential flamegraph \u00b7 ' + data.title;
  document.getElementById('summary').textContent =
    'Head\u2019s call tree (width: head\u2019s total time, ' + data.headSamples + ' samples); colour: change of each frame\u2019s self time against the same call path in base (' +
    data.baseSamples + ' samples), ' + (U ? 'in CPU time per request (each side\u2019s samples \u00d7 the sampling interval \u00f7 its responses)' : 'in percentage points of each side\u2019s samples') +
    ' (or, switched, by origin); the stripe on each frame\u2019s left edge is its origin. Frames only in base are not drawn: see the base flamegraph.';
  var legend = document.getElementById('legend');
  legend.appendChild(document.createTextNode(change(-scale)));
  var bar = document.createElement('span'); bar.className = 'scale';
  bar.style.background = 'linear-gradient(to right, hsl(214,85%,50%), hsl(0,0%,96%), hsl(4,85%,50%))';
  legend.appendChild(bar);
  legend.appendChild(document.createTextNode(change(scale) + (U ? ' per request' : '') + ' (red: more self time in head, blue: less)'));
  var dashed = document.createElement('span'); dashed.className = 'new'; legend.appendChild(dashed);
  legend.appendChild(document.createTextNode('not in base'));
  var origins = document.getElementById('origins');
  CATS.forEach(function (name, i) {
    var swatch = document.createElement('span'); swatch.className = 'swatch origin-' + ORIGIN_CLASS[i];
    swatch.style.background = ORIGIN_LIGHT[i]; swatch.style.borderLeft = '4px solid ' + ORIGIN_STRONG[i];
    origins.appendChild(swatch);
    origins.appendChild(document.createTextNode(name));
  });
  function fill(f) { return colourBy.value === 'origin' ? ORIGIN_LIGHT[f[2]] : colour(f); }
  colourBy.addEventListener('change', function () { legend.style.display = colourBy.value === 'origin' ? 'none' : ''; render(); });

  var zoomPath = [data.root], term = '';
  function isMatch(f) {
    return term !== '' && (S[f[0]].toLowerCase().indexOf(term) >= 0 || S[f[1]].toLowerCase().indexOf(term) >= 0);
  }
  function describe(f) {
    var self = function (share, n, u) { return U ? us(n * u) + ' per request (' + pct(share) + ')' : pct(share); };
    return S[f[0]] + ' \u2014 ' + S[f[1]] + ' (' + CATS[f[2]] + ') \u00b7 head self ' + self(headShare(f), f[3], U && U.head) +
      (f[5] < 0 ? ' (not in base)' : ', base ' + self(baseShare(f), f[5], U && U.base) + ', change ' + change(delta(f))) +
      ' \u00b7 head total ' + pct(data.headSamples ? f[4] / data.headSamples : 0);
  }
  function frameDiv(f, left, width, depth, ancestor) {
    var div = document.createElement('div');
    div.className = 'frame origin-' + ORIGIN_CLASS[f[2]] + (f[5] < 0 ? ' newpath' : '') + (ancestor ? ' ancestor' : '') + (isMatch(f) ? ' match' : '');
    div.style.left = left + '%';
    div.style.width = width + '%';
    div.style.top = depth * ROW + 'px';
    div.style.background = fill(f);
    div.style.borderLeftColor = ORIGIN_STRONG[f[2]];
    div.textContent = S[f[0]];
    div.title = describe(f);
    div.dataset.name = S[f[0]];
    div.addEventListener('mouseenter', function () { details.textContent = describe(f); });
    div.addEventListener('click', function (event) { event.stopPropagation(); zoomTo(f); });
    graph.appendChild(div);
  }
  var parents = new Map();
  (function index(f) { f[6].forEach(function (c) { parents.set(c, f); index(c); }); })(data.root);
  function zoomTo(f) {
    var path = [f];
    while (parents.has(path[0])) path.unshift(parents.get(path[0]));
    zoomPath = path;
    render();
  }
  function render() {
    graph.textContent = '';
    var focus = zoomPath[zoomPath.length - 1], minWidth = 100 / Math.max(200, graph.clientWidth || 1000) / 2, depthMax = 0;
    zoomPath.forEach(function (f, depth) { if (depth < zoomPath.length - 1) frameDiv(f, 0, 100, depth, true); });
    (function draw(f, left, width, depth) {
      if (width < minWidth) return;
      depthMax = Math.max(depthMax, depth);
      frameDiv(f, left, width, depth, false);
      var x = left;
      f[6].forEach(function (c) {
        var w = focus[4] > 0 ? (c[4] / focus[4]) * 100 : 0;
        draw(c, x, w, depth + 1);
        x += w;
      });
    })(focus, 0, 100, zoomPath.length - 1);
    graph.style.height = (depthMax + 1) * ROW + 4 + 'px';
  }
  function runSearch() {
    term = search.value.trim().toLowerCase();
    var count = 0, samples = 0;
    (function walk(f, inside) {
      var hit = isMatch(f);
      if (hit) { count++; if (!inside) samples += f[4]; }
      f[6].forEach(function (c) { walk(c, inside || hit); });
    })(data.root, false);
    matches.textContent = term === '' ? '' : count + (count === 1 ? ' frame' : ' frames') + ' \u00b7 ' + pct(data.headSamples ? samples / data.headSamples : 0) + ' of head';
    render();
  }
  search.addEventListener('input', runSearch);
  document.getElementById('reset').addEventListener('click', function () { zoomPath = [data.root]; render(); });
  window.addEventListener('resize', render);
  render();
})();
`;
