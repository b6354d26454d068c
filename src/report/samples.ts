/**
 * Descriptive facts the report reads straight from the raw pairs: the spread of per-pair
 * changes (the noise a reader should judge a change against) and failed requests per side.
 */
import type { MetricId } from '../config/types.js';
import type { PairedComparison, Pair, Results, Side, Slice } from '../results/types.js';
import { METRIC_DEFINITIONS } from '../gate/metrics.js';
import { quantile } from '../stats/descriptive.js';

/** A slice's value of a metric, as the gate reads it (req/s, µs, µs of CPU per request). */
function sliceValue(slice: Slice, metric: MetricId): number {
  const definition = METRIC_DEFINITIONS.find((d) => d.id === metric);
  return definition === undefined ? Number.NaN : definition.value(slice);
}

/** Relative change head vs base of each pair (0.05 = head 5% higher); unusable pairs dropped. */
export function pairChanges(pairs: Pair[], metric: MetricId): number[] {
  return pairs
    .map((p) => sliceValue(p.head, metric) / sliceValue(p.base, metric) - 1)
    .filter((change) => Number.isFinite(change));
}

/** The middle half of the per-pair changes (quartiles, R type 7); null with too few pairs. */
export interface NoiseBand {
  q1: number;
  q3: number;
}

export function noiseBand(results: Results, scenario: string, metric: MetricId): NoiseBand | null {
  const pairs = results.scenarios.find((s) => s.name === scenario)?.pairs ?? [];
  const changes = pairChanges(pairs, metric);
  if (changes.length < 2) return null;
  return { q1: quantile(changes, 0.25), q3: quantile(changes, 0.75) };
}

/** The middle half of the start pairs' own changes; null without starts (micro-benchmarks, old results) or with fewer than 2. */
export function startBand(c: Pick<PairedComparison, 'starts'>): NoiseBand | null {
  const changes = (c.starts ?? []).map((s) => s.change);
  if (changes.length < 2) return null;
  return { q1: quantile(changes, 0.25), q3: quantile(changes, 0.75) };
}

/** Requests that did not succeed, summed over one side's slices of one scenario. */
export interface FailureTally {
  scenario: string;
  side: Side;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

function tallySide(scenario: string, side: Side, pairs: Pair[]): FailureTally {
  const tally: FailureTally = { scenario, side, requests: 0, non2xx: 0, errors: 0, timeouts: 0 };
  for (const pair of pairs) {
    const slice = pair[side];
    tally.requests += slice.requests;
    tally.non2xx += slice.non2xx;
    tally.errors += slice.errors;
    tally.timeouts += slice.timeouts;
  }
  return tally;
}

/** Per scenario and side, only where some request failed (non-2xx, error or timeout). */
export function tallyFailures(results: Results): FailureTally[] {
  const sides: Side[] = ['base', 'head'];
  return results.scenarios
    .flatMap((s) => sides.map((side) => tallySide(s.name, side, s.pairs)))
    .filter((t) => t.non2xx + t.errors + t.timeouts > 0);
}
