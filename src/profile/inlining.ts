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
 * range but inside a nested function belongs to that nested function. Source ranges come from V8's best-effort coverage, taken by the preload at exit
 * (`Profiler.getBestEffortCoverage`: every invoked function's start and end offsets), turned
 * into lines against the script's source. Lines that match no candidate stay with the node.
 * Pure.
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

/**
 * What the source says of a function V8 names by `line` and `column` (1-based, where its
 * parameters start): its range (the innermost holding that position), the innermost *named*
 * function around it ("" at the top level of the file: CommonJS' module wrapper and ES modules'
 * top level are nameless), its kind and its text's hash. Null when the script's ranges do not
 * hold the position.
 */
export function functionSource(
  scriptRanges: readonly FunctionRange[],
  line: number,
  column: number,
): { range: FunctionRange; enclosing: string } | null {
  let own: FunctionRange | null = null;
  for (const r of scriptRanges) if (holdsPosition(r, line, column) && (own === null || extent(r) < extent(own))) own = r;
  if (own === null) return null;
  let enclosing: FunctionRange | null = null;
  for (const r of scriptRanges) {
    if (r === own || r.name === '' || extent(r) <= extent(own) || !holdsPosition(r, own.startLine, own.startColumn)) continue;
    if (enclosing === null || extent(r) < extent(enclosing)) enclosing = r;
  }
  return { range: own, enclosing: enclosing?.name ?? '' };
}

/**
 * For each node whose position ticks show inlined code, where those samples belong. Nodes not
 * in the result keep all their self samples.
 */
export function inlineTargets(profile: CpuProfile, ranges: FunctionRanges): Map<number, InlineTarget[]> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  // A node's function is the innermost range holding its start position: V8's profiler names a
  // function by where its parameters start, coverage by where its `function` token starts.
  const rangeMemo = new Map<string, FunctionRange | null>();
  const rangeOf = (n: ProfileNode): FunctionRange | null => {
    const line = n.callFrame.lineNumber + 1;
    const column = n.callFrame.columnNumber + 1;
    const key = `${n.callFrame.url}:${line}:${column}`;
    let found = rangeMemo.get(key);
    if (found === undefined) {
      found = null;
      for (const r of ranges.get(n.callFrame.url) ?? []) {
        if (holdsPosition(r, line, column) && (found === null || extent(r) < extent(found))) found = r;
      }
      rangeMemo.set(key, found);
    }
    return found;
  };
  const functionOf = (n: ProfileNode) => `${n.callFrame.url}:${n.callFrame.lineNumber}:${n.callFrame.columnNumber}`;
  const nodesOfFunction = new Map<string, ProfileNode[]>();
  for (const node of profile.nodes) {
    const key = functionOf(node);
    const list = nodesOfFunction.get(key);
    if (list) list.push(node);
    else nodesOfFunction.set(key, [node]);
  }
  const descendants = (node: ProfileNode): ProfileNode[] => {
    const out: ProfileNode[] = [];
    const stack = [...(node.children ?? [])];
    while (stack.length) {
      const child = byId.get(stack.pop()!);
      if (!child) continue;
      out.push(child);
      stack.push(...(child.children ?? []));
    }
    return out;
  };

  const result = new Map<number, InlineTarget[]>();
  for (const node of profile.nodes) {
    const ticks = node.positionTicks;
    if (!ticks || ticks.length === 0) continue;
    const own = rangeOf(node);
    if (own === null) continue;
    const scriptRanges = ranges.get(node.callFrame.url) ?? [];
    // Callees: everything below any node of this function, the nodes under this one first
    // (found only when a line needs them: most ticks are the function's own lines).
    let under: ProfileNode[] | null = null;
    let underIds = new Set<number>();
    let callees: ProfileNode[] = [];
    const findCallees = () => {
      if (under !== null) return;
      under = descendants(node);
      underIds = new Set(under.map((d) => d.id));
      const elsewhere = (nodesOfFunction.get(functionOf(node)) ?? []).filter((n) => n !== node).flatMap(descendants);
      callees = [...under, ...elsewhere.filter((d) => !underIds.has(d.id))];
    };
    const totalTicks = ticks.reduce((sum, t) => sum + t.ticks, 0);
    const byTarget = new Map<string, InlineTarget>();
    for (const { line, ticks: count } of ticks) {
      let target: { url: string; range: FunctionRange; node: ProfileNode | null } | null = null;
      if (contains(own, line)) {
        // A nested function of the same script, inlined into this one (innermost first).
        const nested = scriptRanges
          .filter((r) => r !== own && contains(r, line) && holdsPosition(own, r.startLine, r.startColumn) && extent(r) < extent(own))
          .sort((a, b) => extent(a) - extent(b))[0];
        if (nested) {
          findCallees();
          const holder = callees.find((d) => d.callFrame.url === node.callFrame.url && rangeOf(d) === nested) ?? null;
          target = { url: node.callFrame.url, range: nested, node: holder };
        }
      } else {
        // A callee from any script whose range holds the line; the innermost, then the busiest.
        findCallees();
        let best: { node: ProfileNode; range: FunctionRange } | null = null;
        for (const callee of callees) {
          const range = rangeOf(callee);
          if (range === null || !contains(range, line)) continue;
          if (
            best === null ||
            extent(range) < extent(best.range) ||
            (extent(range) === extent(best.range) && (callee.hitCount ?? 0) > (best.node.hitCount ?? 0))
          ) {
            best = { node: callee, range };
          }
        }
        if (best) {
          target = { url: best.node.callFrame.url, range: best.range, node: best.node };
        } else {
          // A callee never sampled on its own (inlined from its first optimization on): the
          // innermost function of the same script that holds the line and is not around this one.
          const sibling = scriptRanges
            .filter((r) => contains(r, line) && !holdsPosition(r, own.startLine, own.startColumn))
            .sort((a, b) => extent(a) - extent(b))[0];
          if (sibling) target = { url: node.callFrame.url, range: sibling, node: null };
        }
      }
      if (target === null) continue;
      const nodeId = target.node !== null && underIds.has(target.node.id) ? target.node.id : null;
      const key = nodeId !== null ? `node:${nodeId}` : `${target.url}:${target.range.startLine}:${target.range.startColumn}`;
      const entry = byTarget.get(key) ?? { fraction: 0, nodeId, url: target.url, range: target.range };
      entry.fraction += count / totalTicks;
      byTarget.set(key, entry);
    }
    if (byTarget.size > 0) result.set(node.id, [...byTarget.values()]);
  }
  return result;
}
