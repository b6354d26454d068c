/**
 * The "Hot functions" sections of the reports: per profiled scenario, the functions with the
 * most self time on either side, own code first, their shares on base and head and the change
 * in percentage points. Shared by the markdown and terminal renderers; pure.
 */
import { diffProfiles, type FunctionChange, hottestChanges } from '../profile/diff.js';
import type { FunctionCategory, Results, ScenarioProfile, Side } from '../results/types.js';
import { formatChange, formatCount, formatDurationUs } from './format.js';

/** Rows per table unless the caller asks for another number. */
export const HOT_FUNCTION_ROWS = 10;

const OTHER_CATEGORIES: readonly FunctionCategory[] = ['dependency', 'node', 'native'];

export interface HotFunctionSection {
  profile: ScenarioProfile;
  /** The service's own code: the table shown first. */
  own: FunctionChange[];
  /** Dependencies, Node core and V8/native: behind a switch. */
  other: FunctionChange[];
  /** Rows shown (own, then other) that V8 deoptimized, with its reasons. */
  deoptimized: FunctionChange[];
}

/** One section per profiled scenario, in the order of the results. */
export function hotFunctionSections(results: Results, rows = HOT_FUNCTION_ROWS): HotFunctionSection[] {
  return (results.profiles ?? []).map((profile) => {
    const changes = diffProfiles(profile.sides.base, profile.sides.head);
    const own = hottestChanges(changes, ['own'], rows);
    const other = hottestChanges(changes, OTHER_CATEGORIES, rows);
    return { profile, own, other, deoptimized: [...own, ...other].filter((c) => c.deoptReasons.length > 0) };
  });
}

/** A side's share: "38.4%", "<0.1%" for a sampled function under 0.05%, "—" when the side has none. */
export function formatShare(fraction: number | null | undefined): string {
  if (fraction === null || fraction === undefined) return '—';
  if (fraction > 0 && fraction < 0.0005) return '<0.1%';
  return `${(fraction * 100).toFixed(1)}%`;
}

/** A change of shares in percentage points, signed like every other change: +36.3 pp, −2.1 pp. */
export function formatPoints(change: number): string {
  return formatChange(change).replace(/%$/, ' pp');
}

/** new / gone / moved: what the function's row stands for besides its numbers. */
export function describeMarker(c: FunctionChange): string {
  if (c.status === 'new') return 'new';
  if (c.status === 'gone') return 'gone';
  return c.baseLine !== null ? `moved from line ${c.baseLine}` : '';
}

/** Total time: "3.0% → 40.1%". */
export function describeTotals(c: FunctionChange): string {
  return `${formatShare(c.base?.total)} → ${formatShare(c.head?.total)}`;
}

/** The side whose code a row points at: head, unless the function is gone. */
export function sourceSide(c: FunctionChange): Side {
  return c.status === 'gone' ? 'base' : 'head';
}

/** The flamegraphs that were drawn, in the order reports list them. */
export function flamegraphFiles(profile: ScenarioProfile): { kind: 'head' | 'base' | 'diff'; file: string }[] {
  const { head, base, diff } = profile.files;
  return [
    { kind: 'head' as const, file: head },
    { kind: 'base' as const, file: base },
    { kind: 'diff' as const, file: diff },
  ].filter((entry): entry is { kind: 'head' | 'base' | 'diff'; file: string } => entry.file !== null);
}

/** How the profiles were taken, in one line. */
export function describeProfiling(profile: ScenarioProfile): string {
  const { base, head } = profile.sides;
  const seconds = formatDurationUs(profile.durationMs * 1000);
  const interval = formatDurationUs(profile.intervalUs);
  return `${seconds} of the scenario's load per side, sampled every ${interval}; ${formatCount(base.samples)} samples on base, ${formatCount(head.samples)} on head, idle time left out`;
}
