/**
 * The leak culprit of a scenario, in words: the constructor whose objects head's heap gained the
 * most more than base's over the same load (each side's heap snapshots at the load's end against
 * its start, heap-snapshot.ts); what holds them (the array, Map or object reached first on their
 * way to the roots, by its variable: heap-holders.ts) and the function whose code adds to it
 * (holder-writers.ts). "head keeps +5.1 MB more than base in 52k Object, held in kept (an
 * Array), which rememberRequest adds to (server.js:12, changed by this PR)". Where no holder
 * is named, the own function head allocates the most more in (its sampling heap profile,
 * allocation-culprit.ts) is said instead. Pure; whether the memory-growth rule makes it worth
 * saying is the assessment's call.
 */
import type { ChangeSet, FunctionId, RetainedHolder, ScenarioProfile } from '../results/types.js';
import { formatAmount, formatBytes } from '../stats/format.js';
import { type AllocationCulprit, allocationPlace, explainAllocations } from './allocation-culprit.js';
import { changedByPr } from './changes.js';
import { describeLocation } from './frames.js';
import type { ConstructorStats } from './heap-snapshot.js';
import { displayName } from './names.js';

/** Below this, no constructor is named: a few pages of objects is what a warm cache or a JIT's feedback gains. */
export const LEAK_MIN_BYTES = 64 * 1024;

export interface LeakCulprit {
  /** The constructor, with what head kept more of it than base: objects and shallow bytes. */
  kept: ConstructorStats;
  /** What holds most of them in head, more than in base; null when no variable or property reaches it. */
  holder: { holder: RetainedHolder; writer: FunctionId | null; changed: boolean | null } | null;
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
  const holder = holderOf(kept.name, base.retained!.holders ?? [], head.retained!.holders ?? [], scale, diff);
  const objects = kept.count > 0 ? ` in ${formatAmount(kept.count)} ${kept.name}` : ` in ${kept.name}`;
  const where = holder !== null ? `, ${holderPlace(holder)}` : allocation === null ? '' : `; it allocates the most more in ${allocationPlace(allocation)}`;
  return { skipped: null, culprit: { kept, holder, allocation, text: `head keeps +${formatBytes(kept.size)} more than base${objects}${where}` } };
}

/**
 * The holder of the kept group that gained the most in head over base (base's scaled alike),
 * with a path to name it by, and the function that adds to it: the one the PR changed first.
 */
function holderOf(kept: string, base: readonly RetainedHolder[], head: readonly RetainedHolder[], scale: number, diff?: ChangeSet): LeakCulprit['holder'] {
  const key = (h: RetainedHolder) => [h.path, h.holder, h.file].join('\0');
  const before = new Map(base.filter((h) => h.kept === kept).map((h) => [key(h), h.size * scale]));
  const best = head
    .filter((h) => h.kept === kept && h.path !== null)
    .map((h) => ({ h, gained: h.size - (before.get(key(h)) ?? 0) }))
    .filter((g) => g.gained > 0)
    .sort((a, b) => b.gained - a.gained)[0];
  if (best === undefined) return null;
  const writers = best.h.writers.map((fn) => ({ fn, changed: changedByPr(fn, diff) }));
  const writer = writers.find((w) => w.changed === true) ?? writers[0] ?? null;
  return { holder: best.h, writer: writer?.fn ?? null, changed: writer?.changed ?? null };
}

/**
 * "held in kept (an Array), which remember adds to (server.js:3, changed by this PR)"; without a
 * writer, "held in kept (an Array, server.js)"; listeners never removed, "held in the 'shipped'
 * listeners of an EventEmitter (bus._events.shipped), which …".
 */
function holderPlace({ holder, writer, changed }: NonNullable<LeakCulprit['holder']>): string {
  const event = /(?:^|\.)_events\.([^.[]+)/.exec(holder.path ?? '')?.[1];
  const article = /^[AEIOU]/.test(holder.holder) ? 'an' : 'a';
  const held = event !== undefined ? `held in the '${event}' listeners of an EventEmitter (${holder.path}` : `held in ${holder.path} (${article} ${holder.holder}`;
  if (writer === null) return holder.file === null ? `${held})` : `${held}, ${holder.file})`;
  const pr = changed === null ? '' : changed ? ', changed by this PR' : ', not changed by this PR';
  return `${held}), which ${displayName(writer)} adds to (${describeLocation(writer)}${pr})`;
}
