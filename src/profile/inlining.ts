/**
 * Gives inlined functions their own samples back. When V8's optimizing compiler inlines a
 * function into its caller, the CPU profiler often records the samples of the inlined code in
 * the caller's node: the inlining stack is kept only for some code (measured: Node 20 never,
 * Node 24 for part of it), and 0x's tick processing never. What V8 does keep is the source line
 * of every sample in the node's `positionTicks` — and for inlined code that line is the inlined
 * function's own line (of its own script, even when that script is another file).
 *
 * So a node's ticks on a line outside its function's source range belong to a function it
 * called: among the functions that appear below it in the profile (its callees, seen before
 * they were inlined or where they were not), the innermost one whose source range holds that
 * line; failing that, the innermost function of the same script holding it (a callee inlined
 * from its first optimization on is never sampled on its own). A line inside the function's
 * range but inside a nested function belongs to that nested function. A function holds a line
 * when the line's code starts inside it: `return orders.flatMap((order) => {` is the caller's
 * line, where it runs flatMap (on Node 20 flatMap's own work, sampled there, was most of such a
 * caller's time), not the callback's. Source ranges come from V8's best-effort coverage, taken by the preload at exit
 * (`Profiler.getBestEffortCoverage`: every invoked function's start and end offsets), turned
 * into lines against the script's source. Lines that match no candidate stay with the node.
 *
 * And callers give their callees' samples back. A sample taken while V8 runs a builtin without a
 * frame of its own (the inline-cache stubs of property loads and stores that have met many
 * shapes: megamorphic, typically after a deoptimization) loses the frame of the function that
 * called the builtin: V8 books it to that function's caller, on the line of the call. Measured
 * on Node 20 with a sum over objects of 16 shapes: with every call kept (--no-turbo-inlining),
 * 48% of the sum's samples sat on its caller's call line, against 0.4% when the objects have
 * one shape; when the sum is inlined into its caller, the samples of the whole optimized code
 * sit on the caller's caller (Node's EventEmitter.emit, on `handler.apply(this, args)`). So a
 * node's ticks on a line of its own code that calls a function sampled just below it (a child
 * node of the service's JavaScript: own code or a dependency, a file on disk) go to that child:
 * the children called by name on the line, or, when the line calls none of its children by
 * name (`handler.apply(…)`, `callback(…)`), every such child not called by name on another line
 * of the function; several share by their own sample counts. A line that calls a JavaScript
 * builtin other than the children (`JSON.parse(…)`, `.sort()`, `new Error(…)`) keeps its ticks:
 * builtins run without a frame of their own (JSON.parse and JSON.stringify on Node 20 to 24), so
 * V8 books their samples to the function whose code called them, on the line of the call, and
 * those samples cannot be told from a callee's there. Measured: a handler that cloned 4 kB with
 * `JSON.parse(JSON.stringify(…))` had 2,527 samples on that line and 1 in the flatMap callback
 * on the next; moving them to the callback named the wrong culprit. A line calling only
 * functions that are not the service's code keeps its ticks too, and so does a line of
 * minified code (over 400 characters). Lines are read from the script's source
 * (`sources`); without it (a Node core module of another Node version than perfgate's) the
 * ticks stay. Pure.
 */
import { createHash } from 'node:crypto';
import type { FunctionId } from '../results/types.js';
import type { CpuProfile, ProfileNode } from './cpuprofile.js';

/** A function's source range: 1-based lines and columns, end inclusive. */
export interface FunctionRange {
  name: string;
  startLine: number;
  startColumn: number;
  endLine: number;
  endColumn: number;
  /** A hash of the function's source text (sha1, 12 hex digits): the same text hashes alike wherever it moved. */
  hash?: string;
  /** What the text is: a function expression or declaration, an arrow function, or a method. */
  kind?: FunctionId['kind'];
}

/** The kind of function a source text is, from its first characters (V8's coverage starts arrows at their parameters). */
export function functionKind(text: string): NonNullable<FunctionId['kind']> {
  if (/^(async\s+)?function\b/.test(text)) return 'function';
  if (/^(async\s*)?(\([^)]*\)|[\p{L}\p{N}_$]+)\s*=>/u.test(text)) return 'arrow';
  return 'method';
}

/** sha1 of a function's source text, 12 hex digits. */
export function sourceHash(text: string): string {
  return createHash('sha1').update(text).digest('hex').slice(0, 12);
}

/** Script URL (as in the profile's call frames) → its invoked functions' ranges. */
export type FunctionRanges = Map<string, FunctionRange[]>;

/** One function from best-effort coverage: name, start and end offset in the script's source. */
export type CoveredFunction = [name: string, startOffset: number, endOffset: number];

/** Turns coverage offsets into line/column ranges of `source`; offsets beyond it are dropped. */
export function rangesFromOffsets(source: string, functions: readonly CoveredFunction[]): FunctionRange[] {
  const lineStarts = [0];
  for (let i = 0; i < source.length; i++) if (source.charCodeAt(i) === 10) lineStarts.push(i + 1);
  const position = (offset: number): [number, number] => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return [lo + 1, offset - lineStarts[lo]! + 1];
  };
  const ranges: FunctionRange[] = [];
  for (const [name, start, end] of functions) {
    if (!(start >= 0 && end > start && end <= source.length)) continue;
    const [startLine, startColumn] = position(start);
    const [endLine, endColumn] = position(end - 1);
    const text = source.slice(start, end);
    ranges.push({ name, startLine, startColumn, endLine, endColumn, hash: sourceHash(text), kind: functionKind(text) });
  }
  return ranges;
}

/** Script URL → its source text split into lines (index 0 is line 1), or null when it cannot be read. */
export type ScriptSources = (url: string) => readonly string[] | null;

/** Words before a "(" that are not calls. */
const NOT_CALLS = new Set(['if', 'for', 'while', 'switch', 'catch', 'function', 'return', 'typeof', 'void', 'delete', 'in', 'of', 'await', 'yield', 'with', 'do', 'else', 'case', 'throw', 'async', 'super']);

/** The names a line of source calls: `f(`, `a.b(`, `new C(` (strings and comments are not told apart). */
export function calledNames(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/([\p{L}\p{N}_$]+)\s*\(/gu)) {
    const name = match[1]!;
    if (!NOT_CALLS.has(name) && !/^\p{N}/u.test(name)) names.push(name);
  }
  return names;
}

/**
 * Objects whose methods are JavaScript builtins (and the global functions and constructors):
 * ECMAScript's, as the running Node has them.
 */
const BUILTIN_HOLDERS: readonly object[] = [
  globalThis,
  JSON,
  Math,
  Reflect,
  Atomics,
  Object,
  Array,
  Array.prototype,
  String,
  String.prototype,
  Number,
  Number.prototype,
  BigInt.prototype,
  Symbol,
  RegExp.prototype,
  Promise,
  Promise.prototype,
  Map.prototype,
  Set.prototype,
  WeakMap.prototype,
  WeakSet.prototype,
  Date,
  Date.prototype,
  ArrayBuffer,
  ArrayBuffer.prototype,
  DataView.prototype,
  Object.getPrototypeOf(Uint8Array),
  Object.getPrototypeOf(Uint8Array).prototype,
  Function.prototype,
  Error,
];

/**
 * Names of builtin functions a line may call (`JSON.parse(`, `.sort(`, `new Error(`). Not
 * `call` and `apply`: `handler.apply(…)` calls the service's code, the indirect call the file's
 * comment describes.
 */
const BUILTIN_CALLS: ReadonlySet<string> = (() => {
  const names = new Set<string>();
  for (const holder of BUILTIN_HOLDERS) {
    for (const name of Object.getOwnPropertyNames(holder)) {
      if (typeof Object.getOwnPropertyDescriptor(holder, name)?.value === 'function') names.add(name);
    }
  }
  for (const indirect of ['call', 'apply', 'constructor']) names.delete(indirect);
  return names;
})();

/** Longer lines are minified or generated code, where a line is no statement: their ticks stay. */
const MAX_CALL_LINE = 400;

/** A script of the service (own code or a dependency), as opposed to Node core and V8's natives. */
const isServiceScript = (url: string) => url.startsWith('file:') || url.startsWith('/');

/** Where some of a node's self samples go: to a node below it, or to a function with no node there. */
export interface InlineTarget {
  /** Fraction of the node's self samples (from the share of its position ticks on these lines). */
  fraction: number;
  /** A node under this one running that function: the samples go there, keeping the call path. */
  nodeId: number | null;
  /** Otherwise the function itself (script URL and range), to add as a child of this node. */
  url: string;
  range: FunctionRange;
}

/** The range of a target that is a node (only a target with no node needs a real one). */
const CALLEE_RANGE: FunctionRange = { name: '', startLine: 0, startColumn: 0, endLine: 0, endColumn: 0 };

/** Size of a range, for "innermost": lines first, then columns. */
function extent(range: FunctionRange): number {
  return (range.endLine - range.startLine) * 1e6 + (range.endColumn - range.startColumn);
}

function holdsPosition(range: FunctionRange, line: number, column: number): boolean {
  const afterStart = line > range.startLine || (line === range.startLine && column >= range.startColumn);
  const beforeEnd = line < range.endLine || (line === range.endLine && column <= range.endColumn);
  return afterStart && beforeEnd;
}

function contains(range: FunctionRange, line: number): boolean {
  return range.startLine <= line && line <= range.endLine;
}

/** What the source says of a function: see functionSource. */
export interface FunctionSource {
  /** Its range; null when best-effort coverage left it out (only a function around it has one). */
  range: FunctionRange | null;
  /** The innermost named function around it; "" at the top level. */
  enclosing: string;
  kind?: FunctionId['kind'];
  hash?: string;
}

/**
 * What the source says of a function V8 names by `line` and `column` (1-based, where its
 * parameters start): its range (the innermost holding that position), the innermost *named*
 * function around it ("" at the top level of the file: CommonJS' module wrapper and ES modules'
 * top level are nameless), its kind and its text's hash. Null when the script's ranges do not
 * hold the position.
 *
 * Best-effort coverage reports the functions V8 still keeps counts for, and leaves some out (a
 * flatMap or reduce callback that was inlined, measured on Node 20 to 24): the innermost range
 * holding the position then starts on an earlier line (a function starts on its parameters'
 * line) and is a function around it. Its kind is then read from `lineText`, the source line.
 */
export function functionSource(scriptRanges: readonly FunctionRange[], line: number, column: number, lineText?: string): FunctionSource | null {
  let holder: FunctionRange | null = null;
  for (const r of scriptRanges) if (holdsPosition(r, line, column) && (holder === null || extent(r) < extent(holder))) holder = r;
  if (holder === null) return null;
  const namedAround = (inner: FunctionRange, self: boolean) => {
    let enclosing: FunctionRange | null = self && inner.name !== '' ? inner : null;
    for (const r of scriptRanges) {
      if (r === inner || r.name === '' || extent(r) <= extent(inner) || !holdsPosition(r, inner.startLine, inner.startColumn)) continue;
      if (enclosing === null || extent(r) < extent(enclosing)) enclosing = r;
    }
    return enclosing?.name ?? '';
  };
  if (holder.startLine === line) return { range: holder, enclosing: namedAround(holder, false), kind: holder.kind, hash: holder.hash };
  const kind = lineText === undefined ? undefined : kindAt(lineText, column);
  return { range: null, enclosing: namedAround(holder, true), ...(kind && { kind }) };
}

/** The kind of the function whose parameters start at `column` (1-based) of a source line. */
function kindAt(lineText: string, column: number): NonNullable<FunctionId['kind']> {
  if (/\bfunction\s*\*?\s*[\p{L}\p{N}_$]*\s*$/u.test(lineText.slice(0, column - 1))) return 'function';
  return functionKind(lineText.slice(column - 1));
}

/**
 * For each node whose position ticks show inlined code, where those samples belong. Nodes not
 * in the result keep all their self samples.
 */
export function inlineTargets(profile: CpuProfile, ranges: FunctionRanges, sources: ScriptSources = () => null): Map<number, InlineTarget[]> {
  const resolver = new InlineResolver(profile, ranges, sources);
  const result = new Map<number, InlineTarget[]>();
  for (const node of profile.nodes) {
    const ticks = node.positionTicks;
    if (!ticks || ticks.length === 0) continue;
    const targets = resolver.targetsOf(node, ticks);
    if (targets.length > 0) result.set(node.id, targets);
  }
  return result;
}

/** A line's ticks moved to a function: its node when one was sampled below, else its range. */
interface LineTarget {
  url: string;
  range: FunctionRange;
  node: ProfileNode | null;
}

/** The profile's nodes and the scripts' functions and lines, looked up with memos shared by every node. */
class InlineResolver {
  private readonly byId: Map<number, ProfileNode>;
  private readonly rangeMemo = new Map<string, FunctionRange | null>();
  private readonly namesMemo = new Map<string, string[]>();
  private readonly nodesOfFunction = new Map<string, ProfileNode[]>();

  constructor(
    profile: CpuProfile,
    private readonly ranges: FunctionRanges,
    private readonly sources: ScriptSources,
  ) {
    this.byId = new Map(profile.nodes.map((n) => [n.id, n]));
    for (const node of profile.nodes) {
      const key = functionOf(node);
      const list = this.nodesOfFunction.get(key);
      if (list) list.push(node);
      else this.nodesOfFunction.set(key, [node]);
    }
  }

  /**
   * A node's function: the innermost range holding its start position. V8's profiler names a
   * function by where its parameters start, coverage by where its `function` token starts.
   */
  rangeOf(n: ProfileNode): FunctionRange | null {
    const line = n.callFrame.lineNumber + 1;
    const column = n.callFrame.columnNumber + 1;
    const key = `${n.callFrame.url}:${line}:${column}`;
    let found = this.rangeMemo.get(key);
    if (found === undefined) {
      found = null;
      for (const r of this.ranges.get(n.callFrame.url) ?? []) {
        if (holdsPosition(r, line, column) && (found === null || extent(r) < extent(found))) found = r;
      }
      this.rangeMemo.set(key, found);
    }
    return found;
  }

  descendants(node: ProfileNode): ProfileNode[] {
    const out: ProfileNode[] = [];
    const stack = [...(node.children ?? [])];
    while (stack.length) {
      const child = this.byId.get(stack.pop()!);
      if (!child) continue;
      out.push(child);
      stack.push(...(child.children ?? []));
    }
    return out;
  }

  /** Callees: everything below any node of this function, the nodes under this one first. */
  callees(node: ProfileNode): { under: Set<number>; callees: ProfileNode[] } {
    const under = this.descendants(node);
    const underIds = new Set(under.map((d) => d.id));
    const elsewhere = (this.nodesOfFunction.get(functionOf(node)) ?? []).filter((n) => n !== node).flatMap((n) => this.descendants(n));
    return { under: underIds, callees: [...under, ...elsewhere.filter((d) => !underIds.has(d.id))] };
  }

  namesOn(url: string, lines: readonly string[], line: number): string[] {
    const key = `${url}\u0000${line}`;
    let names = this.namesMemo.get(key);
    if (names === undefined) {
      const text = lines[line - 1] ?? '';
      names = text.length > MAX_CALL_LINE ? [] : calledNames(text);
      this.namesMemo.set(key, names);
    }
    return names;
  }

  /**
   * The children of `node` a line of its code calls (see the file's comment), each with its share
   * of the line's ticks; empty when the line calls none of them.
   */
  calledOn(node: ProfileNode, line: number, range: FunctionRange | null): { node: ProfileNode; share: number }[] {
    const url = node.callFrame.url;
    const lines = this.sources(url);
    if (lines === null || line < 1 || line > lines.length) return [];
    const names = this.namesOn(url, lines, line);
    if (names.length === 0) return [];
    const children = (node.children ?? []).map((id) => this.byId.get(id)).filter((c): c is ProfileNode => c !== undefined);
    // A builtin called on the line (JSON.parse, Array.prototype.sort, new Error) runs without a
    // frame of its own, so its samples land here, on its caller's line: they are this function's
    // work, not a callee's, even when the line also calls one of the children.
    const childNames = new Set(children.map((c) => c.callFrame.functionName));
    if (names.some((n) => !childNames.has(n) && BUILTIN_CALLS.has(n))) return [];
    const byName = children.filter((c) => c.callFrame.functionName !== '' && names.includes(c.callFrame.functionName));
    // No child called by name here: an indirect call (`handler.apply(…)`, `callback(…)`), of a
    // child that is not called by name on another line of this function either.
    const namedElsewhere = (c: ProfileNode) => {
      const name = c.callFrame.functionName;
      if (name === '' || range === null) return false;
      for (let l = range.startLine; l <= range.endLine; l++) if (l !== line && this.namesOn(url, lines, l).includes(name)) return true;
      return false;
    };
    const called = (byName.length > 0 ? byName : children.filter((c) => !namedElsewhere(c))).filter((c) => isServiceScript(c.callFrame.url));
    if (called.length === 0) return [];
    const weight = called.reduce((sum, c) => sum + (c.hitCount ?? 0), 0);
    return called.map((c) => ({ node: c, share: weight > 0 ? (c.hitCount ?? 0) / weight : 1 / called.length }));
  }

  /**
   * Whether a function holds a line's code: the line is one of its lines, and on its first line
   * the code starts inside it. `return orders.flatMap((order) => {` runs `orders.flatMap` there,
   * the caller's code (without the source, the line counts).
   */
  holdsLine(url: string, range: FunctionRange, line: number): boolean {
    if (!contains(range, line)) return false;
    if (line !== range.startLine) return true;
    const text = this.sources(url)?.[line - 1];
    return text === undefined || text.length - text.trimStart().length + 1 >= range.startColumn;
  }

  /** Where a node's position ticks belong. */
  targetsOf(node: ProfileNode, ticks: readonly { line: number; ticks: number }[]): InlineTarget[] {
    const totalTicks = ticks.reduce((sum, t) => sum + t.ticks, 0);
    const own = this.rangeOf(node);
    if (own === null) return this.callLineTargets(node, ticks, totalTicks);
    // Found only when a line needs them: most ticks are the function's own lines.
    let found: { under: Set<number>; callees: ProfileNode[] } | null = null;
    const callees = () => {
      found ??= this.callees(node);
      return found;
    };
    const byTarget = new Map<string, InlineTarget>();
    const add = (key: string, fraction: number, nodeId: number | null, url: string, range: FunctionRange) => {
      const entry = byTarget.get(key) ?? { fraction: 0, nodeId, url, range };
      entry.fraction += fraction;
      byTarget.set(key, entry);
    };
    for (const { line, ticks: count } of ticks) {
      const nested = contains(own, line) ? this.nestedRange(node, own, line) : undefined;
      if (contains(own, line) && !nested) {
        // The function's own line: when it calls a function sampled below, the ticks are that callee's.
        for (const { node: child, share } of this.calledOn(node, line, own)) {
          add(`node:${child.id}`, (share * count) / totalTicks, child.id, child.callFrame.url, this.rangeOf(child) ?? CALLEE_RANGE);
        }
        continue;
      }
      const target = nested ? this.nestedTarget(node, nested, callees().callees) : this.calleeTarget(node, own, line, callees().callees);
      if (target === null) continue;
      const nodeId = target.node !== null && callees().under.has(target.node.id) ? target.node.id : null;
      const key = nodeId !== null ? `node:${nodeId}` : `${target.url}:${target.range.startLine}:${target.range.startColumn}`;
      add(key, count / totalTicks, nodeId, target.url, target.range);
    }
    return [...byTarget.values()];
  }

  /** No source range (Node core, or a script coverage did not cover): only call lines move. */
  private callLineTargets(node: ProfileNode, ticks: readonly { line: number; ticks: number }[], totalTicks: number): InlineTarget[] {
    const byChild = new Map<number, InlineTarget>();
    for (const { line, ticks: count } of ticks) {
      for (const { node: child, share } of this.calledOn(node, line, null)) {
        const entry = byChild.get(child.id) ?? { fraction: 0, nodeId: child.id, url: child.callFrame.url, range: CALLEE_RANGE };
        entry.fraction += (share * count) / totalTicks;
        byChild.set(child.id, entry);
      }
    }
    return [...byChild.values()];
  }

  /** A nested function of the same script that holds the line, inlined into this one (innermost first). */
  private nestedRange(node: ProfileNode, own: FunctionRange, line: number): FunctionRange | undefined {
    return (this.ranges.get(node.callFrame.url) ?? [])
      .filter((r) => r !== own && this.holdsLine(node.callFrame.url, r, line) && holdsPosition(own, r.startLine, r.startColumn) && extent(r) < extent(own))
      .sort((a, b) => extent(a) - extent(b))[0];
  }

  /** The nested function's ticks go to its node when it was sampled below this one. */
  private nestedTarget(node: ProfileNode, nested: FunctionRange, callees: ProfileNode[]): LineTarget {
    const holder = callees.find((d) => d.callFrame.url === node.callFrame.url && this.rangeOf(d) === nested) ?? null;
    return { url: node.callFrame.url, range: nested, node: holder };
  }

  /** A callee from any script whose range holds the line; the innermost, then the busiest. */
  private calleeTarget(node: ProfileNode, own: FunctionRange, line: number, callees: ProfileNode[]): LineTarget | null {
    let best: { node: ProfileNode; range: FunctionRange } | null = null;
    for (const callee of callees) {
      const range = this.rangeOf(callee);
      if (range === null || !this.holdsLine(callee.callFrame.url, range, line)) continue;
      if (best === null || extent(range) < extent(best.range) || (extent(range) === extent(best.range) && (callee.hitCount ?? 0) > (best.node.hitCount ?? 0))) {
        best = { node: callee, range };
      }
    }
    if (best) return { url: best.node.callFrame.url, range: best.range, node: best.node };
    // A callee never sampled on its own (inlined from its first optimization on): the innermost
    // function of the same script that holds the line and is not around this one.
    const sibling = (this.ranges.get(node.callFrame.url) ?? [])
      .filter((r) => this.holdsLine(node.callFrame.url, r, line) && !holdsPosition(r, own.startLine, own.startColumn))
      .sort((a, b) => extent(a) - extent(b))[0];
    return sibling ? { url: node.callFrame.url, range: sibling, node: null } : null;
  }
}

/** A function's identity in the profile: its script and where it starts. */
function functionOf(n: ProfileNode): string {
  return `${n.callFrame.url}:${n.callFrame.lineNumber}:${n.callFrame.columnNumber}`;
}
