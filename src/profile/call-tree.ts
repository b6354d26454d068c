/**
 * One side's call tree: the CPU profiles of all its processes (a cluster's primary and workers,
 * child processes) merged by call path, counting only the samples of the profiled load window,
 * with inlined functions given their samples back, and callees the samples V8 booked to their
 * caller's call line (inlining.ts). Everything else — the function
 * table, the flamegraphs, the differential flamegraph — is read from this tree. Pure.
 */
import type { FunctionId } from '../results/types.js';
import { type CallFrame, type CpuProfile, countSamples, type ProfileNode, type SampleWindow } from './cpuprofile.js';
import { functionKey, IDLE_NAME, identifyFrame, ROOT_NAME } from './frames.js';
import { enclosingFunctions } from './enclosing.js';
import { type FunctionRange, type FunctionRanges, functionSource, inlineTargets, type ScriptSources } from './inlining.js';

export interface CallNode {
  fn: FunctionId;
  /** functionKey(fn): children of a node have distinct keys. */
  key: string;
  /** Samples with this call path on top of the stack. */
  self: number;
  /** self + the children's totals. */
  total: number;
  children: CallNode[];
  /** Deoptimization reasons V8 recorded on this path's nodes. */
  deoptReasons: string[];
}

export interface CallTree {
  root: CallNode;
  /** Non-idle samples in the window: root.total. */
  samples: number;
  idleSamples: number;
  /** Samples moved from a caller's node to a function inlined into it. */
  inlinedSamples: number;
  /** Non-idle samples in the window per input profile, in input order. */
  perProfile: number[];
}

export interface CallTreeOptions {
  /** Repository root of the side's tree (real path), to name files relative to it. */
  root: string;
  window?: SampleWindow;
  /** Function source ranges (from coverage), to give inlined functions their samples. */
  ranges?: FunctionRanges;
  /** Scripts' source lines, to give callees the samples V8 booked to their caller's call line (inlining.ts). */
  sources?: ScriptSources;
}

/** Node ids from the profile's root (its first node) down, every parent before its children. */
function preorder(profile: CpuProfile): number[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const order: number[] = [];
  const stack = profile.nodes.length > 0 ? [profile.nodes[0]!.id] : [];
  while (stack.length) {
    const id = stack.pop()!;
    order.push(id);
    for (const child of byId.get(id)?.children ?? []) stack.push(child);
  }
  return order;
}

interface Builder {
  node: CallNode;
  index: Map<string, Builder>;
}

function newBuilder(fn: FunctionId): Builder {
  return { node: { fn, key: functionKey(fn), self: 0, total: 0, children: [], deoptReasons: [] }, index: new Map() };
}

function childOf(parent: Builder, fn: FunctionId): Builder {
  const key = functionKey(fn);
  let child = parent.index.get(key);
  if (!child) {
    child = newBuilder(fn);
    parent.index.set(key, child);
    parent.node.children.push(child.node);
  }
  return child;
}

/**
 * Splits `count` whole samples by fractions (largest remainder), so moved samples stay whole
 * and none are lost to rounding.
 */
function apportion(count: number, fractions: number[]): number[] {
  const exact = fractions.map((f) => f * count);
  const whole = exact.map(Math.floor);
  let left = Math.round(fractions.reduce((a, b) => a + b, 0) * count) - whole.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => [e - whole[i]!, i] as const).sort((a, b) => b[0] - a[0]);
  for (const [, i] of order) {
    if (left <= 0) break;
    whole[i]!++;
    left--;
  }
  return whole;
}

const anonymousFrame = (url: string, range: FunctionRange) => ({
  functionName: range.name,
  scriptId: '',
  url,
  lineNumber: range.startLine - 1,
  columnNumber: range.startColumn - 1,
});

/**
 * identifyFrame, plus for own code what its source says (functionSource): the enclosing named
 * function, the kind, the text's hash. Memoized per script position. The allocation profile
 * names its frames with it too (allocations.ts), so both tables name a function alike.
 */
export function frameIdentifier(options: CallTreeOptions): (frame: CallFrame) => FunctionId {
  const memo = new Map<string, FunctionId>();
  const parsed = new Map<string, ReturnType<typeof enclosingFunctions>>();
  // Coverage leaves out the functions V8 stopped counting (one run at start-up): the source has them.
  const enclosingInSource = (url: string, line: number, column: number): string | null => {
    if (!parsed.has(url)) {
      const lines = options.sources?.(url);
      parsed.set(url, lines ? enclosingFunctions(lines) : null);
    }
    return parsed.get(url)?.(line, column) ?? null;
  };
  return (frame) => {
    const key = `${frame.functionName}\u0000${frame.url}\u0000${frame.lineNumber}\u0000${frame.columnNumber}`;
    let fn = memo.get(key);
    if (fn === undefined) {
      fn = identifyFrame(frame, options.root);
      const scriptRanges = fn.category === 'own' ? options.ranges?.get(frame.url) : undefined;
      const lineText = scriptRanges ? options.sources?.(frame.url)?.[frame.lineNumber] : undefined;
      const source = scriptRanges ? functionSource(scriptRanges, frame.lineNumber + 1, frame.columnNumber + 1, lineText) : null;
      if (source !== null) {
        fn.enclosing = source.enclosing === '' && frame.functionName === '' ? (enclosingInSource(frame.url, frame.lineNumber + 1, frame.columnNumber + 1) ?? '') : source.enclosing;
        if (source.kind) fn.kind = source.kind;
        if (source.hash) fn.hash = source.hash;
        // Its span, to tell whether the pull request changed it (changes.ts).
        if (source.range) fn.endLine = source.range.endLine;
      }
      memo.set(key, fn);
    }
    return fn;
  };
}

/** Merges profiles into one call tree over the window. */
export function buildCallTree(profiles: readonly CpuProfile[], options: CallTreeOptions): CallTree {
  const identify = frameIdentifier(options);
  const root = newBuilder(identifyFrame({ functionName: ROOT_NAME, scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, options.root));
  let idleSamples = 0;
  let inlinedSamples = 0;
  const perProfile: number[] = [];
  for (const profile of profiles) {
    const counts = countSamples(profile, options.window);
    const self = new Map(counts);
    // Samples of inlined code: moved to a node below (keeping the call path) or to a new child.
    const extraChildren = new Map<number, { url: string; range: FunctionRange; count: number }[]>();
    if (options.ranges) {
      // Parents first, each with the samples it holds by then: what a caller gives a callee
      // (samples V8 booked to the call line) follows that callee's own inlined lines.
      const targetsOf = inlineTargets(profile, options.ranges, options.sources);
      for (const id of preorder(profile)) {
        const targets = targetsOf.get(id);
        const count = self.get(id) ?? 0;
        if (!targets || count === 0) continue;
        const shares = apportion(count, targets.map((t) => t.fraction));
        targets.forEach((target, i) => {
          const share = shares[i]!;
          if (share === 0) return;
          self.set(id, (self.get(id) ?? 0) - share);
          inlinedSamples += share;
          if (target.nodeId !== null) self.set(target.nodeId, (self.get(target.nodeId) ?? 0) + share);
          else extraChildren.set(id, [...(extraChildren.get(id) ?? []), { url: target.url, range: target.range, count: share }]);
        });
      }
    }
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    let profileSamples = 0;
    // Depth-first from the profile's root (its first node), which maps onto the merged root.
    const stack: [ProfileNode, Builder][] = [[profile.nodes[0]!, root]];
    while (stack.length) {
      const [node, builder] = stack.pop()!;
      const hits = self.get(node.id) ?? 0;
      if (node.callFrame.functionName === IDLE_NAME && node.callFrame.url === '') {
        idleSamples += hits;
        continue;
      }
      builder.node.self += hits;
      profileSamples += hits;
      if (node.deoptReason && !builder.node.deoptReasons.includes(node.deoptReason)) builder.node.deoptReasons.push(node.deoptReason);
      for (const extra of extraChildren.get(node.id) ?? []) {
        childOf(builder, identify(anonymousFrame(extra.url, extra.range))).node.self += extra.count;
        profileSamples += extra.count;
      }
      for (const childId of node.children ?? []) {
        const child = byId.get(childId);
        if (child) stack.push([child, childOf(builder, identify(child.callFrame))]);
      }
    }
    perProfile.push(profileSamples);
  }
  const finish = (node: CallNode): number => {
    node.total = node.self + node.children.reduce((sum, child) => sum + finish(child), 0);
    node.children = node.children.filter((c) => c.total > 0).sort((a, b) => b.total - a.total || (a.key < b.key ? -1 : 1));
    return node.total;
  };
  // Recursion is safe: V8 records at most 255 frames per sample (TickSample::kMaxFramesCount).
  finish(root.node);
  return { root: root.node, samples: root.node.total, idleSamples, inlinedSamples, perProfile };
}
