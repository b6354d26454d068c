/**
 * How a verdict reads (its tone), and the row the health and start-up tables share: the small
 * vocabulary the tables of every report have in common. Pure.
 */
import { equivalenceEnds } from '../assess/read.js';
import type { PairedComparison } from '../results/types.js';
import { formatChange, formatPoints } from '../stats/format.js';
import type { Tone } from './document/types.js';

export type { Tone } from './document/types.js';

/** The tone of one verdict; only a gated regression can fail the build. */
export function verdictTone(comparison: Pick<PairedComparison, 'verdict' | 'gated'>): Tone {
  switch (comparison.verdict) {
    case 'regression':
      return comparison.gated ? 'fail' : 'warn';
    case 'improvement':
      return 'good';
    case 'unchanged':
    case 'no-regression':
      // Nothing for a reviewer to act on; its words ("no regression") set it apart (betterSideOpen).
      return 'neutral';
    default:
      return 'unknown';
  }
}

/**
 * What a "no regression" verdict leaves open, in words: "an improvement of up to +2.4% not ruled
 * out" (the better end of the 90% interval, as the metric's change: in points for errors);
 * undefined for every other verdict.
 */
export function betterSideOpen(
  c: Pick<PairedComparison, 'verdict' | 'ciLow' | 'ciHigh' | 'eqLow' | 'eqHigh' | 'higherIsBetter'> & { metric?: string },
): string | undefined {
  if (c.verdict !== 'no-regression') return undefined;
  const { best } = equivalenceEnds(c);
  const change = c.higherIsBetter ? -best : best;
  return Number.isFinite(change) ? `an improvement of up to ${c.metric === 'errors' ? formatPoints(change) : formatChange(change)} not ruled out` : 'an improvement not ruled out';
}

/** What the verdict cell says, instead of "inconclusive", for a comparison the assessment found not comparable (`headFails`). */
export const FAILING_IMPROVEMENT = 'not comparable: head fails requests';

/** A health row's verdict cell: its verdict's, or "not comparable" where the assessment says so. */
export function healthVerdictCell(c: Pick<PairedComparison, 'verdict' | 'gated'> & { headFails?: true }, open: string | undefined, kind: 'verdict' | 'leak' = 'verdict'): HealthCell {
  if (c.headFails) return { kind: 'verdict', tone: 'unknown', words: FAILING_IMPROVEMENT };
  return { kind, tone: verdictTone(c), open };
}

/** What a "no regression" memory-growth rule leaves open: it has no interval to quote. */
export const HEAP_OPEN = 'head grows slower, not shown to be a leak gone';

/** What a row's verdict cell says: a verdict in the usual words, a memory-growth verdict in its own, a load generator's state, or nothing. */
export type HealthCell =
  | { kind: 'verdict'; tone: Tone; open?: string | undefined; words?: string }
  | { kind: 'leak'; tone: Tone; open?: string | undefined }
  | { kind: 'generator'; bound: boolean }
  | { kind: 'none' };

export interface HealthRow {
  scenario: string;
  firstOfScenario: boolean;
  metric: string;
  gated: boolean;
  base: string;
  head: string;
  change: string;
  /** The function the change is in, named from the service's code (outside perfgate): said after the change; absent for most rows. */
  culprit?: string;
  cell: HealthCell;
  /** Rows a shortened report keeps: anything but unchanged verdicts and plain values. */
  notable: boolean;
}
