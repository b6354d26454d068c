/**
 * The allocation culprit of a scenario, in words: the own function that allocates the most
 * more per request in head (its attributed bytes: what it allocates and what the dependency and
 * Node core code it calls allocates for it), from both sides' sampling heap profiles.
 * "+1.9 kB per request allocated in buildResponse (server.js:40, changed by this PR)". Pure:
 * a ScenarioProfile in; whether the run's allocation counter makes it worth saying is the
 * assessment's call (assess/subjects.ts).
 */
import type { ChangeSet, ScenarioProfile } from '../results/types.js';
import { formatBytes } from '../stats/format.js';
import { type AllocationChange, diffAllocations } from './allocations.js';
import { changedByPr } from './changes.js';
import { describeLocation } from './frames.js';
import { describeFunction, displayName } from './names.js';

/**
 * Below this growth no function is named: 1% of base's bytes allocated per request. The sampled
 * estimate of a function is a count of samples (one per intervalBytes on average), so growth
 * smaller than that is within the sampling's own scatter for a loaded service's few-second window.
 */
export const ALLOCATION_CULPRIT_MIN_CHANGE = 0.01;

export interface AllocationCulprit {
  fn: AllocationChange;
  /** Bytes per request head allocates more in it. */
  addedBytes: number;
  /** Whether the pull request changed its lines; null when the run recorded no diff. */
  changed: boolean | null;
  /** "+1.9 kB per request allocated in buildResponse (server.js:40, changed by this PR)". */
  text: string;
}

/** Both sides' allocations diffed, and the culprit among them. */
export interface AllocationExplanation {
  changes: AllocationChange[];
  /** Bytes allocated per request on each side, all functions (the sampled estimate). */
  perRequest: { base: number; head: number };
  culprit: AllocationCulprit | null;
}

/** "+1.9 kB", "−300 B". */
function signedBytes(bytes: number): string {
  return `${bytes < 0 ? '−' : '+'}${formatBytes(Math.abs(bytes))}`;
}

/**
 * "buildResponse (server.js:40, changed by this PR)". V8's heap profiler books what an inlined
 * function allocates to the function it was inlined into: an unchanged culprit may hold the
 * changed code that way, which the CPU culprit's wording leaves out.
 */
export function describeAllocationPlace(fn: AllocationChange, changed: boolean | null): string {
  if (changed !== false) return describeFunction(fn, changed);
  return `${displayName(fn)} (${describeLocation(fn)}, not changed by this PR: what it calls, or a function V8 inlined into it, allocates more)`;
}

/**
 * Diffs a profiled scenario's allocations and names the own function whose allocations per
 * request grew the most, by ALLOCATION_CULPRIT_MIN_CHANGE of base's bytes per request or more;
 * null when either side has no allocation profile.
 */
export function explainAllocations(profile: ScenarioProfile, diff?: ChangeSet): AllocationExplanation | null {
  const base = profile.sides.base.allocations;
  const head = profile.sides.head.allocations;
  if (!base || !head || base.responses <= 0 || head.responses <= 0) return null;
  const changes = diffAllocations(base, head);
  const perRequest = { base: base.bytes / base.responses, head: head.bytes / head.responses };
  const floor = ALLOCATION_CULPRIT_MIN_CHANGE * perRequest.base;
  const best = changes.find((c) => c.category === 'own' && c.added > 0 && c.added >= floor) ?? null;
  if (best === null) return { changes, perRequest, culprit: null };
  const changed = changedByPr(best, diff);
  const text = `${signedBytes(best.added)} per request allocated in ${describeAllocationPlace(best, changed)}`;
  return { changes, perRequest, culprit: { fn: best, addedBytes: best.added, changed, text } };
}
