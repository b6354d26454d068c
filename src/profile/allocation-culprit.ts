/**
 * The allocation culprit of a scenario, in words: the own function that allocates the most
 * more per request in head (its attributed bytes: what it allocates and what the dependency and
 * Node core code it calls allocates for it), from both sides' sampling heap profiles.
 * "+1.9 kB per request allocated in buildResponse (server.js:40, changed by this PR)". Pure:
 * a ScenarioProfile in; whether the run's allocation counter makes it worth saying is the
 * assessment's call (assess/subjects.ts).
 */
import type { AllocationStats, ChangeSet, FunctionId, ScenarioProfile } from '../results/types.js';
import { formatBytes } from '../stats/format.js';
import { type AllocationChange, diffAllocations } from './allocations.js';
import { changedByPr } from './changes.js';
import { matchFunctions } from './diff.js';
import { describeLocation, functionKey } from './frames.js';
import { describeFunction, displayName } from './names.js';

/**
 * Below this growth no function is named: 1% of base's bytes allocated per request. The sampled
 * estimate of a function is a count of samples (one per intervalBytes on average), so growth
 * smaller than that is within the sampling's own scatter for a loaded service's few-second window.
 */
export const ALLOCATION_CULPRIT_MIN_CHANGE = 0.01;

export interface AllocationCulprit {
  /** The own function named: the one that allocates more, or the one most likely inlined into `inlinedInto`. */
  fn: FunctionId;
  /**
   * Set when the bytes grew in a frame V8 may have inlined the culprit into: a frame that is not
   * own code (a framework's function that calls the handler) where no own function accounts for
   * half of that, or an own function this PR did not change whose own bytes grew. V8 books an
   * inlined function's allocations to the frame it was inlined into, so `fn` is the own code
   * below that frame whose CPU time grew the most, the changed code first.
   */
  inlinedInto?: AllocationChange;
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
function describeAllocationPlace(fn: FunctionId, changed: boolean | null): string {
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
  const explained = (place: Pick<AllocationCulprit, 'fn' | 'inlinedInto' | 'changed'>, addedBytes: number): AllocationExplanation => ({
    changes,
    perRequest,
    culprit: { ...place, addedBytes, text: `${signedBytes(addedBytes)} per request allocated in ${allocationPlace(place)}` },
  });
  // Frames that are not own code, the most grown first, that grew twice what any own function did:
  // the first with own code below it whose CPU time grew (a Node stream's buffers have none).
  for (const other of changes.filter((c) => c.category !== 'own' && c.added >= floor && (best === null || best.added < c.added / 2))) {
    const lead = inlinedLead(other, profile, diff);
    if (lead !== null) return explained({ fn: lead.fn, inlinedInto: other, changed: lead.changed }, other.added);
  }
  if (best === null) return { changes, perRequest, culprit: null };
  const changed = changedByPr(best, diff);
  // An unchanged own function whose own bytes grew (not what it calls) most likely holds a
  // changed helper V8 inlined into it: named when the CPU profile shows one below it that grew.
  if (changed === false && (best.head ?? 0) - (best.base ?? 0) >= best.added / 2) {
    const lead = inlinedLead(best, profile, diff);
    if (lead?.changed === true) return explained({ fn: lead.fn, inlinedInto: best, changed: true }, best.added);
  }
  return explained({ fn: best, changed }, best.added);
}

/**
 * Where a culprit allocates, in words: "buildResponse (server.js:40, changed by this PR)", or,
 * for bytes booked to the frame the own code was inlined into, that frame and the own code most
 * likely responsible.
 */
export function allocationPlace(culprit: Pick<AllocationCulprit, 'fn' | 'inlinedInto' | 'changed'>): string {
  const { fn, inlinedInto, changed } = culprit;
  if (inlinedInto === undefined) return describeAllocationPlace(fn, changed);
  const which = changed === true ? 'the code this PR changed below it whose CPU time grew the most' : 'the own code below it whose CPU time grew the most';
  return `${displayName(inlinedInto)} (${describeLocation(inlinedInto)}) with code V8 inlined into it: most likely ${describeFunction(fn, changed)}, ${which}`;
}

/**
 * The own function most likely inlined into `frame`: of the own code the CPU profiles show below
 * it (ownBelow, either side), the one whose samples per request grew the most, code this PR
 * changed before code it did not; null when none grew.
 */
function inlinedLead(frame: AllocationChange, profile: ScenarioProfile, diff: ChangeSet | undefined): { fn: FunctionId; changed: boolean | null } | null {
  const key = functionKey(frame);
  const below = (side: 'base' | 'head') => profile.sides[side].allocations?.functions.find((f: AllocationStats) => functionKey(f) === key)?.ownBelow ?? [];
  const perRequest = (samples: number | undefined, side: 'base' | 'head') => (samples === undefined || profile.sides[side].requests <= 0 ? 0 : samples / profile.sides[side].requests);
  // Matched as the CPU table matches functions: a handler the PR moved down is the same handler.
  const grown = matchFunctions(below('base'), below('head'))
    .map(([b, h]) => {
      const { samples: _samples, ...fn } = (h ?? b)!;
      return { fn, growth: perRequest(h?.samples, 'head') - perRequest(b?.samples, 'base'), changed: changedByPr(fn, diff) };
    })
    .filter((c) => c.growth > 0)
    .sort((a, b) => Number(b.changed === true) - Number(a.changed === true) || b.growth - a.growth);
  return grown[0] ?? null;
}
