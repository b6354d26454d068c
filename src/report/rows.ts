/**
 * How a verdict reads (its tone), and the row the health and start-up tables share: the small
 * vocabulary the tables of every report have in common. Pure.
 */
import type { PairedComparison } from '../results/types.js';
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
      return 'neutral';
    default:
      return 'unknown';
  }
}

/** What a row's verdict cell says: a verdict in the usual words, a memory-growth verdict in its own, a load generator's state, or nothing. */
export type HealthCell =
  | { kind: 'verdict'; tone: Tone }
  | { kind: 'leak'; tone: Tone }
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
  cell: HealthCell;
  /** Rows a shortened report keeps: anything but unchanged verdicts and plain values. */
  notable: boolean;
}
