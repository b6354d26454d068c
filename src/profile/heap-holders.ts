/**
 * Who keeps what a heap gained over a load: the step after DevTools' Comparison view, where one
 * selects the grown constructor and reads its objects' retainers. Pure: the snapshot at the
 * load's end comes in as bytes, with the last object number of the snapshot at its start
 * (heap-snapshot.ts, scanSnapshot).
 *
 * Each object made during the load is followed up its shortest path from the GC roots (a
 * breadth-first walk over the strong edges, the retainer DevTools lists first) to the first
 * object that was already there when the load began: its holder, the array, Map or object the
 * program keeps adding to. The holder is named by the variable and properties that reach it
 * ("kept", "app.locals.history"), and the variable's scope by the script of the functions that
 * share it, so the source can say which function adds to it (holder-writers.ts).
 *
 * The whole graph is held as typed arrays, one field each (a 256 MB snapshot, the largest read,
 * is some 2–3 million nodes and 10 million edges: about 150 MB); the header and strings are the
 * only JSON parsed.
 */
import { groupOf, type Meta, metaOf, NODES, scanNumbers, stringsOf } from './heap-snapshot.js';

/** What one holder keeps of one group: the objects made during the load that it holds. */
export interface KeptHolder {
  /** The kept objects' group, as the constructor table names it ("(string)", "Session"). */
  kept: string;
  count: number;
  /** Their own (shallow) size, bytes. */
  size: number;
  /** The variable and properties that reach the holder ("kept", "app.locals.history"); null when none does (a root holds it). */
  path: string | null;
  /** The holder's own group: "Array", "Map", "Object", a class. */
  holder: string;
  /** The script whose scope has the path's variable (a path or file: URL, as V8 names it); null when unknown. */
  script: string | null;
}

interface Graph {
  meta: Meta;
  strings: string[];
  count: number;
  type: Uint8Array;
  name: Uint32Array;
  id: Float64Array;
  size: Float64Array;
  /** Index of each node's first edge (and, at `count`, the end). */
  firstEdge: Uint32Array;
  edgeType: Uint8Array;
  edgeName: Uint32Array;
  edgeTo: Uint32Array;
  edgeTypes: string[];
}

function parseGraph(bytes: Buffer, file: string): Graph {
  const nodesAt = bytes.indexOf(NODES);
  if (nodesAt < 0) throw new Error(`${file} is not a V8 heap snapshot (no "nodes" table)`);
  const meta = metaOf(bytes, nodesAt, file);
  const header = JSON.parse(`${bytes.toString('utf8', 0, nodesAt).replace(/,\s*$/, '')}}`) as {
    snapshot: { node_count?: number; edge_count?: number; meta: { node_fields: string[]; edge_fields?: string[]; edge_types?: unknown[] } };
  };
  const { node_count: count, edge_count: edges } = header.snapshot;
  const edgeFields = header.snapshot.meta.edge_fields ?? [];
  const edgeTypes = header.snapshot.meta.edge_types?.[0];
  const edgeCountAt = header.snapshot.meta.node_fields.indexOf('edge_count');
  const [typeAt, nameAt, toAt] = ['type', 'name_or_index', 'to_node'].map((f) => edgeFields.indexOf(f));
  if (typeof count !== 'number' || typeof edges !== 'number' || !Array.isArray(edgeTypes) || edgeCountAt < 0 || meta.idAt < 0 || typeAt! < 0 || nameAt! < 0 || toAt! < 0) {
    throw new Error(`${file} is not a V8 heap snapshot this version of perfgate reads (no node counts, ids or edge fields in its header)`);
  }
  const g: Graph = {
    meta,
    strings: [],
    count,
    type: new Uint8Array(count),
    name: new Uint32Array(count),
    id: new Float64Array(count),
    size: new Float64Array(count),
    firstEdge: new Uint32Array(count + 1),
    edgeType: new Uint8Array(edges),
    edgeName: new Uint32Array(edges),
    edgeTo: new Uint32Array(edges),
    edgeTypes: edgeTypes as string[],
  };
  const width = meta.width;
  let edge = 0;
  let at = scanNumbers(bytes, nodesAt + NODES.length, (value, i) => {
    const node = Math.floor(i / width);
    if (node >= count) return;
    const field = i - node * width;
    if (field === meta.typeAt) g.type[node] = value;
    else if (field === meta.nameAt) g.name[node] = value;
    else if (field === meta.idAt) g.id[node] = value;
    else if (field === meta.sizeAt) g.size[node] = value;
    else if (field === edgeCountAt) {
      g.firstEdge[node] = edge;
      edge += value;
    }
  });
  g.firstEdge[count] = Math.min(edge, edges);
  const edgesAt = bytes.indexOf('"edges":[', at);
  if (edgesAt < 0) throw new Error(`${file} is not a complete V8 heap snapshot (no "edges" table; was it cut?)`);
  const edgeWidth = edgeFields.length;
  at = scanNumbers(bytes, edgesAt + '"edges":['.length, (value, i) => {
    const e = Math.floor(i / edgeWidth);
    if (e >= edges) return;
    const field = i - e * edgeWidth;
    if (field === typeAt) g.edgeType[e] = value;
    else if (field === nameAt) g.edgeName[e] = value;
    else if (field === toAt) g.edgeTo[e] = value / width;
  });
  g.strings = stringsOf(bytes, at, file);
  return g;
}

/** Each node's parent on a shortest path from the root over strong edges, and the edge from it; -1 for the root and the unreached. */
function shortestPaths(g: Graph): { parent: Int32Array; via: Uint32Array } {
  const weak = g.edgeTypes.indexOf('weak');
  const parent = new Int32Array(g.count).fill(-1);
  const via = new Uint32Array(g.count);
  const seen = new Uint8Array(g.count);
  const queue = new Uint32Array(g.count);
  let head = 0;
  let tail = 0;
  seen[0] = 1;
  queue[tail++] = 0;
  while (head < tail) {
    const node = queue[head++]!;
    for (let e = g.firstEdge[node]!; e < g.firstEdge[node + 1]!; e++) {
      if (g.edgeType[e] === weak) continue;
      const to = g.edgeTo[e]!;
      if (seen[to]) continue;
      seen[to] = 1;
      parent[to] = node;
      via[to] = e;
      queue[tail++] = to;
    }
  }
  return { parent, via };
}

/** How far up from a holder its name is looked for: a variable or property a few objects up. */
const PATH_STEPS = 8;

/**
 * The variable and properties that reach a holder ("app.locals.history"), walking up its
 * shortest path: a property or element edge is a step of the path, an internal one (a Map's
 * table, a context's link to its outer one) is passed over, a context variable ends it.
 */
function pathOf(g: Graph, paths: { parent: Int32Array; via: Uint32Array }, holder: number): { path: string | null; context: number } {
  const kinds = { context: g.edgeTypes.indexOf('context'), property: g.edgeTypes.indexOf('property'), element: g.edgeTypes.indexOf('element') };
  const steps: string[] = [];
  let node = holder;
  for (let i = 0; i < PATH_STEPS && paths.parent[node]! >= 0; i++) {
    const e = paths.via[node]!;
    const kind = g.edgeType[e];
    const up = paths.parent[node]!;
    if (g.meta.types[g.type[up]!] === 'synthetic') break;
    if (kind === kinds.context) {
      steps.unshift(g.strings[g.edgeName[e]!] ?? '?');
      return { path: joinPath(steps), context: up };
    }
    if (kind === kinds.property) steps.unshift(g.strings[g.edgeName[e]!] ?? '?');
    else if (kind === kinds.element) steps.unshift(`[${g.edgeName[e]}]`);
    node = up;
  }
  // No variable reaches it: an index into V8's or Node's own tables says nothing to people.
  while (steps[0]?.startsWith('[')) steps.shift();
  return { path: steps.length > 0 ? joinPath(steps) : null, context: -1 };
}

const joinPath = (steps: readonly string[]) => steps.map((s, i) => (i === 0 || s.startsWith('[') ? s : `.${s}`)).join('');

/** The node an edge of `node` with this name leads to, or -1. */
function follow(g: Graph, node: number, name: string): number {
  for (let e = g.firstEdge[node]!; e < g.firstEdge[node + 1]!; e++) {
    if (g.strings[g.edgeName[e]!] === name && g.edgeTypes[g.edgeType[e]!] !== 'element' && g.edgeTypes[g.edgeType[e]!] !== 'hidden') return g.edgeTo[e]!;
  }
  return -1;
}

/**
 * Each context's script: a function closes over the context (its internal "context" edge), and
 * its shared function info names the script.
 */
function contextScripts(g: Graph, contexts: Set<number>): Map<number, string> {
  const scripts = new Map<number, string>();
  const closure = g.meta.types.indexOf('closure');
  for (let node = 0; node < g.count && scripts.size < contexts.size; node++) {
    if (g.type[node] !== closure) continue;
    const context = follow(g, node, 'context');
    if (!contexts.has(context) || scripts.has(context)) continue;
    const shared = follow(g, node, 'shared');
    // Node 20's V8 names the edge script_or_debug_info (through the debug info when an inspector
    // made one), Node 24's script.
    let script = shared < 0 ? -1 : follow(g, shared, 'script_or_debug_info');
    if (script < 0 && shared >= 0) script = follow(g, shared, 'script');
    if (script >= 0 && !/^(file:|\/)/.test(g.strings[g.name[script]!] ?? '')) script = follow(g, script, 'script');
    const name = script < 0 ? '' : (g.strings[g.name[script]!] ?? '');
    if (/^(file:|\/)/.test(name)) scripts.set(context, name);
  }
  return scripts;
}

/**
 * Everything made during the load that is still held at its end, by holder: per kept group and
 * holder, the objects and their bytes, the largest first. `lastId`: the start snapshot's last
 * object number.
 */
export function keptHolders(bytes: Buffer, lastId: number, file: string): KeptHolder[] {
  const g = parseGraph(bytes, file);
  const paths = shortestPaths(g);
  const synthetic = g.meta.types.indexOf('synthetic');
  const isNew = (node: number) => g.id[node]! % 2 === 1 && g.id[node]! > lastId;
  // The first object on the way up that was there at the start; -1 when none (a root holds it).
  const holderOf = new Int32Array(g.count).fill(-2);
  // The property of the holder the new objects hang from ("shipped" of an emitter's `_events`,
  // where the listeners' array was made during the load), -1 when none (an element, a Map's table).
  const belowOf = new Int32Array(g.count).fill(-1);
  const property = g.edgeTypes.indexOf('property');
  const climb: number[] = [];
  const groups = new Map<string, KeptHolder & { node: number }>();
  const named = new Map<number, { path: string | null; context: number }>();
  for (let node = 1; node < g.count; node++) {
    if (!isNew(node)) continue;
    const kept = groupOf(g.meta.types[g.type[node]!] ?? 'hidden', g.strings[g.name[node]!]);
    if (kept === null) continue;
    let up = node;
    climb.length = 0;
    while (up >= 0 && holderOf[up] === -2 && isNew(up)) {
      climb.push(up);
      up = paths.parent[up]!;
    }
    // a memoized new object's holder, or the old object reached; V8's roots hold nothing of the program's own
    const memoized = up >= 0 && holderOf[up] !== -2;
    const reached = up < 0 ? -1 : memoized ? holderOf[up]! : up;
    const holder = reached >= 0 && g.type[reached] === synthetic ? -1 : reached;
    const top = climb.at(-1)!;
    const below = memoized ? belowOf[up]! : g.edgeType[paths.via[top]!] === property ? g.edgeName[paths.via[top]!]! : -1;
    for (const n of climb) {
      holderOf[n] = holder;
      belowOf[n] = below;
    }
    if (holder < 0) continue;
    const place = named.get(holder) ?? pathOf(g, paths, holder);
    named.set(holder, place);
    const key = `${kept}\0${holder}\0${below}`;
    const path = below < 0 ? place.path : `${place.path === null ? '' : `${place.path}.`}${g.strings[below]}`;
    const entry = groups.get(key) ?? { kept, count: 0, size: 0, path, holder: groupOf(g.meta.types[g.type[holder]!] ?? 'hidden', g.strings[g.name[holder]!]) ?? '(system)', script: null, node: holder };
    entry.count += 1;
    entry.size += g.size[node]!;
    groups.set(key, entry);
  }
  const contexts = new Set([...named.values()].map((p) => p.context).filter((c) => c >= 0));
  const scripts = contextScripts(g, contexts);
  return [...groups.values()]
    .map(({ node, ...h }) => ({ ...h, script: scripts.get(named.get(node)!.context) ?? null }))
    .sort((a, b) => b.size - a.size || a.kept.localeCompare(b.kept));
}
