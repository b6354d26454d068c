/**
 * Allocations per function, from V8's sampling heap profiler run with the objects the collector
 * freed kept in (HeapProfiler.startSampling with includeObjectsCollectedByMajorGC/MinorGC): what
 * was allocated, whatever became of it, not what is still live (Node's --heap-prof, the view a
 * leak needs). Functions are named and keyed exactly as in the CPU profile (frames.ts), so a
 * function's allocations, its CPU time and "changed by this PR" all refer to the same row. Pure.
 */
import { pathToFileURL } from 'node:url';
import type { AllocationProfile, AllocationStats, FunctionId } from '../results/types.js';
import { type CallNode, type CallTree, type CallTreeOptions, frameIdentifier } from './call-tree.js';
import type { CallFrame } from './cpuprofile.js';
import { matchFunctions } from './diff.js';
import { functionKey } from './frames.js';

/**
 * The heap profiler names a CommonJS script by its path where the CPU profiler and V8's coverage
 * name it by its file: URL: one spelling, so the function ranges and sources are found for both.
 */
function scriptUrl(url: string): string {
  return url.startsWith('/') ? pathToFileURL(url).href : url;
}

/** A node of V8's SamplingHeapProfile: selfSize is V8's estimate of the bytes allocated on this call path. */
export interface HeapProfileNode {
  callFrame: CallFrame;
  selfSize: number;
  id: number;
  children: HeapProfileNode[];
}

export interface SamplingHeapProfile {
  head: HeapProfileNode;
}

/** A .heapprofile's text as a profile; a clear error naming the file when it is not one (a process killed while writing it). */
export function parseHeapProfile(text: string, file: string): SamplingHeapProfile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${file} is not a complete heap profile (not JSON; was the process killed while writing it?)`);
  }
  const head = (value as { head?: Partial<HeapProfileNode> } | null)?.head;
  if (!head || typeof head !== 'object' || !head.callFrame || !Array.isArray(head.children)) {
    throw new Error(`${file} is not a sampling heap profile (it has no call tree under "head")`);
  }
  return value as SamplingHeapProfile;
}

/** The scripts a profile's frames are in. */
export function heapUrls(profile: SamplingHeapProfile): string[] {
  const urls = new Set<string>();
  const stack = [profile.head];
  while (stack.length > 0) {
    const node = stack.pop()!;
    urls.add(scriptUrl(node.callFrame.url));
    stack.push(...node.children);
  }
  return [...urls];
}

/** The bytes a profile's call tree holds, all paths. */
export function profileBytes(profile: SamplingHeapProfile): number {
  let bytes = 0;
  const stack = [profile.head];
  while (stack.length > 0) {
    const node = stack.pop()!;
    bytes += node.selfSize;
    stack.push(...node.children);
  }
  return bytes;
}

/**
 * Every function's allocations over all `profiles` (one per process): self bytes by the
 * allocating frame, and for own functions also what the dependency, Node core and native frames
 * below them allocated, up to the next own function (as aggregate.ts attributes CPU time).
 * `options`: the side's repository root (real path), so base and head name files alike, and the
 * function ranges and sources the CPU call tree reads, so a function is named as it is there.
 * `tree`: the side's CPU call tree over the same window, for the own code below the frames that
 * allocate the most (ownBelow).
 */
export function summarizeAllocations(
  profiles: readonly SamplingHeapProfile[],
  options: Pick<CallTreeOptions, 'root' | 'ranges' | 'sources'>,
  tree?: CallTree,
): AllocationStats[] {
  const identify = frameIdentifier(options);
  const byKey = new Map<string, AllocationStats>();
  const statsOf = (fn: FunctionId, key: string) => {
    let stats = byKey.get(key);
    if (!stats) {
      stats = { ...fn, self: 0, ...(fn.category === 'own' && { attributed: 0 }) };
      byKey.set(key, stats);
    }
    return stats;
  };
  for (const profile of profiles) {
    // [node, key of the nearest own function at or above it]
    const stack: [HeapProfileNode, string | null][] = profile.head.children.map((child) => [child, null]);
    while (stack.length > 0) {
      const [node, ownAbove] = stack.pop()!;
      const fn = identify({ ...node.callFrame, url: scriptUrl(node.callFrame.url) });
      const key = functionKey(fn);
      const owner = fn.category === 'own' ? key : ownAbove;
      if (node.selfSize > 0) {
        statsOf(fn, key).self += node.selfSize;
        if (owner !== null) {
          const own = byKey.get(owner)!;
          own.attributed = (own.attributed ?? 0) + node.selfSize;
        }
      }
      // An own function that allocates only through what it calls still needs its row.
      if (fn.category === 'own') statsOf(fn, key);
      for (const child of node.children) stack.push([child, owner]);
    }
  }
  const found = [...byKey.values()].filter((f) => f.self > 0 || (f.attributed ?? 0) > 0).sort((a, b) => b.self - a.self || a.name.localeCompare(b.name));
  if (tree !== undefined) {
    const total = found.reduce((sum, f) => sum + f.self, 0);
    const wanted = new Set(found.filter((f) => f.self >= OWN_BELOW_MIN_SHARE * total).map((f) => functionKey(f)));
    const below = ownCodeBelow(tree, wanted);
    for (const f of found) {
      const own = below.get(functionKey(f));
      if (own !== undefined && own.length > 0) f.ownBelow = own;
    }
  }
  return found;
}

/** A frame that allocates this share of a side's bytes or more gets the own code below it recorded (ownBelow). */
const OWN_BELOW_MIN_SHARE = 0.01;
/** Own functions kept per such frame: the few that run most below it. */
const OWN_BELOW_LIMIT = 5;

/**
 * For each function key in `keys`, the own functions the CPU call tree shows below it (at any
 * depth), by the self samples they have there, the most first. One walk: each own node's samples
 * go to every distinct wanted function on its path.
 */
function ownCodeBelow(tree: CallTree, keys: ReadonlySet<string>): Map<string, (FunctionId & { samples: number })[]> {
  const byKey = new Map<string, Map<string, FunctionId & { samples: number }>>();
  if (keys.size === 0) return new Map();
  const stack: [CallNode, readonly string[]][] = [[tree.root, []]];
  while (stack.length > 0) {
    const [node, above] = stack.pop()!;
    if (node.fn.category === 'own' && node.self > 0) {
      for (const key of above) {
        const own = byKey.get(key) ?? new Map<string, FunctionId & { samples: number }>();
        byKey.set(key, own);
        const entry = own.get(node.key);
        if (entry) entry.samples += node.self;
        else own.set(node.key, { ...node.fn, samples: node.self });
      }
    }
    const next = keys.has(node.key) && !above.includes(node.key) ? [...above, node.key] : above;
    for (const child of node.children) stack.push([child, next]);
  }
  return new Map([...byKey].map(([key, own]) => [key, [...own.values()].sort((a, b) => b.samples - a.samples).slice(0, OWN_BELOW_LIMIT)]));
}

/**
 * Bounds both sides' allocation tables for results.json: per side the `limit` functions that
 * allocated most by self bytes, and the `limit` own ones by attributed bytes, plus each kept
 * function's counterpart on the other side, so the bounded tables diff as the full ones do.
 */
export function boundAllocations(
  base: readonly AllocationStats[],
  head: readonly AllocationStats[],
  limit: number,
): { base: AllocationStats[]; head: AllocationStats[] } {
  const keep = new Set<AllocationStats>();
  for (const side of [base, head]) {
    for (const f of [...side].sort((a, b) => b.self - a.self).slice(0, limit)) keep.add(f);
    const own = side.filter((f) => f.category === 'own');
    for (const f of own.sort((a, b) => (b.attributed ?? 0) - (a.attributed ?? 0)).slice(0, limit)) keep.add(f);
  }
  for (const [b, h] of matchFunctions(base, head)) {
    if ((b && keep.has(b)) || (h && keep.has(h))) {
      if (b) keep.add(b);
      if (h) keep.add(h);
    }
  }
  return { base: base.filter((f) => keep.has(f)), head: head.filter((f) => keep.has(f)) };
}

/** One function's allocations per request on both sides, bytes. */
export interface AllocationChange extends FunctionId {
  /** Self bytes per request; null when the function allocated nothing on that side. */
  base: number | null;
  head: number | null;
  /** Own code: attributed bytes per request (self plus the non-own frames below it); null otherwise or on a side without it. */
  attributedBase: number | null;
  attributedHead: number | null;
  /** Bytes per request head allocates more (own code: attributed; other code: self). */
  added: number;
}

/** Bytes per request, or null for a side that served no response while sampled. */
function perRequest(bytes: number | undefined, responses: number): number | null {
  return bytes === undefined || responses <= 0 ? null : bytes / responses;
}

/**
 * Base against head, function by function (matched as the CPU profile's functions are,
 * diff.ts), in bytes per request, the most added first. Empty when either side served no
 * response while sampled.
 */
export function diffAllocations(base: AllocationProfile, head: AllocationProfile): AllocationChange[] {
  if (base.responses <= 0 || head.responses <= 0) return [];
  return matchFunctions(base.functions, head.functions)
    .map(([b, h]): AllocationChange => {
      const id = (h ?? b)!;
      const { self: _self, attributed: _attributed, ...fn } = id;
      const sideBytes = (f: AllocationStats | null, responses: number) => perRequest(f?.self, responses);
      const attributedBytes = (f: AllocationStats | null, responses: number) => perRequest(f?.attributed, responses);
      const change = {
        base: sideBytes(b, base.responses),
        head: sideBytes(h, head.responses),
        attributedBase: attributedBytes(b, base.responses),
        attributedHead: attributedBytes(h, head.responses),
      };
      const added = id.category === 'own' ? (change.attributedHead ?? 0) - (change.attributedBase ?? 0) : (change.head ?? 0) - (change.base ?? 0);
      return { ...fn, ...change, added };
    })
    .sort((x, y) => y.added - x.added || x.name.localeCompare(y.name));
}
