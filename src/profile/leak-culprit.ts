/**
 * The leak culprit of a scenario, in words: the constructor whose objects head's heap gained the
 * most more than base's over the same load (each side's heap snapshots at the load's end against
 * its start, heap-snapshot.ts), and the own function head allocates the most more in (its
 * sampling heap profile, allocation-culprit.ts). "head keeps +5.1 MB more than base in 52k
 * Object; it allocates the most more in rememberRequest (server.js:12, changed by this PR)".
 * Pure; whether the memory-growth rule makes it worth saying is the assessment's call.
 */
import type { ChangeSet, ScenarioProfile } from '../results/types.js';
import { formatAmount, formatBytes } from '../stats/format.js';
import { type AllocationCulprit, allocationPlace, explainAllocations } from './allocation-culprit.js';
import type { ConstructorStats } from './heap-snapshot.js';

/** Below this, no constructor is named: a few pages of objects is what a warm cache or a JIT's feedback gains. */
export const LEAK_MIN_BYTES = 64 * 1024;

export interface LeakCulprit {
  /** The constructor, with what head kept more of it than base: objects and shallow bytes. */
  kept: ConstructorStats;
  /** The own function head allocates the most more in; null when none grew by the allocation culprit's floor. */
  allocation: AllocationCulprit | null;
  text: string;
}

export interface LeakExplanation {
  /** Why there is no comparison on a side (its snapshots were skipped or not written); null when both sides have one. */
  skipped: string | null;
  culprit: LeakCulprit | null;
}

/**
 * Head's growth by constructor against base's, base's scaled to the responses head served (the
 * two sides serve different numbers of requests in the same window), and the one that gained the
 * most; null when the scenario has no snapshots on either side.
 */
export function explainLeak(profile: ScenarioProfile, diff?: ChangeSet): LeakExplanation | null {
  const { base, head } = profile.sides;
  if (!base.retained && !head.retained) return null;
  const skipped = [base, head].flatMap((side, i) => {
    const label = i === 0 ? 'base' : 'head';
    if (!side.retained) return [`${label}: no heap snapshots`];
    return side.retained.skipped === null ? [] : [`${label}: ${side.retained.skipped}`];
  });
  if (skipped.length > 0) return { skipped: skipped.join('; '), culprit: null };
  const baseRequests = base.allocations?.responses ?? 0;
  const headRequests = head.allocations?.responses ?? 0;
  const scale = baseRequests > 0 && headRequests > 0 ? headRequests / baseRequests : 1;
  const baseByName = new Map(base.retained!.constructors.map((c) => [c.name, c]));
  const excess = head.retained!.constructors
    .map((c) => ({ name: c.name, count: Math.round(c.count - (baseByName.get(c.name)?.count ?? 0) * scale), size: c.size - (baseByName.get(c.name)?.size ?? 0) * scale }))
    .sort((a, b) => b.size - a.size);
  const kept = excess[0];
  if (!kept || kept.size < LEAK_MIN_BYTES) return { skipped: null, culprit: null };
  const allocation = explainAllocations(profile, diff)?.culprit ?? null;
  const objects = kept.count > 0 ? ` in ${formatAmount(kept.count)} ${kept.name}` : ` in ${kept.name}`;
  const where = allocation === null ? '' : `; it allocates the most more in ${allocationPlace(allocation)}`;
  return { skipped: null, culprit: { kept, allocation, text: `head keeps +${formatBytes(kept.size)} more than base${objects}${where}` } };
}
