/**
 * Which functions add to a holder the heap keeps growing (heap-holders.ts names it by its path,
 * "kept" or "app.locals.history"): the functions of its script whose code mutates it, read from
 * the source. `kept.push(x)`, `cache.set(k, v)`, `seen.add(x)`, `kept[i] = x`, `log += line`, and
 * for listeners never removed (held in `bus._events.flush`), `bus.on('flush', …)`. A holder's
 * variable is shared by every function of its scope; the one that adds to it is the one a leak is
 * fixed in. Pure: the script's lines come in.
 */
import type { FunctionId, RetainedHolder } from '../results/types.js';
import { type AnyNode, FUNCTIONS, functionName, parseScript } from './enclosing.js';
import { identifyFrame } from './frames.js';
import type { KeptHolder } from './heap-holders.js';
import type { ScriptSources } from './inlining.js';

/** A function whose code adds to the holder; 1-based lines, V8's naming for anonymous ones. */
export interface HolderWriter {
  /** Its name, or "" for an anonymous function. */
  name: string;
  line: number;
  column: number;
  endLine: number;
  kind: 'function' | 'arrow' | 'method';
  /** The innermost named function around it ("" at the top level). */
  enclosing: string;
  /** Whether the mutated expression is the holder's whole path (`kept.push`), not only its last name (`this.kept.push`). */
  exact: boolean;
}

/** Calls that add to what they are called on: arrays, Maps, Sets, and strings' containers. */
const MUTATORS = new Set(['push', 'unshift', 'splice', 'set', 'add', 'fill', 'append']);
/** Calls that add a listener to an EventEmitter: they add to its `_events`, the path a listener leak is held by. */
const LISTENERS = new Set(['on', 'addListener', 'once', 'prependListener', 'prependOnceListener']);

/** `app.locals.history` → ["app", "locals", "history"]; an index step is "[]". */
function chainOf(node: AnyNode): string[] | null {
  if (node.type === 'Identifier') return [node['name'] as string];
  if (node.type === 'ThisExpression') return ['this'];
  if (node.type !== 'MemberExpression') return null;
  const object = chainOf(node['object'] as AnyNode);
  if (object === null) return null;
  const property = node['property'] as AnyNode;
  return [...object, !node['computed'] && property.type === 'Identifier' ? (property['name'] as string) : '[]'];
}

/** "kept", "app.locals.history", "handlers[3]" → its names, index steps as "[]". */
function pathChain(path: string): string[] {
  return path.split(/(?=\[)|\./).map((step) => (step.startsWith('[') ? '[]' : step));
}

/** How an expression matches the holder: its whole path, its last name, or not at all. */
function matches(target: AnyNode, path: readonly string[]): 'exact' | 'last' | null {
  const chain = chainOf(target);
  if (chain === null) return null;
  if (chain.join('.') === path.join('.')) return 'exact';
  const last = path.filter((s) => s !== '[]').at(-1);
  return last !== undefined && chain.filter((s) => s !== '[]').at(-1) === last ? 'last' : null;
}

/**
 * The expression a node mutates, when it is a mutation: `x.push(…)` → x, `x[k] = …` → x,
 * `x += …` → x; `x.on(…)` → x's listeners (`listener`: it matches a path through `_events`).
 */
function mutated(node: AnyNode): { target: AnyNode; event: string | null } | null {
  if (node.type === 'CallExpression') {
    const callee = node['callee'] as AnyNode;
    if (callee.type !== 'MemberExpression' || callee['computed']) return null;
    const property = callee['property'] as AnyNode;
    const name = property.type === 'Identifier' ? (property['name'] as string) : '';
    if (MUTATORS.has(name)) return { target: callee['object'] as AnyNode, event: null };
    if (!LISTENERS.has(name)) return null;
    const first = (node['arguments'] as AnyNode[])[0];
    return { target: callee['object'] as AnyNode, event: first?.type === 'Literal' && typeof first['value'] === 'string' ? first['value'] : '' };
  }
  if (node.type === 'AssignmentExpression') {
    const left = node['left'] as AnyNode;
    if (left.type === 'MemberExpression') return { target: left['object'] as AnyNode, event: null };
    return node['operator'] === '+=' && left.type === 'Identifier' ? { target: left, event: null } : null;
  }
  return null;
}

/**
 * How a mutation matches the holder's path. A listener added (`bus.on('shipped', …)`) matches a
 * path through `_events`: by the emitter before it when the path names one, and by the event
 * after it (`_events.shipped`), which alone is enough when no variable reaches the emitter (an
 * ES module's exported binding is held in a cell with no name).
 */
function matchMutation(mutation: { target: AnyNode; event: string | null }, steps: readonly string[]): 'exact' | 'last' | null {
  if (mutation.event === null) return matches(mutation.target, steps);
  const events = steps.indexOf('_events');
  if (events < 0) return null;
  const event = steps[events + 1];
  if (event !== undefined && event !== mutation.event) return null;
  if (events === 0) return event === undefined ? null : 'last';
  return matches(mutation.target, steps.slice(0, events));
}

/**
 * The functions of a script whose code adds to the holder at `path`, exact matches first, each
 * once; [] when the source does not parse or nothing in it mutates the holder (the holder is
 * filled by a dependency's code, or through an alias).
 */
export function writersOf(lines: readonly string[], path: string): HolderWriter[] {
  const root = parseScript(lines.join('\n'));
  if (root === null) return [];
  const steps = pathChain(path);
  const found = new Map<AnyNode, HolderWriter>();
  const visit = (node: AnyNode, functions: { node: AnyNode; name: string | null; parent: AnyNode | null }[], parent: AnyNode | null) => {
    const inside = FUNCTIONS.has(node.type) ? [...functions, { node, name: functionName(node, parent), parent }] : functions;
    const mutation = mutated(node);
    const match = mutation === null ? null : matchMutation(mutation, steps);
    const fn = inside.at(-1);
    if (match !== null && fn !== undefined) {
      const known = found.get(fn.node);
      if (known) known.exact ||= match === 'exact';
      else {
        const loc = fn.node.loc!;
        const enclosing = inside.slice(0, -1).reverse().find((f) => f.name !== null)?.name ?? '';
        const kind = fn.node.type === 'ArrowFunctionExpression' ? 'arrow' : fn.parent?.type === 'MethodDefinition' || fn.parent?.['method'] === true ? 'method' : 'function';
        found.set(fn.node, { name: fn.name ?? '', line: loc.start.line, column: loc.start.column + 1, endLine: loc.end.line, kind, enclosing, exact: match === 'exact' });
      }
    }
    for (const value of Object.values(node)) {
      for (const child of Array.isArray(value) ? value : [value]) {
        if (child !== null && typeof child === 'object' && typeof (child as AnyNode).type === 'string') visit(child as AnyNode, inside, node);
      }
    }
  };
  visit(root, [], null);
  return [...found.values()].sort((a, b) => Number(b.exact) - Number(a.exact) || a.line - b.line);
}

/** Sums holders of several processes by what they keep and where (group, path, holder's group, script). */
export function sumHolders(tables: readonly (readonly KeptHolder[])[]): KeptHolder[] {
  const sum = new Map<string, KeptHolder>();
  for (const table of tables) {
    for (const h of table) {
      const key = [h.kept, h.path, h.holder, h.script].join('\0');
      const entry = sum.get(key) ?? { ...h, count: 0, size: 0 };
      entry.count += h.count;
      entry.size += h.size;
      sum.set(key, entry);
    }
  }
  return [...sum.values()].sort((a, b) => b.size - a.size || a.kept.localeCompare(b.kept));
}

/**
 * The holders as results.json keeps them (schema-profile.ts, keptHolderSchema): the script named
 * as a file of the tree (`root`, the side's repository root), as a profile names files, and the
 * functions that add to each, from the source: in the variable's own script first; else, where
 * the holder is a property another module's code fills (`store.items`, filled by a class's
 * `this.items.set` in its own file) or no variable's script is known (`_events.shipped`), in the
 * service's other own scripts (`ownScripts`). Only own files are read (under the root, outside
 * node_modules): the script names come from head's heap, which head's code can name as it likes.
 */
export function nameHolders(holders: readonly KeptHolder[], sources: ScriptSources, root: string, ownScripts: readonly string[]): RetainedHolder[] {
  const frame = (url: string, name = '', line = 1, column = 1) => identifyFrame({ functionName: name, scriptId: '', url, lineNumber: line - 1, columnNumber: column - 1 }, root);
  // Holders of one leak share their path and script: each script is parsed once per path.
  const memo = new Map<string, FunctionId[]>();
  const writersIn = (url: string, path: string): FunctionId[] => {
    const key = `${url}\0${path}`;
    let found = memo.get(key);
    if (found === undefined) {
      // Only the service's own files are read: a script's name is whatever head's process gave it.
      const lines = frame(url).category === 'own' ? sources(url) : null;
      found = (lines === null ? [] : writersOf(lines, path)).map((w) => ({ ...frame(url, w.name, w.line, w.column), endLine: w.endLine, enclosing: w.enclosing, kind: w.kind }));
      memo.set(key, found);
    }
    return found;
  };
  return holders.map(({ script, ...h }) => {
    const path = h.path;
    let writers = script === null || path === null ? [] : writersIn(script, path);
    if (writers.length === 0 && path !== null && path.includes('.')) writers = ownScripts.filter((url) => url !== script).flatMap((url) => writersIn(url, path));
    return { ...h, file: script === null ? null : frame(script).file, writers };
  });
}
