/**
 * V8 CPU profiles as `--cpu-prof` and the inspector's Profiler.stop write them: the Chrome
 * DevTools Protocol's `Profiler.Profile` (https://chromedevtools.github.io/devtools-protocol/tot/Profiler/).
 * Pure: parsing and reading samples, no file system.
 */

/** Where a function is: V8 positions are 0-based. */
export interface CallFrame {
  functionName: string;
  scriptId: string;
  /** file:///… (ES modules, and CommonJS in recent Node), an absolute path, node:…, or "" (native). */
  url: string;
  lineNumber: number;
  columnNumber: number;
}

export interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  /** Samples with this node on top of the stack, over the whole profile. */
  hitCount?: number;
  children?: number[];
  /** Why the function was deoptimized or not optimized, when V8 recorded it. */
  deoptReason?: string;
  /** Samples per source line (1-based) of the code that ran in this node, over the whole profile. */
  positionTicks?: { line: number; ticks: number }[];
}

export interface CpuProfile {
  /** The first node is the root. */
  nodes: ProfileNode[];
  /** µs on V8's monotonic clock, the same clock as process.hrtime on Linux (CLOCK_MONOTONIC). */
  startTime: number;
  endTime: number;
  /** Node id on top of the stack at each sample. */
  samples?: number[];
  /** µs between samples; the first is relative to startTime. */
  timeDeltas?: number[];
}

/** A time range on the profiles' clock, µs: samples outside it (start-up, warm-up, shutdown) are left out. */
export interface SampleWindow {
  startUs: number;
  endUs: number;
}

export class ProfileFormatError extends Error {}

/** Parses a .cpuprofile, checking the shape the aggregation relies on; `name` is for the message. */
export function parseCpuProfile(text: string, name: string): CpuProfile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ProfileFormatError(`${name} is not JSON (${(e as Error).message}); the process may have been killed while writing it`);
  }
  const profile = value as Partial<CpuProfile>;
  const nodes = profile?.nodes;
  if (!Array.isArray(nodes) || nodes.length === 0 || typeof profile.startTime !== 'number') {
    throw new ProfileFormatError(`${name} is not a V8 CPU profile (no nodes or startTime)`);
  }
  for (const node of nodes) {
    if (typeof node?.id !== 'number' || typeof node.callFrame?.url !== 'string') {
      throw new ProfileFormatError(`${name} has a node without id or callFrame`);
    }
  }
  if (profile.samples && (!Array.isArray(profile.timeDeltas) || profile.timeDeltas.length !== profile.samples.length)) {
    throw new ProfileFormatError(`${name} has samples without matching timeDeltas`);
  }
  return profile as CpuProfile;
}

/**
 * Samples per node id, only those taken inside `window` when given. A profile without a sample
 * list (e.g. one merged from others) counts each node's hitCount and cannot be windowed.
 */
export function countSamples(profile: CpuProfile, window?: SampleWindow): Map<number, number> {
  const counts = new Map<number, number>();
  const add = (id: number, n: number) => counts.set(id, (counts.get(id) ?? 0) + n);
  if (!profile.samples || !profile.timeDeltas) {
    for (const node of profile.nodes) if (node.hitCount) add(node.id, node.hitCount);
    return counts;
  }
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i]!;
    if (window && (time < window.startUs || time > window.endUs)) continue;
    add(profile.samples[i]!, 1);
  }
  return counts;
}
